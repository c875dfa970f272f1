package samplers

import (
	"fmt"

	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/sim"
)

// AsyncConfig configures the AsyncGetCallTrace-style sampler.
type AsyncConfig struct {
	// Interval is the CPU-time sampling period. > 0.
	Interval sim.Time `key:"interval" check:">0" doc:"sampling period (a signal to every running thread each period)" src:"async-profiler: interval 10 ms (-i / interval=10ms)"`
	// Jitter is the mean lateness of a tick (timerJitter); ticks re-arm
	// on their grid, as a CPU-time itimer or perf event does.
	Jitter sim.Time `key:"jitter" check:">=0" doc:"mean lateness of a timer tick, exponential; ticks stay on their grid (0: a perfect grid)" src:"tools/timer-jitter (c): async-profiler's default cpu mode is a perf cpu-clock event, an hrtimer; a CLOCK_MONOTONIC timer's ticks keep their grid, late beyond the earliest by median 8.6 us, mean 11.3 and sd 9.3 us between p1 and p99: mean 10 us. Its itimer/ctimer modes fire on the 4 ms jiffy instead: jitter=2ms has that mean, not its 8/12 ms alternation"`
	// Depth keeps at most this many frames nearest the leaf (0: all).
	Depth int `key:"depth" check:">=0" unit:"frames" doc:"stack depth limit, frames nearest the leaf (0: unlimited)" src:"async-profiler: jstackdepth=2048"`
	// DebugInfo resolves a compiled frame's position through the JIT's
	// debug information, as AsyncGetCallTrace must; false records the
	// exact position (an oracle no real profiler has).
	DebugInfo bool `key:"debug_info" doc:"resolve compiled positions through debug information (false: exact positions, an oracle)" src:"AsyncGetCallTrace (forte.cpp) resolves pcs through PcDescs"`
	// HandlerBase + HandlerPerFrame × frames stall the sampled thread (the
	// signal handler walking its own stack).
	HandlerBase     sim.Time `key:"handler_base" check:">=0" doc:"signal handler cost per sample on the sampled thread (costed mode)" src:"our choice: a signal delivery and AsyncGetCallTrace setup, ~2 us"`
	HandlerPerFrame sim.Time `key:"handler_per_frame" check:">=0" doc:"handler cost per frame walked (costed mode)" src:"our choice: ~50 ns per frame"`
}

// DefaultAsyncConfig is async-profiler's default 10 ms cpu interval.
func DefaultAsyncConfig() AsyncConfig {
	return AsyncConfig{Interval: 10 * sim.Millisecond, Jitter: HRTimerJitter, Depth: 2048, DebugInfo: true, HandlerBase: 2 * sim.Microsecond, HandlerPerFrame: 50}
}

// Validate names the first invalid field.
func (c AsyncConfig) Validate() error {
	return param.Check(&c)
}

func init() {
	Register(Info{Name: "async", Description: "async-profiler/AsyncGetCallTrace: signal at the exact position every 10 ms, frames resolved through debug info (skid without DebugNonSafepoints)",
		Config: func() any { c := DefaultAsyncConfig(); return &c },
		Build:  func(label string, cfg any) Sampler { return NewAsyncNamed(label, *cfg.(*AsyncConfig)) }})
}

// Async interrupts running threads at their exact position and walks the
// stack the way AsyncGetCallTrace does: a compiled frame's position is
// resolved through the JIT's debug information, so without
// DebugNonSafepoints it moves to the nearest preceding recorded position,
// dropping inlined frames that have none.
type Async struct {
	name  string
	cfg   AsyncConfig
	tick  gridTicker
	env   *Env
	rec   *recorder
	timer sim.TimerID
}

// NewAsync creates an async sampler.
func NewAsync(cfg AsyncConfig) *Async { return NewAsyncNamed("async", cfg) }

// NewAsyncNamed creates an async sampler reported under name.
func NewAsyncNamed(name string, cfg AsyncConfig) *Async { return &Async{name: name, cfg: cfg} }

// Name is the sampler's label ("async" unless labelled).
func (s *Async) Name() string { return s.name }

// Attach starts the timer.
func (s *Async) Attach(env *Env) error {
	if err := s.cfg.Validate(); err != nil {
		return fmt.Errorf("sampler %s: %w", s.name, err)
	}
	s.env = env
	s.rec = newRecorder(env, s.name, s.cfg.Interval)
	s.timer = env.VM.AddTimer(s)
	s.tick = gridTicker{period: s.cfg.Interval, jitter: newTimerJitter(env, s.name, s.cfg.Jitter)}
	env.VM.ScheduleTimer(s.timer, s.tick.first(), 0)
	return nil
}

// OnTimer samples every running application thread.
func (s *Async) OnTimer(vm *sim.VM, at sim.Time, _ int64) {
	s.rec.costs.Requested++
	s.rec.costs.Ticks = append(s.rec.costs.Ticks, int64(at))
	for _, id := range appThreads(vm, sim.Running) {
		s.rec.buf = vm.Stack(id, s.rec.buf[:0])
		if len(s.rec.buf) == 0 {
			continue
		}
		stack := s.rec.buf
		if s.cfg.DebugInfo {
			stack = ResolveDebugInfo(stack)
		}
		s.rec.add(s.rec.exact(stack, s.cfg.Depth), id, s.cfg.Interval)
		if s.env.Mode == Costed {
			d := s.cfg.HandlerBase + s.cfg.HandlerPerFrame*sim.Time(len(stack))
			vm.Stall(id, d)
			s.rec.costs.Stall += d
		}
	}
	vm.ScheduleTimer(s.timer, s.tick.next(at), 0)
}

// Result returns the profile and costs.
func (s *Async) Result() *Result { return s.rec.result() }

// ResolveDebugInfo maps an exact stack to what debug information can tell:
// the leaf physical frame's innermost frame moves to the nearest preceding
// position with a record in its code; an inlined frame with none before
// the position is dropped and the search continues in its caller. Callers
// are at call sites, which always have records. stack is modified and
// returned (possibly shorter).
func ResolveDebugInfo(stack []sim.StackFrame) []sim.StackFrame {
	root := len(stack) - 1
	for root > 0 && stack[root].Inlined {
		root--
	}
	for k := len(stack) - 1; k >= root; k-- {
		f := &stack[k]
		dbg := f.Code.Debug
		if dbg == nil {
			return stack[:k+1] // every position recorded: exact
		}
		for pc := f.PC; pc >= 0; pc-- {
			if dbg[pc] {
				f.Line = f.Code.Instrs[pc].Line
				return stack[:k+1]
			}
		}
	}
	return stack[:root+1] // unreachable for compiled roots: their entry is recorded
}
