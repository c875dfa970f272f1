package importer

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/profsim/profsim/classfile"
	"github.com/profsim/profsim/jfrjson"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/program"
)

// builder turns the aggregated recording into a program.
type builder struct {
	rec    *recording
	cp     *classfile.Classpath
	opt    Options
	period float64 // ns per sample

	methods []*mmethod // rec.meths order, then the synthetic thread entries
	entries []string   // per recorded thread: its model entry method's reference
	prog    *program.Program
	report  Report
	shared  map[sharedSite]map[int]int // sharedDepths, once made
}

// mmethod is one method of the model being built.
type mmethod struct {
	data   *methodData
	class  string // model form, '.' separators
	name   string
	desc   string
	ref    string // "Class.name(desc)": unambiguous
	native bool
	// body holds the class file's analysis and code its bytecode; nil
	// when the method is modelled from the samples alone.
	body *classfile.Body
	code []byte
	// traps: the method's bytecode holds a check C2 compiles to an
	// uncommon trap (guardedByTrap).
	traps bool
	// sharedThrow is the class of the object every call of the method
	// throws without making it (classfile.Body.SharedThrow), or "".
	sharedThrow string
	regions     []*region // [0] is the method body; loops after, outer first

	incl    float64 // inclusive samples, occurrence counted
	callers []incoming
	// comp is the method's strongly connected component of the call
	// graph (fitCalls): methods of one component call each other
	// recursively.
	comp  int
	entry bool // a thread's entry method: called once
	calls float64
	limit int // recursion limit, 0 if none

	// scale multiplies the segments' time (refinement: Options.Refine).
	scale    float64
	segLines map[int]bool  // the lines of segments' statements
	selfItem map[int]*item // bytecode index → the segment its self samples went to
	siteItem map[int]*item // call-site bytecode index → its site item
	line     int           // next statement line while realizing
}

type incoming struct {
	caller *mmethod
	bci    int
	w      float64 // inclusive samples through this edge
}

// region is a method body or a loop: the code [head, end).
type region struct {
	head, end int
	parent    int // index in regions, -1 for the body
	items     []*item
	x         float64 // planned executions over the run
	// uncounted: the class file's loop is not one C2 counts
	// (classfile.Body.Counted): its back edge keeps its poll.
	uncounted bool
	// runtimeBound: a counted loop whose start or limit is computed at
	// run time (not classfile.Body.LiteralBound): the JIT must not read
	// the trips fitted to it as a literal bound.
	runtimeBound bool
	// paths splits the loop's code by the trips that run it
	// (classfile.Body.Paths); zero without a class file. fromPaths: its
	// trips were counted from them (pathTrips).
	paths     classfile.LoopPaths
	fromPaths bool
	// everyTrip are the loop's blocks every trip going round again runs
	// (its round and latch code, classfile.LoopPaths), where
	// the import marks the call sites (program.Call.EveryTrip).
	everyTrip []classfile.Block
}

type itemKind uint8

const (
	itemSeg itemKind = iota
	itemSite
	itemLoop
)

// item is a region's part: a straight-line segment, an observed call site
// or a nested loop.
type item struct {
	kind       itemKind
	start, end int
	// bci is a site's call instruction: its key in siteItem and its
	// callers' incoming.bci. start may move past it when sites overlap
	// (a mismatched class), so start is no identity.
	bci     int
	self    float64     // samples (segments)
	callees map[int]int // method index → inclusive samples (sites)
	loop    int         // region index (loops)
	line    int         // model line (segments: the work; sites: the call)
}

func (b *builder) build() error {
	rec := b.rec
	for _, md := range rec.meths {
		m := &mmethod{data: md, class: className(md.m.Class), name: safeIdent(md.m.Name, false), desc: md.m.Descriptor,
			native: md.native, scale: 1, selfItem: map[int]*item{}, siteItem: map[int]*item{}}
		m.ref = m.class + "." + m.name + m.desc
		b.methods = append(b.methods, m)
	}
	b.threadEntries()
	for _, m := range b.methods {
		if err := b.structure(m); err != nil {
			return err
		}
	}
	for _, m := range b.methods {
		for _, it := range m.items() {
			if it.kind != itemSite {
				continue
			}
			for callee, w := range it.callees {
				c := b.methods[callee]
				c.callers = append(c.callers, incoming{caller: m, bci: it.bci, w: float64(w)})
				c.incl += float64(w)
			}
		}
	}
	for _, m := range b.methods {
		if m.entry {
			m.incl += float64(m.data.roots)
		}
	}
	b.fitCalls()
	for _, m := range b.methods {
		b.fitRegions(m)
	}
	return b.realize()
}

// items lists every item of every region.
func (m *mmethod) items() []*item {
	var out []*item
	for _, r := range m.regions {
		out = append(out, r.items...)
	}
	return out
}

// threadEntries gives each thread its entry: its root method when the
// thread has one root that nothing else enters, else a synthetic method
// that calls the thread's roots in the order they were first sampled.
func (b *builder) threadEntries() {
	rec := b.rec
	rootThreads := map[int]int{}
	for _, th := range rec.threads {
		for _, r := range th.order {
			rootThreads[r]++
		}
	}
	called := map[int]bool{}
	for _, md := range rec.meths {
		for k := range md.sites {
			called[k.callee] = true
		}
	}
	used := map[string]bool{}
	for _, th := range rec.threads {
		if len(th.order) == 1 && rootThreads[th.order[0]] == 1 && !called[th.order[0]] {
			m := b.methods[th.order[0]]
			m.entry = true
			b.entries = append(b.entries, m.ref)
			continue
		}
		name := safeIdent(th.name, false)
		for base, k := name, 1; used[name]; k++ {
			name = fmt.Sprintf("%s_%d", base, k)
		}
		used[name] = true
		md := &methodData{self: map[int]int{}, sites: map[siteKey]int{}, roots: th.samples}
		for i, r := range th.order {
			md.sites[siteKey{bci: i, callee: r}] = th.roots[r]
		}
		m := &mmethod{data: md, class: SyntheticClass, name: name, desc: "()V", entry: true, scale: 1,
			selfItem: map[int]*item{}, siteItem: map[int]*item{}}
		m.ref = m.class + "." + m.name + m.desc
		// A synthetic entry's structure: one call per root, in order.
		m.regions = []*region{{head: 0, end: len(th.order), parent: -1}}
		for i, r := range th.order {
			it := &item{kind: itemSite, start: i, end: i + 1, bci: i, callees: map[int]int{r: th.roots[r]}}
			m.regions[0].items = append(m.regions[0].items, it)
			m.siteItem[i] = it
		}
		b.methods = append(b.methods, m)
		b.entries = append(b.entries, m.ref)
	}
}

// structure finds the method's regions and items: from its class file
// when the classpath has it, else from the samples alone.
func (b *builder) structure(m *mmethod) error {
	if m.regions != nil {
		return nil // synthetic
	}
	md := m.data
	if b.cp != nil && !m.native {
		c, err := b.cp.Class(md.m.Class)
		switch {
		case errors.Is(err, classfile.ErrNotFound):
		case err != nil:
			return err
		default:
			if cm := c.Method(md.m.Name, md.m.Descriptor); cm != nil {
				if cm.IsNative() {
					m.native = true
				} else if cm.Code != nil {
					body, err := classfile.Analyze(c.Pool, cm.Code)
					if err != nil {
						return fmt.Errorf("%s: %w", m.ref, err)
					}
					m.body, m.code = body, cm.Code.Bytecode
					m.traps = guardedByTrap(body)
					m.sharedThrow, _ = body.SharedThrow(c.Pool, cm.Code.Bytecode)
				}
			}
		}
	}
	if m.body == nil && !m.native {
		b.report.NoClassFile = append(b.report.NoClassFile, m.ref)
	}
	// The code's extent and loops.
	length := 1
	var loops []classfile.Loop
	if m.body != nil {
		length = m.body.Length
		loops = m.body.Loops
	} else {
		for bci := range md.self {
			length = max(length, bci+1)
		}
		for k := range md.sites {
			length = max(length, k.bci+3)
		}
	}
	m.regions = []*region{{head: 0, end: length, parent: -1}}
	for _, l := range loops {
		parent := 0
		for i := len(m.regions) - 1; i > 0; i-- {
			if r := m.regions[i]; r.head <= l.Head && l.End <= r.end {
				parent = i
				break
			}
		}
		r := &region{head: l.Head, end: l.End, parent: parent}
		if m.body != nil {
			r.uncounted = !m.body.Counted(m.code, l)
			r.runtimeBound = !r.uncounted && !b.opt.IgnoreLoopBounds && !m.body.LiteralBound(m.code, l)
			p := m.body.Paths(l)
			if !b.opt.IgnoreLoopPaths {
				r.paths = p
			}
			if !b.opt.IgnoreEveryTripCalls {
				r.everyTrip = append(append([]classfile.Block(nil), p.Round...), p.Latch...)
			}
		}
		m.regions = append(m.regions, r)
	}
	innermost := func(bci int) int {
		best := 0
		for i := 1; i < len(m.regions); i++ {
			if r := m.regions[i]; r.head <= bci && bci < r.end {
				best = i // regions are outer first: the last match is innermost
			}
		}
		return best
	}
	// Items: child loops and observed call sites, then the gaps.
	for i := 1; i < len(m.regions); i++ {
		r := m.regions[i]
		m.regions[r.parent].items = append(m.regions[r.parent].items, &item{kind: itemLoop, start: r.head, end: r.end, loop: i})
	}
	sites := map[int]*item{}
	var siteBCIs []int
	for k, w := range md.sites {
		it := sites[k.bci]
		if it == nil {
			end := k.bci + 3
			if m.body != nil {
				in := m.body.InstrAt(k.bci)
				switch {
				case in == nil || !in.IsInvoke():
					b.report.Mismatched += w
					if in != nil {
						end = k.bci + in.Length
					} else {
						end = k.bci + 1
					}
				default:
					end = k.bci + in.Length
				}
			}
			it = &item{kind: itemSite, start: k.bci, end: min(end, length), bci: k.bci, callees: map[int]int{}}
			if it.end <= it.start {
				it.end = it.start + 1
			}
			sites[k.bci] = it
			siteBCIs = append(siteBCIs, k.bci)
		}
		it.callees[k.callee] += w
	}
	sort.Ints(siteBCIs)
	for _, bci := range siteBCIs {
		r := m.regions[innermost(bci)]
		r.items = append(r.items, sites[bci])
		m.siteItem[bci] = sites[bci]
	}
	for _, r := range m.regions {
		sort.SliceStable(r.items, func(i, j int) bool { return r.items[i].start < r.items[j].start })
		var items []*item
		pc := r.head
		for _, it := range r.items {
			if it.start < pc { // overlapping sites (a mismatched class): drop the later one's overlap
				it.start = pc
				if it.end <= it.start {
					it.end = it.start
				}
			}
			if it.start > pc {
				items = append(items, &item{kind: itemSeg, start: pc, end: it.start})
			}
			items = append(items, it)
			pc = max(pc, it.end)
		}
		if pc < r.end || len(items) == 0 {
			items = append(items, &item{kind: itemSeg, start: pc, end: max(pc, r.end)})
		}
		r.items = items
	}
	// Self samples: to the segment that holds the bytecode index, or the
	// nearest segment of the same region.
	for bci, n := range md.self {
		r := m.regions[innermost(bci)]
		var seg *item
		for _, it := range r.items {
			if it.kind == itemSeg && (seg == nil || it.start <= bci) {
				seg = it
			}
			if it.start > bci {
				break
			}
		}
		if seg == nil { // a region of sites only: give it a segment
			seg = &item{kind: itemSeg, start: r.end, end: r.end}
			r.items = append(r.items, seg)
		}
		seg.self += float64(n)
		m.selfItem[bci] = seg
	}
	return nil
}

// bytes is a segment's size in bytecode bytes.
func (it *item) bytes() int { return it.end - it.start }

// regionSelf sums a region's own segments: samples and bytes.
func regionSelf(r *region) (self float64, bytes int) {
	for _, it := range r.items {
		if it.kind == itemSeg {
			self += it.self
			bytes += it.bytes()
		}
	}
	return self, bytes
}

// siteCalls is the planned number of calls at a site: each callee's share
// of its own calls (the site's share of the callee's inclusive samples).
//
// The callees are summed in index order: a float sum in map order differs
// in its last bits from run to run, and so would the model's file.
func (b *builder) siteCalls(it *item) (total float64, per map[int]float64) {
	per = make(map[int]float64, len(it.callees))
	for _, callee := range slices.Sorted(maps.Keys(it.callees)) {
		c := b.methods[callee]
		e := c.calls * float64(it.callees[callee]) / c.incl
		per[callee] = e
		total += e
	}
	return total, per
}

// fitCalls decides how often each method is called, callers first (the
// call graph's strongly connected components in topological order). A
// method's preferred count makes its top-level code cost NanosPerByte per
// byte per call (half a sample when the samples never saw that code); a
// call site outside loops bounds its callees' counts by its caller's, and
// a thread's entry method is called once.
func (b *builder) fitCalls() {
	index := map[*mmethod]int{}
	for i, m := range b.methods {
		index[m] = i
	}
	succ := func(i int) []int {
		var out []int
		for _, it := range b.methods[i].items() {
			if it.kind == itemSite {
				for c := range it.callees {
					out = append(out, c)
				}
			}
		}
		sort.Ints(out)
		return out
	}
	comps := tarjan(len(b.methods), succ)
	decided := make([]bool, len(b.methods))
	for k := len(comps) - 1; k >= 0; k-- { // Tarjan emits callees first
		comp := comps[k]
		for _, i := range comp {
			b.methods[i].comp = k
		}
		cyclic := len(comp) > 1
		for _, i := range comp {
			for _, c := range succ(i) {
				if c == i {
					cyclic = true
				}
			}
		}
		for _, i := range comp {
			m := b.methods[i]
			if cyclic {
				m.limit = max(1, m.data.maxDepth)
			}
			if m.entry {
				m.calls = 1
				decided[i] = true
				continue
			}
			self, bytes := regionSelf(m.regions[0])
			pref := math.Max(self, 0.5) * b.period / (b.opt.NanosPerByte * float64(max(bytes, 1)))
			upper := math.Inf(1)
			for _, in := range m.callers {
				ci := index[in.caller]
				if !decided[ci] || in.caller.regionOf(in.bci) != 0 {
					continue
				}
				site := in.caller.siteItem[in.bci]
				siteW := 0
				for _, w := range site.callees {
					siteW += w
				}
				// calls(m) × w/incl ≤ calls(caller) × w/siteW.
				upper = math.Min(upper, in.caller.calls*m.incl/float64(siteW))
			}
			m.calls = math.Max(1, math.Min(pref, upper))
			decided[i] = true
		}
	}
}

// regionOf is the index of the innermost region holding bci.
// everyTrip reports whether the call at bci is made on every pass of its
// innermost region: in code every trip of its loop going round again runs
// (region.everyTrip), or, outside loops, on every path of the method to a
// return (classfile.Body.OnEveryPath).
func (m *mmethod) everyTrip(bci int) bool {
	ri := m.regionOf(bci)
	if ri == 0 {
		return m.body != nil && m.body.OnEveryPath(bci)
	}
	for _, bl := range m.regions[ri].everyTrip {
		if bl.Start <= bci && bci < bl.End {
			return true
		}
	}
	return false
}

func (m *mmethod) regionOf(bci int) int {
	best := 0
	for i := 1; i < len(m.regions); i++ {
		if r := m.regions[i]; r.head <= bci && bci < r.end {
			best = i
		}
	}
	return best
}

// fitRegions plans each loop's executions: enough for its own samples at
// NanosPerByte per byte and, per pass of the code that encloses it, at
// least as many trips as the loop's own code has samples per byte over
// that code's (each pass runs the enclosing code once, each trip the
// loop's); enough for the calls made in it; and at least one trip per
// pass.
func (b *builder) fitRegions(m *mmethod) {
	m.regions[0].x = m.calls
	for i := 1; i < len(m.regions); i++ {
		r := m.regions[i]
		parent := m.regions[r.parent]
		x := parent.x
		if t, ok := pathTrips(m, r); ok {
			// The samples on the loop's way round count its trips
			// directly.
			x = parent.x * t
			r.fromPaths = true
		} else if self, bytes := regionSelf(r); self > 0 {
			// Samples per byte of the loop's own code, over two
			// estimates of what a byte of it costs per trip: the fit's
			// NanosPerByte, and the time per byte per pass of the
			// enclosing code (run once per pass). Both overstate a
			// loop's cost (code outside loops holds allocations and
			// the samples its loops' compiled code leaves on it), so
			// the cheaper one, the more trips, is taken.
			d := self / float64(max(bytes, 1))
			x = math.Max(x, d*b.period/b.opt.NanosPerByte)
			if ps, pb := regionSelf(parent); ps > 0 {
				x = math.Max(x, parent.x*d/(ps/float64(max(pb, 1))))
			}
		}
		for _, it := range r.items {
			if it.kind == itemSite {
				e, _ := b.siteCalls(it)
				x = math.Max(x, e)
			}
		}
		r.x = x
	}
}

// MinRoundSamples is the least number of self samples the code every trip
// going round runs must hold for a loop's trips to be counted from its
// paths (pathTrips): at 10 a Poisson count's relative error is 1/√10,
// about a third.
const MinRoundSamples = 10

// pathTrips counts a closed loop's trips per entry from the self samples
// of its paths (classfile.LoopPaths), where it goes round less than once
// per entry: a loop left from inside its body, such as a for (;;) that
// returns once it finds what it looks for, whose back branch the cost of
// its code cannot tell from its first trip. Each trip that goes round
// again runs the latch code once and the round code once, and the trip
// that leaves runs the round code too (a closed loop leaves past it), so
// at one cost per byte of the method's code the latch's samples per byte
// over the round code's are r = b/(b+1), b the trips that go round per
// entry, and the loop runs 1 + b = 1/(1−r) trips. It reports false for a
// loop that is not closed (one tested at its head: its test alone is the
// round code, a few bytes on which the samples of the loop's compiled
// code gather unevenly), that has no latch code to sample (a back branch
// alone compiles to no code the samples can land on), whose round code
// has fewer than MinRoundSamples samples, or where r ≥ ½: above one
// round per entry the estimate's error grows as 1/(1−r)², and the cost
// estimates of fitRegions count the trips.
func pathTrips(m *mmethod, r *region) (float64, bool) {
	p := r.paths
	if !p.Closed {
		return 0, false
	}
	sl, bl := pathSamples(m, p.Latch)
	sr, br := pathSamples(m, p.Round)
	if bl == 0 || br == 0 || sr < MinRoundSamples {
		return 0, false
	}
	ratio := (float64(sl) / float64(bl)) / (float64(sr) / float64(br))
	if ratio >= 0.5 {
		return 0, false
	}
	return 1 / (1 - ratio), true
}

// pathSamples sums the self samples of blocks and their bytes of code,
// back branches left out (a goto compiles to a jump or to nothing).
func pathSamples(m *mmethod, blocks []classfile.Block) (samples, bytes int) {
	for _, bl := range blocks {
		for bci := bl.Start; bci < bl.End; bci++ {
			samples += m.data.self[bci]
		}
		for _, in := range m.body.Instrs {
			if in.BCI >= bl.Start && in.BCI < bl.End && in.Op != classfile.OpGoto && in.Op != classfile.OpGotoW {
				bytes += in.Length
			}
		}
	}
	return samples, bytes
}

// tarjan returns the strongly connected components of a graph, each
// component after every component it reaches (callees first).
func tarjan(n int, succ func(int) []int) [][]int {
	index := make([]int, n)
	low := make([]int, n)
	on := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	var comps [][]int
	next := 0
	type frame struct {
		v    int
		succ []int
		k    int
	}
	for s := 0; s < n; s++ {
		if index[s] >= 0 {
			continue
		}
		work := []frame{{v: s, succ: succ(s)}}
		index[s], low[s] = next, next
		next++
		stack = append(stack, s)
		on[s] = true
		for len(work) > 0 {
			f := &work[len(work)-1]
			if f.k < len(f.succ) {
				w := f.succ[f.k]
				f.k++
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					on[w] = true
					work = append(work, frame{v: w, succ: succ(w)})
				} else if on[w] {
					low[f.v] = min(low[f.v], index[w])
				}
				continue
			}
			v := f.v
			work = work[:len(work)-1]
			if len(work) > 0 {
				p := work[len(work)-1].v
				low[p] = min(low[p], low[v])
			}
			if low[v] == index[v] {
				var comp []int
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					on[w] = false
					comp = append(comp, w)
					if w == v {
						break
					}
				}
				sort.Ints(comp)
				comps = append(comps, comp)
			}
		}
	}
	return comps
}

// realize writes the program: each method's regions as statements whose
// expected costs and call counts are the fitted ones.
func (b *builder) realize() error {
	p := &program.Program{Name: b.opt.Name}
	p.Description = fmt.Sprintf("model of a JFR recording (profsim import): %d samples of %d threads, %v each",
		b.report.Samples, len(b.rec.threads), b.report.Period)
	b.report.InferredLoops, b.report.SitesInlined, b.report.SitesCalled = 0, 0, 0
	b.report.Loops = LoopKinds{}
	b.report.Throws.Sites, b.report.Throws.Thrown, b.report.Throws.SharedSites = 0, 0, 0
	for _, m := range b.methods {
		m.line = 1
		m.segLines = map[int]bool{}
		body := b.region(m, 0, m.calls)
		p.Methods = append(p.Methods, program.Method{Class: m.class, Name: m.name, Signature: m.desc, RecursionLimit: m.limit,
			Compiled: m.ranCompiled(), Traps: m.traps, Body: body})
	}
	p.CompileCommands = b.inliningCommands(p)
	var first int64 = math.MaxInt64
	for _, th := range b.rec.threads {
		first = min(first, th.first)
	}
	names := map[string]bool{}
	for i, th := range b.rec.threads {
		name := strings.TrimSpace(th.name)
		if name == "" {
			name = "thread"
		}
		for base, k := name, 1; names[name]; k++ {
			name = fmt.Sprintf("%s#%d", base, k)
		}
		names[name] = true
		p.Threads = append(p.Threads, program.Thread{Name: name, Entry: b.entries[i], Count: 1, Start: program.Duration(th.first - first)})
	}
	if err := p.Validate(); err != nil {
		return fmt.Errorf("imported program: %w", err)
	}
	b.prog = p
	return nil
}

// nextLine takes the next statement line of m (statements are created in
// source order, parents before their bodies, as the simulator numbers
// them).
func (m *mmethod) nextLine() int {
	l := m.line
	m.line++
	return l
}

// region realizes region ri of m, executed x times in expectation.
func (b *builder) region(m *mmethod, ri int, x float64) []program.Stmt {
	r := m.regions[ri]
	var out []program.Stmt
	for _, it := range r.items {
		switch it.kind {
		case itemSeg:
			out = append(out, b.segment(m, it, x)...)
		case itemSite:
			out = append(out, b.site(m, it, x))
		case itemLoop:
			out = append(out, b.loop(m, it, x))
		}
	}
	if len(out) == 0 && ri > 0 {
		out = append(out, program.Stmt{Work: &program.Work{Cycles: 1}})
		m.nextLine()
	}
	return out
}

// segment realizes a straight-line segment: its samples' time spread
// over x executions, exact in expectation (a fraction of a cycle becomes
// a branch around one more cycle).
func (b *builder) segment(m *mmethod, it *item, x float64) []program.Stmt {
	ns := 0.0
	if x > 0 {
		ns = it.self * b.period * m.scale / x
	}
	bc := int64(it.bytes())
	if ns == 0 && bc == 0 {
		return nil
	}
	ns = math.Min(ns, program.MaxCycles)
	one := func(cycles int64, bc int64) program.Stmt {
		if m.native {
			return program.Stmt{Native: &program.Native{Cycles: cycles}}
		}
		return program.Stmt{Work: &program.Work{Cycles: cycles, Bytecodes: bc}}
	}
	line := func() int {
		l := m.nextLine()
		m.segLines[l] = true
		return l
	}
	k := math.Floor(ns)
	f := ns - k
	switch {
	case ns == 0: // never sampled: the least a block can cost
		it.line = line()
		return []program.Stmt{one(1, bc)}
	case k >= 20 || f < 0.05*ns:
		it.line = line()
		return []program.Stmt{one(int64(math.Max(1, math.Round(ns))), bc)}
	case k == 0:
		line() // the branch
		it.line = line()
		return []program.Stmt{{Branch: &program.Branch{Probability: f, Then: []program.Stmt{one(1, bc)}}}}
	default:
		it.line = line()
		line() // the branch
		line() // its extra cycle
		return []program.Stmt{one(int64(k), bc), {Branch: &program.Branch{Probability: f, Then: []program.Stmt{one(1, 0)}}}}
	}
}

// site realizes a call site executed x times: n = calls/x calls per
// execution, as a plain call, a branch around it, or — when n > 1 and no
// loop of the code encloses it — an inferred loop.
func (b *builder) site(m *mmethod, it *item, x float64) program.Stmt {
	total, per := b.siteCalls(it)
	n := 0.0
	if x > 0 {
		n = total / x
	}
	var trips *program.Dist
	tripsMean := 1.0
	if n > 1 {
		// More calls than executions: the rounding of an enclosing loop's
		// trips (≤ 1/4 trip per entry) when n is within that of 1, else a
		// loop the code does not have.
		if t, mean := realizeTrips(n); mean > 1 {
			trips, tripsMean = t, mean
			b.report.InferredLoops++
		} else {
			n = 1
		}
	}
	var outer program.Stmt
	var body *[]program.Stmt
	if trips != nil {
		outer = program.Stmt{Loop: &program.Loop{Trips: trips}}
		m.nextLine()
		body = &outer.Loop.Body
	}
	p := n / tripsMean
	byCaller, placed := b.callerProbabilities(m, it, total, p)
	byDepth, depthPlaced := b.depthProbabilities(m, it, total, p)
	var call program.Stmt
	wrap := p < 1-1e-9 || byCaller != nil || byDepth != nil
	if wrap {
		call = program.Stmt{Branch: &program.Branch{Probability: math.Min(1, math.Max(0, p)), ByCaller: byCaller, ByDepth: byDepth}}
		m.nextLine()
	}
	var stmt program.Stmt
	callees := make([]int, 0, len(per))
	for c := range per {
		callees = append(callees, c)
	}
	sort.Ints(callees)
	every := !b.opt.IgnoreEveryTripCalls && trips == nil && m.everyTrip(it.bci)
	if every {
		b.report.Loops.EveryTripCalls++
	}
	if len(callees) == 1 {
		stmt = program.Stmt{Call: &program.Call{Method: b.methods[callees[0]].ref, Throws: b.thrown(m, it, callees[0], total),
			Inline: b.siteInlining(m, it, callees[0], false), EveryTrip: every}}
	} else {
		rc := map[string]float64{}
		var inl map[string]bool
		for _, c := range callees {
			w := per[c]
			if w <= 0 {
				w = 1e-12
			}
			rc[b.methods[c].ref] = w
			if d := b.siteInlining(m, it, c, true); d != nil {
				if inl == nil {
					inl = map[string]bool{}
				}
				inl[b.methods[c].ref] = *d
			}
		}
		vc := &program.VirtualCall{Receivers: rc, Inline: inl, EveryTrip: every}
		if placed {
			vc.ByCaller = b.callerReceivers(m, it, callees, per)
		}
		if depthPlaced {
			vc.ByDepth = b.depthReceivers(m, it, callees, per)
		}
		stmt = program.Stmt{VirtualCall: vc}
	}
	it.line = m.nextLine()
	if wrap {
		call.Branch.Then = []program.Stmt{stmt}
	} else {
		call = stmt
	}
	if body != nil {
		*body = []program.Stmt{call}
		return outer
	}
	return call
}

// callerProbabilities is the probability of a call at site it of m by
// m's caller, where the samples through that caller make it other than p,
// the site's probability over all of m's calls (total calls at the site
// over the run). Through caller X the site makes
// total_X = Σ_c calls(c) · w_X(c)/incl(c) calls (w_X(c): the inclusive
// samples below the site's call of c where X called m, as siteCalls
// counts them), and m runs calls(m) · incl_X(m)/incl(m) times (incl_X:
// m's samples where X called it), so p_X = p · (total_X/total) ·
// (incl(m)/incl_X(m)).
//
// Where some p_X pass 1 the site's calls through its callers cannot be
// placed by a probability alone (its loops' trips, or its method's cost
// per call, differ by caller, which the model keeps the same): every
// caller's is scaled up by one factor, each at most 1, until the site
// makes its calls again, and placed is false, so that its receivers keep
// their mix over all callers (a mix by caller would send the calls moved
// to another caller to that caller's receivers). Nil without callers, or
// when every caller's is p.
func (b *builder) callerProbabilities(m *mmethod, it *item, total, p float64) (probs map[string]float64, placed bool) {
	callers := b.callersOf(m)
	if len(callers) == 0 || total <= 0 || m.incl <= 0 {
		return nil, false
	}
	share := make([]float64, len(callers))
	totals := make([]float64, len(callers))
	for i, x := range callers {
		share[i] = float64(m.data.byCaller.incl[x]) / m.incl
		totals[i] = b.siteCallsWhere(it, func(k siteKey) int { return m.data.byCaller.sites[k][x] })
	}
	px, placed := conditioned(p, total, share, totals)
	if !placed {
		b.report.CallerUnplaced++
	}
	base := math.Min(1, math.Max(0, p))
	for i, x := range callers {
		if math.Abs(px[i]-base) <= 1e-9 {
			continue
		}
		if probs == nil {
			probs = map[string]float64{}
		}
		probs[b.methods[x].ref] = px[i]
		b.report.CallerProbabilities++
	}
	if probs != nil {
		b.report.CallerSites++
	}
	return probs, placed
}

// siteCallsWhere is the calls site it makes in the frames w counts:
// Σ_c calls(c) · w(site, c)/incl(c), as siteCalls counts all of them.
func (b *builder) siteCallsWhere(it *item, w func(siteKey) int) float64 {
	n := 0.0
	for _, c := range slices.Sorted(maps.Keys(it.callees)) {
		cm := b.methods[c]
		n += cm.calls * float64(w(siteKey{bci: it.bci, callee: c})) / cm.incl
	}
	return n
}

// conditioned is a site's probability in each part of its method's calls
// (a caller's, a depth's): share[i] the part's share of the calls,
// totals[i] the site's calls there, so p_i = p · (totals[i]/total) /
// share[i] (p where share[i] is 0). Where some pass 1 the site's calls
// cannot be placed by a probability alone (its loops' trips, or its
// method's cost per call, differ between the parts, which the model keeps
// the same): every p_i is scaled up by one factor, each at most 1, until
// the site makes its calls again, and placed is false.
func conditioned(p, total float64, share, totals []float64) (px []float64, placed bool) {
	raw := make([]float64, len(share))
	want := 0.0 // calls per call of the method through the parts
	placed = true
	for i := range share {
		raw[i] = p
		if share[i] > 0 {
			raw[i] = p * (totals[i] / total) / share[i]
		}
		want += share[i] * raw[i]
		if raw[i] > 1+1e-9 {
			placed = false
		}
	}
	scale := 1.0
	if !placed {
		made := func(scale float64) (n float64) {
			for i := range raw {
				n += share[i] * math.Min(1, scale*raw[i])
			}
			return n
		}
		lo, hi := 1.0, 1.0
		for hi < 1e12 && made(hi) < want-1e-12 {
			hi *= 2
		}
		for range 60 {
			if mid := (lo + hi) / 2; made(mid) < want {
				lo = mid
			} else {
				hi = mid
			}
		}
		scale = hi
	}
	px = make([]float64, len(raw))
	for i := range raw {
		px[i] = math.Min(1, scale*raw[i])
	}
	return px, placed
}

// depthProbabilities is callerProbabilities for a recursive method by
// its depth, the frames of it the stack holds (methodData.byDepth):
// [d-1] for depth d, up to the deepest with samples. Nil for a method
// outside recursion, or when every depth's is p.
func (b *builder) depthProbabilities(m *mmethod, it *item, total, p float64) (probs []float64, placed bool) {
	depths := b.depthsOf(m)
	if depths == 0 || total <= 0 || m.incl <= 0 {
		return nil, false
	}
	share := make([]float64, depths)
	totals := make([]float64, depths)
	all := 0.0
	for d := 1; d <= depths; d++ {
		all += float64(m.data.byDepth.incl[d])
	}
	for d := 1; d <= depths; d++ {
		share[d-1] = float64(m.data.byDepth.incl[d]) / all
		totals[d-1] = b.siteCallsWhere(it, func(k siteKey) int { return m.data.byDepth.sites[k][d] })
	}
	px, placed := conditioned(p, total, share, totals)
	if !placed {
		b.report.DepthUnplaced++
	}
	base := math.Min(1, math.Max(0, p))
	for _, x := range px {
		if math.Abs(x-base) > 1e-9 {
			b.report.DepthSites++
			return px, placed
		}
	}
	return nil, placed
}

// depthsOf is the depths a recursive method's behaviour is fitted by:
// the deepest with samples, at most its recursion limit; 0 outside
// recursion or without the calls by caller (Options.IgnoreCallers).
func (b *builder) depthsOf(m *mmethod) int {
	if b.opt.IgnoreCallers || m.data == nil || m.limit <= 0 {
		return 0
	}
	deepest := 0
	for d := range m.data.byDepth.incl {
		deepest = max(deepest, d)
	}
	return min(deepest, m.limit)
}

// depthReceivers is callerReceivers by depth: the receivers' mix at each
// depth, the site's over all calls where a depth has no samples there.
func (b *builder) depthReceivers(m *mmethod, it *item, callees []int, per map[int]float64) []map[string]float64 {
	depths := b.depthsOf(m)
	if depths == 0 {
		return nil
	}
	var out []map[string]float64
	differs := false
	for d := 1; d <= depths; d++ {
		mix := b.mixWhere(callees, per, func(c int) float64 {
			cm := b.methods[c]
			return cm.calls * float64(m.data.byDepth.sites[siteKey{bci: it.bci, callee: c}][d]) / cm.incl
		})
		if mix == nil {
			mix = map[string]float64{}
			for _, c := range callees {
				if per[c] > 0 {
					mix[b.methods[c].ref] = per[c]
				}
			}
		} else {
			differs = true
		}
		out = append(out, mix)
	}
	if !differs {
		return nil
	}
	b.report.DepthVirtualSites++
	return out
}

// callersOf is the methods whose frames the recording has below m's, in
// order, but those m calls back (its component of the call graph): a
// recursion's calls by caller would be the same at every depth, and a
// mix that favours the recursive call there can make it recurse far
// deeper than the recording did. Nil without callers to condition on
// (Options.IgnoreCallers).
func (b *builder) callersOf(m *mmethod) []int {
	if b.opt.IgnoreCallers || m.data == nil {
		return nil
	}
	var out []int
	for _, x := range slices.Sorted(maps.Keys(m.data.byCaller.incl)) {
		if b.methods[x].comp != m.comp {
			out = append(out, x)
		}
	}
	return out
}

// callerReceivers is a virtual site's receiver weights by m's caller,
// where the samples through that caller mix the receivers otherwise than
// per (the weights over all of m's calls, siteCalls'): through caller X
// receiver c is called calls(c) · w_X(c)/incl(c) times, as
// callerProbabilities counts. A receiver the caller never reaches has no
// weight there; a caller through which the site has no samples draws
// from per. Nil when no caller's mix differs.
func (b *builder) callerReceivers(m *mmethod, it *item, callees []int, per map[int]float64) map[string]map[string]float64 {
	var out map[string]map[string]float64
	for _, x := range b.callersOf(m) {
		mix := b.mixWhere(callees, per, func(c int) float64 {
			cm := b.methods[c]
			return cm.calls * float64(m.data.byCaller.sites[siteKey{bci: it.bci, callee: c}][x]) / cm.incl
		})
		if mix == nil {
			continue
		}
		if out == nil {
			out = map[string]map[string]float64{}
		}
		out[b.methods[x].ref] = mix
		b.report.CallerMixes++
	}
	if out != nil {
		b.report.CallerVirtualSites++
	}
	return out
}

// mixWhere is a virtual site's receivers' mix with receiver c weighted
// calls(c), when it differs from per's (the site's over all calls); nil
// when it does not or weighs nothing. A receiver of no weight is left out.
func (b *builder) mixWhere(callees []int, per map[int]float64, calls func(c int) float64) map[string]float64 {
	all := 0.0
	for _, c := range callees {
		all += per[c]
	}
	ws := make([]float64, len(callees))
	sum := 0.0
	for i, c := range callees {
		ws[i] = calls(c)
		sum += ws[i]
	}
	if sum <= 0 || all <= 0 {
		return nil
	}
	differs := false
	for i, c := range callees {
		if math.Abs(ws[i]/sum-per[c]/all) > 1e-9 {
			differs = true
		}
	}
	if !differs {
		return nil
	}
	mix := map[string]float64{}
	for i, c := range callees {
		if ws[i] > sum*0x1p-50 { // smaller could never be drawn
			mix[b.methods[c].ref] = ws[i]
		}
	}
	return mix
}

// thrown is the throw a call site of m makes once its call of callee
// returns (program.Thrown), or nil. Where the recording's throwables were
// made at the site and their handler is in a caller (catchSite): the depth
// most of them were caught at, and as many throws a call as the site's
// throwables over its calls in the model (calls, over the run). Where
// callee throws a shared object on every call (mmethod.sharedThrow), which
// no throwable event counts: one throw a call, at the depth most of the
// recorded stacks through the site would catch it (sharedDepths).
func (b *builder) thrown(m *mmethod, it *item, callee int, calls float64) *program.Thrown {
	if m.data == nil || calls <= 0 {
		return nil
	}
	byDepth := b.rec.throws.sites[throwSite{m: m.data.m, bci: it.bci}]
	shared := false
	if len(byDepth) == 0 && b.methods[callee].sharedThrow != "" {
		byDepth, shared = b.sharedDepths()[sharedSite{caller: m, bci: it.bci, callee: callee}], true
	}
	n, depth, most := 0, 0, 0
	for _, d := range slices.Sorted(maps.Keys(byDepth)) {
		c := byDepth[d]
		n += c
		if c > most {
			depth, most = d, c
		}
	}
	if n == 0 {
		return nil
	}
	if shared {
		b.report.Throws.SharedSites++
		return &program.Thrown{Depth: depth, Times: 1}
	}
	b.report.Throws.Sites++
	b.report.Throws.Thrown += n
	return &program.Thrown{Depth: depth, Times: min(float64(n)/calls, program.MaxThrownTimes)}
}

// sharedSite is a call of a method that throws a shared object
// (mmethod.sharedThrow): the caller, the call's bytecode index and the
// callee's index in builder.methods.
type sharedSite struct {
	caller *mmethod
	bci    int
	callee int
}

// sharedDepths counts, for each call of a method that throws a shared
// object, the recorded samples whose stacks pass through it by the depth
// above the caller that the class files' exception tables would catch
// the object at (catchSite, the object's declared class); samples whose
// stacks have no handler for it, or whose handler is in the caller, are
// not counted. Made once, on first use.
func (b *builder) sharedDepths() map[sharedSite]map[int]int {
	if b.shared != nil {
		return b.shared
	}
	b.shared = map[sharedSite]map[int]int{}
	var frames []jfrjson.Frame
	for _, key := range b.rec.order {
		sd := b.rec.stacks[key]
		for j := 0; j+1 < len(sd.frames); j++ {
			callee := sd.frames[j+1].method
			class := b.methods[callee].sharedThrow
			if class == "" {
				continue
			}
			frames = frames[:0]
			for k := j; k >= 0; k-- {
				f := sd.frames[k]
				frames = append(frames, jfrjson.Frame{Method: b.methods[f.method].data.m, BCI: f.bci})
			}
			depth, _, first, err := catchSite(b.cp, class, frames)
			if err != nil || depth < 1 || first != 0 {
				continue // a class file that does not read: as one not found
			}
			k := sharedSite{caller: b.methods[sd.frames[j].method], bci: sd.frames[j].bci, callee: callee}
			if b.shared[k] == nil {
				b.shared[k] = map[int]int{}
			}
			b.shared[k][depth] += sd.count
		}
	}
	return b.shared
}

// loop realizes a nested loop entered x times.
func (b *builder) loop(m *mmethod, it *item, x float64) program.Stmt {
	r := m.regions[it.loop]
	switch {
	case r.uncounted:
		b.report.Loops.Uncounted++
	case r.runtimeBound:
		b.report.Loops.RuntimeBound++
	default:
		b.report.Loops.Literal++
	}
	if r.fromPaths {
		b.report.Loops.FromPaths++
	}
	t := 0.0
	if x > 0 {
		t = r.x / x
	}
	if t < 1-1e-9 {
		// Fewer trips than entries: the loop runs once on a share t of them.
		br := program.Stmt{Branch: &program.Branch{Probability: math.Max(0, t)}}
		m.nextLine()
		lp := program.Stmt{Loop: &program.Loop{Trips: program.Const(1), Uncounted: r.uncounted, RuntimeBound: r.runtimeBound}}
		m.nextLine()
		lp.Loop.Body = b.region(m, it.loop, x*t)
		br.Branch.Then = []program.Stmt{lp}
		return br
	}
	trips, mean := realizeTrips(t)
	lp := program.Stmt{Loop: &program.Loop{Trips: trips, Uncounted: r.uncounted, RuntimeBound: r.runtimeBound}}
	m.nextLine()
	lp.Loop.Body = b.region(m, it.loop, x*mean)
	return lp
}

// realizeTrips is the bounded trip distribution nearest to mean t ≥ 1: a
// constant, or uniform over two neighbours for a half-integer; it returns
// the distribution's own mean.
func realizeTrips(t float64) (*program.Dist, float64) {
	if t >= program.MaxTrips {
		return program.Const(program.MaxTrips), program.MaxTrips
	}
	h := math.Round(2*t) / 2
	if h < 1 {
		h = 1
	}
	if h == math.Floor(h) {
		return program.Const(int64(h)), h
	}
	lo := int64(math.Floor(h))
	return &program.Dist{Kind: program.Uniform, A: lo, B: lo + 1}, h
}

// recorded is the recording's profile under the model's names.
func (b *builder) recorded() *profile.Profile {
	pb := profile.NewBuilder("jfr", "nanoseconds", int64(b.report.Period))
	res := program.NewResolver(b.prog)
	fn := make([]int, len(b.methods))
	for i := range b.methods {
		pm := &b.prog.Methods[i]
		fn[i] = pb.Func(profile.Function{Name: res.DisplayName(pm), Class: pm.Class, Method: pm.Name, Signature: pm.Signature, File: pm.Class + ".java"})
	}
	synth := map[int]int{} // recorded thread → synthetic entry method index
	for i, ref := range b.entries {
		for k, m := range b.methods {
			if m.ref == ref && m.class == SyntheticClass {
				synth[i] = k
			}
		}
	}
	w := int64(b.report.Period)
	var stack []profile.Frame
	for _, key := range b.rec.order {
		sd := b.rec.stacks[key]
		stack = stack[:0]
		if k, ok := synth[sd.thread]; ok {
			line := 0
			if it := b.methods[k].siteItem[rootIndex(b.rec.threads[sd.thread], sd.frames[0].method)]; it != nil {
				line = it.line
			}
			stack = append(stack, profile.Frame{Func: int32(fn[k]), Line: int32(line)})
		}
		for i, f := range sd.frames {
			m := b.methods[f.method]
			var it *item
			if i+1 < len(sd.frames) {
				it = m.siteItem[f.bci]
			} else {
				it = m.selfItem[f.bci]
			}
			line := 0
			if it != nil {
				line = it.line
			}
			stack = append(stack, profile.Frame{Func: int32(fn[f.method]), Line: int32(line)})
		}
		pb.AddSample(stack, int64(sd.count), int64(sd.count)*w, b.prog.Threads[sd.thread].Name)
	}
	return pb.Build()
}

func rootIndex(th *threadData, root int) int {
	for i, r := range th.order {
		if r == root {
			return i
		}
	}
	return -1
}

// ranCompiled says whether the recording saw m run compiled: more of its
// frames are JIT compiled or Inlined than Interpreted. JFR's stack walk
// (jfr/recorder/stacktrace/jfrStackTrace.cpp) types each frame by the
// code it walks: an interpreted frame is Interpreted, a compiled frame's
// outermost scope JIT compiled and the scopes inlined into it Inlined
// (as jfrjson's test recording shows), so a method mostly seen
// compiled had been compiled by the time the recording began, which is
// where the model's run starts (program.Method.Compiled). A method never
// sampled, or seen only native, is not marked.
func (m *mmethod) ranCompiled() bool {
	return m.data != nil && !m.native && m.data.compiled > m.data.interpreted
}

// inliningCommands replays the recording's inlining decisions as compile
// commands: a method every one of whose sampled frames below compiled
// code is Inlined gets "inline" (C2 inlined it at every sampled call
// site), one none of whose such frames is gets "dontinline" (compiled
// callers called it at every sampled site); methods with both, or never
// sampled below compiled code, are left to the model's JIT. Natives are
// not candidates (C2 does not inline a native method: "native method",
// InlineTree::check_can_parse), and a method whose name no pattern can
// match alone (a hidden class's name, say) is left out. p.Methods are
// the realized methods, in b.methods' order.
func (b *builder) inliningCommands(p *program.Program) []string {
	var out []string
	for i, m := range b.methods {
		d := m.data
		if d == nil || m.native || m.entry || (d.inlined > 0) == (d.called > 0) {
			continue
		}
		kind := program.DontInline
		if d.inlined > 0 {
			kind = program.Inline
		}
		meth := &p.Methods[i]
		cmd := program.CompileCommand{Kind: kind, Class: strings.ReplaceAll(meth.Class, ".", "/"), Method: meth.Name,
			Signature: meth.Signature, Value: true}
		text := cmd.String()
		parsed, err := program.ParseCompileCommand(text)
		if err != nil || parsed != cmd {
			continue
		}
		matches := 0
		for j := range p.Methods {
			if parsed.Matches(&p.Methods[j]) {
				matches++
			}
		}
		if matches == 1 {
			out = append(out, text)
		}
	}
	return out
}

// siteInlining is C2's decision at m's call site it for callee, where the
// recording shows one and the callee's compile command (inliningCommands)
// does not already give it: callee's frames below compiled frames of m at
// that site were all Inlined (true) or none was (false), while elsewhere
// C2 decided otherwise — or, at a virtual site, whatever it decided
// elsewhere: a compile command does not override a virtual site's
// receiver profile (C2 inlines a receiver only where the profile lets it,
// Compile::call_generator, opto/doCall.cpp), and the model's receiver
// weights are fitted to the samples, not to the calls C2 counted, so a
// receiver C2 found dominant can fall short in the model (jython's
// PyTableCode.call, whose hundred scripts' call_function each sampled a
// few times). C2 decides per site and compilation
// (InlineTree::ok_to_inline, opto/bytecodeInfo.cpp: a callee's size
// against the site's count, the depth, the compilation's size so far), so
// a method can be inlined at one site and called at another; the model's
// JIT, whose sizes, counts and compilations are the model's, follows the
// sampled sites' decisions (sim.CallEdge.Inline) and decides the rest.
func (b *builder) siteInlining(m *mmethod, it *item, callee int, virtual bool) *bool {
	c := b.methods[callee]
	if b.opt.IgnoreSiteInlining || m.data == nil || c.data == nil || c.native || c.entry ||
		!virtual && (c.data.inlined == 0 || c.data.called == 0) {
		return nil
	}
	n := m.data.siteInlining[siteKey{bci: it.bci, callee: callee}]
	if (n[0] > 0) == (n[1] > 0) {
		return nil
	}
	inline := n[1] > 0
	if inline {
		b.report.SitesInlined++
	} else {
		b.report.SitesCalled++
	}
	return &inline
}

// guardedByTrap reports whether body holds an instruction whose check C2
// compiles, in code where the check has never failed, to a branch to an
// uncommon trap — a call out of line after the method's return, with its
// PcDesc (program.Method.Traps): an array element load or store (its
// range check, GraphKit::array_element_address; aastore also its store
// check), an integer division or remainder (the divisor's zero check,
// Parse::do_one_bytecode's zero_check_int and zero_check_long) or a
// checkcast (GraphKit::gen_checkcast). Branches a profile never saw taken
// become traps too, but which branches those are the recording does not
// say, so they are not counted.
func guardedByTrap(body *classfile.Body) bool {
	for _, in := range body.Instrs {
		switch op := in.Op; {
		case op >= 0x2e && op <= 0x35, // iaload … saload
			op >= 0x4f && op <= 0x56,                       // iastore … sastore
			op == 0x6c, op == 0x6d, op == 0x70, op == 0x71, // idiv, ldiv, irem, lrem
			op == 0xc0: // checkcast
			return true
		}
	}
	return false
}
