package study

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "x1-debug-info", Claim: "X1", Title: "Beyond the papers: async without DebugNonSafepoints moves inlined hot() to cold(); with it, async matches the truth", Run: typed(measureX1)})
}

// x1Configs differ only in DebugNonSafepoints: hot() inlined into cold(),
// strip mining so the inlined counted loop keeps a poll (without one a
// safepoint sampler would see nothing, and async no record in the loop).
var x1Configs = []listingOneConfig{
	{Name: "inlining, no DNS", Inline: true, StripMining: 1000, DNS: false},
	{Name: "inlining, DNS", Inline: true, StripMining: 1000, DNS: true},
}

// x1Result is Listing 1 under x1Configs, every seed.
type x1Result struct {
	Duration sim.Time
	Seeds    []uint64
	Rows     []listingOneRow
}

// measureX1 runs Listing 1 with hot() inlined into cold(), with and
// without DebugNonSafepoints.
func measureX1(o Options) (*x1Result, error) {
	d := 2 * sim.Second
	if o.Full {
		d = 10 * sim.Second
	}
	rows, err := listingOneRuns(o, x1Configs, d)
	if err != nil {
		return nil, err
	}
	return &x1Result{Duration: d, Seeds: o.Seeds, Rows: rows}, nil
}

// Hot is sampler's share (%) of hot() without (dns false) or with
// DebugNonSafepoints, pooled over the seeds (pooledShare).
func (r *x1Result) Hot(sampler string, dns bool) float64 {
	c := x1Configs[0]
	if dns {
		c = x1Configs[1]
	}
	return pooledShare(r.Rows, c.Name, sampler, "hot")
}

// Runs lists sampler's share (%) of hot() in each run without (dns
// false) or with DebugNonSafepoints.
func (r *x1Result) Runs(sampler string, dns bool) []float64 {
	var xs []float64
	for _, row := range r.Rows {
		if row.Config.DNS == dns {
			xs = append(xs, row.Hot.At(sampler))
		}
	}
	return xs
}

func (r *x1Result) render() (*Result, error) {
	d := r.Duration
	t := listingOneTable(r.Rows, d)
	t.Title = "X1: hot() vs cold() self time (%) by profiler, hot() inlined into cold(), with and without DebugNonSafepoints"
	t.Notes = []string{fmt.Sprintf("%v simulated per run, seeds %v; all samplers passive on one execution per (configuration, seed), so the two configurations differ only in the debug information the JIT records.", d, r.Seeds)}
	t.Notes = append(t.Notes, discussion("x1-debug-info")...)
	res := &Result{Table: t, Tidy: tidyOf(listingOneObs(r.Rows))}
	t.Notes = append(t.Notes, fmt.Sprintf("Pooled over seeds %v (weighted by samples): truth %.2f %%, async without DNS %.2f %%, with DNS %.2f %%.",
		r.Seeds, r.Hot("truth", false), r.Hot("async", false), r.Hot("async", true)))

	// Figure: each sampler's share of hot() without and with DNS, mean
	// and 95 % CI over seeds, the truth's share as the reference line.
	p := plot.New()
	p.Title.Text = "X1: self time in inlined hot()"
	p.X.Label.Text = "profiler"
	p.Y.Label.Text = "share of self time in hot() (%)"
	samplers := []string{"truth", "async", "safepoint"}
	for k, dns := range []bool{false, true} {
		var pts errPoints
		for i, s := range samplers {
			pts.add(float64(i)-0.12+0.24*float64(k), newStat(r.Runs(s, dns)))
		}
		if err := pts.percent().addTo(p, series{Label: x1Configs[k].Name, Style: k, Radius: vg.Points(3.5)}); err != nil {
			return nil, err
		}
	}
	truth, _ := MeanCI(r.Runs("truth", false))
	ref, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: truth}, {X: float64(len(samplers)) - 0.5, Y: truth}})
	if err != nil {
		return nil, err
	}
	ref.Color, ref.Dashes = color.Gray{Y: 100}, []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(ref)
	p.Legend.Add(fmt.Sprintf("the truth's share (%.1f %%)", truth), ref)
	p.NominalX(samplers...)
	p.X.Min, p.X.Max = -0.5, float64(len(samplers))-0.5
	p.Y.Min, p.Y.Max = 0, 100
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 25}, {Value: 50, Label: "50"}, {Value: 75}, {Value: 100, Label: "100"}})
	res.Figure = newFigure("Listing 1 with hot() inlined into its loop: the share of self time each profiler gives hot(), without and with DebugNonSafepoints, mean ± CI over seeds. DNS = DebugNonSafepoints, the HotSpot flag that records where inlined code is between safepoints; without it async (async-profiler, which samples anywhere) can only name the nearest safepoint's method. safepoint = a sampler that waits for the next safepoint poll. "+captionCI, p)
	return res, nil
}
