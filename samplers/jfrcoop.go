package samplers

import (
	"fmt"

	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/sim"
)

// jfrCoopConfig configures JDK 25's cooperative execution sampler (JEP 518).
type jfrCoopConfig struct {
	// Period between sampling rounds. > 0.
	Period sim.Time `key:"period" check:"1us..max" doc:"time between sampling rounds (jdk.ExecutionSample#period)" src:"JDK 25 default.jfc: jdk.ExecutionSample period 20 ms"`
	// Jitter is the sampler thread's mean oversleep, as jfr's.
	Jitter sim.Time `key:"jitter" check:"0..1h" doc:"mean oversleep of the sampler thread, exponential; it adds to the interval (0: exact)" src:"taken from jfr (JDK 17's measurement, tools/timer-jitter (a)); JDK 25's JfrSamplerThread sleeps the same way"`
	// MaxThreads is how many Java threads one round sends a request at most.
	MaxThreads int `key:"max_threads" check:">=1" unit:"threads" doc:"running Java threads sampled per round at most" src:"jfrThreadSampler.cpp (JDK 25): MAX_NR_OF_JAVA_SAMPLES = 5"`
	// Depth keeps at most this many frames nearest the leaf (0: all).
	Depth int `key:"depth" check:">=0" unit:"frames" doc:"stack depth limit, frames nearest the leaf (0: unlimited)" src:"JFR: -XX:FlightRecorderOptions:stackdepth=64"`
	// Oracle records exact positions; false (the default) resolves the
	// recorded pc through debug information, as JFR does.
	Oracle bool `key:"oracle" doc:"an oracle no real profiler has: record exact positions instead of naming them through the JIT's debug information (false: as the real profiler does)" src:"jfrThreadSampling.cpp compute_top_frame: current->adjust_pc(pc_desc_near(sampled_pc)->real_pc(nm))"`
	// SuspendCost is the sampler thread's suspension of one thread (it
	// records pc/sp/fp and resumes it; no walk).
	SuspendCost sim.Time `key:"suspend_cost" check:"0..max" doc:"suspending one thread to record its pc/sp (costed mode)" src:"taken from jfr's tools/calibrate jfr_suspend (JDK 17, 137-243 us); not measured on JDK 25"`
	// WalkBase + WalkPerFrame × frames is the sampled thread's own walk at
	// its poll, a cost in its own time.
	WalkBase     sim.Time `key:"walk_base" check:"0..max" doc:"sampled thread's cost to process a request at its poll (costed mode)" src:"our choice: 2 us, a monitor and the stack trace repository"`
	WalkPerFrame sim.Time `key:"walk_per_frame" check:"0..1s" doc:"walking one frame (costed mode)" src:"tools/calibrate jvmti_walk_per_frame (JDK 17): 147-154 ns per compiled frame"`
}

// defaultJFRCoopConfig is JDK 25's default execution-sampling setting.
func defaultJFRCoopConfig() jfrCoopConfig {
	return jfrCoopConfig{Period: 20 * sim.Millisecond, Jitter: JFRJitter, MaxThreads: 5, Depth: 64, SuspendCost: 140 * sim.Microsecond, WalkBase: 2 * sim.Microsecond, WalkPerFrame: 150}
}

// Validate names the first invalid field.
func (c jfrCoopConfig) Validate() error { return param.Check(&c) }

func init() {
	Register(Info{Name: "jfr-coop", Description: "JDK 25 JFR cooperative execution sampling (JEP 518): every 20 ms record pc/sp of at most 5 Java threads; each walks its own stack at its next poll, top frame from the recorded pc",
		Config: func() any { c := defaultJFRCoopConfig(); return &c },
		Build:  func(label string, cfg any) Sampler { return newJFRCoop(label, *cfg.(*jfrCoopConfig)) }})
}

// coopRequest is a JfrSampleRequest: the position recorded when the
// sampler suspended the thread (its exact stack; the model's sp is the
// number of physical frames, its pc the top frame's statement).
type coopRequest struct {
	stack []sim.StackFrame
	at    sim.Time
}

// physStarts appends the index of each physical frame's first entry.
func physStarts(stack []sim.StackFrame, out []int) []int {
	out = out[:0]
	for i, f := range stack {
		if i == 0 || !f.Inlined {
			out = append(out, i)
		}
	}
	return out
}

// coopWalker walks a thread's stack at its poll for a recorded request,
// as JfrThreadSampling's compute_top_frame (jfrThreadSampling.cpp, JDK 25)
// does.
type coopWalker struct {
	debugInfo bool
	s0, s1    []int
	resolved  []sim.StackFrame
	out       []sim.StackFrame
}

// walk returns the stack recorded for req given the thread's stack now
// (at its poll or transition): the walk starts at the frame at the
// recorded sp — deeper frames the thread has called since are skipped
// ("Search the first frame that is above the sampled sp") — and frames
// below it are as they are now. If that frame is still the sampled
// method (same nmethod, or the interpreted frame with the recorded fp),
// its position is the recorded one: compiled, adjust_pc to the PcDesc
// pc_desc_near(sampled_pc) finds (ResolveDebugInfo's rule, with its
// inlined scopes); if no valid PcDesc, the frame stays at its poll
// position. Interpreted, the recorded bcp (compute_sender_frame; the
// model's saved BCP, as ResolveDebugInfo reads it). If the sampled method
// returned before the poll, the walk starts at whatever frame is at that
// depth now, at its current position: safepoint bias. biased is
// compute_top_frame's flag: set for every compiled request (the code sets
// it on a hit as well as a mismatch), not for an interpreted one;
// returned reports that the sampled frame was gone.
//
// One case keeps the sampled frame although it is gone: the thread stopped
// at the return poll of the sampled compiled method itself (atReturn, the
// frame popped and the thread one physical frame shallower: every
// compiled return polls, so the first poll after the request that leaves
// the sampled frame is its own). compute_top_frame then overlays a
// synthetic frame on the SafepointBlob's at the PcDesc pc_desc_near
// finds for the sampled pc ("Let's attempt to correct for the safepoint
// bias", is_at_poll_return), not biased.
func (w *coopWalker) walk(req []sim.StackFrame, now []sim.StackFrame, atReturn bool) (stack []sim.StackFrame, biased, returned bool) {
	w.s0 = physStarts(req, w.s0)
	w.s1 = physStarts(now, w.s1)
	p0 := len(w.s0)
	if p0 == 0 {
		return now, false, false
	}
	interp := req[len(req)-1].Tier == sim.Interpreted
	if len(w.s1) < p0 {
		if atReturn && !interp && len(w.s1) == p0-1 {
			resolved, ok := w.resolve(req)
			if ok {
				w.out = append(append(w.out[:0], now...), resolved[w.s0[p0-1]:]...)
				return w.out, false, false
			}
		}
		return now, !interp, true
	}
	cut := len(now)
	if len(w.s1) > p0 {
		cut = w.s1[p0]
	}
	base := now[:cut]
	top0, top1 := req[w.s0[p0-1]], base[w.s1[p0-1]]
	if top0.Code != top1.Code || top0.Tier != top1.Tier {
		return base, !interp, true
	}
	resolved, ok := w.resolve(req)
	if !ok {
		return base, true, false
	}
	w.out = append(append(w.out[:0], base[:w.s1[p0-1]]...), resolved[w.s0[p0-1]:]...)
	return w.out, !interp, false
}

// resolve is the recorded stack with its top frame through debug info.
func (w *coopWalker) resolve(req []sim.StackFrame) ([]sim.StackFrame, bool) {
	if !w.debugInfo {
		return req, true
	}
	var ok bool
	w.resolved, ok = ResolveDebugInfo(req, w.resolved)
	return w.resolved, ok
}

// jfrCoopSampler is JDK 25's execution sampler. Each period the
// JfrSamplerThread goes round-robin through the threads
// (JfrSamplerThread::task_stacktrace, jfrThreadSampler.cpp) and, for at
// most MaxThreads threads running Java code that have no request pending
// (sample_state NO_SAMPLE), suspends the thread, records its pc, sp and fp
// (or fp and bcp in the interpreter) in a JfrSampleRequest
// (JfrSampleRequestBuilder, jfrSampleRequest.cpp), arms its local poll and
// resumes it. The thread walks its own stack when it reaches its next poll
// (JfrThreadSampling::process_sample_request), or at the transition if it
// blocks first; coopWalker.walk gives the stack. The sampled thread pays
// the walk in its own time (costed mode). Threads in native code get
// jdk.NativeMethodSample (MAX_NR_OF_NATIVE_SAMPLES = 1), not an execution
// sample: they are skipped, as by jfr.
type jfrCoopSampler struct {
	name    string
	cfg     jfrCoopConfig
	env     *Env
	rec     *recorder
	cost    costDraw
	timer   sim.TimerID
	hook    sim.HandlerID
	agent   sim.ThreadID
	next    sim.ThreadID
	jitter  timerJitter
	pending map[sim.ThreadID]*coopRequest
	walker  coopWalker
	// Biased counts samples compute_top_frame flagged biased; Returned
	// those whose sampled frame was gone at the poll.
	Biased, Returned int64
}

// newJFRCoop creates a jfr-coop sampler named name.
func newJFRCoop(name string, cfg jfrCoopConfig) *jfrCoopSampler {
	return &jfrCoopSampler{name: name, cfg: cfg, pending: map[sim.ThreadID]*coopRequest{}, walker: coopWalker{debugInfo: !cfg.Oracle}}
}

// Name is the sampler's label.
func (s *jfrCoopSampler) Name() string { return s.name }

// Attach starts the period timer.
func (s *jfrCoopSampler) Attach(env *Env) error {
	if err := s.cfg.Validate(); err != nil {
		return fmt.Errorf("sampler %s: %w", s.name, err)
	}
	s.env = env
	s.rec = newRecorder(env, s.name, s.cfg.Period)
	s.cost = newCostDraw(env, s.name)
	s.timer = env.VM.AddTimer(s)
	h, err := env.VM.AddHookHandler(s)
	if err != nil {
		return err
	}
	s.hook = h
	if env.Mode == Costed {
		s.agent = env.VM.NewServiceThread("JFR Sampler Thread", s)
	}
	s.jitter = newTimerJitter(env, s.name, s.cfg.Jitter)
	env.VM.ScheduleTimer(s.timer, env.VM.Now()+s.cfg.Period+s.jitter.late(), 0)
	return nil
}

// OnTimer sends requests to up to MaxThreads running Java threads.
func (s *jfrCoopSampler) OnTimer(vm sim.Agent, at sim.Time, _ int64) {
	s.rec.costs.Requested++
	s.rec.costs.Ticks = append(s.rec.costs.Ticks, int64(at))
	running := appThreads(vm, sim.Running)
	start := 0
	for start < len(running) && running[start] < s.next {
		start++
	}
	var work sim.Time
	taken := 0
	for i := 0; i < len(running) && taken < s.cfg.MaxThreads; i++ {
		id := running[(start+i)%len(running)]
		s.next = id + 1
		if vm.InNative(id) {
			s.rec.skip(id, SkipNative)
			continue
		}
		if s.pending[id] != nil {
			continue // sample_state != NO_SAMPLE: the last request is not processed yet
		}
		st := vm.Stack(id, nil)
		if len(st) == 0 {
			continue
		}
		s.pending[id] = &coopRequest{stack: st, at: at}
		vm.Arm(s.hook, id, sim.HookPoll)
		taken++
		if s.env.Mode == Costed {
			d := s.cost.vary(s.cfg.SuspendCost)
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

// OnHook is the thread at its poll (or blocking): it walks its own stack.
func (s *jfrCoopSampler) OnHook(vm sim.Agent, id sim.ThreadID, _ sim.Hook) sim.Action {
	req := s.pending[id]
	if req == nil {
		return sim.Continue
	}
	delete(s.pending, id)
	s.rec.buf = vm.Stack(id, s.rec.buf[:0])
	stack, biased, returned := s.walker.walk(req.stack, s.rec.buf, vm.PollKindOf(id) == sim.PollReturn)
	if biased {
		s.Biased++
	}
	if returned {
		s.Returned++
	}
	frames := s.rec.exact(stack, s.cfg.Depth)
	s.rec.add(frames, id, s.cfg.Period)
	s.rec.note(id, req.stack, frames, "cooperative walk at the poll", !s.cfg.Oracle)
	if s.env.Mode == Costed && vm.State(id) == sim.Running {
		d := s.cost.vary(s.cfg.WalkBase + s.cfg.WalkPerFrame*sim.Time(len(stack)))
		vm.Stall(id, d)
		s.rec.costs.Stall += d
	}
	return sim.Continue
}

// OnJobDone is the sampler thread finishing a round.
func (s *jfrCoopSampler) OnJobDone(sim.Agent, sim.ThreadID, int64) {}

// Result returns the profile and costs; Costs.Biased and Costs.Returned
// count the flagged samples.
func (s *jfrCoopSampler) Result() *Result {
	r := s.rec.result()
	r.Costs.Biased, r.Costs.Returned = s.Biased, s.Returned
	if s.env.Mode == Costed {
		r.Costs.AgentCPU = threadCPU(s.env.VM, s.agent)
	}
	return r
}

// TracesSamples: jfrCoopSampler tells Env.Trace each sample's story.
func (s *jfrCoopSampler) TracesSamples() {}

var _ Traceable = (*jfrCoopSampler)(nil)
