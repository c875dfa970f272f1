package samplers

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/sim"
)

// jfrCPUTimeConfig configures JDK 25's CPU-time sampler (JEP 509,
// jdk.CPUTimeSample).
type jfrCPUTimeConfig struct {
	// Throttle is JFR's throttle setting in either of its forms: a rate
	// ("500/s", samples per second for the whole process: each thread's
	// CPU period is CPUs / rate) or a period of CPU time per thread
	// ("10ms").
	Throttle string `key:"throttle" doc:"JFR's throttle: a rate N/s (each thread's CPU period is CPUs / N) or a CPU-time period per thread (10ms)" src:"JDK 25 default.jfc: jdk.CPUTimeSample throttle 500/s, profile.jfc 10 ms; jfrCPUTimeThreadSampler.cpp compute_sampling_period scales a rate by the active processor count"`
	// Tick is the kernel's timer tick: a POSIX CPU-clock timer expires when
	// the tick that sees its thread's CPU time past the expiry runs.
	Tick sim.Time `key:"tick_interval" check:"1us..max" doc:"kernel tick at which per-thread CPU timers are checked (run_posix_cpu_timers)" src:"Linux CONFIG_HZ=250: 4 ms; tools/timer-jitter (c) finds async-profiler's ctimer on the 4 ms jiffy"`
	// QueueCapacity bounds a thread's unprocessed requests; 0 takes JFR's
	// rule (500, scaled by 10/period_ms below 10 ms).
	QueueCapacity int `key:"queue_capacity" check:">=0" unit:"requests" doc:"requests a thread holds before its poll; more are lost (0: JFR's 500, x10/period_ms below 10 ms)" src:"jfrCPUTimeThreadSampler.hpp CPU_TIME_QUEUE_CAPACITY = 500; ensure_capacity_for_period"`
	// Depth keeps at most this many frames nearest the leaf (0: all).
	Depth int `key:"depth" check:">=0" unit:"frames" doc:"stack depth limit, frames nearest the leaf (0: unlimited)" src:"JFR: -XX:FlightRecorderOptions:stackdepth=64"`
	// Oracle records exact positions; false (the default) resolves the
	// recorded pc through debug information, as JFR does.
	Oracle bool `key:"oracle" doc:"an oracle no real profiler has: record exact positions instead of naming them through the JIT's debug information (false: as the real profiler does)" src:"jfrThreadSampling.cpp record_cpu_time_thread uses compute_top_frame, as jfr-coop"`
	// HandlerCost is the signal handler recording the request on the
	// sampled thread; WalkBase + WalkPerFrame × frames its walk at the poll.
	HandlerCost  sim.Time `key:"handler_cost" check:"0..max" doc:"signal handler on the sampled thread (costed mode)" src:"our choice: 2 us, a signal and a request"`
	WalkBase     sim.Time `key:"walk_base" check:"0..max" doc:"sampled thread's cost to process its queue at the poll (costed mode)" src:"our choice: 2 us"`
	WalkPerFrame sim.Time `key:"walk_per_frame" check:"0..1s" doc:"walking one frame (costed mode)" src:"tools/calibrate jvmti_walk_per_frame (JDK 17): 147-154 ns per compiled frame"`
}

// defaultJFRCPUTimeConfig is default.jfc's setting.
func defaultJFRCPUTimeConfig() jfrCPUTimeConfig {
	return jfrCPUTimeConfig{Throttle: "500/s", Tick: 4 * sim.Millisecond, Depth: 64, HandlerCost: 2 * sim.Microsecond, WalkBase: 2 * sim.Microsecond, WalkPerFrame: 150}
}

// Validate names the first invalid field.
func (c jfrCPUTimeConfig) Validate() error {
	if err := param.Check(&c); err != nil {
		return err
	}
	_, _, err := c.throttle()
	return err
}

// throttle parses Throttle into a rate (samples/s) or a period, exactly
// one of them > 0.
func (c jfrCPUTimeConfig) throttle() (rate float64, period sim.Time, err error) {
	t := strings.TrimSpace(c.Throttle)
	if num, ok := strings.CutSuffix(t, "/s"); ok {
		rate, err = strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || !(rate > 0) || rate > 1e9 || math.IsInf(rate, 0) {
			return 0, 0, fmt.Errorf("throttle: %q: want a rate N/s with 0 < N <= 1e9, or a period such as 10ms", c.Throttle)
		}
		return rate, 0, nil
	}
	period, err = param.ParseDuration(t)
	if err != nil || period <= 0 {
		return 0, 0, fmt.Errorf("throttle: %q: want a rate such as 500/s or a positive period such as 10ms", c.Throttle)
	}
	return 0, period, nil
}

func init() {
	Register(Info{Name: "jfr-cputime", Description: "JDK 25 JFR CPU-time sampling (JEP 509): a per-thread CPU-clock timer signals each thread every CPUs/500 s of its CPU time; requests walked cooperatively at the poll (jfr-coop's walk)",
		Config: func() any { c := defaultJFRCPUTimeConfig(); return &c },
		Build:  func(label string, cfg any) Sampler { return newJFRCPUTime(label, *cfg.(*jfrCPUTimeConfig)) }})
}

// jfrCPUTimeSampler is JEP 509's sampler. Each Java thread has a timer_create
// timer on its own CPU clock (create_timer_for_thread,
// jfrCPUTimeThreadSampler.cpp) that signals it every period of its CPU
// time; the kernel checks it at its ticks while the thread runs, so a
// thread that blocks gets no signal, and one that crossed several periods
// between ticks gets one (an overrun). The handler (handle_timer_signal)
// records pc/sp as jfr-coop's sampler does and enqueues the request in the
// thread's queue — full, it is lost (increment_lost_samples,
// jdk.CPUTimeSamplesLost) — and the thread walks its queue at its next
// poll (drain_all_enqueued_requests, jfrThreadSampling.cpp), each request
// through compute_top_frame, whose biased flag the event carries. A thread
// in native code is walked by the sampler thread from its last Java frame
// (sample_out_of_safepoint), not biased. Each sample weighs one period.
type jfrCPUTimeSampler struct {
	name     string
	cfg      jfrCPUTimeConfig
	env      *Env
	rec      *recorder
	timer    sim.TimerID
	hook     sim.HandlerID
	period   sim.Time
	capacity int
	expiry   map[sim.ThreadID]sim.Time
	queue    map[sim.ThreadID][]coopRequest
	walker   coopWalker
	tick     sim.Time
	cost     costDraw
	// Biased, Returned and Lost are reported in Costs.
	Biased, Returned, Lost int64
}

// newJFRCPUTime creates a jfr-cputime sampler named name.
func newJFRCPUTime(name string, cfg jfrCPUTimeConfig) *jfrCPUTimeSampler {
	return &jfrCPUTimeSampler{name: name, cfg: cfg, expiry: map[sim.ThreadID]sim.Time{}, queue: map[sim.ThreadID][]coopRequest{}, walker: coopWalker{debugInfo: !cfg.Oracle}}
}

// Name is the sampler's label.
func (s *jfrCPUTimeSampler) Name() string { return s.name }

// Attach computes the period and starts the tick.
func (s *jfrCPUTimeSampler) Attach(env *Env) error {
	if err := s.cfg.Validate(); err != nil {
		return fmt.Errorf("sampler %s: %w", s.name, err)
	}
	s.env = env
	rate, period, _ := s.cfg.throttle()
	s.period = period
	if rate > 0 {
		s.period = sim.Time(float64(env.VM.Config().CPUs) * 1e9 / rate)
		if s.period < 1 {
			return fmt.Errorf("sampler %s: throttle: %g samples/s on %d CPUs gives a period under 1 ns", s.name, rate, env.VM.Config().CPUs)
		}
	}
	s.capacity = s.cfg.QueueCapacity
	if s.capacity == 0 {
		s.capacity = 500
		if ms := s.period / sim.Millisecond; ms > 0 && ms < 10 {
			s.capacity = int(500 * 10 / ms)
		}
	}
	s.rec = newRecorder(env, s.name, s.period)
	s.cost = newCostDraw(env, s.name)
	s.timer = env.VM.AddTimer(s)
	h, err := env.VM.AddHookHandler(s)
	if err != nil {
		return err
	}
	s.hook = h
	s.tick = env.VM.Now() + s.cfg.Tick
	env.VM.ScheduleTimer(s.timer, s.tick, 0)
	return nil
}

// OnTimer is a kernel tick: every running thread past its expiry gets a
// signal.
func (s *jfrCPUTimeSampler) OnTimer(vm sim.Agent, at sim.Time, _ int64) {
	for _, id := range appThreads(vm, sim.Running) {
		cpu := vm.ThreadCPU(id)
		exp, ok := s.expiry[id]
		if !ok {
			exp = s.period
		}
		if cpu < exp {
			s.expiry[id] = exp
			continue
		}
		for exp <= cpu {
			exp += s.period // overruns: one signal
		}
		s.expiry[id] = exp
		s.rec.costs.Requested++
		s.rec.costs.Ticks = append(s.rec.costs.Ticks, int64(at))
		if s.env.Mode == Costed {
			d := s.cost.vary(s.cfg.HandlerCost)
			vm.Stall(id, d)
			s.rec.costs.Stall += d
		}
		if vm.InNative(id) {
			// sample_out_of_safepoint: the sampler thread walks from the
			// last Java frame; not biased.
			s.rec.buf = vm.Stack(id, s.rec.buf[:0])
			if len(s.rec.buf) == 0 {
				continue
			}
			frames := s.rec.exact(s.rec.buf, s.cfg.Depth)
			s.rec.add(frames, id, s.period)
			s.rec.note(id, s.rec.buf, frames, "CPU timer signal in native code, walked by the sampler thread", false)
			continue
		}
		if len(s.queue[id]) >= s.capacity {
			s.Lost++
			continue
		}
		st := vm.Stack(id, nil)
		if len(st) == 0 {
			continue
		}
		s.queue[id] = append(s.queue[id], coopRequest{stack: st, at: at})
		vm.Arm(s.hook, id, sim.HookPoll)
	}
	s.tick += s.cfg.Tick
	vm.ScheduleTimer(s.timer, s.tick, 0)
}

// OnHook is the thread at its poll (or blocking): it walks every queued
// request.
func (s *jfrCPUTimeSampler) OnHook(vm sim.Agent, id sim.ThreadID, _ sim.Hook) sim.Action {
	q := s.queue[id]
	if len(q) == 0 {
		return sim.Continue
	}
	s.rec.buf = vm.Stack(id, s.rec.buf[:0])
	var cost sim.Time
	atReturn := vm.PollKindOf(id) == sim.PollReturn
	for _, req := range q {
		stack, biased, returned := s.walker.walk(req.stack, s.rec.buf, atReturn)
		if biased {
			s.Biased++
		}
		if returned {
			s.Returned++
		}
		frames := s.rec.exact(stack, s.cfg.Depth)
		s.rec.add(frames, id, s.period)
		s.rec.note(id, req.stack, frames, "CPU timer request walked at the poll", !s.cfg.Oracle)
		cost += s.cfg.WalkPerFrame * sim.Time(len(stack))
	}
	s.queue[id] = q[:0]
	if s.env.Mode == Costed && vm.State(id) == sim.Running {
		d := s.cost.vary(s.cfg.WalkBase + cost)
		vm.Stall(id, d)
		s.rec.costs.Stall += d
	}
	return sim.Continue
}

// Result returns the profile; Costs.Biased, Returned and Lost count the
// flagged and lost samples.
func (s *jfrCPUTimeSampler) Result() *Result {
	r := s.rec.result()
	r.Costs.Biased, r.Costs.Returned, r.Costs.Lost = s.Biased, s.Returned, s.Lost
	return r
}

// TracesSamples: jfrCPUTimeSampler tells Env.Trace each sample's story.
func (s *jfrCPUTimeSampler) TracesSamples() {}

var _ Traceable = (*jfrCPUTimeSampler)(nil)
