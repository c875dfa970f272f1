package study

import (
	"fmt"

	"gonum.org/v1/plot"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "d4-overhead", Claim: "D4", Title: "Burchell et al. (MPLR'23): the profilers' overheads, 1–5.4 %", Run: typed(measureD4)})
}

// d4Profilers are the paper's profilers as profsim has them, each at
// its default rate: async-profiler (Honest Profiler samples the same
// way, through AsyncGetCallTrace from a signal), JFR, and the JProfiler-
// and YourKit-like safepoint samplers, beside the plain safepoint
// (JVMTI GetAllStackTraces) sampler.
var d4Profilers = []string{"async", "jfr", "jprofile", "yourkit", "safepoint"}

// d4Key is one D4 run: D6's bench at seed to its end with prof costed
// ("": none).
type d4Key struct {
	bench d6Bench
	seed  uint64
	prof  string
}

// spec is D6's unslowed run of bench with prof alone, costed: its
// agent's threads and the stalls it imposes take their measured time.
func (k d4Key) spec() harness.Spec {
	s := d6Key{bench: k.bench, seed: k.seed, factor: 1}.spec()
	s.Samplers = nil
	if k.prof != "" {
		s.Samplers, s.Mode = []string{k.prof}, samplers.Costed
	}
	return s
}

func (k d4Key) run() (sim.Time, error) {
	out, err := runSpec(k.spec(), func(cfg *harness.Config) {
		cfg.NoTruthProfile = true // only the end is read
	})
	if err != nil {
		return 0, fmt.Errorf("%s seed %d %s: %w", k.bench.Name, k.seed, k.prof, err)
	}
	return out.Result.End, nil
}

// d4Obs is one tidy observation: Bench at Seed unprofiled (BaseS) and
// with Profiler costed (RunS), and the overhead RunS/BaseS − 1 (%).
type d4Obs struct {
	Bench    string  `tidy:"benchmark"`
	Seed     uint64  `tidy:"seed"`
	Profiler string  `tidy:"profiler"`
	BaseS    float64 `tidy:"base_s"`
	RunS     float64 `tidy:"run_s"`
	Overhead float64 `tidy:"overhead_pct"`
}

// d4Result is D4's observations.
type d4Result struct {
	Seeds   []uint64
	Benches []d6Bench
	Obs     []d4Obs
}

// d4Benches are D6's programs, shorter: an overhead is a ratio of run
// lengths whose per-sample costs are fixed, the same at any length once
// the program runs steadily (measured, seeds 1–3: each profiler's range
// over the runs at D6's length and at a fifth of it differs by at most
// 0.18 points, jprofile 1.09–1.59 % against 1.07–1.77 %), so the stand-ins run
// at M2's iterations and the models at a fifth of the recording
// (--full: D6's sizes).
func d4Benches(o Options) []d6Bench {
	if o.Full {
		return d6Benches(o)
	}
	var out []d6Bench
	for _, b := range d6Benches(o) {
		if b.Scale > 0 {
			b.Scale = 0.2
		} else {
			b.Iters /= 5
		}
		out = append(out, b)
	}
	return out
}

func measureD4(o Options) (*d4Result, error) {
	benches := d4Benches(o)
	var keys []d4Key
	for _, b := range benches {
		for _, seed := range o.Seeds {
			for _, p := range append([]string{""}, d4Profilers...) {
				keys = append(keys, d4Key{b, seed, p})
			}
		}
	}
	ends, err := runAll(o, keys)
	if err != nil {
		return nil, err
	}
	at := map[d4Key]sim.Time{}
	for i, k := range keys {
		at[k] = ends[i]
	}
	res := &d4Result{Seeds: o.Seeds, Benches: benches}
	for _, b := range benches {
		for _, seed := range o.Seeds {
			base := at[d4Key{b, seed, ""}].Seconds()
			for _, p := range d4Profilers {
				run := at[d4Key{b, seed, p}].Seconds()
				res.Obs = append(res.Obs, d4Obs{Bench: b.Name, Seed: seed, Profiler: p, BaseS: base, RunS: run, Overhead: 100 * (run/base - 1)})
			}
		}
	}
	return res, nil
}

// Overhead is profiler p's overhead (%) on bench over the seeds.
func (r *d4Result) Overhead(bench, p string) stat {
	return newStat(values(where(r.Obs, func(x d4Obs) bool { return x.Bench == bench && x.Profiler == p }), func(x d4Obs) float64 { return x.Overhead }))
}

func (r *d4Result) render() (*Result, error) {
	cols := append([]string{"benchmark", "unprofiled (s)"}, d4Profilers...)
	t := &Table{Title: "D4: overhead of each profiler, costed, on a run to the program's end (%, mean ± 95 % CI over seeds)", Columns: cols}
	for _, b := range r.Benches {
		base := newStat(values(where(r.Obs, func(x d4Obs) bool { return x.Bench == b.Name && x.Profiler == d4Profilers[0] }), func(x d4Obs) float64 { return x.BaseS }))
		row := []any{b.Name, fmt.Sprintf("%.3f", base.Mean)}
		for _, p := range d4Profilers {
			row = append(row, r.Overhead(b.Name, p).String())
		}
		t.AddRow(row...)
	}
	t.Notes = []string{fmt.Sprintf("Seeds %v; D6's programs at a fifth of its length (--full: its length), each run to its end, HotSpot 17 with DebugNonSafepoints, 4 CPUs; each profiler alone at its default rate in costed mode (its agent's CPU, its stalls and safepoints take their calibrated time, docs/CALIBRATION.md) against the same run unprofiled: overhead = profiled run's length / unprofiled − 1.", r.Seeds)}
	t.Notes = append(t.Notes, discussion("d4-overhead")...)
	fig, err := r.figure()
	if err != nil {
		return nil, err
	}
	return &Result{Table: t, Tidy: tidyOf(r.Obs), Figure: fig}, nil
}

// figure: each profiler's overhead per program, with the paper's range.
func (r *d4Result) figure() (*Figure, error) {
	p := plot.New()
	p.Title.Text = "D4: profiler overhead"
	p.X.Label.Text = "profiler"
	p.Y.Label.Text = "overhead (% of the unprofiled run)"
	for bi, b := range r.Benches {
		var pts errPoints
		for i, prof := range d4Profilers {
			pts.add(float64(i)-0.3+0.6*float64(bi)/float64(max(len(r.Benches)-1, 1)), r.Overhead(b.Name, prof))
		}
		if err := pts.addTo(p, series{Label: b.Name, Style: bi}); err != nil {
			return nil, err
		}
	}
	if err := addRefLines(p, -0.5, float64(len(d4Profilers))-0.5, refLine{5.4, "paper: at most 5.4 %"}, refLine{1, "paper: at least 1 %"}); err != nil {
		return nil, err
	}
	p.NominalX(d4Profilers...)
	p.X.Min, p.X.Max = -0.5, float64(len(d4Profilers))-0.5
	p.Y.Min = 0
	return newFigure("Each profiler's overhead on each program (mean over seeds with its CI), every profiler alone and costed, against the unprofiled run; the grey dashed lines are the paper's range, 1 % and 5.4 %. async = async-profiler; jfr = Java Flight Recorder; jprofile and yourkit = JProfiler- and YourKit-like safepoint samplers; safepoint = JVMTI GetAllStackTraces at a global safepoint. JVMTI = Java virtual machine tool interface. "+captionCI, p), nil
}
