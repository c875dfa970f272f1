package study

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
)

func init() {
	register(Experiment{Name: "a1-callpair", Claim: "A1", Title: "Arnold & Grove Fig. 1: timer vs counter-based call-edge sampling", Run: runA1})
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

// runA1: callpair on Jikes-like yield points without inlining (the calls
// stay calls, as in the figure); jikes-timer and CBS at several strides.
func runA1(o Options) (*Result, error) {
	strides := []int{2, 3, 7}
	t := &Table{Title: "Arnold & Grove Fig. 1: edges recorded for M → call_1 and M → call_2",
		Columns: []string{"seed", "profiler", "call_1", "call_2", "call_1 / call_2", "overlap with exact DCG"}}
	res := &Result{Table: t, Values: map[string]float64{}}
	var jt, cb []float64
	var barVals plotter.Values
	var barNames []string
	for _, seed := range o.Seeds {
		for _, stride := range append([]int{0}, strides...) {
			p, err := workloads.Get("callpair")
			if err != nil {
				return nil, err
			}
			cfg := harness.DefaultConfig()
			cfg.Sim.Seed, cfg.Sim.Duration = seed, sim.Second
			cfg.JIT.Flavour, cfg.JIT.Inline = jit.Jikes, false
			name := "jikes-timer"
			if stride > 0 {
				name = "cbs"
				st := stride
				cfg.Configure = func(s samplers.Sampler) {
					if c, ok := s.(*samplers.CBS); ok {
						k := c.Config()
						k.Stride, k.Samples = st, 16
						*c = *samplers.NewCBS(k)
					}
				}
			}
			cfg.Samplers = []string{name}
			out, err := harness.Run(p, cfg)
			if err != nil {
				return nil, err
			}
			pr := out.Profiles[name]
			c1, c2 := edgeWeight(pr, "CallPair.M", "CallPair.call_1"), edgeWeight(pr, "CallPair.M", "CallPair.call_2")
			ratio := float64(c1) / float64(max(c2, 1))
			ov := profile.OverlapEdges(out.Profiles["truth"], pr)
			label := name
			if stride > 0 {
				label = fmt.Sprintf("cbs (STRIDE %d, SAMPLES 16)", stride)
				cb = append(cb, ratio)
			} else {
				jt = append(jt, ratio)
			}
			t.AddRow(seed, label, c1, c2, fmt.Sprintf("%.2f", ratio), fmt.Sprintf("%.0f %%", 100*ov))
			if seed == o.Seeds[0] {
				barNames = append(barNames, label)
				barVals = append(barVals, 100*ov)
			}
		}
	}
	res.Values["jikes_ratio_min"] = minOf(jt)
	res.Values["cbs_ratio_min"], res.Values["cbs_ratio_max"] = minOf(cb), maxOf(cb)
	t.Notes = append(t.Notes, "callpair, 1 s simulated, Jikes-like yield points, no inlining; truth: call_1 and call_2 are called equally often. Paper: the timer-based mechanism records call_1 (whose prologue yield point follows the long loop body) and misses call_2.")
	p := plot.New()
	p.Title.Text = "callpair: call-graph accuracy (overlap with the exact DCG, %)"
	bars, err := plotter.NewBarChart(barVals, vg.Points(20))
	if err != nil {
		return nil, err
	}
	p.Add(bars)
	p.NominalX(barNames...)
	res.Figure = p
	return res, nil
}

func minOf(v []float64) float64 {
	m := v[0]
	for _, x := range v {
		m = min(m, x)
	}
	return m
}

func maxOf(v []float64) float64 {
	m := v[0]
	for _, x := range v {
		m = max(m, x)
	}
	return m
}
