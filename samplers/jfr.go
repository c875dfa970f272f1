package samplers

import (
	"fmt"

	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/sim"
)

// JFRConfig configures JDK Flight Recorder's method sampler.
type JFRConfig struct {
	// Period between sampling rounds (JFR's default 20 ms). > 0.
	Period sim.Time `key:"period" check:"1us..max" doc:"time between sampling rounds (jdk.ExecutionSample#period)" src:"JDK 17 default.jfc: jdk.ExecutionSample period 20 ms"`
	// Jitter is the sampler thread's mean oversleep (timerJitter): each
	// round comes Period plus a draw later than the previous one.
	Jitter sim.Time `key:"jitter" check:"0..1h" doc:"mean oversleep of the sampler thread, exponential; it adds to the interval (0: exact)" src:"tools/timer-jitter (a): JDK 17's JfrThreadSampler sleeps period less the round's time, then walks; its rounds come 259-607 us late on average over six runs at 10 and 20 ms (median 375; quiet 10 ms run: mean 381, sd 364, p99 2264), accumulating"`
	// MaxThreads is how many running threads one round samples at most
	// (JFR samples 5 Java threads per period). ≥ 1.
	MaxThreads int `key:"max_threads" check:">=1" unit:"threads" doc:"running Java threads sampled per round at most" src:"jfrThreadSampler.cpp: MAX_NR_OF_JAVA_SAMPLES = 5"`
	// Depth keeps at most this many frames nearest the leaf (0: all).
	Depth int `key:"depth" check:">=0" unit:"frames" doc:"stack depth limit, frames nearest the leaf (0: unlimited)" src:"JFR: -XX:FlightRecorderOptions:stackdepth=64"`
	// Oracle records exact positions; false (the default) resolves them
	// through debug information, as JFR's stack walk does.
	Oracle bool `key:"oracle" doc:"an oracle no real profiler has: record exact positions instead of naming them through the JIT's debug information (false: as the real profiler does)" src:"jfrCallTrace.cpp find_top_frame resolves the top pc with pc_desc_near(pc + 1)"`
	// SuspendCost + WalkPerFrame × frames is how long a sampled thread is
	// suspended; the sampler thread spends the same.
	SuspendCost  sim.Time `key:"suspend_cost" check:"0..max" doc:"suspending one thread (costed mode)" src:"tools/calibrate jfr_suspend: a JDK 17 JFR sample stops a running thread 137-243 us (suspend and resume signals; median per run, median of three 143), less its walk"`
	WalkPerFrame sim.Time `key:"walk_per_frame" check:"0..1s" doc:"walking one frame (costed mode)" src:"tools/calibrate jvmti_walk_per_frame: JVMTI GetAllStackTraces walks a compiled frame in 147-154 ns; JFR's walk is costed the same"`
	// RestartEachRound is an ablation, not JFR: every round starts again
	// at the first running thread instead of where the previous one
	// stopped, so with more running threads than MaxThreads the later
	// ones are never sampled (claim X2 shows what the round-robin buys).
	RestartEachRound bool `key:"restart_each_round" doc:"ablation, not JFR: start every round at the first running thread instead of round-robin" src:"off: JFR continues where the last round stopped"`
}

// DefaultJFRConfig is JFR's default method-sampling setting.
func DefaultJFRConfig() JFRConfig {
	return JFRConfig{Period: 20 * sim.Millisecond, Jitter: JFRJitter, MaxThreads: 5, Depth: 64, SuspendCost: 140 * sim.Microsecond, WalkPerFrame: 150}
}

// Validate names the first invalid field.
func (c JFRConfig) Validate() error {
	return param.Check(&c)
}

func init() {
	Register(Info{Name: "jfr", Description: "JDK Flight Recorder method sampling: every 20 ms suspend at most 5 running threads at their exact position, no safepoint, debug-info attribution",
		Config: func() any { c := DefaultJFRConfig(); return &c },
		Build:  func(label string, cfg any) Sampler { return newJFR(label, *cfg.(*JFRConfig)) }})
}

// jfrSampler suspends up to MaxThreads threads running Java code per period
// (a thread in a native statement is not one: JFR's execution sampler
// leaves it to its native sampler), continuing
// round-robin through the thread list where the previous round stopped, and
// walks them at their exact position; like async it resolves compiled
// frames through debug information (ResolveDebugInfo), but a thread whose
// top compiled frame is past its method's last record is not sampled
// (JfrGetCallTrace::find_top_frame fails; Costs.Undecipherable) and the
// round tries the next thread.
type jfrSampler struct {
	name   string
	cfg    JFRConfig
	env    *Env
	rec    *recorder
	timer  sim.TimerID
	agent  sim.ThreadID
	next   sim.ThreadID // round-robin cursor
	jitter timerJitter
	// resolved is ResolveDebugInfo's buffer.
	resolved []sim.StackFrame
}

// newJFR creates a JFR sampler; name tells several apart on one run.
func newJFR(name string, cfg JFRConfig) *jfrSampler { return &jfrSampler{name: name, cfg: cfg} }

// Name is the sampler's name ("jfr" in the registry).
func (s *jfrSampler) Name() string { return s.name }

// Config returns the configuration.
func (s *jfrSampler) Config() JFRConfig { return s.cfg }

// Attach starts the period timer.
func (s *jfrSampler) Attach(env *Env) error {
	if err := s.cfg.Validate(); err != nil {
		return fmt.Errorf("sampler %s: %w", s.name, err)
	}
	s.env = env
	s.rec = newRecorder(env, s.name, s.cfg.Period)
	s.timer = env.VM.AddTimer(s)
	if env.Mode == Costed {
		s.agent = env.VM.NewServiceThread("JFR Sampler Thread", s)
	}
	s.jitter = newTimerJitter(env, s.name, s.cfg.Jitter)
	env.VM.ScheduleTimer(s.timer, env.VM.Now()+s.cfg.Period+s.jitter.late(), 0)
	return nil
}

// OnTimer samples up to MaxThreads running threads, round-robin.
func (s *jfrSampler) OnTimer(vm sim.Agent, at sim.Time, _ int64) {
	s.rec.costs.Requested++
	s.rec.costs.Ticks = append(s.rec.costs.Ticks, int64(at))
	running := appThreads(vm, sim.Running)
	// Start at the first running thread at or after the cursor.
	start := 0
	for !s.cfg.RestartEachRound && start < len(running) && running[start] < s.next {
		start++
	}
	// JfrThreadSampler::task_stacktrace (jfrThreadSampler.cpp) goes on
	// through the thread list until MaxThreads samples succeeded: a thread
	// whose walk fails does not count.
	var work sim.Time
	taken := 0
	for i := 0; i < len(running) && taken < s.cfg.MaxThreads; i++ {
		id := running[(start+i)%len(running)]
		s.next = id + 1
		if vm.InNative(id) {
			// JfrThreadSampleClosure::do_sample_thread takes an
			// execution sample only of a thread in _thread_in_Java
			// (thread_state_in_java, jfrThreadSampler.cpp); a thread in
			// native code is left to the native sampler
			// (jdk.NativeMethodSample, not modelled) and does not count
			// toward MaxThreads.
			s.rec.skip(id, SkipNative)
			continue
		}
		s.rec.buf = vm.Stack(id, s.rec.buf[:0])
		if len(s.rec.buf) == 0 {
			continue
		}
		stack, ok, why := s.rec.buf, true, SkipUndecipherable
		switch {
		case s.cfg.Oracle:
		case vm.InStub(id):
			// The suspended thread's pc is in a StubRoutines stub
			// (arraycopy, Math.pow): JfrGetCallTrace::find_top_frame
			// (jfrGetCallTrace.cpp) gives up at a stub frame or one
			// of no size, so the walk yields nothing.
			ok, why = false, SkipStub
		default:
			s.resolved, ok = ResolveDebugInfo(stack, s.resolved)
			stack = s.resolved
		}
		if ok {
			frames := s.rec.exact(stack, s.cfg.Depth)
			s.rec.add(frames, id, s.cfg.Period)
			s.rec.note(id, s.rec.buf, frames, "suspend", !s.cfg.Oracle)
			taken++
		} else {
			s.rec.costs.Undecipherable++
			s.rec.skip(id, why)
			stack = stack[:0] // the walk fails at the top frame
		}
		if s.env.Mode == Costed {
			d := s.cfg.SuspendCost + s.cfg.WalkPerFrame*sim.Time(len(stack))
			vm.Stall(id, d)
			s.rec.costs.Stall += d
			work += d
		}
	}
	if s.env.Mode == Costed && work > 0 {
		vm.SubmitJob(s.agent, work, 0)
	}
	vm.ScheduleTimer(s.timer, at+s.cfg.Period+s.jitter.late(), 0)
}

// OnJobDone is the sampler thread finishing a round.
func (s *jfrSampler) OnJobDone(sim.Agent, sim.ThreadID, int64) {}

// Result returns the profile and costs.
func (s *jfrSampler) Result() *Result {
	r := s.rec.result()
	if s.env.Mode == Costed {
		r.Costs.AgentCPU = threadCPU(s.env.VM, s.agent)
	}
	return r
}

// TracesSamples: jfrSampler tells Env.Trace each sample's story.
func (s *jfrSampler) TracesSamples() {}

var _ Traceable = (*jfrSampler)(nil)

// SamplesAtTick marks jfrSampler as TickSynchronous: OnTimer takes its
// samples.
func (s *jfrSampler) SamplesAtTick() {}

var _ TickSynchronous = (*jfrSampler)(nil)
