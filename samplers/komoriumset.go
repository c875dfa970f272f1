package samplers

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/sim"
)

// komoriumSetSampler is several passive Komorium samplers on one
// execution, each with its own granularity and randomization: Binder's
// granularity grid at the cost of one run. Passive instrumentation costs
// nothing, so every member sees the execution a Komorium alone would; the
// set rewrites the program once (the members share its Instrumentation)
// and arms each thread's one bytecode counter for the member that runs out
// first. When the counter fires at a granularity check, every member whose
// own count ran out since its last sample samples there — the first check
// after its count reached zero, where a Komorium alone would have stopped
// — and the counter is re-armed for the nearest of the members' remaining
// counts. Each member draws its random granularities from the per-thread
// stream a Komorium named "komorium" alone draws from, so on a
// single-threaded program its profile, sample count and reported bytecodes
// are those of the run with that Komorium alone. With several threads the
// set's extra hook stops, passive as they are, can change the order in
// which the threads' shared JIT counters are seen (as any passive
// sampler's stops can), and a member is then the Komorium alone only
// nearly.
//
// The members' samples are counted by context and thread in one tree of
// the sampled stacks, shared by the members: on the first thread sampled
// in an array of a count per (node, member), on the others in a map. Each
// member's profile is made from its counts when the run is over, directly
// in profile.Builder.Build's canonical order (komoriumSetSampler.profile),
// the profile adding the samples one by one would give.
//
// Each member's Result is what komoriumSampler.Result reports, except that it
// keeps no sample times and no frames_walked_per_sample (the cached path
// is an agent cost, and a set is passive).
type komoriumSetSampler struct {
	name    string
	in      jit.Instrumentation
	members []*komoriumMember
	env     *Env
	hook    sim.HandlerID
	// th is each thread's state, by id (nil: not started).
	th  []*setThread
	buf []sim.StackFrame
	// The tree of sampled stacks (methods only): node 0 is the root,
	// parent and method each node's, children finds a node by (parent,
	// method). last and lastNode are the stack last walked and its
	// nodes, frame by frame: consecutive samples share their callers.
	// byStack is the node + 1 of each stack and prefix met, by its
	// sim.View.StackID (0: not met), which spares most samples the walk.
	parent, method []int32
	children       map[[2]int32]int32
	last           []int32
	lastNode       []int32
	byStack        []int32
	// threads are the sampled threads' names; thread maps a name to its
	// index there (a thread is counted by the name it had when sampled).
	threads []string
	thread  map[string]int32
	// first holds the samples of thread index 0 by member and node, in
	// pages of setPage nodes: first[member][node/setPage][node%setPage]
	// (a member's counts apart from the others', as dense as they can
	// be: a sample mostly has one member's count to add to). other holds
	// the other threads', by (node, thread index, member).
	first   [][][]int64
	other   map[[3]int32]int64
	results []*Result
}

// setPage is the nodes of a page of komoriumSetSampler.first: the
// counts grow a page at a time, never copied.
const setPage = 4096

// setThread is one thread's state in a set: the count its counter was
// last armed with, and each member's stream, current granularity and
// what remains of it (gran, left), by member. name and index are the
// thread's name when last sampled and its index in threads (-1: none
// yet).
type setThread struct {
	armed      int64
	rngs       []*rand.Rand
	gran, left []int64
	name       string
	index      int32
}

// komoriumSetConfig is a komorium-set as a spec gives it: a member for
// every granularity of Granularities with every randomization of Randoms
// (each a Komorium's granularity and random), granularity-major, sharing
// the rewriting's MaxPath and leaf optimisation. The set is passive, so
// the rewriting's costs and the agent's do not apply.
type komoriumSetConfig struct {
	Granularities string `key:"granularities" doc:"the members' granularities (bytecodes between samples), '/'-separated, each as komorium's granularity" src:"one member, komorium's 10 000"`
	Randoms       string `key:"randoms" doc:"the members' randomizations, '/'-separated, each as komorium's random and taken with every granularity (0: constant)" src:"constant, as komorium"`
	MaxPath       int64  `key:"max_path" check:">=0" unit:"bytecodes" doc:"MaxPath: bytecodes between granularity checks at most (0: no extra checks)" src:"Binder SPE'06 §5: MaxPath 50"`
	LeafOpt       bool   `key:"leaf_opt" doc:"leaf methods push their reified frame only when sampled" src:"Binder §5.1"`
}

// defaultKomoriumSetConfig is one member, Komorium's default.
func defaultKomoriumSetConfig() komoriumSetConfig {
	d := DefaultKomoriumConfig()
	return komoriumSetConfig{Granularities: strconv.FormatInt(d.Granularity, 10), Randoms: strconv.FormatInt(d.Random, 10),
		MaxPath: d.Instrumentation.MaxPath, LeafOpt: d.Instrumentation.LeafOpt}
}

// Members are the members' configurations, in the set's order.
func (c komoriumSetConfig) Members() ([]KomoriumConfig, error) {
	grans, err := splitCounts("granularities", c.Granularities)
	if err != nil {
		return nil, err
	}
	randoms, err := splitCounts("randoms", c.Randoms)
	if err != nil {
		return nil, err
	}
	var out []KomoriumConfig
	seen := map[string]bool{}
	for _, g := range grans {
		for _, r := range randoms {
			kc := DefaultKomoriumConfig()
			kc.Granularity, kc.Random = g, r
			kc.Instrumentation.MaxPath, kc.Instrumentation.LeafOpt = c.MaxPath, c.LeafOpt
			if err := kc.Validate(); err != nil {
				return nil, fmt.Errorf("member %s: %w", kc.memberName(), err)
			}
			if seen[kc.memberName()] {
				return nil, fmt.Errorf("member %s given twice", kc.memberName())
			}
			seen[kc.memberName()] = true
			out = append(out, kc)
		}
	}
	return out, nil
}

// Validate names the first member that is invalid or given twice.
func (c komoriumSetConfig) Validate() error {
	if err := param.Check(&c); err != nil {
		return err
	}
	_, err := c.Members()
	return err
}

// splitCounts reads key's '/'-separated whole numbers.
func splitCounts(key, v string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Split(v, "/") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not a '/'-separated list of whole numbers (e.g. 500/1000)", key, v)
		}
		out = append(out, n)
	}
	return out, nil
}

// memberName is the member's name in its set's results: g and the
// granularity, then r and the randomization when it has one (g500r100).
func (c KomoriumConfig) memberName() string {
	n := "g" + strconv.FormatInt(c.Granularity, 10)
	if c.Random > 0 {
		n += "r" + strconv.FormatInt(c.Random, 10)
	}
	return n
}

func init() {
	Register(Info{Name: "komorium-set", Description: "several passive Komoriums on one execution (Binder's granularity grid at the cost of one run): a member per granularity and randomization, each reported as ID/MEMBER (g500, g500r100); passive only",
		Config: func() any { c := defaultKomoriumSetConfig(); return &c },
		Build: func(label string, cfg any) Sampler {
			cs, err := cfg.(*komoriumSetConfig).Members()
			if err == nil {
				var s *komoriumSetSampler
				if s, err = newKomoriumSet(label, cs); err == nil {
					return s
				}
			}
			panic("samplers: a resolved komorium-set does not build: " + err.Error())
		}})
}

// komoriumMember is one granularity setting of a komorium-set: its
// configuration, its samples and the bytecodes they reported.
type komoriumMember struct {
	cfg            KomoriumConfig
	total, samples int64
}

// newKomoriumSet creates a set reported under name with one member per
// configuration; the configurations must share their Instrumentation.
func newKomoriumSet(name string, cfgs []KomoriumConfig) (*komoriumSetSampler, error) {
	if len(cfgs) == 0 {
		return nil, fmt.Errorf("komorium set %s: no configuration", name)
	}
	s := &komoriumSetSampler{name: name, in: cfgs[0].Instrumentation, parent: []int32{-1}, method: []int32{-1},
		children: map[[2]int32]int32{}, thread: map[string]int32{}, other: map[[3]int32]int64{}}
	for i, c := range cfgs {
		if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("komorium set %s, member %d: %w", name, i, err)
		}
		if c.Instrumentation != s.in {
			return nil, fmt.Errorf("komorium set %s: member %d's instrumentation differs from member 0's (one rewrite serves them all)", name, i)
		}
		s.members = append(s.members, &komoriumMember{cfg: c})
	}
	s.first = make([][][]int64, len(s.members))
	for i := range s.first {
		s.first[i] = [][]int64{make([]int64, setPage)} // the root's page
	}
	return s, nil
}

// Name is the set's name.
func (s *komoriumSetSampler) Name() string { return s.name }

// Instrument rewrites the program once, passively (no cost, no size).
func (s *komoriumSetSampler) Instrument(img *sim.Image, mode Mode, cost sim.CostModel) error {
	if mode != Passive {
		return fmt.Errorf("komorium set %s: passive only (its members would each cost the run)", s.name)
	}
	in := s.in
	in.CountCycles, in.CheckCycles, in.PushCycles, in.ArgCycles, in.CountBytes, in.CheckBytes = 0, 0, 0, 0, 0, 0
	return jit.Instrument(img, in, cost)
}

// Attach arms every thread's counter as it starts.
func (s *komoriumSetSampler) Attach(env *Env) error {
	if env.Mode != Passive {
		return fmt.Errorf("komorium set %s: passive only", s.name)
	}
	if err := checkWindow(env, s.name); err != nil {
		return err
	}
	s.env = env
	h, err := env.VM.AddHookHandler(s)
	if err != nil {
		return err
	}
	s.hook = h
	env.VM.AddThreadObserver(s)
	return nil
}

// OnThreadStart gives every member the thread's stream and first
// granularity, and arms the thread's counter for the nearest.
func (s *komoriumSetSampler) OnThreadStart(vm sim.Agent, id sim.ThreadID) {
	for int(id) >= len(s.th) {
		s.th = append(s.th, nil)
	}
	n := len(s.members)
	t := &setThread{rngs: make([]*rand.Rand, n), gran: make([]int64, n), left: make([]int64, n), index: -1}
	s.th[id] = t
	for i, m := range s.members {
		t.rngs[i] = sim.Stream(s.env.Seed, "sampler/komorium/thread/"+strconv.Itoa(int(id)))
		g := m.cfg.draw(t.rngs[i])
		t.gran[i], t.left[i] = g, g
	}
	t.armed = slices.Min(t.left)
	vm.SetBytecodeCounter(s.hook, id, t.armed)
}

// OnHook is the granularity check that found the counter exhausted: the
// bytecodes counted since it was armed count against every member, each
// member whose count ran out samples the reified stack and draws its next
// granularity, and the counter is re-armed for the nearest member.
func (s *komoriumSetSampler) OnHook(vm sim.Agent, id sim.ThreadID, h sim.Hook) sim.Action {
	if h != sim.HookBytecodes {
		return sim.Continue
	}
	if int(id) >= len(s.th) || s.th[id] == nil {
		return sim.Continue // not started: its counter was never armed
	}
	t := s.th[id]
	counted := t.armed - vm.BytecodeCounter(id)
	node, thread := int32(-1), int32(0)
	next := int64(math.MaxInt64)
	for i, m := range s.members {
		if t.left[i] -= counted; t.left[i] > 0 {
			next = min(next, t.left[i])
			continue
		}
		if node < 0 {
			node, thread = s.node(vm, id), s.threadIndex(vm, t, id)
		}
		m.total += t.gran[i] - t.left[i]
		m.samples++
		if thread == 0 {
			s.first[i][node/setPage][node%setPage]++
		} else {
			s.other[[3]int32{node, thread, int32(i)}]++
		}
		g := m.cfg.draw(t.rngs[i])
		t.gran[i], t.left[i] = g, g
		next = min(next, g)
	}
	t.armed = next
	vm.SetBytecodeCounter(s.hook, id, next)
	return sim.Continue
}

// node is the tree node of thread id's stack (methods only: the reified
// stack), added if new. With a sim.View.StackID the stack is looked up by
// it, and a stack met for the first time is walked only down to its
// longest prefix met before (the prefixes' IDs are their frames'); without
// one it is walked from the previous stack walked.
func (s *komoriumSetSampler) node(vm sim.Agent, id sim.ThreadID) int32 {
	key := vm.StackID(id)
	if key < 0 {
		return s.walk(vm, id)
	}
	if c := s.known(key); c >= 0 {
		return c
	}
	s.buf = vm.Stack(id, s.buf[:0])
	u := key & 1
	k := len(s.buf) - 1 // the top frame, whose ID is key: not met
	c := int32(0)
	for k--; k >= 0; k-- {
		if c = s.known(2*int64(s.buf[k].Node) + u); c >= 0 {
			break
		}
	}
	if k < 0 {
		c = 0
	}
	for _, f := range s.buf[k+1:] {
		c = s.child(c, f.Method)
		s.meet(2*int64(f.Node)+u, c)
	}
	return c
}

// known is the node of the stack whose StackID is key, -1 if not met.
func (s *komoriumSetSampler) known(key int64) int32 {
	if key < int64(len(s.byStack)) {
		return s.byStack[key] - 1
	}
	return -1
}

// meet records that the stack whose StackID is key is node c.
func (s *komoriumSetSampler) meet(key int64, c int32) {
	if key >= int64(len(s.byStack)) {
		s.byStack = append(s.byStack, make([]int32, max(key+1-int64(len(s.byStack)), int64(len(s.byStack))/2))...)
	}
	s.byStack[key] = c + 1
}

// child is node c's child for method m, added if new.
func (s *komoriumSetSampler) child(c, m int32) int32 {
	k := [2]int32{c, m}
	next, ok := s.children[k]
	if !ok {
		next = int32(len(s.parent))
		s.parent, s.method = append(s.parent, c), append(s.method, m)
		if int(next)%setPage == 0 {
			for i := range s.first {
				s.first[i] = append(s.first[i], make([]int64, setPage))
			}
		}
		s.children[k] = next
	}
	return next
}

// walk is the tree node of thread id's stack, found frame by frame from
// the previous stack walked.
func (s *komoriumSetSampler) walk(vm sim.Agent, id sim.ThreadID) int32 {
	s.buf = vm.Stack(id, s.buf[:0])
	n := 0
	for n < len(s.buf) && n < len(s.last) && s.buf[n].Method == s.last[n] {
		n++
	}
	s.last, s.lastNode = s.last[:n], s.lastNode[:n]
	c := int32(0)
	if n > 0 {
		c = s.lastNode[n-1]
	}
	for _, f := range s.buf[n:] {
		c = s.child(c, f.Method)
		s.last, s.lastNode = append(s.last, f.Method), append(s.lastNode, c)
	}
	return c
}

// threadIndex is the index in threads of thread id's name, added if new.
func (s *komoriumSetSampler) threadIndex(vm sim.Agent, t *setThread, id sim.ThreadID) int32 {
	name := vm.ThreadName(id)
	if t.index >= 0 && name == t.name {
		return t.index
	}
	i, ok := s.thread[name]
	if !ok {
		i = int32(len(s.threads))
		s.threads = append(s.threads, name)
		s.thread[name] = i
	}
	t.name, t.index = name, i
	return i
}

// Results are the members' results, in the order of their
// configurations: each member's profile (weights in bytecodes) and Costs
// with Taken and Requested its samples and Measures its
// ApproxTotalBytecodes and Samples.
func (s *komoriumSetSampler) Results() []*Result {
	if s.results != nil {
		return s.results
	}
	ps := s.profiles()
	for i, m := range s.members {
		s.results = append(s.results, &Result{Profile: ps[i], Costs: Costs{Requested: m.samples, Taken: m.samples,
			Measures: map[Measure]float64{ApproxTotalBytecodes: float64(m.total), Samples: float64(m.samples)}}})
	}
	return s.results
}

// setCount is one member's count of samples at a node on a thread.
type setCount struct {
	node, thread int32
	n            int64
}

// counts are member i's counts, by node and thread.
func (s *komoriumSetSampler) counts(i int) []setCount {
	var out []setCount
	for node := range s.parent {
		if n := s.first[i][node/setPage][node%setPage]; n > 0 {
			out = append(out, setCount{int32(node), 0, n})
		}
	}
	for k, n := range s.other {
		if int(k[2]) == i {
			out = append(out, setCount{k[0], k[1], n})
		}
	}
	slices.SortFunc(out, func(a, b setCount) int {
		if a.node != b.node {
			return cmp.Compare(a.node, b.node)
		}
		return cmp.Compare(a.thread, b.thread)
	})
	return out
}

// profiles are the members' profiles, each what a profile.Builder given
// the member's samples one by one builds: made directly in its canonical
// order when the program's methods are distinct functions, through a
// Builder otherwise (where two methods' stacks may coincide).
func (s *komoriumSetSampler) profiles() []*profile.Profile {
	b := profile.NewBuilder("komorium", "bytecodes", 0)
	fn := Functions(b, s.env.VM.Image())
	if !DistinctFunctions(fn) {
		return s.builtProfiles()
	}
	funcs := b.Functions()
	rank := profile.FunctionRanks(funcs)
	// The tree's children lists (CSR), each in the order of its nodes'
	// functions' names: Build's order of contexts (their frames differ
	// only in the function), so a preorder walk is the canonical order.
	n := len(s.parent)
	start := make([]int32, n+1)
	for c := 1; c < n; c++ {
		start[s.parent[c]+1]++
	}
	for i := 1; i <= n; i++ {
		start[i] += start[i-1]
	}
	kids := make([]int32, max(n-1, 0))
	fill := slices.Clone(start[:n])
	for c := int32(1); int(c) < n; c++ {
		p := s.parent[c]
		kids[fill[p]] = c
		fill[p]++
	}
	for c := range n {
		ks := kids[start[c]:start[c+1]]
		if len(ks) > 1 {
			slices.SortFunc(ks, func(a, b int32) int { return cmp.Compare(rank[fn[s.method[a]]], rank[fn[s.method[b]]]) })
		}
	}
	out := make([]*profile.Profile, len(s.members))
	live := make([]bool, n)
	id := make([]int32, n)
	var stack []int32
	for i, m := range s.members {
		cs := s.counts(i)
		// The contexts: the sampled nodes and their callers.
		clear(live)
		for _, c := range cs {
			live[c.node] = true
		}
		for c := n - 1; c > 0; c-- {
			if live[c] {
				live[s.parent[c]] = true
			}
		}
		p := &profile.Profile{Source: "komorium", Unit: "bytecodes", Functions: slices.Clone(funcs),
			Contexts: []profile.Context{{Parent: -1}}}
		stack = append(stack[:0], kids[start[0]:start[1]]...)
		slices.Reverse(stack)
		for len(stack) > 0 {
			c := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if !live[c] {
				continue
			}
			parent := id[s.parent[c]]
			id[c] = int32(len(p.Contexts))
			p.Contexts = append(p.Contexts, profile.Context{Parent: parent, Depth: p.Contexts[parent].Depth + 1,
				Frame: profile.Frame{Func: int32(fn[s.method[c]])}})
			for k := start[c+1] - 1; k >= start[c]; k-- {
				stack = append(stack, kids[k])
			}
		}
		// Threads by name, "" (0) not listed, as Build numbers them.
		var names []string
		seen := map[int32]bool{}
		for _, c := range cs {
			if name := s.threads[c.thread]; name != "" && !seen[c.thread] {
				seen[c.thread] = true
				names = append(names, name)
			}
		}
		slices.Sort(names)
		p.Threads = names
		for _, c := range cs {
			th := int32(0)
			if name := s.threads[c.thread]; name != "" {
				j, _ := slices.BinarySearch(names, name)
				th = int32(j + 1)
			}
			p.Samples = append(p.Samples, profile.Sample{Context: id[c.node], Thread: th, Count: c.n, Weight: c.n * m.cfg.Granularity})
		}
		slices.SortFunc(p.Samples, func(a, b profile.Sample) int {
			if a.Thread != b.Thread {
				return cmp.Compare(a.Thread, b.Thread)
			}
			return cmp.Compare(a.Context, b.Context)
		})
		out[i] = p
	}
	return out
}

// builtProfiles are the members' profiles through a profile.Builder each,
// their samples added by node and thread.
func (s *komoriumSetSampler) builtProfiles() []*profile.Profile {
	var frames []profile.Frame
	out := make([]*profile.Profile, len(s.members))
	for i, m := range s.members {
		b := profile.NewBuilder("komorium", "bytecodes", 0)
		fn := Functions(b, s.env.VM.Image())
		for _, c := range s.counts(i) {
			frames = frames[:0]
			for n := c.node; n > 0; n = s.parent[n] {
				frames = append(frames, profile.Frame{Func: int32(fn[s.method[n]])})
			}
			slices.Reverse(frames)
			b.AddSample(frames, c.n, c.n*m.cfg.Granularity, s.threads[c.thread])
		}
		out[i] = b.Build()
	}
	return out
}

// Result is the first member's result (Results has every member's).
func (s *komoriumSetSampler) Result() *Result { return s.Results()[0] }

// Members names the members, in the order of their configurations
// (g500, g500r100: komoriumSetConfig).
func (s *komoriumSetSampler) Members() []string {
	out := make([]string, len(s.members))
	for i, m := range s.members {
		out[i] = m.cfg.memberName()
	}
	return out
}

// PassiveOnly: the members would each cost the run.
func (s *komoriumSetSampler) PassiveOnly() bool { return true }

var (
	_ Instrumenter = (*komoriumSetSampler)(nil)
	_ Membered     = (*komoriumSetSampler)(nil)
	_ PassiveOnly  = (*komoriumSetSampler)(nil)
)
