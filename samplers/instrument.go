package samplers

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/sim"
)

// InstrumentConfig configures the instrumenting (tracing) profiler.
type InstrumentConfig struct {
	// ProbeCycles is the cost of one entry or exit probe; ProbeBytes its
	// code size as the inliner sees it (probes in the bytecode only).
	ProbeCycles int64 `key:"probe_cycles" check:"0..1_000_000_000" unit:"cycles" doc:"cost of one entry or exit probe: the call into the agent, the clock read, the record (costed mode)" src:"our choice: 100 cycles (an invokestatic, System.nanoTime's ≈ 25 ns vDSO clock read, a store into a per-thread buffer)"`
	ProbeBytes  int64 `key:"probe_bytes" check:"0..65_535" unit:"bytes" doc:"code size of one probe in the bytecode, seen by the inliner (costed mode; after_inlining probes add none)" src:"our choice: 6 (sipush of the method's id, invokestatic: 3 + 3 bytes)"`
	// AfterInlining places the probes where Burchell & Marr's Bubo does
	// (MPLR'24): the compiler inserts them at the boundaries of each code
	// unit it compiles, after inlining; false puts them into every
	// method's bytecode before the JIT sees it.
	AfterInlining bool `key:"after_inlining" doc:"the JIT places the probes at its compiled units' entries and exits after inlining (inlined callees and interpreted code get none); false: every method's bytecode gets them before the JIT" src:"false: JProfiler's and YourKit's call tracing, bytecode agents; true: Burchell & Marr MPLR'24's Bubo"`
}

// DefaultInstrumentConfig is a bytecode-instrumenting tracer with our
// choice of probe costs (the tags say why).
func DefaultInstrumentConfig() InstrumentConfig {
	return InstrumentConfig{ProbeCycles: 100, ProbeBytes: 6}
}

// Validate names the first invalid field.
func (c InstrumentConfig) Validate() error { return param.Check(&c) }

func init() {
	Register(Info{Name: "instrument", Description: "tracing profiler: entry and exit probes in every method's bytecode before the JIT (inlined bodies keep them), or with after_inlining=true at the JIT's compiled units only (Bubo); exact per-call self time from the probes' timestamps on its own shadow stack",
		Config: func() any { c := DefaultInstrumentConfig(); return &c },
		Build:  func(label string, cfg any) Sampler { return newInstrument(label, *cfg.(*InstrumentConfig)) }})
}

// instrumentSampler is a tracing profiler. Every probe calls it
// (HookBytecodes: each probe counts jit.ProbeCount down from the
// thread's counter, which it re-arms at that value); it reads the clock
// there, at the probe's end, and keeps a shadow stack of the methods
// whose entry probe ran. An activation's self time is its exit time
// minus its entry time minus its callees' such intervals; its probes'
// cost is partly its caller's (the entry probe) and partly its own (the
// exit probe). Its profile holds one sample per calling context of
// its shadow stack: Count the activations that ended there, Weight
// their self time in ns.
type instrumentSampler struct {
	name    string
	cfg     InstrumentConfig
	env     *Env
	rec     *recorder
	hook    sim.HandlerID
	probed  bool
	threads map[sim.ThreadID]*shadowThread
	nodes   []instrNode
	child   map[instrEdge]int32
	edges   map[callEdge]int64
	buf     []sim.StackFrame
	// events counts the probes that called the agent; unmatched the
	// exits with no entry on the shadow stack (a compiled unit entered
	// in other code, e.g. by on-stack replacement) and stale the
	// activations closed late, at the thread's next probe or end (an
	// exception unwound them past their exit probe, or deoptimization
	// left a compiled unit).
	events, unmatched, stale int64
	closed                   bool
}

// instrNode is a calling context of the shadow stacks: a thread's root
// (method −1) or a method under its parent.
type instrNode struct {
	parent, method int32
	thread         string
	self           sim.Time
	calls          int64
}

type instrEdge struct{ parent, method int32 }

// callEdge is a call site (caller and line) and its callee.
type callEdge struct{ caller, line, callee int32 }

// shadowThread is a thread's shadow stack and root context.
type shadowThread struct {
	root   int32
	frames []shadowFrame
}

// shadowFrame is one activation whose entry probe ran: its context, the
// VM stack depth of its frame, its entry time and its callees' time.
type shadowFrame struct {
	node, depth int32
	entry, kids sim.Time
}

// newInstrument creates an instrumenting profiler reported under name.
func newInstrument(name string, cfg InstrumentConfig) *instrumentSampler {
	return &instrumentSampler{name: name, cfg: cfg, threads: map[sim.ThreadID]*shadowThread{}, child: map[instrEdge]int32{}, edges: map[callEdge]int64{}}
}

// Name is the sampler's label ("instrument" unless labelled).
func (s *instrumentSampler) Name() string { return s.name }

// Config returns the configuration.
func (s *instrumentSampler) Config() InstrumentConfig { return s.cfg }

// probes are the probes as placed in mode: passive probes cost nothing
// and add no code size.
func (s *instrumentSampler) probes(mode Mode) jit.Probes {
	if mode == Passive {
		return jit.Probes{}
	}
	return jit.Probes{Cycles: s.cfg.ProbeCycles, Bytes: s.cfg.ProbeBytes}
}

// Instrument puts the probes into every method's bytecode (before
// inlining) or, after inlining, only marks the code so that the probes
// the JIT places (UnitProbes) are the thread's counter's only users.
func (s *instrumentSampler) Instrument(img *sim.Image, mode Mode, cost sim.CostModel) error {
	if err := s.cfg.Validate(); err != nil {
		return fmt.Errorf("sampler %s: %w", s.name, err)
	}
	var err error
	if s.cfg.AfterInlining {
		err = jit.MarkProbed(img)
	} else {
		err = jit.InstrumentProbes(img, s.probes(mode), cost)
	}
	if err != nil {
		return fmt.Errorf("sampler %s: %w", s.name, err)
	}
	s.probed = true
	return nil
}

// UnitProbes are the probes the JIT places after inlining, nil before.
// Their size is 0: inlining decides as without the profiler.
func (s *instrumentSampler) UnitProbes(mode Mode) *jit.Probes {
	if !s.cfg.AfterInlining {
		return nil
	}
	p := s.probes(mode)
	p.Bytes = 0
	return &p
}

// Attach arms every thread's counter as it starts and closes its shadow
// stack when it ends.
func (s *instrumentSampler) Attach(env *Env) error {
	if err := s.cfg.Validate(); err != nil {
		return fmt.Errorf("sampler %s: %w", s.name, err)
	}
	if !s.probed {
		return fmt.Errorf("sampler %s: the program was not instrumented (Instrument must run before the VM is created)", s.name)
	}
	if err := checkWindow(env, s.name); err != nil {
		return err
	}
	s.env = env
	s.rec = newRecorder(env, s.name, 0)
	h, err := env.VM.AddHookHandler(s)
	if err != nil {
		return err
	}
	s.hook = h
	env.VM.AddThreadObserver(s)
	env.VM.AddThreadEndObserver(s)
	return nil
}

// OnThreadStart gives the thread its root context and arms its counter.
func (s *instrumentSampler) OnThreadStart(vm sim.Agent, id sim.ThreadID) {
	s.nodes = append(s.nodes, instrNode{parent: -1, method: -1, thread: vm.ThreadName(id)})
	s.threads[id] = &shadowThread{root: int32(len(s.nodes) - 1)}
	vm.SetBytecodeCounter(s.hook, id, jit.ProbeCount)
}

// OnThreadEnd closes the activations still on the thread's shadow stack.
func (s *instrumentSampler) OnThreadEnd(vm sim.Agent, id sim.ThreadID) sim.Action {
	if t := s.threads[id]; t != nil {
		s.unwind(t, -1, vm.Now())
	}
	return sim.Continue
}

// OnHook is a probe's call into the agent: the thread is just past it,
// at its method's first statement (entry) or at a return (exit).
func (s *instrumentSampler) OnHook(vm sim.Agent, id sim.ThreadID, h sim.Hook) sim.Action {
	if h != sim.HookBytecodes {
		return sim.Continue
	}
	vm.SetBytecodeCounter(s.hook, id, jit.ProbeCount)
	t := s.threads[id]
	var n int
	s.buf, n = vm.StackTop(id, 2, s.buf[:0]) // the probe's frame and its caller
	if t == nil || n == 0 {
		return sim.Continue
	}
	top := s.buf[len(s.buf)-1]
	probe, entry := jit.IsProbe(top.Code, top.PC-1)
	if !probe {
		return sim.Continue
	}
	s.events++
	now, depth := vm.Now(), int32(n-1)
	if entry {
		s.unwind(t, depth, now) // activations at this depth or deeper ended without their exit probe
		parent := t.root
		if n := len(t.frames); n > 0 {
			parent = t.frames[n-1].node
		}
		t.frames = append(t.frames, shadowFrame{node: s.context(parent, top.Method), depth: depth, entry: now})
		if depth > 0 {
			caller := s.buf[len(s.buf)-2]
			s.edges[callEdge{caller.Method, caller.Line, top.Method}]++
		}
		return sim.Continue
	}
	s.unwind(t, depth+1, now)
	if n := len(t.frames); n > 0 && t.frames[n-1].depth == depth && s.nodes[t.frames[n-1].node].method == top.Method {
		s.pop(t, now)
	} else {
		s.unmatched++
	}
	return sim.Continue
}

// context is the child of parent for method, created on first use.
func (s *instrumentSampler) context(parent, method int32) int32 {
	k := instrEdge{parent, method}
	if n, ok := s.child[k]; ok {
		return n
	}
	s.nodes = append(s.nodes, instrNode{parent: parent, method: method, thread: s.nodes[parent].thread})
	n := int32(len(s.nodes) - 1)
	s.child[k] = n
	return n
}

// unwind closes, at time at, the activations at depth or deeper (all of
// them for depth −1): their exit probes did not run.
func (s *instrumentSampler) unwind(t *shadowThread, depth int32, at sim.Time) {
	for n := len(t.frames); n > 0 && t.frames[n-1].depth >= depth; n = len(t.frames) {
		s.stale++
		s.pop(t, at)
	}
}

// pop ends the top activation at time at: its self time to its context,
// its whole time to its caller's callees.
func (s *instrumentSampler) pop(t *shadowThread, at sim.Time) {
	n := len(t.frames)
	f := t.frames[n-1]
	t.frames = t.frames[:n-1]
	incl := at - f.entry
	nd := &s.nodes[f.node]
	nd.self += incl - f.kids
	nd.calls++
	if n > 1 {
		t.frames[n-2].kids += incl
	}
}

// Result returns the calling contexts as a profile (weights in ns of
// self time, counts in activations; the activations still running end
// at the run's end) with the call edges whose entry probes ran, by call
// site. Costs: Requested and Taken count
// the probes that called the agent; the probes' own cost is in the run.
func (s *instrumentSampler) Result() *Result {
	if !s.closed {
		// Activations still running when the run ends count up to its
		// end, as a profiler's dump at exit has them.
		s.closed = true
		for id := sim.ThreadID(0); int(id) < s.env.VM.NumThreads(); id++ {
			if t := s.threads[id]; t != nil {
				for len(t.frames) > 0 {
					s.pop(t, s.env.VM.Now())
				}
			}
		}
	}
	var frames []profile.Frame
	for i := range s.nodes {
		nd := &s.nodes[i]
		if nd.method < 0 || nd.calls == 0 {
			continue
		}
		frames = frames[:0]
		for n := int32(i); s.nodes[n].method >= 0; n = s.nodes[n].parent {
			frames = append(frames, profile.Frame{Func: int32(s.rec.fn[s.nodes[n].method])})
		}
		for a, b := 0, len(frames)-1; a < b; a, b = a+1, b-1 {
			frames[a], frames[b] = frames[b], frames[a]
		}
		s.rec.b.AddSample(frames, nd.calls, int64(nd.self), nd.thread)
	}
	es := make([]callEdge, 0, len(s.edges))
	for e := range s.edges {
		es = append(es, e)
	}
	slices.SortFunc(es, func(a, b callEdge) int {
		return cmp.Or(cmp.Compare(a.caller, b.caller), cmp.Compare(a.line, b.line), cmp.Compare(a.callee, b.callee))
	})
	for _, e := range es {
		s.rec.b.AddEdge(s.rec.fn[e.caller], int(e.line), s.rec.fn[e.callee], s.edges[e])
	}
	r := s.rec.result()
	r.Costs.Requested, r.Costs.Taken = s.events, s.events
	r.Costs.Measures = map[Measure]float64{UnmatchedExits: float64(s.unmatched), StaleActivations: float64(s.stale)}
	return r
}

var (
	_ Instrumenter     = (*instrumentSampler)(nil)
	_ UnitInstrumenter = (*instrumentSampler)(nil)
)
