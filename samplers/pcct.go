package samplers

import (
	"fmt"

	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/sim"
)

// PCCTConfig configures Whaley's sampler.
type PCCTConfig struct {
	// Interval is the sampler thread's period. > 0.
	Interval sim.Time `key:"interval" check:"1us..max" doc:"sampler thread's period" src:"Whaley JG'00: 10 ms timer"`
	// Jitter is the sampler thread's mean oversleep (timerJitter).
	Jitter sim.Time `key:"jitter" check:"0..1h" doc:"mean oversleep of the sampler thread, exponential; it adds to the interval (0: exact)" src:"tools/timer-jitter (b): Whaley's sampler is a thread that sleeps 10 ms between samples; a thread sleeping 10 ms here oversleeps 113-306 us on average over twelve runs (median 174), accumulating. His own platform (IBM DK 1.3 on Windows and AIX) is not measured: the W studies run at jitter=0"`
	// DepthLimit stops the upward walk after this many frames (0: none);
	// the frames walked are then attached at the root, wrongly.
	DepthLimit int `key:"depth_limit" check:">=0" unit:"frames" doc:"stop the upward walk after this many frames (0: none); the walked frames then attach at the root" src:"Whaley: depth-limited walk, off by default"`
	// HotMethods counts only the top method: the depth-0 case.
	HotMethods bool `key:"hot_methods" doc:"count only the top method (the depth-0 case)"`
	// FullWalk ignores marker bits and walks every frame each time: the
	// exhaustive CCT the PCCT is compared with.
	FullWalk bool `key:"full_walk" doc:"ignore marker bits, walk every frame (the exhaustive CCT)"`
	// PerSample and PerFrame are the sampler thread's cost of a sample;
	// the sampled thread is suspended for as long.
	PerSample sim.Time `key:"per_sample" check:"0..max" doc:"sampler thread's cost per sample; the sampled thread is suspended as long (costed mode)" src:"our choice: 2 us"`
	PerFrame  sim.Time `key:"per_frame" check:"0..1s" doc:"cost per frame examined (costed mode)" src:"our choice: 40 ns"`
	// NodeBytes is the size of one PCCT node (method, count, parent,
	// children), for the size the profile occupies.
	NodeBytes int `key:"node_bytes" check:"0..1_048_576" unit:"bytes" doc:"size of one PCCT node (method, count, parent, children)" src:"our choice: 32 bytes"`
	// CountFrom and CountUntil, when set, keep in the profile only the
	// samples taken at CountFrom ≤ t < CountUntil (CountUntil 0: to the
	// end): one of Whaley's profile data sets, which the controller reads
	// and purges; his precision compares the second data set of two runs.
	// Walks, marks and costs go on outside the window.
	CountFrom  sim.Time `key:"count_from" check:"0..max" doc:"keep only samples taken at or after this time (a profile data set)"`
	CountUntil sim.Time `key:"count_until" check:"0..max" doc:"keep only samples taken before this time (0: to the end)"`
}

// DefaultPCCTConfig samples every 10 ms with no depth limit.
func DefaultPCCTConfig() PCCTConfig {
	return PCCTConfig{Interval: 10 * sim.Millisecond, Jitter: SleepJitter, PerSample: 2 * sim.Microsecond, PerFrame: 40, NodeBytes: 32}
}

// Validate names the first invalid field.
func (c PCCTConfig) Validate() error {
	if err := param.Check(&c); err != nil {
		return err
	}
	switch {
	case c.CountUntil > 0 && c.CountUntil <= c.CountFrom:
		return fmt.Errorf("count_until: %v must be after count_from %v", c.CountUntil, c.CountFrom)
	}
	return nil
}

func init() {
	Register(Info{Name: "pcct", Description: "Whaley's partial calling context tree: every 10 ms walk each running thread up to the first marked frame, then update the tree downward",
		Config: func() any { c := DefaultPCCTConfig(); return &c },
		Build:  func(label string, cfg any) Sampler { return newPCCT(label, *cfg.(*PCCTConfig)) }})
	Register(Info{Name: "hotmethods", Description: "Whaley's hot-method counters: the depth-0 case of the PCCT sampler (top method only)",
		Config: func() any {
			c := DefaultPCCTConfig()
			c.HotMethods = true
			return &c
		},
		Build: func(label string, cfg any) Sampler { return newPCCT(label, *cfg.(*PCCTConfig)) }})
}

type pcctNode struct {
	method   int32
	parent   int
	children map[int32]int
	count    int64
	// edge is the weight of the edge from the parent: the samples whose
	// downward phase attached a frame here, i.e. found a new activation
	// of this context (Whaley's edge weight; every sample under FullWalk).
	edge int64
}

// pcctSampler is Whaley's sampler. Each sample walks the thread's stack
// upward until a frame whose marker bit is set — every frame below it is
// unchanged since the last sample and already in the tree — then goes back
// down, adding the new frames under that frame's node and marking them. A
// frame pushed after the last sample starts unmarked.
type pcctSampler struct {
	jitter   timerJitter
	name     string
	cfg      PCCTConfig
	env      *Env
	rec      *recorder
	timer    sim.TimerID
	hook     sim.HandlerID
	agent    sim.ThreadID
	nodes    []pcctNode
	nodeOf   map[sim.ThreadID][]int // depth → node, valid for marked frames
	examined int64
	samples  int64
	limited  int64 // samples whose walk hit the depth limit
}

// newPCCT creates a PCCT (or hot-methods) sampler named name.
func newPCCT(name string, cfg PCCTConfig) *pcctSampler {
	return &pcctSampler{name: name, cfg: cfg, nodeOf: map[sim.ThreadID][]int{},
		nodes: []pcctNode{{method: -1, parent: -1, children: map[int32]int{}}}}
}

// Name is the registry name.
func (s *pcctSampler) Name() string { return s.name }

// Config returns the configuration.
func (s *pcctSampler) Config() PCCTConfig { return s.cfg }

// Attach starts the sampler thread's timer.
func (s *pcctSampler) Attach(env *Env) error {
	if err := s.cfg.Validate(); err != nil {
		return fmt.Errorf("sampler %s: %w", s.name, err)
	}
	if err := checkWindow(env, s.name); err != nil {
		return err
	}
	s.env = env
	s.rec = newRecorder(env, s.name, s.cfg.Interval)
	h, err := env.VM.AddHookHandler(noHooks{})
	if err != nil {
		return err
	}
	s.hook = h // only its marker bits are used
	s.timer = env.VM.AddTimer(s)
	if env.Mode == Costed {
		s.agent = env.VM.NewServiceThread(s.name+" sampler", s)
	}
	s.jitter = newTimerJitter(env, s.name, s.cfg.Jitter)
	env.VM.ScheduleTimer(s.timer, env.VM.Now()+s.cfg.Interval+s.jitter.late(), 0)
	return nil
}

type noHooks struct{}

func (noHooks) OnHook(sim.Agent, sim.ThreadID, sim.Hook) sim.Action { return sim.Continue }

func (s *pcctSampler) child(parent int, m int32) int {
	if c, ok := s.nodes[parent].children[m]; ok {
		return c
	}
	s.nodes = append(s.nodes, pcctNode{method: m, parent: parent, children: map[int32]int{}})
	c := len(s.nodes) - 1
	s.nodes[parent].children[m] = c
	return c
}

// OnTimer samples every running application thread.
func (s *pcctSampler) OnTimer(vm sim.Agent, at sim.Time, _ int64) {
	s.rec.costs.Requested++
	s.rec.costs.Ticks = append(s.rec.costs.Ticks, int64(at))
	var work sim.Time
	for _, id := range appThreads(vm, sim.Running) {
		stack := vm.Stack(id, s.rec.buf[:0])
		s.rec.buf = stack
		if len(stack) == 0 {
			continue
		}
		n := s.sample(vm, id, stack, s.counts(at))
		s.samples++
		s.examined += int64(n)
		s.rec.costs.Taken++
		s.rec.costs.SampleTimes = append(s.rec.costs.SampleTimes, int64(at))
		if s.env.Mode == Costed {
			d := s.cfg.PerSample + s.cfg.PerFrame*sim.Time(n)
			vm.Stall(id, d) // suspended while the sampler walks it
			s.rec.costs.Stall += d
			work += d
		}
	}
	if s.env.Mode == Costed && work > 0 {
		vm.SubmitJob(s.agent, work, 0)
	}
	vm.ScheduleTimer(s.timer, at+s.cfg.Interval+s.jitter.late(), 0)
}

// counts reports whether a sample taken at t is in the count window.
func (s *pcctSampler) counts(t sim.Time) bool {
	return t >= s.cfg.CountFrom && (s.cfg.CountUntil == 0 || t < s.cfg.CountUntil)
}

// sample updates the tree with one stack, counting it if count, and
// returns the frames examined.
func (s *pcctSampler) sample(vm sim.Agent, id sim.ThreadID, stack []sim.StackFrame, count bool) int {
	top := len(stack) - 1
	if s.cfg.HotMethods {
		if n := s.child(0, stack[top].Method); count {
			s.nodes[n].count++
		}
		return 1
	}
	// Upward: find the deepest marked frame.
	k, examined := top, 0
	start := 0 // first frame to attach below node
	node := 0
	for ; k >= 0; k-- {
		if s.cfg.DepthLimit > 0 && examined == s.cfg.DepthLimit {
			s.limited++
			start = k + 1 // misattached: the walked frames hang off the root
			break
		}
		examined++
		if !s.cfg.FullWalk && vm.Marked(s.hook, id, k) {
			node = s.nodeOf[id][k]
			start = k + 1
			break
		}
	}
	// Downward: add and mark the new frames.
	depths := s.nodeOf[id]
	for len(depths) < len(stack) {
		depths = append(depths, 0)
	}
	for j := start; j <= top; j++ {
		node = s.child(node, stack[j].Method)
		if count {
			s.nodes[node].edge++
		}
		depths[j] = node
		vm.Mark(s.hook, id, j)
	}
	s.nodeOf[id] = depths
	if count {
		s.nodes[node].count++
	}
	return examined
}

// PCCTContext is one node of the tree, keyed by its calling context.
type PCCTContext struct {
	// Path is the method names root first, joined by profile.FrameSep
	// (the keys of profile.ContextWeights).
	Path string
	// Count is the samples taken in this context (the node's time);
	// Edge the weight of the edge into it (see pcctNode.edge).
	Count, Edge int64
}

// Contexts returns every node of the tree with its counts, root excluded,
// in creation order; valid after the run. Whaley's PCCT precision
// correlates node and edge counts, which the profile (samples only) lacks.
func (s *pcctSampler) Contexts() []PCCTContext {
	names := s.env.VM.Image().Names
	paths := make([]string, len(s.nodes))
	out := make([]PCCTContext, 0, len(s.nodes)-1)
	for i := 1; i < len(s.nodes); i++ {
		n := &s.nodes[i]
		// A parent is created before its children, so its path is known.
		paths[i] = names[n.method]
		if n.parent > 0 {
			paths[i] = paths[n.parent] + profile.FrameSep + paths[i]
		}
		out = append(out, PCCTContext{Path: paths[i], Count: n.count, Edge: n.edge})
	}
	return out
}

// OnJobDone is the sampler thread going back to sleep.
func (s *pcctSampler) OnJobDone(sim.Agent, sim.ThreadID, int64) {}

// Result returns the PCCT as a profile. Measures: FramesExaminedPerSample,
// PCCTNodes, PCCTBytes (nodes × NodeBytes), DepthLimitedSamples.
func (s *pcctSampler) Result() *Result {
	var path []int32
	var frames []profile.Frame
	for i := 1; i < len(s.nodes); i++ {
		if s.nodes[i].count == 0 {
			continue
		}
		path = path[:0]
		for n := i; n > 0; n = s.nodes[n].parent {
			path = append(path, s.nodes[n].method)
		}
		frames = frames[:0]
		for j := len(path) - 1; j >= 0; j-- {
			frames = append(frames, profile.Frame{Func: int32(s.rec.fn[path[j]])})
		}
		c := s.nodes[i].count
		s.rec.b.AddSample(frames, c, c*int64(s.cfg.Interval), "")
	}
	r := s.rec.result()
	per := 0.0
	if s.samples > 0 {
		per = float64(s.examined) / float64(s.samples)
	}
	r.Costs.Measures = map[Measure]float64{
		FramesExaminedPerSample: per,
		PCCTNodes:               float64(len(s.nodes) - 1),
		PCCTBytes:               float64((len(s.nodes) - 1) * s.cfg.NodeBytes),
		DepthLimitedSamples:     float64(s.limited),
	}
	if s.env.Mode == Costed {
		r.Costs.AgentCPU = threadCPU(s.env.VM, s.agent)
	}
	return r
}

// SamplesAtTick marks pcctSampler as TickSynchronous: OnTimer takes its
// samples.
func (s *pcctSampler) SamplesAtTick() {}

var (
	_ TickSynchronous = (*pcctSampler)(nil)
	_ ContextTree     = (*pcctSampler)(nil)
)
