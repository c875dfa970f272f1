package samplers

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/sim"
)

// KomoriumConfig configures Binder's bytecode-counting sampler.
type KomoriumConfig struct {
	// Granularity is the number of bytecodes between samples; Random, when
	// > 0, adds U[0, Random) drawn from each thread's own seeded stream
	// (Binder uses r < 100). Each is at most 10¹⁸, so that their sum is
	// exact in int64.
	Granularity int64 `key:"granularity" check:"1..1_000_000_000_000_000_000" unit:"bytecodes" doc:"bytecodes between samples" src:"Binder SPE'06: granularity 10 000"`
	Random      int64 `key:"random" check:"0..1_000_000_000_000_000_000" unit:"bytecodes" doc:"add U[0, random) to each granularity (0: constant)" src:"Binder: r < 100 when randomised; off by default"`
	// Instrumentation is the rewriting (MaxPath, leaf optimisation, costs).
	Instrumentation jit.Instrumentation
	// CachedPath is §6.2's optimisation: the agent reuses the path of the
	// thread's previous sample and walks only the frames pushed since.
	CachedPath bool `key:"cached_path" doc:"reuse the previous sample's path, walk only frames pushed since" src:"Binder §6.2"`
	// AgentBase + AgentPerFrame × frames walked is the agent's cost per
	// sample, on the sampled thread (the agent runs synchronously).
	AgentBase     sim.Time `key:"agent_base" check:"0..max" doc:"agent's cost per sample on the sampled thread (costed mode)" src:"our choice: 300 ns"`
	AgentPerFrame sim.Time `key:"agent_per_frame" check:"0..1s" doc:"agent's cost per frame walked (costed mode)" src:"our choice: 30 ns"`
}

// DefaultKomoriumConfig is the paper's setting: granularity 10 000,
// MaxPath 50, both optimisations. The instrumentation costs are our
// choice: a field decrement or a compare-and-branch is about one cycle on
// a superscalar core, pushing onto the reified stack two, passing the
// three extra arguments one per call.
func DefaultKomoriumConfig() KomoriumConfig {
	return KomoriumConfig{
		Granularity: 10000,
		Instrumentation: jit.Instrumentation{MaxPath: 50, LeafOpt: true, CountCycles: 1, CheckCycles: 1, PushCycles: 2, ArgCycles: 1,
			CountBytes: 8, CheckBytes: 6},
		CachedPath: true,
		AgentBase:  300, AgentPerFrame: 30,
	}
}

// Validate names the first invalid field.
func (c KomoriumConfig) Validate() error {
	return param.Check(&c)
}

func init() {
	Register(Info{Name: "komorium", Description: "Binder's Komorium: per-thread bytecode counter, granularity checks at returns, calls, loop heads and every MaxPath bytecodes, reified full stacks (granularity 10 000)",
		Config: func() any { c := DefaultKomoriumConfig(); return &c },
		Build:  func(label string, cfg any) Sampler { return newKomorium(label, *cfg.(*KomoriumConfig)) }})
}

// komoriumSampler samples each thread synchronously every Granularity
// bytecodes, counted by instrumentation per basic block. Its profile's
// weights are bytecodes; it reports the approximate total bytecode count
// the agent saw (the sum of what each sample reported).
type komoriumSampler struct {
	name    string
	cfg     KomoriumConfig
	env     *Env
	rec     *recorder
	hook    sim.HandlerID
	rngs    map[sim.ThreadID]*rand.Rand
	gran    map[sim.ThreadID]int64
	total   int64
	walked  int64
	samples int64
	leaves  []bool
}

// newKomorium creates a Komorium sampler reported under name.
func newKomorium(name string, cfg KomoriumConfig) *komoriumSampler {
	return &komoriumSampler{name: name, cfg: cfg, rngs: map[sim.ThreadID]*rand.Rand{}, gran: map[sim.ThreadID]int64{}}
}

// Name is the sampler's label ("komorium" unless labelled).
func (s *komoriumSampler) Name() string { return s.name }

// Config returns the configuration.
func (s *komoriumSampler) Config() KomoriumConfig { return s.cfg }

// Instrument rewrites the program before the VM exists. In passive mode
// the inserted code costs nothing and adds nothing to method sizes, so the
// execution is the one the other samplers see.
func (s *komoriumSampler) Instrument(img *sim.Image, mode Mode, cost sim.CostModel) error {
	if err := s.cfg.Validate(); err != nil {
		return fmt.Errorf("sampler komorium: %w", err)
	}
	in := s.cfg.Instrumentation
	if mode == Passive {
		in.CountCycles, in.CheckCycles, in.PushCycles, in.ArgCycles, in.CountBytes, in.CheckBytes = 0, 0, 0, 0, 0, 0
	}
	s.leaves = make([]bool, len(img.Base))
	for m, c := range img.Base {
		s.leaves[m] = true
		for _, x := range c.Instrs {
			if x.Op == sim.OpCall || x.Op == sim.OpVirtualCall || x.Op == sim.OpSpawn {
				s.leaves[m] = false
			}
		}
	}
	return jit.Instrument(img, in, cost)
}

// Attach arms every thread's counter as it starts.
func (s *komoriumSampler) Attach(env *Env) error {
	if err := s.cfg.Validate(); err != nil {
		return fmt.Errorf("sampler komorium: %w", err)
	}
	if s.leaves == nil {
		return fmt.Errorf("sampler komorium: the program was not instrumented (Instrument must run before the VM is created)")
	}
	if err := checkWindow(env, "komorium"); err != nil {
		return err
	}
	s.env = env
	s.rec = newRecorder(env, s.name, 0)
	s.rec.b = profile.NewBuilder("komorium", "bytecodes", 0)
	s.rec.fn = Functions(s.rec.b, env.VM.Image())
	h, err := env.VM.AddHookHandler(s)
	if err != nil {
		return err
	}
	s.hook = h
	env.VM.AddThreadObserver(s)
	return nil
}

// next draws a thread's next granularity.
func (s *komoriumSampler) next(id sim.ThreadID) int64 {
	g := s.cfg.draw(s.rngs[id])
	s.gran[id] = g
	return g
}

// draw is a thread's next granularity from its stream r: Granularity plus,
// with Random, a uniform [0, Random). Komorium and a komorium-set's members
// draw alike, so a member sees the granularities a Komorium alone would.
func (c KomoriumConfig) draw(r *rand.Rand) int64 {
	g := c.Granularity
	if c.Random > 0 {
		g += r.Int64N(c.Random)
	}
	return g
}

// OnThreadStart registers the thread: its own random stream, seeded from
// the run's seed, and its first granularity.
func (s *komoriumSampler) OnThreadStart(vm sim.Agent, id sim.ThreadID) {
	s.rngs[id] = sim.Stream(s.env.Seed, "sampler/"+s.name+"/thread/"+strconv.Itoa(int(id)))
	vm.SetBytecodeCounter(s.hook, id, s.next(id))
}

// OnHook is the granularity check that found the counter exhausted:
// processSample with the reified stack and the bytecodes since the last
// sample, then the next granularity.
func (s *komoriumSampler) OnHook(vm sim.Agent, id sim.ThreadID, h sim.Hook) sim.Action {
	if h != sim.HookBytecodes {
		return sim.Continue
	}
	reported := s.gran[id] - vm.BytecodeCounter(id)
	s.total += reported
	s.samples++
	s.rec.buf = vm.Stack(id, s.rec.buf[:0])
	stack := s.rec.buf
	frames := s.rec.exact(stack, 0)
	for i := range frames {
		frames[i].Line, frames[i].Inlined = 0, false // the reified stack holds methods only
	}
	s.rec.b.AddSample(frames, 1, s.cfg.Granularity, vm.ThreadName(id))
	s.rec.costs.Taken++
	s.rec.costs.SampleTimes = append(s.rec.costs.SampleTimes, int64(vm.Now()))
	// Frames the agent walks: with the cached path only those pushed
	// since this thread's previous sample (their entries are not nodes).
	n := len(stack)
	if s.cfg.CachedPath {
		k := len(stack) - 1
		for k >= 0 && !vm.Marked(s.hook, id, k) {
			k--
		}
		n = len(stack) - 1 - k
		for j := k + 1; j < len(stack); j++ {
			vm.Mark(s.hook, id, j)
		}
	}
	s.walked += int64(n)
	if s.env.Mode == Costed && vm.State(id) == sim.Running {
		d := s.cfg.AgentBase + s.cfg.AgentPerFrame*sim.Time(n)
		if top := stack[len(stack)-1].Method; s.cfg.Instrumentation.LeafOpt && s.leaves[top] {
			d += sim.Time(vm.Config().Cost.Nanos(s.cfg.Instrumentation.PushCycles)) // the leaf's deferred push
		}
		vm.Stall(id, d)
		s.rec.costs.Stall += d
	}
	vm.SetBytecodeCounter(s.hook, id, s.next(id))
	return sim.Continue
}

// Result returns the samples tree as a profile (weights in bytecodes).
// Measures: ApproxTotalBytecodes (what the agent was told: it misses each
// thread's tail after its last sample and over-counts blocks cut short by
// exceptions), FramesWalkedPerSample, Samples.
func (s *komoriumSampler) Result() *Result {
	r := s.rec.result()
	per := 0.0
	if s.samples > 0 {
		per = float64(s.walked) / float64(s.samples)
	}
	r.Costs.Requested = r.Costs.Taken
	r.Costs.Measures = map[Measure]float64{
		ApproxTotalBytecodes:  float64(s.total),
		FramesWalkedPerSample: per,
		Samples:               float64(s.samples),
	}
	return r
}

var _ Instrumenter = (*komoriumSampler)(nil)
