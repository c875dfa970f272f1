package harness

import (
	"fmt"
	"strings"

	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

// maxStripMiningIter is the top of HotSpot's range for
// -XX:LoopStripMiningIter (uintx, range(0, max_juint)), which
// jit.strip_mining_iter stands for.
const maxStripMiningIter = maxJuint

// Validate checks everything about cfg that does not need the program: the
// harness's own settings, the VM's, the JIT's (unless NoJIT), the
// safepoint protocol's and the GC's, the sampler specs (syntax, keys,
// values, distinct IDs), the capabilities the run asks of the samplers,
// and that InlineFrom names an attached call-graph source. It builds
// nothing; errors name the field or the sampler.
// Build checks the same before building anything.
func (cfg Config) Validate() error {
	_, err := cfg.resolve()
	return err
}

// plan is a validated Config's samplers, resolved and not yet attached.
type plan struct {
	// names are the profiles' IDs in the requested order: truth first
	// unless listed elsewhere or NoTruthProfile, then Extra's.
	names []string
	// resolved are the named samplers' settings; named are fresh
	// instances of them, in the same order.
	resolved []*samplers.Resolved
	named    []samplers.Sampler
	// attached are named and then Extra, in attach order.
	attached []samplers.Sampler
}

// resolve is Validate's work; Build builds from its plan.
func (cfg Config) resolve() (*plan, error) {
	if err := checkRanges(cfg); err != nil {
		return nil, err
	}
	pl, err := resolveSamplers(cfg)
	if err != nil {
		return nil, err
	}
	// The components' own checks, as their constructors run them (the
	// cost model first: sim.NewImage checks it before sim.New checks the
	// rest of the VM's configuration).
	if err := cfg.Sim.Cost.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Sim.Validate(); err != nil {
		return nil, err
	}
	if !cfg.NoJIT {
		if err := cfg.JIT.Validate(); err != nil {
			return nil, err
		}
	}
	if err := cfg.Safepoint.Validate(); err != nil {
		return nil, err
	}
	if cfg.GC != nil {
		if err := cfg.GC.Validate(); err != nil {
			return nil, err
		}
	}
	if cfg.Window < 0 {
		return nil, fmt.Errorf("window: %v must be ≥ 0", cfg.Window)
	}
	if err := checkInlineFrom(cfg, pl.attached); err != nil {
		return nil, err
	}
	switch {
	case cfg.WarmUp < 0:
		return nil, fmt.Errorf("warm_up: %v must be ≥ 0", cfg.WarmUp)
	case cfg.Census < 0:
		return nil, fmt.Errorf("census: %v must be ≥ 0", cfg.Census)
	case cfg.RecompileAt < 0:
		return nil, fmt.Errorf("recompile_at: %v must be ≥ 0", cfg.RecompileAt)
	case cfg.RecompileAt > 0 && cfg.NoJIT:
		return nil, fmt.Errorf("recompile_at: needs the JIT")
	case cfg.ProfileFrom < 0:
		return nil, fmt.Errorf("profile_from: %v must be ≥ 0", cfg.ProfileFrom)
	case cfg.ProfileFrom > 0 && cfg.ProfileFrom >= cfg.Sim.Duration:
		return nil, fmt.Errorf("profile_from: %v must be before the end of the run (duration %v)", cfg.ProfileFrom, cfg.Sim.Duration)
	}
	var instrumenters []string
	for _, s := range pl.attached {
		if _, ok := s.(samplers.Instrumenter); ok {
			instrumenters = append(instrumenters, s.Name())
		}
		if u, ok := s.(samplers.UnitInstrumenter); ok && u.UnitProbes(cfg.Mode) != nil && cfg.NoJIT {
			return nil, fmt.Errorf("sampler %s: its probes are placed by the JIT after inlining (after_inlining), and the run has no JIT", s.Name())
		}
	}
	if len(instrumenters) > 1 {
		return nil, fmt.Errorf("samplers %s: at most one sampler may instrument the program (each rewrites it and owns the threads' bytecode counters)", strings.Join(instrumenters, ", "))
	}
	if cfg.Sim.ProfileThreads != "" {
		for _, s := range pl.attached {
			if _, ok := s.(samplers.Instrumenter); ok {
				return nil, fmt.Errorf("profile_threads: sampler %s counts every thread's bytecodes and cannot be restricted to some threads", s.Name())
			}
		}
	}
	if cfg.ProfileFrom > 0 {
		for _, s := range pl.attached {
			if _, ok := s.(samplers.Instrumenter); ok {
				return nil, fmt.Errorf("profile_from: sampler %s instruments the program before it runs and cannot start at %v", s.Name(), cfg.ProfileFrom)
			}
		}
		if cfg.InlineFrom != "" && cfg.InlineFrom != "none" && cfg.InlineFrom != "exact" {
			return nil, fmt.Errorf("profile_from: the JIT's inlining reads sampler %s (inline_from), which would start only at %v", cfg.InlineFrom, cfg.ProfileFrom)
		}
	}
	return pl, nil
}

// checkRanges checks the settings the harness reads or that only it
// bounds.
func checkRanges(cfg Config) error {
	switch {
	case cfg.JIT.StripMiningIter > maxStripMiningIter:
		return fmt.Errorf("jit.strip_mining_iter: %d is beyond HotSpot's -XX:LoopStripMiningIter range [0, 4294967295]", cfg.JIT.StripMiningIter)
	case cfg.Window > sim.MaxTime:
		return fmt.Errorf("window: %v is beyond the model's maximum time, 10^18 ns", cfg.Window)
	case cfg.WarmUp > sim.MaxTime:
		return fmt.Errorf("warm_up: %v is beyond the model's maximum time, 10^18 ns", cfg.WarmUp)
	case cfg.Census > sim.MaxTime:
		return fmt.Errorf("census: %v is beyond the model's maximum time, 10^18 ns", cfg.Census)
	case cfg.RecompileAt > sim.MaxTime:
		return fmt.Errorf("recompile_at: %v is beyond the model's maximum time, 10^18 ns", cfg.RecompileAt)
	}
	return nil
}

// PlanSamplers is the run's samplers as Build will attach them, without
// building anything: names are the profiles' IDs in the requested order
// (Outcome.Names: "truth" first unless listed elsewhere or
// NoTruthProfile, then Extra's) and resolved the named samplers' settings
// (Outcome.Samplers: in the order of Samplers, truth excluded). It
// refuses, with Validate's error, every list Build refuses: a spec that
// does not parse or resolve, an ID listed twice (Extra's included),
// "truth" with a label or keys or listed under NoTruthProfile, and a
// sampler whose yield points the run's code lacks. A sweep plans its
// runs with it, so it refuses what `profsim run` refuses.
func (cfg Config) PlanSamplers() (names []string, resolved []*samplers.Resolved, err error) {
	pl, err := resolveSamplers(cfg)
	if err != nil {
		return nil, nil, err
	}
	return pl.names, pl.resolved, nil
}

// resolveSamplers is PlanSamplers's work, which also builds a fresh
// instance of each named sampler for Build to attach: it parses and
// resolves the sampler specs and checks the IDs are distinct and the
// code the run builds has what each sampler needs.
func resolveSamplers(cfg Config) (*plan, error) {
	names := append([]string{}, cfg.Samplers...)
	switch {
	case cfg.NoTruthProfile && containsName(names, "truth"):
		return nil, fmt.Errorf("samplers: \"truth\" is listed but no_truth_profile is set")
	case !cfg.NoTruthProfile && !containsName(names, "truth"):
		names = append([]string{"truth"}, names...)
	}
	pl := &plan{}
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
		pl.resolved = append(pl.resolved, r)
		pl.named = append(pl.named, r.New())
	}
	pl.attached = append([]samplers.Sampler{}, pl.named...)
	for _, s := range cfg.Extra {
		if seen[s.Name()] {
			return nil, fmt.Errorf("samplers: %q listed twice", s.Name())
		}
		seen[s.Name()] = true
		pl.attached = append(pl.attached, s)
		names = append(names, s.Name())
	}
	pl.names = names
	for _, s := range pl.attached {
		if po, ok := s.(samplers.PassiveOnly); ok && po.PassiveOnly() && cfg.Mode != samplers.Passive {
			return nil, fmt.Errorf("sampler %s watches passively only (mode passive), not in mode %s", s.Name(), cfg.Mode)
		}
		np, ok := s.(samplers.PrologueYieldPointer)
		switch {
		case !ok || !np.NeedsPrologueYieldPoints():
		case cfg.NoJIT:
			return nil, fmt.Errorf("sampler %s samples at prologue/epilogue yield points of the optimizing JIT's Jikes-like code (--vm jikes), which no_jit turns off", s.Name())
		case cfg.JIT.Flavour != jit.Jikes:
			return nil, fmt.Errorf("sampler %s samples at prologue/epilogue yield points, which only Jikes-like code has: run with the jikes flavour (--vm jikes)", s.Name())
		}
	}
	return pl, nil
}

// checkInlineFrom checks that InlineFrom, when set, has a JIT to drive
// and is a special name or an attached call-graph source.
func checkInlineFrom(cfg Config, attached []samplers.Sampler) error {
	switch {
	case cfg.InlineFrom == "":
		return nil
	case cfg.NoJIT:
		return fmt.Errorf("inline_from: %q needs the JIT", cfg.InlineFrom)
	case cfg.InlineFrom == "none" || cfg.InlineFrom == "exact":
		return nil
	}
	src := findSampler(attached, cfg.InlineFrom)
	if src == nil {
		var ids []string
		for _, s := range attached {
			ids = append(ids, s.Name())
		}
		return fmt.Errorf("inline_from: %q is not an attached call-graph sampler (want none, exact or one of the run's samplers: %s)", cfg.InlineFrom, strings.Join(ids, ", "))
	}
	if _, ok := src.(samplers.CallGraphSource); !ok {
		return fmt.Errorf("inline_from: sampler %s is not a call-graph source (not a samplers.CallGraphSource; those registered: %s)", src.Name(), strings.Join(samplers.CallGraphSourceNames(), ", "))
	}
	return nil
}

// findSampler is the last of ss named id, or nil.
func findSampler(ss []samplers.Sampler, id string) samplers.Sampler {
	var found samplers.Sampler
	for _, s := range ss {
		if s.Name() == id {
			found = s
		}
	}
	return found
}

func containsName(names []string, n string) bool {
	for _, x := range names {
		if x == n {
			return true
		}
	}
	return false
}
