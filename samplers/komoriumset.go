package samplers

import (
	"cmp"
	"fmt"
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
// the sampled stacks, shared by the members, and each member's profile is
// built from its counts when the run is over: the same profile as adding
// the samples one by one (a profile.Builder's output is canonical), at a
// map increment per member and sample.
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
	// armed is the count each thread's counter was last set to.
	armed map[sim.ThreadID]int64
	buf   []sim.StackFrame
	// The tree of sampled stacks (methods only): node 0 is the root,
	// parent and method each node's, child finds a node by (parent,
	// method). last and lastNode are the previous sample's stack and its
	// nodes, frame by frame: consecutive samples share their callers.
	parent, method []int32
	child          map[[2]int32]int32
	last           []int32
	lastNode       []int32
	// threads are the sampled threads' names; thread maps a thread to
	// its index there, by the name it had when last sampled.
	threads []string
	thread  map[string]int32
	results []*Result
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

// komoriumMember is one granularity setting of a komorium-set.
type komoriumMember struct {
	cfg  KomoriumConfig
	rngs map[sim.ThreadID]*rand.Rand
	// gran is the thread's current granularity, left what remains of it.
	gran, left     map[sim.ThreadID]int64
	total, samples int64
	// counts are the samples by (node, thread index).
	counts map[[2]int32]int64
}

// newKomoriumSet creates a set reported under name with one member per
// configuration; the configurations must share their Instrumentation.
func newKomoriumSet(name string, cfgs []KomoriumConfig) (*komoriumSetSampler, error) {
	if len(cfgs) == 0 {
		return nil, fmt.Errorf("komorium set %s: no configuration", name)
	}
	s := &komoriumSetSampler{name: name, in: cfgs[0].Instrumentation, armed: map[sim.ThreadID]int64{},
		parent: []int32{-1}, method: []int32{-1}, child: map[[2]int32]int32{}, thread: map[string]int32{}}
	for i, c := range cfgs {
		if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("komorium set %s, member %d: %w", name, i, err)
		}
		if c.Instrumentation != s.in {
			return nil, fmt.Errorf("komorium set %s: member %d's instrumentation differs from member 0's (one rewrite serves them all)", name, i)
		}
		s.members = append(s.members, &komoriumMember{cfg: c, rngs: map[sim.ThreadID]*rand.Rand{},
			gran: map[sim.ThreadID]int64{}, left: map[sim.ThreadID]int64{}, counts: map[[2]int32]int64{}})
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

// next draws member m's next granularity on thread id.
func (m *komoriumMember) next(id sim.ThreadID) {
	g := m.cfg.draw(m.rngs[id])
	m.gran[id], m.left[id] = g, g
}

// arm sets thread id's counter to the nearest member's remaining count.
func (s *komoriumSetSampler) arm(vm sim.Agent, id sim.ThreadID) {
	n := s.members[0].left[id]
	for _, m := range s.members[1:] {
		n = min(n, m.left[id])
	}
	s.armed[id] = n
	vm.SetBytecodeCounter(s.hook, id, n)
}

// OnThreadStart gives every member the thread's stream and first
// granularity.
func (s *komoriumSetSampler) OnThreadStart(vm sim.Agent, id sim.ThreadID) {
	for _, m := range s.members {
		m.rngs[id] = sim.Stream(s.env.Seed, "sampler/komorium/thread/"+strconv.Itoa(int(id)))
		m.next(id)
	}
	s.arm(vm, id)
}

// OnHook is the granularity check that found the counter exhausted: the
// bytecodes counted since it was armed count against every member, and
// each member whose count ran out samples the reified stack.
func (s *komoriumSetSampler) OnHook(vm sim.Agent, id sim.ThreadID, h sim.Hook) sim.Action {
	if h != sim.HookBytecodes {
		return sim.Continue
	}
	counted := s.armed[id] - vm.BytecodeCounter(id)
	key := [2]int32{-1, -1}
	for _, m := range s.members {
		if m.left[id] -= counted; m.left[id] > 0 {
			continue
		}
		if key[0] < 0 {
			key = [2]int32{s.node(vm, id), s.threadIndex(vm.ThreadName(id))}
		}
		m.total += m.gran[id] - m.left[id]
		m.samples++
		m.counts[key]++
		m.next(id)
	}
	s.arm(vm, id)
	return sim.Continue
}

// node is the tree node of thread id's stack (methods only: the reified
// stack), added if new.
func (s *komoriumSetSampler) node(vm sim.Agent, id sim.ThreadID) int32 {
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
		k := [2]int32{c, f.Method}
		next, ok := s.child[k]
		if !ok {
			next = int32(len(s.parent))
			s.parent, s.method = append(s.parent, c), append(s.method, f.Method)
			s.child[k] = next
		}
		c = next
		s.last, s.lastNode = append(s.last, f.Method), append(s.lastNode, c)
	}
	return c
}

// threadIndex is name's index in threads, added if new.
func (s *komoriumSetSampler) threadIndex(name string) int32 {
	i, ok := s.thread[name]
	if !ok {
		i = int32(len(s.threads))
		s.threads = append(s.threads, name)
		s.thread[name] = i
	}
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
	var frames []profile.Frame
	for _, m := range s.members {
		b := profile.NewBuilder("komorium", "bytecodes", 0)
		fn := Functions(b, s.env.VM.Image())
		keys := make([][2]int32, 0, len(m.counts))
		for k := range m.counts {
			keys = append(keys, k)
		}
		// Any order gives the same profile; a fixed one the same work.
		slices.SortFunc(keys, func(a, b [2]int32) int {
			if a[0] != b[0] {
				return cmp.Compare(a[0], b[0])
			}
			return cmp.Compare(a[1], b[1])
		})
		for _, k := range keys {
			frames = frames[:0]
			for c := k[0]; c > 0; c = s.parent[c] {
				frames = append(frames, profile.Frame{Func: int32(fn[s.method[c]])})
			}
			slices.Reverse(frames)
			n := m.counts[k]
			b.AddSample(frames, n, n*m.cfg.Granularity, s.threads[k[1]])
		}
		s.results = append(s.results, &Result{Profile: b.Build(), Costs: Costs{Requested: m.samples, Taken: m.samples,
			Measures: map[Measure]float64{ApproxTotalBytecodes: float64(m.total), Samples: float64(m.samples)}}})
	}
	return s.results
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
