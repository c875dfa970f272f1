package study

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "h2-latency", Claim: "H2", Title: "Hofer et al. Fig. 11: sampling latency of JVMTI, SPS and ISPS at 1 ms", Run: typed(measureH2)})
}

// hoferLatencyObs is one sampling latency (ms) of a run.
type hoferLatencyObs struct {
	Benchmark  string
	Seed       uint64
	Technique  string
	IntervalUs float64 `tidy:"interval_us"`
	LatencyMs  float64 `tidy:"latency_ms"`
}

// h2Result is Fig. 11's latencies at 1 ms.
type h2Result struct{ hoferOverheadData }

// measureH2 reads (or runs) the overhead grid.
func measureH2(o Options) (*h2Result, error) {
	d, err := measureHoferOverhead(o)
	return &h2Result{d}, err
}

// Quantile is the q-quantile (ms) of (b, pr)'s latencies at 1 ms, pooled
// over seeds.
func (r *h2Result) Quantile(b, pr string, q float64) float64 {
	return quantile(r.Latencies(b, pr, sim.Millisecond), q)
}

func (r *h2Result) render() (*Result, error) {
	benches := r.Benches
	iv := sim.Millisecond
	t := &Table{Title: "H2: sampling latency at 1 ms (ms; pooled over seeds): median [2.5 % – 97.5 %] max",
		Columns: append([]string{"stand-in"}, hoferTechniques...)}
	var obs []hoferLatencyObs
	p := plot.New()
	p.Title.Text = "H2: sampling latency at 1 ms, all seeds (box: quartiles; whiskers: 1.5 IQR)"
	p.X.Label.Text = "stand-in"
	p.Y.Label.Text = "latency (ms, log scale)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 1e-4, Label: "0.0001"}, {Value: 1e-3, Label: "0.001"}, {Value: 1e-2, Label: "0.01"}, {Value: 0.1, Label: "0.1"}, {Value: 1, Label: "1"}, {Value: 10, Label: "10"}, {Value: 100, Label: "100"}})
	w := vg.Points(6)
	var names []string
	for bi, b := range benches {
		names = append(names, b)
		cells := []any{b}
		for pi, pr := range hoferTechniques {
			for si, seed := range r.Seeds {
				for _, l := range r.run(b, si, pr, iv).Costs.Latencies {
					obs = append(obs, hoferLatencyObs{b, seed, pr, float64(iv) / float64(sim.Microsecond), float64(l) / 1e6})
				}
			}
			l := r.Latencies(b, pr, iv)
			med, lo, hi, mx := quantile(l, 0.5), quantile(l, 0.025), quantile(l, 0.975), quantile(l, 1)
			cells = append(cells, fmt.Sprintf("%.3f [%.3f – %.3f] %.2f", med, lo, hi, mx))
			logs := make(plotter.Values, len(l))
			for i, x := range l {
				logs[i] = math.Max(x, 1e-4) // a log axis: zero latencies at its floor
			}
			bp, err := plotter.NewBoxPlot(w, float64(bi)+float64(pi-1)*0.28, logs)
			if err != nil {
				return nil, fmt.Errorf("h2: %s %s: %w", b, pr, err)
			}
			bp.FillColor = seriesColor(pi)
			p.Add(bp)
			if bi == 0 {
				p.Legend.Add(pr, swatch{seriesColor(pi)})
			}
		}
		t.AddRow(cells...)
	}
	ref, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 1}, {X: float64(len(benches)) - 0.5, Y: 1}})
	if err != nil {
		return nil, err
	}
	ref.Color, ref.Dashes = color.Gray{Y: 100}, []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(ref)
	p.Legend.Add("the interval, 1 ms", ref)
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(benches))-0.5
	p.Y.Min = math.Min(p.Y.Min, 1e-3)
	p.Y.Max = math.Max(p.Y.Max, 1)
	t.Notes = append(t.Notes, "Latency: from the request reaching the VM until the samples are taken (every thread safe and walked for JVMTI; the K-th self-sample written for SPS/ISPS). "+r.Note)
	t.Notes = append(t.Notes, discussion("h2-latency")...)
	fig := newFigure("Latency of each sample: from the request reaching the virtual machine until the samples are taken, every sample of every seed at a 1 ms interval. Box: the middle half of the latencies; whiskers: 1.5 IQR; latencies below 0.0001 ms drawn at the axis floor. IQR = interquartile range. "+captionHofer, p)
	return &Result{Table: t, Figure: fig, Tidy: tidyOf(obs)}, nil
}

// swatch is a legend entry of one colour (box plots have no thumbnail).
type swatch struct{ c color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(s.c, []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}})
}
