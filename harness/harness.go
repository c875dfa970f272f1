// Package harness wires one simulated run together — VM, JIT, safepoints,
// GC and samplers — so that the command line, the tests and the studies
// set up runs the same way.
package harness

import (
	"context"
	"fmt"

	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/safepoint"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

// Config is one run's full configuration.
type Config struct {
	Sim sim.Config
	// JIT, unless NoJIT: without a JIT every method runs its base version
	// (compiled, polls at every return and back-edge, no inlining).
	JIT   jit.Config
	NoJIT bool
	// GC, when non-nil, enables allocation-driven collections.
	GC *safepoint.GCConfig
	// Safepoint is what a global safepoint costs beyond its operation
	// (detection latency, begin/end overhead); the zero value adds
	// nothing.
	Safepoint safepoint.Config
	// Samplers to attach, as specs (samplers.ParseSpec:
	// NAME[:LABEL][,KEY=VALUE...]; a plain registry name is one). "truth"
	// is always computed and may be listed for ordering. Several instances
	// of one sampler need distinct labels.
	Samplers []string
	Mode     samplers.Mode
	// Configure, if set, may adjust each sampler before it attaches (tests
	// and studies use it to set parameters).
	Configure func(samplers.Sampler)
	// Extra samplers, built by the caller, attach after the named ones
	// (passive mode only; their names must be unique).
	Extra []samplers.Sampler
	// InlineFrom names an attached sampler whose call graph, as sampled so
	// far, drives the JIT's inlining decisions (Arnold & Grove's
	// profile-directed inlining); "none" gives the inliner an empty profile
	// (size rules only); "exact" gives it the exact call graph so far,
	// read the same way; "" keeps HotSpot's rule on exact call-site counts.
	InlineFrom string
	// WarmUp, when > 0, records the bytecodes executed by then
	// (Outcome.WarmUpBytecodes), so steady-state work can be measured with
	// the warm-up discarded.
	WarmUp sim.Time
	// NoTruthProfile skips building the truth as a profile (Outcome has no
	// "truth" profile; Outcome.Result.Truth is still exact). On deep
	// recursion that profile holds a full stack per context and costs more
	// than the run: studies that never read it set this.
	NoTruthProfile bool
	// Window, when > 0, also splits every sampler's profile into
	// consecutive windows of this length by sample time
	// (Outcome.Windows): Hofer et al.'s per-iteration profiles. Samplers
	// whose profiles carry no sample times refuse it.
	Window sim.Time
	// RecompileAt, when > 0, recompiles every method compiled by then with
	// the profile as it is then (jit.RecompileAll): profile-directed
	// re-optimization once the call graph has matured.
	RecompileAt sim.Time
}

// emptyProfile is a call graph with no samples: nothing is hot.
type emptyProfile struct{}

func (emptyProfile) EdgeWeight(int) float64 { return 0 }
func (emptyProfile) TotalWeight() float64   { return 0 }

// warmUpMeter records the bytecodes executed when its timer fires.
type warmUpMeter struct{ into *int64 }

func (w warmUpMeter) OnTimer(vm *sim.VM, _ sim.Time, _ int64) { *w.into = vm.Truth().BytecodeTotal() }

// recompiler re-optimizes every compiled method when its timer fires.
type recompiler struct{ j *jit.JIT }

func (r recompiler) OnTimer(*sim.VM, sim.Time, int64) { r.j.RecompileAll() }

// exactProfile is the exact call graph so far, by static edge.
type exactProfile struct{ vm *sim.VM }

func (e exactProfile) EdgeWeight(i int) float64 { return float64(e.vm.EdgeCount(i)) }

func (e exactProfile) TotalWeight() float64 {
	var n int64
	for i := range e.vm.Image().Edges {
		n += e.vm.EdgeCount(i)
	}
	return float64(n)
}

// DefaultConfig: default VM, JIT, safepoint protocol and GC, no sampler,
// passive mode.
func DefaultConfig() Config {
	gc := safepoint.DefaultGCConfig()
	return Config{Sim: sim.DefaultConfig(), JIT: jit.DefaultConfig(), GC: &gc, Safepoint: safepoint.DefaultConfig()}
}

// Outcome is a finished run.
type Outcome struct {
	Result     *sim.Result
	Image      *sim.Image // the program as run (instrumented if a sampler asked)
	JIT        *jit.JIT   // nil with NoJIT
	Safepoints *safepoint.Coordinator
	GC         *safepoint.GC
	// Names lists the profiles in the requested order, "truth" first
	// unless listed elsewhere: each sampler's ID (NAME or NAME:LABEL).
	Names []string
	// Samplers are the named samplers' resolved settings (defaults
	// included), in the order of Config.Samplers, truth excluded.
	Samplers []*samplers.Resolved
	Profiles map[string]*profile.Profile
	Costs    map[string]samplers.Costs
	// Windows holds each sampler's per-window profiles (Config.Window).
	Windows map[string][]*profile.Profile
	// WarmUpBytecodes: bytecodes executed by Config.WarmUp (0 without).
	WarmUpBytecodes int64
	// Footprint is the run's estimated memory (Config.Sim.Limits).
	Footprint sim.Footprint
}

// Run executes program p under cfg. A run that reaches one of
// cfg.Sim.Limits returns a *sim.LimitError.
func Run(p *program.Program, cfg Config) (*Outcome, error) {
	return RunContext(context.Background(), p, cfg)
}

// RunContext is Run, stopped with ctx's error once ctx is done.
func RunContext(ctx context.Context, p *program.Program, cfg Config) (*Outcome, error) {
	if err := validate(cfg); err != nil {
		return nil, err
	}
	names := append([]string{}, cfg.Samplers...)
	switch {
	case cfg.NoTruthProfile && containsName(names, "truth"):
		return nil, fmt.Errorf("samplers: \"truth\" is listed but no_truth_profile is set")
	case !cfg.NoTruthProfile && !containsName(names, "truth"):
		names = append([]string{"truth"}, names...)
	}
	var attached []samplers.Sampler
	var resolved []*samplers.Resolved
	seen := map[string]bool{}
	for i, text := range names {
		spec, err := samplers.ParseSpec(text)
		if err != nil {
			return nil, err
		}
		n := spec.ID()
		names[i] = n
		if seen[n] {
			return nil, fmt.Errorf("samplers: %q listed twice (give each instance its own label: NAME:LABEL)", n)
		}
		seen[n] = true
		if n == "truth" && len(spec.Set) == 0 {
			continue
		}
		if spec.Name == "truth" {
			return nil, fmt.Errorf("samplers: truth takes no label or keys (%q)", text)
		}
		r, err := spec.Resolve()
		if err != nil {
			return nil, err
		}
		s := r.New()
		if cfg.Configure != nil {
			cfg.Configure(s)
		}
		attached = append(attached, s)
		resolved = append(resolved, r)
	}
	for _, s := range cfg.Extra {
		if seen[s.Name()] {
			return nil, fmt.Errorf("samplers: %q listed twice", s.Name())
		}
		seen[s.Name()] = true
		attached = append(attached, s)
		names = append(names, s.Name())
	}
	for _, s := range attached {
		if np, ok := s.(samplers.PrologueYieldPointer); ok && np.NeedsPrologueYieldPoints() &&
			(cfg.NoJIT || cfg.JIT.Flavour != jit.Jikes) {
			return nil, fmt.Errorf("sampler %s samples at prologue/epilogue yield points, which only Jikes-like code has: run with the jikes flavour (--vm jikes)", s.Name())
		}
	}

	img, err := sim.NewImage(p, cfg.Sim.Cost)
	if err != nil {
		return nil, err
	}
	for _, s := range attached {
		// Instrumenting samplers (komorium) rewrite the program first.
		if in, ok := s.(samplers.Instrumenter); ok {
			if err := in.Instrument(img, cfg.Mode, cfg.Sim.Cost); err != nil {
				return nil, err
			}
		}
	}
	vm, err := sim.New(img, cfg.Sim)
	if err != nil {
		return nil, err
	}
	if ctx.Done() != nil {
		vm.SetContext(ctx)
	}
	if cfg.NoTruthProfile {
		vm.NoTruthProfile()
	}
	out := &Outcome{Image: img, Profiles: map[string]*profile.Profile{}, Costs: map[string]samplers.Costs{}, Windows: map[string][]*profile.Profile{}}
	if !cfg.NoJIT {
		if out.JIT, err = jit.Attach(vm, cfg.JIT); err != nil {
			return nil, err
		}
	}
	if out.Safepoints, err = safepoint.New(vm, cfg.Safepoint); err != nil {
		return nil, err
	}
	if cfg.GC != nil {
		if out.GC, err = safepoint.AttachGC(vm, out.Safepoints, *cfg.GC); err != nil {
			return nil, err
		}
	}
	if cfg.Window < 0 {
		return nil, fmt.Errorf("window: %v must be ≥ 0", cfg.Window)
	}
	env := &samplers.Env{VM: vm, Mode: cfg.Mode, Safepoints: out.Safepoints, GC: out.GC, Seed: cfg.Sim.Seed, Window: cfg.Window}
	for _, s := range attached {
		if err := s.Attach(env); err != nil {
			return nil, err
		}
	}
	if cfg.InlineFrom != "" {
		if out.JIT == nil {
			return nil, fmt.Errorf("inline_from: %q needs the JIT", cfg.InlineFrom)
		}
		switch cfg.InlineFrom {
		case "none":
			out.JIT.SetProfile(emptyProfile{})
		case "exact":
			out.JIT.SetProfile(exactProfile{vm})
		default:
			var src samplers.Sampler
			for _, s := range attached {
				if s.Name() == cfg.InlineFrom {
					src = s
				}
			}
			if src == nil {
				return nil, fmt.Errorf("inline_from: %q is not an attached call-graph sampler", cfg.InlineFrom)
			}
			cg, ok := src.(samplers.CallGraphSource)
			if !ok {
				return nil, fmt.Errorf("inline_from: sampler %s is not a call-graph source (not a samplers.CallGraphSource)", src.Name())
			}
			out.JIT.SetProfile(cg)
		}
	}
	switch {
	case cfg.WarmUp < 0:
		return nil, fmt.Errorf("warm_up: %v must be ≥ 0", cfg.WarmUp)
	case cfg.WarmUp > 0:
		// A timer is a horizon: every running thread's position, and so
		// the bytecode count, is exact when it fires.
		id := vm.AddTimer(warmUpMeter{&out.WarmUpBytecodes})
		vm.ScheduleTimer(id, cfg.WarmUp, 0)
	}
	if cfg.RecompileAt < 0 {
		return nil, fmt.Errorf("recompile_at: %v must be ≥ 0", cfg.RecompileAt)
	}
	if cfg.RecompileAt > 0 {
		if out.JIT == nil {
			return nil, fmt.Errorf("recompile_at: needs the JIT")
		}
		vm.ScheduleTimer(vm.AddTimer(recompiler{out.JIT}), cfg.RecompileAt, 0)
	}
	out.Result = vm.Run()
	if err := vm.Err(); err != nil {
		return nil, err
	}
	out.Names, out.Samplers = names, resolved
	out.Footprint = vm.Footprint()
	if !cfg.NoTruthProfile {
		if err := vm.CheckProfile(); err != nil {
			return nil, err
		}
		out.Profiles["truth"] = out.Result.Truth.Profile(img)
	}
	for _, s := range attached {
		r := s.Result()
		out.Profiles[s.Name()] = r.Profile
		out.Costs[s.Name()] = r.Costs
		if cfg.Window > 0 {
			out.Windows[s.Name()] = r.Windows
		}
	}
	return out, nil
}

func containsName(names []string, n string) bool {
	for _, x := range names {
		if x == n {
			return true
		}
	}
	return false
}
