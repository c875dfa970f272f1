package study

import (
	"fmt"
	"math"
	"strconv"

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

// Binder's experiments run Komorium on the SPECjvm98 stand-ins. By default
// four of them span the claims — loop-dominated (compress), large blocks
// (mpegaudio), deep and call-heavy (javac), exception-heavy (jack); --full
// runs all seven, ten times longer; Options.Paper runs the four for
// binderPaperDuration.
var (
	binderBenchesDefault = []string{"compress", "javac", "mpegaudio", "jack"}
	binderGrans          = []int64{500, 1000, 5000, 10000, 100000, 1000000}
)

// binderPaperDuration is a paper-length run: the four stand-ins execute
// 3.7–6.0·10⁸ bytecodes a simulated second (1 s, seed 1: compress 6.0,
// javac 4.8, jack 4.8, mpegaudio 3.7), so 20 s is 0.75–1.2·10¹⁰, the
// ≈ 10¹⁰ of Binder's SPECjvm98 runs at problem size 100.
const binderPaperDuration = 20 * sim.Second

// binderPaperNote is what Options.Paper runs for the grid's experiments.
const binderPaperNote = "the 4 default stand-ins for 20 s (≈ 10¹⁰ bytecodes a run, as the paper's), every granularity of a seed on one execution (samplers.KomoriumSet)"

func binderSetup(o Options) (benches []string, d sim.Time) {
	switch {
	case o.Paper:
		return binderBenchesDefault, binderPaperDuration
	case o.Full:
		return a2Benches, sim.Second
	}
	return binderBenchesDefault, 100 * sim.Millisecond
}

// komoriumRun is one Komorium run's accuracy and size against the exact
// bytecode CCT of the same execution.
type komoriumRun struct {
	overlap float64 // % of the exact bytecode CCT
	nodes   int     // nodes of the sampled CCT
	deltaB  float64 // (reported − executed) / executed bytecodes
	profile *profile.Profile
}

// komoriumKey is one run of bench for d with a passive Komorium (its
// instrumentation free, so the execution is the unprofiled one) at
// granularity gran, randomized (Binder's U[0, 100)) or not, with MaxPath
// off or at its default.
type komoriumKey struct {
	bench     string
	seed      uint64
	d         sim.Time
	gran      int64
	random    bool
	noMaxPath bool
}

func (k komoriumKey) run() (*komoriumRun, error) {
	bench := k.bench
	p, err := workloads.Get(bench)
	if err != nil {
		return nil, err
	}
	cfg := harness.DefaultConfig()
	cfg.Sim.Seed, cfg.Sim.Duration = k.seed, k.d
	cfg.Samplers = []string{"komorium"}
	kc := samplers.DefaultKomoriumConfig()
	kc.Granularity = k.gran
	if k.random {
		kc.Random = 100 // Binder: U[0, 100)
	}
	if k.noMaxPath {
		kc.Instrumentation.MaxPath = 0
	}
	cfg.Configure = func(s samplers.Sampler) {
		if x, ok := s.(*samplers.Komorium); ok {
			*x = *samplers.NewKomorium(x.Name(), kc)
		}
	}
	cfg.NoTruthProfile = true // compared with the exact bytecode CCT, not the truth profile
	out, err := harness.Run(p, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", bench, err)
	}
	kp := out.Profiles["komorium"]
	exact := harness.TruthBytecodeProfile(out.Result.Truth, out.Image)
	executed := float64(out.Result.Truth.BytecodeTotal())
	return &komoriumRun{
		overlap: 100 * profile.OverlapContexts(kp, exact),
		nodes:   len(kp.CCT().Nodes) - 1,
		deltaB:  (out.Costs["komorium"].Measures[samplers.ApproxTotalBytecodes] - executed) / executed,
		profile: kp,
	}, nil
}

// komoriumSetKey is the granularity grid of bench for d on one execution:
// a passive samplers.KomoriumSet with a member per granularity, constant
// and randomized (binderSetConfigs), MaxPath at its default. The members
// are the Komoriums alone on single-threaded stand-ins (the four of
// binderBenchesDefault), whose runs cost a twelfth.
type komoriumSetKey struct {
	bench string
	seed  uint64
	d     sim.Time
}

// binderSetConfigs are a komoriumSetKey's members, the granularities in
// binderGrans order, each constant then randomized.
func binderSetConfigs() []samplers.KomoriumConfig {
	var out []samplers.KomoriumConfig
	for _, g := range binderGrans {
		for _, random := range []bool{false, true} {
			kc := samplers.DefaultKomoriumConfig()
			kc.Granularity = g
			if random {
				kc.Random = 100 // Binder: U[0, 100)
			}
			out = append(out, kc)
		}
	}
	return out
}

func (k komoriumSetKey) run() ([]*komoriumRun, error) {
	p, err := workloads.Get(k.bench)
	if err != nil {
		return nil, err
	}
	set, err := samplers.NewKomoriumSet("komorium-set", binderSetConfigs())
	if err != nil {
		return nil, err
	}
	cfg := harness.DefaultConfig()
	cfg.Sim.Seed, cfg.Sim.Duration = k.seed, k.d
	cfg.Extra = []samplers.Sampler{set}
	cfg.NoTruthProfile = true // compared with the exact bytecode CCT, not the truth profile
	out, err := harness.Run(p, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k.bench, err)
	}
	exact := harness.TruthBytecodeProfile(out.Result.Truth, out.Image)
	executed := float64(out.Result.Truth.BytecodeTotal())
	results := set.Results()
	ps := make([]*profile.Profile, len(results))
	for i, r := range results {
		ps[i] = r.Profile
	}
	overlaps := profile.OverlapContextsWith(ps, exact)
	var runs []*komoriumRun
	for i, r := range results {
		runs = append(runs, &komoriumRun{
			overlap: 100 * overlaps[i],
			nodes:   len(r.Profile.CCT().Nodes) - 1,
			deltaB:  (r.Costs.Measures[samplers.ApproxTotalBytecodes] - executed) / executed,
		})
	}
	return runs, nil
}

type binderKey struct {
	bench  string
	gran   int64
	random bool
	seed   uint64
}

// binderGrid runs every (stand-in, granularity, constant/randomized, seed)
// (the runs cache makes that once: B1, B2, B3, B4, B5 and B6 read the same
// runs). On the four single-threaded default stand-ins (test and paper
// size) each (stand-in, seed) is one execution for every granularity
// (komoriumSetKey, the same figures as the runs one by one); Full's
// seven include the multi-threaded mtrt, where a set's members are
// 99.90–99.99 % of the Komoriums alone, so they run one by one.
func binderGrid(o Options) (map[binderKey]*komoriumRun, error) {
	benches, d := binderSetup(o)
	if o.Paper || !o.Full {
		var keys []komoriumSetKey
		for _, b := range benches {
			for _, s := range o.Seeds {
				keys = append(keys, komoriumSetKey{b, s, d})
			}
		}
		sets, err := runAll(o, keys)
		if err != nil {
			return nil, err
		}
		grid := map[binderKey]*komoriumRun{}
		cfgs := binderSetConfigs()
		for i, k := range keys {
			for j, c := range cfgs {
				grid[binderKey{k.bench, c.Granularity, c.Random > 0, k.seed}] = sets[i][j]
			}
		}
		return grid, nil
	}
	var keys []binderKey
	var runKeys []komoriumKey
	for _, b := range benches {
		for _, g := range binderGrans {
			for _, r := range []bool{false, true} {
				for _, s := range o.Seeds {
					keys = append(keys, binderKey{b, g, r, s})
					runKeys = append(runKeys, komoriumKey{bench: b, seed: s, d: d, gran: g, random: r})
				}
			}
		}
	}
	runs, err := runAll(o, runKeys)
	if err != nil {
		return nil, err
	}
	grid := map[binderKey]*komoriumRun{}
	for i, k := range keys {
		grid[k] = runs[i]
	}
	return grid, nil
}

// geoMean is the geometric mean (Binder's "geo. mean" column).
func geoMean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(v)))
}

func init() {
	register(Experiment{Name: "b1-constant", Claim: "B1", Title: "Binder Fig. 10a: accuracy vs constant granularity", Run: typed(func(o Options) (*BinderAccuracyResult, error) { return MeasureBinderAccuracy(o, false) }), Paper: binderPaperNote})
	register(Experiment{Name: "b2-randomized", Claim: "B2", Title: "Binder Fig. 10b: accuracy vs randomized granularity", Run: typed(func(o Options) (*BinderAccuracyResult, error) { return MeasureBinderAccuracy(o, true) }), Paper: binderPaperNote})
	register(Experiment{Name: "b5-bytecode-error", Claim: "B5", Title: "Binder Table I: error of the bytecode count the agent reports", Run: typed(MeasureB5), Paper: binderPaperNote})
	register(Experiment{Name: "b6-profile-size", Claim: "B6", Title: "Binder Fig. 11: profile size vs granularity", Run: typed(MeasureB6), Paper: binderPaperNote})
}

// BinderObs is one tidy observation of Binder's granularity grid: the
// Komorium run of Benchmark with Seed at Granularity (Random: plus
// U[0, 100)), its overlap (%) with the exact bytecode CCT, its CCT's
// nodes and DeltaB, the relative error of the bytecode count it reported.
type BinderObs struct {
	Benchmark   string
	Granularity int64
	Random      bool
	Seed        uint64
	OverlapPct  float64 `tidy:"overlap_pct"`
	Nodes       int
	DeltaB      float64 `tidy:"delta_b"`
}

// BinderGrid is the granularity grid's runs (binderGrid) as observations.
type BinderGrid struct {
	Seeds    []uint64
	Benches  []string
	Duration sim.Time
	Obs      []BinderObs
}

// measureBinderGrid runs (or reads from the cache) the grid.
func measureBinderGrid(o Options) (BinderGrid, error) {
	grid, err := binderGrid(o)
	if err != nil {
		return BinderGrid{}, err
	}
	benches, d := binderSetup(o)
	g := BinderGrid{Seeds: o.Seeds, Benches: benches, Duration: d}
	for _, b := range benches {
		for _, gr := range binderGrans {
			for _, r := range []bool{false, true} {
				for _, s := range o.Seeds {
					k := grid[binderKey{b, gr, r, s}]
					g.Obs = append(g.Obs, BinderObs{b, gr, r, s, k.overlap, k.nodes, k.deltaB})
				}
			}
		}
	}
	return g, nil
}

// of lists the runs of b at granularity gr, constant or randomized.
func (g *BinderGrid) of(b string, gr int64, random bool) []BinderObs {
	var out []BinderObs
	for _, x := range g.Obs {
		if x.Benchmark == b && x.Granularity == gr && x.Random == random {
			out = append(out, x)
		}
	}
	if out == nil {
		panic(fmt.Sprintf("study: the Binder grid has no runs of %s at %d (random %v)", b, gr, random))
	}
	return out
}

// Accuracy is the overlap (%) on b at gr over the seeds.
func (g *BinderGrid) Accuracy(b string, gr int64, random bool) Stat {
	var xs []float64
	for _, x := range g.of(b, gr, random) {
		xs = append(xs, x.OverlapPct)
	}
	return NewStat(xs)
}

// Geo is the geometric mean over the stand-ins of Accuracy's means.
func (g *BinderGrid) Geo(gr int64, random bool) float64 {
	var per []float64
	for _, b := range g.Benches {
		per = append(per, g.Accuracy(b, gr, random).Mean)
	}
	return geoMean(per)
}

// DeltaB is δb on b at constant granularity gr, mean over the seeds.
func (g *BinderGrid) DeltaB(b string, gr int64) float64 {
	var xs []float64
	for _, x := range g.of(b, gr, false) {
		xs = append(xs, x.DeltaB)
	}
	m, _ := MeanCI(xs)
	return m
}

// Size is the sampled CCTs' nodes at gr, summed over the stand-ins, mean
// over the seeds.
func (g *BinderGrid) Size(gr int64, random bool) float64 {
	var n float64
	for _, b := range g.Benches {
		for _, x := range g.of(b, gr, random) {
			n += float64(x.Nodes) / float64(len(g.Seeds))
		}
	}
	return n
}

// obs lists the observations with the given randomization.
func (g *BinderGrid) obs(random bool) []BinderObs {
	var out []BinderObs
	for _, x := range g.Obs {
		if x.Random == random {
			out = append(out, x)
		}
	}
	return out
}

// BinderAccuracyResult is Fig. 10a (constant) or 10b (randomized).
type BinderAccuracyResult struct {
	BinderGrid
	Random bool
}

// MeasureBinderAccuracy is Fig. 10a (constant) or 10b (randomized):
// overlap of Komorium's CCT with the exact bytecode CCT per stand-in and
// granularity. B3 (which stand-ins are hard) reads Fig. 10a's.
func MeasureBinderAccuracy(o Options, random bool) (*BinderAccuracyResult, error) {
	g, err := measureBinderGrid(o)
	return &BinderAccuracyResult{g, random}, err
}

func (r *BinderAccuracyResult) render() (*Result, error) {
	benches, d, random := r.Benches, r.Duration, r.Random
	kind := "constant"
	if random {
		kind = "randomized (+U[0, 100))"
	}
	cols := []string{"granularity"}
	cols = append(cols, benches...)
	t := &Table{Title: fmt.Sprintf("Accuracy (%% overlap with the exact bytecode CCT), %s granularity", kind), Columns: append(cols, "geo. mean")}
	res := &Result{Table: t, Tidy: tidyOf(r.obs(random))}
	lines := map[string]*errPoints{}
	for _, b := range append(append([]string(nil), benches...), "geo. mean") {
		lines[b] = &errPoints{}
	}
	for _, g := range binderGrans {
		cells := []any{g}
		for _, b := range benches {
			m := r.Accuracy(b, g, random)
			cells = append(cells, fmt.Sprintf("%.1f ± %.1f", m.Mean, m.CI))
			lines[b].add(math.Log10(float64(g)), m)
		}
		gm := r.Geo(g, random)
		// The geometric mean over stand-ins: a line without error bars.
		lines["geo. mean"].XYs = append(lines["geo. mean"].XYs, plotter.XY{X: math.Log10(float64(g)), Y: gm})
		t.AddRow(append(cells, fmt.Sprintf("%.1f", gm))...)
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Komorium passive (instrumentation free, so every granularity sees the same execution), MaxPath 50, leaf optimisation and cached path on; %v per run, seeds %v. Paper (SPECjvm98, problem size 100): constant best around 5 000–10 000 with dips at 500–1 000 on periodic programs; randomized geo. mean > 96 %% at 500 and non-increasing.", d, r.Seeds))
	p := plot.New()
	p.Title.Text = "Accuracy vs " + kind + " granularity (mean ± 95 % CI over seeds)"
	p.X.Label.Text = "log10(granularity / bytecodes)"
	p.Y.Label.Text = "overlap with the exact CCT (%)"
	for i, b := range append(append([]string(nil), benches...), "geo. mean") {
		if err := lines[b].addTo(p, series{Label: b, Style: i, Line: true, Dashes: plotutil.Dashes(i)}); err != nil {
			return nil, err
		}
	}
	p.Y.Min, p.Y.Max = 0, 140 // room for the legend above the data
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 25, Label: "25"}, {Value: 50, Label: "50"}, {Value: 75, Label: "75"}, {Value: 100, Label: "100"}})
	p.Legend.Top = true
	res.Figure = p
	return res, nil
}

// B5Result is Table I: δb per stand-in and constant granularity.
type B5Result struct{ BinderGrid }

// MeasureB5 reads δb, the relative error of the total bytecode count the
// agent was told, from the grid.
func MeasureB5(o Options) (*B5Result, error) {
	g, err := measureBinderGrid(o)
	return &B5Result{g}, err
}

func (r *B5Result) render() (*Result, error) {
	benches := r.Benches
	hdr, rows := readReference("binder2006_tableI_bytecode_error.csv")
	ref := map[string][]string{} // by granularity
	for _, row := range rows {
		ref[row[0]] = row
	}
	col := map[string]int{}
	for i, h := range hdr {
		col[h] = i
	}
	cols := []string{"granularity"}
	for _, b := range benches {
		cols = append(cols, b, b+" (paper)")
	}
	t := &Table{Title: "δb = (reported − executed) / executed bytecodes, constant granularity (mean over seeds)", Columns: cols}
	for _, g := range binderGrans {
		cells := []any{g}
		for _, b := range benches {
			paper := ""
			if row, ok := ref[fmt.Sprint(g)]; ok {
				if i, ok := col[b]; ok && i < len(row) {
					paper = row[i]
				}
			}
			cells = append(cells, fmt.Sprintf("%.1e", r.DeltaB(b, g)), paper)
		}
		t.AddRow(cells...)
	}
	t.Notes = append(t.Notes, "Negative: each thread's bytecodes after its last sample are never reported (the tail grows with the granularity; our runs stop at a time limit, which cuts every thread's tail, where the paper's benchmarks ran to completion). Positive: a basic block cut short by an exception was counted whole.")
	return &Result{Table: t, Tidy: tidyOf(r.obs(false))}, nil
}

// B6Result is Fig. 11: the sampled CCT's size per granularity.
type B6Result struct{ BinderGrid }

// MeasureB6 reads the sampled CCTs' sizes from the grid.
func MeasureB6(o Options) (*B6Result, error) {
	g, err := measureBinderGrid(o)
	return &B6Result{g}, err
}

func (r *B6Result) render() (*Result, error) {
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
			m := NewStat(perSeed)
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
	p.Y.Min, p.Y.Max = 0, 1.1*top
	p.Legend.Top = true // the sizes fall to the right: the top right is empty
	p.Legend.Padding = vg.Points(3)
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(6), -vg.Points(6)
	res.Figure = p
	return res, nil
}

func init() {
	register(Experiment{Name: "b4-maxpath", Claim: "B4", Title: "Binder §6: accuracy with and without MaxPath", Run: typed(MeasureB4)})
	register(Experiment{Name: "b7-overhead", Claim: "B7", Title: "Binder Fig. 12–15: overhead vs granularity and the instrumentation floor", Run: typed(MeasureB7)})
	register(Experiment{Name: "b8-timer-short-runs", Claim: "B8", Title: "Binder Fig. 16: a 1 ms timer sampler on short runs", Run: typed(MeasureB8)})
	register(Experiment{Name: "b9-reproducible", Claim: "B9", Title: "Binder §1/§7: the same granularity gives the same profile on any CPU and load", Run: typed(MeasureB9)})
}

// B4Obs is one tidy observation of B4: Komorium's overlap (%) with the
// exact bytecode CCT at granularity 10 000 on Benchmark with Seed, MaxPath
// 50 or 0 (off).
type B4Obs struct {
	Benchmark  string
	Seed       uint64
	MaxPath    int
	OverlapPct float64 `tidy:"overlap_pct"`
}

// B4Result is B4's runs.
type B4Result struct {
	Seeds   []uint64
	Benches []string
	Obs     []B4Obs
}

// Accuracy is the overlap on b with MaxPath mp over the seeds.
func (r *B4Result) Accuracy(b string, mp int) Stat {
	var xs []float64
	for _, x := range r.Obs {
		if x.Benchmark == b && x.MaxPath == mp {
			xs = append(xs, x.OverlapPct)
		}
	}
	if xs == nil {
		panic(fmt.Sprintf("study: B4 has no runs of %s with MaxPath %d", b, mp))
	}
	return NewStat(xs)
}

// Loss is the accuracy (points) b loses with MaxPath off.
func (r *B4Result) Loss(b string) float64 {
	return r.Accuracy(b, 50).Mean - r.Accuracy(b, 0).Mean
}

// MeasureB4: accuracy at granularity 10 000 with MaxPath 50 (from the
// grid) and with MaxPath off (a check only at returns, calls and loop
// heads).
func MeasureB4(o Options) (*B4Result, error) {
	grid, err := binderGrid(o)
	if err != nil {
		return nil, err
	}
	benches, d := binderSetup(o)
	const g = 10000
	var keys []komoriumKey
	for _, b := range benches {
		for _, s := range o.Seeds {
			keys = append(keys, komoriumKey{bench: b, seed: s, d: d, gran: g, noMaxPath: true})
		}
	}
	off, err := runAll(o, keys)
	if err != nil {
		return nil, err
	}
	res := &B4Result{Seeds: o.Seeds, Benches: benches}
	for i, k := range keys {
		res.Obs = append(res.Obs, B4Obs{k.bench, k.seed, 50, grid[binderKey{k.bench, g, false, k.seed}].overlap},
			B4Obs{k.bench, k.seed, 0, off[i].overlap})
	}
	return res, nil
}

func (r *B4Result) render() (*Result, error) {
	t := &Table{Title: "Accuracy (%) at granularity 10 000, MaxPath 50 vs off (mean ± 95 % CI over seeds)", Columns: []string{"benchmark", "MaxPath 50", "MaxPath off", "loss (points)"}}
	for _, b := range r.Benches {
		on, no := r.Accuracy(b, 50), r.Accuracy(b, 0)
		t.AddRow(b, fmt.Sprintf("%.1f ± %.1f", on.Mean, on.CI), fmt.Sprintf("%.1f ± %.1f", no.Mean, no.CI), fmt.Sprintf("%+.1f", on.Mean-no.Mean))
	}
	t.Notes = append(t.Notes, "Paper: MaxPath matters on mpegaudio (large basic blocks), ≈ 5 points; elsewhere it changes nothing. Without it a sample is only taken at a check after the whole block, so long blocks collect the samples of the code they span.")
	return &Result{Table: t, Tidy: tidyOf(r.Obs)}, nil
}

// b7Config is one B7 configuration: unprofiled, or a costed Komorium at
// granularity gran with the leaf-method optimisation on or off.
type b7Config struct {
	name    string
	gran    int64
	leafOpt bool
	profile bool
}

// b7Key is one B7 run: bench for d under cfg; its result the bytecodes
// executed.
type b7Key struct {
	bench string
	seed  uint64
	d     sim.Time
	cfg   b7Config
}

func (k b7Key) run() (float64, error) {
	p, err := workloads.Get(k.bench)
	if err != nil {
		return 0, err
	}
	cfg := harness.DefaultConfig()
	cfg.Sim.Seed, cfg.Sim.Duration = k.seed, k.d
	c := k.cfg
	if c.profile {
		cfg.Samplers, cfg.Mode = []string{"komorium"}, samplers.Costed
		kc := samplers.DefaultKomoriumConfig()
		kc.Granularity, kc.Instrumentation.LeafOpt = c.gran, c.leafOpt
		cfg.Configure = func(s samplers.Sampler) {
			if km, ok := s.(*samplers.Komorium); ok {
				*km = *samplers.NewKomorium(km.Name(), kc)
			}
		}
	}
	cfg.NoTruthProfile = true // only the bytecodes executed are read
	cfg.TruthPerMethod = true
	out, err := harness.Run(p, cfg)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", k.bench, c.name, err)
	}
	return float64(out.Result.Truth.BytecodeTotal()), nil
}

// MeasureB7: costed Komorium, overhead = extra simulated time per unit of
// work over the unprofiled run, for each granularity, the
// instrumentation alone ("No Prof.": a granularity no run reaches), and
// the instrumentation alone without the leaf-method optimisation.
func MeasureB7(o Options) (*B7Result, error) {
	benches := []string{"compress", "javac"}
	d := 100 * sim.Millisecond
	if o.Full {
		benches, d = a2Benches, sim.Second
	}
	// never is komorium's largest granularity (its key's range): a
	// simulated second executes about 10⁹ bytecodes, so no run reaches it.
	const never = 1_000_000_000_000_000_000
	cfgs := []b7Config{{"unprofiled", 0, true, false}}
	for _, g := range []int64{1000, 10000, 100000} {
		cfgs = append(cfgs, b7Config{fmt.Sprint(g), g, true, true})
	}
	cfgs = append(cfgs, b7Config{"No Prof.", never, true, true}, b7Config{"No Prof., no leaf opt.", never, false, true})
	var keys []b7Key
	for _, b := range benches {
		for _, s := range o.Seeds {
			for _, c := range cfgs {
				keys = append(keys, b7Key{b, s, d, c})
			}
		}
	}
	work, err := runAll(o, keys)
	if err != nil {
		return nil, err
	}
	res := &B7Result{Seeds: o.Seeds, Benches: benches, Duration: d}
	for _, c := range cfgs[1:] {
		res.Configs = append(res.Configs, c.name)
	}
	base := map[[2]any]float64{}
	for i, k := range keys {
		if k.cfg == cfgs[0] {
			base[[2]any{k.bench, k.seed}] = work[i]
		}
	}
	for i, k := range keys {
		if k.cfg == cfgs[0] {
			continue
		}
		b0 := base[[2]any{k.bench, k.seed}]
		res.Obs = append(res.Obs, B7Obs{k.bench, k.seed, k.cfg.name, b0, work[i], 100 * (b0/work[i] - 1)})
	}
	return res, nil
}

// B7Obs is one tidy observation of B7: the bytecodes Benchmark executed
// with Seed unprofiled (BaseBytecodes) and under Config (a granularity,
// "No Prof." or "No Prof., no leaf opt."), and the overhead (%).
type B7Obs struct {
	Benchmark     string
	Seed          uint64
	Config        string
	BaseBytecodes float64 `tidy:"base_bytecodes"`
	Bytecodes     float64
	OverheadPct   float64 `tidy:"overhead_pct"`
}

// B7Result is B7's runs.
type B7Result struct {
	Seeds    []uint64
	Benches  []string
	Configs  []string
	Duration sim.Time
	Obs      []B7Obs
}

// Overhead is the overhead (%) on b under config c over the seeds.
func (r *B7Result) Overhead(b, c string) Stat {
	var xs []float64
	for _, x := range r.Obs {
		if x.Benchmark == b && x.Config == c {
			xs = append(xs, x.OverheadPct)
		}
	}
	if xs == nil {
		panic(fmt.Sprintf("study: B7 has no runs of %s under %q", b, c))
	}
	return NewStat(xs)
}

func (r *B7Result) render() (*Result, error) {
	benches, d := r.Benches, r.Duration
	cols := append([]string{"benchmark"}, r.Configs...)
	t := &Table{Title: "Overhead (%): time per bytecode relative to the unprofiled run (mean ± 95 % CI over seeds)", Columns: cols}
	res := &Result{Table: t, Tidy: tidyOf(r.Obs)}
	for _, b := range benches {
		cells := []any{b}
		for _, c := range r.Configs {
			m := r.Overhead(b, c)
			cells = append(cells, fmt.Sprintf("%.1f ± %.1f", m.Mean, m.CI))
		}
		t.AddRow(cells...)
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Komorium costed (counting, checks, reified stack and the agent on the sampled thread; costs in samplers.DefaultKomoriumConfig), %v per run; a fixed simulated time, so overhead = unprofiled bytecodes / profiled bytecodes − 1. Paper (Sun JDK 1.5 server): at 10 000 a few tens of percent above the No Prof. floor; the leaf optimisation removes ≈ 25 %% of the floor on average.", d))
	// Figure: each configuration's overhead per stand-in, mean and 95 %
	// CI over seeds.
	p := plot.New()
	p.Title.Text = "B7: Komorium overhead by configuration (mean ± 95 % CI over seeds)"
	p.X.Label.Text = "stand-in"
	p.Y.Label.Text = "overhead: time per bytecode over unprofiled (%)"
	top := 0.0
	for ci, c := range r.Configs {
		var pts errPoints
		for bi, b := range benches {
			m := r.Overhead(b, c)
			h := pts.add(float64(bi)-0.3+0.6*float64(ci)/float64(max(len(r.Configs)-1, 1)), m)
			top = math.Max(top, m.Mean+h)
		}
		name := c
		if g, err := strconv.Atoi(c); err == nil {
			name = fmt.Sprintf("granularity %d", g)
		}
		if err := pts.addTo(p, series{Label: name, Style: ci, Radius: vg.Points(3.5)}); err != nil {
			return nil, err
		}
	}
	p.NominalX(benches...)
	p.X.Min, p.X.Max = -0.5, float64(len(benches))-0.5
	p.Y.Min, p.Y.Max = 0, 1.7*top // room for the legend above the data
	p.Legend.Top = true
	p.Legend.Padding = vg.Points(2)
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(6), -vg.Points(4)
	res.Figure = p
	return res, nil
}

// B8Obs is one tidy observation of B8: on Benchmark with Seed, the
// overlap (%) of the 1 ms timer sampler with the exact CPU-time CCT and
// of Komorium (10 000) with the exact bytecode CCT.
type B8Obs struct {
	Benchmark   string
	Seed        uint64
	TimerPct    float64 `tidy:"timer_pct"`
	KomoriumPct float64 `tidy:"komorium_pct"`
}

// B8Result is B8's runs.
type B8Result struct {
	Seeds    []uint64
	Benches  []string
	Duration sim.Time
	Obs      []B8Obs
}

// of lists benchmark b's runs.
func (r *B8Result) of(b string) []B8Obs {
	var out []B8Obs
	for _, x := range r.Obs {
		if x.Benchmark == b {
			out = append(out, x)
		}
	}
	if out == nil {
		panic("study: B8 has no runs of " + b)
	}
	return out
}

// Timer and Komorium are the two profilers' overlap on b over the seeds.
func (r *B8Result) Timer(b string) Stat {
	var xs []float64
	for _, x := range r.of(b) {
		xs = append(xs, x.TimerPct)
	}
	return NewStat(xs)
}

func (r *B8Result) Komorium(b string) Stat {
	var xs []float64
	for _, x := range r.of(b) {
		xs = append(xs, x.KomoriumPct)
	}
	return NewStat(xs)
}

// TimerMean is the timer's overlap, mean over the stand-ins.
func (r *B8Result) TimerMean() float64 {
	var m float64
	for _, b := range r.Benches {
		m += r.Timer(b).Mean / float64(len(r.Benches))
	}
	return m
}

// MeasureB8: a timer-driven safepoint sampler at 1 ms with depth 100
// (hprof's setting in Binder's comparison) on the short -small
// stand-ins, against the exact CPU-time CCT, next to Komorium at 10 000
// against the exact bytecode CCT.
func MeasureB8(o Options) (*B8Result, error) {
	benches := []string{"compress-small", "jess-small", "javac-small", "jack-small"}
	d := 60 * sim.Millisecond
	if o.Full {
		benches = nil
		for _, b := range a2Benches {
			benches = append(benches, b+"-small")
		}
	}
	var timer []b8Key
	var kom []komoriumKey
	for _, b := range benches {
		for _, s := range o.Seeds {
			timer = append(timer, b8Key{b, s, d})
			kom = append(kom, komoriumKey{bench: b, seed: s, d: d, gran: samplers.DefaultKomoriumConfig().Granularity})
		}
	}
	tv, err := runAll(o, timer)
	if err != nil {
		return nil, err
	}
	kv, err := runAll(o, kom)
	if err != nil {
		return nil, err
	}
	res := &B8Result{Seeds: o.Seeds, Benches: benches, Duration: d}
	for i, k := range timer {
		res.Obs = append(res.Obs, B8Obs{k.bench, k.seed, tv[i], kv[i].overlap})
	}
	return res, nil
}

// b8Key is one B8 timer run: bench for d with a 1 ms safepoint sampler
// at depth 100; its result the sampler's % CCT overlap with the truth.
type b8Key struct {
	bench string
	seed  uint64
	d     sim.Time
}

func (k b8Key) run() (float64, error) {
	p, err := workloads.Get(k.bench)
	if err != nil {
		return 0, err
	}
	cfg := harness.DefaultConfig()
	cfg.Sim.Seed, cfg.Sim.Duration = k.seed, k.d
	cfg.Samplers = []string{"safepoint"}
	cfg.Configure = func(sm samplers.Sampler) {
		if sp, ok := sm.(*samplers.Safepoint); ok && sp.Name() == "safepoint" {
			c := sp.Config()
			c.Interval, c.Depth = sim.Millisecond, 100
			*sp = *samplers.NewSafepoint("safepoint", c)
		}
	}
	out, err := harness.Run(p, cfg)
	if err != nil {
		return 0, err
	}
	return 100 * profile.OverlapContexts(out.Profiles["safepoint"], out.Profiles["truth"]), nil
}

func (r *B8Result) render() (*Result, error) {
	t := &Table{Title: "Accuracy (% CCT overlap) on short runs: 1 ms safepoint timer sampler vs Komorium (mean ± 95 % CI over seeds)", Columns: []string{"benchmark", "timer 1 ms, depth 100", "komorium 10 000"}}
	for _, b := range r.Benches {
		tm, km := r.Timer(b), r.Komorium(b)
		t.AddRow(b, fmt.Sprintf("%.1f ± %.1f", tm.Mean, tm.CI), fmt.Sprintf("%.1f ± %.1f", km.Mean, km.CI))
	}
	t.Notes = append(t.Notes, fmt.Sprintf("%v per run (short runs: ≈ %d timer samples). Paper: hprof at 1 ms reached < 7 %% overlap with the exact CPU-time CCT on SPECjvm98.", r.Duration, r.Duration/sim.Millisecond))
	return &Result{Table: t, Tidy: tidyOf(r.Obs)}, nil
}

// b9Variants are the CPUs B9 runs on: speed (percent of 1 GHz) and count.
var b9Variants = []struct {
	name        string
	speed, cpus int64
}{{"1 GHz, 4 CPUs", 100, 4}, {"2.5 GHz, 4 CPUs", 250, 4}, {"400 MHz, 4 CPUs", 40, 4}, {"1 GHz, 1 CPU", 100, 1}}

// B9Obs is one tidy observation of B9: the run of Program with Seed on
// Variant, each profiler's CCT overlap (%) with its profile on the first
// variant and whether it is identical (same stacks, same counts).
type B9Obs struct {
	Program           string
	Seed              uint64
	Variant           string
	KomoriumPct       float64 `tidy:"komorium_pct"`
	KomoriumIdentical bool
	TprofPct          float64 `tidy:"tprof_pct"`
	TprofIdentical    bool
}

// B9Result is B9's runs.
type B9Result struct {
	Seeds []uint64
	Obs   []B9Obs
}

// Compared lists the observations on the variants after the first.
func (r *B9Result) Compared() []B9Obs {
	var out []B9Obs
	for _, x := range r.Obs {
		if x.Variant != b9Variants[0].name {
			out = append(out, x)
		}
	}
	return out
}

// MeasureB9: Komorium at constant granularity gives identical profiles
// under different CPU speeds and loads (one CPU shared with the VM's
// threads); tprof's differ. The programs run to their end, so every
// variant executes the same bytecodes.
func MeasureB9(o Options) (*B9Result, error) {
	progs := []string{"sqsum", "deepcall"}
	var keys []b9Key
	for _, prog := range progs {
		for _, seed := range o.Seeds {
			for vi := range b9Variants {
				keys = append(keys, b9Key{prog, seed, vi})
			}
		}
	}
	runs, err := runAll(o, keys)
	if err != nil {
		return nil, err
	}
	res := &B9Result{Seeds: o.Seeds}
	var ref *b9Run
	for i, k := range keys {
		r := runs[i]
		if k.variant == 0 {
			ref = r
		}
		res.Obs = append(res.Obs, B9Obs{k.prog, k.seed, b9Variants[k.variant].name, 100 * profile.OverlapContexts(ref.komorium, r.komorium), sameSamples(ref.komorium, r.komorium),
			100 * profile.OverlapContexts(ref.tprof, r.tprof), sameSamples(ref.tprof, r.tprof)})
	}
	return res, nil
}

// b9Key is one B9 run: prog to its end on b9Variants[variant] with
// komorium and tprof.
type b9Key struct {
	prog    string
	seed    uint64
	variant int
}

// b9Run is a B9 run's two profiles.
type b9Run struct{ komorium, tprof *profile.Profile }

func (k b9Key) run() (*b9Run, error) {
	p, err := workloads.Get(k.prog)
	if err != nil {
		return nil, err
	}
	v := b9Variants[k.variant]
	cfg := harness.DefaultConfig()
	cfg.Sim.Seed, cfg.Sim.Duration = k.seed, 20*sim.Second // to the end
	cfg.Sim.Cost.SpeedPercent, cfg.Sim.CPUs = v.speed, int(v.cpus)
	cfg.Samplers = []string{"komorium", "tprof"}
	cfg.NoTruthProfile = true // only the samplers' profiles are compared
	cfg.TruthPerMethod = true
	out, err := harness.Run(p, cfg)
	if err != nil {
		return nil, err
	}
	return &b9Run{out.Profiles["komorium"], out.Profiles["tprof"]}, nil
}

func (r *B9Result) render() (*Result, error) {
	t := &Table{Title: "Does the profile change with the CPU? (CCT overlap with the first variant's profile, %)", Columns: []string{"program", "variant", "komorium 10 000", "komorium identical", "tprof 10 ms"}}
	for _, x := range r.Obs {
		if x.Seed == r.Seeds[0] {
			t.AddRow(x.Program, x.Variant, fmt.Sprintf("%.2f", x.KomoriumPct), fmt.Sprint(x.KomoriumIdentical), fmt.Sprintf("%.2f", x.TprofPct))
		}
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Binder's sqSum and a deep call chain, run to their end; seeds %v (rows for the first). 'identical': the same stacks with the same sample counts.", r.Seeds))
	return &Result{Table: t, Tidy: tidyOf(r.Obs)}, nil
}

// sameSamples reports whether two profiles hold the same stacks with the
// same counts.
func sameSamples(a, b *profile.Profile) bool {
	ca, cb := a.ContextWeights(), b.ContextWeights()
	if len(ca) != len(cb) {
		return false
	}
	for k, v := range ca {
		if cb[k] != v {
			return false
		}
	}
	return true
}
