package study

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/profsim/profsim/harness"

	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
)

// daCapoModels are the models of the DaCapo-2006 applications
// (workloads/models): the experiments' benchmarks with Options.Models.
// Five are of benchmarks Mytkowicz et al. ran (antlr, chart, fop, jython,
// luindex); hsqldb, lusearch and xalan are the suite's others that were
// recorded.
var daCapoModels = []string{"antlr-real", "chart-real", "fop-real", "hsqldb-real", "jython-real", "luindex-real", "lusearch-real", "xalan-real"}

// modelScale is the entry-loop scale (workloads.ScaleEntryLoops) of a
// model's runs to the end: a fifth of the recording's driver loop, 1.4–2.1
// s simulated instead of 5.0–5.5 s (the JIT's warm-up, which does not
// scale, is 0.4–1.1 s of it), like the stand-ins' runs of about a second;
// docs/IMPORT.md measures the profile it costs. Options.Full runs the
// whole recording (scale 1).
const modelScale = 0.2

// modelBenches are the models an experiment runs with o.Models: o.models
// when set (tests), else daCapoModels.
func modelBenches(o Options) []string {
	if o.models != nil {
		return o.models
	}
	return daCapoModels
}

// modelRunScale is the entry-loop scale of o's runs of a model to its end.
func modelRunScale(o Options) float64 {
	switch {
	case o.modelScale > 0:
		return o.modelScale
	case o.Full:
		return 1
	}
	return modelScale
}

// isModel reports whether bench names a model of a real application
// (workloads.Models).
func isModel(bench string) bool {
	return slices.Contains(workloads.Models(), bench)
}

// modelProgram is model name as the study runs it: the recorder's own
// threads dropped (workloads.DropRecorderThreads: the papers' runs had no
// JFR) and, for scale ≠ 1, its entry loops scaled by scale
// (workloads.ScaleEntryLoops), so that a run to its end lasts about scale
// × the recording.
func modelProgram(name string, scale float64) (*program.Program, error) {
	p, err := workloads.Get(name)
	if err != nil {
		return nil, err
	}
	if _, err := workloads.DropRecorderThreads(p); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if scale != 1 {
		if _, err := workloads.ScaleEntryLoops(p, scale); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return p, nil
}

// paperSpec is a run of bench for d on the papers' HotSpot (hotspot6,
// harness.DefaultConfig's settings), as profsim run would be told it. A
// model runs as workloads.Get returns it: the built-in models carry no
// recorder threads, so modelProgram's workloads.DropRecorderThreads would
// change nothing.
func paperSpec(bench string, seed uint64, d sim.Time) harness.Spec {
	s := harness.DefaultSpec()
	s.Workload, s.Seed, s.Duration, s.VM = bench, seed, time.Duration(d), "hotspot6"
	return s
}

// runSpec reads s's workload and runs it. collect may set what the run
// records beside its profiles — Config.WarmUp, Window, NoTruthProfile:
// how the study reads the run, not what runs.
func runSpec(s harness.Spec, collect ...func(*harness.Config)) (*harness.Outcome, error) {
	_, out, err := runSpecProgram(s, collect...)
	return out, err
}

// runSpecProgram is runSpec that also returns the program as run (its
// interventions applied), for an experiment that reads it.
func runSpecProgram(s harness.Spec, collect ...func(*harness.Config)) (*program.Program, *harness.Outcome, error) {
	p, _, err := s.Load()
	if err != nil {
		return nil, nil, err
	}
	cfg, err := s.Config()
	if err != nil {
		return nil, nil, err
	}
	for _, c := range collect {
		c(&cfg)
	}
	out, err := harness.Run(p, cfg)
	return p, out, err
}

// paperBench is the benchmark of the papers' tables that bench stands in
// for or models: "antlr" for "antlr-real".
func paperBench(bench string) string { return strings.TrimSuffix(bench, "-real") }

// benchNoun is what the experiment's notes call its benchmarks.
func benchNoun(models bool) string {
	if models {
		return "model"
	}
	return "stand-in"
}

// modelNote describes the models' runs to the end at entry-loop scale
// scale, for an experiment's notes.
func modelNote(scale float64) string {
	return fmt.Sprintf("Models of the DaCapo-2006 applications (workloads/models, profsim import of JFR recordings): the recorder's own threads dropped, each run to its end with the driver's entry loop scaled by %g (workloads.ScaleEntryLoops; 1 is the recording's 5 s).", scale)
}

// methodRef is the reference (program.Method.Key) of the method a
// profile shows as name (program.Resolver.DisplayName: an overload's
// name with its JVM descriptor), or name itself when no method shows so.
func methodRef(p *program.Program, name string) string {
	r := program.NewResolver(p)
	for i := range p.Methods {
		if m := &p.Methods[i]; r.Overloaded(m) && r.DisplayName(m) == name {
			return m.Key()
		}
	}
	return name
}

// modelFixedNote describes the models' runs of a fixed duration, for an
// experiment's notes.
const modelFixedNote = "Models of the DaCapo-2006 applications (workloads/models, profsim import of JFR recordings), the recorder's own threads dropped: a run of a fixed duration is the model's first part, its warm-up included (the recording is 5 s)."

// fixedDuration is the length of o's runs of a fixed duration: d, or
// o.modelDuration with o.Models when set.
func fixedDuration(o Options, d sim.Time) sim.Time {
	if o.Models && o.modelDuration > 0 {
		return o.modelDuration
	}
	return d
}
