package samplers

import (
	"fmt"
	"math/rand/v2"

	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/sim"
)

// Async's engines: how async-profiler 4.5 decides which thread to signal
// and when (its -e / event= option).
const (
	// EngineCPU is a perf_events cpu-clock event per thread
	// (perfEvents_linux.cpp, PERF_COUNT_SW_CPU_CLOCK): an hrtimer that runs
	// while the thread is on a CPU and signals it after each interval of
	// its own CPU time.
	EngineCPU = "cpu"
	// EngineCTimer is a timer_create timer per thread on its CPU clock
	// (ctimer_linux.cpp, CPUCLOCK_SCHED | CPUCLOCK_PERTHREAD): the kernel
	// checks it at its ticks while the thread runs; periods crossed
	// between ticks are one signal, weighed by 1 + si_overrun.
	EngineCTimer = "ctimer"
	// EngineITimer is one process-wide setitimer(ITIMER_PROF) (itimer.cpp):
	// the process's CPU time, charged a tick at a time to the thread on
	// each CPU at that tick (CONFIG_TICK_CPU_ACCOUNTING), and the signal
	// goes to the thread whose tick crossed the expiry (check_cpu_itimer
	// in kernel/time/posix-cpu-timers.c, current thread preferred).
	EngineITimer = "itimer"
	// EngineWall is a timer thread that signals every thread, running or
	// not, once per interval, at most threads_per_tick at a time, the
	// batches spread evenly over the interval (wallClock.cpp timerLoop).
	EngineWall = "wall"
)

// asyncConfig configures the async-profiler sampler.
type asyncConfig struct {
	// Engine is async-profiler's event: EngineCPU, EngineCTimer,
	// EngineITimer or EngineWall.
	Engine string `key:"engine" doc:"cpu (perf cpu-clock per thread, CPU time, exact) | ctimer (per-thread CPU timer checked at the kernel tick) | itimer (one process CPU timer, tick-charged; the signal goes to the thread whose tick crossed it) | wall (every thread, any state, each interval)" src:"async-profiler 4.5: -e cpu (default; perf_events, ctimer where unavailable), itimer, ctimer, wall"`
	// Interval is the sampling period: CPU time per thread (cpu, ctimer),
	// process CPU time (itimer), wall time (wall). > 0.
	Interval sim.Time `key:"interval" check:"1us..max" doc:"sampling period: each thread's CPU time (cpu, ctimer), the process's CPU time (itimer), wall time (wall)" src:"async-profiler: interval 10 ms (-i / interval=10ms), also for wall when given"`
	// Jitter is the mean lateness of a signal: the cpu engine's hrtimer
	// and the wall engine's timer thread. ctimer and itimer fire at the
	// kernel tick instead (tick_interval).
	Jitter sim.Time `key:"jitter" check:"0..1h" doc:"mean lateness of a signal, exponential (cpu and wall engines; ctimer and itimer fire at the kernel tick)" src:"tools/timer-jitter (c): a perf cpu-clock event is an hrtimer; a CLOCK_MONOTONIC timer's ticks keep their grid, late beyond the earliest by median 8.6 us, mean 11.3 and sd 9.3 us between p1 and p99: mean 10 us"`
	// Tick is the kernel's timer tick, at which ctimer and itimer expire.
	Tick sim.Time `key:"tick_interval" check:"1us..max" doc:"kernel tick at which ctimer's and itimer's CPU timers are checked (run_posix_cpu_timers) and itimer's process time is charged" src:"Linux CONFIG_HZ=250 (this machine's kernel 6.18, CONFIG_TICK_CPU_ACCOUNTING): 4 ms; tools/timer-jitter (c) finds async-profiler's ctimer on the 4 ms jiffy"`
	// ThreadsPerTick bounds the threads the wall engine signals at once.
	ThreadsPerTick int `key:"threads_per_tick" check:">=1" unit:"threads" doc:"wall: threads signalled per batch; the batches of an interval are spread evenly over it" src:"async-profiler 4.5 wallClock.cpp THREADS_PER_TICK = 8"`
	// Depth keeps at most this many frames nearest the leaf (0: all).
	Depth int `key:"jstackdepth" check:">=0" unit:"frames" doc:"Java stack depth limit, frames nearest the leaf (0: unlimited)" src:"async-profiler 4.5 arguments.h DEFAULT_JSTACKDEPTH = 2048"`
	// Oracle records exact positions; false (the default) names a
	// compiled frame's position through the JIT's debug information, as
	// AsyncGetCallTrace and async-profiler's walker must.
	Oracle bool `key:"oracle" doc:"an oracle no real profiler has: record exact positions instead of naming them through the JIT's debug information (false: as the real profiler does)" src:"AsyncGetCallTrace (forte.cpp is_decipherable_compiled_frame) resolves the top pc with pc_desc_near(pc + 1); async-profiler 4.5's own walker (stackWalker.cpp walkVM, NMethod::findScopeOffset) takes the first PcDesc at or after the pc: the same record in profsim's statement-level positions"`
	// HandlerBase + HandlerPerFrame × frames stall the sampled thread (the
	// signal handler walking its own stack).
	HandlerBase     sim.Time `key:"handler_base" check:"0..max" doc:"signal handler cost per sample on the sampled thread (costed mode)" src:"our choice: a signal delivery and AsyncGetCallTrace setup, ~2 us"`
	HandlerPerFrame sim.Time `key:"handler_per_frame" check:"0..1s" doc:"handler cost per frame walked (costed mode)" src:"our choice: ~50 ns per frame"`
}

// defaultAsyncConfig is async-profiler's default: the cpu engine, 10 ms.
func defaultAsyncConfig() asyncConfig {
	return asyncConfig{Engine: EngineCPU, Interval: 10 * sim.Millisecond, Jitter: HRTimerJitter, Tick: 4 * sim.Millisecond, ThreadsPerTick: 8, Depth: 2048, HandlerBase: 2 * sim.Microsecond, HandlerPerFrame: 50}
}

// Validate names the first invalid field.
func (c asyncConfig) Validate() error {
	if err := param.Check(&c); err != nil {
		return err
	}
	switch c.Engine {
	case EngineCPU, EngineCTimer, EngineITimer, EngineWall:
		return nil
	}
	return fmt.Errorf("engine: %q is not one of cpu, ctimer, itimer, wall", c.Engine)
}

func init() {
	Register(Info{Name: "async", Description: "async-profiler 4.5: a signal at the exact position, by engine (cpu: each thread every 10 ms of its CPU time; ctimer, itimer, wall), frames resolved through debug info (skid without DebugNonSafepoints)",
		Config: func() any { c := defaultAsyncConfig(); return &c },
		Build:  func(label string, cfg any) Sampler { return newAsync(label, *cfg.(*asyncConfig)) }})
}

// cpuRecheckDivisor: the cpu engine re-checks threads that were not
// running at its last check every interval / cpuRecheckDivisor, so a
// thread that starts running between checks and crosses its expiry
// before the next is signalled up to that much late (1 ms at 10 ms). A
// thread running at a check is signalled exactly when it crosses.
const cpuRecheckDivisor = 10

// asyncSampler interrupts threads at their exact position and walks the stack
// the way async-profiler does: a compiled frame's position is resolved
// through the JIT's debug information (ResolveDebugInfo), so without
// DebugNonSafepoints it moves to the first recorded position at or after
// it, with that record's inlined frames; a top frame past its method's
// last record is recorded as its compiled method at bci 0 (counted in
// Costs.Undecipherable). Which threads are signalled, and when, is the
// engine's (EngineCPU, EngineCTimer, EngineITimer, EngineWall). A sample
// weighs one interval (ctimer: 1 + overrun intervals).
type asyncSampler struct {
	name  string
	cfg   asyncConfig
	env   *Env
	rec   *recorder
	timer sim.TimerID
	// resolved is ResolveDebugInfo's buffer.
	resolved []sim.StackFrame
	// expiry is each thread's next expiry in its own CPU time (cpu,
	// ctimer); seen marks the threads it holds.
	expiry []sim.Time
	seen   []bool
	// late draws the cpu and wall engines' signal lateness.
	late timerJitter
	// next is the cpu engine's next check, the jiffy's or the wall
	// engine's next batch.
	next sim.Time
	// process and procExpiry are itimer's charged process CPU time and
	// its expiry; order is its seeded stream for the order of the CPUs'
	// ticks.
	process, procExpiry sim.Time
	order               *rand.Rand
	// wall: the current cycle's start, its threads and the position in
	// them.
	cycle   sim.Time
	threads []sim.ThreadID
	pos     int
	ids     []sim.ThreadID
}

// newAsync creates an async sampler reported under name.
func newAsync(name string, cfg asyncConfig) *asyncSampler { return &asyncSampler{name: name, cfg: cfg} }

// Name is the sampler's label ("async" unless labelled).
func (s *asyncSampler) Name() string { return s.name }

// Attach starts the engine.
func (s *asyncSampler) Attach(env *Env) error {
	if err := s.cfg.Validate(); err != nil {
		return fmt.Errorf("sampler %s: %w", s.name, err)
	}
	s.env = env
	s.rec = newRecorder(env, s.name, s.cfg.Interval)
	s.timer = env.VM.AddTimer(s)
	s.late = newTimerJitter(env, s.name, s.cfg.Jitter)
	now := env.VM.Now()
	// Timers exist for the threads already running from now on; a thread
	// started later starts its own at its first instruction (CPU time 0).
	for id := sim.ThreadID(0); int(id) < env.VM.NumThreads(); id++ {
		s.expiryOf(env.VM, id)
	}
	switch s.cfg.Engine {
	case EngineCPU:
		s.next = now + s.cpuNext(env.VM)
	case EngineCTimer, EngineITimer:
		s.next = (now/s.cfg.Tick + 1) * s.cfg.Tick
		s.procExpiry = s.cfg.Interval
		s.order = sim.Stream(env.Seed, "sampler/"+s.name+"/itimer")
	case EngineWall:
		// The first cycle an interval after the start, as every
		// sampler's first tick here (async-profiler's timerLoop signals
		// its first batch at once).
		s.cycle = now + s.cfg.Interval
		s.next = s.cycle + s.late.late()
	}
	env.VM.ScheduleTimer(s.timer, s.next, 0)
	return nil
}

// expiryOf is thread id's next expiry in its own CPU time, first set an
// interval past its CPU time when the sampler first sees it.
func (s *asyncSampler) expiryOf(vm sim.Agent, id sim.ThreadID) sim.Time {
	for int(id) >= len(s.expiry) {
		s.expiry, s.seen = append(s.expiry, 0), append(s.seen, false)
	}
	if !s.seen[id] {
		s.seen[id] = true
		s.expiry[id] = vm.ThreadCPU(id) + s.cfg.Interval
	}
	return s.expiry[id]
}

// cpuNext is how long until the cpu engine's next check: the least CPU
// time a running thread needs to reach its expiry, at most the recheck
// period.
func (s *asyncSampler) cpuNext(vm sim.Agent) sim.Time {
	next := max(s.cfg.Interval/cpuRecheckDivisor, 1)
	for _, id := range s.running(vm) {
		if r := s.expiryOf(vm, id) - vm.ThreadCPU(id); r < next {
			next = max(r, 1)
		}
	}
	return next
}

// running lists the profiled threads on a CPU, into s.ids.
func (s *asyncSampler) running(vm sim.Agent) []sim.ThreadID {
	s.ids = s.ids[:0]
	for id := sim.ThreadID(0); int(id) < vm.NumThreads(); id++ {
		if vm.Profiled(id) && vm.State(id) == sim.Running {
			s.ids = append(s.ids, id)
		}
	}
	return s.ids
}

// OnTimer runs the engine's timer.
func (s *asyncSampler) OnTimer(vm sim.Agent, at sim.Time, _ int64) {
	s.rec.late = at - s.next
	switch s.cfg.Engine {
	case EngineCPU:
		s.onCPU(vm, at)
	case EngineCTimer:
		s.onCTimer(vm, at)
	case EngineITimer:
		s.onITimer(vm, at)
	case EngineWall:
		s.onWall(vm, at)
	}
}

// onCPU signals every running thread whose CPU time reached its expiry
// (an hrtimer forwarded past the present: one signal), then waits for the
// next one.
func (s *asyncSampler) onCPU(vm sim.Agent, at sim.Time) {
	for _, id := range s.running(vm) {
		cpu := vm.ThreadCPU(id)
		if exp := s.expiryOf(vm, id); cpu >= exp {
			for exp <= cpu {
				exp += s.cfg.Interval
			}
			s.expiry[id] = exp
			s.signal(vm, at, id, s.cfg.Interval)
		}
	}
	s.next = at + s.cpuNext(vm)
	vm.ScheduleTimer(s.timer, s.next+s.late.late(), 0)
}

// onCTimer is a kernel tick: every running thread past its expiry gets
// one signal, weighed by the periods it crossed.
func (s *asyncSampler) onCTimer(vm sim.Agent, at sim.Time) {
	for _, id := range s.running(vm) {
		cpu := vm.ThreadCPU(id)
		exp := s.expiryOf(vm, id)
		if cpu < exp {
			continue
		}
		n := sim.Time(0)
		for exp <= cpu {
			exp += s.cfg.Interval
			n++
		}
		s.expiry[id] = exp
		s.signal(vm, at, id, n*s.cfg.Interval)
	}
	s.next += s.cfg.Tick
	vm.ScheduleTimer(s.timer, s.next, 0)
}

// onITimer is a kernel tick on every CPU, in an order drawn from the
// sampler's stream: each running thread of the process (service threads
// included: the JIT's and the VM's) is charged a tick, and the thread
// whose charge reaches the expiry gets the signal; the expiry moves one
// interval (check_cpu_itimer). A signal to a service thread is no sample
// of the program.
func (s *asyncSampler) onITimer(vm sim.Agent, at sim.Time) {
	s.ids = s.ids[:0]
	for id := sim.ThreadID(0); int(id) < vm.NumThreads(); id++ {
		if st := vm.State(id); st == sim.Running || st == sim.Stalled {
			s.ids = append(s.ids, id)
		}
	}
	s.order.Shuffle(len(s.ids), func(i, j int) { s.ids[i], s.ids[j] = s.ids[j], s.ids[i] })
	for _, id := range s.ids {
		s.process += s.cfg.Tick
		if s.process < s.procExpiry {
			continue
		}
		s.procExpiry += s.cfg.Interval
		if !vm.Profiled(id) {
			s.rec.costs.Requested++
			continue
		}
		s.signal(vm, at, id, s.cfg.Interval)
	}
	s.next += s.cfg.Tick
	vm.ScheduleTimer(s.timer, s.next, 0)
}

// onWall signals the next batch of the cycle's threads, whatever their
// state, and sleeps until the next batch's share of the interval has
// passed (a new cycle, and a fresh thread list, once all are done).
func (s *asyncSampler) onWall(vm sim.Agent, at sim.Time) {
	if s.pos == 0 {
		s.threads = s.threads[:0]
		for id := sim.ThreadID(0); int(id) < vm.NumThreads(); id++ {
			if st := vm.State(id); vm.Profiled(id) && st != sim.NotStarted && st != sim.Terminated {
				s.threads = append(s.threads, id)
			}
		}
	}
	end := min(s.pos+s.cfg.ThreadsPerTick, len(s.threads))
	for _, id := range s.threads[s.pos:end] {
		s.signal(vm, at, id, s.cfg.Interval)
	}
	s.pos = end
	if s.pos < len(s.threads) {
		s.next = s.cycle + s.cfg.Interval*sim.Time(s.pos)/sim.Time(len(s.threads))
	} else {
		s.pos = 0
		s.cycle += s.cfg.Interval
		s.next = s.cycle
	}
	s.next = max(s.next, at+wallMinSleep)
	vm.ScheduleTimer(s.timer, s.next+s.late.late(), 0)
}

// wallMinSleep is the wall engine's shortest sleep between batches.
// async-profiler 4.5 wallClock.cpp MIN_INTERVAL = 100 µs.
const wallMinSleep = 100 * sim.Microsecond

// signal samples thread id at its present position, as the signal
// handler walks it, weighing weight.
func (s *asyncSampler) signal(vm sim.Agent, at sim.Time, id sim.ThreadID, weight sim.Time) {
	s.rec.costs.Requested++
	if n := len(s.rec.costs.Ticks); n == 0 || s.rec.costs.Ticks[n-1] != int64(at) {
		s.rec.costs.Ticks = append(s.rec.costs.Ticks, int64(at))
	}
	s.rec.buf = vm.Stack(id, s.rec.buf[:0])
	if len(s.rec.buf) == 0 {
		return
	}
	stack := s.rec.buf
	if !s.cfg.Oracle {
		var ok bool
		s.resolved, ok = ResolveDebugInfo(stack, s.resolved)
		stack = s.resolved
		if !ok {
			s.rec.costs.Undecipherable++
		}
	}
	frames := s.rec.exact(stack, s.cfg.Depth)
	s.rec.add(frames, id, weight)
	s.rec.note(id, s.rec.buf, frames, s.cfg.Engine+" signal", !s.cfg.Oracle)
	if s.env.Mode == Costed && vm.State(id) == sim.Running {
		d := s.cfg.HandlerBase + s.cfg.HandlerPerFrame*sim.Time(len(stack))
		vm.Stall(id, d)
		s.rec.costs.Stall += d
	}
}

// Result returns the profile and costs.
func (s *asyncSampler) Result() *Result { return s.rec.result() }

// ResolveDebugInfo maps an exact stack to what a stack walk through C2's
// debug information reports, as AsyncGetCallTrace and JFR find it (HotSpot
// 17: is_decipherable_compiled_frame in prims/forte.cpp,
// JfrGetCallTrace::find_top_frame in jfr/periodic/sampling/jfrCallTrace.cpp).
// Both look the top compiled frame's pc up with pc_desc_near(pc + 1): the
// first PcDesc whose offset is greater than the pc (match_desc in
// code/nmethod.cpp: prev.offset < pc+1 ≤ offset), because a PcDesc marks the
// end of the code it describes (a call's is its return address;
// DebugNonSafepoints' records are at the end of each instruction). A frame
// at statement p is inside p's code, strictly before its end, and
// sim.Code.Debug marks the statements whose code ends in a PcDesc, so the
// frame resolves to the first marked statement at or after p in code order:
// inlined bodies are laid out at their call site, each call's inlined
// versions in order, then the call's own record (its fallback call or
// uncommon trap). The stack returned has that record's scope chain — the
// physical root's method at the record's statement and an inlined frame per
// inlined scope, each at its own line — which may be deeper or shallower
// than the exact stack. The frames below the top physical frame are at call
// sites, whose return addresses have exact PcDescs (vframeStream's
// pc_desc_at), and are kept as they are.
//
// Compiled code that allocates, or has uncommon traps of its own
// (sim.Code.Traps), always has a record past its body: C2 places the
// allocations' slow-path calls and then the trap calls, each with a
// PcDesc, after the return (opto/output.cpp fill_buffer emits the blocks
// in PhaseCFG's order, remove_empty_blocks having moved the uncommon ones
// last; the return poll itself has no PcDesc). A top frame with no record
// left in line resolves to the first allocation of the compiled root's
// code, inlined bodies included, with its scopes (firstAlloc); without
// one, to the method itself at the statement the first trap names
// (trapStatement), with no inlined frame. Measured on OpenJDK 17
// (tools/debuginfo): mode hotcold, HotCold.hot not inlined, every JFR
// sample of it at line 12; modes alloc and allocTrap, the samples past
// the last call at the first allocation's line, before the traps.
// The allocations' slow paths are records there only: the code in line
// has none at an allocation (jit's placeDebugInfo).
//
// A top frame with no record at or after its position (past the last
// PcDesc: pc_desc_near finds only the upper sentinel, whose scope is
// serialized_null, DebugInformationRecorder::pcs_size in
// code/debugInfoRec.cpp) is undecipherable: ok is false. AsyncGetCallTrace
// still walks it — vframeStreamCommon::fill_from_frame
// (runtime/vframe.inline.hpp) fills a compiled frame without a PcDesc at
// its pc as a native one, the compiled method at bci 0 with no inlined
// frames — and that stack is returned; JFR's find_top_frame returns false
// and the sample is not taken.
//
// An interpreted top frame is at the bytecode pointer saved in it
// (sim.StackFrame.BCP: its entry, its last call or its last poll into the
// VM), not where it runs: both read the frame's bcp slot
// (is_decipherable_interpreted_frame in forte.cpp; JFR's vframe stream),
// and the template interpreter updates it only there. Measured on OpenJDK
// 17 with JFR (tools/interpreter, bcp.sh): every sample of an interpreted
// loop without calls is at bci 0, of one with a call at the invoke.
// Interpreted frames below the top are at their call sites, exact; so are
// compiled frames with Debug nil (DebugNonSafepoints).
// The result is appended to out[:0]; stack is not modified.
func ResolveDebugInfo(stack, out []sim.StackFrame) (resolved []sim.StackFrame, ok bool) {
	out = out[:0]
	if len(stack) == 0 {
		return out, true
	}
	if top := stack[len(stack)-1]; top.Tier == sim.Interpreted {
		out = append(out, stack...)
		if top.BCP != top.PC {
			f := &out[len(out)-1]
			f.PC, f.Line, f.Node = top.BCP, top.Code.Instrs[top.BCP].Line, -1
		}
		return out, true
	}
	root := len(stack) - 1
	for root > 0 && stack[root].Inlined {
		root--
	}
	// The top frame at a call with inlined versions has returned from
	// them, or is in the fallback call: past the inlined bodies.
	k := len(stack) - 1
	pc, from := stack[k].PC, 0
	if c := stack[k].Code; c.Inline != nil {
		from = len(c.Inline[pc])
	}
	var path []hop
	for {
		var found bool
		if path, found = firstRecord(stack[k].Code, pc, from, path[:0]); found {
			break
		}
		if k == root {
			c := stack[root].Code
			if p, ok := firstAlloc(c, path[:0]); ok {
				// The first allocation's slow path after the return.
				path = p
				break
			}
			if c.Traps {
				// The first uncommon trap's PcDesc after the return.
				path = append(path[:0], hop{c, trapStatement(c)})
				break
			}
			// Undecipherable: AsyncGetCallTrace's native-frame fill.
			out = append(out, stack[:root]...)
			f := stack[root]
			f.PC, f.Line = 0, f.Code.Instrs[0].Line
			return append(out, f), false
		}
		// Past the end of an inlined body: on in its caller, after this
		// inlined version.
		k--
		pc = stack[k].PC
		from = 0
		for i, v := range stack[k].Code.Inline[pc] {
			if v == stack[k+1].Code {
				from = i + 1
			}
		}
	}
	out = append(out, stack[:k]...)
	for i, h := range path {
		f := stack[k]
		if i > 0 {
			f = sim.StackFrame{Method: h.code.Method, Inlined: true, Tier: f.Tier}
		}
		if i > 0 || h.pc != f.PC {
			f.Node = -1 // not the exact position's CCT node
		}
		f.Code, f.PC, f.Line = h.code, h.pc, h.code.Instrs[h.pc].Line
		out = append(out, f)
	}
	return out, true
}

// trapStatement is the statement the first out-of-line uncommon trap of c
// names: its last statement before the closing return (HotCold.hot's first
// trap is its last line's iaload range check: C2 lays the trap blocks out
// after the body, PhaseCFG::remove_empty_blocks in opto/block.cpp moving
// uncommon blocks to the end, and JfrGetCallTrace::find_top_frame moves
// the frame's pc to that PcDesc's, real_pc, whose scope the walk decodes).
func trapStatement(c *sim.Code) int32 {
	pc := int32(len(c.Instrs)) - 1
	for pc > 0 && c.Instrs[pc].Op == sim.OpReturn {
		pc--
	}
	return pc
}

// hop is one scope of a debug record: a statement of a code version.
type hop struct {
	code *sim.Code
	pc   int32
}

// firstRecord appends to path the scopes of the first record in c at or
// after statement pc in code order — the inlined versions of each call from
// index from (at pc; 0 further on), then the statement's own record — and
// reports whether one exists before c's end.
func firstRecord(c *sim.Code, pc int32, from int, path []hop) ([]hop, bool) {
	for ; pc < int32(len(c.Instrs)); pc, from = pc+1, 0 {
		if c.Inline != nil {
			for _, v := range c.Inline[pc][min(from, len(c.Inline[pc])):] {
				if p, ok := firstRecord(v, 0, 0, append(path, hop{c, pc})); ok {
					return p, true
				}
			}
		}
		if c.Debug == nil || c.Debug[pc] {
			return append(path, hop{c, pc}), true
		}
	}
	return path, false
}

// firstAlloc appends to path the scopes of c's first allocation in code
// order, inlined bodies laid out at their call sites, and reports whether
// c has one. C2 lays each allocation's slow path — a call of
// OptoRuntime's new_instance_Java or new_array_Java, with a PcDesc — out
// of line after the code's return, in the order of the allocations and
// before the uncommon traps (tools/debuginfo, modes alloc and allocTrap):
// a position past the code's last record in line resolves to the first
// allocation's.
func firstAlloc(c *sim.Code, path []hop) ([]hop, bool) {
	for pc := range int32(len(c.Instrs)) {
		if c.Inline != nil {
			for _, v := range c.Inline[pc] {
				if p, ok := firstAlloc(v, append(path, hop{c, pc})); ok {
					return p, true
				}
			}
		}
		if c.Instrs[pc].Op == sim.OpAlloc {
			return append(path, hop{c, pc}), true
		}
	}
	return path, false
}

// TracesSamples: asyncSampler tells Env.Trace each sample's story.
func (s *asyncSampler) TracesSamples() {}

var _ Traceable = (*asyncSampler)(nil)

// SamplesAtTick marks asyncSampler as TickSynchronous: OnTimer takes its
// samples.
func (s *asyncSampler) SamplesAtTick() {}

var _ TickSynchronous = (*asyncSampler)(nil)
