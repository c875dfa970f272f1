package study

import (
	"fmt"
	"image/color"
	"maps"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
)

func init() {
	register(Experiment{Name: "w1-partial-walks", Claim: "W1", Title: "Whaley §5: marker bits stop the upward walk at the first frame already in the PCCT", Run: typed(MeasureW1)})
	register(Experiment{Name: "w2-overhead-precision", Claim: "W2", Title: "Whaley §6 tables: overhead and precision of hot-method counters and the PCCT at 1, 10 and 100 ms", Run: typed(MeasureW2)})
	register(Experiment{Name: "w3-size", Claim: "W3", Title: "Whaley §5: size of the PCCT vs the dynamic call tree and the calling context tree", Run: typed(MeasureW3)})
	register(Experiment{Name: "w4-depth-limit", Claim: "W4", Title: "Whaley §5 (deep call sequences): a depth limit on the upward walk attaches frames at the wrong place", Run: typed(MeasureW4)})
}

// whaleyIntervals are the PCCT periods of the passive runs: the paper's
// fastest (1 ms) and the sampler's default (10 ms).
var whaleyIntervals = []sim.Time{sim.Millisecond, 10 * sim.Millisecond}

// w4Limits are the depth limits of W4, at 1 ms (ten times the samples of
// 10 ms, so the misattached share is measured on ≈ 300 samples a run).
// 512 exceeds every stand-in's stack, so it must misattach nothing.
var w4Limits = []int{4, 8, 16, 32, 64, 128, 256, 512}

// whaleyBench is a stand-in of the passive runs and its run length.
type whaleyBench struct {
	name string
	d    sim.Time
}

// whaleySetup: the stand-ins of the passive runs (W1, W3, W4). deepcall is
// the paper's deep call chain, jess a shallow SPECjvm98 stand-in, kiama
// recursive descent deeper than 256 frames. Only in the full version:
// jython9, javac (its exact CCT makes a run ten times slower) and scalac
// (≈ 290 frames deep; building the truth profile of its deep contexts
// takes most of a run, so it runs shorter).
func whaleySetup(o Options) []whaleyBench {
	if o.Full {
		return []whaleyBench{{"deepcall", sim.Second}, {"jess", sim.Second}, {"jython9", sim.Second},
			{"javac", sim.Second}, {"kiama", sim.Second}, {"scalac", 300 * sim.Millisecond}}
	}
	return []whaleyBench{{"deepcall", 300 * sim.Millisecond}, {"jess", 300 * sim.Millisecond}, {"kiama", 300 * sim.Millisecond}}
}

// whaleyNames lists the passive runs' stand-ins in order.
func whaleyNames(o Options) []string {
	var out []string
	for _, b := range whaleySetup(o) {
		out = append(out, b.name)
	}
	return out
}

// whaleyRunsNote describes the passive runs for a table's notes.
func whaleyRunsNote(o Options) string {
	var parts []string
	for _, b := range whaleySetup(o) {
		parts = append(parts, fmt.Sprintf("%s %v", b.name, b.d))
	}
	return fmt.Sprintf("Passive runs (%s; a run ends earlier if the program does), seeds %v, default VM and JIT", strings.Join(parts, ", "), o.Seeds)
}

// whaleyRun is what one passive run leaves for W1, W3 and W4; slices
// indexed like whaleyIntervals or w4Limits.
type whaleyRun struct {
	taken []int64
	// examined is frames examined per sample with marker bits; depth the
	// same for full walks, i.e. the mean stack depth at the samples.
	examined, depth []float64
	// identical: the marker-bit PCCT has exactly the contexts and counts
	// of the one built from full walks on the same execution.
	identical []bool
	pcctNodes []float64
	// dct: calls executed (nodes of the dynamic call tree); cct: nodes of
	// the exact CCT; folded: the CCT with recursion folded into back edges
	// (Ammons et al.'s); maxDepth: the deepest context.
	dct, cct, folded, maxDepth int64
	// misattached is the limited PCCT's share of samples at contexts the
	// full walks did not give (misattachedShare); limited the share of
	// walks that hit the limit; exact whether the two trees are equal.
	misattached, limited []float64
	exact                []bool
}

func pcctName(kind string, iv sim.Time) string { return fmt.Sprintf("%s-%v", kind, iv) }

func limitName(l int) string { return fmt.Sprintf("limit-%d", l) }

// whaleyPassive runs every (stand-in, seed) once with all the PCCTs W1,
// W3 and W4 need watching the same execution — passive samplers see
// identical stacks at identical times. Result: stand-in → runs in seed
// order.
func whaleyPassive(o Options) (map[string][]*whaleyRun, error) {
	var keys []whaleyKey
	for _, b := range whaleySetup(o) {
		for _, seed := range o.Seeds {
			keys = append(keys, whaleyKey{b.name, seed, b.d})
		}
	}
	runs, err := runAll(o, keys)
	if err != nil {
		return nil, err
	}
	out := map[string][]*whaleyRun{}
	for i, k := range keys {
		out[k.bench] = append(out[k.bench], runs[i])
	}
	return out, nil
}

// whaleyKey is one run of bench for d with every PCCT W1, W3 and W4 read.
type whaleyKey struct {
	bench string
	seed  uint64
	d     sim.Time
}

func (k whaleyKey) run() (*whaleyRun, error) { return whaleyOnce(k.bench, k.seed, k.d) }

// whaleyClock: Whaley's experiments run their PCCT samplers on a perfect
// clock (jitter=0). His prototype's timer (IBM Developer Kit 1.3 on
// Windows and AIX, 2000) is not one tools/timer-jitter measures, and
// the comparisons need equal tick times: W1 and W4 compare samplers on one
// execution tick for tick (each sampler draws its jitter from its own
// stream), W2 pairs the two profilers' runs by seed. At the measured
// jitter of a sleeping thread (samplers.SleepJitter) W2's pairs do not
// share their ticks (jbb: PCCT − hot methods +0.003 ± 0.014 points at
// 10 ms), and at 100 ms, 8 samples a data set, one stand-in's precision
// follows the draws (jess, hot methods: 0.50 ± 0.54 or 0.86 ± 0.11 for
// two sets of draws).
func newPCCT(name string, tweak func(*samplers.PCCTConfig)) samplers.Sampler {
	c := samplers.DefaultPCCTConfig()
	tweak(&c)
	return samplers.NewPCCT(name, c)
}

func whaleyOnce(bench string, seed uint64, d sim.Time) (*whaleyRun, error) {
	p, err := workloads.Get(bench)
	if err != nil {
		return nil, err
	}
	cfg := harness.DefaultConfig()
	cfg.Sim.Seed, cfg.Sim.Duration = seed, d
	// A perfect clock (whaleyClock): the samplers compared here (marked
	// vs full walks, depth-limited vs full) must take the same samples.
	for _, iv := range whaleyIntervals {
		cfg.Extra = append(cfg.Extra,
			newPCCT(pcctName("pcct", iv), func(c *samplers.PCCTConfig) { c.Interval, c.Jitter = iv, 0 }),
			newPCCT(pcctName("full", iv), func(c *samplers.PCCTConfig) { c.Interval, c.Jitter, c.FullWalk = iv, 0, true }))
	}
	for _, l := range w4Limits {
		cfg.Extra = append(cfg.Extra, newPCCT(limitName(l), func(c *samplers.PCCTConfig) { c.Interval, c.Jitter, c.DepthLimit = sim.Millisecond, 0, l }))
	}
	out, err := harness.Run(p, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s seed %d: %w", bench, seed, err)
	}
	r := &whaleyRun{}
	for _, iv := range whaleyIntervals {
		m, f := pcctName("pcct", iv), pcctName("full", iv)
		r.taken = append(r.taken, out.Costs[m].Taken)
		r.examined = append(r.examined, out.Costs[m].Measures[samplers.FramesExaminedPerSample])
		r.depth = append(r.depth, out.Costs[f].Measures[samplers.FramesExaminedPerSample])
		r.identical = append(r.identical, maps.Equal(out.Profiles[m].ContextWeights(), out.Profiles[f].ContextWeights()))
		r.pcctNodes = append(r.pcctNodes, out.Costs[m].Measures[samplers.PCCTNodes])
	}
	full := out.Profiles[pcctName("full", sim.Millisecond)].ContextWeights()
	for _, l := range w4Limits {
		n := limitName(l)
		lw := out.Profiles[n].ContextWeights()
		r.misattached = append(r.misattached, misattachedShare(full, lw))
		r.limited = append(r.limited, out.Costs[n].Measures[samplers.DepthLimitedSamples]/float64(max(out.Costs[n].Taken, 1)))
		r.exact = append(r.exact, maps.Equal(full, lw))
	}
	nodes := out.Result.Truth.Nodes()
	r.cct = int64(len(nodes) - 1)
	depth := make([]int64, len(nodes))
	for i := 1; i < len(nodes); i++ {
		r.dct += nodes[i].Calls
		depth[i] = depth[nodes[i].Parent] + 1 // a parent is created before its children
		r.maxDepth = max(r.maxDepth, depth[i])
	}
	r.folded = foldedCCTSize(nodes)
	return r, nil
}

// misattachedShare is the share of the limited tree's weight at contexts
// beyond what the full walks put there: Σ max(0, limited − full) / Σ
// limited, i.e. 1 − overlap when both took the same samples, but exactly
// 0 for identical trees (weights are whole samples × the period).
func misattachedShare(full, limited map[string]float64) float64 {
	var over, total float64
	for k, w := range limited {
		total += w
		over += max(0, w-full[k])
	}
	if total == 0 {
		return 0
	}
	return over / total
}

// foldedCCTSize is the node count of the CCT as Ammons, Ball and Larus
// build it and Whaley compares with: a call to a method already on the
// context's path is a back edge to that ancestor, not a new node. The
// exact CCT (and the PCCT) keep recursive contexts apart.
func foldedCCTSize(nodes []sim.CCTNode) int64 {
	type fnode struct {
		method int32
		parent int
	}
	f := []fnode{{method: -1, parent: -1}}
	kids := map[[2]int]int{} // (folded parent, method) → folded node
	of := make([]int, len(nodes))
	for i := 1; i < len(nodes); i++ {
		p, m := of[nodes[i].Parent], nodes[i].Method
		a := p
		for a > 0 && f[a].method != m {
			a = f[a].parent
		}
		if a > 0 {
			of[i] = a
			continue
		}
		k := [2]int{p, int(m)}
		c, ok := kids[k]
		if !ok {
			f = append(f, fnode{method: m, parent: p})
			c = len(f) - 1
			kids[k] = c
		}
		of[i] = c
	}
	return int64(len(f) - 1)
}

// W1Obs is one tidy observation of W1: in the run of Benchmark with Seed,
// the PCCT at IntervalMs took Samples; a full walk examined Depth frames
// per sample, the marker-bit walk Examined; Identical says whether the two
// trees have the same contexts and counts.
type W1Obs struct {
	Benchmark  string
	Seed       uint64
	IntervalMs float64 `tidy:"interval_ms"`
	Samples    int64
	Depth      float64
	Examined   float64
	Identical  bool
}

// W1Result is W1's runs, by stand-in, seed and interval.
type W1Result struct {
	Seeds   []uint64
	Benches []string
	Note    string // the passive runs, for the table's notes
	Obs     []W1Obs
}

// of lists the runs of benchmark b at interval iv.
func (r *W1Result) of(b string, iv sim.Time) []W1Obs {
	var out []W1Obs
	for _, x := range r.Obs {
		if x.Benchmark == b && x.IntervalMs == iv.Seconds()*1e3 {
			out = append(out, x)
		}
	}
	if out == nil {
		panic(fmt.Sprintf("study: W1 has no runs of %s at %v", b, iv))
	}
	return out
}

// Ratio, Depth and Examined are frames examined / stack depth, the stack
// depth and the frames examined per sample on b at iv, over the seeds.
func (r *W1Result) Ratio(b string, iv sim.Time) Stat {
	var xs []float64
	for _, x := range r.of(b, iv) {
		xs = append(xs, x.Examined/x.Depth)
	}
	return NewStat(xs)
}

func (r *W1Result) Depth(b string, iv sim.Time) Stat {
	var xs []float64
	for _, x := range r.of(b, iv) {
		xs = append(xs, x.Depth)
	}
	return NewStat(xs)
}

func (r *W1Result) Examined(b string, iv sim.Time) Stat {
	var xs []float64
	for _, x := range r.of(b, iv) {
		xs = append(xs, x.Examined)
	}
	return NewStat(xs)
}

// NotIdentical counts the runs whose marker-bit PCCT differs from the
// full walks'.
func (r *W1Result) NotIdentical() int {
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
func (r *W1Result) ExcessMax() float64 {
	m := math.Inf(-1)
	for _, x := range r.Obs {
		m = math.Max(m, x.Examined-x.Depth)
	}
	return m
}

// MeasureW1: frames examined per sample with marker bits against the stack
// depth (what a full walk examines), and whether the two trees agree.
func MeasureW1(o Options) (*W1Result, error) {
	runs, err := whaleyPassive(o)
	if err != nil {
		return nil, err
	}
	res := &W1Result{Seeds: o.Seeds, Benches: whaleyNames(o), Note: whaleyRunsNote(o)}
	for _, b := range res.Benches {
		for ii, iv := range whaleyIntervals {
			for si, r := range runs[b] {
				res.Obs = append(res.Obs, W1Obs{Benchmark: b, Seed: o.Seeds[si], IntervalMs: iv.Seconds() * 1e3,
					Samples: r.taken[ii], Depth: r.depth[ii], Examined: r.examined[ii], Identical: r.identical[ii]})
			}
		}
	}
	return res, nil
}

func (r *W1Result) render() (*Result, error) {
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
		r.Note+". On each execution a PCCT with marker bits and one walking the whole stack at every sample (FullWalk) sample the same stacks at the same ticks, no depth limit; 'stack depth' is the frames the full walk examines per sample, 'frames examined' those the marker-bit walk reads up to and including the first marked frame. 'PCCT = full-walk CCT': identical contexts and sample counts.",
		"Paper (§5, no number given): the profiler 'correctly identifies the complete calling context without traversing the entire stack'. The saving is the part of the stack that outlives the interval: kiama's recursion stays deep while its top changes; deepcall rebuilds its whole 60-level chain every ≈ 2 µs, so every sample walks it all; jess is shallow (≈ 9 frames) and only its entry frames persist.")
	for i := 0; i <= int(1.08*(maxD+1))+1; i += max(1, int(maxD)/20) {
		ideal = append(ideal, plotter.XY{X: float64(i), Y: float64(i)})
	}
	p := plot.New()
	p.Title.Text = "W1: frames examined per sample vs stack depth (a point per run and seed)"
	p.X.Label.Text = "stack depth at the sample (frames a full walk examines)"
	p.Y.Label.Text = "frames examined with marker bits"
	yx, err := plotter.NewLine(ideal)
	if err != nil {
		return nil, err
	}
	yx.Color, yx.Dashes = color.Gray{Y: 100}, []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(yx)
	p.Legend.Add("full walk (y = x)", yx)
	var args []any
	for _, iv := range whaleyIntervals {
		args = append(args, "marker bits, "+iv.String()+" (a run)", pts[iv])
	}
	if err := plotutil.AddScatters(p, args...); err != nil {
		return nil, err
	}
	p.X.Min, p.Y.Min = 0, 0
	p.X.Max, p.Y.Max = 1.08*(maxD+1), 1.08*(maxD+1) // the deepest runs clear of the frame
	p.Legend.Top, p.Legend.Left = true, true        // above y = x, clear of the data
	p.Legend.Padding = vg.Points(3)
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(6), -vg.Points(6)
	res.Figure = p
	return res, nil
}

// W3Obs is one tidy observation of W3: the sizes, in nodes, after the
// run of Benchmark with Seed.
type W3Obs struct {
	Benchmark string
	Seed      uint64
	MaxDepth  int64
	// DCT is the dynamic call tree (calls executed), CCT the exact CCT,
	// Folded the CCT with recursion folded; PCCT10 and PCCT1 the PCCT at
	// 10 and 1 ms.
	DCT    int64   `tidy:"dct"`
	CCT    int64   `tidy:"cct"`
	Folded int64   `tidy:"folded"`
	PCCT10 float64 `tidy:"pcct_10ms"`
	PCCT1  float64 `tidy:"pcct_1ms"`
}

// W3Result is W3's runs, by stand-in and seed.
type W3Result struct {
	Seeds     []uint64
	Benches   []string
	Note      string
	NodeBytes int
	Obs       []W3Obs
}

// of lists benchmark b's runs.
func (r *W3Result) of(b string) []W3Obs {
	var out []W3Obs
	for _, x := range r.Obs {
		if x.Benchmark == b {
			out = append(out, x)
		}
	}
	if out == nil {
		panic("study: W3 has no runs of " + b)
	}
	return out
}

// mean is f's mean over benchmark b's runs.
func (r *W3Result) mean(b string, f func(W3Obs) float64) float64 {
	runs := r.of(b)
	var m float64
	for _, x := range runs {
		m += f(x) / float64(len(runs))
	}
	return m
}

// DCTRatioMin and CCTRatioMin are the smallest ratios, over every run, of
// the dynamic call tree's and the exact CCT's nodes to the 10 ms PCCT's.
func (r *W3Result) DCTRatioMin() float64 {
	m := math.Inf(1)
	for _, x := range r.Obs {
		m = math.Min(m, float64(x.DCT)/x.PCCT10)
	}
	return m
}

func (r *W3Result) CCTRatioMin() float64 {
	m := math.Inf(1)
	for _, x := range r.Obs {
		m = math.Min(m, float64(x.CCT)/x.PCCT10)
	}
	return m
}

// CCTBytes and PCCTBytes are the exact CCT's and the 10 ms PCCT's size in
// bytes on benchmark b (mean over seeds, NodeBytes a node).
func (r *W3Result) CCTBytes(b string) float64 {
	return r.mean(b, func(x W3Obs) float64 { return float64(x.CCT) }) * float64(r.NodeBytes)
}

func (r *W3Result) PCCTBytes(b string) float64 {
	return r.mean(b, func(x W3Obs) float64 { return x.PCCT10 }) * float64(r.NodeBytes)
}

// MeasureW3: nodes of the dynamic call tree (one per call), the exact
// CCT, Ammons' CCT with recursion folded, and the PCCT (10 ms and 1 ms)
// after the whole run.
func MeasureW3(o Options) (*W3Result, error) {
	runs, err := whaleyPassive(o)
	if err != nil {
		return nil, err
	}
	res := &W3Result{Seeds: o.Seeds, Benches: whaleyNames(o), Note: whaleyRunsNote(o), NodeBytes: samplers.DefaultPCCTConfig().NodeBytes}
	i10 := 1 // whaleyIntervals[1] is 10 ms
	for _, b := range res.Benches {
		for si, r := range runs[b] {
			res.Obs = append(res.Obs, W3Obs{Benchmark: b, Seed: o.Seeds[si], MaxDepth: r.maxDepth,
				DCT: r.dct, CCT: r.cct, Folded: r.folded, PCCT10: r.pcctNodes[i10], PCCT1: r.pcctNodes[0]})
		}
	}
	return res, nil
}

func (r *W3Result) render() (*Result, error) {
	nb := r.NodeBytes
	t := &Table{Title: fmt.Sprintf("W3: size after the whole run, in nodes (and bytes at %d B a node), mean over seeds", nb),
		Columns: []string{"stand-in", "max depth", "dynamic call tree (calls)", "exact CCT", "CCT, recursion folded", "PCCT 10 ms", "PCCT 1 ms", "DCT / PCCT 10 ms", "CCT / PCCT 10 ms"}}
	res := &Result{Table: t, Tidy: tidyOf(r.Obs)}
	kind := []string{"dynamic call tree", "exact CCT", "CCT, recursion folded", "PCCT 10 ms"}
	size := func(n float64) string { return fmt.Sprintf("%.3g (%s)", n, fmtBytes(n*float64(nb))) }
	for _, b := range r.Benches {
		dct := r.mean(b, func(x W3Obs) float64 { return float64(x.DCT) })
		cct := r.mean(b, func(x W3Obs) float64 { return float64(x.CCT) })
		fold := r.mean(b, func(x W3Obs) float64 { return float64(x.Folded) })
		p10 := r.mean(b, func(x W3Obs) float64 { return x.PCCT10 })
		p1 := r.mean(b, func(x W3Obs) float64 { return x.PCCT1 })
		var depth int64
		for _, x := range r.of(b) {
			depth = max(depth, x.MaxDepth)
		}
		t.AddRow(b, int(depth), size(dct), size(cct), size(fold), size(p10), size(p1), fmt.Sprintf("%.0f×", dct/p10), fmt.Sprintf("%.1f×", cct/p10))
	}
	t.Notes = append(t.Notes,
		fmt.Sprintf("%s: the runs of w1-partial-walks. Dynamic call tree: one node per call executed (thread entries included), summed from the truth's per-context call counts; exact CCT: the truth's contexts, recursive ones kept apart as in the PCCT; folded: the same with a call to a method already on the path turned into a back edge (Ammons et al.'s CCT, which Whaley contrasts). Bytes: every node at the PCCT's %d B, our choice (the paper gives no node size).", r.Note, nb),
		"Paper (§2, §5): the PCCT 'occupies on the order of kilobytes where a CCT can take megabytes', and keeps only contexts seen at a sample while the dynamic call tree has a node per call. The PCCT grows with samples, the CCT with the code's contexts, the dynamic call tree with time: longer runs widen both gaps.")
	// Figure: each tree's size per stand-in on a log axis, a point per
	// seed (every run's size, so the spread over seeds shows).
	p := plot.New()
	p.Title.Text = "W3: size after the run (a point per seed)"
	p.X.Label.Text = "stand-in"
	p.Y.Label.Text = "nodes (log scale)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{}
	of := []func(W3Obs) float64{
		func(x W3Obs) float64 { return float64(x.DCT) },
		func(x W3Obs) float64 { return float64(x.CCT) },
		func(x W3Obs) float64 { return float64(x.Folded) },
		func(x W3Obs) float64 { return x.PCCT10 },
	}
	lo, hi := math.Inf(1), 0.0
	for i := range kind {
		var pts plotter.XYs
		for bi, b := range r.Benches {
			for _, x := range r.of(b) {
				v := math.Max(of[i](x), 1)
				lo, hi = math.Min(lo, v), math.Max(hi, v)
				pts = append(pts, plotter.XY{X: float64(bi) - 0.3 + 0.6*float64(i)/float64(len(kind)-1), Y: v})
			}
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.Color, sc.Shape = seriesColor(i), plotutil.Shape(i)
		p.Add(sc)
		p.Legend.Add(kind[i], sc)
	}
	p.NominalX(r.Benches...)
	p.X.Min, p.X.Max = -0.5, float64(len(r.Benches))-0.5
	p.Y.Min, p.Y.Max = math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi))+3) // room for the legend above the data
	p.Legend.Top = true
	p.Legend.Padding = vg.Points(3)
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(6), -vg.Points(6)
	res.Figure = p
	return res, nil
}

// fmtBytes renders n bytes with a binary-free SI unit (kB, MB), as the
// paper speaks of kilobytes and megabytes.
func fmtBytes(n float64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", n/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", n/1e3)
	}
	return fmt.Sprintf("%.0f B", n)
}

// W4Obs is one tidy observation of W4: in the run of Benchmark with Seed
// (its deepest context MaxDepth), the PCCT limited to Limit frames holds
// MisattachedPct of its samples at contexts the full walks did not give;
// LimitedPct of its walks hit the limit; Exact says whether its tree is the
// full walks'.
type W4Obs struct {
	Benchmark      string
	Seed           uint64
	MaxDepth       int64
	Limit          int
	MisattachedPct float64 `tidy:"misattached_pct"`
	LimitedPct     float64 `tidy:"limited_pct"`
	Exact          bool
}

// W4Result is W4's runs, by stand-in, seed and limit.
type W4Result struct {
	Seeds   []uint64
	Benches []string
	Note    string
	Obs     []W4Obs
}

// of lists benchmark b's runs at limit l.
func (r *W4Result) of(b string, l int) []W4Obs {
	var out []W4Obs
	for _, x := range r.Obs {
		if x.Benchmark == b && x.Limit == l {
			out = append(out, x)
		}
	}
	if out == nil {
		panic(fmt.Sprintf("study: W4 has no runs of %s at limit %d", b, l))
	}
	return out
}

// Misattached is the misattached share (%) on b at limit l over the seeds.
func (r *W4Result) Misattached(b string, l int) Stat {
	var xs []float64
	for _, x := range r.of(b, l) {
		xs = append(xs, x.MisattachedPct)
	}
	return NewStat(xs)
}

// MaxDepth is b's deepest context over its runs.
func (r *W4Result) MaxDepth(b string) int64 {
	var d int64
	for _, x := range r.of(b, w4Limits[0]) {
		d = max(d, x.MaxDepth)
	}
	return d
}

// UnlimitedButDifferent counts the runs where no walk hit the limit but
// the tree differs from the full walks'.
func (r *W4Result) UnlimitedButDifferent() int {
	n := 0
	for _, x := range r.Obs {
		if x.LimitedPct == 0 && !x.Exact {
			n++
		}
	}
	return n
}

// MeasureW4: PCCTs whose upward walk stops after L frames, on the same
// execution as a full walk; the misattached share is the part of the
// samples the limited tree holds at contexts the full walks did not give.
func MeasureW4(o Options) (*W4Result, error) {
	runs, err := whaleyPassive(o)
	if err != nil {
		return nil, err
	}
	res := &W4Result{Seeds: o.Seeds, Benches: whaleyNames(o), Note: whaleyRunsNote(o)}
	for _, b := range res.Benches {
		for li, l := range w4Limits {
			for si, r := range runs[b] {
				res.Obs = append(res.Obs, W4Obs{Benchmark: b, Seed: o.Seeds[si], MaxDepth: r.maxDepth, Limit: l,
					MisattachedPct: 100 * r.misattached[li], LimitedPct: 100 * r.limited[li], Exact: r.exact[li]})
			}
		}
	}
	return res, nil
}

func (r *W4Result) render() (*Result, error) {
	cols := []string{"stand-in", "max depth"}
	for _, l := range w4Limits {
		cols = append(cols, fmt.Sprintf("limit %d", l))
	}
	t := &Table{Title: "W4: misattached share of samples (%) by depth limit, mean ± 95 % CI over seeds [walks that hit the limit, %]", Columns: cols}
	res := &Result{Table: t, Tidy: tidyOf(r.Obs)}
	lines := map[string]errPoints{}
	for _, b := range r.Benches {
		cells := []any{b, r.MaxDepth(b)}
		for _, l := range w4Limits {
			var lim []float64
			for _, x := range r.of(b, l) {
				lim = append(lim, x.LimitedPct)
			}
			m := r.Misattached(b, l)
			ml, _ := MeanCI(lim)
			cells = append(cells, fmt.Sprintf("%s [%.0f]", m, ml))
			pts := lines[b]
			pts.add(float64(l), m)
			lines[b] = pts
		}
		t.AddRow(cells...)
	}
	t.Notes = append(t.Notes,
		r.Note+": the runs of w1-partial-walks; on each, one PCCT per limit and one walking the full stack, all at 1 ms. Misattached share = the limited PCCT's samples at contexts beyond what the full walks put there, Σ max(0, limited − full) / Σ limited over contexts (= 1 − overlap; a walk cut off after L frames hangs the frames it read off the root). A misattached frame stays wrong for as long as it lives, since later walks stop at its marker bit and build on its node: the misattached share far exceeds the share of walks that hit the limit.",
		"Paper (§5, figure of a deep call sequence): the backward pass visits a limited number of frames so that sampling completes quickly on deep stacks; a long new call sequence is then attached to the tree's root, 'not correctly attached'. No share is given.")
	// Figure: each stand-in's misattached share against the limit, mean
	// and 95 % CI over seeds, its deepest stack as a dotted reference (a
	// limit at or above it cuts no walk).
	p := plot.New()
	p.Title.Text = "W4: misattached samples vs depth limit (mean ± 95 % CI over seeds)"
	p.X.Label.Text = "depth limit (frames, log scale)"
	p.Y.Label.Text = "misattached share of samples (%)"
	p.X.Scale = plot.LogScale{}
	var ticks []plot.Tick
	for _, l := range w4Limits {
		ticks = append(ticks, plot.Tick{Value: float64(l), Label: fmt.Sprint(l)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	for i, b := range r.Benches {
		if err := lines[b].addTo(p, series{Label: b, Style: i, Line: true}); err != nil {
			return nil, err
		}
		d := float64(r.MaxDepth(b))
		ref, err := plotter.NewLine(plotter.XYs{{X: d, Y: 0}, {X: d, Y: 100}})
		if err != nil {
			return nil, err
		}
		ref.Color, ref.Dashes = seriesColor(i), []vg.Length{vg.Points(1), vg.Points(2)}
		p.Add(ref)
		p.Legend.Add(fmt.Sprintf("%s's deepest stack (%d)", b, r.MaxDepth(b)), ref)
	}
	p.X.Min, p.X.Max = float64(w4Limits[0])/1.2, float64(w4Limits[len(w4Limits)-1])*1.2
	p.Y.Min, p.Y.Max = 0, 175 // room for the legend above the data
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 25}, {Value: 50, Label: "50"}, {Value: 75}, {Value: 100, Label: "100"}})
	p.Legend.Top = true
	p.Legend.Padding = vg.Points(2)
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(6), -vg.Points(4)
	res.Figure = p
	return res, nil
}

// w2Intervals are the paper's sampling periods.
var w2Intervals = []sim.Time{sim.Millisecond, 10 * sim.Millisecond, 100 * sim.Millisecond}

// w2Profilers: Whaley's two measurements, in the paper's order.
var w2Profilers = []string{"hotmethods", "pcct"}

// w2Setup: stand-ins for SPECjvm98 and for pBOB (SPECjbb2000 grew out of
// it); CPUs model the paper's uniprocessor and dual machines; the run is
// two profile data sets long.
func w2Setup(o Options) (benches []string, cpus []int, set sim.Time) {
	if o.Full {
		// db and mtrt end within 2.4 s, jbb after 1.61 s on two CPUs;
		// javac simulates ten times slower.
		return []string{"compress", "jess", "mpegaudio", "jack", "jbb"}, []int{1, 2}, 750 * sim.Millisecond
	}
	return []string{"jess", "jbb"}, []int{1}, 800 * sim.Millisecond // jbb ends after 1.7 s on one CPU
}

// w2Run is one costed run: its speed (bytecodes per simulated second:
// the run stops at its duration or when the program ends) and the second
// data set's counts keyed "n:context" (node counts) and "e:context" (edge
// weights).
type w2Run struct {
	speed  float64
	end    sim.Time
	counts map[string]float64
}

// w2Key is one W2 run of bench on cpus CPUs for 2·set, costed with prof
// ("" = unprofiled) at interval iv.
type w2Key struct {
	bench   string
	seed    uint64
	cpus    int
	prof    string
	iv, set sim.Time
}

func (k w2Key) run() (*w2Run, error) { return w2Once(k.bench, k.seed, k.cpus, k.prof, k.iv, k.set) }

func w2Once(bench string, seed uint64, cpus int, prof string, iv, set sim.Time) (*w2Run, error) {
	p, err := workloads.Get(bench)
	if err != nil {
		return nil, err
	}
	cfg := harness.DefaultConfig()
	cfg.Sim.Seed, cfg.Sim.Duration, cfg.Sim.CPUs = seed, 2*set, cpus
	cfg.NoTruthProfile, cfg.TruthPerMethod = true, true // only the bytecodes executed are read
	var pc *samplers.PCCT
	if prof != "" {
		cfg.Samplers, cfg.Mode = []string{prof}, samplers.Costed
		cfg.Configure = func(s samplers.Sampler) {
			if x, ok := s.(*samplers.PCCT); ok {
				c := x.Config()
				// A perfect clock (whaleyClock): the two profilers'
				// runs of one seed are paired tick for tick.
				c.Interval, c.CountFrom, c.Jitter = iv, set, 0
				*x = *samplers.NewPCCT(x.Name(), c)
				pc = x
			}
		}
	}
	out, err := harness.Run(p, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s %s %v seed %d: %w", bench, prof, iv, seed, err)
	}
	r := &w2Run{speed: float64(out.Result.Truth.BytecodeTotal()) / out.Result.End.Seconds(), end: out.Result.End}
	if pc != nil {
		r.counts = map[string]float64{}
		for _, c := range pc.Contexts() {
			if c.Count > 0 {
				r.counts["n:"+c.Path] += float64(c.Count)
			}
			if c.Edge > 0 {
				r.counts["e:"+c.Path] += float64(c.Edge)
			}
		}
	}
	return r, nil
}

// W2Obs is one tidy observation of W2 on Benchmark with CPUs: Measure
// "speed" (bytecodes per simulated second of the run with Seed; Profiler
// "none" for the unprofiled run, IntervalMs 0) or "precision" (Pearson's
// r of the second data sets of the runs with Seed and OtherSeed).
type W2Obs struct {
	Benchmark  string
	CPUs       int `tidy:"cpus"`
	Profiler   string
	IntervalMs float64 `tidy:"interval_ms"`
	Seed       uint64
	OtherSeed  uint64
	Measure    string
	Value      float64
}

// W2Result is W2's runs and precision pairs.
type W2Result struct {
	Seeds   []uint64
	Benches []string
	CPUs    []int
	Set     sim.Time // a data set's length; a run is two
	// ShortRuns counts the runs whose program ended inside the second
	// data set.
	ShortRuns, Runs int
	Obs             []W2Obs
}

// speed is the speed of the run of b on cpus with seed under profiler
// pr ("none": unprofiled) at iv.
func (r *W2Result) speed(b string, cpus int, seed uint64, pr string, iv sim.Time) float64 {
	ms := 0.0
	if pr != "none" {
		ms = iv.Seconds() * 1e3
	}
	for _, x := range r.Obs {
		if x.Measure == "speed" && x.Benchmark == b && x.CPUs == cpus && x.Seed == seed && x.Profiler == pr && x.IntervalMs == ms {
			return x.Value
		}
	}
	panic(fmt.Sprintf("study: W2 has no run of %s/%d/%d/%s/%v", b, cpus, seed, pr, iv))
}

// Overhead is profiler pr's overhead (%) on b with cpus at iv against
// the unprofiled run of the same seed, over the seeds.
func (r *W2Result) Overhead(pr string, cpus int, b string, iv sim.Time) Stat {
	var xs []float64
	for _, seed := range r.Seeds {
		xs = append(xs, 100*(r.speed(b, cpus, seed, "none", 0)/r.speed(b, cpus, seed, pr, iv)-1))
	}
	return NewStat(xs)
}

// Extra is the PCCT's overhead over hot methods' (points) on b with cpus
// at iv, paired by seed.
func (r *W2Result) Extra(cpus int, b string, iv sim.Time) Stat {
	var xs []float64
	for _, seed := range r.Seeds {
		base := r.speed(b, cpus, seed, "none", 0)
		xs = append(xs, 100*(base/r.speed(b, cpus, seed, w2Profilers[1], iv)-base/r.speed(b, cpus, seed, w2Profilers[0], iv)))
	}
	return NewStat(xs)
}

// Precision is profiler pr's precision on b with cpus at iv, over the
// seed pairs.
func (r *W2Result) Precision(pr string, cpus int, b string, iv sim.Time) Stat {
	var xs []float64
	for _, x := range r.Obs {
		if x.Measure == "precision" && x.Benchmark == b && x.CPUs == cpus && x.Profiler == pr && x.IntervalMs == iv.Seconds()*1e3 {
			xs = append(xs, x.Value)
		}
	}
	if xs == nil {
		panic(fmt.Sprintf("study: W2 has no precision of %s/%d/%s/%v", pr, cpus, b, iv))
	}
	return NewStat(xs)
}

// MeasureW2: costed runs two data sets long; overhead from the speed
// against the unprofiled run of the same seed, precision as the
// correlation of the second data sets of runs with different seeds
// (Whaley's successive runs).
func MeasureW2(o Options) (*W2Result, error) {
	benches, cpuss, set := w2Setup(o)
	type key struct {
		bench string
		cpus  int
		seed  int
		prof  string // "" = unprofiled
		iv    sim.Time
	}
	var keys []key
	for _, b := range benches {
		for _, c := range cpuss {
			for si := range o.Seeds {
				keys = append(keys, key{b, c, si, "", 0})
				for _, pr := range w2Profilers {
					for _, iv := range w2Intervals {
						keys = append(keys, key{b, c, si, pr, iv})
					}
				}
			}
		}
	}
	rk := make([]w2Key, len(keys))
	for i, k := range keys {
		rk[i] = w2Key{k.bench, o.Seeds[k.seed], k.cpus, k.prof, k.iv, set}
	}
	runs, err := runAll(o, rk)
	if err != nil {
		return nil, err
	}
	res := &W2Result{Seeds: o.Seeds, Benches: benches, CPUs: cpuss, Set: set, Runs: len(runs)}
	get := map[key]*w2Run{}
	for i, k := range keys {
		get[k] = runs[i]
		if runs[i].end < 2*set {
			res.ShortRuns++
		}
		pr, ms := k.prof, k.iv.Seconds()*1e3
		if pr == "" {
			pr = "none"
		}
		res.Obs = append(res.Obs, W2Obs{k.bench, k.cpus, pr, ms, o.Seeds[k.seed], 0, "speed", runs[i].speed})
	}
	for _, b := range benches {
		for _, c := range cpuss {
			for _, pr := range w2Profilers {
				for _, iv := range w2Intervals {
					for si := range o.Seeds {
						for sj := si + 1; sj < len(o.Seeds); sj++ {
							_, x, y := profile.Align(get[key{b, c, si, pr, iv}].counts, get[key{b, c, sj, pr, iv}].counts)
							res.Obs = append(res.Obs, W2Obs{b, c, pr, iv.Seconds() * 1e3, o.Seeds[si], o.Seeds[sj], "precision", whaleyPearson(x, y)})
						}
					}
				}
			}
		}
	}
	return res, nil
}

func (r *W2Result) render() (*Result, error) {
	benches, cpuss, set := r.Benches, r.CPUs, r.Set
	cols := []string{"profiler", "CPUs", "benchmark"}
	for _, iv := range w2Intervals {
		cols = append(cols, iv.String()+" overhead (%)", iv.String()+" precision")
	}
	t := &Table{Title: "W2: overhead (%, mean ± 95 % CI over seeds) and precision (correlation of the second data sets of two runs, mean ± 95 % CI over seed pairs)", Columns: cols}
	res := &Result{Table: t, Tidy: tidyOf(r.Obs)}
	for _, pr := range w2Profilers {
		// per interval: the per-benchmark means, for the summary row.
		ovhAll, precAll := map[sim.Time][]float64{}, map[sim.Time][]float64{}
		for _, c := range cpuss {
			for _, b := range benches {
				cells := []any{pr, c, b}
				for _, iv := range w2Intervals {
					ov, pc := r.Overhead(pr, c, b, iv), r.Precision(pr, c, b, iv)
					ovhAll[iv] = append(ovhAll[iv], ov.Mean)
					precAll[iv] = append(precAll[iv], pc.Mean)
					cells = append(cells, ov.String(), pc.String())
				}
				t.AddRow(cells...)
			}
		}
		cells := []any{pr, "all", "mean [geo. mean]"}
		for _, iv := range w2Intervals {
			mo, _ := MeanCI(ovhAll[iv])
			mp, _ := MeanCI(precAll[iv])
			gp := whaleyGeoMean(precAll[iv])
			cells = append(cells, fmt.Sprintf("%.3f", mo), fmt.Sprintf("%.2f [%s]", mp, whaleyFmtGeo(gp)))
		}
		t.AddRow(cells...)
	}
	for _, c := range cpuss {
		for _, b := range benches {
			cells := []any{w2Profilers[1] + " − " + w2Profilers[0] + ", paired by seed", c, b}
			for _, iv := range w2Intervals {
				e := r.Extra(c, b, iv)
				cells = append(cells, fmt.Sprintf("%+.3f ± %.3f", e.Mean, e.CI), "")
			}
			t.AddRow(cells...)
		}
	}
	t.Notes = append(t.Notes,
		fmt.Sprintf("Each profiler costed and alone (its sampler thread and the suspension of each sampled thread: %v a sample + %v a frame examined, samplers.DefaultPCCTConfig; on a perfect clock, jitter=0: Whaley's timers are not measured here, and the runs are paired by seed), seeds %v, %v runs = two profile data sets of %v (Whaley resets the data every few seconds and correlates the second set so that run length does not matter). Overhead = speed (bytecodes per simulated second) of the unprofiled run with the same seed / the profiled run's − 1. Precision: Pearson correlation, over the union of keys, of hot-method counts (hotmethods) or of PCCT node counts and edge weights by calling context (pcct), between the second data sets of two runs with different seeds; the paper reports geometric means, shown in the summary row where every value is positive.", samplers.DefaultPCCTConfig().PerSample, samplers.DefaultPCCTConfig().PerFrame, r.Seeds, 2*set, set),
		"Paper (IBM Developer Kit 1.3 on five machines, uniprocessor and dual, Windows and AIX; SPECjvm98, CaffeineMark, pBOB): building the PCCT costs slightly more than keeping hot-method counts; overhead is highest at the fastest sampling, 1 ms, and multiprocessors show slightly more overhead and less precision (the digits of the tables are lost in our copy; CLAIMS.md: both a few per cent at 10 ms); CaffeineMark's I-cache slowdown is not modelled. Precision stays high at 1 and 10 ms; sampling significantly slower (100 ms) loses accuracy. Our per-sample costs (a suspend and a walk on today's hardware, no cache effects) put our overheads far below a few per cent: the orderings reproduce, the magnitude does not.")
	if r.ShortRuns > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d of %d runs ended before %v: their second data set is shorter.", r.ShortRuns, r.Runs, 2*set))
	}
	// Figure: each (profiler, CPUs)'s overhead (left) and precision
	// (right) against the interval. Overhead: the mean over stand-ins per
	// seed, mean and 95 % CI over seeds, on a log axis where every value
	// is positive (overhead ∝ 1/interval is then a straight line);
	// precision: the mean over stand-ins per seed pair, mean and 95 % CI
	// over seed pairs, with r = 1 (identical data sets) and r = 0 as
	// references.
	ovh, prec := plot.New(), plot.New()
	ovh.Title.Text = "W2: overhead (mean over stand-ins, ± 95 % CI over seeds)"
	ovh.Y.Label.Text = "overhead over the unprofiled run (%)" // a log scale relabels it below
	prec.Title.Text = "W2: precision (mean over stand-ins, ± 95 % CI over seed pairs)"
	prec.Y.Label.Text = "precision: Pearson r of two runs"
	xTicks := plot.ConstantTicks([]plot.Tick{{Value: 1, Label: "1"}, {Value: 10, Label: "10"}, {Value: 100, Label: "100"}})
	for _, p := range []*plot.Plot{ovh, prec} {
		p.X.Label.Text = "sampling interval (ms, log scale)"
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, xTicks
		p.X.Min, p.X.Max = 0.8, 125
	}
	type w2Series struct {
		s        series
		x        []float64
		ovh, pre []Stat
	}
	var all []w2Series
	lo, top := math.Inf(1), 0.0
	for i, pr := range w2Profilers {
		for ci, c := range cpuss {
			w := w2Series{s: series{Label: fmt.Sprintf("%s, %d CPU(s)", pr, c), Style: i, Line: true}}
			if ci > 0 {
				w.s.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
			}
			for _, iv := range w2Intervals {
				// Spread the series a little so their error bars do not overlap.
				w.x = append(w.x, iv.Seconds()*1e3*math.Pow(1.06, float64(2*i+ci)-1.5))
				var perSeed []float64
				for _, seed := range r.Seeds {
					m := 0.0
					for _, b := range benches {
						m += 100 * (r.speed(b, c, seed, "none", 0)/r.speed(b, c, seed, pr, iv) - 1) / float64(len(benches))
					}
					perSeed = append(perSeed, m)
				}
				m := NewStat(perSeed)
				w.ovh = append(w.ovh, m)
				w.pre = append(w.pre, NewStat(r.pairPrecisions(pr, c, iv)))
				h := m.CI
				if math.IsNaN(h) {
					h = 0
				}
				lo, top = math.Min(lo, m.Mean-h), math.Max(top, m.Mean+h)
			}
			all = append(all, w)
		}
	}
	// Overhead on a log axis where every value is positive: the axis
	// holds log10 of the overhead, ticked at the decades (gonum's
	// LogScale places a vertical axis label by the arithmetic midpoint
	// and shrinks the data area to make room for it).
	logY := lo > 0
	for _, w := range all {
		var ovhPts, precPts errPoints
		for k, x := range w.x {
			m := w.ovh[k]
			if !logY {
				ovhPts.add(x, m)
			} else {
				h := m.CI
				if math.IsNaN(h) {
					h = 0
				}
				y := math.Log10(m.Mean)
				ovhPts.XYs = append(ovhPts.XYs, plotter.XY{X: x, Y: y})
				ovhPts.YErrors = append(ovhPts.YErrors, struct{ Low, High float64 }{y - math.Log10(m.Mean-h), math.Log10(m.Mean+h) - y})
			}
			precPts.add(x, w.pre[k])
		}
		if err := ovhPts.addTo(ovh, w.s); err != nil {
			return nil, err
		}
		if err := precPts.addTo(prec, w.s); err != nil {
			return nil, err
		}
	}
	if logY {
		ovh.Y.Label.Text = "overhead (%, log scale)"
		ovh.Y.Min, ovh.Y.Max = math.Log10(lo)-0.3, math.Log10(top)+1.3 // room for the legend above the data, top right
		var ticks []plot.Tick
		for e := math.Ceil(ovh.Y.Min); e <= ovh.Y.Max; e++ {
			ticks = append(ticks, plot.Tick{Value: e, Label: strconv.FormatFloat(math.Pow(10, e), 'f', -1, 64)})
		}
		ovh.Y.Tick.Marker = plot.ConstantTicks(ticks)
	} else {
		ovh.Y.Min, ovh.Y.Max = math.Min(0, lo), 1.5*top // room for the legend above the data
	}
	ovh.Legend.Top = true
	for i, ref := range []struct {
		y     float64
		label string
	}{{1, "identical data sets (r = 1)"}, {0, "no correlation (r = 0)"}} {
		l, err := plotter.NewLine(plotter.XYs{{X: 0.8, Y: ref.y}, {X: 125, Y: ref.y}})
		if err != nil {
			return nil, err
		}
		l.Color, l.Dashes = color.Gray{Y: 100}, []vg.Length{vg.Points(3 - 2*float64(i)), vg.Points(2)}
		prec.Add(l)
		prec.Legend.Add(ref.label, l)
	}
	prec.Y.Min, prec.Y.Max = -1, 1.05
	prec.Legend.Left = true // the 1 ms points sit near r = 1: bottom left is empty
	for _, p := range []*plot.Plot{ovh, prec} {
		p.Legend.Padding = vg.Points(3)
		p.Legend.XOffs, p.Legend.YOffs = -vg.Points(6), -vg.Points(6)
	}
	prec.Legend.XOffs, prec.Legend.YOffs = vg.Points(6), vg.Points(6)
	res.Figure = panels{ovh, prec}
	return res, nil
}

// pairPrecisions lists, per pair of seeds, pr's precision with cpus at iv
// averaged over the stand-ins.
func (r *W2Result) pairPrecisions(pr string, cpus int, iv sim.Time) []float64 {
	type pair struct{ a, b uint64 }
	sum, n := map[pair]float64{}, map[pair]int{}
	var order []pair
	for _, x := range r.Obs {
		if x.Measure == "precision" && x.CPUs == cpus && x.Profiler == pr && x.IntervalMs == iv.Seconds()*1e3 {
			k := pair{x.Seed, x.OtherSeed}
			if n[k] == 0 {
				order = append(order, k)
			}
			sum[k] += x.Value
			n[k]++
		}
	}
	var out []float64
	for _, k := range order {
		out = append(out, sum[k]/float64(n[k]))
	}
	return out
}

// whaleyPearson is Pearson's r, 0 when either vector is constant (no
// samples in a data set correlate with nothing).
func whaleyPearson(x, y []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	r := profile.Pearson(x, y)
	if math.IsNaN(r) {
		return 0
	}
	return r
}

// whaleyGeoMean is the geometric mean, NaN unless every value is > 0.
func whaleyGeoMean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		if x <= 0 {
			return math.NaN()
		}
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(v)))
}

func whaleyFmtGeo(g float64) string {
	if math.IsNaN(g) {
		return "n/a: a value ≤ 0"
	}
	return fmt.Sprintf("%.2f", g)
}
