// Command compare is the model side of tools/realapps/validate: it reads
// the real profilers' runs (data/<app>/<profiler>/<rep>/self.tsv and
// meta.json, spec in docs/VALIDATION.md), runs each application's model
// (<app>-real) under the matching simulated profilers over several seeds,
// and prints the overlaps, noise floors, nulls, top-1 and top-5 agreement,
// predicted vs real disagreement and issue 32's "Done when" criteria as
// Markdown (and, with --csv, as tidy CSV).
//
//	go run ./tools/realapps/validate/compare [--data DIR] [--apps a,b] [--profilers p,q]
//	    [--seeds N] [--jobs N] [--warmup D] [--window D] [--duration D]
//	    [--csv FILE] [--per-method APP]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// usageError is bad input or flags: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

type options struct {
	data           string
	apps           []string
	profilers      []string
	seeds, jobs    int
	warmup, window time.Duration
	duration       time.Duration
	csv            string
	perMethod      string
	loopScale      float64
	cpus           int
	models         string
	// baseline is a previous --csv to compare with; from, one to read
	// the results from instead of running the models.
	baseline, from string
}

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		var ue *usageError
		if errors.As(err, &ue) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.data, "data", "tools/realapps/validate/data", "the real runs: `DIR`/<app>/<profiler>/<rep>/{self.tsv,meta.json}")
	apps := fs.String("apps", strings.Join(allApps, ","), "comma-separated applications (model <app>-real)")
	profs := fs.String("profilers", strings.Join(allProfilers, ","), "comma-separated profilers: "+strings.Join(allProfilers, ", "))
	fs.IntVar(&o.seeds, "seeds", 3, "model seeds 1..N")
	fs.IntVar(&o.jobs, "jobs", runtime.GOMAXPROCS(0), "simulated runs at once")
	fs.DurationVar(&o.warmup, "warmup", 8*time.Second, "the real runs' warm-up (meta warmup_ns): the models' --skip")
	fs.DurationVar(&o.window, "window", 10*time.Second, "the real runs' profiled window (meta window_ns)")
	fs.DurationVar(&o.duration, "duration", 0, "the models' simulated duration (default warm-up + window; shorter for quick trials)")
	fs.Float64Var(&o.loopScale, "loop-scale", defaultLoopScale, "scale each model's driver loops by `F` (workloads.ScaleEntryLoops) so that it outlasts warm-up and window")
	fs.StringVar(&o.models, "models", "", "read each model from `DIR`/<app>-real.yaml instead of the built-in one (a re-import to try)")
	fs.IntVar(&o.cpus, "cpus", defaultCPUs, "simulated CPUs: the cores of the machine the real runs were measured on")
	fs.StringVar(&o.csv, "csv", "", "also write one tidy row per (app, profiler, metric) to `FILE`")
	fs.StringVar(&o.perMethod, "per-method", "", "also list `APP`'s top 15 methods, real vs profsim shares, per profiler")
	fs.StringVar(&o.baseline, "baseline", "", "also compare the results with a previous --csv `FILE`: each pair's overlap, the means and the criteria, baseline → now")
	fs.StringVar(&o.from, "from", "", "read the results from a previous --csv `FILE` instead of running the models (with --baseline: two stored runs side by side)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, usagef("%v", err)
	}
	if fs.NArg() > 0 {
		return nil, usagef("unexpected argument %q (flags only)", fs.Arg(0))
	}
	if o.from != "" {
		var runs []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name != "from" && f.Name != "baseline" && f.Name != "csv" {
				runs = append(runs, "--"+f.Name)
			}
		})
		if len(runs) > 0 {
			return nil, usagef("--from reads stored results; %s would choose what to run: drop it", strings.Join(runs, ", "))
		}
	}
	var err error
	if o.apps, err = list("--apps", *apps, allApps); err != nil {
		return nil, err
	}
	if o.profilers, err = list("--profilers", *profs, allProfilers); err != nil {
		return nil, err
	}
	if o.duration == 0 {
		o.duration = o.warmup + o.window
	}
	switch {
	case !(o.loopScale > 0) || o.loopScale > 1000:
		return nil, usagef("--loop-scale %v must be in (0, 1000]", o.loopScale)
	case o.cpus < 1 || o.cpus > 1024:
		return nil, usagef("--cpus %d must be in [1, 1024]", o.cpus)
	case o.seeds < 1:
		return nil, usagef("--seeds %d must be ≥ 1", o.seeds)
	case o.jobs < 1:
		return nil, usagef("--jobs %d must be ≥ 1", o.jobs)
	case o.warmup <= 0:
		return nil, usagef("--warmup %v must be > 0", o.warmup)
	case o.window <= 0:
		return nil, usagef("--window %v must be > 0", o.window)
	case o.duration <= o.warmup:
		return nil, usagef("--duration %v must be after --warmup %v", o.duration, o.warmup)
	case o.perMethod != "" && !slices.Contains(o.apps, o.perMethod):
		return nil, usagef("--per-method %q is not one of --apps %s", o.perMethod, strings.Join(o.apps, ","))
	}
	return o, nil
}

// list splits a comma-separated flag, each item one of valid, in valid's
// order, each once.
func list(flagName, v string, valid []string) ([]string, error) {
	var got []string
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		if !slices.Contains(valid, s) {
			return nil, usagef("%s: %q is not one of %s", flagName, s, strings.Join(valid, ", "))
		}
		if slices.Contains(got, s) {
			return nil, usagef("%s: %q listed twice", flagName, s)
		}
		got = append(got, s)
	}
	var out []string
	for _, s := range valid {
		if slices.Contains(got, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if o.from != "" {
		res, err := readCSV(o.from)
		if err != nil {
			return usagef("--from: %v", err)
		}
		res.From = o.from
		return report(stdout, o, res, nil, nil)
	}
	real, err := readReal(o.data, o.apps, o.profilers, window{o.warmup, o.window})
	if err != nil {
		return usagef("%v", err)
	}
	// The nulls and the disagreement read the real jfr-dns runs even when
	// jfr-dns itself is not compared, if they are there.
	realDNS, realDNSCtx := map[string][]dist{}, map[string][]dist{}
	for _, app := range o.apps {
		runs, ok := real[app][profJFRDNS]
		if _, err := os.Stat(filepath.Join(o.data, app, profJFRDNS)); !ok && err == nil {
			extra, err := readReal(o.data, []string{app}, []string{profJFRDNS}, window{o.warmup, o.window})
			if err != nil {
				return usagef("%v", err)
			}
			runs = extra[app][profJFRDNS]
		}
		for _, r := range runs {
			realDNS[app] = append(realDNS[app], r.Self)
			realDNSCtx[app] = append(realDNSCtx[app], r.Contexts)
		}
	}
	ms := modelSettings{Skip: o.warmup, Duration: o.duration, Seeds: o.seeds, Jobs: o.jobs, LoopScale: o.loopScale, CPUs: o.cpus, Models: o.models}
	sims, err := runModels(ctx, o.apps, o.profilers, ms, stderr)
	if err != nil {
		return err
	}
	res := analyse(o.apps, o.profilers, real, realDNS, sims)
	for _, app := range o.apps {
		for _, prof := range o.profilers {
			if c, ok := compareContexts(app, prof, real[app][prof], realDNSCtx[app], sims[app].Contexts[prof]); ok {
				res.Contexts = append(res.Contexts, c)
			}
		}
	}
	res.Settings = ms
	return report(stdout, o, res, real, sims)
}

// report writes the Markdown (with --per-method's table and --baseline's
// comparison) and --csv's file.
func report(stdout io.Writer, o *options, res *results, real map[string]map[string][]realRun, sims map[string]*simResult) error {
	var base *results
	if o.baseline != "" {
		var err error
		if base, err = readCSV(o.baseline); err != nil {
			return usagef("--baseline: %v", err)
		}
	}
	writeMarkdown(stdout, res)
	if o.perMethod != "" {
		writePerMethod(stdout, o.perMethod, o.profilers, real[o.perMethod], sims[o.perMethod])
	}
	if base != nil {
		writeAgainst(stdout, o.baseline, base, res)
	}
	if o.csv != "" {
		f, err := os.Create(o.csv)
		if err != nil {
			return usagef("--csv: %v", err)
		}
		if err := writeCSV(f, res); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}

// analyse computes every cell, disagreement and criterion.
func analyse(apps, profilers []string, real map[string]map[string][]realRun, realDNS map[string][]dist, sims map[string]*simResult) *results {
	res := &results{Apps: apps, Profilers: profilers, Real: real, Ends: map[string][]time.Duration{}}
	selfs := func(runs []realRun) []dist {
		var ds []dist
		for _, r := range runs {
			ds = append(ds, r.Self)
		}
		return ds
	}
	for _, app := range apps {
		res.Ends[app] = sims[app].Ends
		for _, prof := range profilers {
			res.Cells = append(res.Cells, compareCell(app, prof, selfs(real[app][prof]), realDNS[app],
				sims[app].Profiles[prof], sims[app].Truth[prof]))
		}
	}
	for _, app := range apps {
		simDNS, ok := sims[app].Profiles[profJFRDNS]
		if !ok {
			continue
		}
		for _, prof := range []string{profSafepoint, profJFR} {
			if !slices.Contains(profilers, prof) {
				continue
			}
			res.Dis = append(res.Dis, compareDisagreement(app, prof, selfs(real[app][prof]), realDNS[app],
				sims[app].Profiles[prof], simDNS))
		}
	}
	res.Criteria = evaluate(profilers, res.Cells, res.Dis)
	return res
}
