package study

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"image/color"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "x3-passive-lenses", Claim: "X3", Title: "Beyond the papers: every sampler watching one execution, and how each disagrees with the truth by its mechanism", Run: typed(measureX3Lenses)})
	register(Experiment{Name: "x3-observer-effect", Claim: "X3", Title: "Beyond the papers: passive samplers leave the execution untouched; an instrumenting or costed one does not", Run: typed(measureX3Observer)})
}

// x3Bench is one execution setting of X3.
type x3Bench struct {
	name, prog string
	jikes      bool // Jikes-like yield points (cbs, jikes-timer need them)
	inline     bool
	d          sim.Time
	about      string
	// noKomorium skips the komorium run: instrumented code cannot be
	// fast-forwarded, and xalan's poll-free loops then take 35× longer.
	noKomorium bool
}

// x3Benches: Listing 1 without inlining (the poll bias at its clearest),
// Arnold & Grove's call pair on Jikes-like yield points (the edge
// samplers), kiama (stacks deeper than 256 frames), h2 (4 threads, locks,
// blocking) and xalan (8 CPU-bound threads on 4 CPUs).
func x3Benches(o Options) []x3Bench {
	s := sim.Time(1)
	if o.Full {
		s = 3
	}
	return []x3Bench{
		{"hotcold", "hotcold", false, false, s * 500 * sim.Millisecond, "Listing 1, inlining off", false},
		{"callpair (jikes)", "callpair", true, false, s * sim.Second, "Jikes-like yield points, inlining off", false},
		{"kiama", "kiama", false, true, s * 100 * sim.Millisecond, "recursion > 256 frames", false},
		{"h2", "h2", false, true, s * sim.Second, "4 threads, locks", false},
		{"xalan", "xalan", false, true, s * sim.Second, "8 CPU-bound threads, 4 CPUs", !o.Full},
	}
}

// x3Lens describes a sampler and the mechanism that predicts what it sees.
type x3Lens struct {
	name      string
	depth     int // frames kept nearest the leaf; 0: all
	predicted string
}

// x3Lenses watch the "lenses" run together. isps and komorium run alone:
// partial safepoints queue at the coordinator even when costless, so isps
// beside sps would take its tickets at the next polls, not the same ones;
// komorium instruments the code it observes.
var x3Lenses = []x3Lens{
	{"safepoint", 256, "global safepoint: each thread at its next poll (a HotSpot return poll is in the caller), fixed 10 ms clock"},
	{"yourkit", 0, "as safepoint, all frames: ≡ safepoint where stacks < 256"},
	{"xprof", 1, "as safepoint, the compiled method holding the leaf only"},
	{"jvmti", 256, "safepoint, 10 ms less the last sample's time (paced): ≡ safepoint while samples are quick"},
	{"jprofile", 0, "safepoint, 10 ms sleep after each sample, all frames"},
	{"hprof", 4, "as jprofile, 4 frames: ≡ jprofile cut to 4"},
	{"sps", 256, "partial safepoint: the first K threads at their next poll"},
	{"tprof", 1, "exact position, 10 ± 3 ms; the compiled method holding the leaf (inlined callees fold into it, interpreted code is one bucket)"},
	{"async", 0, "exact position, every thread each 10 ms of wall time (engine=wall: the instants of the other timers; the default cpu engine ticks on each thread's CPU time); named through debug information (an inlined frame without a record folds into its caller)"},
	{"jfr", 0, "exact position, 20 ms, ≤ 5 running threads; debug information"},
	{"pcct", 0, "exact position, 10 ms; marker bits, exact frames"},
	{"hotmethods", 1, "exact position, 10 ms; the top method"},
	{"cbs", 0, "call edges at every 3rd prologue/epilogue yield point in a window after each 10 ms tick (Jikes only)"},
	{"jikes-timer", 0, "the call edge at the first prologue/epilogue yield point after each 10 ms tick (Jikes only)"},
	{"isps", 0, "sps with incremental stack tracing: complete stacks (≡ sps where stacks < 256)"},
	{"komorium", 0, "bytecode counter: every 100 000 bytecodes at a check; weights in bytecodes, compared with the bytecode truth"},
}

const x3KomoriumGranularity = 100000

// x3Spec is lens name's sampler spec: async on its wall engine, whose
// ticks are a wall-clock grid as pcct's and the safepoint family's are
// (its default cpu engine signals each thread on its own CPU-time grid,
// a few microseconds off theirs, and the identities need equal ticks).
func x3Spec(name string) string {
	if name == "async" {
		return "async,engine=wall"
	}
	return name
}

func x3Edge(name string) bool { return name == "cbs" || name == "jikes-timer" }

// x3Kinds are the runs of one (stand-in, seed); all but the costed one are
// passive.
var x3Kinds = []struct{ name, about string }{
	{"bare", "no sampler"},
	{"bare again", "no sampler, same seed: determinism (first seed only)"},
	{"timer lenses", "tprof, async, jfr, pcct, hotmethods: timers only, passive, together"},
	{"lenses", "every lens but isps and komorium, passive, together"},
	{"isps", "isps alone, passive"},
	{"komorium", "komorium alone, passive (instrumented code)"},
	{"jvmti costed", "jvmti alone, costed: its agent, safepoints and allocation"},
}

// x3Run is what X3 keeps of a run.
type x3Run struct {
	truth     *profile.Profile
	bytecode  *profile.Profile // the exact bytecode profile (komorium's reference)
	end       sim.Time
	bc, stmts int64
	jit       []jit.Event
	threads   []sim.ThreadStats
	profiles  map[string]*profile.Profile
	costs     map[string]samplers.Costs
	// cw caches lens context weights: deep stacks make them costly.
	cw map[string]map[string]float64
	fp uint64 // x3Fingerprint, once the truth is dropped
	// waited: an application thread waited (blocked, lock, join) in it.
	waited bool
}

// ctx is a lens's context weights, computed once.
func (r *x3Run) ctx(lens string) map[string]float64 {
	if c, ok := r.cw[lens]; ok {
		return c
	}
	p := r.profiles[lens]
	if lens == "truth" {
		p = r.truth
	}
	c := p.ContextWeights()
	r.cw[lens] = c
	return c
}

func x3Once(b x3Bench, seed uint64, kind string) (*x3Run, error) {
	s := paperSpec(b.prog, seed, b.d)
	inline := b.inline
	s.Inline = &inline
	if b.jikes {
		s.VM = "jikes"
	}
	// Every lens runs on an exact clock (jitter=0): the identities X3
	// checks (same clock, same polls, same walks) are defined for equal
	// tick times, and each sampler draws its jitter from its own stream.
	switch kind {
	case "lenses":
		for _, l := range x3Lenses {
			if l.name != "isps" && l.name != "komorium" && (!x3Edge(l.name) || b.jikes) {
				s.Samplers = append(s.Samplers, samplers.ExactClock(x3Spec(l.name)))
			}
		}
	case "timer lenses":
		for _, l := range []string{"tprof", "async", "jfr", "pcct", "hotmethods"} {
			s.Samplers = append(s.Samplers, samplers.ExactClock(x3Spec(l)))
		}
	case "isps":
		s.Samplers = []string{samplers.ExactClock(kind)}
	case "komorium":
		// 10× the paper's granularity: a tenth of the samples (the
		// instrumentation, and so its effect on the run, is the same).
		s.Samplers = []string{fmt.Sprintf("komorium,granularity=%d", x3KomoriumGranularity)}
	case "jvmti costed":
		s.Samplers, s.Mode = []string{"jvmti"}, samplers.Costed
	}
	out, err := runSpec(s)
	if err != nil {
		return nil, fmt.Errorf("%s seed %d %s: %w", b.name, seed, kind, err)
	}
	r := &x3Run{truth: out.Profiles["truth"], end: out.Result.End, bc: out.Result.Truth.BytecodeTotal(),
		stmts: out.Result.Statements, jit: out.JIT.Events(), threads: out.Result.Threads, profiles: out.Profiles, costs: out.Costs,
		waited: anyWaited(out.Result.Threads)}
	r.cw = map[string]map[string]float64{}
	if kind == "komorium" {
		r.bytecode = harness.TruthBytecodeProfile(out.Result.Truth, out.Image)
	}
	return r, nil
}

// x3Obs compares one run with the bare run of its seed.
type x3Obs struct {
	Identical, JITSame, EndSame bool
	PPM, DStmts, DBytecodes     float64
}

// x3Stat is what one lens reported on one run.
type x3Stat struct {
	Samples, Methods, Contexts, TopShare float64
	Depth                                int
	Top                                  string
}

// x3Seed is everything X3 keeps of one (stand-in, seed): the runs are
// summarised as soon as they end, so memory holds one seed's runs per
// worker, not all of them.
type x3Seed struct {
	TruthDepth    int
	TruthTop      string
	TruthTopShare float64
	Obs           map[string]x3Obs  // by run kind, "bare" excepted
	Lens          map[string]x3Stat // by lens
	Same, Comp    map[string]bool   // by identity: equal, comparable
	// Late: by identity with slowBreaks, whether a sample of got outlasted
	// its interval, so that its paced clock left the fixed one; Waited: by
	// identity with waitBreaks, whether an application thread Waited
	// during the run.
	Late, Waited map[string]bool
}

func x3Summarise(b x3Bench, seed uint64, first bool) (*x3Seed, error) {
	bare, err := x3Once(b, seed, "bare")
	if err != nil {
		return nil, err
	}
	out := &x3Seed{Obs: map[string]x3Obs{}, Lens: map[string]x3Stat{}, Same: map[string]bool{}, Comp: map[string]bool{}, Late: map[string]bool{}, Waited: map[string]bool{}}
	out.TruthDepth = maxDepth(bare.truth)
	if top := bare.truth.TopMethods(1); len(top) > 0 {
		out.TruthTop = top[0]
	}
	out.TruthTopShare = profile.Hotness(bare.truth, out.TruthTop)
	// Runs are compared with the bare one as they finish and then keep
	// only their lenses' profiles: deep truths (kiama) are large.
	kept := map[string]*x3Run{}
	var bareTruth *profile.Weights // bare's contexts, sorted once for every kind
	for _, k := range x3Kinds[1:] {
		if (k.name == "bare again" && !first) || (k.name == "komorium" && b.noKomorium) {
			continue // determinism needs one repetition
		}
		r, err := x3Once(b, seed, k.name)
		if err != nil {
			return nil, err
		}
		var o x3Obs
		sameCtx := identicalSamples(bare.truth, r.truth)
		o.JITSame, o.EndSame = reflect.DeepEqual(bare.jit, r.jit), bare.end == r.end
		o.Identical = sameCtx && o.JITSame && o.EndSame && bare.bc == r.bc && bare.stmts == r.stmts && reflect.DeepEqual(bare.threads, r.threads)
		if sameCtx {
			r.cw["truth"] = bare.ctx("truth")
		} else {
			if bareTruth == nil {
				w := profile.NewWeights(bare.ctx("truth"))
				bareTruth = &w
			}
			o.PPM = 1e6 * (1 - bareTruth.Overlap(r.ctx("truth")))
		}
		o.DStmts, o.DBytecodes = math.Abs(float64(r.stmts-bare.stmts)), math.Abs(float64(r.bc-bare.bc))
		out.Obs[k.name] = o
		if k.name == "lenses" || k.name == "isps" || k.name == "komorium" {
			out.addLenses(b, r)
			r.fp = x3Fingerprint(r)
			r.truth, r.bytecode, r.jit, r.threads = nil, nil, nil, nil
			delete(r.cw, "truth")
			delete(r.profiles, "truth") // r.truth's profile, held here too
			kept[k.name] = r
		}
	}
	lensRun := func(l string) *x3Run {
		if l == "isps" || l == "komorium" {
			return kept[l]
		}
		return kept["lenses"]
	}
	for _, id := range x3Identities {
		g, r := lensRun(id.got), lensRun(id.ref)
		k := id.got + "≡" + id.ref
		out.Comp[k] = g == r || g.fp == r.fp
		out.Same[k] = out.Comp[k] && maps.Equal(g.ctx(id.got), truncated(r.profiles[id.ref], id.depth))
		if id.slowBreaks {
			out.Late[k] = unevenTicks(g.costs[id.got].Ticks)
		}
		if id.waitBreaks {
			out.Waited[k] = g.waited || r.waited
		}
	}
	return out, nil
}

// addLenses records what each lens attached to run r reported.
func (out *x3Seed) addLenses(b x3Bench, r *x3Run) {
	var truth *profile.Weights // the truth's contexts, sorted once for every lens
	for _, l := range x3Lenses {
		p, ok := r.profiles[l.name]
		if !ok || l.name == "truth" {
			continue
		}
		var st x3Stat
		st.Depth = maxDepth(p)
		st.TopShare = profile.Hotness(p, out.TruthTop)
		if tm := p.TopMethods(1); len(tm) > 0 {
			st.Top = tm[0]
		}
		switch {
		case x3Edge(l.name):
			st.Samples = float64(r.costs[l.name].Taken)
			st.Methods, st.Contexts = 100*profile.OverlapEdges(r.truth, p), math.NaN()
		case l.name == "komorium":
			st.Samples = float64(p.TotalCount())
			st.Methods = 100 * profile.OverlapMethods(r.bytecode, p)
			st.Contexts = 100 * profile.OverlapWeights(r.bytecode.ContextWeights(), r.ctx(l.name))
		default:
			st.Samples = float64(p.TotalCount())
			st.Methods = 100 * profile.OverlapMethods(r.truth, p)
			if truth == nil {
				w := profile.NewWeights(r.ctx("truth"))
				truth = &w
			}
			st.Contexts = 100 * truth.Overlap(r.ctx(l.name))
		}
		out.Lens[l.name] = st
	}
}

// x3Fingerprint identifies a run's execution: end, work done and the
// exact profile, hashed.
func x3Fingerprint(r *x3Run) uint64 {
	h := fnv.New64a()
	fmt.Fprint(h, r.end, r.stmts, r.bc)
	var buf [8]byte
	put := func(v int64) {
		binary.LittleEndian.PutUint64(buf[:], uint64(v))
		h.Write(buf[:])
	}
	// Each context's stack (its functions, root first) hashed once,
	// FNV-1a continued from its caller's.
	ctxs := r.truth.Contexts
	path := make([]uint64, len(ctxs))
	for c := range ctxs {
		path[c] = 14695981039346656037 // FNV-1a's offset basis
		if p := ctxs[c].Parent; p >= 0 {
			path[c] = path[p]
			for v, k := uint64(ctxs[c].Frame.Func), 0; k < 8; k++ {
				path[c] = (path[c] ^ v>>(8*k)&0xff) * 1099511628211 // FNV's 64-bit prime
			}
		}
	}
	for _, s := range r.truth.Samples {
		put(s.Count)
		put(s.Weight)
		put(int64(path[s.Context]))
	}
	return h.Sum64()
}

// x3Key is one X3 stand-in's summarised runs at seed; first marks the
// options' first seed.
type x3Key struct {
	bench x3Bench
	seed  uint64
	first bool
}

func (k x3Key) run() (*x3Seed, error) { return x3Summarise(k.bench, k.seed, k.first) }

// x3All summarises every (stand-in, seed); result: stand-in → seeds in
// order.
func x3All(o Options) (map[string][]*x3Seed, error) {
	var keys []x3Key
	for _, b := range x3Benches(o) {
		for si, seed := range o.Seeds {
			keys = append(keys, x3Key{b, seed, si == 0})
		}
	}
	sums, err := runAll(o, keys)
	if err != nil {
		return nil, err
	}
	out := map[string][]*x3Seed{}
	for i, k := range keys {
		out[k.bench.name] = append(out[k.bench.name], sums[i])
	}
	return out, nil
}

// truncated is p's context weights with every stack cut to the d frames
// nearest the leaf (0: all): what a depth-d sampler would have recorded of
// the same samples.
func truncated(p *profile.Profile, d int) map[string]float64 {
	out := map[string]float64{}
	var stack []profile.Frame
	for i, s := range p.Samples {
		stack = p.Stack(i, stack)
		st := stack
		if d > 0 && len(st) > d {
			st = st[len(st)-d:]
		}
		names := make([]string, len(st))
		for i, f := range st {
			names[i] = p.Functions[f.Func].Name
		}
		out[profile.JoinFrames(names)] += float64(s.Weight)
	}
	return out
}

func maxDepth(p *profile.Profile) int {
	m := 0
	for i := range p.Samples {
		m = max(m, p.Depth(i))
	}
	return m
}

// x3Identities are predictions of one lens's samples from another's on
// the same execution: got ≡ ref's stacks cut to depth frames (0: all).
// inliningBreaks: the identity holds only without inlining; slowBreaks:
// only where no sample takes longer than its interval (paced jvmti then
// ticks like the fixed clock; a ms-long poll-free loop can hold a sample
// longer); waitBreaks: only where no application thread ever waits
// (jvmti also walks waiting threads, safepoint does not; sps and isps each
// pick waiting threads from their own seeded stream).
var x3Identities = []struct {
	got, ref       string
	depth          int
	inliningBreaks bool
	slowBreaks     bool
	waitBreaks     bool
	why            string
}{
	{"safepoint", "yourkit", 256, false, false, false, "same fixed clock, same polls"},
	{"jvmti", "safepoint", 256, false, true, true, "same polls and depth; jvmti waits the interval less each sample's time, which is the fixed clock while samples are quick"},
	{"hprof", "jprofile", 4, false, false, false, "same clock and polls, 4 frames"},
	{"sps", "isps", 256, false, false, true, "incremental tracing rebuilds the stacks sps walks (isps on its own execution)"},
	{"hotmethods", "pcct", 1, false, false, false, "the top of the same walks"},
	{"xprof", "safepoint", 1, true, false, false, "same ticks; xprof names the compiled method holding the leaf, the leaf itself only without inlining"},
	{"async", "pcct", 0, true, false, false, "same 10 ms timer, exact positions; without inlining every frame has a debug record"},
}

// x3Data is every (stand-in, seed) of X3, summarised (x3All).
type x3Data struct {
	Seeds   []uint64
	Benches []x3Bench
	o       Options
	all     map[string][]*x3Seed
}

func measureX3(o Options) (x3Data, error) {
	all, err := x3All(o)
	if err != nil {
		return x3Data{}, err
	}
	return x3Data{Seeds: o.Seeds, Benches: x3Benches(o), o: o, all: all}, nil
}

// of is stand-in b's seeds; it panics on a stand-in X3 did not run.
func (d *x3Data) of(b string) []*x3Seed {
	s, ok := d.all[b]
	if !ok {
		panic("study: X3 has no stand-in " + b)
	}
	return s
}

// x3Observation is one tidy observation of X3: on Benchmark with Seed, Measure
// of Subject (a lens, "truth", an identity "got≡ref" or a run kind) is
// Value.
type x3Observation struct {
	Benchmark string
	Seed      uint64
	Subject   string
	Measure   string
	Value     float64
}

// x3LensesResult is what every lens reported, and the identities between
// lenses.
type x3LensesResult struct{ x3Data }

// measureX3Lenses reads (or runs) X3's executions.
func measureX3Lenses(o Options) (*x3LensesResult, error) {
	d, err := measureX3(o)
	return &x3LensesResult{d}, err
}

// x3LensStat is one lens on one stand-in over the seeds.
type x3LensStat struct {
	Samples, Methods, Contexts, TopShare stat
	MaxDepth                             int
}

// TruthTopShare is the truth's share (%) of its top method on b.
func (r *x3LensesResult) TruthTopShare(b string) stat {
	var xs []float64
	for _, s := range r.of(b) {
		xs = append(xs, s.TruthTopShare)
	}
	return newStat(xs)
}

// TruthDepth is the deepest context of b's truth over the seeds.
func (r *x3LensesResult) TruthDepth(b string) int {
	d := 0
	for _, s := range r.of(b) {
		d = max(d, s.TruthDepth)
	}
	return d
}

// HasLens reports whether lens l watched b.
func (r *x3LensesResult) HasLens(b, l string) bool {
	_, ok := r.of(b)[0].Lens[l]
	return ok
}

// Lens is lens l on b; it panics on a lens that did not watch b.
func (r *x3LensesResult) Lens(b, l string) x3LensStat {
	if !r.HasLens(b, l) {
		panic(fmt.Sprintf("study: X3 lens %s did not watch %s", l, b))
	}
	seeds := r.of(b)
	get := func(f func(x3Stat) float64) stat {
		var xs []float64
		for _, s := range seeds {
			xs = append(xs, f(s.Lens[l]))
		}
		return newStat(xs)
	}
	x := x3LensStat{
		Samples:  get(func(x x3Stat) float64 { return x.Samples }),
		Methods:  get(func(x x3Stat) float64 { return x.Methods }),
		Contexts: get(func(x x3Stat) float64 { return x.Contexts }),
		TopShare: get(func(x x3Stat) float64 { return x.TopShare }),
	}
	for _, s := range seeds {
		x.MaxDepth = max(x.MaxDepth, s.Lens[l].Depth)
	}
	return x
}

// DepthViolations counts the (stand-in, lens) pairs where a
// depth-limited lens reported a deeper stack than its limit.
func (r *x3LensesResult) DepthViolations() int {
	n := 0
	for _, b := range r.Benches {
		for _, l := range x3Lenses {
			if r.HasLens(b.name, l.name) && l.depth > 0 && r.Lens(b.name, l.name).MaxDepth > l.depth {
				n++
			}
		}
	}
	return n
}

// x3Identity is an identity between two lenses on one stand-in: on how
// many runs it held, on how many the two lenses watched the same
// execution, and what the mechanisms predict ("holds" or why it may
// break).
type x3Identity struct {
	Same, Comparable int
	Prediction       string
}

// Holds reports whether the mechanisms predict the identity to hold.
func (x x3Identity) Holds() bool { return x.Prediction == "holds" }

// Identity is the identity got ≡ ref (of x3Identities) on b.
func (r *x3LensesResult) Identity(b, got, ref string) x3Identity {
	for _, id := range x3Identities {
		if id.got != got || id.ref != ref {
			continue
		}
		k := id.got + "≡" + id.ref
		var x x3Identity
		late, waited := false, false
		for _, s := range r.of(b) {
			if s.Comp[k] {
				x.Comparable++
			}
			if s.Same[k] {
				x.Same++
			}
			late, waited = late || s.Late[k], waited || s.Waited[k]
		}
		x.Prediction = "holds"
		inline := false
		for _, bb := range r.Benches {
			if bb.name == b {
				inline = bb.inline
			}
		}
		if id.inliningBreaks && inline {
			x.Prediction = "may break (inlining)"
		}
		if id.slowBreaks && late {
			x.Prediction = "may break (a sample outlasted its interval)"
		}
		if id.waitBreaks && waited {
			x.Prediction = "may break (threads waited)"
		}
		return x
	}
	panic(fmt.Sprintf("study: X3 has no identity %s ≡ %s", got, ref))
}

// obs lists the lens and identity observations.
func (r *x3LensesResult) obs() []x3Observation {
	var out []x3Observation
	for _, b := range r.Benches {
		for si, s := range r.of(b.name) {
			seed := r.Seeds[si]
			out = append(out, x3Observation{b.name, seed, "truth", "top_share_pct", s.TruthTopShare}, x3Observation{b.name, seed, "truth", "max_depth", float64(s.TruthDepth)})
			for _, l := range x3Lenses {
				x, ok := s.Lens[l.name]
				if !ok {
					continue
				}
				out = append(out, x3Observation{b.name, seed, l.name, "samples", x.Samples}, x3Observation{b.name, seed, l.name, "methods_pct", x.Methods},
					x3Observation{b.name, seed, l.name, "contexts_pct", x.Contexts}, x3Observation{b.name, seed, l.name, "top_share_pct", x.TopShare},
					x3Observation{b.name, seed, l.name, "max_depth", float64(x.Depth)})
			}
			for _, id := range x3Identities {
				k := id.got + "≡" + id.ref
				out = append(out, x3Observation{b.name, seed, k, "comparable", boolValue(s.Comp[k])}, x3Observation{b.name, seed, k, "identical", boolValue(s.Same[k])})
			}
		}
	}
	return out
}

func (r *x3LensesResult) render() (*Result, error) {
	o, all := r.o, r.all
	t := &Table{Title: "X3: what each sampler reports on the same execution, against the truth (mean ± 95 % CI over seeds)",
		Columns: []string{"stand-in", "sampler", "samples/run", "overlap: methods (%)", "overlap: contexts (%)", "share of the truth's top method (%)", "top method (seed 1)", "max depth", "predicted by"}}
	res := &Result{Table: t, Tidy: tidyOf(r.obs())}
	benches := r.Benches
	overlap := map[string]map[string]stat{} // lens → stand-in → overlap over seeds
	var lensOrder []string
	for _, b := range benches {
		seeds := all[b.name]
		col := func(f func(*x3Seed) float64) []float64 {
			var xs []float64
			for _, s := range seeds {
				xs = append(xs, f(s))
			}
			return xs
		}
		truthDepth := 0
		for _, s := range seeds {
			truthDepth = max(truthDepth, s.TruthDepth)
		}
		mt, ht := MeanCI(col(func(s *x3Seed) float64 { return s.TruthTopShare }))
		t.AddRow(b.name, "truth", "exact", "100", "100", fmtCI(mt, ht), seeds[0].TruthTop, truthDepth, "every ns in its calling context")
		for _, l := range x3Lenses {
			if _, ok := seeds[0].Lens[l.name]; !ok {
				continue
			}
			get := func(f func(x3Stat) float64) []float64 {
				return col(func(s *x3Seed) float64 { return f(s.Lens[l.name]) })
			}
			ms, _ := MeanCI(get(func(x x3Stat) float64 { return x.Samples }))
			mm, hm := MeanCI(get(func(x x3Stat) float64 { return x.Methods }))
			mc, hc := MeanCI(get(func(x x3Stat) float64 { return x.Contexts }))
			mts, hts := MeanCI(get(func(x x3Stat) float64 { return x.TopShare }))
			depth := 0
			for _, s := range seeds {
				depth = max(depth, s.Lens[l.name].Depth)
			}
			methods, ctx, share, top := fmtCI(mm, hm), fmtCI(mc, hc), fmtCI(mts, hts), seeds[0].Lens[l.name].Top
			switch {
			case x3Edge(l.name):
				methods, ctx, share, top = methods+" (call edges)", "—", "—", "—"
			case l.name == "komorium":
				methods += " (vs bytecodes)"
				ctx += " (vs bytecodes)"
			}
			t.AddRow(b.name, l.name, fmt.Sprintf("%.0f", ms), methods, ctx, share, top, depth, l.predicted)
			if _, ok := overlap[l.name]; !ok {
				lensOrder = append(lensOrder, l.name)
				overlap[l.name] = map[string]stat{}
			}
			overlap[l.name][b.name] = newStat(get(func(x x3Stat) float64 { return x.Methods }))
		}
		for _, id := range x3Identities {
			x := r.Identity(b.name, id.got, id.ref)
			same, comp, pred := x.Same, x.Comparable, x.Prediction
			cell := fmt.Sprintf("%d of %d runs", same, comp)
			if comp < len(seeds) {
				cell += fmt.Sprintf(" (%d: different executions)", len(seeds)-comp)
			}
			t.AddRow(b.name, id.got+" ≡ "+id.ref+cutNote(id.depth), cell, "", "", "", "", "", "predicted: "+pred+" — "+id.why)
		}
	}
	t.Notes = append(t.Notes,
		fmt.Sprintf("%s. Overlap (Binder; Arnold & Grove): Σ min of the two normalised weight vectors, by method (flat self time), by calling context, or by call edge for the edge samplers; komorium against the exact bytecode profile. 'top method' is the lens's hottest method by self weight on seed 1; the truth row gives the truth's with its share. Identity rows: the lens's calling contexts and weights equal the other lens's samples with each stack cut to the given depth, counted over the runs where both watched the same execution (isps ran alone; where that run is not identical to the lenses run — see x3-observer-effect — the pair is not comparable). Every lens with a timer runs at jitter=0, a perfect clock: the identities are defined for equal tick times, and each sampler draws its jitter from its own stream (tprof keeps its own ± 3 ms randomisation).", x3RunsNote(o)))
	t.Notes = append(t.Notes, discussion("x3-passive-lenses")...)
	// Figure: each lens's overlap with the truth per stand-in, mean and
	// 95 % CI over seeds (a lens that did not run on a stand-in has no
	// point), the truth's 100 % as the reference.
	p := plot.New()
	p.Title.Text = "X3: each lens's overlap with the truth, on the same execution"
	p.X.Label.Text = "lens"
	p.Y.Label.Text = "overlap with the truth (%)"
	for i, b := range benches {
		var pts errPoints
		for li, l := range lensOrder {
			m, ok := overlap[l][b.name]
			if !ok {
				continue
			}
			pts.add(float64(li)-0.3+0.6*float64(i)/float64(max(len(benches)-1, 1)), m)
		}
		if err := pts.percent().addTo(p, series{Label: b.name, Style: i}); err != nil {
			return nil, err
		}
	}
	ticks := make([]string, len(lensOrder))
	for i, l := range lensOrder {
		ticks[i] = l
		if x3Edge(l) {
			ticks[i] += " (edges)"
		}
	}
	p.NominalX(ticks...)
	p.X.Tick.Label.Rotation = math.Pi / 3
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = -1, -0.5
	full, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 100}, {X: float64(len(lensOrder)) - 0.5, Y: 100}})
	if err != nil {
		return nil, err
	}
	full.Color, full.Dashes = color.Gray{Y: 100}, []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(full)
	p.Legend.Add("the truth (100 %)", full)
	p.X.Min, p.X.Max = -0.5, float64(len(lensOrder))-0.5
	p.Y.Min, p.Y.Max = 0, 100
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 25}, {Value: 50, Label: "50"}, {Value: 75}, {Value: 100, Label: "100"}})
	res.Figure = newFigure("Every sampler (lens) watching one execution passively, per stand-in: its profile's overlap with the truth (100 %: the same), by method for most lenses, by call edge for the edge samplers (edges: cbs, jikes-timer), against the exact bytecode profile for komorium; mean ± CI over seeds. "+captionCBS+" "+captionCI, p)
	return res, nil
}

// identicalSamples reports whether two profiles of one image hold the same
// samples in the same order (cheaper than reflect.DeepEqual on deep CCTs).
func identicalSamples(a, b *profile.Profile) bool {
	return len(a.Functions) == len(b.Functions) && profile.SameSamples(a, b)
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func cutNote(d int) string {
	if d == 0 {
		return ""
	}
	return fmt.Sprintf(" cut to %d", d)
}

func x3RunsNote(o Options) string {
	var parts []string
	for _, b := range x3Benches(o) {
		parts = append(parts, fmt.Sprintf("%s (%v, %s)", b.name, b.d, b.about))
	}
	note := fmt.Sprintf("Executions, seeds %v: %s; default VM otherwise (4 CPUs, no strip mining, no DebugNonSafepoints)", o.Seeds, strings.Join(parts, "; "))
	if !o.Full {
		note += "; komorium not on xalan (instrumented loops cannot be fast-forwarded: --full runs it)"
	}
	return note
}

// x3ObserverResult is each run compared with the bare run of its seed.
type x3ObserverResult struct{ x3Data }

// measureX3Observer reads (or runs) X3's executions.
func measureX3Observer(o Options) (*x3ObserverResult, error) {
	d, err := measureX3(o)
	return &x3ObserverResult{d}, err
}

// x3RunStat is one run kind on one stand-in over its seeds: how many runs
// there were, how many were identical to the bare run (whole, JIT
// decisions, end), and the largest drift.
type x3RunStat struct {
	Runs, Identical, JITIdentical, EndIdentical int
	PPM, DStatements, DBytecodes                float64
}

// Run is run kind k (x3Kinds) on b; Runs is 0 where the kind did not run.
func (r *x3ObserverResult) Run(b, k string) x3RunStat {
	known := false
	for _, x := range x3Kinds {
		known = known || x.name == k
	}
	if !known {
		panic("study: X3 has no run kind " + k)
	}
	var x x3RunStat
	for _, s := range r.of(b) {
		ob, ok := s.Obs[k]
		if !ok {
			continue
		}
		x.Runs++
		x.Identical += int(boolValue(ob.Identical))
		x.JITIdentical += int(boolValue(ob.JITSame))
		x.EndIdentical += int(boolValue(ob.EndSame))
		x.PPM, x.DStatements, x.DBytecodes = math.Max(x.PPM, ob.PPM), math.Max(x.DStatements, ob.DStmts), math.Max(x.DBytecodes, ob.DBytecodes)
	}
	return x
}

// obs lists every run's comparison with its bare run.
func (r *x3ObserverResult) obs() []x3Observation {
	var out []x3Observation
	for _, b := range r.Benches {
		for si, s := range r.of(b.name) {
			for _, k := range x3Kinds[1:] {
				ob, ok := s.Obs[k.name]
				if !ok {
					continue
				}
				seed := r.Seeds[si]
				out = append(out, x3Observation{b.name, seed, k.name, "identical", boolValue(ob.Identical)}, x3Observation{b.name, seed, k.name, "jit_identical", boolValue(ob.JITSame)},
					x3Observation{b.name, seed, k.name, "end_identical", boolValue(ob.EndSame)}, x3Observation{b.name, seed, k.name, "contexts_moved_ppm", ob.PPM},
					x3Observation{b.name, seed, k.name, "abs_delta_statements", ob.DStmts}, x3Observation{b.name, seed, k.name, "abs_delta_bytecodes", ob.DBytecodes})
			}
		}
	}
	return out
}

func (r *x3ObserverResult) render() (*Result, error) {
	o := r.o
	t := &Table{Title: "X3: each run against the bare run of the same seed (no sampler): is it the same execution?",
		Columns: []string{"stand-in", "run", "identical runs", "truth contexts moved (ppm, max)", "|Δ statements| (max)", "|Δ bytecodes| (max)", "JIT decisions identical", "end identical"}}
	res := &Result{Table: t, Tidy: tidyOf(r.obs())}
	benches := r.Benches
	for _, b := range benches {
		for _, k := range x3Kinds[1:] {
			x := r.Run(b.name, k.name)
			same, jitSame, endSame, n := x.Identical, x.JITIdentical, x.EndIdentical, x.Runs
			ppm, dst, dbc := x.PPM, x.DStatements, x.DBytecodes
			if n == 0 {
				continue
			}
			t.AddRow(b.name, k.name+" ("+k.about+")", fmt.Sprintf("%d of %d", same, n), fmt.Sprintf("%.3g", ppm), fmt.Sprintf("%.0f", dst), fmt.Sprintf("%.0f", dbc),
				fmt.Sprintf("%d of %d", jitSame, n), fmt.Sprintf("%d of %d", endSame, n))
		}
	}
	t.Notes = append(t.Notes,
		x3RunsNote(o)+". Identical: the truth's contexts and self times, the end time, bytecodes and statements executed, the JIT's decisions (what, when, how large, what inlined) and every thread's time per state all equal the bare run's. 'contexts moved': 1 − overlap of the two truths by calling context, in parts per million of CPU time.")
	t.Notes = append(t.Notes, discussion("x3-observer-effect")...)
	// Figure: per stand-in and run kind, |Δ statements| against the bare
	// run of the same seed on a log10(1 + |Δ|) axis: the mean over seeds
	// with a bar from the least to the most (the table's max), so that a
	// drift on one seed of three shows.
	p := plot.New()
	p.Title.Text = "X3: statements executed, difference from the bare run"
	p.X.Label.Text = "stand-in"
	p.Y.Label.Text = "|Δ statements executed| (log scale, 0 at the axis)"
	// The points are log10(1 + |Δ|): label the axis in statements.
	ticks := []plot.Tick{{Value: 0, Label: "0"}}
	for k := 1; k <= 8; k++ {
		ticks = append(ticks, plot.Tick{Value: math.Log10(1 + math.Pow(10, float64(k))), Label: fmt.Sprintf("10^%d", k)})
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	kinds := x3Kinds[1:]
	for i, k := range kinds {
		var pts errPoints
		for bi, b := range benches {
			var d []float64
			for _, s := range r.of(b.name) {
				if ob, ok := s.Obs[k.name]; ok {
					d = append(d, ob.DStmts)
				}
			}
			if len(d) == 0 {
				continue // the kind did not run on b
			}
			y := math.Log10(1 + newStat(d).Mean)
			pts.XYs = append(pts.XYs, plotter.XY{X: float64(bi) - 0.3 + 0.6*float64(i)/float64(len(kinds)-1), Y: y})
			pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{y - math.Log10(1+slices.Min(d)), math.Log10(1+slices.Max(d)) - y})
		}
		if err := pts.addTo(p, series{Label: k.name, Style: i}); err != nil {
			return nil, err
		}
	}
	var names []string
	for _, b := range benches {
		names = append(names, b.name)
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	p.Y.Min, p.Y.Max = -0.4, math.Max(p.Y.Max, 1) // the zeros clear of the axis
	res.Figure = newFigure("How far a run with samplers drifts from the bare run (no sampler) of the same seed: |Δ| statements executed, the mean over seeds with a bar from the least to the most. Passive lenses leave the execution untouched (0); bare again = the bare run repeated (determinism); timer lenses = tprof, async, jfr, pcct, hotmethods together; lenses = every lens but isps and komorium; jvmti costed = jvmti with its cost (agent, safepoints, allocation). JVMTI = the Java virtual machine's tool interface. ISPS = incremental stack sampling at partial safepoints.", p)
	return res, nil
}

// unevenTicks reports whether a paced sampler's ticks left the fixed
// clock: ticks start one interval in, so any gap other than the first
// tick's time means a sample took longer than the interval.
func unevenTicks(ticks []int64) bool {
	for i := 1; i < len(ticks); i++ {
		if ticks[i]-ticks[i-1] != ticks[0] {
			return true
		}
	}
	return false
}

// anyWaited reports whether an application thread spent time blocked, in
// a lock wait or joining.
func anyWaited(threads []sim.ThreadStats) bool {
	for _, t := range threads {
		if !t.Service && t.States[sim.Blocked]+t.States[sim.LockWait]+t.States[sim.JoinWait] > 0 {
			return true
		}
	}
	return false
}
