package study

import (
	"fmt"
)

func init() {
	register(Experiment{Name: "b4-maxpath", Claim: "B4", Title: "Binder §6: accuracy with and without MaxPath", Run: typed(measureB4)})
}

// b4Obs is one tidy observation of B4: Komorium's overlap (%) with the
// exact bytecode CCT at granularity 10 000 on Benchmark with Seed, MaxPath
// 50 or 0 (off).
type b4Obs struct {
	Benchmark  string
	Seed       uint64
	MaxPath    int
	OverlapPct float64 `tidy:"overlap_pct"`
}

// b4Result is B4's runs.
type b4Result struct {
	Seeds   []uint64
	Benches []string
	Obs     []b4Obs
}

// Accuracy is the overlap on b with MaxPath mp over the seeds.
func (r *b4Result) Accuracy(b string, mp int) stat {
	runs := mustWhere(r.Obs, func(x b4Obs) bool { return x.Benchmark == b && x.MaxPath == mp }, "B4 has no runs of %s with MaxPath %d", b, mp)
	return newStat(values(runs, func(x b4Obs) float64 { return x.OverlapPct }))
}

// Loss is the accuracy (points) b loses with MaxPath off.
func (r *b4Result) Loss(b string) float64 {
	return r.Accuracy(b, 50).Mean - r.Accuracy(b, 0).Mean
}

// measureB4: accuracy at granularity 10 000 with MaxPath 50 (from the
// grid) and with MaxPath off (a check only at returns, calls and loop
// heads).
func measureB4(o Options) (*b4Result, error) {
	grid, err := binderGrid(o)
	if err != nil {
		return nil, err
	}
	benches, d := binderSetup(o)
	const g = 10000
	var keys []komoriumKey
	for _, b := range benches {
		for _, s := range o.Seeds {
			keys = append(keys, komoriumKey{bench: b, seed: s, d: d, gran: g, noMaxPath: true})
		}
	}
	off, err := runAll(o, keys)
	if err != nil {
		return nil, err
	}
	res := &b4Result{Seeds: o.Seeds, Benches: benches}
	for i, k := range keys {
		res.Obs = append(res.Obs, b4Obs{k.bench, k.seed, 50, grid[binderKey{k.bench, g, false, k.seed}].Overlap},
			b4Obs{k.bench, k.seed, 0, off[i].Overlap})
	}
	return res, nil
}

func (r *b4Result) render() (*Result, error) {
	t := &Table{Title: "Accuracy (%) at granularity 10 000, MaxPath 50 vs off (mean ± 95 % CI over seeds)", Columns: []string{"benchmark", "MaxPath 50", "MaxPath off", "loss (points)"}}
	for _, b := range r.Benches {
		on, no := r.Accuracy(b, 50), r.Accuracy(b, 0)
		t.AddRow(b, fmt.Sprintf("%.1f ± %.1f", on.Mean, on.CI), fmt.Sprintf("%.1f ± %.1f", no.Mean, no.CI), fmt.Sprintf("%+.1f", on.Mean-no.Mean))
	}
	t.Notes = append(t.Notes, discussion("b4-maxpath")...)
	return &Result{Table: t, Tidy: tidyOf(r.Obs)}, nil
}
