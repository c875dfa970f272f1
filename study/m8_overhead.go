package study

import (
	"fmt"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "m8-overhead", Claim: "M8", Title: "Mytkowicz Table 1: overhead of the safepoint profilers", Run: typed(measureM8)})
}

// m8Profilers are the safepoint profilers whose overhead M8 measures.
var m8Profilers = []string{"hprof", "xprof", "jprofile", "yourkit"}

// m8Obs is one tidy observation: the run time of Benchmark with Seed
// without a profiler (BaseS) and with Profiler costed (RunS).
type m8Obs struct {
	Benchmark string
	Seed      uint64
	Profiler  string
	BaseS     float64 `tidy:"base_s"`
	RunS      float64 `tidy:"run_s"`
	Slowdown  float64
}

// m8Result is M8's observations, by stand-in, seed and profiler.
type m8Result struct {
	Seeds []uint64
	Obs   []m8Obs
}

// Slowdown is profiler p's slowdown on benchmark b over the seeds.
func (r *m8Result) Slowdown(p, b string) stat {
	runs := where(r.Obs, func(x m8Obs) bool { return x.Profiler == p && x.Benchmark == b })
	return newStat(values(runs, func(x m8Obs) float64 { return x.Slowdown }))
}

// Mean is profiler p's slowdown over the stand-ins (each the mean over
// seeds), with its 95 % CI.
func (r *m8Result) Mean(p string) stat {
	var xs []float64
	for _, b := range causalityBenchmarks {
		xs = append(xs, r.Slowdown(p, b.name).Mean)
	}
	return newStat(xs)
}

// Runs lists profiler p's slowdowns, one per (stand-in, seed).
func (r *m8Result) Runs(p string) []float64 {
	return values(where(r.Obs, func(x m8Obs) bool { return x.Profiler == p }), func(x m8Obs) float64 { return x.Slowdown })
}

// m8Key is one M8 run of stand-in bench at iters iterations to its end,
// with prof costed ("": no profiler); its result the run's end.
type m8Key struct {
	bench string
	iters int
	seed  uint64
	prof  string
}

func (k m8Key) run() (sim.Time, error) {
	s := paperSpec(k.bench, k.seed, 120*sim.Second)
	s.Iterations = k.iters
	s.Truth = "methods"
	if k.prof != "" {
		s.Samplers, s.Mode = []string{k.prof}, samplers.Costed
	}
	out, err := runSpec(s, func(cfg *harness.Config) {
		cfg.NoTruthProfile = true // only the end is read
	})
	if err != nil {
		return 0, err
	}
	return out.Result.End, nil
}

// measureM8 runs each stand-in to its end without a profiler and with each
// safepoint profiler costed, for every seed.
func measureM8(o Options) (*m8Result, error) {
	var keys []m8Key
	for _, b := range causalityBenchmarks {
		for _, seed := range o.Seeds {
			for _, prof := range append([]string{""}, m8Profilers...) {
				keys = append(keys, m8Key{b.name, b.iters, seed, prof})
			}
		}
	}
	ends, err := runAll(o, keys)
	if err != nil {
		return nil, err
	}
	base := map[[2]any]sim.Time{}
	for i, k := range keys {
		if k.prof == "" {
			base[[2]any{k.bench, k.seed}] = ends[i]
		}
	}
	res := &m8Result{Seeds: o.Seeds}
	for i, k := range keys {
		if k.prof == "" {
			continue
		}
		b0 := base[[2]any{k.bench, k.seed}]
		res.Obs = append(res.Obs, m8Obs{Benchmark: k.bench, Seed: k.seed, Profiler: k.prof,
			BaseS: b0.Seconds(), RunS: ends[i].Seconds(), Slowdown: float64(ends[i]) / float64(b0)})
	}
	return res, nil
}

func (r *m8Result) render() (*Result, error) {
	_, ref := readReference("mytkowicz2010_table1_overhead.csv")
	refByBench := map[string][]string{}
	for _, x := range ref {
		refByBench[x[0]] = x
	}
	cols := []string{"benchmark", "run time"}
	for _, p := range m8Profilers {
		cols = append(cols, p, "paper "+p)
	}
	t := &Table{Title: "Overhead (run time with the profiler / without, mean over seeds), costed runs to the end", Columns: cols}
	for _, b := range causalityBenchmarks {
		base := values(where(r.Obs, func(x m8Obs) bool { return x.Benchmark == b.name && x.Profiler == m8Profilers[0] }), func(x m8Obs) float64 { return x.BaseS })
		cells := []any{b.name, fmt.Sprintf("%.3fs", newStat(base).Mean)}
		rf := refByBench[b.name]
		for i, prof := range m8Profilers {
			paper := ""
			if rf != nil && 3+i < len(rf) {
				paper = rf[3+i] + "×"
			}
			cells = append(cells, fmt.Sprintf("%.3f×", r.Slowdown(prof, b.name).Mean), paper)
		}
		t.AddRow(cells...)
	}
	mean := []any{"mean", ""}
	for _, prof := range m8Profilers {
		mean = append(mean, fmt.Sprintf("%.3f×", r.Mean(prof).Mean), "")
	}
	t.AddRow(mean...)
	t.Notes = append(t.Notes, fmt.Sprintf("Seeds %v. Costed: each profiler's agent thread, safepoint pauses, VM-thread stack walks and allocation. Our per-sample costs (2–200 µs every 10 ms) give overheads of a few per cent at most; the paper's 1.1–1.5× means come from costs we do not model (JVMTI capabilities that restrict the JIT, agents' bookkeeping and I/O).", r.Seeds))
	return &Result{Table: t, Tidy: tidyOf(r.Obs)}, nil
}
