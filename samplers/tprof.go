package samplers

import (
	"fmt"
	"math/rand/v2"

	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/sim"
)

// TprofConfig configures tprof, Mytkowicz et al.'s random sampler.
type TprofConfig struct {
	// Interval t and Jitter r: the next sample comes t + U(−r, r) after
	// the previous one. Interval > 0, 0 ≤ Jitter < Interval.
	Interval, Jitter sim.Time
	// SignalCost stalls each sampled thread (the signal handler);
	// AgentPerSample is the sampling thread's CPU per tick.
	SignalCost, AgentPerSample sim.Time
}

// DefaultTprofConfig is the paper's t = 10 ms, r = 3 ms.
func DefaultTprofConfig() TprofConfig {
	return TprofConfig{Interval: 10 * sim.Millisecond, Jitter: 3 * sim.Millisecond,
		SignalCost: 5 * sim.Microsecond, AgentPerSample: 5 * sim.Microsecond}
}

// Validate names the first invalid field.
func (c TprofConfig) Validate() error {
	switch {
	case c.Interval <= 0:
		return fmt.Errorf("interval: %v must be > 0", c.Interval)
	case c.Jitter < 0 || c.Jitter >= c.Interval:
		return fmt.Errorf("jitter: %v must be in [0, interval)", c.Jitter)
	case c.SignalCost < 0 || c.AgentPerSample < 0:
		return fmt.Errorf("costs must be ≥ 0")
	}
	return nil
}

func init() {
	Register(Info{Name: "tprof", Description: "Mytkowicz's tprof: random interval 10 ms ± 3 ms, exact position, leaf compiled method only, interpreted code as one bucket",
		New: func() Sampler { return NewTprof(DefaultTprofConfig()) }})
}

// Tprof interrupts running threads at random times and records the method
// whose code they are executing. Like the paper's prototype it maps code
// addresses to methods: samples in inlined code go to the method they were
// compiled into, and interpreted code is one "<interpreted>" bucket.
type Tprof struct {
	cfg         TprofConfig
	env         *Env
	rec         *recorder
	rng         *rand.Rand
	timer       sim.TimerID
	agent       sim.ThreadID
	interpreted int
}

// NewTprof creates a tprof sampler.
func NewTprof(cfg TprofConfig) *Tprof { return &Tprof{cfg: cfg} }

// Name is "tprof".
func (s *Tprof) Name() string { return "tprof" }

// Attach starts the random timer.
func (s *Tprof) Attach(env *Env) error {
	if err := s.cfg.Validate(); err != nil {
		return fmt.Errorf("sampler tprof: %w", err)
	}
	s.env = env
	s.rec = newRecorder(env, "tprof", s.cfg.Interval)
	s.interpreted = s.rec.b.Func(profile.Function{Name: "<interpreted>", Class: "<interpreted>", Method: "<interpreted>"})
	s.rng = sim.Stream(env.Seed, "sampler/tprof")
	s.timer = env.VM.AddTimer(s)
	if env.Mode == Costed {
		s.agent = env.VM.NewServiceThread("tprof sampler", s)
	}
	env.VM.ScheduleTimer(s.timer, s.next(0), 0)
	return nil
}

func (s *Tprof) next(now sim.Time) sim.Time {
	d := s.cfg.Interval
	if s.cfg.Jitter > 0 {
		d += sim.Time(s.rng.Int64N(int64(2*s.cfg.Jitter)+1)) - s.cfg.Jitter
	}
	return now + d
}

// OnTimer samples every running application thread.
func (s *Tprof) OnTimer(vm *sim.VM, at sim.Time, _ int64) {
	s.rec.costs.Requested++
	s.rec.costs.Ticks = append(s.rec.costs.Ticks, int64(at))
	for _, id := range appThreads(vm, sim.Running) {
		s.rec.buf = vm.Stack(id, s.rec.buf[:0])
		if len(s.rec.buf) == 0 {
			continue
		}
		leaf := physicalRoot(s.rec.buf)
		fn := s.rec.fn[leaf.Method]
		if leaf.Tier == sim.Interpreted {
			fn = s.interpreted
		}
		s.rec.add([]profile.Frame{{Func: fn}}, id, s.cfg.Interval)
		if s.env.Mode == Costed {
			vm.Stall(id, s.cfg.SignalCost)
			s.rec.costs.Stall += s.cfg.SignalCost
		}
	}
	if s.env.Mode == Costed {
		vm.SubmitJob(s.agent, s.cfg.AgentPerSample, 0)
	}
	vm.ScheduleTimer(s.timer, s.next(at), 0)
}

// OnJobDone is the sampling thread going back to sleep.
func (s *Tprof) OnJobDone(*sim.VM, sim.ThreadID, int64) {}

// Result returns the profile and costs.
func (s *Tprof) Result() *Result {
	r := s.rec.result()
	if s.env.Mode == Costed {
		r.Costs.AgentCPU = threadCPU(s.env.VM, s.agent)
	}
	return r
}
