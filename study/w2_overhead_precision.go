package study

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "w2-overhead-precision", Claim: "W2", Title: "Whaley §6 tables: overhead and precision of hot-method counters and the PCCT at 1, 10 and 100 ms", Run: typed(measureW2)})
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
	Speed  float64
	End    sim.Time
	Counts map[string]float64
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
	s := paperSpec(bench, seed, 2*set)
	s.CPUs, s.Truth = cpus, "methods"
	if prof != "" {
		// A perfect clock (whaleyClock): the two profilers' runs of one
		// seed are paired tick for tick.
		s.Samplers = []string{fmt.Sprintf("%s,interval=%s,count_from=%s,jitter=0", prof, param.FormatDuration(iv), param.FormatDuration(set))}
		s.Mode = samplers.Costed
	}
	p, _, err := s.Load()
	if err != nil {
		return nil, err
	}
	cfg, err := s.Config()
	if err != nil {
		return nil, err
	}
	cfg.NoTruthProfile = true // only the bytecodes executed are read
	rig, err := harness.Build(p, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s %s %v seed %d: %w", bench, prof, iv, seed, err)
	}
	if err := rig.Run(); err != nil {
		return nil, fmt.Errorf("%s %s %v seed %d: %w", bench, prof, iv, seed, err)
	}
	out, err := rig.Collect()
	if err != nil {
		return nil, fmt.Errorf("%s %s %v seed %d: %w", bench, prof, iv, seed, err)
	}
	// The instance's contexts with their edge counts, which its profile
	// does not carry.
	pc, _ := rig.Sampler(prof).(samplers.ContextTree)
	r := &w2Run{Speed: float64(out.Result.Truth.BytecodeTotal()) / out.Result.End.Seconds(), End: out.Result.End}
	if pc != nil {
		r.Counts = map[string]float64{}
		for _, c := range pc.Contexts() {
			if c.Count > 0 {
				r.Counts["n:"+c.Path] += float64(c.Count)
			}
			if c.Edge > 0 {
				r.Counts["e:"+c.Path] += float64(c.Edge)
			}
		}
	}
	return r, nil
}

// w2Obs is one tidy observation of W2 on Benchmark with CPUs: Measure
// "speed" (bytecodes per simulated second of the run with Seed; Profiler
// "none" for the unprofiled run, IntervalMs 0) or "precision" (Pearson's
// r of the second data sets of the runs with Seed and OtherSeed).
type w2Obs struct {
	Benchmark  string
	CPUs       int `tidy:"cpus"`
	Profiler   string
	IntervalMs float64 `tidy:"interval_ms"`
	Seed       uint64
	OtherSeed  uint64
	Measure    string
	Value      float64
}

// w2Result is W2's runs and precision pairs.
type w2Result struct {
	Seeds   []uint64
	Benches []string
	CPUs    []int
	Set     sim.Time // a data set's length; a run is two
	// ShortRuns counts the runs whose program ended inside the second
	// data set.
	ShortRuns, Runs int
	Obs             []w2Obs
}

// speed is the speed of the run of b on cpus with seed under profiler
// pr ("none": unprofiled) at iv.
func (r *w2Result) speed(b string, cpus int, seed uint64, pr string, iv sim.Time) float64 {
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
func (r *w2Result) Overhead(pr string, cpus int, b string, iv sim.Time) stat {
	var xs []float64
	for _, seed := range r.Seeds {
		xs = append(xs, 100*(r.speed(b, cpus, seed, "none", 0)/r.speed(b, cpus, seed, pr, iv)-1))
	}
	return newStat(xs)
}

// Extra is the PCCT's overhead over hot methods' (points) on b with cpus
// at iv, paired by seed.
func (r *w2Result) Extra(cpus int, b string, iv sim.Time) stat {
	var xs []float64
	for _, seed := range r.Seeds {
		base := r.speed(b, cpus, seed, "none", 0)
		xs = append(xs, 100*(base/r.speed(b, cpus, seed, w2Profilers[1], iv)-base/r.speed(b, cpus, seed, w2Profilers[0], iv)))
	}
	return newStat(xs)
}

// Precision is profiler pr's precision on b with cpus at iv, over the
// seed pairs.
func (r *w2Result) Precision(pr string, cpus int, b string, iv sim.Time) stat {
	obs := mustWhere(r.Obs, func(x w2Obs) bool {
		return x.Measure == "precision" && x.Benchmark == b && x.CPUs == cpus && x.Profiler == pr && x.IntervalMs == iv.Seconds()*1e3
	}, "W2 has no precision of %s/%d/%s/%v", pr, cpus, b, iv)
	return newStat(values(obs, func(x w2Obs) float64 { return x.Value }))
}

// measureW2: costed runs two data sets long; overhead from the speed
// against the unprofiled run of the same seed, precision as the
// correlation of the second data sets of runs with different seeds
// (Whaley's successive runs).
func measureW2(o Options) (*w2Result, error) {
	if len(o.Seeds) < 2 {
		return nil, fmt.Errorf("%w: w2-overhead-precision: precision is the correlation of two runs with different seeds: it needs at least 2 seeds, got %d", ErrOptions, len(o.Seeds))
	}
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
	res := &w2Result{Seeds: o.Seeds, Benches: benches, CPUs: cpuss, Set: set, Runs: len(runs)}
	get := map[key]*w2Run{}
	for i, k := range keys {
		get[k] = runs[i]
		if runs[i].End < 2*set {
			res.ShortRuns++
		}
		pr, ms := k.prof, k.iv.Seconds()*1e3
		if pr == "" {
			pr = "none"
		}
		res.Obs = append(res.Obs, w2Obs{k.bench, k.cpus, pr, ms, o.Seeds[k.seed], 0, "speed", runs[i].Speed})
	}
	for _, b := range benches {
		for _, c := range cpuss {
			for _, pr := range w2Profilers {
				for _, iv := range w2Intervals {
					for si := range o.Seeds {
						for sj := si + 1; sj < len(o.Seeds); sj++ {
							_, x, y := profile.Align(get[key{b, c, si, pr, iv}].Counts, get[key{b, c, sj, pr, iv}].Counts)
							res.Obs = append(res.Obs, w2Obs{b, c, pr, iv.Seconds() * 1e3, o.Seeds[si], o.Seeds[sj], "precision", whaleyPearson(x, y)})
						}
					}
				}
			}
		}
	}
	return res, nil
}

func (r *w2Result) render() (*Result, error) {
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
		fmt.Sprintf("Each profiler costed and alone (its sampler thread and the suspension of each sampled thread: %v a sample + %v a frame examined, samplers.DefaultPCCTConfig; on a perfect clock, jitter=0: Whaley's timers are not measured here, and the runs are paired by seed), seeds %v, %v runs = two profile data sets of %v (Whaley resets the data every few seconds and correlates the second set so that run length does not matter). Overhead = speed (bytecodes per simulated second) of the unprofiled run with the same seed / the profiled run's − 1. Precision: Pearson correlation, over the union of keys, of hot-method counts (hotmethods) or of PCCT node counts and edge weights by calling context (pcct), between the second data sets of two runs with different seeds; the paper reports geometric means, shown in the summary row where every value is positive.", samplers.DefaultPCCTConfig().PerSample, samplers.DefaultPCCTConfig().PerFrame, r.Seeds, 2*set, set))
	t.Notes = append(t.Notes, discussion("w2-overhead-precision")...)
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
	ovh.Title.Text = "W2: overhead"
	ovh.Y.Label.Text = "overhead over the unprofiled run (%)" // a log scale relabels it below
	prec.Title.Text = "W2: precision"
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
		ovh, pre []stat
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
				m := newStat(perSeed)
				w.ovh = append(w.ovh, m)
				w.pre = append(w.pre, newStat(r.pairPrecisions(pr, c, iv)))
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
		ovh.Y.Min, ovh.Y.Max = math.Floor(math.Log10(lo)), math.Ceil(math.Log10(top))
		var ticks []plot.Tick
		for e := math.Ceil(ovh.Y.Min); e <= ovh.Y.Max; e++ {
			ticks = append(ticks, plot.Tick{Value: e, Label: strconv.FormatFloat(math.Pow(10, e), 'f', -1, 64)})
		}
		ovh.Y.Tick.Marker = plot.ConstantTicks(ticks)
	} else {
		ovh.Y.Min, ovh.Y.Max = math.Min(0, lo), top
	}
	// The panels share their series: one legend, beside the right panel.
	ovh.Legend = plot.NewLegend()
	if err := addRefLines(prec, 0.8, 125, refLine{1, "identical data sets (r = 1)"}, refLine{0, "no correlation (r = 0)"}); err != nil {
		return nil, err
	}
	prec.Y.Min, prec.Y.Max = -1, 1
	res.Figure = newFigure("Whaley's two samplers, hot-method counters (hotmethods) and the PCCT, against the sampling interval on 1 and more CPUs: the overhead (left; mean over stand-ins, ± CI over seeds) and the precision (right; the Pearson correlation r of the profiles of two runs with different seeds, mean over stand-ins, ± CI over seed pairs). PCCT = partial calling context tree. CPU = central processing unit (processor). "+captionCI, ovh, prec)
	return res, nil
}

// pairPrecisions lists, per pair of seeds, pr's precision with cpus at iv
// averaged over the stand-ins.
func (r *w2Result) pairPrecisions(pr string, cpus int, iv sim.Time) []float64 {
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
