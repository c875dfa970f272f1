package study

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
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

func init() {
	register(Experiment{Name: "a2-grid", Claim: "A2", Title: "Arnold & Grove Table 2: accuracy and overhead over SAMPLES × STRIDE", Run: runA2})
}

var (
	a2Samples = []int{1, 2, 4, 8, 16, 32}
	a2Strides = []int{1, 3, 7, 15}
	a2Benches = []string{"compress", "jess", "db", "javac", "mpegaudio", "mtrt", "jack"}
)

func a2Name(samples, stride int) string { return fmt.Sprintf("cbs-%d-%d", samples, stride) }

// A2Accuracy runs every grid cell as a passive CBS on one execution of
// each benchmark and returns the mean overlap (%) with the exact DCG per
// cell.
func A2Accuracy(benches []string, seed uint64, d sim.Time) (map[string]float64, error) {
	acc := map[string]float64{}
	for _, b := range benches {
		p, err := workloads.Get(b)
		if err != nil {
			return nil, err
		}
		cfg := harness.DefaultConfig()
		cfg.Sim.Seed, cfg.Sim.Duration = seed, d
		cfg.JIT.Flavour, cfg.JIT.Inline = jit.Jikes, false
		for _, n := range a2Samples {
			for _, s := range a2Strides {
				c := samplers.DefaultCBSConfig()
				c.Samples, c.Stride = n, s
				cfg.Extra = append(cfg.Extra, samplers.NewCBSNamed(a2Name(n, s), c))
			}
		}
		out, err := harness.Run(p, cfg)
		if err != nil {
			return nil, err
		}
		for _, n := range a2Samples {
			for _, s := range a2Strides {
				acc[a2Name(n, s)] += 100 * profile.OverlapEdges(out.Profiles["truth"], out.Profiles[a2Name(n, s)]) / float64(len(benches))
			}
		}
	}
	return acc, nil
}

// A2Overhead is the costed slowdown (%) of CBS(samples, stride) on a
// benchmark: application work done in d, without vs with the sampler.
func A2Overhead(bench string, samples, stride int, d sim.Time) (float64, error) {
	work := func(withCBS bool) (int64, error) {
		p, err := workloads.Get(bench)
		if err != nil {
			return 0, err
		}
		cfg := harness.DefaultConfig()
		cfg.Sim.Duration = d
		cfg.JIT.Flavour, cfg.JIT.Inline = jit.Jikes, false
		if withCBS {
			cfg.Samplers, cfg.Mode = []string{"cbs"}, samplers.Costed
			cfg.Configure = func(s samplers.Sampler) {
				if c, ok := s.(*samplers.CBS); ok {
					k := c.Config()
					k.Samples, k.Stride = samples, stride
					*c = *samplers.NewCBS(k)
				}
			}
		}
		out, err := harness.Run(p, cfg)
		if err != nil {
			return 0, err
		}
		return out.Result.Statements, nil
	}
	base, err := work(false)
	if err != nil {
		return 0, err
	}
	with, err := work(true)
	if err != nil {
		return 0, err
	}
	return 100 * (float64(base)/float64(with) - 1), nil
}

func runA2(o Options) (*Result, error) {
	d, od := 400*sim.Millisecond, 150*sim.Millisecond
	if o.Full {
		d, od = 4*sim.Second, sim.Second
	}
	benches := a2Benches
	acc, err := A2Accuracy(benches, o.Seeds[0], d)
	if err != nil {
		return nil, err
	}
	_, ref := readAGGrid()
	cols := []string{"SAMPLES \\ STRIDE"}
	for _, s := range a2Strides {
		cols = append(cols, fmt.Sprintf("%d", s), fmt.Sprintf("paper %d", s))
	}
	t := &Table{Title: "Arnold & Grove Table 2: accuracy (% overlap with the exact DCG), mean over the SPECjvm98 stand-ins", Columns: cols}
	res := &Result{Table: t, Values: map[string]float64{}}
	for _, n := range a2Samples {
		cells := []any{n}
		for _, s := range a2Strides {
			v := acc[a2Name(n, s)]
			res.Values[a2Name(n, s)] = v
			cells = append(cells, fmt.Sprintf("%.0f", v), ref[fmt.Sprintf("%d/%d", n, s)])
		}
		t.AddRow(cells...)
	}
	// Overhead of three settings on three stand-ins.
	for _, set := range [][2]int{{1, 1}, {32, 3}, {1024, 63}} {
		var ovs []float64
		for _, b := range []string{"jess", "javac", "jack"} {
			ov, err := A2Overhead(b, set[0], set[1], od)
			if err != nil {
				return nil, err
			}
			ovs = append(ovs, ov)
		}
		m, _ := MeanCI(ovs)
		res.Values[fmt.Sprintf("overhead-%d-%d", set[0], set[1])] = m
		t.Notes = append(t.Notes, fmt.Sprintf("Overhead of SAMPLES %d, STRIDE %d (costed, jess/javac/jack, %v): %.2f %% (paper: %s).",
			set[0], set[1], od, m, refOverhead(set)))
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Jikes-like yield points, no inlining, %v per stand-in, every cell a passive CBS on the same execution; paper columns from Table 2A (Jikes RVM).", d))
	p := plot.New()
	p.Title.Text = "CBS accuracy (%) by SAMPLES, one line per STRIDE"
	p.X.Label.Text = "SAMPLES per timer interrupt"
	p.Y.Label.Text = "accuracy (%)"
	var args []any
	for _, s := range a2Strides {
		xy := plotter.XYs{}
		for _, n := range a2Samples {
			xy = append(xy, plotter.XY{X: float64(n), Y: acc[a2Name(n, s)]})
		}
		args = append(args, fmt.Sprintf("STRIDE %d", s), xy)
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return nil, err
	}
	res.Figure = p
	return res, nil
}

func refOverhead(set [2]int) string {
	h, rows := readAGGridRows()
	if h == nil {
		return "n/a"
	}
	if r, ok := rows[fmt.Sprintf("%d/%d", set[0], set[1])]; ok {
		return r[3] + " %"
	}
	return "not in the grid"
}

// readAGGrid returns the Jikes accuracy per "samples/stride".
func readAGGrid() ([]string, map[string]string) {
	h, rows := readAGGridRows()
	out := map[string]string{}
	for k, r := range rows {
		out[k] = r[4]
	}
	return h, out
}

func readAGGridRows() ([]string, map[string][]string) {
	d := referenceDir()
	if d == "" {
		return nil, nil
	}
	f, err := os.Open(filepath.Join(d, "arnoldgrove2005_table2_grid.csv"))
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	if err != nil || len(all) == 0 {
		return nil, nil
	}
	rows := map[string][]string{}
	for _, r := range all[1:] {
		if r[0] == "jikes" {
			rows[r[1]+"/"+r[2]] = r
		}
	}
	return all[0], rows
}

func init() {
	register(Experiment{Name: "a3-input-size", Claim: "A3", Title: "Arnold & Grove Table 3: base vs CBS accuracy on small and large inputs", Run: runA3})
}

// a3Benches are A&G's thirteen benchmarks with a unit count that keeps a
// small-input run short (large inputs run five times as many units).
var a3Benches = []string{"compress", "jess", "db", "javac", "mpegaudio", "mtrt", "jack", "ipsixql", "xerces", "daikon", "kawa", "jbb", "soot"}

func runA3(o Options) (*Result, error) {
	_, ref := readReference("arnoldgrove2005_table3_per_benchmark.csv")
	refAcc := map[string][2]string{}
	for _, r := range ref {
		refAcc[r[0]] = [2]string{r[2], r[4]}
	}
	t := &Table{Title: "Accuracy (% overlap with the exact DCG) by input size: jikes-timer (base) vs CBS (STRIDE 3, SAMPLES 16)",
		Columns: []string{"benchmark", "input", "run", "base", "cbs", "paper base", "paper cbs"}}
	res := &Result{Table: t, Values: map[string]float64{}}
	benches := a3Benches[:7] // the SPECjvm98 stand-ins; all thirteen with Full
	small := 60 * sim.Millisecond
	if o.Full {
		benches, small = a3Benches, 300*sim.Millisecond
	}
	var sums [2][2]float64 // [input][base, cbs]
	cbsWins, n := 0, 0
	for _, b := range benches {
		for i, in := range []string{"small", "large"} {
			p, err := workloads.Get(b + "-" + in)
			if err != nil {
				return nil, err
			}
			cfg := harness.DefaultConfig()
			// Large inputs run five times longer, as in A&G's Table 1.
			cfg.Sim.Seed, cfg.Sim.Duration = o.Seeds[0], small*sim.Time(1+4*i)
			cfg.JIT.Flavour, cfg.JIT.Inline = jit.Jikes, false
			cfg.Samplers = []string{"jikes-timer", "cbs"}
			cfg.Configure = func(x samplers.Sampler) {
				if c, ok := x.(*samplers.CBS); ok {
					kc := c.Config()
					kc.Stride, kc.Samples = 3, 16
					*c = *samplers.NewCBS(kc)
				}
			}
			out, err := harness.Run(p, cfg)
			if err != nil {
				return nil, err
			}
			base := 100 * profile.OverlapEdges(out.Profiles["truth"], out.Profiles["jikes-timer"])
			cbs := 100 * profile.OverlapEdges(out.Profiles["truth"], out.Profiles["cbs"])
			sums[i][0] += base / float64(len(benches))
			sums[i][1] += cbs / float64(len(benches))
			if cbs >= base {
				cbsWins++
			}
			n++
			pr := refAcc[b+"-"+in]
			t.AddRow(b, in, out.Result.End.String(), fmt.Sprintf("%.0f", base), fmt.Sprintf("%.0f", cbs), pr[0], pr[1])
		}
	}
	res.Values["small_base"], res.Values["small_cbs"] = sums[0][0], sums[0][1]
	res.Values["large_base"], res.Values["large_cbs"] = sums[1][0], sums[1][1]
	res.Values["cbs_wins"] = float64(cbsWins) / float64(n)
	t.AddRow("mean", "small", "", fmt.Sprintf("%.0f", sums[0][0]), fmt.Sprintf("%.0f", sums[0][1]), "26", "55")
	t.AddRow("mean", "large", "", fmt.Sprintf("%.0f", sums[1][0]), fmt.Sprintf("%.0f", sums[1][1]), "50", "69")
	t.Notes = append(t.Notes, fmt.Sprintf("Small inputs run %v, large %v and cover all entry methods; Jikes-like yield points, no inlining. Paper means from the text of §6 (Jikes RVM).", small, 5*small))
	p := plot.New()
	p.Title.Text = "Mean accuracy (%): small vs large inputs"
	bars, err := plotter.NewBarChart(plotter.Values{sums[0][0], sums[1][0], sums[0][1], sums[1][1]}, vg.Points(20))
	if err != nil {
		return nil, err
	}
	p.Add(bars)
	p.NominalX("base small", "base large", "cbs small", "cbs large")
	res.Figure = p
	return res, nil
}

func init() {
	register(Experiment{Name: "a4-inlining", Claim: "A4", Title: "Arnold & Grove Fig. 5: profile-directed inlining driven by timer vs CBS call graphs", Run: runA4})
}

// a4Inliner is one of Fig. 5's two VMs' inlining policies.
type a4Inliner struct {
	name string
	// staticSize is the static heuristics' size limit (MaxInlineSize).
	staticSize int64
	// overrides: the profile's verdict replaces the static heuristics
	// (J9: a cold call site is not inlined) instead of adding to them
	// (Jikes RVM's new inliner).
	overrides bool
}

var (
	a4Inliners = []a4Inliner{{"jikes", 35, false}, {"j9", 100, true}}
	// a4Sources: the call graph the inliner reads; "static" is the
	// baseline — the static heuristics alone.
	a4Sources = []struct{ name, sampler, from string }{
		{"static", "", "none"}, {"timer", "jikes-timer", "jikes-timer"}, {"cbs", "cbs", "cbs"}, {"exact", "", "exact"},
	}
)

// a4Work runs one configuration and returns the bytecodes executed after
// the warm-up (steady state).
func a4Work(bench string, seed uint64, d sim.Time, inl a4Inliner, src int) (float64, error) {
	p, err := workloads.Get(bench)
	if err != nil {
		return 0, err
	}
	cfg := harness.DefaultConfig()
	cfg.Sim.Seed, cfg.Sim.Duration = seed, d
	cfg.JIT.Flavour = jit.Jikes
	cfg.JIT.ReceiverDominance = 0.4 // guarded inlining above 40 % of a site's targets
	cfg.JIT.MaxInlineSize = inl.staticSize
	cfg.JIT.ProfileOverridesStatic = inl.overrides && a4Sources[src].from != "none"
	if a4Sources[src].sampler != "" {
		cfg.Samplers = []string{a4Sources[src].sampler}
	}
	cfg.InlineFrom = a4Sources[src].from
	// The call graph matures for a quarter of the run, the adaptive system
	// then re-optimizes with it, and the second half is measured.
	cfg.RecompileAt, cfg.WarmUp = d/4, d/2
	out, err := harness.Run(p, cfg)
	if err != nil {
		return 0, fmt.Errorf("%s/%s/%s: %w", bench, inl.name, a4Sources[src].name, err)
	}
	return float64(out.Result.Truth.BytecodeTotal() - out.WarmUpBytecodes), nil
}

// runA4 runs SPECjvm98 stand-ins under two inliners (Jikes RVM's new
// inliner; J9's aggressive static heuristics overridden by the profile)
// reading three call graphs — the timer's, CBS's and the exact one — and
// reports steady-state speed-up over the static heuristics alone, paired
// by seed.
func runA4(o Options) (*Result, error) {
	d := 300 * sim.Millisecond
	benches := []string{"jess", "javac", "mtrt"} // the ones the paper discusses

	if o.Full {
		d, benches = 2*sim.Second, a2Benches
	}
	type key struct {
		bench    string
		seed     int
		inl, src int
	}
	work := map[key]float64{}
	var keys []key
	for _, b := range benches {
		for si := range o.Seeds {
			for ii := range a4Inliners {
				for src := range a4Sources {
					keys = append(keys, key{b, si, ii, src})
				}
			}
		}
	}
	vals, err := runAll(keys, func(k key) (float64, error) {
		return a4Work(k.bench, o.Seeds[k.seed], d, a4Inliners[k.inl], k.src)
	})
	if err != nil {
		return nil, err
	}
	for i, k := range keys {
		work[k] = vals[i]
	}
	t := &Table{Title: "Arnold & Grove Fig. 5: steady-state speed-up (%) of profile-directed inlining over static heuristics, by the call graph the inliner reads (mean ± 95 % CI over seeds)",
		Columns: []string{"benchmark", "jikes timer", "jikes cbs", "jikes exact", "j9 timer", "j9 cbs", "j9 exact", "paper"}}
	res := &Result{Table: t, Values: map[string]float64{}}
	paper := map[string]string{
		"javac": "Jikes: cbs +4 % over timer", "mtrt": "J9: cbs +8.7 %", "jess": "Jikes: large gain, cbs ≈ timer",
		"compress": "Jikes: large gain; J9 timer −1 %", "mpegaudio": "Jikes: cbs slightly better", "jack": "Jikes: cbs slightly better",
	}
	for _, b := range benches {
		cells := []any{b}
		for ii, inl := range a4Inliners {
			for src := 1; src < len(a4Sources); src++ {
				var sp []float64
				for si := range o.Seeds {
					base := work[key{b, si, ii, 0}]
					sp = append(sp, 100*(work[key{b, si, ii, src}]/base-1))
				}
				m, h := MeanCI(sp)
				name := inl.name + "/" + a4Sources[src].name
				res.Values[b+"/"+name] = m
				res.Values[b+"/"+name+"/ci"] = h
				res.Values["mean/"+name] += m / float64(len(benches))
				cells = append(cells, fmt.Sprintf("%+.2f ± %.2f", m, h))
			}
		}
		cells = append(cells, paper[b])
		t.AddRow(cells...)
	}
	cells := []any{"mean"}
	for _, inl := range a4Inliners {
		for src := 1; src < len(a4Sources); src++ {
			cells = append(cells, fmt.Sprintf("%+.2f", res.Values["mean/"+inl.name+"/"+a4Sources[src].name]))
		}
	}
	t.AddRow(append(cells, "Jikes: no program degraded; J9: timer hurts 6 of 8")...)
	t.Notes = append(t.Notes, fmt.Sprintf("Jikes-like yield points, %v per run: the call graph matures for %v, every compiled method is then recompiled with it (the adaptive system's re-optimization), and the bytecodes executed in the last %v are compared with the static heuristics' (paired by seed). Jikes: static limit 35 bytecodes plus a profile-driven limit growing linearly to 325 at 1 %% of the DCG's weight; J9: static limit 100, replaced by the profile's limit (a site the profile never saw is not inlined). Guarded inlining of receivers above 40 %%. Samplers run passively, so their own cost is not in the comparison. The paper measured the second of two minutes.", d, d/4, d/2))
	p := plot.New()
	p.Title.Text = "A4: speed-up of profile-directed inlining"
	p.Y.Label.Text = "speed-up over static heuristics (%)"
	w := vg.Points(6)
	for src := 1; src < len(a4Sources); src++ {
		for ii, inl := range a4Inliners {
			var v plotter.Values
			for _, b := range benches {
				v = append(v, res.Values[b+"/"+inl.name+"/"+a4Sources[src].name])
			}
			bars, err := plotter.NewBarChart(v, w)
			if err != nil {
				return nil, err
			}
			bars.Offset = w * vg.Length(2*(src-1)+ii-3)
			bars.Color = plotutil.Color(2*(src-1) + ii)
			p.Add(bars)
			p.Legend.Add(inl.name+" "+a4Sources[src].name, bars)
		}
	}
	p.NominalX(benches...)
	p.Legend.Top = true
	res.Figure = p
	return res, nil
}
