package study

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"

	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "a3-input-size", Claim: "A3", Title: "Arnold & Grove Table 3: base vs CBS accuracy on small and large inputs", Run: typed(measureA3)})
}

// a3Benches are A&G's thirteen benchmarks with a unit count that keeps a
// small-input run short (large inputs run five times as many units).
var a3Benches = []string{"compress", "jess", "db", "javac", "mpegaudio", "mtrt", "jack", "ipsixql", "xerces", "daikon", "kawa", "jbb", "soot"}

// a3Obs is one tidy observation: the run of Benchmark's Input ("small" or
// "large") with Seed, its length, and the accuracy (% overlap with the
// exact DCG) of the base mechanism (jikes-timer) and of CBS.
type a3Obs struct {
	Benchmark string
	Input     string
	Seed      uint64
	RunS      float64 `tidy:"run_s"`
	BasePct   float64 `tidy:"base_pct"`
	CBSPct    float64 `tidy:"cbs_pct"`
}

// a3Result is A3's runs, by stand-in, input and seed.
type a3Result struct {
	Seeds   []uint64
	Benches []string
	Small   sim.Time // a small input's run length; a large one runs 5×
	Obs     []a3Obs
}

// Mean is the accuracy (%) of the base mechanism (cbs false) or CBS on
// input, over the seeds, each seed's value the mean over the stand-ins.
func (r *a3Result) Mean(input string, cbs bool) stat {
	var xs []float64
	for _, seed := range r.Seeds {
		var sum float64
		n := 0
		for _, x := range r.Obs {
			if x.Seed == seed && x.Input == input {
				v := x.BasePct
				if cbs {
					v = x.CBSPct
				}
				sum += v
				n++
			}
		}
		if n == 0 {
			panic("study: A3 has no runs of input " + input)
		}
		xs = append(xs, sum/float64(n))
	}
	return newStat(xs)
}

// pair is (stand-in, input)'s base and CBS accuracy, means over seeds.
func (r *a3Result) pair(b, input string) (base, cbs float64) {
	runs := where(r.Obs, func(x a3Obs) bool { return x.Benchmark == b && x.Input == input })
	for _, x := range runs {
		base, cbs = base+x.BasePct, cbs+x.CBSPct
	}
	return base / float64(len(runs)), cbs / float64(len(runs))
}

// CBSWins is the share of (stand-in, input) pairs on which CBS's accuracy
// is at least the base mechanism's, means over seeds.
func (r *a3Result) CBSWins() float64 {
	wins, n := 0, 0
	for _, b := range r.Benches {
		for _, in := range []string{"small", "large"} {
			base, cbs := r.pair(b, in)
			if cbs >= base {
				wins++
			}
			n++
		}
	}
	return float64(wins) / float64(n)
}

// a3Key is one A3 run: bench's small (input 0) or large (1) input for d,
// with jikes-timer and CBS (STRIDE 3, SAMPLES 16) passive.
type a3Key struct {
	bench string
	input int
	seed  uint64
	d     sim.Time
}

func (k a3Key) run() (a3Obs, error) {
	in := []string{"small", "large"}[k.input]
	s := paperSpec(k.bench+"-"+in, k.seed, k.d)
	s.VM, s.Inline = "jikes", new(bool) // Jikes-like code, inlining off
	s.Samplers = []string{"jikes-timer", "cbs,stride=3,samples=16"}
	s.Truth = "methods" // only the truth's call edges are read
	out, err := runSpec(s)
	if err != nil {
		return a3Obs{}, err
	}
	return a3Obs{Benchmark: k.bench, Input: in, Seed: k.seed, RunS: out.Result.End.Seconds(),
		BasePct: 100 * profile.OverlapEdges(out.Profiles["truth"], out.Profiles["jikes-timer"]),
		CBSPct:  100 * profile.OverlapEdges(out.Profiles["truth"], out.Profiles["cbs"])}, nil
}

// measureA3 runs each stand-in's small and large input with jikes-timer
// and CBS (STRIDE 3, SAMPLES 16) passive on one execution, every seed.
func measureA3(o Options) (*a3Result, error) {
	benches := a3Benches[:7] // the SPECjvm98 stand-ins; all thirteen with Full
	small := 60 * sim.Millisecond
	if o.Full {
		benches, small = a3Benches, 300*sim.Millisecond
	}
	var keys []a3Key
	for _, b := range benches {
		for i := range 2 {
			for _, seed := range o.Seeds {
				// Large inputs run five times longer, as in A&G's Table 1.
				keys = append(keys, a3Key{b, i, seed, small * sim.Time(1+4*i)})
			}
		}
	}
	obs, err := runAll(o, keys)
	if err != nil {
		return nil, err
	}
	return &a3Result{Seeds: o.Seeds, Benches: benches, Small: small, Obs: obs}, nil
}

func (r *a3Result) render() (*Result, error) {
	_, ref := readReference("arnoldgrove2005_table3_per_benchmark.csv")
	refAcc := map[string][2]string{}
	for _, x := range ref {
		refAcc[x[0]] = [2]string{x[2], x[4]}
	}
	t := &Table{Title: "Accuracy (% overlap with the exact DCG) by input size: jikes-timer (base) vs CBS (STRIDE 3, SAMPLES 16), mean over seeds",
		Columns: []string{"benchmark", "input", "base", "cbs", "paper base", "paper cbs"}}
	for _, b := range r.Benches {
		for _, in := range []string{"small", "large"} {
			base, cbs := r.pair(b, in)
			pr := refAcc[b+"-"+in]
			t.AddRow(b, in, fmt.Sprintf("%.0f", base), fmt.Sprintf("%.0f", cbs), pr[0], pr[1])
		}
	}
	sb, sc, lb, lc := r.Mean("small", false), r.Mean("small", true), r.Mean("large", false), r.Mean("large", true)
	t.AddRow("mean", "small", fmt.Sprintf("%.0f", sb.Mean), fmt.Sprintf("%.0f", sc.Mean), "26", "55")
	t.AddRow("mean", "large", fmt.Sprintf("%.0f", lb.Mean), fmt.Sprintf("%.0f", lc.Mean), "50", "69")
	t.Notes = append(t.Notes, fmt.Sprintf("Small inputs run %v, large %v and cover all entry methods; Jikes-like yield points, no inlining; seeds %v. Paper means from the text of §6 (Jikes RVM).", r.Small, 5*r.Small, r.Seeds))
	res := &Result{Table: t, Tidy: tidyOf(r.Obs)}
	// Figure: the four means with their 95 % CI over seeds, beside the
	// paper's means (§6).
	p := plot.New()
	p.Title.Text = "A3: accuracy by input size (mean over stand-ins, ± 95 % CI over seeds)"
	p.Y.Label.Text = "overlap with the exact DCG (%)"
	var ours errPoints
	var paper plotter.XYs
	for i, x := range []struct {
		st    stat
		paper float64
	}{{sb, 26}, {lb, 50}, {sc, 55}, {lc, 69}} {
		ours.add(float64(i), x.st)
		paper = append(paper, plotter.XY{X: float64(i) + 0.15, Y: x.paper})
	}
	if err := ours.percent().addTo(p, series{Label: "ours", Style: 0}); err != nil {
		return nil, err
	}
	ps, err := plotter.NewScatter(paper)
	if err != nil {
		return nil, err
	}
	ps.GlyphStyle.Color, ps.GlyphStyle.Shape, ps.GlyphStyle.Radius = color.Gray{Y: 100}, draw.BoxGlyph{}, minGlyphRadius
	p.Add(ps)
	p.Legend.Add("paper (Jikes RVM, §6)", ps)
	p.NominalX("base, small", "base, large", "cbs, small", "cbs, large")
	p.X.Min, p.X.Max = -0.5, 3.5
	p.Y.Min, p.Y.Max = 0, 100
	res.Figure = newFigure("Call-graph accuracy of the base timer sampler and of CBS on small and large inputs (mean over stand-ins), beside the paper's means on Jikes RVM (grey, §6). RVM = Research Virtual Machine. base = one call edge per timer interrupt. "+captionCBS+" "+captionDCG+" "+captionCI, p)
	return res, nil
}
