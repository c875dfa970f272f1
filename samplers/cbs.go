package samplers

import (
	"fmt"
	"math/rand/v2"

	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/sim"
)

// cbsConfig configures Arnold & Grove's counter-based sampling.
type cbsConfig struct {
	// Interval is the timer that opens a sampling window (10 ms). > 0.
	Interval sim.Time `key:"interval" check:"1us..max" doc:"timer that opens a sampling window" src:"Arnold & Grove CGO'05: Jikes RVM's 10 ms timer (Linux's minimum for unprivileged processes)"`
	// Jitter is the timer thread's mean oversleep (timerJitter): each
	// tick comes Interval plus a draw after the previous one.
	Jitter sim.Time `key:"jitter" check:"0..1h" doc:"mean oversleep of the timer thread, exponential; it adds to the interval (0: exact)" src:"tools/timer-jitter (b): Jikes RVM's timer is a native thread looping nanosleep(10 ms) (tools/bootImageRunner/sys.C, timeSlicerThreadMain; TimerThread.run in 3.x); a thread sleeping 10 ms here oversleeps 113-306 us on average over twelve runs (median 174), accumulating"`
	// Stride: sample every Stride-th prologue/epilogue yield point once
	// the window is open; Samples: how many samples close the window.
	Stride  int `key:"stride" check:">=1" unit:"yield points" doc:"STRIDE: sample every STRIDE-th prologue/epilogue yield point in a window" src:"Arnold & Grove Table 2A: Stride=3, Samples=32 gives 0.3 % overhead, accuracy 66 in Jikes RVM"`
	Samples int `key:"samples" check:">=1" unit:"samples" doc:"SAMPLES: edge samples per window" src:"Arnold & Grove Table 2A: Stride=3, Samples=32"`
	// YieldCost is the out-of-line check a thread runs at each taken
	// yield point while its window is open; SampleCost one edge sample.
	YieldCost  sim.Time `key:"yield_cost" check:"0..max" doc:"out-of-line check at each yield point while a window is open (costed mode)" src:"our choice: 20 ns"`
	SampleCost sim.Time `key:"sample_cost" check:"0..max" doc:"recording one edge sample (costed mode)" src:"our choice: 500 ns"`
	// Stream names the instance's random streams (sim.Stream
	// "sampler/STREAM": the windows' first skips and the timer's
	// jitter); "" is the instance's ID, so that instances differ.
	Stream string `key:"stream" doc:"name the instance's random streams derive from (the windows' skips, the timer's jitter); empty: its ID" src:"its ID: each instance draws its own"`
}

// defaultCBSConfig is the setting Arnold & Grove recommend for Jikes RVM:
// STRIDE 3, SAMPLES 32.
func defaultCBSConfig() cbsConfig {
	return cbsConfig{Interval: 10 * sim.Millisecond, Jitter: SleepJitter, Stride: 3, Samples: 32, YieldCost: 20, SampleCost: 500}
}

// Validate names the first invalid field.
func (c cbsConfig) Validate() error {
	return param.Check(&c)
}

// jikesTimerConfig configures Jikes RVM's timer-based edge sampler.
type jikesTimerConfig struct {
	// Jitter is the timer thread's mean oversleep, as for CBS.
	Jitter sim.Time `key:"jitter" check:"0..1h" doc:"mean oversleep of the timer thread, exponential; it adds to the interval (0: exact)" src:"tools/timer-jitter (b): Jikes RVM's timer is a native thread looping nanosleep(10 ms) (tools/bootImageRunner/sys.C, timeSlicerThreadMain; TimerThread.run in 3.x); a thread sleeping 10 ms here oversleeps 113-306 us on average over twelve runs (median 174), accumulating"`
	// Interval is the timer period. > 0.
	Interval sim.Time `key:"interval" check:"1us..max" doc:"timer period: the next prologue/epilogue yield point after a tick records its call edge" src:"Jikes RVM: 10 ms timer (Arnold & Grove CGO'05)"`
}

// defaultJikesTimerConfig is Jikes RVM's 10 ms timer.
func defaultJikesTimerConfig() jikesTimerConfig {
	return jikesTimerConfig{Interval: 10 * sim.Millisecond, Jitter: SleepJitter}
}

func init() {
	Register(Info{Name: "cbs", Description: "Arnold & Grove counter-based sampling: a 10 ms timer opens a window of SAMPLES call-edge samples, one every STRIDE prologue/epilogue yield points (3, 32); needs --vm jikes",
		Config: func() any { c := defaultCBSConfig(); return &c },
		Build:  func(label string, cfg any) Sampler { return newCBS(label, *cfg.(*cbsConfig)) }})
	Register(Info{Name: "jikes-timer", Description: "Jikes RVM base call-graph sampling: a 10 ms timer flag, taken at the next prologue/epilogue yield point, records that call edge; needs --vm jikes",
		Config: func() any { c := defaultJikesTimerConfig(); return &c },
		Build:  func(label string, cfg any) Sampler { return newJikesTimer(label, *cfg.(*jikesTimerConfig)) }})
}

// edgeSampler is what CBS and jikes-timer share: a timer, a hook on
// prologue/epilogue yield points, and an edge profile.
type edgeSampler struct {
	name  string
	env   *Env
	rec   *recorder
	timer sim.TimerID
	hook  sim.HandlerID
	// live is the call graph so far, by static edge, for an inliner that
	// reads it during the run (jit.EdgeProfile).
	live   []float64
	total  float64
	edgeOf map[[3]int32]int
	// Jikes RVM's timer thread sleeps the interval after each tick, so
	// its oversleep accumulates.
	period    sim.Time
	oversleep timerJitter
}

// EdgeWeight is the samples recorded so far for static edge e.
func (e *edgeSampler) EdgeWeight(edge int) float64 {
	if edge < 0 || edge >= len(e.live) {
		return 0
	}
	return e.live[edge]
}

// TotalWeight is the number of edge samples so far.
func (e *edgeSampler) TotalWeight() float64 { return e.total }

// attach starts the sampler reported under name, its timer's jitter drawn
// from the stream named stream.
func (e *edgeSampler) attach(env *Env, name, stream string, interval, jitter sim.Time, h sim.HookHandler, t sim.TimerHandler) error {
	if err := checkWindow(env, name); err != nil {
		return err
	}
	e.name, e.env = name, env
	e.rec = newRecorder(env, name, interval)
	img := env.VM.Image()
	e.live = make([]float64, len(img.Edges))
	e.edgeOf = map[[3]int32]int{}
	for i, ed := range img.Edges {
		e.edgeOf[[3]int32{ed.Caller, ed.Line, ed.Callee}] = i
	}
	id, err := env.VM.AddHookHandler(h)
	if err != nil {
		return err
	}
	e.hook = id
	e.timer = env.VM.AddTimer(t)
	e.period, e.oversleep = interval, newTimerJitter(env, stream, jitter)
	env.VM.ScheduleTimer(e.timer, env.VM.Now()+interval+e.oversleep.late(), 0)
	return nil
}

// next is when the tick after the one at "at" fires.
func (e *edgeSampler) next(at sim.Time) sim.Time { return at + e.period + e.oversleep.late() }

// NeedsPrologueYieldPoints tells the harness these samplers count
// prologue and epilogue yield points, which only Jikes-like code has.
func (e *edgeSampler) NeedsPrologueYieldPoints() bool { return true }

// sampleEdge records the edge from the top frame's caller to the top
// frame (at a prologue the callee was just entered; at an epilogue it is
// about to return). It reports whether there was an edge.
func (e *edgeSampler) sampleEdge(vm sim.Agent, id sim.ThreadID) bool {
	e.rec.buf = vm.Stack(id, e.rec.buf[:0])
	n := len(e.rec.buf)
	if n < 2 {
		return false // the thread's entry method has no caller
	}
	caller, callee := e.rec.buf[n-2], e.rec.buf[n-1]
	e.rec.b.AddEdge(e.rec.fn[caller.Method], int(caller.Line), e.rec.fn[callee.Method], 1)
	if i, ok := e.edgeOf[[3]int32{caller.Method, caller.Line, callee.Method}]; ok {
		e.live[i]++
		e.total++
	}
	e.rec.costs.Taken++
	e.rec.costs.SampleTimes = append(e.rec.costs.SampleTimes, int64(vm.Now()))
	return true
}

func isPrologueOrEpilogue(k sim.PollKind) bool {
	return k == sim.PollPrologue || k == sim.PollEpilogue
}

// cbsSampler is counter-based sampling. The window state is per thread, as in
// J9's thread-local counters.
type cbsSampler struct {
	edgeSampler
	cfg    cbsConfig
	label  string
	rng    *rand.Rand
	skip   map[sim.ThreadID]int
	left   map[sim.ThreadID]int
	yields int64
}

// newCBS creates a CBS sampler reported under name; several, differently
// named, can watch one execution (a STRIDE × SAMPLES grid).
func newCBS(name string, cfg cbsConfig) *cbsSampler {
	return &cbsSampler{cfg: cfg, label: name, skip: map[sim.ThreadID]int{}, left: map[sim.ThreadID]int{}}
}

// Name is the name given to newCBS ("cbs" if none).
func (s *cbsSampler) Name() string {
	if s.label != "" {
		return s.label
	}
	return "cbs"
}

// Config returns the configuration.
func (s *cbsSampler) Config() cbsConfig { return s.cfg }

// Attach starts the timer.
func (s *cbsSampler) Attach(env *Env) error {
	if err := s.cfg.Validate(); err != nil {
		return fmt.Errorf("sampler %s: %w", s.Name(), err)
	}
	stream := s.cfg.Stream
	if stream == "" {
		stream = s.Name()
	}
	s.rng = sim.Stream(env.Seed, "sampler/"+stream)
	return s.attach(env, s.Name(), stream, s.cfg.Interval, s.cfg.Jitter, s, s)
}

// OnTimer opens a window on every running thread that has none open: the
// first sample comes after a skip drawn from [1, STRIDE].
func (s *cbsSampler) OnTimer(vm sim.Agent, at sim.Time, _ int64) {
	s.rec.costs.Requested++
	s.rec.costs.Ticks = append(s.rec.costs.Ticks, int64(at))
	for _, id := range appThreads(vm, sim.Running, sim.Runnable) {
		if s.left[id] > 0 {
			continue
		}
		s.skip[id] = 1 + s.rng.IntN(s.cfg.Stride)
		s.left[id] = s.cfg.Samples
		vm.Arm(s.hook, id, sim.HookPoll)
	}
	vm.ScheduleTimer(s.timer, s.next(at), 0)
}

// OnHook runs Figure 3's logic at each prologue/epilogue yield point of a
// thread whose window is open.
func (s *cbsSampler) OnHook(vm sim.Agent, id sim.ThreadID, _ sim.Hook) sim.Action {
	if s.left[id] == 0 {
		return sim.Continue
	}
	if !isPrologueOrEpilogue(vm.PollKindOf(id)) {
		vm.Arm(s.hook, id, sim.HookPoll) // a back-edge or a transition: keep waiting
		return sim.Continue
	}
	s.yields++
	costed := s.env.Mode == Costed && vm.State(id) == sim.Running
	if costed {
		vm.Stall(id, s.cfg.YieldCost)
		s.rec.costs.Stall += s.cfg.YieldCost
	}
	if s.skip[id]--; s.skip[id] == 0 {
		if s.sampleEdge(vm, id) && costed {
			vm.Stall(id, s.cfg.SampleCost)
			s.rec.costs.Stall += s.cfg.SampleCost
		}
		s.skip[id] = s.cfg.Stride
		s.left[id]--
	}
	if s.left[id] > 0 {
		vm.Arm(s.hook, id, sim.HookPoll)
	}
	return sim.Continue
}

// Result returns the edge profile; Measures[YieldPointsTaken] counts the
// prologue/epilogue yield points run while windows were open.
func (s *cbsSampler) Result() *Result {
	r := s.rec.result()
	r.Costs.Measures = map[Measure]float64{YieldPointsTaken: float64(s.yields)}
	return r
}

// jikesTimerSampler is Jikes RVM's base mechanism: the timer sets a flag that
// the next prologue or epilogue yield point takes, recording that edge.
type jikesTimerSampler struct {
	edgeSampler
	label    string
	interval sim.Time
	jitter   sim.Time
	pending  map[sim.ThreadID]bool
}

// newJikesTimer creates the base sampler reported under name.
func newJikesTimer(name string, cfg jikesTimerConfig) *jikesTimerSampler {
	return &jikesTimerSampler{label: name, interval: cfg.Interval, jitter: cfg.Jitter, pending: map[sim.ThreadID]bool{}}
}

// Name is the sampler's label ("jikes-timer" unless labelled).
func (s *jikesTimerSampler) Name() string {
	if s.label != "" {
		return s.label
	}
	return "jikes-timer"
}

// Attach starts the timer.
func (s *jikesTimerSampler) Attach(env *Env) error {
	if s.interval <= 0 {
		return fmt.Errorf("sampler %s: interval: %v must be > 0", s.Name(), s.interval)
	}
	return s.attach(env, s.Name(), s.Name(), s.interval, s.jitter, s, s)
}

// OnTimer sets the flag of every running thread.
func (s *jikesTimerSampler) OnTimer(vm sim.Agent, at sim.Time, _ int64) {
	s.rec.costs.Requested++
	s.rec.costs.Ticks = append(s.rec.costs.Ticks, int64(at))
	for _, id := range appThreads(vm, sim.Running, sim.Runnable) {
		if !s.pending[id] {
			s.pending[id] = true
			vm.Arm(s.hook, id, sim.HookPoll)
		}
	}
	vm.ScheduleTimer(s.timer, s.next(at), 0)
}

// OnHook records the edge at the first prologue/epilogue yield point.
func (s *jikesTimerSampler) OnHook(vm sim.Agent, id sim.ThreadID, _ sim.Hook) sim.Action {
	if !s.pending[id] {
		return sim.Continue
	}
	if !isPrologueOrEpilogue(vm.PollKindOf(id)) {
		vm.Arm(s.hook, id, sim.HookPoll)
		return sim.Continue
	}
	delete(s.pending, id)
	if s.sampleEdge(vm, id) && s.env.Mode == Costed && vm.State(id) == sim.Running {
		// The yield point runs the adaptive system's listener on the
		// thread: the same per-sample cost as a CBS sample.
		vm.Stall(id, defaultCBSConfig().SampleCost)
		s.rec.costs.Stall += defaultCBSConfig().SampleCost
	}
	return sim.Continue
}

// Result returns the edge profile.
func (s *jikesTimerSampler) Result() *Result { return s.rec.result() }

var _ PrologueYieldPointer = (*cbsSampler)(nil)
var _ PrologueYieldPointer = (*jikesTimerSampler)(nil)
var _ CallGraphSource = (*cbsSampler)(nil)
var _ CallGraphSource = (*jikesTimerSampler)(nil)
