package samplers

import (
	"fmt"
	"math/rand/v2"

	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/safepoint"
	"github.com/profsim/profsim/sim"
)

// HoferConfig configures SPS and ISPS (Hofer, Gnedt, Mössenböck 2015).
type HoferConfig struct {
	// Interval between sample requests: the agent waits the interval less
	// the time the last sample took (the profilers "incorporate the time
	// that elapsed while taking the last sample"), so a slow partial
	// safepoint delays the next request but never queues one. > 0.
	Interval sim.Time `key:"interval" check:"1us..max" doc:"time between sample requests, less the last sample's time" src:"Hofer et al. ICPE'15 §7: 10 ms (also 1 ms, 0.1 ms)"`
	// Jitter is the agent's mean oversleep (timerJitter): it adds to the
	// paced wait.
	Jitter sim.Time `key:"jitter" check:"0..1h" doc:"mean oversleep of the agent thread, exponential; it adds to the paced wait (0: exact)" src:"tools/timer-jitter (b): the agent thread sleeps between requests (Hofer et al. §7); a thread sleeping 10 ms here oversleeps 113-306 us on average over twelve runs (median 174), accumulating"`
	// K threads per partial safepoint; 0 means the number of CPUs.
	K int `key:"k" check:">=0" unit:"threads" doc:"threads per partial safepoint (0: the number of CPUs)" src:"Hofer et al. §4: k = the number of CPUs"`
	// IncludeWaiting also samples waiting threads, in proportion (the
	// paper's evaluation enables it "to be comparable with JVMTI sampling",
	// which samples every thread).
	IncludeWaiting bool `key:"include_waiting" doc:"also sample waiting threads, in proportion" src:"Hofer et al. §7: enabled 'to be comparable with JVMTI sampling'"`
	// Incremental enables incremental stack tracing (ISPS).
	Incremental bool `key:"incremental" doc:"incremental stack tracing: decode the top frame, intercept returns for the callers (ISPS)" src:"Hofer et al. §5 (ISPS)"`
	// Depth truncates stacks to the frames nearest the leaf (256 for SPS,
	// as for JVMTI; 0 = complete, ISPS's default).
	Depth int `key:"depth" check:">=0" unit:"frames" doc:"stack depth limit, frames nearest the leaf (0: complete)" src:"SPS: 256 as JVMTI (Hofer et al. §7); ISPS: complete"`
	// SampleBase + FrameCost × frames decoded is the cost of a sample on
	// the sampled thread; an intercepted return costs TrampolineCost +
	// FrameCost.
	SampleBase     sim.Time `key:"sample_base" check:"0..max" doc:"cost of a sample on the sampled thread (costed mode)" src:"our choice: 1 us"`
	FrameCost      sim.Time `key:"frame_cost" check:"0..1s" doc:"cost per frame decoded (costed mode)" src:"our choice: 100 ns"`
	TrampolineCost sim.Time `key:"trampoline_cost" check:"0..1s" doc:"cost of an intercepted return, plus frame_cost (costed mode)" src:"our choice: 50 ns"`
	// RetrieveInterval is how often ISPS retrieves (and completes) its
	// traces at a full safepoint. ISPS must also retrieve every ending
	// thread's traces in the ThreadEnd event, and a retrieve "always enters
	// a full safepoint" (§5.3): RetrievePerThread is the VM thread's work
	// in that safepoint, on top of bringing every thread to a poll.
	RetrieveInterval  sim.Time `key:"retrieve_interval" check:"1us..max" doc:"ISPS: how often traces are retrieved at a full safepoint" src:"our choice: 1 s"`
	RetrievePerThread sim.Time `key:"retrieve_per_thread" check:"0..1s" doc:"ISPS: VM thread's work per thread in a retrieve safepoint (costed mode)" src:"our choice: 20 us"`
	// AgentPerSample is the agent thread's CPU to store each request's
	// traces into its CCT, AllocPerSample the bytes it allocates for them:
	// the same work as the JVMTI agent's (both agents build a CCT, §7).
	AgentPerSample sim.Time `key:"agent_per_sample" check:"0..max" doc:"agent thread's CPU to store a request's traces (costed mode)" src:"as jvmti: 20 us (both agents build a CCT, Hofer et al. §7)"`
	AllocPerSample int64    `key:"alloc_per_sample" check:"0..1_099_511_627_776" unit:"bytes" doc:"bytes the agent allocates per request (costed mode)" src:"as jvmti: 4 KiB"`
}

// DefaultSPSConfig is SPS as Hofer et al. evaluated it: 10 ms, K = CPUs,
// waiting threads included, 256 frames; the agent's costs are jvmti's.
func DefaultSPSConfig() HoferConfig {
	return HoferConfig{Interval: 10 * sim.Millisecond, Jitter: SleepJitter, IncludeWaiting: true, Depth: 256, SampleBase: 1 * sim.Microsecond, FrameCost: 100,
		TrampolineCost: 50, RetrieveInterval: sim.Second, RetrievePerThread: 20 * sim.Microsecond,
		AgentPerSample: 20 * sim.Microsecond, AllocPerSample: 4 << 10}
}

// defaultISPSConfig is ISPS: SPS plus incremental stack tracing.
func defaultISPSConfig() HoferConfig {
	c := DefaultSPSConfig()
	c.Incremental, c.Depth = true, 0
	return c
}

// Validate names the first invalid field.
func (c HoferConfig) Validate() error {
	return param.Check(&c)
}

func init() {
	Register(Info{Name: "sps", Description: "Hofer's self-sampling partial safepoints: every 10 ms the first K (= CPUs) threads to reach a poll walk their own stacks (256 frames), waiting threads in proportion; nobody else stops",
		Config: func() any { c := DefaultSPSConfig(); return &c },
		Build:  func(label string, cfg any) Sampler { return newHofer(label, *cfg.(*HoferConfig)) }})
	Register(Info{Name: "isps", Description: "Hofer's ISPS: SPS with incremental stack tracing — decode only the top frame, intercept returns to fill callers, share skeleton frames, retrieve at a full safepoint",
		Config: func() any { c := defaultISPSConfig(); return &c },
		Build:  func(label string, cfg any) Sampler { return newHofer(label, *cfg.(*HoferConfig)) }})
}

// frameObj is one frame of an incremental stack trace: filled, or an empty
// skeleton for a caller frame not captured yet.
type frameObj struct {
	method int32
	line   int32
	depth  int // the frame's depth on the stack (its "frame address")
	filled bool
	parent *frameObj
	at     sim.Time // when the sample was taken (top frame objects)
}

// threadTraces is one thread's incremental state.
type threadTraces struct {
	tops []*frameObj // one top frame object per sample
	cso  *frameObj   // current skeleton object: the next frame to fill
}

// hoferSampler is the SPS/ISPS sampler.
type hoferSampler struct {
	name    string
	cfg     HoferConfig
	env     *Env
	rec     *recorder
	rng     *rand.Rand
	timer   sim.TimerID
	hook    sim.HandlerID
	agent   sim.ThreadID
	k       int
	traces  map[sim.ThreadID]*threadTraces
	decoded int64
	samples int64
	// lastTick is when the current partial safepoint was asked for.
	lastTick sim.Time
	jitter   timerJitter
	// endRetrieves counts the full safepoints entered at thread ends.
	endRetrieves int64
	// sampleReqs and retrieveReqs are the safepoints it asked for: partial
	// ones to sample, full ones to retrieve traces.
	sampleReqs, retrieveReqs map[safepoint.RequestID]bool
}

// newHofer creates an SPS or ISPS sampler named name.
func newHofer(name string, cfg HoferConfig) *hoferSampler {
	return &hoferSampler{name: name, cfg: cfg, traces: map[sim.ThreadID]*threadTraces{},
		sampleReqs: map[safepoint.RequestID]bool{}, retrieveReqs: map[safepoint.RequestID]bool{}}
}

// Name is "sps" or "isps".
func (s *hoferSampler) Name() string { return s.name }

// Config returns the configuration.
func (s *hoferSampler) Config() HoferConfig { return s.cfg }

// SetInterval sets the sampling interval; call it before Attach.
func (s *hoferSampler) SetInterval(iv sim.Time) { s.cfg.Interval = iv }

// Attach starts the sampling timer.
func (s *hoferSampler) Attach(env *Env) error {
	if err := s.cfg.Validate(); err != nil {
		return fmt.Errorf("sampler %s: %w", s.name, err)
	}
	if env.Safepoints == nil {
		return fmt.Errorf("sampler %s: needs a safepoint coordinator", s.name)
	}
	s.env = env
	s.rec = newRecorder(env, s.name, s.cfg.Interval)
	s.rng = sim.Stream(env.Seed, "sampler/"+s.name)
	s.k = s.cfg.K
	if s.k == 0 {
		s.k = env.VM.Config().CPUs
	}
	h, err := env.VM.AddHookHandler(s)
	if err != nil {
		return err
	}
	s.hook = h
	s.timer = env.VM.AddTimer(s)
	if env.Mode == Costed {
		s.agent = env.VM.NewServiceThread(s.name+" agent", s)
	}
	s.jitter = newTimerJitter(env, s.name, s.cfg.Jitter)
	env.VM.ScheduleTimer(s.timer, env.VM.Now()+s.cfg.Interval+s.jitter.late(), 0)
	if s.cfg.Incremental {
		env.VM.ScheduleTimer(s.timer, env.VM.Now()+s.cfg.RetrieveInterval, 1)
		env.VM.AddThreadEndObserver(s)
	}
	return nil
}

// OnTimer requests a partial safepoint (arg 0) or a retrieve (arg 1).
func (s *hoferSampler) OnTimer(vm sim.Agent, at sim.Time, arg int64) {
	if arg == 1 {
		if s.env.Mode == Costed {
			s.retrieveReqs[s.env.Safepoints.Request("retrieve:"+s.name, retrieveOp{s})] = true
		} else {
			s.retrieveAll(vm)
		}
		vm.ScheduleTimer(s.timer, at+s.cfg.RetrieveInterval, 1)
		return
	}
	s.rec.costs.Requested++
	s.rec.costs.Ticks = append(s.rec.costs.Ticks, int64(at))
	s.lastTick = at
	if s.rec.trace != nil {
		s.rec.requestAll(appThreads(vm, liveStates...), false)
	}
	if s.env.Mode == Costed {
		// The agent thread wakes and calls the sample extension, as the
		// JVMTI agent does.
		vm.SubmitJob(s.agent, agentWake, tagRequest)
		return
	}
	s.request()
}

func (s *hoferSampler) request() {
	cfg := safepoint.PartialConfig{K: s.k, IncludeWaiting: s.cfg.IncludeWaiting, Costless: s.env.Mode != Costed}
	s.sampleReqs[s.env.Safepoints.RequestPartial("sample:"+s.name, cfg, s.rng, s)] = true
}

// SelfSample is the sampled thread walking its own stack at its poll; a
// thread the run does not profile (sim.View.Profiled) takes no sample
// and costs nothing, though it took one of the K places.
func (s *hoferSampler) SelfSample(vm sim.Agent, id sim.ThreadID) sim.Time {
	if !vm.Profiled(id) {
		return 0
	}
	s.samples++
	s.rec.costs.Taken++
	s.rec.costs.SampleTimes = append(s.rec.costs.SampleTimes, int64(vm.Now()))
	s.rec.buf = vm.Stack(id, s.rec.buf[:0])
	if !s.cfg.Incremental {
		frames := s.rec.exact(s.rec.buf, s.cfg.Depth)
		s.rec.sample(frames, vm.ThreadName(id), 1, s.cfg.Interval, vm.Now())
		if s.rec.trace != nil {
			s.rec.note(id, s.rec.buf, frames, "self:"+vm.PollKindOf(id).String(), false)
		}
		s.decoded += int64(len(frames))
		return s.costOf(s.cfg.SampleBase + s.cfg.FrameCost*sim.Time(len(frames)))
	}
	s.sampleIncremental(vm, id, s.rec.buf)
	s.decoded++
	return s.costOf(s.cfg.SampleBase + s.cfg.FrameCost)
}

func (s *hoferSampler) costOf(d sim.Time) sim.Time {
	if s.env.Mode == Costed {
		s.rec.costs.Stall += d
	}
	return d
}

// SampleWaiting is the VM thread walking a waiting thread (not one the
// run does not profile).
func (s *hoferSampler) SampleWaiting(vm sim.Agent, id sim.ThreadID) sim.Time {
	if !vm.Profiled(id) {
		return 0
	}
	s.samples++ // a sample like a self-sample: frames per sample counts it
	s.rec.costs.Taken++
	s.rec.costs.SampleTimes = append(s.rec.costs.SampleTimes, int64(vm.Now()))
	s.rec.buf = vm.Stack(id, s.rec.buf[:0])
	frames := s.rec.exact(s.rec.buf, s.cfg.Depth)
	s.rec.sample(frames, vm.ThreadName(id), 1, s.cfg.Interval, vm.Now())
	s.rec.note(id, s.rec.buf, frames, "waiting", false)
	s.decoded += int64(len(frames))
	return s.cfg.SampleBase + s.cfg.FrameCost*sim.Time(len(frames))
}

// Done is the partial safepoint ending, every sample in: the agent stores
// the traces, then waits what is left of the interval.
func (s *hoferSampler) Done(vm sim.Agent, at sim.Time) {
	if s.env.Mode != Costed {
		s.next(vm)
		return
	}
	if s.env.GC != nil && s.cfg.AllocPerSample > 0 {
		s.env.GC.Charge(vm, s.cfg.AllocPerSample)
	}
	vm.SubmitJob(s.agent, s.cfg.AgentPerSample, tagProcess)
}

// next schedules the tick after a sample is done: what is left of the
// interval.
func (s *hoferSampler) next(vm sim.Agent) {
	vm.ScheduleTimer(s.timer, max(vm.Now(), s.lastTick+s.cfg.Interval)+s.jitter.late(), 0)
}

// sampleIncremental takes an incremental sample: the top frame is decoded
// into a new top frame object; its caller becomes (or reuses) the current
// skeleton object, and the top frame's return is intercepted.
func (s *hoferSampler) sampleIncremental(vm sim.Agent, id sim.ThreadID, stack []sim.StackFrame) {
	tt := s.traces[id]
	if tt == nil {
		tt = &threadTraces{}
		s.traces[id] = tt
	}
	top := len(stack) - 1
	tfo := &frameObj{method: stack[top].Method, line: stack[top].Line, depth: top, filled: true, at: vm.Now()}
	tt.tops = append(tt.tops, tfo)
	if top == 0 {
		return // the entry method: no caller
	}
	caller := top - 1
	switch {
	case tt.cso != nil && tt.cso.depth == caller:
		tfo.parent = tt.cso // shared with earlier traces; top already patched
	case tt.cso != nil && tt.cso.depth < caller:
		sk := &frameObj{depth: caller, parent: tt.cso}
		tt.cso, tfo.parent = sk, sk
	default: // no CSO, or a stale one above the stack
		sk := &frameObj{depth: caller}
		tt.cso, tfo.parent = sk, sk
	}
	if !vm.ReturnArmed(s.hook, id, top) {
		vm.ArmReturn(s.hook, id, top)
	}
}

// OnHook is the return interception (the trampoline): fill the current
// skeleton with the frame returned into, then move to its caller.
func (s *hoferSampler) OnHook(vm sim.Agent, id sim.ThreadID, h sim.Hook) sim.Action {
	if h != sim.HookReturn {
		return sim.Continue
	}
	tt := s.traces[id]
	stack := vm.Stack(id, s.rec.buf[:0])
	s.rec.buf = stack
	d := len(stack) - 1 // the frame returned into
	if tt == nil || tt.cso == nil || tt.cso.depth != d || d < 0 {
		return sim.Continue
	}
	cso := tt.cso
	cso.method, cso.line, cso.filled = stack[d].Method, stack[d].Line, true
	s.decoded++
	if s.env.Mode == Costed && vm.State(id) == sim.Running {
		c := s.cfg.TrampolineCost + s.cfg.FrameCost
		vm.Stall(id, c)
		s.rec.costs.Stall += c
	}
	if d == 0 {
		tt.cso = nil // the entry frame: the traces are complete
		return sim.Continue
	}
	if cso.parent != nil && cso.parent.depth == d-1 {
		tt.cso = cso.parent // a skeleton for the caller exists (step 5)
	} else {
		sk := &frameObj{depth: d - 1, parent: cso.parent}
		cso.parent = sk
		tt.cso = sk
	}
	if !vm.ReturnArmed(s.hook, id, d) {
		vm.ArmReturn(s.hook, id, d)
	}
	return sim.Continue
}

// complete fills thread id's remaining skeletons from its current stack
// and un-patches its returns; it returns the frames decoded.
func (s *hoferSampler) complete(vm sim.Agent, id sim.ThreadID) int {
	tt := s.traces[id]
	if tt == nil || tt.cso == nil {
		return 0
	}
	stack := vm.Stack(id, s.rec.buf[:0])
	s.rec.buf = stack
	n := 0
	for sk := tt.cso; sk != nil; {
		if sk.depth >= len(stack) {
			break // the frame is gone (an exception unwound it)
		}
		if !sk.filled {
			sk.method, sk.line, sk.filled = stack[sk.depth].Method, stack[sk.depth].Line, true
			n++
		}
		if sk.depth == 0 {
			break
		}
		if sk.parent == nil || sk.parent.depth != sk.depth-1 {
			sk.parent = &frameObj{depth: sk.depth - 1, parent: sk.parent}
		}
		sk = sk.parent
	}
	for d := range stack {
		if vm.ReturnArmed(s.hook, id, d) {
			vm.DisarmReturn(s.hook, id, d)
		}
	}
	tt.cso = nil
	s.decoded += int64(n)
	return n
}

// emit turns a thread's finished traces into samples and forgets them.
func (s *hoferSampler) emit(vm sim.Agent, id sim.ThreadID) {
	tt := s.traces[id]
	if tt == nil {
		return
	}
	var path []*frameObj
	for _, top := range tt.tops {
		path = path[:0]
		for f := top; f != nil; f = f.parent {
			if f.filled {
				path = append(path, f)
			}
		}
		if s.cfg.Depth > 0 && len(path) > s.cfg.Depth {
			path = path[:s.cfg.Depth] // keep the frames nearest the leaf
		}
		frames := make([]profile.Frame, 0, len(path))
		for i := len(path) - 1; i >= 0; i-- {
			frames = append(frames, profile.Frame{Func: int32(s.rec.fn[path[i].method]), Line: int32(path[i].line)})
		}
		s.rec.sample(frames, vm.ThreadName(id), 1, s.cfg.Interval, top.at)
	}
	tt.tops = nil
}

// retrieveAll completes and collects every thread's traces.
func (s *hoferSampler) retrieveAll(vm sim.Agent) int {
	n := 0
	for id := sim.ThreadID(0); int(id) < vm.NumThreads(); id++ {
		if s.traces[id] == nil {
			continue
		}
		if vm.State(id) != sim.Terminated {
			n += s.complete(vm, id)
		}
		s.emit(vm, id)
	}
	return n
}

// OnThreadEnd is the agent's ThreadEnd callback: a thread's traces die
// with it, so the agent retrieves them now. The agent cannot know whether
// a partial safepoint ever sampled the thread, so it retrieves at every
// thread end, and a retrieve enters a full safepoint (§5.3) — cheap when
// threads are few and long-lived, significant for a program like tmt that
// creates many short-lived threads (§7.1). Passive mode collects for free.
// The callback runs on the ending thread and waits for the retrieve, so
// the thread (and whoever joins it) is held until the safepoint ends.
func (s *hoferSampler) OnThreadEnd(vm sim.Agent, id sim.ThreadID) sim.Action {
	if s.env.Mode != Costed {
		s.emit(vm, id)
		return sim.Continue
	}
	s.endRetrieves++
	s.retrieveReqs[s.env.Safepoints.Request("retrieve:"+s.name, retrieveEndOp{s, id})] = true
	return sim.Park
}

// retrieveEndOp retrieves one ended thread's traces at a full safepoint;
// they are complete (every frame has returned), so the VM thread only
// copies them out.
type retrieveEndOp struct {
	s  *hoferSampler
	id sim.ThreadID
}

func (r retrieveEndOp) Run(vm sim.Agent, at sim.Time) sim.Time {
	r.s.emit(vm, r.id)
	return r.s.cfg.RetrievePerThread
}

// Done lets the ending thread go.
func (r retrieveEndOp) Done(vm sim.Agent, _ sim.Time) {
	if vm.State(r.id) == sim.Parked {
		vm.Unpark(r.id)
	}
}

// OnJobDone advances the agent's work (costed mode).
func (s *hoferSampler) OnJobDone(vm sim.Agent, _ sim.ThreadID, tag int64) {
	switch tag {
	case tagRequest:
		s.request()
	case tagProcess:
		s.next(vm)
	}
}

type retrieveOp struct{ s *hoferSampler }

func (r retrieveOp) Run(vm sim.Agent, at sim.Time) sim.Time {
	return r.s.cfg.FrameCost * sim.Time(r.s.retrieveAll(vm))
}
func (r retrieveOp) Done(sim.Agent, sim.Time) {}

// Result returns the profile (ISPS retrieves the remaining traces first,
// at no cost: the run is over). Measures: FramesDecodedPerSample.
func (s *hoferSampler) Result() *Result {
	if s.cfg.Incremental {
		s.retrieveAll(s.env.VM)
	}
	r := s.rec.result()
	per := 0.0
	if s.samples > 0 {
		per = float64(s.decoded) / float64(s.samples)
	}
	r.Costs.Measures = map[Measure]float64{FramesDecodedPerSample: per}
	if s.cfg.Incremental {
		r.Costs.Measures[ThreadEndRetrieves] = float64(s.endRetrieves)
	}
	if s.env.Mode == Costed {
		r.Costs.AgentCPU = threadCPU(s.env.VM, s.agent)
		for _, rec := range s.env.Safepoints.Records() {
			if !s.sampleReqs[rec.ID] && !s.retrieveReqs[rec.ID] {
				continue
			}
			if s.sampleReqs[rec.ID] {
				r.Costs.Latencies = append(r.Costs.Latencies, int64(rec.End-rec.Requested))
			} else {
				r.Costs.AgentCPU += rec.End - rec.Safe
			}
			for _, p := range rec.Pauses {
				r.Costs.Pauses += p.Resumed - p.Stopped
			}
		}
	}
	return r
}

var _ IntervalSetter = (*hoferSampler)(nil)

// TracesSamples: hoferSampler tells Env.Trace each sample's story.
func (s *hoferSampler) TracesSamples() {}

var _ Traceable = (*hoferSampler)(nil)
