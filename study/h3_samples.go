package study

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "h3-samples", Claim: "H3", Title: "Hofer et al. §7.2: samples JVMTI takes at 0.1 ms vs 1 ms on the CPU-heavy stand-ins", Run: typed(measureH3)})
}

// hoferCPUHeavy are the stand-ins whose hot loops have no polls; the
// paper's lusearch, sunflow and xalan.
var hoferCPUHeavy = []string{"lusearch", "sunflow", "xalan"}

// h3Result is §7.2's samples at 0.1 vs 1 ms.
type h3Result struct{ hoferOverheadData }

// measureH3 reads (or runs) the overhead grid.
func measureH3(o Options) (*h3Result, error) {
	d, err := measureHoferOverhead(o)
	return &h3Result{d}, err
}

// Ratio is JVMTI's samples at 0.1 ms over those at 1 ms on b.
func (r *h3Result) Ratio(b string) float64 {
	return r.Taken(b, "jvmti", 100*sim.Microsecond) / r.Taken(b, "jvmti", sim.Millisecond)
}

func (r *h3Result) render() (*Result, error) {
	t := &Table{Title: "H3: JVMTI samples taken (thread samples per run, mean over seeds) and latency at 1 ms and 0.1 ms",
		Columns: []string{"stand-in", "samples 1 ms", "samples 0.1 ms", "0.1 ms / 1 ms", "latency > 1 ms: share at 1 ms", "at 0.1 ms", "overhead 1 ms (%)", "overhead 0.1 ms (%)"}}
	for _, b := range hoferCPUHeavy {
		n1, n01 := r.Taken(b, "jvmti", sim.Millisecond), r.Taken(b, "jvmti", 100*sim.Microsecond)
		o1 := r.Overhead(b, "jvmti", sim.Millisecond).Mean
		o01 := r.Overhead(b, "jvmti", 100*sim.Microsecond).Mean
		t.AddRow(b, fmt.Sprintf("%.0f", n1), fmt.Sprintf("%.0f", n01), fmt.Sprintf("%.1f×", n01/n1),
			fmt.Sprintf("%.2f %%", 100*r.LongShare(b, "jvmti", sim.Millisecond)), fmt.Sprintf("%.2f %%", 100*r.LongShare(b, "jvmti", 100*sim.Microsecond)), o1, o01)
	}
	t.Notes = append(t.Notes, r.Note)
	t.Notes = append(t.Notes, discussion("h3-samples")...)
	// Figure: per CPU-heavy stand-in, each technique's samples at 0.1 ms
	// over its samples at 1 ms, the ratio per seed with its mean and 95 %
	// CI over seeds; the claim's side of 1 (fewer at 0.1 ms) and 10 (every
	// request on time) as references.
	p := plot.New()
	p.Title.Text = "H3: samples at 0.1 ms ÷ samples at 1 ms (mean ± 95 % CI over seeds)"
	p.X.Label.Text = "stand-in (CPU-heavy, poll-free loops)"
	p.Y.Label.Text = "samples taken at 0.1 ms ÷ at 1 ms"
	top := 10.0
	for i, pr := range hoferTechniques {
		var pts errPoints
		for bi, b := range hoferCPUHeavy {
			var ratios []float64
			for si := range r.Seeds {
				ratios = append(ratios, float64(r.run(b, si, pr, 100*sim.Microsecond).Costs.Taken)/float64(r.run(b, si, pr, sim.Millisecond).Costs.Taken))
			}
			m := newStat(ratios)
			top = math.Max(top, m.Mean+pts.add(float64(bi)-0.2+0.2*float64(i), m))
		}
		if err := pts.addTo(p, series{Label: pr, Style: i, Radius: vg.Points(3.5)}); err != nil {
			return nil, err
		}
	}
	if err := addRefLines(p, -0.5, float64(len(hoferCPUHeavy))-0.5, refLine{10, "every request on time (10×)"}, refLine{1, "paper: JVMTI below 1 (fewer at 0.1 ms)"}); err != nil {
		return nil, err
	}
	p.NominalX(hoferCPUHeavy...)
	p.X.Min, p.X.Max = -0.5, float64(len(hoferCPUHeavy))-0.5
	p.Y.Min, p.Y.Max = 0, top
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 1, Label: "1"}, {Value: 5, Label: "5"}, {Value: 10, Label: "10"}, {Value: 15, Label: "15"}})
	fig := newFigure("How many more samples each technique takes when the interval shrinks tenfold, on the CPU-heavy stand-ins whose loops have no safepoint poll: 10 means every request was served on time, below 1 means fewer samples at the shorter interval. CPU = central processing unit. "+captionHofer+" "+captionCI, p)
	return &Result{Table: t, Figure: fig, Tidy: tidyOf(r.runObs(hoferCPUHeavy))}, nil
}
