package study

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
)

func init() {
	register(Experiment{Name: "m2-causality", Claim: "M2", Title: "Mytkowicz Table 2 / Fig. 6: causality slopes with inlining", Run: typed(func(o Options) (*causalityResult, error) { return measureCausality(o, true) }), Models: true})
	register(Experiment{Name: "m7-no-inlining", Claim: "M7", Title: "Mytkowicz Table 3: causality slopes without inlining, tprof included", Run: typed(func(o Options) (*causalityResult, error) { return measureCausality(o, false) }), Models: true})
}

// causalitySizes are the injected Fibonacci sizes f.
var causalitySizes = []int64{0, 200, 400}

// causalityModelSlowdown is the share of a model's uninjected run that
// its largest injection adds at least: the paper's injections slow a
// program down visibly (its Fig. 6 spans seconds), and a model's hottest
// methods are called so few times that f = 400 can add less than 1 % to
// a run (fop's StringBuffer.append: 3 ms in 1.04 s), less than one
// sample's worth at 10 ms, so a slope would measure sampling noise.
// hsqldb's Index.next, the model whose injection costs most per f, gains
// 60 % at f = 400 unscaled.
const causalityModelSlowdown = 0.5

// causalitySizeScale is the factor k ≥ 1 by which a model's pair
// multiplies causalitySizes so that the largest adds at least
// causalityModelSlowdown of the uninjected run's length base, given the
// length probed with the smallest non-zero size injected (the injected
// loop's cost is linear in f).
func causalitySizeScale(base, probed float64, sizes []int64) int64 {
	perF := (probed - base) / float64(sizes[1])
	if perF <= 0 {
		return 1
	}
	need := causalityModelSlowdown * base / (perF * float64(sizes[len(sizes)-1]))
	return max(int64(math.Ceil(need)), 1)
}

// causalityRow is one (benchmark, method) pair's slopes by profiler.
type causalityRow struct {
	Benchmark, Method string
	// SizeScale multiplies the sizes injected into Method: 1 on the
	// stand-ins, causalitySizeScale on the models.
	SizeScale int64
	// Slopes are each profiler's (the truth's included) least-squares
	// slope of attributed on total seconds, over every seed and f.
	Slopes keyed[string, float64]
	// Points are (total s, attributed s) per profiler, for the figure.
	Points map[string]plotter.XYs
}

// causalityObs is one observation of the causality analysis: in the run
// of a stand-in with a Fibonacci loop of size F injected into Method (F 0:
// none), the seconds a profiler attributes to Method and the run's total.
type causalityObs struct {
	Benchmark, Method string
	Seed              uint64
	F                 int64
	Profiler          string
	TotalS            float64 `tidy:"total_s"`
	AttributedS       float64 `tidy:"attributed_s"`
}

// causalityResult is M2's (with inlining) or M7's (without) causality
// analysis.
type causalityResult struct {
	Inlining bool
	// Models: the benchmarks are the models of real applications
	// (Options.Models), not the stand-ins, run with their entry loops
	// scaled by ModelScale.
	Models     bool
	ModelScale float64
	// Profilers are the samplers compared with the truth.
	Profilers []string
	Sizes     []int64
	Seeds     []uint64
	Rows      []causalityRow
	Obs       []causalityObs
}

// Mean is profiler p's mean slope over the (benchmark, method) pairs with
// its 95 % CI; p may be "truth".
func (r *causalityResult) Mean(p string) stat {
	var xs []float64
	for _, row := range r.Rows {
		xs = append(xs, row.Slopes.At(p))
	}
	return newStat(xs)
}

// causalityStandIn is stand-in b's knobs and program seed sized as for the
// causality runs.
func causalityStandIn(b string, iters int, full bool) (workloads.Knobs, uint64, error) {
	s, ok := workloads.LookupStandIn(b)
	if !ok {
		return workloads.Knobs{}, 0, fmt.Errorf("no stand-in %s", b)
	}
	k := s.Knobs
	k.Iterations = iters
	if full {
		k.Iterations *= 5
	}
	return k, s.Seed, nil
}

// causalityKey is one causality run: stand-in bench (sized by iters and
// full) or, with scale > 0, model bench (modelProgram at scale), with
// inlining on or off and profilers passive, Fibonacci size f injected
// into method (f 0 and method "": the uninjected run).
type causalityKey struct {
	bench     string
	iters     int
	full      bool
	scale     float64
	inlining  bool
	profilers string // comma-separated
	seed      uint64
	method    string
	f         int64
}

// causalityRun is what a causality run leaves: its simulated seconds, the
// truth's two hottest methods, and each profiler's method weights.
type causalityRun struct {
	Total   float64
	Top     []string
	Weights map[string]map[string]float64 // profiler → method → weight
	Totals  map[string]int64              // profiler → total weight
}

// hotness is profile.Hotness of prof's profile for method m.
func (r *causalityRun) hotness(prof, m string) float64 {
	if r.Totals[prof] == 0 {
		return 0
	}
	return 100 * r.Weights[prof][m] / float64(r.Totals[prof])
}

func (k causalityKey) run() (*causalityRun, error) {
	s := paperSpec(k.bench, k.seed, 120*sim.Second)
	if k.scale > 0 {
		if k.scale != 1 {
			s.LoopScale = k.scale
		}
	} else {
		kn, _, err := causalityStandIn(k.bench, k.iters, k.full)
		if err != nil {
			return nil, err
		}
		s.Iterations = kn.Iterations
	}
	inline := k.inlining
	s.Inline, s.Mode, s.Truth = &inline, samplers.Passive, "methods" // the truth is read by method
	if k.profilers != "" {
		s.Samplers = strings.Split(k.profilers, ",")
	}
	if k.f > 0 {
		p, _, err := s.Load()
		if err != nil {
			return nil, err
		}
		// The method as the program names it: an overloaded one by its
		// signature (methodRef).
		s.Injections = []string{fmt.Sprintf("%s:%d", methodRef(p, k.method), k.f)}
	}
	p, out, err := runSpecProgram(s)
	if err != nil {
		return nil, err
	}
	r := &causalityRun{Total: out.Result.End.Seconds(), Top: injectable(p, out.Profiles["truth"], 2),
		Weights: map[string]map[string]float64{}, Totals: map[string]int64{}}
	for name, pr := range out.Profiles {
		r.Weights[name], r.Totals[name] = pr.MethodWeights(), pr.TotalWeight()
	}
	return r, nil
}

// injectable is pr's n hottest methods (by self weight) that have
// bytecode: the paper injects its loop with a bytecode rewriter (BCEL),
// which cannot enter a native method, such as the models'
// FileOutputStream.open0.
func injectable(p *program.Program, pr *profile.Profile, n int) []string {
	native := map[string]bool{}
	r := program.NewResolver(p)
	for i := range p.Methods {
		m := &p.Methods[i]
		only := len(m.Body) > 0
		for _, st := range m.Body {
			only = only && st.Native != nil
		}
		native[r.DisplayName(m)] = only
	}
	var out []string
	for _, e := range pr.Flat() {
		if len(out) == n || e.Self == 0 {
			break
		}
		if !native[e.Name] {
			out = append(out, e.Name)
		}
	}
	return out
}

// causality runs Mytkowicz et al.'s causality analysis: inject a
// Fibonacci loop of size f into each stand-in's two hottest methods (the
// truth's, in the uninjected run of the first seed) and regress the time
// each profiler attributes to the method on the program's total run time,
// over every seed and f.
func causality(o Options, inlining bool, profilers []string) (*causalityResult, error) {
	seeds, full := o.Seeds, o.Full
	sizes := causalitySizes
	if full {
		sizes = []int64{0, 100, 200, 300, 400, 500}
	}
	res := &causalityResult{Inlining: inlining, Models: o.Models, Profilers: profilers, Sizes: sizes, Seeds: seeds}
	if o.Models {
		res.ModelScale = modelRunScale(o)
	}
	benches := toEndSet(o)
	run := func(b toEnd, seed uint64, method string, f int64) causalityKey {
		if f == 0 {
			method = "" // the uninjected run, shared by both methods
		}
		fullIters := full && b.scale == 0 // a model's scale holds Full
		return causalityKey{b.name, b.iters, fullIters, b.scale, inlining, strings.Join(profilers, ","), seed, method, f}
	}
	all := append([]string{"truth"}, profilers...)
	// The two hottest methods of each benchmark, from its uninjected run.
	var base []causalityKey
	for _, b := range benches {
		base = append(base, run(b, seeds[0], "", 0))
	}
	hot, err := runAll(o, base)
	if err != nil {
		return nil, err
	}
	type key struct {
		b      int
		method string
		seed   uint64
		f      int64
	}
	// A model's sizes are scaled per pair (causalitySizeScale), from one
	// run of the first seed with the smallest non-zero size injected.
	scaleOf := map[[2]string]int64{}
	if o.Models {
		var probe []causalityKey
		for bi, b := range benches {
			for _, m := range hot[bi].Top {
				probe = append(probe, run(b, seeds[0], m, sizes[1]))
			}
		}
		probed, err := runAll(o, probe)
		if err != nil {
			return nil, err
		}
		i := 0
		for bi, b := range benches {
			for _, m := range hot[bi].Top {
				scaleOf[[2]string{b.name, m}] = causalitySizeScale(hot[bi].Total, probed[i].Total, sizes)
				i++
			}
		}
	}
	var keys []key
	var runKeys []causalityKey
	for bi, b := range benches {
		for _, m := range hot[bi].Top {
			k := max(scaleOf[[2]string{b.name, m}], 1)
			for _, seed := range seeds {
				for _, f := range sizes {
					keys = append(keys, key{bi, m, seed, f * k})
					runKeys = append(runKeys, run(b, seed, m, f*k))
				}
			}
		}
	}
	outs, err := runAll(o, runKeys)
	if err != nil {
		return nil, err
	}
	obs := make([][]causalityObs, len(keys))
	for i, k := range keys {
		out := outs[i]
		for _, prof := range all {
			att := out.hotness(prof, k.method) / 100 * out.Total
			obs[i] = append(obs[i], causalityObs{benches[k.b].name, k.method, k.seed, k.f, prof, out.Total, att})
		}
	}
	// Rows in key order: stand-in, then its hottest methods.
	for i, k := range keys {
		if i > 0 && keys[i-1].b == k.b && keys[i-1].method == k.method {
			continue
		}
		res.Rows = append(res.Rows, causalityRow{Benchmark: benches[k.b].name, Method: k.method, SizeScale: max(scaleOf[[2]string{benches[k.b].name, k.method}], 1), Slopes: keyed[string, float64]{}, Points: map[string]plotter.XYs{}})
	}
	byPair := map[[2]string][]causalityObs{}
	rowOf := map[[2]string]*causalityRow{}
	for i := range res.Rows {
		r := &res.Rows[i]
		rowOf[[2]string{r.Benchmark, r.Method}] = r
	}
	for _, o := range obs {
		for _, x := range o {
			pk := [2]string{x.Benchmark, x.Method}
			byPair[pk] = append(byPair[pk], x)
			rowOf[pk].Points[x.Profiler] = append(rowOf[pk].Points[x.Profiler], plotter.XY{X: x.TotalS, Y: x.AttributedS})
			res.Obs = append(res.Obs, x)
		}
	}
	for pk, r := range rowOf {
		for _, prof := range all {
			r.Slopes[prof] = withinSeedSlope(byPair[pk], prof)
		}
	}
	return res, nil
}

// withinSeedSlope is profiler prof's least-squares slope of attributed on
// total seconds over obs, with each seed's own intercept (the
// fixed-effects, or within, estimator): each seed's points are taken about
// their own means, so only the injection moves them. The paper's
// benchmarks are deterministic and its x axis moves with f alone; a
// seed changes a simulated program's own random choices, and so its
// length, by more than a small injection does (antlr's model: 1.04–1.21 s
// over seeds 1–3, +0.03 s with f = 200), and a slope pooled over seeds
// would measure the method's share of that spread, not its response to
// the injection. A pair without variation in x has slope 0.
func withinSeedSlope(obs []causalityObs, prof string) float64 {
	type sums struct{ n, x, y float64 }
	means := map[uint64]*sums{}
	for _, o := range obs {
		if o.Profiler != prof {
			continue
		}
		m := means[o.Seed]
		if m == nil {
			m = &sums{}
			means[o.Seed] = m
		}
		m.n++
		m.x += o.TotalS
		m.y += o.AttributedS
	}
	var sxy, sxx float64
	for _, o := range obs {
		if o.Profiler != prof {
			continue
		}
		m := means[o.Seed]
		dx, dy := o.TotalS-m.x/m.n, o.AttributedS-m.y/m.n
		sxy += dx * dy
		sxx += dx * dx
	}
	if sxx == 0 {
		return 0
	}
	return sxy / sxx
}

// causalityProfilers are M2's samplers; M7 adds tprof in front.
var causalityProfilers = []string{"hprof", "xprof", "jprofile", "yourkit"}

// measureCausality runs the causality analysis with or without inlining
// (M2, M7), every seed.
func measureCausality(o Options, inlining bool) (*causalityResult, error) {
	profilers := causalityProfilers
	if !inlining {
		profilers = append([]string{"tprof"}, profilers...)
	}
	return causality(o, inlining, profilers)
}

func (r *causalityResult) render() (*Result, error) {
	profilers := r.Profilers
	ref := "mytkowicz2010_table2_slopes_inlining.csv"
	if !r.Inlining {
		ref = "mytkowicz2010_table3_slopes_noinlining.csv"
	}
	rows := r.Rows
	refHeader, refRows := readReference(ref)
	cols := append([]string{"benchmark", "method", "truth"}, profilers...)
	for _, h := range refHeader[min(2, len(refHeader)):] {
		cols = append(cols, "paper "+h)
	}
	title := "Causality slopes with inlining (Mytkowicz Table 2)"
	if !r.Inlining {
		title = "Causality slopes without inlining (Mytkowicz Table 3)"
	}
	t := &Table{Title: title, Columns: cols}
	res := &Result{Table: t, Tidy: tidyOf(r.Obs)}
	// Our stand-ins' hot methods are synthetic: the paper's rows are shown
	// beside ours in benchmark order (first and second hottest method).
	refByBench := map[string][][]string{}
	keys := make([]string, 0, len(refRows))
	for k := range refRows {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r := refRows[k]
		refByBench[r[0]] = append(refByBench[r[0]], r)
	}
	seen := map[string]int{}
	for _, r := range rows {
		method := r.Method
		if r.SizeScale > 1 {
			method = fmt.Sprintf("%s (f × %d)", method, r.SizeScale)
		}
		cells := []any{r.Benchmark, method, r.Slopes["truth"]}
		for _, p := range profilers {
			cells = append(cells, r.Slopes[p])
		}
		i := seen[r.Benchmark]
		seen[r.Benchmark]++
		if refs := refByBench[paperBench(r.Benchmark)]; i < len(refs) {
			for _, v := range refs[i][2:] {
				cells = append(cells, v)
			}
		}
		t.AddRow(cells...)
	}
	mean := []any{"mean (95 % CI)", "", ""}
	for _, p := range profilers {
		mean = append(mean, r.Mean(p).String())
	}
	if r, ok := refRows["mean/"]; ok {
		for _, v := range r[2:] {
			mean = append(mean, v)
		}
	}
	t.AddRow(mean...)
	t.Notes = append(t.Notes, fmt.Sprintf("Fibonacci sizes f = %v injected at the end of each %s's two hottest methods (truth, uninjected run of seed %d); slope of attributed vs total seconds, regressed over f within each seed (%v; one slope, an intercept per seed); samplers passive on one execution per (seed, f). The paper's rows are for the real benchmarks' methods, listed beside ours by rank.", r.Sizes, benchNoun(r.Models), r.Seeds[0], r.Seeds))
	if r.Models {
		t.Notes = append(t.Notes, fmt.Sprintf("On a model a pair's sizes are multiplied by the factor beside its method (f × k), the smallest that makes the largest injection add at least %.0f %% to the uninjected run of seed %d.", 100*causalityModelSlowdown, r.Seeds[0]))
		t.Notes = append(t.Notes, modelNote(r.ModelScale))
	}
	// Figure: every pair's slope per profiler, the mean with its 95 % CI,
	// and the claim's references: 1 (exact attribution) and 0.5.
	p := plot.New()
	p.Title.Text = "M2: " + title
	if !r.Inlining {
		p.Title.Text = "M7: " + title
	}
	p.Y.Label.Text = "causality slope (attributed s per total s)"
	names := append([]string{"truth"}, profilers...)
	var pairs, means errPoints
	for i, prof := range names {
		for j, row := range rows {
			pairs.XYs = append(pairs.XYs, plotter.XY{X: float64(i) - 0.25 + 0.5*float64(j)/float64(max(len(rows)-1, 1)), Y: row.Slopes.At(prof)})
		}
		m := r.Mean(prof)
		means.add(float64(i), m)
	}
	sc, err := plotter.NewScatter(pairs.XYs)
	if err != nil {
		return nil, err
	}
	styleScatter(sc, 1)
	sc.GlyphStyle.Shape = draw.CircleGlyph{} // the means are squares
	p.Add(sc)
	p.Legend.Add(fmt.Sprintf("a (%s, method) pair (%d)", benchNoun(r.Models), len(rows)), sc)
	if err := means.addTo(p, series{Label: "mean ± CI over pairs", Style: 0, Shape: draw.BoxGlyph{}, Radius: vg.Points(4.5)}); err != nil {
		return nil, err
	}
	for i, ref := range []struct {
		y     float64
		label string
	}{{1, "exact attribution (slope 1)"}, {0.5, "claim: safepoint samplers < 0.5"}} {
		l, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: ref.y}, {X: float64(len(names)) - 0.5, Y: ref.y}})
		if err != nil {
			return nil, err
		}
		l.Color, l.Dashes = seriesColor(2+i), []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
		p.Legend.Add(ref.label, l)
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(names))-0.4
	p.Y.Min, p.Y.Max = math.Min(0, p.Y.Min), math.Max(1, p.Y.Max)
	res.Figure = newFigure("Each point is one ("+benchNoun(r.Models)+", method) pair: the slope of the seconds a profiler attributes to the method against the seconds really added, as work of growing size is injected into it (1: every added second found). Squares: the mean over pairs ± CI. truth = the exact execution; hprof, xprof, jprofile and yourkit sample at safepoints (the next poll); tprof samples where the thread is, by its timer. "+captionCI, p)
	return res, nil
}
