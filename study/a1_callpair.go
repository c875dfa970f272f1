package study

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "a1-callpair", Claim: "A1", Title: "Arnold & Grove Fig. 1: timer vs counter-based call-edge sampling", Run: typed(measureA1)})
}

func edgeWeight(p *profile.Profile, caller, callee string) int64 {
	var n int64
	for _, e := range p.Edges {
		if p.Functions[e.Caller].Name == caller && p.Functions[e.Callee].Name == callee {
			n += e.Weight
		}
	}
	return n
}

// a1Strides are the CBS strides of A1 (SAMPLES 16).
var a1Strides = []int{2, 3, 7}

// a1Obs is one tidy observation: the call edges M → call_1 and M → call_2
// a profiler recorded in the run with Seed (Stride 0: jikes-timer) and its
// call graph's overlap with the exact DCG.
type a1Obs struct {
	Seed       uint64
	Profiler   string
	Stride     int
	Call1      int64 `tidy:"call_1"`
	Call2      int64 `tidy:"call_2"`
	Ratio      float64
	OverlapPct float64 `tidy:"overlap_pct"`
}

// a1Result is A1's runs, by seed and profiler.
type a1Result struct {
	Seeds []uint64
	Obs   []a1Obs
}

// Ratios lists call_1 / call_2 (call_2 at least 1) of the runs of
// profiler ("jikes-timer" or "cbs", every stride).
func (r *a1Result) Ratios(profiler string) []float64 {
	runs := mustWhere(r.Obs, func(x a1Obs) bool { return x.Profiler == profiler }, "A1 has no runs of %s", profiler)
	return values(runs, func(x a1Obs) float64 { return x.Ratio })
}

// measureA1 runs callpair on Jikes-like yield points without inlining (the
// calls stay calls, as in the figure): jikes-timer and CBS at several
// strides, every seed.
func measureA1(o Options) (*a1Result, error) {
	var keys []a1Key
	for _, seed := range o.Seeds {
		for _, stride := range append([]int{0}, a1Strides...) {
			keys = append(keys, a1Key{seed, stride})
		}
	}
	obs, err := runAll(o, keys)
	if err != nil {
		return nil, err
	}
	return &a1Result{Seeds: o.Seeds, Obs: obs}, nil
}

// a1Key is one A1 run: callpair for 1 s with jikes-timer (stride 0) or
// CBS at stride (SAMPLES 16).
type a1Key struct {
	seed   uint64
	stride int
}

func (k a1Key) run() (a1Obs, error) {
	s := paperSpec("callpair", k.seed, sim.Second)
	s.VM, s.Inline = "jikes", new(bool) // Jikes-like code, inlining off
	name, spec := "jikes-timer", "jikes-timer"
	if k.stride > 0 {
		name, spec = "cbs", fmt.Sprintf("cbs,stride=%d,samples=16", k.stride)
	}
	s.Samplers = []string{spec}
	s.Truth = "methods" // only the truth's call edges are read
	out, err := runSpec(s)
	if err != nil {
		return a1Obs{}, err
	}
	pr := out.Profiles[name]
	c1, c2 := edgeWeight(pr, "CallPair.M", "CallPair.call_1"), edgeWeight(pr, "CallPair.M", "CallPair.call_2")
	return a1Obs{Seed: k.seed, Profiler: name, Stride: k.stride, Call1: c1, Call2: c2,
		Ratio: float64(c1) / float64(max(c2, 1)), OverlapPct: 100 * profile.OverlapEdges(out.Profiles["truth"], pr)}, nil
}

func (r *a1Result) render() (*Result, error) {
	t := &Table{Title: "Arnold & Grove Fig. 1: edges recorded for M → call_1 and M → call_2",
		Columns: []string{"seed", "profiler", "call_1", "call_2", "call_1 / call_2", "overlap with exact DCG"}}
	for _, x := range r.Obs {
		label := x.Profiler
		if x.Stride > 0 {
			label = fmt.Sprintf("cbs (STRIDE %d, SAMPLES 16)", x.Stride)
		}
		t.AddRow(x.Seed, label, x.Call1, x.Call2, fmt.Sprintf("%.2f", x.Ratio), fmt.Sprintf("%.0f %%", x.OverlapPct))
	}
	t.Notes = append(t.Notes, discussion("a1-callpair")...)
	res := &Result{Table: t, Tidy: tidyOf(r.Obs)}
	// Figure: each configuration's call-graph overlap, every seed.
	p := plot.New()
	p.Title.Text = "A1: callpair, call-graph accuracy by mechanism"
	p.Y.Label.Text = "overlap with the exact DCG (%), one point per seed"
	names := []string{"jikes-timer"}
	for _, st := range a1Strides {
		names = append(names, fmt.Sprintf("cbs, STRIDE %d", st))
	}
	var pts plotter.XYs
	for _, x := range r.Obs {
		i := 0
		for k, st := range a1Strides {
			if x.Stride == st {
				i = k + 1
			}
		}
		si := 0
		for k, seed := range r.Seeds {
			if seed == x.Seed {
				si = k
			}
		}
		pts = append(pts, plotter.XY{X: float64(i) - 0.15 + 0.3*float64(si)/float64(max(len(r.Seeds)-1, 1)), Y: x.OverlapPct})
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	styleScatter(sc, 0)
	p.Add(sc)
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	p.Y.Min, p.Y.Max = 0, 100
	res.Figure = newFigure("Each point is one seed's call graph from the callpair stand-in, compared with the exact one. jikes-timer records one call edge per timer interrupt; cbs samples several edges per interrupt. "+captionDCG+" "+captionCBS, p)
	return res, nil
}
