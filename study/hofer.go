package study

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
)

func init() {
	register(Experiment{Name: "h1-overhead", Claim: "H1", Title: "Hofer et al. Fig. 9/10: overhead of JVMTI, SPS and ISPS at 10, 1 and 0.1 ms on the multi-threaded stand-ins", Run: typed(MeasureH1)})
	register(Experiment{Name: "h2-latency", Claim: "H2", Title: "Hofer et al. Fig. 11: sampling latency of JVMTI, SPS and ISPS at 1 ms", Run: typed(MeasureH2)})
	register(Experiment{Name: "h3-samples", Claim: "H3", Title: "Hofer et al. §7.2: samples JVMTI takes at 0.1 ms vs 1 ms on the CPU-heavy stand-ins", Run: typed(MeasureH3)})
	register(Experiment{Name: "h4-short-lived", Claim: "H4", Title: "Hofer et al. §7.1 (tmt): ISPS must retrieve every ending thread's traces at a full safepoint", Run: typed(MeasureH4)})
	register(Experiment{Name: "h5-stability", Claim: "H5", Title: "Hofer et al. Fig. 12: overlap and hot-edge coverage of per-iteration CCTs with the average CCT", Run: typed(MeasureH5), Paper: hoferPaperNote})
	register(Experiment{Name: "h6-agreement", Claim: "H6", Title: "Hofer et al. Fig. 13: overlap and hot-edge coverage between the techniques' average CCTs", Run: typed(MeasureH6), Paper: hoferPaperNote})
	register(Experiment{Name: "h7-frames-decoded", Claim: "H7", Title: "Hofer et al. §5: incremental stack tracing decodes each frame once", Run: typed(MeasureH7)})
}

// hoferTechniques are the paper's three sampling techniques, in its order.
var hoferTechniques = []string{"jvmti", "sps", "isps"}

// hoferIntervals are the paper's sampling intervals (Fig. 9/10).
var hoferIntervals = []sim.Time{10 * sim.Millisecond, sim.Millisecond, 100 * sim.Microsecond}

// hoferCPUHeavy are the stand-ins whose hot loops have no polls; the
// paper's lusearch, sunflow and xalan.
var hoferCPUHeavy = []string{"lusearch", "sunflow", "xalan"}

// hoferWarmUp is discarded from every run (the paper discards its first
// 20 iterations); steady-state speed is measured after it.
const hoferWarmUp = 100 * sim.Millisecond

// hoferOverheadBenches: the multi-threaded stand-ins of the overhead
// runs — CPU-heavy (lusearch, sunflow, xalan), many threads (tradebeans,
// actors), short-lived threads (tmt), locks (h2); the full version adds
// the rest of the multi-threaded ones.
func hoferOverheadBenches(o Options) []string {
	b := []string{"lusearch", "sunflow", "xalan", "tradebeans", "actors", "tmt", "h2"}
	if o.Full {
		b = append(b, "avrora", "tomcat", "pmd9", "apparat", "scalatest", "specs")
	}
	return b
}

// hoferRun is one run's measurements.
type hoferRun struct {
	speed   float64 // bytecodes per simulated second after the warm-up
	costs   samplers.Costs
	prof    *profile.Profile
	windows []*profile.Profile
}

// hoferRunKey is one Hofer run: bench for d, costed with prof ("" =
// unprofiled) at interval iv, profiles split into windows of window (0:
// none).
type hoferRunKey struct {
	bench         string
	seed          uint64
	prof          string
	iv, d, window sim.Time
}

func (k hoferRunKey) run() (*hoferRun, error) {
	bench, seed, prof, iv, d, window := k.bench, k.seed, k.prof, k.iv, k.d, k.window
	p, err := workloads.Get(bench)
	if err != nil {
		return nil, err
	}
	cfg := harness.DefaultConfig()
	cfg.Sim.Seed, cfg.Sim.Duration = seed, d
	cfg.WarmUp, cfg.Window, cfg.NoTruthProfile = hoferWarmUp, window, true
	cfg.TruthPerMethod = true // only the bytecodes executed are read
	var setErr error
	if prof != "" {
		cfg.Samplers, cfg.Mode = []string{prof}, samplers.Costed
		cfg.Configure = func(x samplers.Sampler) { setErr = samplers.SetInterval(x, iv) }
	}
	out, err := harness.Run(p, cfg)
	if setErr != nil {
		err = setErr
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s %v seed %d: %w", bench, prof, iv, seed, err)
	}
	if out.Result.End <= hoferWarmUp {
		return nil, fmt.Errorf("%s %s %v seed %d: the program ended at %v, within the warm-up", bench, prof, iv, seed, out.Result.End)
	}
	r := &hoferRun{speed: float64(out.Result.Truth.BytecodeTotal()-out.WarmUpBytecodes) / (out.Result.End - hoferWarmUp).Seconds()}
	if prof != "" {
		r.costs, r.prof, r.windows = out.Costs[prof], out.Profiles[prof], out.Windows[prof]
	}
	return r, nil
}

// hoferKey names one run of a grid, its seed by index.
type hoferKey struct {
	bench string
	seed  int // index into Options.Seeds
	prof  string
	iv    sim.Time
}

// hoferGrid runs keys for d with windows of window.
func hoferGrid(o Options, keys []hoferKey, d, window sim.Time) (map[hoferKey]*hoferRun, error) {
	rk := make([]hoferRunKey, len(keys))
	for i, k := range keys {
		rk[i] = hoferRunKey{k.bench, o.Seeds[k.seed], k.prof, k.iv, d, window}
	}
	runs, err := runAll(o, rk)
	if err != nil {
		return nil, err
	}
	out := map[hoferKey]*hoferRun{}
	for i, k := range keys {
		out[k] = runs[i]
	}
	return out, nil
}

// hoferOverheadDuration is one overhead run: warm-up plus 300 ms measured.
const hoferOverheadDuration = 400 * sim.Millisecond

// hoferOverheadRuns: every overhead stand-in × seed, unprofiled and with
// each technique at each interval, costed (H1–H4 read the same runs).
func hoferOverheadRuns(o Options) (map[hoferKey]*hoferRun, error) {
	var keys []hoferKey
	for _, b := range hoferOverheadBenches(o) {
		for si := range o.Seeds {
			keys = append(keys, hoferKey{b, si, "", 0})
			for _, pr := range hoferTechniques {
				for _, iv := range hoferIntervals {
					keys = append(keys, hoferKey{b, si, pr, iv})
				}
			}
		}
	}
	return hoferGrid(o, keys, hoferOverheadDuration, 0)
}

func hoferOverheadNote(o Options) string {
	info, err := samplers.Lookup("jvmti")
	if err != nil {
		panic(err) // registered in samplers' init
	}
	jv, sps := info.Config().(*samplers.SafepointConfig), samplers.DefaultSPSConfig()
	return fmt.Sprintf("Each technique costed and alone on the stand-ins %s (4 CPUs, default VM and JIT), seeds %v, %v runs; overhead = steady-state speed (bytecodes per simulated second after the first %v, which are discarded as the paper discards its warm-up iterations) of the unprofiled run with the same seed / the profiled run's − 1. Sampling: JVMTI = a global safepoint, the VM thread walks every thread (%v a thread + %v a frame, %d frames; measured on OpenJDK 17, docs/CALIBRATION.md) and the agent stores the traces (%v); SPS = the first K = 4 (CPUs) runnable threads to reach a poll walk their own stacks (%v + %v a frame), waiting threads included in proportion; ISPS = SPS decoding only the top frame and intercepting returns (%v + %v a frame), retrieving at a full safepoint every second and at every thread end. Every agent waits the interval less the last sample's time.",
		strings.Join(hoferOverheadBenches(o), ", "), o.Seeds, hoferOverheadDuration, hoferWarmUp,
		jv.WalkPerThread, jv.WalkPerFrame, jv.Depth, jv.AgentPerSample, sps.SampleBase, sps.FrameCost, sps.TrampolineCost, sps.FrameCost)
}

// geoMeanOverhead is the geometric mean of overhead factors, as a %.
func geoMeanOverhead(pcts []float64) float64 {
	s := 0.0
	for _, p := range pcts {
		s += math.Log(1 + p/100)
	}
	return 100 * (math.Exp(s/float64(len(pcts))) - 1)
}

// HoferRunObs is one tidy observation of the overhead runs: the run of
// Benchmark with Seed under Technique ("none": unprofiled) at IntervalUs,
// its steady-state speed (bytecodes per simulated second after the
// warm-up), the samples it took and ISPS's thread-end retrieves.
type HoferRunObs struct {
	Benchmark          string
	Seed               uint64
	Technique          string
	IntervalUs         float64 `tidy:"interval_us"`
	Speed              float64
	Taken              int64
	ThreadEndRetrieves float64
}

// HoferLatencyObs is one sampling latency (ms) of a run.
type HoferLatencyObs struct {
	Benchmark  string
	Seed       uint64
	Technique  string
	IntervalUs float64 `tidy:"interval_us"`
	LatencyMs  float64 `tidy:"latency_ms"`
}

// HoferOverheadData is the overhead runs behind H1–H4.
type HoferOverheadData struct {
	Seeds   []uint64
	Benches []string
	Note    string
	o       Options
	runs    map[hoferKey]*hoferRun
}

func measureHoferOverhead(o Options) (HoferOverheadData, error) {
	runs, err := hoferOverheadRuns(o)
	if err != nil {
		return HoferOverheadData{}, err
	}
	return HoferOverheadData{Seeds: o.Seeds, Benches: hoferOverheadBenches(o), Note: hoferOverheadNote(o), o: o, runs: runs}, nil
}

// run is the run of (bench, seed index, prof, iv); it panics on a run the
// grid does not hold.
func (d *HoferOverheadData) run(bench string, si int, prof string, iv sim.Time) *hoferRun {
	r, ok := d.runs[hoferKey{bench, si, prof, iv}]
	if !ok {
		panic(fmt.Sprintf("study: no Hofer overhead run of %s seed %d %q %v", bench, si, prof, iv))
	}
	return r
}

// Overheads lists the overhead (%) of each seed's run of (b, pr, iv).
func (d *HoferOverheadData) Overheads(b, pr string, iv sim.Time) []float64 {
	var out []float64
	for si := range d.Seeds {
		out = append(out, 100*(d.run(b, si, "", 0).speed/d.run(b, si, pr, iv).speed-1))
	}
	return out
}

// Overhead is Overheads' Stat.
func (d *HoferOverheadData) Overhead(b, pr string, iv sim.Time) Stat {
	return NewStat(d.Overheads(b, pr, iv))
}

// Diff is the overhead of technique a minus c (points) on b at iv,
// paired by seed.
func (d *HoferOverheadData) Diff(b, a, c string, iv sim.Time) Stat {
	x, y := d.Overheads(b, a, iv), d.Overheads(b, c, iv)
	var diff []float64
	for i := range x {
		diff = append(diff, x[i]-y[i])
	}
	return NewStat(diff)
}

// GeoMean is the geometric mean over the stand-ins but tmt (H4's
// exception) of pr's mean overhead at iv.
func (d *HoferOverheadData) GeoMean(pr string, iv sim.Time) float64 {
	var means []float64
	for _, b := range d.Benches {
		if b != "tmt" {
			means = append(means, d.Overhead(b, pr, iv).Mean)
		}
	}
	return geoMeanOverhead(means)
}

// seedGeoMeans lists, per seed, the geometric mean over the stand-ins
// but tmt of pr's overhead at iv.
func (d *HoferOverheadData) seedGeoMeans(pr string, iv sim.Time) []float64 {
	var out []float64
	for si := range d.Seeds {
		var xs []float64
		for _, b := range d.Benches {
			if b != "tmt" {
				xs = append(xs, d.Overheads(b, pr, iv)[si])
			}
		}
		out = append(out, geoMeanOverhead(xs))
	}
	return out
}

// Gap is JVMTI − SPS (points) at iv, paired by seed on each stand-in but
// tmt, pooled.
func (d *HoferOverheadData) Gap(iv sim.Time) Stat {
	var gaps []float64
	for _, b := range d.Benches {
		if b == "tmt" {
			continue
		}
		j, s := d.Overheads(b, "jvmti", iv), d.Overheads(b, "sps", iv)
		for i := range j {
			gaps = append(gaps, j[i]-s[i])
		}
	}
	return NewStat(gaps)
}

// Latencies are (b, pr, iv)'s latencies pooled over seeds, in ms, sorted.
func (d *HoferOverheadData) Latencies(b, pr string, iv sim.Time) []float64 {
	d.run(b, 0, pr, iv)
	return hoferLatencies(d.runs, d.o, b, pr, iv)
}

// Taken is the mean over seeds of the samples (b, pr, iv) took.
func (d *HoferOverheadData) Taken(b, pr string, iv sim.Time) float64 {
	var n float64
	for si := range d.Seeds {
		n += float64(d.run(b, si, pr, iv).costs.Taken) / float64(len(d.Seeds))
	}
	return n
}

// LongShare is the share of (b, pr, iv)'s latencies above 1 ms.
func (d *HoferOverheadData) LongShare(b, pr string, iv sim.Time) float64 {
	l := d.Latencies(b, pr, iv)
	n := 0
	for _, x := range l {
		if x > 1 {
			n++
		}
	}
	return float64(n) / float64(max(len(l), 1))
}

// ThreadEnds is the mean over seeds of ISPS's thread-end retrieves on b
// at iv.
func (d *HoferOverheadData) ThreadEnds(b string, iv sim.Time) float64 {
	var ends float64
	for si := range d.Seeds {
		ends += d.run(b, si, "isps", iv).costs.Measures[samplers.ThreadEndRetrieves] / float64(len(d.Seeds))
	}
	return ends
}

// runObs lists the runs of the given stand-ins as observations.
func (d *HoferOverheadData) runObs(benches []string) []HoferRunObs {
	var out []HoferRunObs
	for _, b := range benches {
		for si, seed := range d.Seeds {
			r := d.run(b, si, "", 0)
			out = append(out, HoferRunObs{b, seed, "none", 0, r.speed, 0, 0})
			for _, pr := range hoferTechniques {
				for _, iv := range hoferIntervals {
					r := d.run(b, si, pr, iv)
					out = append(out, HoferRunObs{b, seed, pr, float64(iv) / float64(sim.Microsecond), r.speed, r.costs.Taken, r.costs.Measures[samplers.ThreadEndRetrieves]})
				}
			}
		}
	}
	return out
}

// H1Result is Fig. 9/10's overhead.
type H1Result struct{ HoferOverheadData }

// MeasureH1 reads (or runs) the overhead grid.
func MeasureH1(o Options) (*H1Result, error) {
	d, err := measureHoferOverhead(o)
	return &H1Result{d}, err
}

func (r *H1Result) render() (*Result, error) {
	benches := r.Benches
	cols := []string{"stand-in"}
	for _, iv := range hoferIntervals {
		for _, pr := range hoferTechniques {
			cols = append(cols, fmt.Sprintf("%s %v", pr, iv))
		}
	}
	t := &Table{Title: "H1: overhead (%), mean ± 95 % CI over seeds", Columns: cols}
	res := &Result{Table: t, Tidy: tidyOf(r.runObs(benches))}
	for _, b := range benches {
		cells := []any{b}
		for _, iv := range hoferIntervals {
			for _, pr := range hoferTechniques {
				cells = append(cells, r.Overhead(b, pr, iv).String())
			}
		}
		t.AddRow(cells...)
	}
	cells := []any{"geo. mean (tmt excluded)"}
	for _, iv := range hoferIntervals {
		for _, pr := range hoferTechniques {
			g := r.GeoMean(pr, iv)
			cells = append(cells, fmt.Sprintf("%.2f", g))
		}
	}
	t.AddRow(cells...)
	// ISPS − SPS per stand-in and interval, paired by seed: what decoding
	// one frame (plus the trampolines) instead of walking the stack saves.
	for _, b := range benches {
		cells := []any{b + ": isps − sps (paired)"}
		for _, iv := range hoferIntervals {
			m := r.Diff(b, "isps", "sps", iv)
			cells = append(cells, "", "", fmt.Sprintf("%+.2f ± %.2f", m.Mean, m.CI))
		}
		t.AddRow(cells...)
	}
	g10, g1, g01 := r.Gap(10*sim.Millisecond), r.Gap(sim.Millisecond), r.Gap(100*sim.Microsecond)
	t.Notes = append(t.Notes, r.Note,
		fmt.Sprintf("JVMTI − SPS, paired by seed over the stand-ins but tmt: %.2f ± %.2f points at 10 ms, %.2f ± %.2f at 1 ms, %.2f ± %.2f at 0.1 ms.",
			g10.Mean, g10.CI, g1.Mean, g1.CI, g01.Mean, g01.CI),
		"Paper (DaCapo 9.12, Fig. 9): at 10 ms JVMTI > 10 % on average, SPS < 3 %, ISPS close to 2 %; the improvements are largest on lusearch, sunflow, tradebeans, tradesoap and xalan (CPU-heavy or many threads); Scala (Fig. 10): JVMTI ≈ 5 % at 10 ms, ≈ 25 % at 1 ms where ISPS stays < 10 %.")
	// Figure: each technique's geometric-mean overhead against the
	// interval, mean and 95 % CI over seeds (a geometric mean per seed),
	// the paper's 10 ms bounds as references.
	p := plot.New()
	p.Title.Text = "H1: geometric-mean overhead (tmt excluded), mean ± 95 % CI over seeds"
	p.X.Label.Text = "sampling interval (ms, log scale)"
	p.Y.Label.Text = "overhead over the unprofiled run (%)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0.1, Label: "0.1"}, {Value: 1, Label: "1"}, {Value: 10, Label: "10"}})
	top := 0.0
	for i, pr := range hoferTechniques {
		var pts errPoints
		for _, iv := range hoferIntervals {
			m := NewStat(r.seedGeoMeans(pr, iv))
			// Spread the techniques a little so their error bars do not overlap.
			h := pts.add(float64(iv)/float64(sim.Millisecond)*math.Pow(1.08, float64(i-1)), m)
			top = math.Max(top, m.Mean+h)
		}
		if err := pts.addTo(p, series{Label: pr, Style: i, Line: true}); err != nil {
			return nil, err
		}
	}
	for i, ref := range []struct {
		y     float64
		label string
	}{{10, "paper, 10 ms: JVMTI > 10 %"}, {3, "paper, 10 ms: SPS < 3 %"}} {
		l, err := plotter.NewLine(plotter.XYs{{X: 0.08, Y: ref.y}, {X: 12.5, Y: ref.y}})
		if err != nil {
			return nil, err
		}
		l.Color = color.Gray{Y: 100}
		l.Dashes = []vg.Length{vg.Points(4 - 2*float64(i)), vg.Points(2)}
		p.Add(l)
		p.Legend.Add(ref.label, l)
	}
	p.X.Min, p.X.Max = 0.08, 12.5
	p.Y.Min, p.Y.Max = math.Min(0, p.Y.Min), 1.6*math.Max(top, 10) // room for the legend above the data
	p.Legend.Top = true
	p.Legend.Padding = vg.Points(4)
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(6), -vg.Points(6)
	res.Figure = p
	return res, nil
}

// quantile of sorted xs (empirical).
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	return stat.Quantile(q, stat.Empirical, sorted, nil)
}

// hoferLatencies pools (bench, prof, iv)'s latencies over seeds, in ms,
// sorted.
func hoferLatencies(runs map[hoferKey]*hoferRun, o Options, bench, prof string, iv sim.Time) []float64 {
	var out []float64
	for si := range o.Seeds {
		for _, l := range runs[hoferKey{bench, si, prof, iv}].costs.Latencies {
			out = append(out, float64(l)/1e6)
		}
	}
	sort.Float64s(out)
	return out
}

// H2Result is Fig. 11's latencies at 1 ms.
type H2Result struct{ HoferOverheadData }

// MeasureH2 reads (or runs) the overhead grid.
func MeasureH2(o Options) (*H2Result, error) {
	d, err := measureHoferOverhead(o)
	return &H2Result{d}, err
}

// Quantile is the q-quantile (ms) of (b, pr)'s latencies at 1 ms, pooled
// over seeds.
func (r *H2Result) Quantile(b, pr string, q float64) float64 {
	return quantile(r.Latencies(b, pr, sim.Millisecond), q)
}

func (r *H2Result) render() (*Result, error) {
	benches := r.Benches
	iv := sim.Millisecond
	t := &Table{Title: "H2: sampling latency at 1 ms (ms; pooled over seeds): median [2.5 % – 97.5 %] max",
		Columns: append([]string{"stand-in"}, hoferTechniques...)}
	var obs []HoferLatencyObs
	p := plot.New()
	p.Title.Text = "H2: sampling latency at 1 ms, all seeds (box: quartiles; whiskers: 1.5 IQR)"
	p.X.Label.Text = "stand-in"
	p.Y.Label.Text = "latency (ms, log scale)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 1e-4, Label: "0.0001"}, {Value: 1e-3, Label: "0.001"}, {Value: 1e-2, Label: "0.01"}, {Value: 0.1, Label: "0.1"}, {Value: 1, Label: "1"}, {Value: 10, Label: "10"}, {Value: 100, Label: "100"}})
	w := vg.Points(6)
	var names []string
	for bi, b := range benches {
		names = append(names, b)
		cells := []any{b}
		for pi, pr := range hoferTechniques {
			for si, seed := range r.Seeds {
				for _, l := range r.run(b, si, pr, iv).costs.Latencies {
					obs = append(obs, HoferLatencyObs{b, seed, pr, float64(iv) / float64(sim.Microsecond), float64(l) / 1e6})
				}
			}
			l := r.Latencies(b, pr, iv)
			med, lo, hi, mx := quantile(l, 0.5), quantile(l, 0.025), quantile(l, 0.975), quantile(l, 1)
			cells = append(cells, fmt.Sprintf("%.3f [%.3f – %.3f] %.2f", med, lo, hi, mx))
			logs := make(plotter.Values, len(l))
			for i, x := range l {
				logs[i] = math.Max(x, 1e-4) // a log axis: zero latencies at its floor
			}
			bp, err := plotter.NewBoxPlot(w, float64(bi)+float64(pi-1)*0.28, logs)
			if err != nil {
				return nil, fmt.Errorf("h2: %s %s: %w", b, pr, err)
			}
			bp.FillColor = seriesColor(pi)
			p.Add(bp)
			if bi == 0 {
				p.Legend.Add(pr, swatch{seriesColor(pi)})
			}
		}
		t.AddRow(cells...)
	}
	ref, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 1}, {X: float64(len(benches)) - 0.5, Y: 1}})
	if err != nil {
		return nil, err
	}
	ref.Color, ref.Dashes = color.Gray{Y: 100}, []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(ref)
	p.Legend.Add("the interval, 1 ms", ref)
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(benches))-0.5
	p.Y.Min = math.Min(p.Y.Min, 1e-3)
	p.Y.Max = 1000 // room for the legend above the data
	p.Legend.Top = true
	p.Legend.Padding = vg.Points(3)
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(6), -vg.Points(6)
	t.Notes = append(t.Notes, "Latency: from the request reaching the VM until the samples are taken (every thread safe and walked for JVMTI; the K-th self-sample written for SPS/ISPS). "+r.Note,
		"Paper (Fig. 11, 1 ms, whiskers at 2.5/97.5 %): JVMTI's median latency is high on actors, tradebeans and tradesoap (many threads to bring to a safepoint); on lusearch, sunflow and xalan it is moderate but fluctuates and reaches more than 10 ms (hot code without safepoint checks); SPS and ISPS latencies are low and stable everywhere.")
	return &Result{Table: t, Figure: p, Tidy: tidyOf(obs)}, nil
}

// H3Result is §7.2's samples at 0.1 vs 1 ms.
type H3Result struct{ HoferOverheadData }

// MeasureH3 reads (or runs) the overhead grid.
func MeasureH3(o Options) (*H3Result, error) {
	d, err := measureHoferOverhead(o)
	return &H3Result{d}, err
}

// Ratio is JVMTI's samples at 0.1 ms over those at 1 ms on b.
func (r *H3Result) Ratio(b string) float64 {
	return r.Taken(b, "jvmti", 100*sim.Microsecond) / r.Taken(b, "jvmti", sim.Millisecond)
}

func (r *H3Result) render() (*Result, error) {
	t := &Table{Title: "H3: JVMTI samples taken (thread samples per run, mean over seeds) and latency at 1 ms and 0.1 ms",
		Columns: []string{"stand-in", "samples 1 ms", "samples 0.1 ms", "0.1 ms / 1 ms", "latency > 1 ms: share at 1 ms", "at 0.1 ms", "overhead 1 ms (%)", "overhead 0.1 ms (%)"}}
	for _, b := range hoferCPUHeavy {
		n1, n01 := r.Taken(b, "jvmti", sim.Millisecond), r.Taken(b, "jvmti", 100*sim.Microsecond)
		o1 := r.Overhead(b, "jvmti", sim.Millisecond).Mean
		o01 := r.Overhead(b, "jvmti", 100*sim.Microsecond).Mean
		t.AddRow(b, fmt.Sprintf("%.0f", n1), fmt.Sprintf("%.0f", n01), fmt.Sprintf("%.1f×", n01/n1),
			fmt.Sprintf("%.2f %%", 100*r.LongShare(b, "jvmti", sim.Millisecond)), fmt.Sprintf("%.2f %%", 100*r.LongShare(b, "jvmti", 100*sim.Microsecond)), o1, o01)
	}
	t.Notes = append(t.Notes, r.Note,
		"Paper (§7.1–7.2): on lusearch, sunflow and xalan excessively high JVMTI latencies 'occur more often when using shorter sampling intervals, possibly due to scheduling effects', so 0.1 ms can yield fewer samples — and less overhead — than 1 ms. Here a long latency is a long poll-free loop that a request happens to meet, equally likely at either interval: nothing in the model ties latency to the interval, and 0.1 ms yields several times more samples. We report the divergence rather than invent a scheduling effect the paper only guesses at.")
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
				ratios = append(ratios, float64(r.run(b, si, pr, 100*sim.Microsecond).costs.Taken)/float64(r.run(b, si, pr, sim.Millisecond).costs.Taken))
			}
			m := NewStat(ratios)
			top = math.Max(top, m.Mean+pts.add(float64(bi)-0.2+0.2*float64(i), m))
		}
		if err := pts.addTo(p, series{Label: pr, Style: i, Radius: vg.Points(3.5)}); err != nil {
			return nil, err
		}
	}
	for i, ref := range []struct {
		y     float64
		label string
	}{{10, "every request on time (10×)"}, {1, "paper: JVMTI below 1 (fewer at 0.1 ms)"}} {
		l, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: ref.y}, {X: float64(len(hoferCPUHeavy)) - 0.5, Y: ref.y}})
		if err != nil {
			return nil, err
		}
		l.Color, l.Dashes = color.Gray{Y: 100}, []vg.Length{vg.Points(3 - 2*float64(i)), vg.Points(2)}
		p.Add(l)
		p.Legend.Add(ref.label, l)
	}
	p.NominalX(hoferCPUHeavy...)
	p.X.Min, p.X.Max = -0.5, float64(len(hoferCPUHeavy))-0.5
	p.Y.Min, p.Y.Max = 0, 1.7*top // room for the legend above the data
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 1, Label: "1"}, {Value: 5, Label: "5"}, {Value: 10, Label: "10"}, {Value: 15, Label: "15"}})
	p.Legend.Top = true
	p.Legend.Padding = vg.Points(2)
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(6), -vg.Points(4)
	return &Result{Table: t, Figure: p, Tidy: tidyOf(r.runObs(hoferCPUHeavy))}, nil
}

// H4Result is §7.1's short-lived threads (tmt).
type H4Result struct{ HoferOverheadData }

// MeasureH4 reads (or runs) the overhead grid.
func MeasureH4(o Options) (*H4Result, error) {
	d, err := measureHoferOverhead(o)
	return &H4Result{d}, err
}

func (r *H4Result) render() (*Result, error) {
	b := "tmt"
	t := &Table{Title: "H4: overhead (%) on the tmt stand-in (short-lived threads), mean ± 95 % CI over seeds, and ISPS's full safepoints at thread ends",
		Columns: []string{"interval", "jvmti", "sps", "isps", "isps − sps (paired)", "ISPS thread-end retrieves / run"}}
	for _, iv := range hoferIntervals {
		cells := []any{iv.String()}
		for _, pr := range hoferTechniques {
			cells = append(cells, r.Overhead(b, pr, iv).String())
		}
		cells = append(cells, r.Diff(b, "isps", "sps", iv).String(), fmt.Sprintf("%.0f", r.ThreadEnds(b, iv)))
		t.AddRow(cells...)
	}
	t.Notes = append(t.Notes, r.Note,
		"ISPS's traces live in the VM until retrieved, and 'the agent must retrieve the samples of a thread before the thread exits' in JVMTI's ThreadEnd event, while a retrieve 'always enters a full safepoint' (§5.3): every thread end of tmt, which creates hundreds of threads a second, stops the world once. The ThreadEnd callback holds the ending thread (and its joiner) until the retrieve is done. SPS hands each sample to the agent at once and needs none of this.",
		"Paper (§7.1, Fig. 10): on tmt ISPS has more overhead than SPS at 10 ms and 1 ms, because of these retrievals.")
	// Figure: on tmt, each technique's overhead against the interval
	// (left) and ISPS − SPS paired by seed (right), mean and 95 % CI over
	// seeds, zero as the reference (the unprofiled run; ISPS = SPS).
	ovh, diff := plot.New(), plot.New()
	ovh.Title.Text = "H4: overhead on tmt (mean ± 95 % CI over seeds)"
	ovh.Y.Label.Text = "overhead over the unprofiled run (%)"
	diff.Title.Text = "H4: ISPS − SPS on tmt (paired by seed, ± 95 % CI)"
	diff.Y.Label.Text = "ISPS − SPS overhead (points)"
	lo, hi := 0.0, 0.0
	for i, pr := range hoferTechniques {
		var pts errPoints
		for _, iv := range hoferIntervals {
			// Spread the techniques a little so their error bars do not overlap.
			m := r.Overhead(b, pr, iv)
			h := pts.add(float64(iv)/float64(sim.Millisecond)*math.Pow(1.08, float64(i-1)), m)
			lo, hi = math.Min(lo, m.Mean-h), math.Max(hi, m.Mean+h)
		}
		if err := pts.addTo(ovh, series{Label: pr, Style: i, Line: true}); err != nil {
			return nil, err
		}
	}
	var d errPoints
	dlo, dhi := 0.0, 0.0
	for _, iv := range hoferIntervals {
		m := r.Diff(b, "isps", "sps", iv)
		h := d.add(float64(iv)/float64(sim.Millisecond), m)
		dlo, dhi = math.Min(dlo, m.Mean-h), math.Max(dhi, m.Mean+h)
	}
	if err := d.addTo(diff, series{Label: "isps − sps", Style: 2, Line: true}); err != nil {
		return nil, err
	}
	for _, z := range []struct {
		p     *plot.Plot
		label string
	}{{ovh, "unprofiled (0)"}, {diff, "ISPS = SPS (0); claim: above at 10 and 1 ms"}} {
		l, err := plotter.NewLine(plotter.XYs{{X: 0.08, Y: 0}, {X: 12.5, Y: 0}})
		if err != nil {
			return nil, err
		}
		l.Color, l.Dashes = color.Gray{Y: 100}, []vg.Length{vg.Points(3), vg.Points(3)}
		z.p.Add(l)
		z.p.Legend.Add(z.label, l)
	}
	ovh.Y.Min, ovh.Y.Max = lo-1, hi+0.6*(hi-lo) // room for the legend above the data
	diff.Y.Min, diff.Y.Max = dlo-1, dhi+0.6*(dhi-dlo)
	for _, p := range []*plot.Plot{ovh, diff} {
		p.X.Label.Text = "sampling interval (ms, log scale)"
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0.1, Label: "0.1"}, {Value: 1, Label: "1"}, {Value: 10, Label: "10"}})
		p.X.Min, p.X.Max = 0.08, 12.5
		p.Legend.Top = true
		p.Legend.Padding = vg.Points(3)
		p.Legend.XOffs, p.Legend.YOffs = -vg.Points(6), -vg.Points(6)
	}
	return &Result{Table: t, Figure: panels{ovh, diff}, Tidy: tidyOf(r.runObs([]string{b}))}, nil
}

// hoferAccuracyBenches: the stand-ins of the CCT comparisons — two
// multi-threaded (lusearch, h2), the interpreter (jython9), one with
// phases (scalaxb), and the recursive-descent ones deeper than 256 frames
// (kiama, scalac), which the paper excepts.
func hoferAccuracyBenches(o Options) []string {
	b := []string{"lusearch", "sunflow", "xalan", "h2", "jython9", "kiama", "scalac"}
	if o.Full {
		b = append(b, "scalaxb", "fop9", "scalap", "scalariform", "scaladoc", "factorie")
	}
	return b
}

// hoferAccuracySize is the accuracy runs' length: a warm-up of skip
// windows (discarded), then iterations windows of iteration each, each
// window an iteration's CCT (the paper: 30 iterations, the first 20
// discarded, 10 rounds — our rounds are the seeds).
type hoferAccuracySize struct {
	skip, iterations int
	iteration        sim.Time
}

// duration is a run's length: the warm-up and the iterations.
func (z hoferAccuracySize) duration() sim.Time {
	return sim.Time(z.skip+z.iterations) * z.iteration
}

// warmUp is the discarded start of a run.
func (z hoferAccuracySize) warmUp() sim.Time { return sim.Time(z.skip) * z.iteration }

// hoferAccuracySizeOf: by default 10 iterations of 50 ms after the
// 100 ms warm-up (≈ 50 samples a sampled thread an iteration at 1 ms);
// Options.Paper: 10 iterations of 2 s after one discarded, ≈ 2 000 a
// sampled thread, the thousands of the paper's DaCapo iterations.
func hoferAccuracySizeOf(o Options) hoferAccuracySize {
	if o.Paper {
		return hoferAccuracySize{skip: 1, iterations: 10, iteration: 2 * sim.Second}
	}
	return hoferAccuracySize{skip: int(hoferWarmUp / (50 * sim.Millisecond)), iterations: 10, iteration: 50 * sim.Millisecond}
}

// hoferPaperNote is what Options.Paper runs for H5 and H6.
const hoferPaperNote = "the 7 default stand-ins, 10 iterations of 2 s after one discarded (≈ 2 000 samples a sampled thread an iteration at 1 ms, the paper's thousands), 22 s a run"

// hoferAccuracyRuns: every accuracy stand-in × seed × technique at 1 ms,
// costed, profiles split into iterations.
func hoferAccuracyRuns(o Options) (map[hoferKey]*hoferRun, error) {
	var keys []hoferKey
	for _, b := range hoferAccuracyBenches(o) {
		for si := range o.Seeds {
			for _, pr := range hoferTechniques {
				keys = append(keys, hoferKey{b, si, pr, sim.Millisecond})
			}
		}
	}
	z := hoferAccuracySizeOf(o)
	return hoferGrid(o, keys, z.duration(), z.iteration)
}

func hoferAccuracyNote(o Options) string {
	z := hoferAccuracySizeOf(o)
	return fmt.Sprintf("Each technique costed and alone at 1 ms on %s, seeds %v (the paper's rounds); each run is %v of warm-up (discarded) and %d iterations of %v, each iteration's samples a CCT (the paper: 30 iterations, 20 discarded, 10 rounds). A CCT's edge weights are its contexts' sample counts; average CCT = the sum over every iteration of every round of the relative edge weights (the paper's merged CCT). Overlap = Σ min of relative weights; hot-edge coverage (T = 0.1) = share of the reference's edges within a tenth of its hottest edge that are also hot in the other.",
		strings.Join(hoferAccuracyBenches(o), ", "), o.Seeds, z.warmUp(), z.iterations, z.iteration)
}

// hoferIteration is one iteration's CCT: its context weights, the seed
// (an index into Options.Seeds) and the iteration's number.
type hoferIteration struct {
	seed, n int
	cct     map[string]float64
}

// hoferIterationCCTs are (bench, prof)'s per-iteration context weights
// over all seeds, the warm-up windows dropped, and the iterations after
// the program's end (h2's ends at 12 s, in the paper-length runs' 6th
// iteration) too: they hold no sample.
func hoferIterationCCTs(runs map[hoferKey]*hoferRun, o Options, bench, prof string) []hoferIteration {
	z := hoferAccuracySizeOf(o)
	var out []hoferIteration
	for si := range o.Seeds {
		ws := runs[hoferKey{bench, si, prof, sim.Millisecond}].windows
		for i := z.skip; i < z.skip+z.iterations && i < len(ws); i++ {
			out = append(out, hoferIteration{si, i - z.skip, ws[i].ContextWeights()})
		}
	}
	return out
}

// cctsOf are the iterations' CCTs.
func cctsOf(its []hoferIteration) []map[string]float64 {
	out := make([]map[string]float64, len(its))
	for i, it := range its {
		out[i] = it.cct
	}
	return out
}

// averageCCT sums the relative weights of the CCTs.
func averageCCT(ccts []map[string]float64) map[string]float64 {
	avg := map[string]float64{}
	for _, c := range ccts {
		tot := 0.0
		for _, w := range c {
			tot += w
		}
		if tot == 0 {
			continue
		}
		for k, w := range c {
			avg[k] += w / tot
		}
	}
	return avg
}

func coverageOf(ref, other map[string]float64) float64 {
	_, x, y := profile.Align(ref, other)
	return profile.HotEdgeCoverage(x, y, profile.HotEdgeThreshold)
}

// HoferAccuracyData is the accuracy runs behind H5–H7.
type HoferAccuracyData struct {
	Seeds   []uint64
	Benches []string
	Note    string
	o       Options
	runs    map[hoferKey]*hoferRun
}

func measureHoferAccuracy(o Options) (HoferAccuracyData, error) {
	runs, err := hoferAccuracyRuns(o)
	if err != nil {
		return HoferAccuracyData{}, err
	}
	return hoferAccuracyData(o, hoferAccuracyBenches(o), runs), nil
}

// hoferAccuracyData is the accuracy runs of benches; its note names the
// stand-ins whose program ended before the last iteration.
func hoferAccuracyData(o Options, benches []string, runs map[hoferKey]*hoferRun) HoferAccuracyData {
	d := HoferAccuracyData{Seeds: o.Seeds, Benches: benches, Note: hoferAccuracyNote(o), o: o, runs: runs}
	z := hoferAccuracySizeOf(o)
	var short []string
	for _, b := range benches {
		for _, pr := range hoferTechniques {
			if n := len(d.iterations(b, pr)); n < z.iterations*len(o.Seeds) {
				short = append(short, fmt.Sprintf("%s %s %d of %d", b, pr, n, z.iterations*len(o.Seeds)))
			}
		}
	}
	if short != nil {
		d.Note += " Iterations after the program's end hold no sample and are left out: " + strings.Join(short, ", ") + "."
	}
	return d
}

// run is the run of (bench, seed index, prof) at 1 ms; it panics on a run
// the grid does not hold.
func (d *HoferAccuracyData) run(bench string, si int, prof string) *hoferRun {
	r, ok := d.runs[hoferKey{bench, si, prof, sim.Millisecond}]
	if !ok {
		panic(fmt.Sprintf("study: no Hofer accuracy run of %s seed %d %q", bench, si, prof))
	}
	return r
}

// iterations are (b, pr)'s per-iteration CCTs over every seed.
func (d *HoferAccuracyData) iterations(b, pr string) []hoferIteration {
	d.run(b, 0, pr)
	return hoferIterationCCTs(d.runs, d.o, b, pr)
}

// H5Obs is one tidy observation of H5: iteration Iteration of the run of
// Benchmark with Seed under Technique, compared with the technique's
// average CCT.
type H5Obs struct {
	Benchmark   string
	Technique   string
	Seed        uint64
	Iteration   int
	OverlapPct  float64 `tidy:"overlap_pct"`
	CoveragePct float64 `tidy:"coverage_pct"`
}

// H5Result is Fig. 12's stability.
type H5Result struct {
	HoferAccuracyData
	Obs []H5Obs
}

// MeasureH5 compares every iteration's CCT with its technique's average.
func MeasureH5(o Options) (*H5Result, error) {
	d, err := measureHoferAccuracy(o)
	if err != nil {
		return nil, err
	}
	return h5Of(d), nil
}

// h5Of is H5 on the accuracy runs d.
func h5Of(d HoferAccuracyData) *H5Result {
	res := &H5Result{HoferAccuracyData: d}
	for _, b := range d.Benches {
		for _, pr := range hoferTechniques {
			its := d.iterations(b, pr)
			avg := averageCCT(cctsOf(its))
			for _, it := range its {
				res.Obs = append(res.Obs, H5Obs{b, pr, d.Seeds[it.seed], it.n, 100 * profile.OverlapWeights(it.cct, avg), 100 * coverageOf(avg, it.cct)})
			}
		}
	}
	return res
}

// sorted lists (b, pr)'s overlaps (coverage false) or coverages, sorted.
func (r *H5Result) sorted(b, pr string, coverage bool) []float64 {
	var xs []float64
	for _, x := range r.Obs {
		if x.Benchmark == b && x.Technique == pr {
			if coverage {
				xs = append(xs, x.CoveragePct)
			} else {
				xs = append(xs, x.OverlapPct)
			}
		}
	}
	if xs == nil {
		panic(fmt.Sprintf("study: H5 has no iterations of %s %s", b, pr))
	}
	sort.Float64s(xs)
	return xs
}

// Overlap and Coverage are (b, pr)'s q-quantiles over iterations × seeds.
func (r *H5Result) Overlap(b, pr string, q float64) float64 {
	return quantile(r.sorted(b, pr, false), q)
}

func (r *H5Result) Coverage(b, pr string, q float64) float64 {
	return quantile(r.sorted(b, pr, true), q)
}

func (r *H5Result) render() (*Result, error) {
	benches := r.Benches
	cols := []string{"stand-in"}
	for _, pr := range hoferTechniques {
		cols = append(cols, pr+" overlap", pr+" hot-edge cov.")
	}
	t := &Table{Title: "H5: per-iteration CCT vs its technique's average CCT, median [quartiles] over iterations × rounds (%)", Columns: cols}
	res := &Result{Table: t, Tidy: tidyOf(r.Obs)}
	for _, b := range benches {
		cells := []any{b}
		for _, pr := range hoferTechniques {
			cells = append(cells, fmt.Sprintf("%.1f [%.1f, %.1f]", r.Overlap(b, pr, 0.5), r.Overlap(b, pr, 0.25), r.Overlap(b, pr, 0.75)),
				fmt.Sprintf("%.1f [%.1f, %.1f]", r.Coverage(b, pr, 0.5), r.Coverage(b, pr, 0.25), r.Coverage(b, pr, 0.75)))
		}
		t.AddRow(cells...)
	}
	t.Notes = append(t.Notes, r.Note,
		"Paper (Fig. 12): for every benchmark the stability of the three techniques is very similar; fop, kiama, scalac, scaladoc and scalaxb vary significantly between iterations (many calling contexts each seen in few samples), and their hot-edge coverage is much better than their overlap.")
	// Figure: each technique's overlap and hot-edge coverage per
	// stand-in, the median over iterations (every seed) with the
	// quartiles as bars.
	p := plot.New()
	p.Title.Text = "H5: iteration CCTs vs the average CCT (median, bars: quartiles over iterations and seeds)"
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.X.Label.Text = "stand-in"
	p.Y.Label.Text = "agreement with the average CCT (%)"
	k := 0
	for mi, measure := range []struct {
		name string
		at   func(b, pr string, q float64) float64
	}{{"overlap", r.Overlap}, {"hot-edge coverage", r.Coverage}} {
		for pi, pr := range hoferTechniques {
			var pts errPoints
			for bi, b := range benches {
				m := measure.at(b, pr, 0.5)
				pts.XYs = append(pts.XYs, plotter.XY{X: float64(bi) - 0.3 + 0.6*float64(k)/5, Y: m})
				pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{m - measure.at(b, pr, 0.25), measure.at(b, pr, 0.75) - m})
			}
			s := series{Label: pr + " " + measure.name, Style: pi, Shape: draw.CircleGlyph{}}
			if mi > 0 {
				s.Shape = draw.TriangleGlyph{}
			}
			if err := pts.addTo(p, s); err != nil {
				return nil, err
			}
			k++
		}
	}
	p.NominalX(benches...)
	p.X.Min, p.X.Max = -0.5, float64(len(benches))-0.5
	p.Y.Min, p.Y.Max = 0, 175 // room for the legend above the data
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 25}, {Value: 50, Label: "50"}, {Value: 75}, {Value: 100, Label: "100"}})
	p.Legend.Top = true
	p.Legend.Padding = vg.Points(2)
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(6), -vg.Points(4)
	res.Figure = p
	return res, nil
}

// hoferPairs are the comparisons of Fig. 13, reference first.
var hoferPairs = [][2]string{{"jvmti", "sps"}, {"jvmti", "isps"}, {"sps", "isps"}}

// H6Obs is one tidy observation of H6: on Benchmark, the overlap of the
// average CCTs of Reference and Other and the coverage of Reference's hot
// edges by Other; the average CCTs merge every seed's iterations.
type H6Obs struct {
	Benchmark   string
	Reference   string
	Other       string
	OverlapPct  float64 `tidy:"overlap_pct"`
	CoveragePct float64 `tidy:"coverage_pct"`
	// Depth is the deepest context in ISPS's average CCT.
	Depth int
}

// H6Result is Fig. 13's agreement.
type H6Result struct {
	HoferAccuracyData
	Obs []H6Obs
}

// MeasureH6 compares the techniques' average CCTs.
func MeasureH6(o Options) (*H6Result, error) {
	d, err := measureHoferAccuracy(o)
	if err != nil {
		return nil, err
	}
	return h6Of(d), nil
}

// h6Of is H6 on the accuracy runs d.
func h6Of(d HoferAccuracyData) *H6Result {
	res := &H6Result{HoferAccuracyData: d}
	for _, b := range d.Benches {
		avg := map[string]map[string]float64{}
		for _, pr := range hoferTechniques {
			avg[pr] = averageCCT(cctsOf(d.iterations(b, pr)))
		}
		deepest := 0
		for k := range avg["isps"] {
			deepest = max(deepest, strings.Count(k, profile.FrameSep)+1)
		}
		for _, pair := range hoferPairs {
			res.Obs = append(res.Obs, H6Obs{b, pair[0], pair[1], 100 * profile.OverlapWeights(avg[pair[0]], avg[pair[1]]), 100 * coverageOf(avg[pair[0]], avg[pair[1]]), deepest})
		}
	}
	return res
}

// of is b's comparison of pair.
func (r *H6Result) of(b string, pair [2]string) H6Obs {
	for _, x := range r.Obs {
		if x.Benchmark == b && x.Reference == pair[0] && x.Other == pair[1] {
			return x
		}
	}
	panic(fmt.Sprintf("study: H6 has no comparison %s–%s on %s", pair[0], pair[1], b))
}

// Overlap, Coverage and Depth read b's comparisons.
func (r *H6Result) Overlap(b string, pair [2]string) float64  { return r.of(b, pair).OverlapPct }
func (r *H6Result) Coverage(b string, pair [2]string) float64 { return r.of(b, pair).CoveragePct }
func (r *H6Result) Depth(b string) int                        { return r.of(b, hoferPairs[0]).Depth }

func (r *H6Result) render() (*Result, error) {
	benches := r.Benches
	cols := []string{"stand-in", "deepest stack"}
	for _, pair := range hoferPairs {
		cols = append(cols, pair[0]+"–"+pair[1]+" overlap")
	}
	for _, pair := range hoferPairs {
		cols = append(cols, pair[1]+" covers "+pair[0])
	}
	t := &Table{Title: "H6: average CCTs of the techniques compared (%): overlap, and hot-edge coverage (T = 0.1) of the first's hot edges by the second", Columns: cols}
	res := &Result{Table: t, Tidy: tidyOf(r.Obs)}
	bars := make([]plotter.Values, len(hoferPairs))
	var spsCov, ispsCov plotter.XYs
	for bi, b := range benches {
		cells := []any{b, r.Depth(b)}
		for i, pair := range hoferPairs {
			v := r.Overlap(b, pair)
			cells = append(cells, fmt.Sprintf("%.1f", v))
			bars[i] = append(bars[i], v)
		}
		for _, pair := range hoferPairs {
			cells = append(cells, fmt.Sprintf("%.1f", r.Coverage(b, pair)))
		}
		spsCov = append(spsCov, plotter.XY{X: float64(bi), Y: r.Coverage(b, hoferPairs[0])})
		ispsCov = append(ispsCov, plotter.XY{X: float64(bi), Y: r.Coverage(b, hoferPairs[1])})
		t.AddRow(cells...)
	}
	t.Notes = append(t.Notes, r.Note+" Deepest stack: the deepest context in ISPS's average CCT (complete stacks); JVMTI and SPS keep the 256 frames nearest the leaf.",
		"Paper (Fig. 13): overlap between the techniques > 70 % except kiama, scalac and scaladoc (recursive-descent parsers with very deep, rapidly changing stacks); SPS covers > 90 % of JVMTI's hot edges on every benchmark; ISPS's coverage is lower where stacks exceed the 256-frame limit of the other two, because its complete stack traces do not match their truncated ones.")
	// Figure: per stand-in, each pair's overlap (filled) and the coverage
	// of JVMTI's hot edges (hollow), one value each (the average CCTs
	// pool every seed), the paper's 70 % and 90 % as references.
	p := plot.New()
	p.Title.Text = "H6: the techniques' average CCTs compared (every seed pooled)"
	p.X.Label.Text = "stand-in"
	p.Y.Label.Text = "overlap / hot-edge coverage (%)"
	k := 0
	series := len(hoferPairs) + 2
	for i, pair := range hoferPairs {
		var pts plotter.XYs
		for bi := range benches {
			pts = append(pts, plotter.XY{X: float64(bi) - 0.3 + 0.6*float64(k)/float64(series-1), Y: bars[i][bi]})
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.Color, sc.Shape, sc.Radius = seriesColor(i), draw.CircleGlyph{}, vg.Points(3.5)
		p.Add(sc)
		p.Legend.Add(pair[0]+"–"+pair[1]+" overlap", sc)
		k++
	}
	for i, c := range []struct {
		name string
		pts  plotter.XYs
	}{{"SPS covers JVMTI's hot edges", spsCov}, {"ISPS covers JVMTI's hot edges", ispsCov}} {
		var pts plotter.XYs
		for bi, xy := range c.pts {
			pts = append(pts, plotter.XY{X: float64(bi) - 0.3 + 0.6*float64(k)/float64(series-1), Y: xy.Y})
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.Color, sc.Shape, sc.Radius = seriesColor(i), draw.TriangleGlyph{}, vg.Points(3.5)
		p.Add(sc)
		p.Legend.Add(c.name, sc)
		k++
	}
	for i, ref := range []struct {
		y     float64
		label string
	}{{70, "paper: overlap > 70 %"}, {90, "paper: SPS covers > 90 %"}} {
		l, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: ref.y}, {X: float64(len(benches)) - 0.5, Y: ref.y}})
		if err != nil {
			return nil, err
		}
		l.Color = color.Gray{Y: 100}
		l.Dashes = []vg.Length{vg.Points(4 - 2*float64(i)), vg.Points(2)}
		p.Add(l)
		p.Legend.Add(ref.label, l)
	}
	p.NominalX(benches...)
	p.X.Min, p.X.Max = -0.5, float64(len(benches))-0.5
	p.Y.Min, p.Y.Max = 0, 200 // room for the legend above the data
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 25}, {Value: 50, Label: "50"}, {Value: 75}, {Value: 100, Label: "100"}})
	p.Legend.Top = true
	p.Legend.Padding = vg.Points(2)
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(6), -vg.Points(4)
	res.Figure = p
	return res, nil
}

// H7Obs is one tidy observation of H7: in the runs of Benchmark with
// Seed, the mean stack depth at ISPS's samples, the frames SPS walked and
// those ISPS decoded per sample.
type H7Obs struct {
	Benchmark  string
	Seed       uint64
	Depth      float64
	SPSFrames  float64 `tidy:"sps_frames"`
	ISPSFrames float64 `tidy:"isps_frames"`
}

// H7Result is §5's frames decoded.
type H7Result struct {
	HoferAccuracyData
	Obs []H7Obs
}

// MeasureH7 reads frames per sample from the accuracy runs.
func MeasureH7(o Options) (*H7Result, error) {
	d, err := measureHoferAccuracy(o)
	if err != nil {
		return nil, err
	}
	res := &H7Result{HoferAccuracyData: d}
	for _, b := range d.Benches {
		for si, seed := range d.Seeds {
			r := d.run(b, si, "isps")
			res.Obs = append(res.Obs, H7Obs{b, seed, meanDepth(r.prof), d.run(b, si, "sps").costs.Measures[samplers.FramesDecodedPerSample], r.costs.Measures[samplers.FramesDecodedPerSample]})
		}
	}
	return res, nil
}

// stat is f over b's runs.
func (r *H7Result) stat(b string, f func(H7Obs) float64) Stat {
	var xs []float64
	for _, x := range r.Obs {
		if x.Benchmark == b {
			xs = append(xs, f(x))
		}
	}
	if xs == nil {
		panic("study: H7 has no runs of " + b)
	}
	return NewStat(xs)
}

// Depth, SPS, ISPS and Ratio (ISPS / depth) on b over the seeds.
func (r *H7Result) Depth(b string) Stat { return r.stat(b, func(x H7Obs) float64 { return x.Depth }) }
func (r *H7Result) SPS(b string) Stat   { return r.stat(b, func(x H7Obs) float64 { return x.SPSFrames }) }
func (r *H7Result) ISPS(b string) Stat {
	return r.stat(b, func(x H7Obs) float64 { return x.ISPSFrames })
}
func (r *H7Result) Ratio(b string) Stat {
	return r.stat(b, func(x H7Obs) float64 { return x.ISPSFrames / x.Depth })
}

func (r *H7Result) render() (*Result, error) {
	t := &Table{Title: "H7: frames decoded per sample at 1 ms (mean ± 95 % CI over seeds) vs the stack depth at the samples",
		Columns: []string{"stand-in", "stack depth (ISPS samples)", "SPS: frames walked", "ISPS: frames decoded", "ISPS / depth"}}
	var spsPts, ispsPts errPoints
	maxD := 0.0
	for _, b := range r.Benches {
		d, sp, is, ra := r.Depth(b), r.SPS(b), r.ISPS(b), r.Ratio(b)
		t.AddRow(b, d.String(), sp.String(), is.String(), ra.String())
		spsPts.add(d.Mean, sp)
		ispsPts.add(d.Mean, is)
		maxD = math.Max(maxD, math.Max(d.Mean, sp.Hi()))
	}
	t.Notes = append(t.Notes, r.Note,
		"SPS walks its stack at every sample (up to 256 frames); ISPS decodes the top frame and, at each intercepted return, the frame returned into — a frame shared by many samples is decoded once; its count includes the frames completed at retrieves. Paper (§5): incremental stack tracing 'examines each stack frame only once instead of walking the entire stack'; no figure.")
	// Figure: frames per sample against the stack depth, a point per
	// stand-in with its 95 % CI over seeds, y = depth (a full walk) as
	// the reference.
	p := plot.New()
	p.Title.Text = "H7: frames per sample vs stack depth at 1 ms (mean ± 95 % CI over seeds)"
	p.X.Label.Text = "mean stack depth at the samples (frames)"
	p.Y.Label.Text = "frames decoded per sample"
	top := 1.1 * maxD
	yx, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: top, Y: top}})
	if err != nil {
		return nil, err
	}
	yx.Color, yx.Dashes = color.Gray{Y: 100}, []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(yx)
	p.Legend.Add("y = depth (a full walk)", yx)
	for i, s := range []struct {
		name string
		pts  errPoints
	}{{"SPS (walks)", spsPts}, {"ISPS (incremental)", ispsPts}} {
		if err := s.pts.addTo(p, series{Label: s.name, Style: i}); err != nil {
			return nil, err
		}
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, top, 0, top
	p.Legend.Top, p.Legend.Left = true, true // above y = depth, clear of the data
	p.Legend.Padding = vg.Points(3)
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(6), -vg.Points(6)
	return &Result{Table: t, Figure: p, Tidy: tidyOf(r.Obs)}, nil
}

// meanDepth is the mean stack depth of p's samples.
func meanDepth(p *profile.Profile) float64 {
	var n, d float64
	for i, s := range p.Samples {
		n += float64(s.Count)
		d += float64(s.Count) * float64(p.Depth(i))
	}
	if n == 0 {
		return 0
	}
	return d / n
}

// swatch is a legend entry of one colour (box plots have no thumbnail).
type swatch struct{ c color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(s.c, []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}})
}
