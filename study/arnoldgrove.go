package study

import (
	"encoding/csv"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

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
	register(Experiment{Name: "a1-callpair", Claim: "A1", Title: "Arnold & Grove Fig. 1: timer vs counter-based call-edge sampling", Run: typed(MeasureA1)})
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

// A1Obs is one tidy observation: the call edges M → call_1 and M → call_2
// a profiler recorded in the run with Seed (Stride 0: jikes-timer) and its
// call graph's overlap with the exact DCG.
type A1Obs struct {
	Seed       uint64
	Profiler   string
	Stride     int
	Call1      int64 `tidy:"call_1"`
	Call2      int64 `tidy:"call_2"`
	Ratio      float64
	OverlapPct float64 `tidy:"overlap_pct"`
}

// A1Result is A1's runs, by seed and profiler.
type A1Result struct {
	Seeds []uint64
	Obs   []A1Obs
}

// Ratios lists call_1 / call_2 (call_2 at least 1) of the runs of
// profiler ("jikes-timer" or "cbs", every stride).
func (r *A1Result) Ratios(profiler string) []float64 {
	var xs []float64
	for _, x := range r.Obs {
		if x.Profiler == profiler {
			xs = append(xs, x.Ratio)
		}
	}
	if xs == nil {
		panic("study: A1 has no runs of " + profiler)
	}
	return xs
}

// MeasureA1 runs callpair on Jikes-like yield points without inlining (the
// calls stay calls, as in the figure): jikes-timer and CBS at several
// strides, every seed.
func MeasureA1(o Options) (*A1Result, error) {
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
	return &A1Result{Seeds: o.Seeds, Obs: obs}, nil
}

// a1Key is one A1 run: callpair for 1 s with jikes-timer (stride 0) or
// CBS at stride (SAMPLES 16).
type a1Key struct {
	seed   uint64
	stride int
}

func (k a1Key) run() (A1Obs, error) {
	p, err := workloads.Get("callpair")
	if err != nil {
		return A1Obs{}, err
	}
	cfg := harness.DefaultConfig()
	cfg.Sim.Seed, cfg.Sim.Duration = k.seed, sim.Second
	cfg.JIT.Flavour, cfg.JIT.Inline = jit.Jikes, false
	name := "jikes-timer"
	if k.stride > 0 {
		name = "cbs"
		cfg.Configure = func(s samplers.Sampler) {
			if c, ok := s.(*samplers.CBS); ok {
				kc := c.Config()
				kc.Stride, kc.Samples = k.stride, 16
				*c = *samplers.NewCBS(c.Name(), kc)
			}
		}
	}
	cfg.Samplers = []string{name}
	cfg.TruthPerMethod = true // only the truth's call edges are read
	out, err := harness.Run(p, cfg)
	if err != nil {
		return A1Obs{}, err
	}
	pr := out.Profiles[name]
	c1, c2 := edgeWeight(pr, "CallPair.M", "CallPair.call_1"), edgeWeight(pr, "CallPair.M", "CallPair.call_2")
	return A1Obs{Seed: k.seed, Profiler: name, Stride: k.stride, Call1: c1, Call2: c2,
		Ratio: float64(c1) / float64(max(c2, 1)), OverlapPct: 100 * profile.OverlapEdges(out.Profiles["truth"], pr)}, nil
}

func (r *A1Result) render() (*Result, error) {
	t := &Table{Title: "Arnold & Grove Fig. 1: edges recorded for M → call_1 and M → call_2",
		Columns: []string{"seed", "profiler", "call_1", "call_2", "call_1 / call_2", "overlap with exact DCG"}}
	for _, x := range r.Obs {
		label := x.Profiler
		if x.Stride > 0 {
			label = fmt.Sprintf("cbs (STRIDE %d, SAMPLES 16)", x.Stride)
		}
		t.AddRow(x.Seed, label, x.Call1, x.Call2, fmt.Sprintf("%.2f", x.Ratio), fmt.Sprintf("%.0f %%", x.OverlapPct))
	}
	t.Notes = append(t.Notes, "callpair, 1 s simulated, Jikes-like yield points, no inlining; truth: call_1 and call_2 are called equally often. Paper: the timer-based mechanism records call_1 (whose prologue yield point follows the long loop body) and misses call_2.")
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
	sc.GlyphStyle.Color = seriesColor(0)
	p.Add(sc)
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	p.Y.Min, p.Y.Max = 0, 105
	res.Figure = p
	return res, nil
}

func init() {
	register(Experiment{Name: "a2-grid", Claim: "A2", Title: "Arnold & Grove Table 2: accuracy and overhead over SAMPLES × STRIDE", Run: typed(MeasureA2)})
}

var (
	a2Samples = []int{1, 2, 4, 8, 16, 32}
	a2Strides = []int{1, 3, 7, 15}
	a2Benches = []string{"compress", "jess", "db", "javac", "mpegaudio", "mtrt", "jack"}
)

func a2Name(samples, stride int) string { return fmt.Sprintf("cbs-%d-%d", samples, stride) }

// A2Accuracy runs every grid cell as a passive CBS on one execution of
// each benchmark and returns the overlap (%) with the exact DCG per
// benchmark and cell.
func A2Accuracy(benches []string, seed uint64, d sim.Time) (map[string]map[string]float64, error) {
	acc := map[string]map[string]float64{}
	for _, b := range benches {
		p, err := workloads.Get(b)
		if err != nil {
			return nil, err
		}
		cfg := harness.DefaultConfig()
		cfg.Sim.Seed, cfg.Sim.Duration = seed, d
		cfg.JIT.Flavour, cfg.JIT.Inline = jit.Jikes, false
		cfg.TruthPerMethod = true // only the truth's call edges are read
		for _, n := range a2Samples {
			for _, s := range a2Strides {
				c := samplers.DefaultCBSConfig()
				c.Samples, c.Stride = n, s
				cfg.Extra = append(cfg.Extra, samplers.NewCBS(a2Name(n, s), c))
			}
		}
		out, err := harness.Run(p, cfg)
		if err != nil {
			return nil, err
		}
		acc[b] = map[string]float64{}
		for _, n := range a2Samples {
			for _, s := range a2Strides {
				acc[b][a2Name(n, s)] = 100 * profile.OverlapEdges(out.Profiles["truth"], out.Profiles[a2Name(n, s)])
			}
		}
	}
	return acc, nil
}

// a2Slowdown is the slowdown (%) of work with a sampler against without.
func a2Slowdown(base, with int64) float64 { return 100 * (float64(base)/float64(with) - 1) }

// a2Work is the application work (statements) done in d on bench, with
// CBS(samples, stride) costed, or without a sampler for samples 0.
func a2Work(bench string, seed uint64, samples, stride int, d sim.Time) (int64, error) {
	p, err := workloads.Get(bench)
	if err != nil {
		return 0, err
	}
	cfg := harness.DefaultConfig()
	cfg.Sim.Seed, cfg.Sim.Duration = seed, d
	cfg.JIT.Flavour, cfg.JIT.Inline = jit.Jikes, false
	if samples > 0 {
		cfg.Samplers, cfg.Mode = []string{"cbs"}, samplers.Costed
		cfg.Configure = func(s samplers.Sampler) {
			if c, ok := s.(*samplers.CBS); ok {
				k := c.Config()
				k.Samples, k.Stride = samples, stride
				*c = *samplers.NewCBS(c.Name(), k)
			}
		}
	}
	cfg.NoTruthProfile = true // only the statements executed are read
	cfg.TruthPerMethod = true
	out, err := harness.Run(p, cfg)
	if err != nil {
		return 0, err
	}
	return out.Result.Statements, nil
}

// a2OverheadSettings are the (SAMPLES, STRIDE) settings whose overhead A2
// measures, on a2OverheadBenches.
var (
	a2OverheadSettings = [][2]int{{1, 1}, {32, 3}, {1024, 63}}
	a2OverheadBenches  = []string{"jess", "javac", "jack"}
)

// A2Obs is one tidy observation of A2: for CBS(Samples, Stride) on
// Benchmark with Seed, Measure "accuracy_pct" (overlap with the exact
// DCG, %) or "overhead_pct" (costed slowdown, %) is Value.
type A2Obs struct {
	Seed      uint64
	Benchmark string
	Samples   int
	Stride    int
	Measure   string
	Value     float64
}

// A2Result is A2's grid and overheads, every seed.
type A2Result struct {
	Seeds []uint64
	// Duration and OverheadDuration are the accuracy and overhead runs'
	// lengths.
	Duration, OverheadDuration sim.Time
	Obs                        []A2Obs
}

// stat is measure m of CBS(samples, stride) over the seeds, each seed's
// value the mean over the benchmarks measured.
func (r *A2Result) stat(m string, samples, stride int) Stat {
	var xs []float64
	for _, seed := range r.Seeds {
		var sum float64
		n := 0
		for _, x := range r.Obs {
			if x.Seed == seed && x.Measure == m && x.Samples == samples && x.Stride == stride {
				sum += x.Value
				n++
			}
		}
		if n == 0 {
			panic(fmt.Sprintf("study: A2 has no %s of (%d, %d)", m, samples, stride))
		}
		xs = append(xs, sum/float64(n))
	}
	return NewStat(xs)
}

// Accuracy is CBS(samples, stride)'s mean overlap (%) over the SPECjvm98
// stand-ins, over the seeds.
func (r *A2Result) Accuracy(samples, stride int) Stat { return r.stat("accuracy_pct", samples, stride) }

// Overhead is CBS(samples, stride)'s mean costed slowdown (%) over
// a2OverheadBenches, over the seeds.
func (r *A2Result) Overhead(samples, stride int) Stat { return r.stat("overhead_pct", samples, stride) }

// a2Key is one A2 run of bench for d: with set −2 the accuracy grid
// (every cell a passive CBS on one execution), −1 the unprofiled run, else
// CBS a2OverheadSettings[set] costed.
type a2Key struct {
	seed  uint64
	bench string
	set   int
	d     sim.Time
}

// a2Out is an A2 run's accuracy observations (set −2) or its work.
type a2Out struct {
	acc  []A2Obs
	work int64
}

func (k a2Key) run() (a2Out, error) {
	switch {
	case k.set == -1:
		w, err := a2Work(k.bench, k.seed, 0, 0, k.d)
		return a2Out{work: w}, err
	case k.set >= 0:
		set := a2OverheadSettings[k.set]
		w, err := a2Work(k.bench, k.seed, set[0], set[1], k.d)
		return a2Out{work: w}, err
	}
	acc, err := A2Accuracy([]string{k.bench}, k.seed, k.d)
	if err != nil {
		return a2Out{}, err
	}
	var obs []A2Obs
	for _, n := range a2Samples {
		for _, s := range a2Strides {
			obs = append(obs, A2Obs{k.seed, k.bench, n, s, "accuracy_pct", acc[k.bench][a2Name(n, s)]})
		}
	}
	return a2Out{acc: obs}, nil
}

// MeasureA2 runs the grid and the overheads for every seed.
func MeasureA2(o Options) (*A2Result, error) {
	d, od := 400*sim.Millisecond, 150*sim.Millisecond
	if o.Full {
		d, od = 4*sim.Second, sim.Second
	}
	res := &A2Result{Seeds: o.Seeds, Duration: d, OverheadDuration: od}
	var keys []a2Key
	for _, seed := range o.Seeds {
		for _, b := range a2Benches {
			keys = append(keys, a2Key{seed, b, -2, d})
		}
		for _, b := range a2OverheadBenches {
			for si := -1; si < len(a2OverheadSettings); si++ {
				keys = append(keys, a2Key{seed, b, si, od})
			}
		}
	}
	outs, err := runAll(o, keys)
	if err != nil {
		return nil, err
	}
	base := map[[2]any]int64{}
	for i, k := range keys {
		if k.set == -1 {
			base[[2]any{k.seed, k.bench}] = outs[i].work
		}
	}
	for i, k := range keys {
		switch {
		case k.set == -2:
			res.Obs = append(res.Obs, outs[i].acc...)
		case k.set >= 0:
			set := a2OverheadSettings[k.set]
			res.Obs = append(res.Obs, A2Obs{k.seed, k.bench, set[0], set[1], "overhead_pct", a2Slowdown(base[[2]any{k.seed, k.bench}], outs[i].work)})
		}
	}
	return res, nil
}

func (r *A2Result) render() (*Result, error) {
	_, ref := readAGGrid()
	cols := []string{"SAMPLES \\ STRIDE"}
	for _, s := range a2Strides {
		cols = append(cols, fmt.Sprintf("%d", s), fmt.Sprintf("paper %d", s))
	}
	t := &Table{Title: "Arnold & Grove Table 2: accuracy (% overlap with the exact DCG), mean over the SPECjvm98 stand-ins and the seeds", Columns: cols}
	for _, n := range a2Samples {
		cells := []any{n}
		for _, s := range a2Strides {
			cells = append(cells, fmt.Sprintf("%.0f", r.Accuracy(n, s).Mean), ref[fmt.Sprintf("%d/%d", n, s)])
		}
		t.AddRow(cells...)
	}
	for _, set := range a2OverheadSettings {
		m := r.Overhead(set[0], set[1])
		t.Notes = append(t.Notes, fmt.Sprintf("Overhead of SAMPLES %d, STRIDE %d (costed, %s, %v): %.2f %% ± %.2f over seeds (paper: %s).",
			set[0], set[1], strings.Join(a2OverheadBenches, "/"), r.OverheadDuration, m.Mean, m.CI, refOverhead(set)))
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Jikes-like yield points, no inlining, %v per stand-in, every cell a passive CBS on the same execution, seeds %v; paper columns from Table 2A (Jikes RVM).", r.Duration, r.Seeds))
	res := &Result{Table: t, Tidy: tidyOf(r.Obs)}
	p := plot.New()
	p.Title.Text = "A2: CBS accuracy by SAMPLES and STRIDE (mean ± 95 % CI over seeds)"
	p.X.Label.Text = "SAMPLES per timer interrupt"
	p.Y.Label.Text = "overlap with the exact DCG (%)"
	var ticks []plot.Tick
	for _, n := range a2Samples {
		ticks = append(ticks, plot.Tick{Value: math.Log2(float64(n)), Label: fmt.Sprint(n)})
	}
	for i, s := range a2Strides {
		var pts errPoints
		for _, n := range a2Samples {
			pts.add(math.Log2(float64(n)), r.Accuracy(n, s))
		}
		if err := pts.addTo(p, series{Label: fmt.Sprintf("STRIDE %d", s), Style: i, Line: true, Dashes: plotutil.Dashes(i)}); err != nil {
			return nil, err
		}
	}
	// The paper's STRIDE 3 column (Table 2A, Jikes RVM), where present.
	var paper plotter.XYs
	for _, n := range a2Samples {
		if v, err := strconv.ParseFloat(ref[fmt.Sprintf("%d/%d", n, 3)], 64); err == nil {
			paper = append(paper, plotter.XY{X: math.Log2(float64(n)), Y: v})
		}
	}
	if len(paper) > 0 {
		l, err := plotter.NewLine(paper)
		if err != nil {
			return nil, err
		}
		l.Color, l.Dashes = color.Gray{Y: 100}, []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(l)
		p.Legend.Add("paper, STRIDE 3", l)
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Min, p.Y.Max = 0, 130 // room for the legend above the data
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 25, Label: "25"}, {Value: 50, Label: "50"}, {Value: 75, Label: "75"}, {Value: 100, Label: "100"}})
	p.Legend.Top = true
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
	register(Experiment{Name: "a3-input-size", Claim: "A3", Title: "Arnold & Grove Table 3: base vs CBS accuracy on small and large inputs", Run: typed(MeasureA3)})
}

// a3Benches are A&G's thirteen benchmarks with a unit count that keeps a
// small-input run short (large inputs run five times as many units).
var a3Benches = []string{"compress", "jess", "db", "javac", "mpegaudio", "mtrt", "jack", "ipsixql", "xerces", "daikon", "kawa", "jbb", "soot"}

// A3Obs is one tidy observation: the run of Benchmark's Input ("small" or
// "large") with Seed, its length, and the accuracy (% overlap with the
// exact DCG) of the base mechanism (jikes-timer) and of CBS.
type A3Obs struct {
	Benchmark string
	Input     string
	Seed      uint64
	RunS      float64 `tidy:"run_s"`
	BasePct   float64 `tidy:"base_pct"`
	CBSPct    float64 `tidy:"cbs_pct"`
}

// A3Result is A3's runs, by stand-in, input and seed.
type A3Result struct {
	Seeds   []uint64
	Benches []string
	Small   sim.Time // a small input's run length; a large one runs 5×
	Obs     []A3Obs
}

// Mean is the accuracy (%) of the base mechanism (cbs false) or CBS on
// input, over the seeds, each seed's value the mean over the stand-ins.
func (r *A3Result) Mean(input string, cbs bool) Stat {
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
	return NewStat(xs)
}

// pair is (stand-in, input)'s base and CBS accuracy, means over seeds.
func (r *A3Result) pair(b, input string) (base, cbs float64) {
	n := 0
	for _, x := range r.Obs {
		if x.Benchmark == b && x.Input == input {
			base, cbs, n = base+x.BasePct, cbs+x.CBSPct, n+1
		}
	}
	return base / float64(n), cbs / float64(n)
}

// CBSWins is the share of (stand-in, input) pairs on which CBS's accuracy
// is at least the base mechanism's, means over seeds.
func (r *A3Result) CBSWins() float64 {
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

func (k a3Key) run() (A3Obs, error) {
	in := []string{"small", "large"}[k.input]
	p, err := workloads.Get(k.bench + "-" + in)
	if err != nil {
		return A3Obs{}, err
	}
	cfg := harness.DefaultConfig()
	cfg.Sim.Seed, cfg.Sim.Duration = k.seed, k.d
	cfg.JIT.Flavour, cfg.JIT.Inline = jit.Jikes, false
	cfg.Samplers = []string{"jikes-timer", "cbs"}
	cfg.TruthPerMethod = true // only the truth's call edges are read
	cfg.Configure = func(x samplers.Sampler) {
		if c, ok := x.(*samplers.CBS); ok {
			kc := c.Config()
			kc.Stride, kc.Samples = 3, 16
			*c = *samplers.NewCBS(c.Name(), kc)
		}
	}
	out, err := harness.Run(p, cfg)
	if err != nil {
		return A3Obs{}, err
	}
	return A3Obs{Benchmark: k.bench, Input: in, Seed: k.seed, RunS: out.Result.End.Seconds(),
		BasePct: 100 * profile.OverlapEdges(out.Profiles["truth"], out.Profiles["jikes-timer"]),
		CBSPct:  100 * profile.OverlapEdges(out.Profiles["truth"], out.Profiles["cbs"])}, nil
}

// MeasureA3 runs each stand-in's small and large input with jikes-timer
// and CBS (STRIDE 3, SAMPLES 16) passive on one execution, every seed.
func MeasureA3(o Options) (*A3Result, error) {
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
	return &A3Result{Seeds: o.Seeds, Benches: benches, Small: small, Obs: obs}, nil
}

func (r *A3Result) render() (*Result, error) {
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
		st    Stat
		paper float64
	}{{sb, 26}, {lb, 50}, {sc, 55}, {lc, 69}} {
		ours.add(float64(i), x.st)
		paper = append(paper, plotter.XY{X: float64(i) + 0.15, Y: x.paper})
	}
	if err := ours.addTo(p, series{Label: "ours", Style: 0}); err != nil {
		return nil, err
	}
	ps, err := plotter.NewScatter(paper)
	if err != nil {
		return nil, err
	}
	ps.GlyphStyle.Color, ps.GlyphStyle.Shape = color.Gray{Y: 100}, plotutil.Shape(1)
	p.Add(ps)
	p.Legend.Add("paper (Jikes RVM, §6)", ps)
	p.NominalX("base, small", "base, large", "cbs, small", "cbs, large")
	p.X.Min, p.X.Max = -0.5, 3.5
	p.Y.Min, p.Y.Max = 0, 115 // room for the legend above the data
	p.Legend.Top, p.Legend.Left = true, true
	res.Figure = p
	return res, nil
}

func init() {
	register(Experiment{Name: "a4-inlining", Claim: "A4", Title: "Arnold & Grove Fig. 5: profile-directed inlining driven by timer vs CBS call graphs", Run: typed(MeasureA4)})
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

// a4Key is one A4 run: bench for d under a4Inliners[inl] reading the
// call graph a4Sources[src].
type a4Key struct {
	bench    string
	seed     uint64
	inl, src int
	d        sim.Time
}

func (k a4Key) run() (float64, error) { return a4Work(k.bench, k.seed, k.d, a4Inliners[k.inl], k.src) }

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
	cfg.NoTruthProfile = true // only the bytecodes executed are read
	cfg.TruthPerMethod = true
	out, err := harness.Run(p, cfg)
	if err != nil {
		return 0, fmt.Errorf("%s/%s/%s: %w", bench, inl.name, a4Sources[src].name, err)
	}
	return float64(out.Result.Truth.BytecodeTotal() - out.WarmUpBytecodes), nil
}

// A4Obs is one tidy observation: the bytecodes executed in the measured
// steady state of Benchmark with Seed, under Inliner reading Source's call
// graph ("static": none), and its speed-up (%) over the static heuristics
// with the same seed.
type A4Obs struct {
	Benchmark  string
	Seed       uint64
	Inliner    string
	Source     string
	Bytecodes  float64
	SpeedupPct float64 `tidy:"speedup_pct"`
}

// A4Result is A4's runs, by stand-in, seed, inliner and call graph.
type A4Result struct {
	Seeds    []uint64
	Benches  []string
	Duration sim.Time
	Obs      []A4Obs
}

// Speedup is the speed-up (%) of inliner reading source's graph over the
// static heuristics on benchmark b, paired by seed, over the seeds.
func (r *A4Result) Speedup(b, inliner, source string) Stat {
	var xs []float64
	for _, x := range r.Obs {
		if x.Benchmark == b && x.Inliner == inliner && x.Source == source {
			xs = append(xs, x.SpeedupPct)
		}
	}
	if xs == nil {
		panic(fmt.Sprintf("study: A4 has no runs of %s/%s/%s", b, inliner, source))
	}
	return NewStat(xs)
}

// Mean is the mean over the stand-ins of Speedup's means.
func (r *A4Result) Mean(inliner, source string) float64 {
	var m float64
	for _, b := range r.Benches {
		m += r.Speedup(b, inliner, source).Mean / float64(len(r.Benches))
	}
	return m
}

// MeasureA4 runs SPECjvm98 stand-ins under two inliners (Jikes RVM's new
// inliner; J9's aggressive static heuristics overridden by the profile)
// reading three call graphs — the timer's, CBS's and the exact one — and
// the static heuristics alone, every seed.
func MeasureA4(o Options) (*A4Result, error) {
	d := 300 * sim.Millisecond
	benches := []string{"jess", "javac", "mtrt"} // the ones the paper discusses

	if o.Full {
		d, benches = 2*sim.Second, a2Benches
	}
	var keys []a4Key
	for _, b := range benches {
		for _, seed := range o.Seeds {
			for ii := range a4Inliners {
				for src := range a4Sources {
					keys = append(keys, a4Key{b, seed, ii, src, d})
				}
			}
		}
	}
	vals, err := runAll(o, keys)
	if err != nil {
		return nil, err
	}
	work := map[a4Key]float64{}
	for i, k := range keys {
		work[k] = vals[i]
	}
	res := &A4Result{Seeds: o.Seeds, Benches: benches, Duration: d}
	for _, k := range keys {
		base := work[a4Key{k.bench, k.seed, k.inl, 0, k.d}]
		res.Obs = append(res.Obs, A4Obs{Benchmark: k.bench, Seed: k.seed, Inliner: a4Inliners[k.inl].name,
			Source: a4Sources[k.src].name, Bytecodes: work[k], SpeedupPct: 100 * (work[k]/base - 1)})
	}
	return res, nil
}

func (r *A4Result) render() (*Result, error) {
	d, benches := r.Duration, r.Benches
	t := &Table{Title: "Arnold & Grove Fig. 5: steady-state speed-up (%) of profile-directed inlining over static heuristics, by the call graph the inliner reads (mean ± 95 % CI over seeds)",
		Columns: []string{"benchmark", "jikes timer", "jikes cbs", "jikes exact", "j9 timer", "j9 cbs", "j9 exact", "paper"}}
	paper := map[string]string{
		"javac": "Jikes: cbs +4 % over timer", "mtrt": "J9: cbs +8.7 %", "jess": "Jikes: large gain, cbs ≈ timer",
		"compress": "Jikes: large gain; J9 timer −1 %", "mpegaudio": "Jikes: cbs slightly better", "jack": "Jikes: cbs slightly better",
	}
	for _, b := range benches {
		cells := []any{b}
		for _, inl := range a4Inliners {
			for src := 1; src < len(a4Sources); src++ {
				m := r.Speedup(b, inl.name, a4Sources[src].name)
				cells = append(cells, fmt.Sprintf("%+.2f ± %.2f", m.Mean, m.CI))
			}
		}
		cells = append(cells, paper[b])
		t.AddRow(cells...)
	}
	cells := []any{"mean"}
	for _, inl := range a4Inliners {
		for src := 1; src < len(a4Sources); src++ {
			cells = append(cells, fmt.Sprintf("%+.2f", r.Mean(inl.name, a4Sources[src].name)))
		}
	}
	t.AddRow(append(cells, "Jikes: no program degraded; J9: timer hurts 6 of 8")...)
	t.Notes = append(t.Notes, fmt.Sprintf("Jikes-like yield points, %v per run: the call graph matures for %v, every compiled method is then recompiled with it (the adaptive system's re-optimization), and the bytecodes executed in the last %v are compared with the static heuristics' (paired by seed). Jikes: static limit 35 bytecodes plus a profile-driven limit growing linearly to 325 at 1 %% of the DCG's weight; J9: static limit 100, replaced by the profile's limit (a site the profile never saw is not inlined). Guarded inlining of receivers above 40 %%. Samplers run passively, so their own cost is not in the comparison. The paper measured the second of two minutes.", d, d/4, d/2))
	res := &Result{Table: t, Tidy: tidyOf(r.Obs)}
	// Figure: each (inliner, call graph)'s speed-up per stand-in, mean and
	// 95 % CI over seeds, zero (the static heuristics) as reference.
	p := plot.New()
	p.Title.Text = "A4: speed-up of profile-directed inlining (mean ± 95 % CI over seeds)"
	p.Y.Label.Text = "steady-state speed-up over static heuristics (%)"
	k := 0
	for src := 1; src < len(a4Sources); src++ {
		for _, inl := range a4Inliners {
			var pts errPoints
			for bi, b := range benches {
				m := r.Speedup(b, inl.name, a4Sources[src].name)
				pts.add(float64(bi)-0.3+0.6*float64(k)/5, m)
			}
			if err := pts.addTo(p, series{Label: inl.name + " reading " + a4Sources[src].name, Style: k}); err != nil {
				return nil, err
			}
			k++
		}
	}
	zero, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 0}, {X: float64(len(benches)) - 0.5, Y: 0}})
	if err != nil {
		return nil, err
	}
	zero.Color, zero.Dashes = color.Gray{Y: 100}, []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(zero)
	p.NominalX(benches...)
	p.X.Min, p.X.Max = -0.5, float64(len(benches))-0.5
	p.Legend.Top, p.Legend.Left = false, false // bottom right: clear of the data here
	res.Figure = p
	return res, nil
}
