package study

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

func init() {
	register(Experiment{Name: "b6-profile-size", Claim: "B6", Title: "Binder Fig. 11: profile size vs granularity", Run: typed(measureB6), Paper: binderPaperNote})
}

// b6Result is Fig. 11: the sampled CCT's size per granularity.
type b6Result struct{ binderGridData }

// measureB6 reads the sampled CCTs' sizes from the grid.
func measureB6(o Options) (*b6Result, error) {
	g, err := measureBinderGrid(o)
	return &b6Result{g}, err
}

func (r *b6Result) render() (*Result, error) {
	t := &Table{Title: "Profile size (CCT nodes, summed over the stand-ins; mean over seeds)", Columns: []string{"granularity", "constant", "randomized", "randomized / constant"}}
	res := &Result{Table: t, Tidy: tidyOf(r.Obs)}
	for _, g := range binderGrans {
		c, rn := r.Size(g, false), r.Size(g, true)
		t.AddRow(g, fmt.Sprintf("%.0f", c), fmt.Sprintf("%.0f", rn), fmt.Sprintf("%.2f", rn/c))
	}
	t.Notes = append(t.Notes, "Paper: size falls with granularity; at 500–10 000 constant-granularity profiles are smaller than randomized ones, because a constant period keeps hitting the same positions and misses stacks.")
	// Figure: the size summed over the stand-ins per seed, mean and 95 %
	// CI over seeds, against the granularity on a log axis.
	p := plot.New()
	p.Title.Text = "B6: profile size vs granularity (mean ± 95 % CI over seeds)"
	p.X.Label.Text = "granularity (bytecodes between samples, log scale)"
	p.Y.Label.Text = "CCT nodes, summed over the stand-ins"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{}
	top := 0.0
	for i, random := range []bool{false, true} {
		var pts errPoints
		for _, g := range binderGrans {
			var perSeed []float64
			for _, seed := range r.Seeds {
				n := 0.0
				for _, x := range r.Obs {
					if x.Random == random && x.Granularity == g && x.Seed == seed {
						n += float64(x.Nodes)
					}
				}
				perSeed = append(perSeed, n)
			}
			m := newStat(perSeed)
			h := pts.add(float64(g)*math.Pow(1.05, float64(2*i-1)), m)
			top = math.Max(top, m.Mean+h)
		}
		s := series{Label: []string{"constant", "randomized"}[i], Style: i, Line: true}
		if i > 0 {
			s.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		if err := pts.addTo(p, s); err != nil {
			return nil, err
		}
	}
	p.Y.Min, p.Y.Max = 0, top
	res.Figure = newFigure("Size of Komorium's profile (CCT nodes, summed over the stand-ins) against the granularity (bytecodes between samples), with a constant and a randomized period. CCT = calling context tree. "+captionCI, p)
	return res, nil
}
