package study

import (
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"

	gonumstat "gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/profsim/profsim/sim"
)

// Options choose an experiment's size.
type Options struct {
	// Seeds are the runs per configuration (≥ 3 for claims).
	Seeds []uint64
	// Full runs the paper-sized version (more benchmarks, longer runs).
	Full bool
	// Paper runs the experiments that run length limits at the paper's
	// run length, on their default stand-ins (Experiment.Paper says what
	// that is; experiments without one ignore it). It does not combine
	// with Full.
	Paper bool
	// Runs, if set, counts the experiment's runs as they are asked for
	// and made (for a progress display).
	Runs *Counter
	// Models runs the experiment on the models of the DaCapo-2006
	// applications (workloads/models) instead of the synthetic
	// stand-ins; only experiments with Experiment.Models accept it.
	Models bool
	// Store, if set, keeps the runs on disk: runs it holds are read, not
	// made again, and the runs made are stored (Store).
	Store *Store
	// models, modelScale and modelDuration, when set, replace the models
	// run, the entry-loop scale of their runs to the end and the length
	// of their runs of a fixed duration (tests of the plumbing).
	models        []string
	modelScale    float64
	modelDuration sim.Time
}

// DefaultOptions is the test-sized version: seeds 1–3.
func DefaultOptions() Options { return Options{Seeds: []uint64{1, 2, 3}} }

// Result is what an experiment produces: its typed data, the table and
// figure rendered from it, and its observations as tidy data.
type Result struct {
	Table  *Table
	Figure *Figure
	// Data is the experiment's typed result (*m1Result, …): what its
	// claim test asserts on, field by field.
	Data any
	// Tidy is the data in long format, one observation per row with its
	// seed, unrounded: written as NAME.data.csv.
	Tidy *Tidy
}

// renderer is an experiment's typed result: render turns it into its
// table, figure and tidy data.
type renderer interface {
	render() (*Result, error)
}

// typed makes an Experiment.Run of a measuring step returning a typed
// result: measure, then render, with the typed result as Data.
func typed[T renderer](measure func(Options) (T, error)) func(Options) (*Result, error) {
	return func(o Options) (*Result, error) {
		d, err := measure(o)
		if err != nil {
			return nil, err
		}
		r, err := d.render()
		if err != nil {
			return nil, err
		}
		r.Data = d
		return r, nil
	}
}

// Experiment is one reproduction, runnable from tests and the CLI.
type Experiment struct {
	Name  string // CLI name, e.g. "m2-causality"
	Claim string // CLAIMS.md ID, e.g. "M2"
	Title string
	Run   func(Options) (*Result, error)
	// Models: the experiment runs on the models of real applications too
	// (Options.Models); Run refuses Options.Models otherwise.
	Models bool
	// Paper, for the experiments whose test-size runs are too short for
	// the paper's figure, says what Options.Paper runs (the runs' length
	// and what it buys); "" when run length does not limit the
	// experiment.
	Paper string
}

// ErrOptions is what an experiment's error wraps when its Options cannot
// give what it measures (too few seeds, ...): bad input, not a failure.
var ErrOptions = errors.New("options")

var experiments = map[string]Experiment{}

func register(e Experiment) {
	if _, dup := experiments[e.Name]; dup {
		panic("study: duplicate experiment " + e.Name)
	}
	if !e.Models {
		run, name := e.Run, e.Name
		e.Run = func(o Options) (*Result, error) {
			if o.Models {
				return nil, fmt.Errorf("%s: no version on the models of real applications (Options.Models)", name)
			}
			return run(o)
		}
	}
	experiments[e.Name] = e
}

// Experiments lists the registered experiments by name.
func Experiments() []Experiment {
	out := make([]Experiment, 0, len(experiments))
	for _, e := range experiments {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup finds an experiment by name.
func Lookup(name string) (Experiment, bool) {
	e, ok := experiments[name]
	return e, ok
}

// Write stores the result as name.csv (the presentation table), name.md,
// name.data.csv (the tidy data, when the experiment has it), name.svg and
// name.png
// in dir.
func (r *Result) Write(dir, name string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, name+".csv"))
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	if err := w.Write(r.Table.Columns); err != nil {
		f.Close()
		return err
	}
	if err := w.WriteAll(r.Table.Rows); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, name+".md"), []byte(r.Table.Markdown()), 0o644); err != nil {
		return err
	}
	if r.Tidy != nil {
		if err := r.Tidy.WriteFile(filepath.Join(dir, name+".data.csv")); err != nil {
			return err
		}
	}
	if r.Figure != nil {
		// The SVG in points; the PNG the same layout at slideDPI, for
		// slides.
		if err := r.Figure.Save(filepath.Join(dir, name+".svg")); err != nil {
			return err
		}
		return r.Figure.Save(filepath.Join(dir, name+".png"))
	}
	return nil
}

// MeanCI returns the mean of xs and the half-width of its 95 %
// confidence interval by Student's t (NaN half-width for one value).
func MeanCI(xs []float64) (mean, half float64) {
	mean = gonumstat.Mean(xs, nil)
	if len(xs) < 2 {
		return mean, math.NaN()
	}
	sd := gonumstat.StdDev(xs, nil)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(xs) - 1)}.Quantile(0.975)
	return mean, t * sd / math.Sqrt(float64(len(xs)))
}

// stat is an estimate over seeds (or over stand-ins): the mean, the
// half-width of its 95 % confidence interval by Student's t (NaN for one
// value) and the number of values.
type stat struct {
	Mean, CI float64
	N        int
}

// newStat is the stat of xs.
func newStat(xs []float64) stat {
	m, h := MeanCI(xs)
	return stat{Mean: m, CI: h, N: len(xs)}
}

// Lo and Hi are the ends of the confidence interval.
func (s stat) Lo() float64 { return s.Mean - s.CI }
func (s stat) Hi() float64 { return s.Mean + s.CI }

// String renders mean ± half-width, two decimals.
func (s stat) String() string { return fmtCI(s.Mean, s.CI) }

// fmtCI renders mean ± half-width.
func fmtCI(mean, half float64) string {
	if math.IsNaN(half) {
		return fmt.Sprintf("%.2f", mean)
	}
	return fmt.Sprintf("%.2f ± %.2f", mean, half)
}

// quantile of sorted xs (empirical).
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	return gonumstat.Quantile(q, gonumstat.Empirical, sorted, nil)
}
