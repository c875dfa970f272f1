package study

import (
	"fmt"
	"github.com/profsim/profsim/param"
	"image/color"
	"strconv"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "a4-inlining", Claim: "A4", Title: "Arnold & Grove Fig. 5: profile-directed inlining driven by timer vs CBS call graphs", Run: typed(measureA4)})
}

// a4Inliner is one of Fig. 5's two VMs' inlining policies.
type a4Inliner struct {
	name string
	// staticSize is the static heuristics' size limit (MaxInlineSize).
	staticSize int64
	// overrides: the profile's verdict replaces the static heuristics
	// (J9: a cold call site is not inlined) instead of adding to them
	// (Jikes RVM's new inliner).
	overrides bool
}

var (
	a4Inliners = []a4Inliner{{"jikes", 35, false}, {"j9", 100, true}}
	// a4Sources: the call graph the inliner reads; "static" is the
	// baseline — the static heuristics alone.
	a4Sources = []struct{ name, sampler, from string }{
		{"static", "", "none"}, {"timer", "jikes-timer", "jikes-timer"}, {"cbs", "cbs", "cbs"}, {"exact", "", "exact"},
	}
)

// a4Key is one A4 run: bench for d under a4Inliners[inl] reading the
// call graph a4Sources[src].
type a4Key struct {
	bench    string
	seed     uint64
	inl, src int
	d        sim.Time
}

func (k a4Key) run() (float64, error) { return a4Work(k.bench, k.seed, k.d, a4Inliners[k.inl], k.src) }

// a4Work runs one configuration and returns the bytecodes executed after
// the warm-up (steady state).
func a4Work(bench string, seed uint64, d sim.Time, inl a4Inliner, src int) (float64, error) {
	s := paperSpec(bench, seed, d)
	s.VM = "jikes"
	s.Sets = []param.KV{
		{Key: "jit.receiver_dominance", Value: "0.4"}, // guarded inlining above 40 % of a site's targets
		{Key: "jit.max_inline_size", Value: strconv.FormatInt(inl.staticSize, 10)},
		{Key: "jit.profile_overrides_static", Value: strconv.FormatBool(inl.overrides && a4Sources[src].from != "none")},
	}
	if a4Sources[src].sampler != "" {
		s.Samplers = []string{a4Sources[src].sampler}
	}
	s.InlineFrom = a4Sources[src].from
	// The call graph matures for a quarter of the run, the adaptive system
	// then re-optimizes with it, and the second half is measured.
	s.RecompileAt = time.Duration(d / 4)
	s.Truth = "methods"
	out, err := runSpec(s, func(cfg *harness.Config) {
		cfg.WarmUp = d / 2
		cfg.NoTruthProfile = true // only the bytecodes executed are read
	})
	if err != nil {
		return 0, fmt.Errorf("%s/%s/%s: %w", bench, inl.name, a4Sources[src].name, err)
	}
	return float64(out.Result.Truth.BytecodeTotal() - out.WarmUpBytecodes), nil
}

// a4Obs is one tidy observation: the bytecodes executed in the measured
// steady state of Benchmark with Seed, under Inliner reading Source's call
// graph ("static": none), and its speed-up (%) over the static heuristics
// with the same seed.
type a4Obs struct {
	Benchmark  string
	Seed       uint64
	Inliner    string
	Source     string
	Bytecodes  float64
	SpeedupPct float64 `tidy:"speedup_pct"`
}

// a4Result is A4's runs, by stand-in, seed, inliner and call graph.
type a4Result struct {
	Seeds    []uint64
	Benches  []string
	Duration sim.Time
	Obs      []a4Obs
}

// Speedup is the speed-up (%) of inliner reading source's graph over the
// static heuristics on benchmark b, paired by seed, over the seeds.
func (r *a4Result) Speedup(b, inliner, source string) stat {
	runs := mustWhere(r.Obs, func(x a4Obs) bool { return x.Benchmark == b && x.Inliner == inliner && x.Source == source },
		"A4 has no runs of %s/%s/%s", b, inliner, source)
	return newStat(values(runs, func(x a4Obs) float64 { return x.SpeedupPct }))
}

// Mean is the mean over the stand-ins of Speedup's means.
func (r *a4Result) Mean(inliner, source string) float64 {
	var m float64
	for _, b := range r.Benches {
		m += r.Speedup(b, inliner, source).Mean / float64(len(r.Benches))
	}
	return m
}

// measureA4 runs SPECjvm98 stand-ins under two inliners (Jikes RVM's new
// inliner; J9's aggressive static heuristics overridden by the profile)
// reading three call graphs — the timer's, CBS's and the exact one — and
// the static heuristics alone, every seed.
func measureA4(o Options) (*a4Result, error) {
	d := 300 * sim.Millisecond
	benches := []string{"jess", "javac", "mtrt"} // the ones the paper discusses

	if o.Full {
		d, benches = 2*sim.Second, a2Benches
	}
	var keys []a4Key
	for _, b := range benches {
		for _, seed := range o.Seeds {
			for ii := range a4Inliners {
				for src := range a4Sources {
					keys = append(keys, a4Key{b, seed, ii, src, d})
				}
			}
		}
	}
	vals, err := runAll(o, keys)
	if err != nil {
		return nil, err
	}
	work := map[a4Key]float64{}
	for i, k := range keys {
		work[k] = vals[i]
	}
	res := &a4Result{Seeds: o.Seeds, Benches: benches, Duration: d}
	for _, k := range keys {
		base := work[a4Key{k.bench, k.seed, k.inl, 0, k.d}]
		res.Obs = append(res.Obs, a4Obs{Benchmark: k.bench, Seed: k.seed, Inliner: a4Inliners[k.inl].name,
			Source: a4Sources[k.src].name, Bytecodes: work[k], SpeedupPct: 100 * (work[k]/base - 1)})
	}
	return res, nil
}

func (r *a4Result) render() (*Result, error) {
	d, benches := r.Duration, r.Benches
	t := &Table{Title: "Arnold & Grove Fig. 5: steady-state speed-up (%) of profile-directed inlining over static heuristics, by the call graph the inliner reads (mean ± 95 % CI over seeds)",
		Columns: []string{"benchmark", "jikes timer", "jikes cbs", "jikes exact", "j9 timer", "j9 cbs", "j9 exact", "paper"}}
	paper := map[string]string{
		"javac": "Jikes: cbs +4 % over timer", "mtrt": "J9: cbs +8.7 %", "jess": "Jikes: large gain, cbs ≈ timer",
		"compress": "Jikes: large gain; J9 timer −1 %", "mpegaudio": "Jikes: cbs slightly better", "jack": "Jikes: cbs slightly better",
	}
	for _, b := range benches {
		cells := []any{b}
		for _, inl := range a4Inliners {
			for src := 1; src < len(a4Sources); src++ {
				m := r.Speedup(b, inl.name, a4Sources[src].name)
				cells = append(cells, fmt.Sprintf("%+.2f ± %.2f", m.Mean, m.CI))
			}
		}
		cells = append(cells, paper[b])
		t.AddRow(cells...)
	}
	cells := []any{"mean"}
	for _, inl := range a4Inliners {
		for src := 1; src < len(a4Sources); src++ {
			cells = append(cells, fmt.Sprintf("%+.2f", r.Mean(inl.name, a4Sources[src].name)))
		}
	}
	t.AddRow(append(cells, "Jikes: no program degraded; J9: timer hurts 6 of 8")...)
	t.Notes = append(t.Notes, fmt.Sprintf("Jikes-like yield points, %v per run: the call graph matures for %v, every compiled method is then recompiled with it (the adaptive system's re-optimization), and the bytecodes executed in the last %v are compared with the static heuristics' (paired by seed). Jikes: static limit 35 bytecodes plus a profile-driven limit growing linearly to 325 at 1 %% of the DCG's weight; J9: static limit 100, replaced by the profile's limit (a site the profile never saw is not inlined). Guarded inlining of receivers above 40 %%. Samplers run passively, so their own cost is not in the comparison. The paper measured the second of two minutes.", d, d/4, d/2))
	res := &Result{Table: t, Tidy: tidyOf(r.Obs)}
	// Figure: each (inliner, call graph)'s speed-up per stand-in, mean and
	// 95 % CI over seeds, zero (the static heuristics) as reference.
	p := plot.New()
	p.Title.Text = "A4: speed-up of profile-directed inlining (mean ± 95 % CI over seeds)"
	p.Y.Label.Text = "steady-state speed-up over static heuristics (%)"
	k := 0
	for src := 1; src < len(a4Sources); src++ {
		for _, inl := range a4Inliners {
			var pts errPoints
			for bi, b := range benches {
				m := r.Speedup(b, inl.name, a4Sources[src].name)
				pts.add(float64(bi)-0.3+0.6*float64(k)/5, m)
			}
			if err := pts.addTo(p, series{Label: inl.name + " reading " + a4Sources[src].name, Style: k}); err != nil {
				return nil, err
			}
			k++
		}
	}
	zero, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 0}, {X: float64(len(benches)) - 0.5, Y: 0}})
	if err != nil {
		return nil, err
	}
	zero.Color, zero.Dashes = color.Gray{Y: 100}, []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(zero)
	p.NominalX(benches...)
	p.X.Min, p.X.Max = -0.5, float64(len(benches))-0.5
	res.Figure = newFigure("Speed-up in the steady state when each inliner (Jikes-like, J9-like) reads the call graph of a sampler instead of its static heuristics (0 %, dashed), per stand-in. "+captionCBS+" "+captionDCG+" "+captionCI, p)
	return res, nil
}
