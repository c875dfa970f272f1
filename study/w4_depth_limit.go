package study

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

func init() {
	register(Experiment{Name: "w4-depth-limit", Claim: "W4", Title: "Whaley §5 (deep call sequences): a depth limit on the upward walk attaches frames at the wrong place", Run: typed(measureW4)})
}

// w4Obs is one tidy observation of W4: in the run of Benchmark with Seed
// (its deepest context MaxDepth), the PCCT limited to Limit frames holds
// MisattachedPct of its samples at contexts the full walks did not give;
// LimitedPct of its walks hit the limit; Exact says whether its tree is the
// full walks'.
type w4Obs struct {
	Benchmark      string
	Seed           uint64
	MaxDepth       int64
	Limit          int
	MisattachedPct float64 `tidy:"misattached_pct"`
	LimitedPct     float64 `tidy:"limited_pct"`
	Exact          bool
}

// w4Result is W4's runs, by stand-in, seed and limit.
type w4Result struct {
	Seeds   []uint64
	Benches []string
	Note    string
	Obs     []w4Obs
}

// of lists benchmark b's runs at limit l.
func (r *w4Result) of(b string, l int) []w4Obs {
	return mustWhere(r.Obs, func(x w4Obs) bool { return x.Benchmark == b && x.Limit == l }, "W4 has no runs of %s at limit %d", b, l)
}

// Misattached is the misattached share (%) on b at limit l over the seeds.
func (r *w4Result) Misattached(b string, l int) stat {
	var xs []float64
	for _, x := range r.of(b, l) {
		xs = append(xs, x.MisattachedPct)
	}
	return newStat(xs)
}

// MaxDepth is b's deepest context over its runs.
func (r *w4Result) MaxDepth(b string) int64 {
	var d int64
	for _, x := range r.of(b, w4Limits[0]) {
		d = max(d, x.MaxDepth)
	}
	return d
}

// UnlimitedButDifferent counts the runs where no walk hit the limit but
// the tree differs from the full walks'.
func (r *w4Result) UnlimitedButDifferent() int {
	n := 0
	for _, x := range r.Obs {
		if x.LimitedPct == 0 && !x.Exact {
			n++
		}
	}
	return n
}

// measureW4: PCCTs whose upward walk stops after L frames, on the same
// execution as a full walk; the misattached share is the part of the
// samples the limited tree holds at contexts the full walks did not give.
func measureW4(o Options) (*w4Result, error) {
	runs, err := whaleyPassive(o)
	if err != nil {
		return nil, err
	}
	res := &w4Result{Seeds: o.Seeds, Benches: whaleyNames(o), Note: whaleyRunsNote(o)}
	for _, b := range res.Benches {
		for li, l := range w4Limits {
			for si, r := range runs[b] {
				res.Obs = append(res.Obs, w4Obs{Benchmark: b, Seed: o.Seeds[si], MaxDepth: r.MaxDepth, Limit: l,
					MisattachedPct: 100 * r.Misattached[li], LimitedPct: 100 * r.Limited[li], Exact: r.Exact[li]})
			}
		}
	}
	return res, nil
}

func (r *w4Result) render() (*Result, error) {
	cols := []string{"stand-in", "max depth"}
	for _, l := range w4Limits {
		cols = append(cols, fmt.Sprintf("limit %d", l))
	}
	t := &Table{Title: "W4: misattached share of samples (%) by depth limit, mean ± 95 % CI over seeds [walks that hit the limit, %]", Columns: cols}
	res := &Result{Table: t, Tidy: tidyOf(r.Obs)}
	lines := map[string]errPoints{}
	for _, b := range r.Benches {
		cells := []any{b, r.MaxDepth(b)}
		for _, l := range w4Limits {
			var lim []float64
			for _, x := range r.of(b, l) {
				lim = append(lim, x.LimitedPct)
			}
			m := r.Misattached(b, l)
			ml, _ := MeanCI(lim)
			cells = append(cells, fmt.Sprintf("%s [%.0f]", m, ml))
			pts := lines[b]
			pts.add(float64(l), m)
			lines[b] = pts
		}
		t.AddRow(cells...)
	}
	t.Notes = append(t.Notes,
		r.Note+": the runs of w1-partial-walks; on each, one PCCT per limit and one walking the full stack, all at 1 ms. Misattached share = the limited PCCT's samples at contexts beyond what the full walks put there, Σ max(0, limited − full) / Σ limited over contexts (= 1 − overlap; a walk cut off after L frames hangs the frames it read off the root). A misattached frame stays wrong for as long as it lives, since later walks stop at its marker bit and build on its node: the misattached share far exceeds the share of walks that hit the limit.")
	t.Notes = append(t.Notes, discussion("w4-depth-limit")...)
	// Figure: each stand-in's misattached share against the limit, mean
	// and 95 % CI over seeds, its deepest stack as a dotted reference (a
	// limit at or above it cuts no walk).
	p := plot.New()
	p.Title.Text = "W4: misattached samples vs depth limit"
	p.X.Label.Text = "depth limit (frames, log scale)"
	p.Y.Label.Text = "misattached share of samples (%)"
	p.X.Scale = plot.LogScale{}
	var ticks []plot.Tick
	for _, l := range w4Limits {
		ticks = append(ticks, plot.Tick{Value: float64(l), Label: fmt.Sprint(l)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	for i, b := range r.Benches {
		if err := lines[b].percent().addTo(p, series{Label: b, Style: i, Line: true}); err != nil {
			return nil, err
		}
		d := float64(r.MaxDepth(b))
		ref, err := plotter.NewLine(plotter.XYs{{X: d, Y: 0}, {X: d, Y: 100}})
		if err != nil {
			return nil, err
		}
		ref.Color, ref.Dashes = seriesColor(i), []vg.Length{vg.Points(1), vg.Points(2)}
		p.Add(ref)
		p.Legend.Add(fmt.Sprintf("%s's deepest stack (%d)", b, r.MaxDepth(b)), ref)
	}
	p.X.Min, p.X.Max = float64(w4Limits[0])/1.2, float64(w4Limits[len(w4Limits)-1])*1.2
	p.Y.Min, p.Y.Max = 0, 100
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 25}, {Value: 50, Label: "50"}, {Value: 75}, {Value: 100, Label: "100"}})
	res.Figure = newFigure("The share of a PCCT's samples hung at a wrong context when its upward walk stops after a depth limit of frames, per stand-in (mean ± CI over seeds); the dotted line at each stand-in's deepest stack: a limit at or above it cuts no walk. PCCT = partial calling context tree (Whaley 2000). "+captionCI, p)
	return res, nil
}
