package study

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
)

func init() {
	register(Experiment{Name: "h7-frames-decoded", Claim: "H7", Title: "Hofer et al. §5: incremental stack tracing decodes each frame once", Run: typed(measureH7)})
}

// h7Obs is one tidy observation of H7: in the runs of Benchmark with
// Seed, the mean stack depth at ISPS's samples, the frames SPS walked and
// those ISPS decoded per sample.
type h7Obs struct {
	Benchmark  string
	Seed       uint64
	Depth      float64
	SPSFrames  float64 `tidy:"sps_frames"`
	ISPSFrames float64 `tidy:"isps_frames"`
}

// h7Result is §5's frames decoded.
type h7Result struct {
	hoferAccuracy
	Obs []h7Obs
}

// measureH7 reads frames per sample from the accuracy runs.
func measureH7(o Options) (*h7Result, error) {
	d, err := measureHoferAccuracy(o)
	if err != nil {
		return nil, err
	}
	res := &h7Result{hoferAccuracy: d}
	for _, b := range d.Benches {
		for si, seed := range d.Seeds {
			r := d.run(b, si, "isps")
			res.Obs = append(res.Obs, h7Obs{b, seed, meanDepth(r.Prof), d.run(b, si, "sps").Costs.Measures[samplers.FramesDecodedPerSample], r.Costs.Measures[samplers.FramesDecodedPerSample]})
		}
	}
	return res, nil
}

// stat is f over b's runs.
func (r *h7Result) stat(b string, f func(h7Obs) float64) stat {
	return newStat(values(mustWhere(r.Obs, func(x h7Obs) bool { return x.Benchmark == b }, "H7 has no runs of %s", b), f))
}

// Depth, SPS, ISPS and Ratio (ISPS / depth) on b over the seeds.
func (r *h7Result) Depth(b string) stat { return r.stat(b, func(x h7Obs) float64 { return x.Depth }) }
func (r *h7Result) SPS(b string) stat   { return r.stat(b, func(x h7Obs) float64 { return x.SPSFrames }) }
func (r *h7Result) ISPS(b string) stat {
	return r.stat(b, func(x h7Obs) float64 { return x.ISPSFrames })
}
func (r *h7Result) Ratio(b string) stat {
	return r.stat(b, func(x h7Obs) float64 { return x.ISPSFrames / x.Depth })
}

func (r *h7Result) render() (*Result, error) {
	t := &Table{Title: "H7: frames decoded per sample at 1 ms (mean ± 95 % CI over seeds) vs the stack depth at the samples",
		Columns: []string{"stand-in", "stack depth (ISPS samples)", "SPS: frames walked", "ISPS: frames decoded", "ISPS / depth"}}
	var spsPts, ispsPts errPoints
	maxD := 0.0
	for _, b := range r.Benches {
		d, sp, is, ra := r.Depth(b), r.SPS(b), r.ISPS(b), r.Ratio(b)
		t.AddRow(b, d.String(), sp.String(), is.String(), ra.String())
		h := spsPts.add(d.Mean, sp) // 0 for one seed, whose CI is undefined
		ispsPts.add(d.Mean, is)
		maxD = math.Max(maxD, math.Max(d.Mean, sp.Mean+h))
	}
	t.Notes = append(t.Notes, r.Note)
	t.Notes = append(t.Notes, discussion("h7-frames-decoded")...)
	// Figure: frames per sample against the stack depth, a point per
	// stand-in with its 95 % CI over seeds, y = depth (a full walk) as
	// the reference.
	p := plot.New()
	p.Title.Text = "H7: frames per sample vs stack depth at 1 ms (mean ± 95 % CI over seeds)"
	p.X.Label.Text = "mean stack depth at the samples (frames)"
	p.Y.Label.Text = "frames decoded per sample"
	top := 1.1 * maxD
	yx, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: top, Y: top}})
	if err != nil {
		return nil, err
	}
	yx.Color, yx.Dashes = color.Gray{Y: 100}, []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(yx)
	p.Legend.Add("y = depth (a full walk)", yx)
	for i, s := range []struct {
		name string
		pts  errPoints
	}{{"SPS (walks)", spsPts}, {"ISPS (incremental)", ispsPts}} {
		if err := s.pts.addTo(p, series{Label: s.name, Style: i}); err != nil {
			return nil, err
		}
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, top, 0, top
	fig := newFigure("Frames each technique decodes per sample against the mean stack depth at its samples, a point per stand-in at a 1 ms interval: SPS walks the whole stack (on the grey line), ISPS decodes the top frame and each caller once. "+captionHofer+" "+captionCI, p)
	return &Result{Table: t, Figure: fig, Tidy: tidyOf(r.Obs)}, nil
}

// meanDepth is the mean stack depth of p's samples.
func meanDepth(p *profile.Profile) float64 {
	var n, d float64
	for i, s := range p.Samples {
		n += float64(s.Count)
		d += float64(s.Count) * float64(p.Depth(i))
	}
	if n == 0 {
		return 0
	}
	return d / n
}
