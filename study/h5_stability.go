package study

import (
	"fmt"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"

	"github.com/profsim/profsim/profile"
)

func init() {
	register(Experiment{Name: "h5-stability", Claim: "H5", Title: "Hofer et al. Fig. 12: overlap and hot-edge coverage of per-iteration CCTs with the average CCT", Run: typed(measureH5), Paper: hoferPaperNote})
}

// h5Obs is one tidy observation of H5: iteration Iteration of the run of
// Benchmark with Seed under Technique, compared with the technique's
// average CCT.
type h5Obs struct {
	Benchmark   string
	Technique   string
	Seed        uint64
	Iteration   int
	OverlapPct  float64 `tidy:"overlap_pct"`
	CoveragePct float64 `tidy:"coverage_pct"`
}

// h5Result is Fig. 12's stability.
type h5Result struct {
	hoferAccuracy
	Obs []h5Obs
}

// measureH5 compares every iteration's CCT with its technique's average.
func measureH5(o Options) (*h5Result, error) {
	d, err := measureHoferAccuracy(o)
	if err != nil {
		return nil, err
	}
	return h5Of(d), nil
}

// h5Of is H5 on the accuracy runs d.
func h5Of(d hoferAccuracy) *h5Result {
	res := &h5Result{hoferAccuracy: d}
	for _, b := range d.Benches {
		for _, pr := range hoferTechniques {
			its := d.iterations(b, pr)
			avg := averageCCT(cctsOf(its))
			ref := profile.NewWeights(avg) // every iteration against one average: sorted once
			for _, it := range its {
				res.Obs = append(res.Obs, h5Obs{b, pr, d.Seeds[it.seed], it.n, 100 * ref.Overlap(it.cct), 100 * coverageOf(avg, it.cct)})
			}
		}
	}
	return res
}

// sorted lists (b, pr)'s overlaps (coverage false) or coverages, sorted.
func (r *h5Result) sorted(b, pr string, coverage bool) []float64 {
	its := mustWhere(r.Obs, func(x h5Obs) bool { return x.Benchmark == b && x.Technique == pr }, "H5 has no iterations of %s %s", b, pr)
	xs := values(its, func(x h5Obs) float64 {
		if coverage {
			return x.CoveragePct
		}
		return x.OverlapPct
	})
	sort.Float64s(xs)
	return xs
}

// Overlap and Coverage are (b, pr)'s q-quantiles over iterations × seeds.
func (r *h5Result) Overlap(b, pr string, q float64) float64 {
	return quantile(r.sorted(b, pr, false), q)
}

func (r *h5Result) Coverage(b, pr string, q float64) float64 {
	return quantile(r.sorted(b, pr, true), q)
}

func (r *h5Result) render() (*Result, error) {
	benches := r.Benches
	cols := []string{"stand-in"}
	for _, pr := range hoferTechniques {
		cols = append(cols, pr+" overlap", pr+" hot-edge cov.")
	}
	t := &Table{Title: "H5: per-iteration CCT vs its technique's average CCT, median [quartiles] over iterations × rounds (%)", Columns: cols}
	res := &Result{Table: t, Tidy: tidyOf(r.Obs)}
	for _, b := range benches {
		cells := []any{b}
		for _, pr := range hoferTechniques {
			cells = append(cells, fmt.Sprintf("%.1f [%.1f, %.1f]", r.Overlap(b, pr, 0.5), r.Overlap(b, pr, 0.25), r.Overlap(b, pr, 0.75)),
				fmt.Sprintf("%.1f [%.1f, %.1f]", r.Coverage(b, pr, 0.5), r.Coverage(b, pr, 0.25), r.Coverage(b, pr, 0.75)))
		}
		t.AddRow(cells...)
	}
	t.Notes = append(t.Notes, r.Note)
	t.Notes = append(t.Notes, discussion("h5-stability")...)
	// Figure: each technique's overlap and hot-edge coverage per
	// stand-in, the median over iterations (every seed) with the
	// quartiles as bars.
	p := plot.New()
	p.Title.Text = "H5: each iteration's CCT vs the average CCT"
	p.X.Label.Text = "stand-in"
	p.Y.Label.Text = "agreement with the average CCT (%)"
	k := 0
	for mi, measure := range []struct {
		name string
		at   func(b, pr string, q float64) float64
	}{{"overlap", r.Overlap}, {"hot-edge coverage", r.Coverage}} {
		for pi, pr := range hoferTechniques {
			var pts errPoints
			for bi, b := range benches {
				m := measure.at(b, pr, 0.5)
				pts.XYs = append(pts.XYs, plotter.XY{X: float64(bi) - 0.3 + 0.6*float64(k)/5, Y: m})
				pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{m - measure.at(b, pr, 0.25), measure.at(b, pr, 0.75) - m})
			}
			s := series{Label: pr + " " + measure.name, Style: pi, Shape: draw.CircleGlyph{}}
			if mi > 0 {
				s.Shape = draw.PyramidGlyph{}
			}
			if err := pts.addTo(p, s); err != nil {
				return nil, err
			}
			k++
		}
	}
	p.NominalX(benches...)
	p.X.Min, p.X.Max = -0.5, float64(len(benches))-0.5
	p.Y.Min, p.Y.Max = 0, 100
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 25}, {Value: 50, Label: "50"}, {Value: 75}, {Value: 100, Label: "100"}})
	res.Figure = newFigure("How stable each technique's profile is: each iteration's CCT against the average CCT of its run, by overlap (circles) and by coverage of the average's hot edges (triangles); the point is the median over iterations and seeds, the bar the quartiles. "+captionCCT+" "+captionHofer, p)
	return res, nil
}
