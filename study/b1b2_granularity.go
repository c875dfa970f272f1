package study

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
)

func init() {
	register(Experiment{Name: "b1-constant", Claim: "B1", Title: "Binder Fig. 10a: accuracy vs constant granularity", Run: typed(func(o Options) (*binderAccuracyResult, error) { return measureBinderAccuracy(o, false) }), Paper: binderPaperNote})
	register(Experiment{Name: "b2-randomized", Claim: "B2", Title: "Binder Fig. 10b: accuracy vs randomized granularity", Run: typed(func(o Options) (*binderAccuracyResult, error) { return measureBinderAccuracy(o, true) }), Paper: binderPaperNote})
}

// binderAccuracyResult is Fig. 10a (constant) or 10b (randomized).
type binderAccuracyResult struct {
	binderGridData
	Random bool
}

// measureBinderAccuracy is Fig. 10a (constant) or 10b (randomized):
// overlap of Komorium's CCT with the exact bytecode CCT per stand-in and
// granularity. B3 (which stand-ins are hard) reads Fig. 10a's.
func measureBinderAccuracy(o Options, random bool) (*binderAccuracyResult, error) {
	g, err := measureBinderGrid(o)
	return &binderAccuracyResult{g, random}, err
}

func (r *binderAccuracyResult) render() (*Result, error) {
	benches, d, random := r.Benches, r.Duration, r.Random
	kind := "constant"
	if random {
		kind = "randomized (+U[0, 100))"
	}
	cols := []string{"granularity"}
	cols = append(cols, benches...)
	t := &Table{Title: fmt.Sprintf("Accuracy (%% overlap with the exact bytecode CCT), %s granularity", kind), Columns: append(cols, "geo. mean")}
	res := &Result{Table: t, Tidy: tidyOf(r.obs(random))}
	lines := map[string]*errPoints{}
	for _, b := range append(append([]string(nil), benches...), "geo. mean") {
		lines[b] = &errPoints{}
	}
	for _, g := range binderGrans {
		cells := []any{g}
		for _, b := range benches {
			m := r.Accuracy(b, g, random)
			cells = append(cells, fmt.Sprintf("%.1f ± %.1f", m.Mean, m.CI))
			lines[b].add(math.Log10(float64(g)), m)
		}
		gm := r.Geo(g, random)
		// The geometric mean over stand-ins: a line without error bars.
		lines["geo. mean"].XYs = append(lines["geo. mean"].XYs, plotter.XY{X: math.Log10(float64(g)), Y: gm})
		t.AddRow(append(cells, fmt.Sprintf("%.1f", gm))...)
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Komorium passive (instrumentation free, so every granularity sees the same execution), MaxPath 50, leaf optimisation and cached path on; %v per run, seeds %v. Paper (SPECjvm98, problem size 100): constant best around 5 000–10 000 with dips at 500–1 000 on periodic programs; randomized geo. mean > 96 %% at 500 and non-increasing.", d, r.Seeds))
	p := plot.New()
	id := "B1"
	if random {
		id = "B2"
	}
	p.Title.Text = id + ": accuracy vs " + kind + " granularity (mean ± 95 % CI over seeds)"
	p.X.Label.Text = "log10(granularity / bytecodes)"
	p.Y.Label.Text = "overlap with the exact CCT (%)"
	for i, b := range append(append([]string(nil), benches...), "geo. mean") {
		if err := lines[b].percent().addTo(p, series{Label: b, Style: i, Line: true, Dashes: plotutil.Dashes(i)}); err != nil {
			return nil, err
		}
	}
	p.Y.Min, p.Y.Max = 0, 100
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 25, Label: "25"}, {Value: 50, Label: "50"}, {Value: 75, Label: "75"}, {Value: 100, Label: "100"}})
	res.Figure = newFigure("Komorium's accuracy against the exact bytecode CCT as the sampling granularity (bytecodes executed between two samples) grows, one line per stand-in and their geometric mean (geo. mean). "+
		"CCT = calling context tree. U[0, 100) = a uniform random addition to each period. "+captionCI, p)
	return res, nil
}
