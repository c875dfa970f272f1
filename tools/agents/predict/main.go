// Command predict prints profsim's side of docs/CALIBRATION.md's table
// "JVMTI capabilities and whole profilers": each model of a tools/agents
// application under each setting, as a slowdown. A capability set is a
// safepoint sampler holding it against the same sampler holding none,
// both costed; a whole profiler is its sampler costed against the same
// run passive. Each model runs a fifth of its recording, to its end, on
// hotspot17 with 2 CPUs, and the figure is the mean over the seeds.
//
//	go run ./tools/agents/predict [--apps a,b] [--seeds N] [--scale F]
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/workloads"
)

// setting is one row: a sampler spec run costed, against base (costed)
// or, with base "", the same spec passive.
type setting struct{ label, spec, base string }

var settings = []setting{
	{"`capabilities=hprof-cpu-samples`", "safepoint,capabilities=hprof-cpu-samples", "safepoint,capabilities=none"},
	{"`capabilities=async-profiler`", "safepoint,capabilities=async-profiler", "safepoint,capabilities=none"},
	{"`capabilities=jdwp` (its exception events only)", "safepoint,capabilities=jdwp", "safepoint,capabilities=none"},
	{"`safepoint`", "safepoint", ""},
	{"`jfr,period=10ms`", "jfr,period=10ms", ""},
	{"`async`", "async", ""},
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "predict:", err)
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("predict", flag.ContinueOnError)
	apps := fs.String("apps", "antlr,fop,hsqldb,javac,jython,lusearch", "applications whose models (APP-real) to run")
	seeds := fs.Int("seeds", 3, "seeds 1 to `N`")
	scale := fs.Float64("scale", 0.2, "entry-loop scale: the part of the recording each run plays")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *seeds < 1 {
		return fmt.Errorf("%w: --seeds %d must be at least 1", errUsage, *seeds)
	}
	if !(*scale > 0) {
		return fmt.Errorf("%w: --scale %v must be positive", errUsage, *scale)
	}
	names := strings.Split(*apps, ",")
	for _, a := range names {
		if _, err := workloads.Get(a + "-real"); err != nil {
			return fmt.Errorf("%w: --apps: %v", errUsage, err)
		}
	}
	// ratio[s][a] is setting s's mean slowdown on app a.
	ratio := make([][]float64, len(settings))
	for i := range ratio {
		ratio[i] = make([]float64, len(names))
	}
	var g errgroup.Group
	g.SetLimit(2)
	for i, st := range settings {
		for j, a := range names {
			g.Go(func() error {
				sum := 0.0
				for seed := 1; seed <= *seeds; seed++ {
					with, err := end(a, st.spec, samplers.Costed, uint64(seed), *scale)
					if err != nil {
						return err
					}
					spec, mode := st.base, samplers.Costed
					if spec == "" {
						spec, mode = st.spec, samplers.Passive
					}
					without, err := end(a, spec, mode, uint64(seed), *scale)
					if err != nil {
						return err
					}
					sum += float64(with) / float64(without)
				}
				ratio[i][j] = sum / float64(*seeds)
				return nil
			})
		}
	}
	if err := g.Wait(); err != nil {
		return err
	}
	fmt.Fprintf(w, "| setting in profsim | %s-real |\n|---|%s\n", strings.Join(names, "-real | "), strings.Repeat("---|", len(names)))
	for i, st := range settings {
		cells := make([]string, len(names))
		for j := range names {
			cells[j] = fmt.Sprintf("%.3f", ratio[i][j])
		}
		fmt.Fprintf(w, "| %s | %s |\n", st.label, strings.Join(cells, " | "))
	}
	return nil
}

// end is how long model app-real runs to its end under spec in mode.
func end(app, spec string, mode samplers.Mode, seed uint64, scale float64) (time.Duration, error) {
	s := harness.DefaultSpec()
	s.Workload, s.Seed, s.Duration, s.VM = app+"-real", seed, 120*time.Second, "hotspot17"
	s.LoopScale, s.CPUs = scale, 2
	s.Samplers, s.Mode = []string{spec}, mode
	p, _, err := s.Load()
	if err != nil {
		return 0, err
	}
	cfg, err := s.Config()
	if err != nil {
		return 0, err
	}
	cfg.NoTruthProfile = true // only the end is read
	out, err := harness.Run(p, cfg)
	if err != nil {
		return 0, fmt.Errorf("%s-real under %s: %w", app, spec, err)
	}
	return time.Duration(out.Result.End), nil
}
