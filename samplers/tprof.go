package samplers

import (
	"fmt"
	"math/rand/v2"

	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/sim"
)

// tprofConfig configures tprof, Mytkowicz et al.'s random sampler.
type tprofConfig struct {
	// Interval t and Random r: the next sample comes t + U(−r, r) after
	// the previous one. Interval > 0, 0 ≤ Random < Interval.
	Interval sim.Time `key:"interval" check:"1us..max" doc:"mean time between samples t" src:"Mytkowicz et al. PLDI'10 §6.1: t = 10 ms"`
	Random   sim.Time `key:"random" check:"0..max" doc:"half-width r of the uniform randomisation: the next sample comes t + U(-r, r) later" src:"Mytkowicz et al. §6.1: r = 3 ms"`
	// SignalCost stalls each sampled thread (the signal handler);
	// AgentPerSample is the sampling thread's CPU per tick.
	SignalCost     sim.Time `key:"signal_cost" check:"0..max" doc:"signal handler cost on each sampled thread (costed mode)" src:"our choice: ~5 us"`
	AgentPerSample sim.Time `key:"agent_per_sample" check:"0..max" doc:"sampling thread's CPU per tick (costed mode)" src:"our choice: ~5 us"`
}

// defaultTprofConfig is the paper's t = 10 ms, r = 3 ms.
func defaultTprofConfig() tprofConfig {
	return tprofConfig{Interval: 10 * sim.Millisecond, Random: 3 * sim.Millisecond,
		SignalCost: 5 * sim.Microsecond, AgentPerSample: 5 * sim.Microsecond}
}

// Validate names the first invalid field.
func (c tprofConfig) Validate() error {
	if err := param.Check(&c); err != nil {
		return err
	}
	if c.Random >= c.Interval {
		return fmt.Errorf("random: %v must be < interval %v", param.FormatDuration(c.Random), param.FormatDuration(c.Interval))
	}
	return nil
}

func init() {
	Register(Info{Name: "tprof", Description: "Mytkowicz's tprof: random interval 10 ms ± 3 ms, exact position, leaf compiled method only, interpreted code as one bucket",
		Config: func() any { c := defaultTprofConfig(); return &c },
		Build:  func(label string, cfg any) Sampler { return newTprof(label, *cfg.(*tprofConfig)) }})
}

// tprofSampler interrupts running threads at random times and records the
// method whose code they are executing. Like the paper's prototype it maps
// code addresses to methods: samples in inlined code go to the method they
// were compiled into, and interpreted code is one "<interpreted>" bucket.
type tprofSampler struct {
	name        string
	cfg         tprofConfig
	env         *Env
	rec         *recorder
	rng         *rand.Rand
	timer       sim.TimerID
	agent       sim.ThreadID
	interpreted int
}

// newTprof creates a tprof sampler reported under name.
func newTprof(name string, cfg tprofConfig) *tprofSampler { return &tprofSampler{name: name, cfg: cfg} }

// Name is the sampler's label ("tprof" unless labelled).
func (s *tprofSampler) Name() string { return s.name }

// Attach starts the random timer.
func (s *tprofSampler) Attach(env *Env) error {
	if err := s.cfg.Validate(); err != nil {
		return fmt.Errorf("sampler %s: %w", s.name, err)
	}
	s.env = env
	s.rec = newRecorder(env, s.name, s.cfg.Interval)
	s.interpreted = s.rec.b.Func(profile.Function{Name: "<interpreted>", Class: "<interpreted>", Method: "<interpreted>"})
	s.rng = sim.Stream(env.Seed, "sampler/"+s.name)
	s.timer = env.VM.AddTimer(s)
	if env.Mode == Costed {
		s.agent = env.VM.NewServiceThread("tprof sampler", s)
	}
	env.VM.ScheduleTimer(s.timer, s.next(env.VM.Now()), 0)
	return nil
}

func (s *tprofSampler) next(now sim.Time) sim.Time {
	d := s.cfg.Interval
	if s.cfg.Random > 0 {
		d += sim.Time(s.rng.Int64N(int64(2*s.cfg.Random)+1)) - s.cfg.Random
	}
	return now + d
}

// OnTimer samples every running application thread.
func (s *tprofSampler) OnTimer(vm sim.Agent, at sim.Time, _ int64) {
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
		frames := []profile.Frame{{Func: int32(fn)}}
		s.rec.add(frames, id, s.cfg.Interval)
		s.rec.note(id, s.rec.buf, frames, "signal", false)
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
func (s *tprofSampler) OnJobDone(sim.Agent, sim.ThreadID, int64) {}

// Result returns the profile and costs.
func (s *tprofSampler) Result() *Result {
	r := s.rec.result()
	if s.env.Mode == Costed {
		r.Costs.AgentCPU = threadCPU(s.env.VM, s.agent)
	}
	return r
}

// TracesSamples: tprofSampler tells Env.Trace each sample's story.
func (s *tprofSampler) TracesSamples() {}

var _ Traceable = (*tprofSampler)(nil)

// SamplesAtTick marks tprofSampler as TickSynchronous: OnTimer takes its
// samples.
func (s *tprofSampler) SamplesAtTick() {}

var _ TickSynchronous = (*tprofSampler)(nil)
