package study

import (
	"fmt"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"

	"github.com/profsim/profsim/profile"
)

func init() {
	register(Experiment{Name: "h6-agreement", Claim: "H6", Title: "Hofer et al. Fig. 13: overlap and hot-edge coverage between the techniques' average CCTs", Run: typed(measureH6), Paper: hoferPaperNote})
}

// hoferPairs are the comparisons of Fig. 13, reference first.
var hoferPairs = [][2]string{{"jvmti", "sps"}, {"jvmti", "isps"}, {"sps", "isps"}}

// h6Obs is one tidy observation of H6: on Benchmark, the overlap of the
// average CCTs of Reference and Other and the coverage of Reference's hot
// edges by Other; the average CCTs merge every seed's iterations.
type h6Obs struct {
	Benchmark   string
	Reference   string
	Other       string
	OverlapPct  float64 `tidy:"overlap_pct"`
	CoveragePct float64 `tidy:"coverage_pct"`
	// Depth is the deepest context in ISPS's average CCT.
	Depth int
}

// h6Result is Fig. 13's agreement.
type h6Result struct {
	hoferAccuracy
	Obs []h6Obs
}

// measureH6 compares the techniques' average CCTs.
func measureH6(o Options) (*h6Result, error) {
	d, err := measureHoferAccuracy(o)
	if err != nil {
		return nil, err
	}
	return h6Of(d), nil
}

// h6Of is H6 on the accuracy runs d.
func h6Of(d hoferAccuracy) *h6Result {
	res := &h6Result{hoferAccuracy: d}
	for _, b := range d.Benches {
		avg := map[string]map[string]float64{}
		for _, pr := range hoferTechniques {
			avg[pr] = averageCCT(cctsOf(d.iterations(b, pr)))
		}
		deepest := 0
		for k := range avg["isps"] {
			deepest = max(deepest, strings.Count(k, profile.FrameSep)+1)
		}
		for _, pair := range hoferPairs {
			res.Obs = append(res.Obs, h6Obs{b, pair[0], pair[1], 100 * profile.OverlapWeights(avg[pair[0]], avg[pair[1]]), 100 * coverageOf(avg[pair[0]], avg[pair[1]]), deepest})
		}
	}
	return res
}

// of is b's comparison of pair.
func (r *h6Result) of(b string, pair [2]string) h6Obs {
	for _, x := range r.Obs {
		if x.Benchmark == b && x.Reference == pair[0] && x.Other == pair[1] {
			return x
		}
	}
	panic(fmt.Sprintf("study: H6 has no comparison %s–%s on %s", pair[0], pair[1], b))
}

// Overlap, Coverage and Depth read b's comparisons.
func (r *h6Result) Overlap(b string, pair [2]string) float64  { return r.of(b, pair).OverlapPct }
func (r *h6Result) Coverage(b string, pair [2]string) float64 { return r.of(b, pair).CoveragePct }
func (r *h6Result) Depth(b string) int                        { return r.of(b, hoferPairs[0]).Depth }

func (r *h6Result) render() (*Result, error) {
	benches := r.Benches
	cols := []string{"stand-in", "deepest stack"}
	for _, pair := range hoferPairs {
		cols = append(cols, pair[0]+"–"+pair[1]+" overlap")
	}
	for _, pair := range hoferPairs {
		cols = append(cols, pair[1]+" covers "+pair[0])
	}
	t := &Table{Title: "H6: average CCTs of the techniques compared (%): overlap, and hot-edge coverage (T = 0.1) of the first's hot edges by the second", Columns: cols}
	res := &Result{Table: t, Tidy: tidyOf(r.Obs)}
	bars := make([]plotter.Values, len(hoferPairs))
	var spsCov, ispsCov plotter.XYs
	for bi, b := range benches {
		cells := []any{b, r.Depth(b)}
		for i, pair := range hoferPairs {
			v := r.Overlap(b, pair)
			cells = append(cells, fmt.Sprintf("%.1f", v))
			bars[i] = append(bars[i], v)
		}
		for _, pair := range hoferPairs {
			cells = append(cells, fmt.Sprintf("%.1f", r.Coverage(b, pair)))
		}
		spsCov = append(spsCov, plotter.XY{X: float64(bi), Y: r.Coverage(b, hoferPairs[0])})
		ispsCov = append(ispsCov, plotter.XY{X: float64(bi), Y: r.Coverage(b, hoferPairs[1])})
		t.AddRow(cells...)
	}
	t.Notes = append(t.Notes, r.Note+" Deepest stack: the deepest context in ISPS's average CCT (complete stacks); JVMTI and SPS keep the 256 frames nearest the leaf.")
	t.Notes = append(t.Notes, discussion("h6-agreement")...)
	// Figure: per stand-in, each pair's overlap (circles) and the
	// coverage of JVMTI's hot edges (triangles), one value each (the average CCTs
	// pool every seed), the paper's 70 % and 90 % as references.
	p := plot.New()
	p.Title.Text = "H6: the techniques' average CCTs compared (every seed pooled)"
	p.X.Label.Text = "stand-in"
	p.Y.Label.Text = "overlap / hot-edge coverage (%)"
	k := 0
	series := len(hoferPairs) + 2
	for i, pair := range hoferPairs {
		var pts plotter.XYs
		for bi := range benches {
			pts = append(pts, plotter.XY{X: float64(bi) - 0.3 + 0.6*float64(k)/float64(series-1), Y: bars[i][bi]})
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.Color, sc.Shape, sc.Radius = seriesColor(i), draw.CircleGlyph{}, minGlyphRadius
		p.Add(sc)
		p.Legend.Add(pair[0]+"–"+pair[1]+" overlap", sc)
		k++
	}
	for i, c := range []struct {
		name string
		pts  plotter.XYs
	}{{"SPS covers JVMTI's hot edges", spsCov}, {"ISPS covers JVMTI's hot edges", ispsCov}} {
		var pts plotter.XYs
		for bi, xy := range c.pts {
			pts = append(pts, plotter.XY{X: float64(bi) - 0.3 + 0.6*float64(k)/float64(series-1), Y: xy.Y})
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.Color, sc.Shape, sc.Radius = seriesColor(i), draw.PyramidGlyph{}, minGlyphRadius
		p.Add(sc)
		p.Legend.Add(c.name, sc)
		k++
	}
	if err := addRefLines(p, -0.5, float64(len(benches))-0.5, refLine{70, "paper: overlap > 70 %"}, refLine{90, "paper: SPS covers > 90 %"}); err != nil {
		return nil, err
	}
	p.NominalX(benches...)
	p.X.Min, p.X.Max = -0.5, float64(len(benches))-0.5
	p.Y.Min, p.Y.Max = 0, 100
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 25}, {Value: 50, Label: "50"}, {Value: 75}, {Value: 100, Label: "100"}})
	res.Figure = newFigure("The techniques' average CCTs (every seed pooled) compared per stand-in: each pair's overlap (circles) and how much of JVMTI's hot edges SPS and ISPS cover (triangles), with the paper's thresholds (grey). "+captionCCT+" "+captionHofer, p)
	return res, nil
}
