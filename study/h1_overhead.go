package study

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"

	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "h1-overhead", Claim: "H1", Title: "Hofer et al. Fig. 9/10: overhead of JVMTI, SPS and ISPS at 10, 1 and 0.1 ms on the multi-threaded stand-ins", Run: typed(measureH1)})
}

// h1Result is Fig. 9/10's overhead.
type h1Result struct{ hoferOverheadData }

// measureH1 reads (or runs) the overhead grid.
func measureH1(o Options) (*h1Result, error) {
	d, err := measureHoferOverhead(o)
	return &h1Result{d}, err
}

func (r *h1Result) render() (*Result, error) {
	benches := r.Benches
	cols := []string{"stand-in"}
	for _, iv := range hoferIntervals {
		for _, pr := range hoferTechniques {
			cols = append(cols, fmt.Sprintf("%s %v", pr, iv))
		}
	}
	t := &Table{Title: "H1: overhead (%), mean ± 95 % CI over seeds", Columns: cols}
	res := &Result{Table: t, Tidy: tidyOf(r.runObs(benches))}
	for _, b := range benches {
		cells := []any{b}
		for _, iv := range hoferIntervals {
			for _, pr := range hoferTechniques {
				cells = append(cells, r.Overhead(b, pr, iv).String())
			}
		}
		t.AddRow(cells...)
	}
	cells := []any{"geo. mean (tmt excluded)"}
	for _, iv := range hoferIntervals {
		for _, pr := range hoferTechniques {
			g := r.GeoMean(pr, iv)
			cells = append(cells, fmt.Sprintf("%.2f", g))
		}
	}
	t.AddRow(cells...)
	// ISPS − SPS per stand-in and interval, paired by seed: what decoding
	// one frame (plus the trampolines) instead of walking the stack saves.
	for _, b := range benches {
		cells := []any{b + ": isps − sps (paired)"}
		for _, iv := range hoferIntervals {
			m := r.Diff(b, "isps", "sps", iv)
			cells = append(cells, "", "", fmt.Sprintf("%+.2f ± %.2f", m.Mean, m.CI))
		}
		t.AddRow(cells...)
	}
	g10, g1, g01 := r.Gap(10*sim.Millisecond), r.Gap(sim.Millisecond), r.Gap(100*sim.Microsecond)
	t.Notes = append(t.Notes, r.Note,
		fmt.Sprintf("JVMTI − SPS, paired by seed over the stand-ins but tmt: %.2f ± %.2f points at 10 ms, %.2f ± %.2f at 1 ms, %.2f ± %.2f at 0.1 ms.",
			g10.Mean, g10.CI, g1.Mean, g1.CI, g01.Mean, g01.CI))
	t.Notes = append(t.Notes, discussion("h1-overhead")...)
	// Figure: each technique's geometric-mean overhead against the
	// interval, mean and 95 % CI over seeds (a geometric mean per seed),
	// the paper's 10 ms bounds as references.
	p := plot.New()
	p.Title.Text = "H1: geometric-mean overhead (tmt excluded), mean ± 95 % CI over seeds"
	p.X.Label.Text = "sampling interval (ms, log scale)"
	p.Y.Label.Text = "overhead over the unprofiled run (%)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0.1, Label: "0.1"}, {Value: 1, Label: "1"}, {Value: 10, Label: "10"}})
	top := 0.0
	for i, pr := range hoferTechniques {
		var pts errPoints
		for _, iv := range hoferIntervals {
			m := newStat(r.seedGeoMeans(pr, iv))
			// Spread the techniques a little so their error bars do not overlap.
			h := pts.add(float64(iv)/float64(sim.Millisecond)*math.Pow(1.08, float64(i-1)), m)
			top = math.Max(top, m.Mean+h)
		}
		if err := pts.addTo(p, series{Label: pr, Style: i, Line: true}); err != nil {
			return nil, err
		}
	}
	if err := addRefLines(p, 0.08, 12.5, refLine{10, "paper, 10 ms: JVMTI > 10 %"}, refLine{3, "paper, 10 ms: SPS < 3 %"}); err != nil {
		return nil, err
	}
	p.X.Min, p.X.Max = 0.08, 12.5
	p.Y.Min, p.Y.Max = math.Min(0, p.Y.Min), math.Max(top, 10)
	res.Figure = newFigure("Geometric mean over the multi-threaded stand-ins of each technique's overhead, against the sampling interval; grey lines: the paper's bounds at 10 ms. tmt (many short-lived threads) is excluded: H4 shows it. "+captionHofer+" "+captionCI, p)
	return res, nil
}
