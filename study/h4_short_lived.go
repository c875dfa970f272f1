package study

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "h4-short-lived", Claim: "H4", Title: "Hofer et al. §7.1 (tmt): ISPS must retrieve every ending thread's traces at a full safepoint", Run: typed(measureH4)})
}

// h4Result is §7.1's short-lived threads (tmt).
type h4Result struct{ hoferOverheadData }

// measureH4 reads (or runs) the overhead grid.
func measureH4(o Options) (*h4Result, error) {
	d, err := measureHoferOverhead(o)
	return &h4Result{d}, err
}

func (r *h4Result) render() (*Result, error) {
	b := "tmt"
	t := &Table{Title: "H4: overhead (%) on the tmt stand-in (short-lived threads), mean ± 95 % CI over seeds, and ISPS's full safepoints at thread ends",
		Columns: []string{"interval", "jvmti", "sps", "isps", "isps − sps (paired)", "ISPS thread-end retrieves / run"}}
	for _, iv := range hoferIntervals {
		cells := []any{iv.String()}
		for _, pr := range hoferTechniques {
			cells = append(cells, r.Overhead(b, pr, iv).String())
		}
		cells = append(cells, r.Diff(b, "isps", "sps", iv).String(), fmt.Sprintf("%.0f", r.ThreadEnds(b, iv)))
		t.AddRow(cells...)
	}
	t.Notes = append(t.Notes, r.Note)
	t.Notes = append(t.Notes, discussion("h4-short-lived")...)
	// Figure: on tmt, each technique's overhead against the interval
	// (left) and ISPS − SPS paired by seed (right), mean and 95 % CI over
	// seeds, zero as the reference (the unprofiled run; ISPS = SPS).
	ovh, diff := plot.New(), plot.New()
	ovh.Title.Text = "H4: overhead on tmt (mean ± 95 % CI over seeds)"
	ovh.Y.Label.Text = "overhead over the unprofiled run (%)"
	diff.Title.Text = "H4: ISPS − SPS on tmt (paired by seed, ± 95 % CI)"
	diff.Y.Label.Text = "ISPS − SPS overhead (points)"
	lo, hi := 0.0, 0.0
	for i, pr := range hoferTechniques {
		var pts errPoints
		for _, iv := range hoferIntervals {
			// Spread the techniques a little so their error bars do not overlap.
			m := r.Overhead(b, pr, iv)
			h := pts.add(float64(iv)/float64(sim.Millisecond)*math.Pow(1.08, float64(i-1)), m)
			lo, hi = math.Min(lo, m.Mean-h), math.Max(hi, m.Mean+h)
		}
		if err := pts.addTo(ovh, series{Label: pr, Style: i, Line: true}); err != nil {
			return nil, err
		}
	}
	var d errPoints
	dlo, dhi := 0.0, 0.0
	for _, iv := range hoferIntervals {
		m := r.Diff(b, "isps", "sps", iv)
		h := d.add(float64(iv)/float64(sim.Millisecond), m)
		dlo, dhi = math.Min(dlo, m.Mean-h), math.Max(dhi, m.Mean+h)
	}
	if err := d.addTo(diff, series{Label: "isps − sps", Style: 2, Line: true}); err != nil {
		return nil, err
	}
	for _, z := range []struct {
		p     *plot.Plot
		label string
	}{{ovh, "unprofiled (0)"}, {diff, "ISPS = SPS (0)"}} {
		l, err := plotter.NewLine(plotter.XYs{{X: 0.08, Y: 0}, {X: 12.5, Y: 0}})
		if err != nil {
			return nil, err
		}
		l.Color, l.Dashes = color.Gray{Y: 100}, []vg.Length{vg.Points(3), vg.Points(3)}
		z.p.Add(l)
		z.p.Legend.Add(z.label, l)
	}
	ovh.Y.Min, ovh.Y.Max = lo, hi
	diff.Y.Min, diff.Y.Max = dlo, dhi
	for _, p := range []*plot.Plot{ovh, diff} {
		p.X.Label.Text = "sampling interval (ms, log scale)"
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0.1, Label: "0.1"}, {Value: 1, Label: "1"}, {Value: 10, Label: "10"}})
		p.X.Min, p.X.Max = 0.08, 12.5
	}
	fig := newFigure("On tmt, a stand-in whose threads live briefly: each technique's overhead against the sampling interval (left) and the difference ISPS − SPS, paired by seed (right). ISPS must retrieve each ending thread's trace at a full safepoint; the claim: ISPS above SPS at 10 and 1 ms. "+captionHofer+" "+captionCI, ovh, diff)
	return &Result{Table: t, Figure: fig, Tidy: tidyOf(r.runObs([]string{b}))}, nil
}
