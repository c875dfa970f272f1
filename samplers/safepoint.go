package samplers

import (
	"fmt"

	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/safepoint"
	"github.com/profsim/profsim/sim"
)

// SafepointConfig configures a safepoint-biased sampler: a timer asks for
// a global safepoint and the VM thread walks the stacks of the threads that
// were running Java code, each stopped at its next poll.
type SafepointConfig struct {
	// Interval is the nominal sampling period. > 0.
	Interval sim.Time `key:"interval" check:"1us..max" doc:"sampling period"`
	// Jitter is the mean lateness of a tick (timerJitter): on the fixed
	// clock ticks stay on their grid; a sampler thread that sleeps
	// (FromEnd, Paced) oversleeps by the draw.
	Jitter sim.Time `key:"jitter" check:"0..1h" doc:"mean lateness of a tick, exponential: on a fixed clock ticks keep their grid, a sleeping sampler thread (from_end, paced) oversleeps (0: exact)" src:"tools/timer-jitter (b): the sampler thread (a JVMTI agent's; HotSpot's WatcherThread waits the same way) sleeps; a thread sleeping 10 ms here oversleeps 113-306 us on average over twelve runs (median 174)"`
	// FromEnd starts the next interval when the previous sample is
	// finished (a sampler thread that sleeps between samples, as hprof's
	// does) instead of on a fixed clock (xprof's WatcherThread).
	FromEnd bool `key:"from_end" doc:"sleep a full interval after each sample is done instead of ticking on a fixed clock"`
	// Paced subtracts the time the last sample took from the wait (Hofer
	// et al.'s agents "incorporate the time that elapsed while taking the
	// last sample"): the next request comes Interval after the previous
	// one, or as soon as the previous sample is done if it took longer.
	// Unlike a fixed clock, a slow safepoint never queues requests.
	Paced bool `key:"paced" doc:"wait the interval less the last sample's time (never queue requests)"`
	// Depth keeps at most this many frames nearest the leaf (0: all).
	Depth int `key:"depth" check:">=0" unit:"frames" doc:"stack depth limit, frames nearest the leaf (0: unlimited)"`
	// Waiting also walks the application threads that wait (blocked, lock
	// or join wait) at each safepoint, as JVMTI's GetThreadListStackTraces
	// does for every thread asked for (Hofer et al. Fig. 2: the blocked T4
	// is sampled); otherwise only threads in Java code are.
	Waiting bool `key:"waiting" doc:"also walk application threads that wait (sleeping, lock or join wait); a thread blocked in I/O is in native code, RUNNABLE to JVMTI, and walked either way"`
	// Flat records only the method of the leaf physical frame (xprof's
	// flat profile; inlined callees are charged to the compiled method).
	Flat bool `key:"flat" doc:"record only the leaf compiled method (inlined callees charged to it)"`
	// WalkPerThread and WalkPerFrame are the VM thread's cost of a stack
	// walk at the safepoint.
	WalkPerThread sim.Time `key:"walk_per_thread" check:"0..1s" doc:"VM thread's cost per stack walked at the safepoint (costed mode)"`
	WalkPerFrame  sim.Time `key:"walk_per_frame" check:"0..1s" doc:"VM thread's cost per frame walked (costed mode)"`
	// AgentPerSample is the agent thread's CPU per sample (waking,
	// storing traces); AllocPerSample the bytes it allocates for them.
	AgentPerSample sim.Time `key:"agent_per_sample" check:"0..max" doc:"agent thread's CPU per sample: waking, storing traces (costed mode)"`
	AllocPerSample int64    `key:"alloc_per_sample" check:"0..1_099_511_627_776" unit:"bytes" doc:"bytes the agent allocates per sample (costed mode)"`
	// Capabilities are the JVMTI capabilities the agent holds: a preset
	// (none, hprof-cpu-samples, async-profiler, jdwp) or names joined by
	// '+' (jvmtiCapabilitySet). With exception, frame-pop or method-exit
	// events every compiled frame an exception enters from a callee
	// deoptimizes, at CatchDeopt each (ExceptionEventsHolder).
	Capabilities string   `key:"capabilities" doc:"JVMTI capabilities the agent holds: none, hprof-cpu-samples, async-profiler, jdwp or can_... names joined by +; with exception, frame-pop or method-exit events every compiled frame an exception enters from a callee deoptimizes (costed mode)" src:"none: Hofer et al.'s agents, JProfiler's and YourKit's do not say what they request"`
	CatchDeopt   sim.Time `key:"catch_deopt" check:"0..max" doc:"cost of deoptimizing a compiled frame an exception enters, besides its scopes, with exception events among the capabilities (costed mode; 0: none)" src:"tools/agents CatchScopes (OpenJDK 17.0.15, 2026-11-29, load 0.77-0.92): a catch under hprof's set costs 4.07 us with 2 scopes in the catcher's frame to 9.72 with 14 (two runs each), 60 ns without; least squares 3.15 us + 0.47 us a scope, less the 60 ns: 3.1 us (CatchCost's one-scope catch, 3.47 us, agrees)"`
	// CatchDeoptScope is what each scope of a deoptimized frame adds: an
	// interpreter frame unpacked, then unwound.
	CatchDeoptScope sim.Time `key:"catch_deopt_scope" check:"0..max" doc:"cost of each scope (the frame's method or a callee inlined into it at the call) of a frame deoptimized at a catch (costed mode)" src:"tools/agents CatchScopes (as catch_deopt): the least-squares slope over 2-14 scopes, 469 ns"`
}

// Validate names the first invalid field.
func (c SafepointConfig) Validate() error {
	if err := param.Check(&c); err != nil {
		return err
	}
	if _, err := jvmtiCapabilitySet(c.Capabilities); err != nil {
		return err
	}
	if c.FromEnd && c.Paced {
		return fmt.Errorf("paced: a sampler cannot both sleep a full interval after each sample (from_end) and subtract the sample's time from it")
	}
	return nil
}

// jvmtiWalkPerThread and jvmtiWalkPerFrame are the VM thread's cost of
// JVMTI GetAllStackTraces at its safepoint, measured on OpenJDK 17 by
// tools/calibrate (jvmti_walk_per_thread, jvmti_walk_per_frame). The
// variants that stand for the papers' agents on their JVMs (hprof, xprof,
// jprofile, yourkit: JDK 5-6 tools, gone from JDK 17) keep their own
// unmeasured values.
const (
	jvmtiWalkPerThread = 1100 * sim.Nanosecond
	jvmtiWalkPerFrame  = 150 * sim.Nanosecond
	jvmtiWalkSource    = "tools/calibrate: JDK 17 JVMTI GetAllStackTraces at its safepoint, fitted over 6 thread and depth mixes: 1.1 us per thread (0.73-1.8 over three runs), 150 ns per compiled frame (147-154)"
)

// catchDeopt and catchDeoptScope are HotSpot's cost of deoptimizing a
// compiled frame at a catch while an agent holds
// can_generate_exception_events, and what each of its scopes adds,
// measured on OpenJDK 17 by tools/agents (CatchScopes;
// docs/CALIBRATION.md).
const (
	catchDeopt      = 3100 * sim.Nanosecond
	catchDeoptScope = 470 * sim.Nanosecond
)

// The variants differ only in interval handling, depth and observer cost.
// Sources: hprof's defaults are interval=10 ms between samples and depth=4
// (hprof documentation); xprof is HotSpot's flat profiler, ticked by the
// WatcherThread every 10 ms, leaf method only; for JProfiler and YourKit
// (commercial, agents with full call trees and heavier per-sample work)
// we choose 10 ms, unlimited depth and larger agent costs — Mytkowicz et
// al. only say they differ in observer effect, which is what these costs
// stand for. The generic "safepoint" is JVMTI GetAllStackTraces with the
// 256-frame limit of Hofer et al.
var safepointVariants = []struct {
	name, desc string
	cfg        SafepointConfig
	src        map[string]string
}{
	{"safepoint", "timer → global safepoint → JVMTI stack walk of every running thread (10 ms, depth 256)",
		SafepointConfig{Interval: 10 * sim.Millisecond, Jitter: SleepJitter, Depth: 256, WalkPerThread: jvmtiWalkPerThread, WalkPerFrame: jvmtiWalkPerFrame, AgentPerSample: 11500 * sim.Nanosecond, AllocPerSample: 4 << 10, CatchDeopt: catchDeopt, CatchDeoptScope: catchDeoptScope}, map[string]string{"interval": "Hofer et al. §7: 10 ms", "depth": "JVMTI GetAllStackTraces max_frame_count 256 (Hofer et al.)", "walk_per_thread": jvmtiWalkSource, "walk_per_frame": jvmtiWalkSource, "agent_per_sample": "tools/agents agent.csv (OpenJDK 17.0.15, 2026-11-29, load 0.67-1.99): the validation harness's GetAllStackTraces agent every 10 ms on six drivers, its work after the call (naming threads, hashing and counting each RUNNABLE thread's stack, freeing the result) 3.1-15.4 us a tick over 13 runs, median 11.5 us", "alloc_per_sample": "our choice"}},
	{"hprof", "hprof cpu=samples: sleeps 10 ms after each safepoint sample, depth 4",
		SafepointConfig{Interval: 10 * sim.Millisecond, Jitter: SleepJitter, FromEnd: true, Depth: 4, WalkPerThread: 2 * sim.Microsecond, WalkPerFrame: 100, AgentPerSample: 50 * sim.Microsecond, AllocPerSample: 8 << 10, Capabilities: "hprof-cpu-samples", CatchDeopt: catchDeopt, CatchDeoptScope: catchDeoptScope}, map[string]string{"capabilities": "hprof_init.c (JDK 8), getCapabilities with cpu=samples: garbage-collection events, tag objects, exception events, source file name, line numbers", "interval": "hprof: cpu=samples,interval=10 (ms)", "from_end": "hprof's sampler thread sleeps interval after each sample", "depth": "hprof: depth=4", "agent_per_sample": "our choice: hprof's trace table update", "alloc_per_sample": "our choice"}},
	{"xprof", "HotSpot -Xprof flat profiler: fixed 10 ms ticks at safepoints, leaf compiled method only",
		SafepointConfig{Interval: 10 * sim.Millisecond, Jitter: SleepJitter, Flat: true, Depth: 1, WalkPerThread: 1 * sim.Microsecond, WalkPerFrame: 50, AgentPerSample: 2 * sim.Microsecond, CatchDeopt: catchDeopt, CatchDeoptScope: catchDeoptScope}, map[string]string{"capabilities": "-Xprof is the VM's own profiler, not a JVMTI agent", "interval": "HotSpot -Xprof: WatcherThread tick 10 ms", "flat": "-Xprof prints a flat profile", "depth": "-Xprof: leaf method only", "agent_per_sample": "our choice", "jitter": "tools/timer-jitter (b): the WatcherThread waits on PeriodicTask_lock like a sleeping thread, which oversleeps 10 ms by 113-306 us on average over twelve runs (median 174). HotSpot's PeriodicTask drops the overshoot, so its lateness accumulates; the model keeps xprof on its fixed clock (its ticks are safepoint's)"}},
	{"jprofile", "JProfiler-like: 10 ms safepoint samples, full stacks, heavy agent (call-tree bookkeeping)",
		SafepointConfig{Interval: 10 * sim.Millisecond, Jitter: SleepJitter, FromEnd: true, WalkPerThread: 3 * sim.Microsecond, WalkPerFrame: 150, AgentPerSample: 200 * sim.Microsecond, AllocPerSample: 32 << 10, CatchDeopt: catchDeopt, CatchDeoptScope: catchDeoptScope}, map[string]string{"interval": "Mytkowicz et al. PLDI'10: 10 ms for every profiler, 'the default rate for most profilers'", "agent_per_sample": "our choice: heavy call-tree bookkeeping", "alloc_per_sample": "our choice"}},
	{"jvmti", "Hofer et al.'s JVMTI sampling: every 10 ms (less the last sample's time) a global safepoint, VM thread walks every application thread, waiting ones too (256 frames)",
		SafepointConfig{Interval: 10 * sim.Millisecond, Jitter: SleepJitter, Paced: true, Depth: 256, Waiting: true, WalkPerThread: jvmtiWalkPerThread, WalkPerFrame: jvmtiWalkPerFrame, AgentPerSample: 20 * sim.Microsecond, AllocPerSample: 4 << 10, CatchDeopt: catchDeopt, CatchDeoptScope: catchDeoptScope}, map[string]string{"interval": "Hofer et al. §7: 10 ms", "walk_per_thread": jvmtiWalkSource, "walk_per_frame": jvmtiWalkSource, "paced": "Hofer et al. §7: the agents incorporate the time taken by the last sample", "depth": "Hofer et al.: 256 frames", "waiting": "JVMTI GetThreadListStackTraces walks every thread asked for (Hofer et al. Fig. 2)", "agent_per_sample": "our choice: 20 us to store the traces", "alloc_per_sample": "our choice: 4 KiB"}},
	{"yourkit", "YourKit-like: fixed 10 ms safepoint samples, full stacks, medium agent",
		SafepointConfig{Interval: 10 * sim.Millisecond, Jitter: SleepJitter, WalkPerThread: 3 * sim.Microsecond, WalkPerFrame: 120, AgentPerSample: 100 * sim.Microsecond, AllocPerSample: 16 << 10, CatchDeopt: catchDeopt, CatchDeoptScope: catchDeoptScope}, map[string]string{"interval": "Mytkowicz et al. PLDI'10: 10 ms for every profiler, 'the default rate for most profilers'", "agent_per_sample": "our choice: medium agent", "alloc_per_sample": "our choice"}},
}

func init() {
	for _, v := range safepointVariants {
		v := v
		Register(Info{Name: v.name, Description: v.desc, Sources: v.src,
			Config: func() any { c := v.cfg; return &c },
			Build:  func(label string, cfg any) Sampler { return newSafepoint(label, *cfg.(*SafepointConfig)) }})
	}
}

// safepointSampler is a safepoint-biased sampler.
type safepointSampler struct {
	name  string
	cfg   SafepointConfig
	env   *Env
	rec   *recorder
	timer sim.TimerID
	hook  sim.HandlerID
	agent sim.ThreadID
	// passive mode: threads whose next poll is a sample.
	pending map[sim.ThreadID]bool
	// lastTick is when the current sample was asked for (Paced).
	lastTick sim.Time
	tick     gridTicker
	// requests are the safepoints it asked for (costed mode).
	requests map[safepoint.RequestID]bool
}

// RequestsGlobalSafepoints makes safepointSampler a GlobalSafepointer.
func (s *safepointSampler) RequestsGlobalSafepoints() {}

var _ GlobalSafepointer = (*safepointSampler)(nil)

// newSafepoint creates a safepoint sampler named name.
func newSafepoint(name string, cfg SafepointConfig) *safepointSampler {
	return &safepointSampler{name: name, cfg: cfg, pending: map[sim.ThreadID]bool{}, requests: map[safepoint.RequestID]bool{}}
}

// Name is the sampler's registry name.
func (s *safepointSampler) Name() string { return s.name }

// CatchDeopt makes safepointSampler an ExceptionEventsHolder: the cost of
// a deoptimization at a catch and of each of its scopes when its
// capabilities post on exceptions.
func (s *safepointSampler) CatchDeopt() (frame, scope sim.Time) {
	set, err := jvmtiCapabilitySet(s.cfg.Capabilities)
	if err != nil || !postsOnExceptions(set) { // Validate refused the error
		return 0, 0
	}
	return s.cfg.CatchDeopt, s.cfg.CatchDeoptScope
}

var _ ExceptionEventsHolder = (*safepointSampler)(nil)

// Config returns the sampler's configuration.
func (s *safepointSampler) Config() SafepointConfig { return s.cfg }

// SetInterval sets the sampling interval; call it before Attach.
func (s *safepointSampler) SetInterval(iv sim.Time) { s.cfg.Interval = iv }

// Attach starts the sampling timer.
func (s *safepointSampler) Attach(env *Env) error {
	if err := s.cfg.Validate(); err != nil {
		return fmt.Errorf("sampler %s: %w", s.name, err)
	}
	if env.Mode == Costed && env.Safepoints == nil {
		return fmt.Errorf("sampler %s: costed mode needs a safepoint coordinator", s.name)
	}
	s.env = env
	s.rec = newRecorder(env, s.name, s.cfg.Interval)
	s.timer = env.VM.AddTimer(s)
	if env.Mode == Costed {
		s.agent = env.VM.NewServiceThread(s.name+" agent", s)
	} else {
		h, err := env.VM.AddHookHandler(s)
		if err != nil {
			return err
		}
		s.hook = h
	}
	s.tick = gridTicker{period: s.cfg.Interval, jitter: newTimerJitter(env, s.name, s.cfg.Jitter)}
	env.VM.ScheduleTimer(s.timer, s.tick.first(env.VM.Now()), 0)
	return nil
}

// agentWake is an agent thread's CPU to wake and issue a request.
const agentWake = 2 * sim.Microsecond

// waitingStates are the states of a thread that waits outside Java code.
var waitingStates = []sim.ThreadState{sim.Blocked, sim.LockWait, sim.JoinWait}

// liveStates are the states of a started thread that has not ended.
var liveStates = []sim.ThreadState{sim.Runnable, sim.Running, sim.Blocked, sim.LockWait, sim.JoinWait, sim.Parked, sim.Stalled}

// Agent job tags.
const (
	tagRequest = iota
	tagProcess
)

// OnTimer is the sampling tick.
func (s *safepointSampler) OnTimer(vm sim.Agent, at sim.Time, _ int64) {
	s.rec.costs.Requested++
	s.rec.costs.Ticks = append(s.rec.costs.Ticks, int64(at))
	s.lastTick = at
	if s.rec.trace != nil {
		if !s.cfg.FromEnd && !s.cfg.Paced {
			s.rec.late = at - s.tick.nominal
		}
		s.rec.requestAll(s.requested(vm), true)
	}
	if !s.cfg.FromEnd && !s.cfg.Paced {
		vm.ScheduleTimer(s.timer, s.tick.next(at), 0)
	}
	if s.env.Mode == Costed {
		// The agent thread wakes and asks the VM for a safepoint.
		vm.SubmitJob(s.agent, agentWake, tagRequest)
		return
	}
	if s.cfg.Waiting {
		for _, id := range appThreads(vm, waitingStates...) {
			s.sample(vm, id, howWaiting) // already safe: seen where it waits
		}
	} else {
		for _, id := range blockedInIO(vm) {
			s.sample(vm, id, howWaiting) // in native code, RUNNABLE to JVMTI
		}
	}
	armed := false
	for _, id := range appThreads(vm, sim.Running, sim.Runnable) {
		if vm.InNative(id) {
			// Safe in native code: the VM operation walks it at once
			// from its last Java frame, the native method on top
			// (a safepoint counts a _thread_in_native thread as safe:
			// safepoint_safe_with, runtime/safepoint.cpp; JVMTI
			// GetAllStackTraces reports it RUNNABLE). A request still
			// pending from an earlier tick was met when it entered the
			// native call, in the same method.
			if s.pending[id] {
				delete(s.pending, id)
				vm.Disarm(s.hook, id, sim.HookPoll)
				s.sample(vm, id, howWaiting)
			}
			s.sample(vm, id, howWaiting)
			continue
		}
		vm.Arm(s.hook, id, sim.HookPoll)
		s.pending[id] = true
		armed = true
	}
	if !armed && (s.cfg.FromEnd || s.cfg.Paced) {
		vm.ScheduleTimer(s.timer, at+s.cfg.Interval+s.tick.jitter.late(), 0)
	}
}

// next schedules the tick after a sample finished now: a full interval
// later (FromEnd) or what is left of the interval (Paced).
func (s *safepointSampler) next(vm sim.Agent) {
	switch {
	case s.cfg.FromEnd:
		vm.ScheduleTimer(s.timer, vm.Now()+s.cfg.Interval+s.tick.jitter.late(), 0)
	case s.cfg.Paced:
		vm.ScheduleTimer(s.timer, max(vm.Now(), s.lastTick+s.cfg.Interval)+s.tick.jitter.late(), 0)
	}
}

// OnHook (passive mode) samples a thread at its next poll: where it would
// have stopped for the safepoint.
func (s *safepointSampler) OnHook(vm sim.Agent, id sim.ThreadID, h sim.Hook) sim.Action {
	if !s.pending[id] {
		return sim.Continue
	}
	delete(s.pending, id)
	if vm.State(id) == sim.Running {
		s.sample(vm, id, howPoll)
	} else {
		s.rec.skip(id, SkipTransition)
	}
	if len(s.pending) == 0 {
		s.next(vm)
	}
	return sim.Continue
}

// OnJobDone advances the agent's work (costed mode).
func (s *safepointSampler) OnJobDone(vm sim.Agent, _ sim.ThreadID, tag int64) {
	switch tag {
	case tagRequest:
		s.requests[s.env.Safepoints.Request("sample:"+s.name, s)] = true
	case tagProcess:
		s.next(vm)
	}
}

// Run walks the stopped threads' stacks at the safepoint (costed mode).
func (s *safepointSampler) Run(vm sim.Agent, at sim.Time) sim.Time {
	var cost sim.Time
	ids := s.env.Safepoints.Stopped()
	stopped := len(ids)
	for _, id := range appThreads(vm, sim.Running) {
		if vm.InNative(id) {
			ids = append(ids, id) // safe in native, still sampled by JVMTI
		}
	}
	if s.cfg.Waiting {
		ids = append(ids, appThreads(vm, waitingStates...)...)
	} else {
		ids = append(ids, blockedInIO(vm)...) // RUNNABLE to JVMTI
	}
	for i, id := range ids {
		how := howSafepoint
		if i >= stopped {
			how = howWaiting // in native code, or waiting
		}
		n := s.sample(vm, id, how)
		cost += s.cfg.WalkPerThread + s.cfg.WalkPerFrame*sim.Time(n)
	}
	return cost
}

// Done hands the traces to the agent.
func (s *safepointSampler) Done(vm sim.Agent, at sim.Time) {
	if s.env.GC != nil && s.cfg.AllocPerSample > 0 {
		s.env.GC.Charge(vm, s.cfg.AllocPerSample)
	}
	vm.SubmitJob(s.agent, s.cfg.AgentPerSample, tagProcess)
}

// sample records thread id's stack now and returns the frames walked.
func (s *safepointSampler) sample(vm sim.Agent, id sim.ThreadID, how sampleHow) int {
	s.rec.buf = vm.Stack(id, s.rec.buf[:0])
	if len(s.rec.buf) == 0 {
		return 0
	}
	var frames []profile.Frame
	if s.cfg.Flat {
		leaf := physicalRoot(s.rec.buf)
		frames = []profile.Frame{{Func: int32(s.rec.fn[leaf.Method])}}
	} else {
		frames = s.rec.exact(s.rec.buf, s.cfg.Depth)
	}
	s.rec.add(frames, id, s.cfg.Interval)
	if s.rec.trace != nil {
		s.rec.note(id, s.rec.buf, frames, how.mechanism(vm, id), false)
	}
	return len(frames)
}

// requested are the threads a tick asks to sample (Trace): those that
// run to a poll, and with Waiting those already waiting.
func (s *safepointSampler) requested(vm sim.Agent) []sim.ThreadID {
	if s.cfg.Waiting {
		return appThreads(vm, append([]sim.ThreadState{sim.Running, sim.Runnable}, waitingStates...)...)
	}
	return append(appThreads(vm, sim.Running, sim.Runnable), blockedInIO(vm)...)
}

// blockedInIO are the application threads blocked in I/O: in a native
// method waiting in the kernel, which JVMTI reports RUNNABLE as it does
// any thread in native code. An agent that keeps the RUNNABLE threads of
// GetAllStackTraces (hprof's cpu=samples, the validation harness's agent)
// samples them where they wait, as it samples a thread running native
// code; a thread sleeping, or waiting for a monitor or a join, is not
// RUNNABLE.
func blockedInIO(vm sim.Agent) []sim.ThreadID {
	ids := appThreads(vm, sim.Blocked)
	out := ids[:0]
	for _, id := range ids {
		if vm.InBlockingIO(id) {
			out = append(out, id)
		}
	}
	return out
}

// sampleHow is how the safepoint family reached a thread it samples.
type sampleHow uint8

const (
	howPoll      sampleHow = iota // passive: at the poll the thread reached
	howSafepoint                  // costed: stopped at a global safepoint's poll
	howWaiting                    // already safe: waiting, blocked or in native code
)

// mechanism names how a sample of thread id taken now was taken (Trace).
func (h sampleHow) mechanism(vm sim.Agent, id sim.ThreadID) string {
	switch {
	case vm.InNative(id), vm.InBlockingIO(id):
		return "native"
	case h == howPoll:
		return "poll:" + vm.PollKindOf(id).String()
	case h == howSafepoint:
		return "safepoint:" + vm.PollKindOf(id).String()
	default:
		return "waiting"
	}
}

// Result returns the profile and costs.
func (s *safepointSampler) Result() *Result {
	r := s.rec.result()
	if s.env.Mode == Costed {
		r.Costs.AgentCPU = threadCPU(s.env.VM, s.agent)
		for _, rec := range s.env.Safepoints.Records() {
			if !s.requests[rec.ID] {
				continue
			}
			r.Costs.AgentCPU += rec.End - rec.Safe
			r.Costs.Latencies = append(r.Costs.Latencies, int64(rec.End-rec.Requested))
			for _, p := range rec.Pauses {
				r.Costs.Pauses += p.Resumed - p.Stopped
			}
		}
	}
	return r
}

// physicalRoot is the frame whose compiled code contains the leaf: the
// leaf itself unless it is inlined.
func physicalRoot(stack []sim.StackFrame) sim.StackFrame {
	i := len(stack) - 1
	for i > 0 && stack[i].Inlined {
		i--
	}
	return stack[i]
}

// threadCPU is a thread's CPU time so far.
func threadCPU(vm sim.Agent, id sim.ThreadID) sim.Time {
	return vm.ThreadCPU(id)
}

var _ IntervalSetter = (*safepointSampler)(nil)

// TracesSamples: safepointSampler tells Env.Trace each sample's story.
func (s *safepointSampler) TracesSamples() {}

var _ Traceable = (*safepointSampler)(nil)
