package samplers

import (
	"fmt"

	"github.com/profsim/profsim/sim"
)

// JFRConfig configures JDK Flight Recorder's method sampler.
type JFRConfig struct {
	// Period between sampling rounds (JFR's default 20 ms). > 0.
	Period sim.Time
	// MaxThreads is how many running threads one round samples at most
	// (JFR samples 5 Java threads per period). ≥ 1.
	MaxThreads int
	// SuspendCost + WalkPerFrame × frames is how long a sampled thread is
	// suspended; the sampler thread spends the same.
	SuspendCost, WalkPerFrame sim.Time
	// RestartEachRound is an ablation, not JFR: every round starts again
	// at the first running thread instead of where the previous one
	// stopped, so with more running threads than MaxThreads the later
	// ones are never sampled (claim X2 shows what the round-robin buys).
	RestartEachRound bool
}

// DefaultJFRConfig is JFR's default method-sampling setting.
func DefaultJFRConfig() JFRConfig {
	return JFRConfig{Period: 20 * sim.Millisecond, MaxThreads: 5, SuspendCost: 10 * sim.Microsecond, WalkPerFrame: 50}
}

// Validate names the first invalid field.
func (c JFRConfig) Validate() error {
	switch {
	case c.Period <= 0:
		return fmt.Errorf("period: %v must be > 0", c.Period)
	case c.MaxThreads < 1:
		return fmt.Errorf("max_threads: %d must be ≥ 1", c.MaxThreads)
	case c.SuspendCost < 0 || c.WalkPerFrame < 0:
		return fmt.Errorf("costs must be ≥ 0")
	}
	return nil
}

func init() {
	Register(Info{Name: "jfr", Description: "JDK Flight Recorder method sampling: every 20 ms suspend at most 5 running threads at their exact position, no safepoint, debug-info attribution",
		New: func() Sampler { return NewJFR("jfr", DefaultJFRConfig()) }})
}

// JFR suspends up to MaxThreads running threads per period, continuing
// round-robin through the thread list where the previous round stopped, and
// walks them at their exact position; like async it resolves compiled
// frames through debug information.
type JFR struct {
	name  string
	cfg   JFRConfig
	env   *Env
	rec   *recorder
	timer sim.TimerID
	agent sim.ThreadID
	next  sim.ThreadID // round-robin cursor
}

// NewJFR creates a JFR sampler; name tells several apart on one run.
func NewJFR(name string, cfg JFRConfig) *JFR { return &JFR{name: name, cfg: cfg} }

// Name is the sampler's name ("jfr" in the registry).
func (s *JFR) Name() string { return s.name }

// Config returns the configuration.
func (s *JFR) Config() JFRConfig { return s.cfg }

// Attach starts the period timer.
func (s *JFR) Attach(env *Env) error {
	if err := s.cfg.Validate(); err != nil {
		return fmt.Errorf("sampler %s: %w", s.name, err)
	}
	s.env = env
	s.rec = newRecorder(env, s.name, s.cfg.Period)
	s.timer = env.VM.AddTimer(s)
	if env.Mode == Costed {
		s.agent = env.VM.NewServiceThread("JFR Sampler Thread", s)
	}
	env.VM.ScheduleTimer(s.timer, s.cfg.Period, 0)
	return nil
}

// OnTimer samples up to MaxThreads running threads, round-robin.
func (s *JFR) OnTimer(vm *sim.VM, at sim.Time, _ int64) {
	s.rec.costs.Requested++
	s.rec.costs.Ticks = append(s.rec.costs.Ticks, int64(at))
	running := appThreads(vm, sim.Running)
	// Start at the first running thread at or after the cursor.
	start := 0
	for !s.cfg.RestartEachRound && start < len(running) && running[start] < s.next {
		start++
	}
	var work sim.Time
	for i := 0; i < len(running) && i < s.cfg.MaxThreads; i++ {
		id := running[(start+i)%len(running)]
		s.next = id + 1
		s.rec.buf = vm.Stack(id, s.rec.buf[:0])
		if len(s.rec.buf) == 0 {
			continue
		}
		stack := ResolveDebugInfo(s.rec.buf)
		s.rec.add(s.rec.exact(stack, 0), id, s.cfg.Period)
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
	vm.ScheduleTimer(s.timer, at+s.cfg.Period, 0)
}

// OnJobDone is the sampler thread finishing a round.
func (s *JFR) OnJobDone(*sim.VM, sim.ThreadID, int64) {}

// Result returns the profile and costs.
func (s *JFR) Result() *Result {
	r := s.rec.result()
	if s.env.Mode == Costed {
		r.Costs.AgentCPU = threadCPU(s.env.VM, s.agent)
	}
	return r
}
