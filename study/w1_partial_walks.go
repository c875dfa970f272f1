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
	register(Experiment{Name: "w1-partial-walks", Claim: "W1", Title: "Whaley §5: marker bits stop the upward walk at the first frame already in the PCCT", Run: typed(measureW1)})
}

// w1Obs is one tidy observation of W1: in the run of Benchmark with Seed,
// the PCCT at IntervalMs took Samples; a full walk examined Depth frames
// per sample, the marker-bit walk Examined; Identical says whether the two
// trees have the same contexts and counts.
type w1Obs struct {
	Benchmark  string
	Seed       uint64
	IntervalMs float64 `tidy:"interval_ms"`
	Samples    int64
	Depth      float64
	Examined   float64
	Identical  bool
}

// w1Result is W1's runs, by stand-in, seed and interval.
type w1Result struct {
	Seeds   []uint64
	Benches []string
	Note    string // the passive runs, for the table's notes
	Obs     []w1Obs
}

// of lists the runs of benchmark b at interval iv.
func (r *w1Result) of(b string, iv sim.Time) []w1Obs {
	return mustWhere(r.Obs, func(x w1Obs) bool { return x.Benchmark == b && x.IntervalMs == iv.Seconds()*1e3 }, "W1 has no runs of %s at %v", b, iv)
}

// Ratio, Depth and Examined are frames examined / stack depth, the stack
// depth and the frames examined per sample on b at iv, over the seeds.
func (r *w1Result) Ratio(b string, iv sim.Time) stat {
	var xs []float64
	for _, x := range r.of(b, iv) {
		xs = append(xs, x.Examined/x.Depth)
	}
	return newStat(xs)
}

func (r *w1Result) Depth(b string, iv sim.Time) stat {
	var xs []float64
	for _, x := range r.of(b, iv) {
		xs = append(xs, x.Depth)
	}
	return newStat(xs)
}

func (r *w1Result) Examined(b string, iv sim.Time) stat {
	var xs []float64
	for _, x := range r.of(b, iv) {
		xs = append(xs, x.Examined)
	}
	return newStat(xs)
}

// NotIdentical counts the runs whose marker-bit PCCT differs from the
// full walks'.
func (r *w1Result) NotIdentical() int {
	n := 0
	for _, x := range r.Obs {
		if !x.Identical {
			n++
		}
	}
	return n
}

// ExcessMax is the most frames a marker-bit walk examined per sample
// beyond the stack depth, over every run (≤ 0: never more).
func (r *w1Result) ExcessMax() float64 {
	m := math.Inf(-1)
	for _, x := range r.Obs {
		m = math.Max(m, x.Examined-x.Depth)
	}
	return m
}

// measureW1: frames examined per sample with marker bits against the stack
// depth (what a full walk examines), and whether the two trees agree.
func measureW1(o Options) (*w1Result, error) {
	runs, err := whaleyPassive(o)
	if err != nil {
		return nil, err
	}
	res := &w1Result{Seeds: o.Seeds, Benches: whaleyNames(o), Note: whaleyRunsNote(o)}
	for _, b := range res.Benches {
		for ii, iv := range whaleyIntervals {
			for si, r := range runs[b] {
				res.Obs = append(res.Obs, w1Obs{Benchmark: b, Seed: o.Seeds[si], IntervalMs: iv.Seconds() * 1e3,
					Samples: r.Taken[ii], Depth: r.Depth[ii], Examined: r.Examined[ii], Identical: r.Identical[ii]})
			}
		}
	}
	return res, nil
}

func (r *w1Result) render() (*Result, error) {
	t := &Table{Title: "W1: frames examined per sample with marker bits vs the stack depth (full walk), same execution (mean ± 95 % CI over seeds)",
		Columns: []string{"stand-in", "interval", "samples/run", "stack depth (full walk)", "frames examined (marker bits)", "examined / depth", "PCCT = full-walk CCT"}}
	res := &Result{Table: t, Tidy: tidyOf(r.Obs)}
	ideal := plotter.XYs{}
	pts := map[sim.Time]plotter.XYs{}
	maxD := 0.0
	for _, b := range r.Benches {
		for _, iv := range whaleyIntervals {
			var taken int64
			same := 0
			runs := r.of(b, iv)
			for _, x := range runs {
				taken += x.Samples
				if x.Identical {
					same++
				}
				pts[iv] = append(pts[iv], plotter.XY{X: x.Depth, Y: x.Examined})
				maxD = math.Max(maxD, x.Depth)
			}
			t.AddRow(b, iv.String(), taken/int64(len(runs)), r.Depth(b, iv).String(), r.Examined(b, iv).String(), r.Ratio(b, iv).String(), fmt.Sprintf("%d of %d runs", same, len(runs)))
		}
	}
	t.Notes = append(t.Notes,
		r.Note+". On each execution a PCCT with marker bits and one walking the whole stack at every sample (FullWalk) sample the same stacks at the same ticks, no depth limit; 'stack depth' is the frames the full walk examines per sample, 'frames examined' those the marker-bit walk reads up to and including the first marked frame. 'PCCT = full-walk CCT': identical contexts and sample counts.")
	t.Notes = append(t.Notes, discussion("w1-partial-walks")...)
	for i := 0; i <= int(1.08*(maxD+1))+1; i += max(1, int(maxD)/20) {
		ideal = append(ideal, plotter.XY{X: float64(i), Y: float64(i)})
	}
	p := plot.New()
	p.Title.Text = "W1: frames examined per sample vs stack depth"
	p.X.Label.Text = "stack depth at the sample (frames a full walk examines)"
	p.Y.Label.Text = "frames examined with marker bits"
	yx, err := plotter.NewLine(ideal)
	if err != nil {
		return nil, err
	}
	yx.Color, yx.Dashes = color.Gray{Y: 100}, []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(yx)
	p.Legend.Add("full walk (y = x)", yx)
	for i, iv := range whaleyIntervals {
		sc, err := plotter.NewScatter(pts[iv])
		if err != nil {
			return nil, err
		}
		styleScatter(sc, i)
		p.Add(sc)
		p.Legend.Add("marker bits, "+iv.String(), sc)
	}
	p.X.Min, p.Y.Min = 0, 0
	p.X.Max, p.Y.Max = 1.08*(maxD+1), 1.08*(maxD+1) // the deepest runs clear of the frame
	res.Figure = newFigure("Each point is one run and seed: the mean frames the PCCT's marker-bit walk reads per sample (up to the first frame already marked) against the stack depth a full walk reads, at each sampling interval. PCCT = partial calling context tree (Whaley 2000).", p)
	return res, nil
}
