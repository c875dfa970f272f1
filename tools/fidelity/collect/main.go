// Command collect is the table side of the fidelity harness
// (tools/fidelity/README.md). It reads the real runs run.sh left in
// OUT/MODE/PROFILER/REP/ (meta, raw.json or raw.collapsed), reduces each
// to the share of its samples per method (the innermost frame of the
// program's own methods) and per thread, runs each mode's profsim twin
// under the sampler that plays each profiler, and prints the table:
// real median [min–max] over the reps against profsim's, |diff| and
// whether it is within 10 points. Markdown to standard output or --md,
// CSV with --csv.
//
//	go run ./tools/fidelity/collect --out DIR [--md FILE] [--csv FILE]
//	    [--modes a,b] [--profilers p,q] [--seeds N] [--jobs N] [--cpus N]
//	    [--spec ID=SPEC]... [--no-sim]
//	go run ./tools/fidelity/collect --check RUNDIR
//
// --check reads one run (RUNDIR/meta.part, else RUNDIR/meta) and prints a
// summary; run.sh calls it after each run. Bad input — a file that does
// not parse, a flag out of range — is exit status 2, naming the file.
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
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/profsim/profsim/workloads"
)

// usageError is bad input or flags: exit status 2.
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

type specFlag map[string]string

func (s specFlag) String() string { return "" }
func (s specFlag) Set(v string) error {
	id, spec, ok := strings.Cut(v, "=")
	if !ok || spec == "" {
		return fmt.Errorf("%q: want ID=SPEC", v)
	}
	if _, ok := lookupProfiler(id); !ok {
		return fmt.Errorf("%q: profiler %q is not one of %s", v, id, strings.Join(profilerIDs(), ", "))
	}
	s[id] = spec
	return nil
}

func main() {
	err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "collect:", err)
	}
	os.Exit(exitCode(err))
}

// exitCode is the exit status of run's error: 0, 2 for bad input or
// flags (usageError), 1 for anything else.
func exitCode(err error) int {
	var u usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &u):
		return 2
	}
	return 1
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("collect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		check, out, md, csvPath string
		modesF, profsF          string
		seeds, jobs, cpus       int
		noSim                   bool
		specs                   = specFlag{}
	)
	fs.StringVar(&check, "check", "", "read one run's `DIR` and print a summary")
	fs.StringVar(&out, "out", "", "run.sh's output `DIR`: MODE/PROFILER/REP/{meta,raw.*}")
	fs.StringVar(&md, "md", "", "write the Markdown table to `FILE` (default standard output)")
	fs.StringVar(&csvPath, "csv", "", "also write the table as CSV to `FILE`")
	fs.StringVar(&modesF, "modes", strings.Join(modeNames(), ","), "comma-separated modes")
	fs.StringVar(&profsF, "profilers", strings.Join(profilerIDs(), ","), "comma-separated profilers")
	fs.IntVar(&seeds, "seeds", 3, "profsim seeds 1..N per cell")
	fs.IntVar(&jobs, "jobs", runtime.GOMAXPROCS(0), "simulated runs at once")
	fs.IntVar(&cpus, "cpus", defaultCPUs, "simulated CPUs (the real machine's cores)")
	fs.BoolVar(&noSim, "no-sim", false, "real side only")
	fs.Var(specs, "spec", "use sampler `ID=SPEC` for profiler ID (repeat)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if check != "" {
		return runCheck(check, stdout)
	}
	if out == "" {
		return usagef("--out is required (or --check)")
	}
	modes, err := pick("--modes", modesF, Modes, func(m Mode) string { return m.Name })
	if err != nil {
		return err
	}
	profs, err := pick("--profilers", profsF, Profilers, func(p Profiler) string { return p.ID })
	if err != nil {
		return err
	}
	switch {
	case seeds < 1 || seeds > 100:
		return usagef("--seeds %d: want 1 … 100", seeds)
	case jobs < 1:
		return usagef("--jobs %d: want ≥ 1", jobs)
	case cpus < 1 || cpus > 1024:
		return usagef("--cpus %d: want 1 … 1024", cpus)
	}
	runs, err := ReadRuns(out, modes, profs)
	if err != nil {
		return usageError{err}
	}
	if len(runs) == 0 {
		return usagef("%s: no completed run (MODE/PROFILER/REP/meta)", out)
	}
	// The table covers the modes and profilers that have runs (a partial
	// run.sh, or one with --modes or --profilers, leaves the others out).
	modes = slices.DeleteFunc(modes, func(m Mode) bool {
		return !slices.ContainsFunc(runs, func(r *Run) bool { return r.Meta.Mode == m.Name })
	})
	profs = slices.DeleteFunc(profs, func(p Profiler) bool {
		return !slices.ContainsFunc(runs, func(r *Run) bool { return r.Meta.Profiler == p.ID })
	})
	profs = vmOfRuns(profs, runs)
	h := HeaderOf(runs)
	h.Seeds = seeds
	for _, r := range runs {
		if r.Meta.WarmupS != h.Warmup || r.Meta.WindowS != h.Window {
			return usagef("%s: warm-up %d s and window %d s, but other runs have %d s and %d s: one table needs one setting", r.Dir, r.Meta.WarmupS, r.Meta.WindowS, h.Warmup, h.Window)
		}
	}
	real := map[string]map[string][]Shares{}
	for _, r := range runs {
		m, _ := lookupMode(r.Meta.Mode)
		sc, err := scopeOfMode(m)
		if err != nil {
			return err
		}
		if real[m.Name] == nil {
			real[m.Name] = map[string][]Shares{}
		}
		real[m.Name][r.Meta.Profiler] = append(real[m.Name][r.Meta.Profiler], ShareOf(Reduce(r.Stacks, sc, m.Keys), m.Keys))
		h.Reps = max(h.Reps, r.Meta.Rep)
	}
	var sims *SimResult
	if !noSim {
		s := SimSettings{Warmup: time.Duration(h.Warmup) * time.Second, Window: time.Duration(h.Window) * time.Second,
			Seeds: seeds, Jobs: jobs, CPUs: cpus, Specs: specs}
		sims, err = RunTwins(ctx, modes, profs, s, func(msg string) { fmt.Fprintln(stderr, msg) })
		if err != nil {
			return err
		}
		h.Notes = sims.Notes
	}
	rows := BuildRows(modes, profs, real, sims)
	w := stdout
	if md != "" {
		f, err := os.Create(md)
		if err != nil {
			return usagef("--md: %v", err)
		}
		defer f.Close()
		w = f
	}
	WriteMarkdown(w, h, rows)
	if csvPath != "" {
		f, err := os.Create(csvPath)
		if err != nil {
			return usagef("--csv: %v", err)
		}
		if err := WriteCSV(f, rows); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return nil
}

// pick splits a comma-separated flag into items of all, in all's order.
func pick[T any](name, v string, all []T, id func(T) string) ([]T, error) {
	var ids []string
	for _, x := range all {
		ids = append(ids, id(x))
	}
	var want []string
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		if !slices.Contains(ids, s) {
			return nil, usagef("%s: %q is not one of %s", name, s, strings.Join(ids, ", "))
		}
		want = append(want, s)
	}
	var out []T
	for _, x := range all {
		if slices.Contains(want, id(x)) {
			out = append(out, x)
		}
	}
	return out, nil
}

// vmOfRuns sets the VM preset of the async-profiler profilers from their
// runs' JDK (run.sh's AP_JDK): hotspot17 when every run was on JDK 17,
// else their own (hotspot25).
func vmOfRuns(profs []Profiler, runs []*Run) []Profiler {
	out := slices.Clone(profs)
	for i, p := range out {
		if !p.Async {
			continue
		}
		n, on17 := 0, 0
		for _, r := range runs {
			if r.Meta.Profiler == p.ID {
				n++
				if strings.HasPrefix(r.Meta.JavaVersion, "17.") {
					on17++
				}
			}
		}
		if n > 0 && on17 == n {
			out[i].VM = "hotspot17"
		}
	}
	return out
}

// scopeOfMode is the twin's threads and methods.
func scopeOfMode(m Mode) (Scope, error) {
	p, err := workloads.Get(m.Twin)
	if err != nil {
		return Scope{}, fmt.Errorf("twin of %s: %w", m.Name, err)
	}
	return ScopeOf(p), nil
}

// ReadRuns reads every completed run (one with a meta file) of the modes
// and profilers under dir, in mode, profiler, rep order. A run's
// directory must be MODE/PROFILER/REP as its meta says.
func ReadRuns(dir string, modes []Mode, profs []Profiler) ([]*Run, error) {
	var runs []*Run
	for _, m := range modes {
		for _, p := range profs {
			pd := filepath.Join(dir, m.Name, p.ID)
			entries, err := os.ReadDir(pd)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			var reps []int
			for _, e := range entries {
				if n, err := strconv.Atoi(e.Name()); err == nil && e.IsDir() {
					if _, err := os.Stat(filepath.Join(pd, e.Name(), "meta")); err == nil {
						reps = append(reps, n)
					}
				}
			}
			sort.Ints(reps)
			for _, n := range reps {
				rd := filepath.Join(pd, strconv.Itoa(n))
				r, err := ReadRun(rd, "meta")
				if err != nil {
					return nil, err
				}
				if r.Meta.Mode != m.Name || r.Meta.Profiler != p.ID || r.Meta.Rep != n {
					return nil, fmt.Errorf("%s: meta says mode %s, profiler %s, rep %d", filepath.Join(rd, "meta"), r.Meta.Mode, r.Meta.Profiler, r.Meta.Rep)
				}
				runs = append(runs, r)
			}
		}
	}
	return runs, nil
}

// runCheck reads one run and prints its summary.
func runCheck(dir string, stdout io.Writer) error {
	name := "meta.part"
	if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
		name = "meta"
	}
	r, err := ReadRun(dir, name)
	if err != nil {
		return usageError{err}
	}
	m, ok := lookupMode(r.Meta.Mode)
	if !ok {
		return usagef("%s: mode %q is not one of %s", filepath.Join(dir, name), r.Meta.Mode, strings.Join(modeNames(), ", "))
	}
	sc, err := scopeOfMode(m)
	if err != nil {
		return err
	}
	smp := Reduce(r.Stacks, sc, m.Keys)
	if len(smp) == 0 {
		return usagef("%s: %d stacks, none on the program's threads", dir, len(r.Stacks))
	}
	note := ""
	if r.Meta.Profiler == "jfr25-cpu" {
		note = fmt.Sprintf("; JFR: %d biased, %d lost", r.Biased, r.Lost)
	}
	fmt.Fprintln(stdout, Summary(smp, len(r.Stacks))+note)
	return nil
}
