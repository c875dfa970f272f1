package samplers

import (
	"fmt"

	"github.com/profsim/profsim/sim"
)

// AsyncConfig configures the AsyncGetCallTrace-style sampler.
type AsyncConfig struct {
	// Interval is the CPU-time sampling period. > 0.
	Interval sim.Time
	// HandlerBase + HandlerPerFrame × frames stall the sampled thread (the
	// signal handler walking its own stack).
	HandlerBase, HandlerPerFrame sim.Time
}

// DefaultAsyncConfig is async-profiler's default 10 ms cpu interval.
func DefaultAsyncConfig() AsyncConfig {
	return AsyncConfig{Interval: 10 * sim.Millisecond, HandlerBase: 2 * sim.Microsecond, HandlerPerFrame: 50}
}

// Validate names the first invalid field.
func (c AsyncConfig) Validate() error {
	switch {
	case c.Interval <= 0:
		return fmt.Errorf("interval: %v must be > 0", c.Interval)
	case c.HandlerBase < 0 || c.HandlerPerFrame < 0:
		return fmt.Errorf("costs must be ≥ 0")
	}
	return nil
}

func init() {
	Register(Info{Name: "async", Description: "async-profiler/AsyncGetCallTrace: signal at the exact position every 10 ms, frames resolved through debug info (skid without DebugNonSafepoints)",
		New: func() Sampler { return NewAsync(DefaultAsyncConfig()) }})
}

// Async interrupts running threads at their exact position and walks the
// stack the way AsyncGetCallTrace does: a compiled frame's position is
// resolved through the JIT's debug information, so without
// DebugNonSafepoints it moves to the nearest preceding recorded position,
// dropping inlined frames that have none.
type Async struct {
	cfg   AsyncConfig
	env   *Env
	rec   *recorder
	timer sim.TimerID
}

// NewAsync creates an async sampler.
func NewAsync(cfg AsyncConfig) *Async { return &Async{cfg: cfg} }

// Name is "async".
func (s *Async) Name() string { return "async" }

// Attach starts the timer.
func (s *Async) Attach(env *Env) error {
	if err := s.cfg.Validate(); err != nil {
		return fmt.Errorf("sampler async: %w", err)
	}
	s.env = env
	s.rec = newRecorder(env, "async", s.cfg.Interval)
	s.timer = env.VM.AddTimer(s)
	env.VM.ScheduleTimer(s.timer, s.cfg.Interval, 0)
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
		stack := ResolveDebugInfo(s.rec.buf)
		s.rec.add(s.rec.exact(stack, 0), id, s.cfg.Interval)
		if s.env.Mode == Costed {
			d := s.cfg.HandlerBase + s.cfg.HandlerPerFrame*sim.Time(len(stack))
			vm.Stall(id, d)
			s.rec.costs.Stall += d
		}
	}
	vm.ScheduleTimer(s.timer, at+s.cfg.Interval, 0)
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
