package study

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "x2-jfr-thread-cap", Claim: "X2", Title: "Beyond the papers: jfr samples at most 5 running threads per period — what the cap does to thread shares, coverage and accuracy", Run: typed(measureX2)})
}

// x2Jfr are the jfr instances watching each execution passively: JFR as
// it is, one whose cap never binds (the reference for what the cap
// changes) and the ablation that restarts every round at the first
// running thread.
//
// The three instances and the census compare what they see tick for
// tick, so they run on one exact clock (jitter 0): each sampler draws its
// jitter from its own stream. id is the instance's profile ID, name its
// name in X2's data.
var x2Jfr = []struct {
	name, label, id, spec string
}{
	{"jfr", "jfr (cap 5)", "jfr", "jfr,jitter=0"},
	{"jfr-uncapped", "jfr (cap 64)", "jfr:uncapped", "jfr:uncapped,jitter=0,max_threads=64"},
	{"jfr-restart", "ablation: cap 5, restart each round", "jfr:restart", "jfr:restart,jitter=0,restart_each_round=true"},
}

// x2Bench is one execution setting of X2.
type x2Bench struct {
	name  string // row label
	prog  string // stand-in name, or x2Staggered
	cpus  int
	d     sim.Time
	about string
}

// x2Staggered is the staggered bench's name in X2's and X5's tables;
// x2StaggeredProg its built-in workload (workloads/experiments): threads
// s0 … s9 start together on 10 CPUs; sN runs its own loop for ≈ (N+1) ×
// 100 ms of CPU (± 20 %, drawn per run) and ends, so the number of
// running threads falls from 10 to 1 and each thread spends a different
// part of its life in a crowd.
const (
	x2Staggered     = "staggered"
	x2StaggeredProg = "x2-staggered"
)

// x2Benches: the CPU-bound Hofer stand-ins with 8 workers on 8 CPUs, so
// that 8 threads run at once (constant crowding); a program whose 10
// threads end one after another (crowding falls from 10 to 1); and
// lusearch on 4 CPUs, where 8 threads are runnable but at most 4 run, so
// the cap of 5 never binds.
func x2Benches(o Options) []x2Bench {
	d := 2 * sim.Second
	if o.Full {
		d = 10 * sim.Second
	}
	return []x2Bench{
		{"lusearch, 8 CPUs", "lusearch", 8, d, "8 workers always running"},
		{"sunflow, 8 CPUs", "sunflow", 8, d, "8 workers always running"},
		{"xalan, 8 CPUs", "xalan", 8, d, "8 workers always running"},
		{"staggered, 10 CPUs", x2Staggered, 10, 2 * sim.Second, "thread sN works ≈ (N+1) × 100 ms and ends"},
		{"lusearch, 4 CPUs", "lusearch", 4, d, "8 runnable, ≤ 4 running: the cap never binds"},
	}
}

// x2Run is one execution: per-thread shares (%) in creation order.
type x2Run struct {
	Threads []string
	Truth   []float64            // share of application CPU time
	Pred    []float64            // census prediction for the cap-5 jfr
	Share   map[string][]float64 // jfr instance → share of its samples
	// Coverage: Samples × period / application CPU (%); Methods:
	// overlap of the flat profile with the truth's (%); Samples taken.
	Coverage, Methods, Samples map[string]float64
	// SameAsUncapped: the cap-5 jfr took exactly the uncapped one's
	// samples (same stacks, threads and counts): the cap never bound.
	SameAsUncapped bool
}

// x2Key is one X2 execution of b at seed.
type x2Key struct {
	bench x2Bench
	seed  uint64
}

func (k x2Key) run() (*x2Run, error) { return x2Once(k.bench, k.seed) }

// spec is the X2 execution of b with seed: the papers' HotSpot with
// DebugNonSafepoints (without it debug-info skid, X1, would dominate the
// method overlap), the truth by method and thread CPU time, and the three
// jfr instances.
func (b x2Bench) spec(seed uint64) harness.Spec {
	prog := b.prog
	if prog == x2Staggered {
		prog = x2StaggeredProg
	}
	s := paperSpec(prog, seed, b.d)
	s.CPUs, s.Truth = b.cpus, "methods"
	dns := true
	s.DebugNonSafepoints = &dns
	s.Samplers = []string{"truth"}
	for _, j := range x2Jfr {
		s.Samplers = append(s.Samplers, j.spec)
	}
	return s
}

// x2Census predicts, from the census of the running threads at each
// tick, what a round-robin cap of capN samples: a thread running at a
// tick with R threads running is sampled with probability
// min(1, capN/R); the prediction is each thread's expected samples.
func x2Census(census [][]string, capN int) map[string]float64 {
	pred := map[string]float64{}
	for _, running := range census {
		for _, n := range running {
			pred[n] += math.Min(1, float64(capN)/float64(len(running)))
		}
	}
	return pred
}

func x2Once(b x2Bench, seed uint64) (*x2Run, error) {
	def := samplers.DefaultJFRConfig()
	out, err := runSpec(b.spec(seed), func(cfg *harness.Config) {
		cfg.Census = def.Period // at jfr's ticks
	})
	if err != nil {
		return nil, fmt.Errorf("%s seed %d: %w", b.name, seed, err)
	}
	pred := x2Census(out.Census, def.MaxThreads)
	r := &x2Run{Share: map[string][]float64{}, Coverage: map[string]float64{}, Methods: map[string]float64{}, Samples: map[string]float64{}}
	app := float64(out.Result.AppCPU())
	var predSum float64
	for _, th := range out.Result.Threads {
		if !th.Service {
			r.Threads = append(r.Threads, th.Name)
			r.Truth = append(r.Truth, 100*float64(th.CPU())/app)
			predSum += pred[th.Name]
		}
	}
	for _, th := range r.Threads {
		r.Pred = append(r.Pred, 100*pred[th]/predSum)
	}
	for _, j := range x2Jfr {
		prof := out.Profiles[j.id]
		per := map[string]float64{}
		for i, s := range prof.Samples {
			per[prof.ThreadName(i)] += float64(s.Count)
		}
		n := float64(prof.TotalCount())
		for _, th := range r.Threads {
			r.Share[j.name] = append(r.Share[j.name], 100*per[th]/math.Max(n, 1))
		}
		r.Samples[j.name] = n
		r.Coverage[j.name] = 100 * float64(prof.TotalWeight()) / app
		r.Methods[j.name] = 100 * profile.OverlapMethods(out.Profiles["truth"], prof)
	}
	r.SameAsUncapped = profile.SameSamples(out.Profiles[x2Jfr[0].id], out.Profiles[x2Jfr[1].id])
	return r, nil
}

// x2MinShare: ratios share/truth are taken over threads with at least
// this share of CPU time (the stand-ins' main thread only spawns).
const x2MinShare = 2.0

// threadStats compares per-thread shares with a reference: the overlap
// of the two distributions (%), the largest absolute difference (points)
// and the smallest ratio over threads with ≥ x2MinShare of the reference.
func threadStats(ref, got []float64) (overlap, maxDev, minRatio float64) {
	overlap = 100 * profile.Overlap(ref, got)
	minRatio = math.Inf(1)
	for i := range ref {
		maxDev = math.Max(maxDev, math.Abs(got[i]-ref[i]))
		if ref[i] >= x2MinShare {
			minRatio = math.Min(minRatio, got[i]/ref[i])
		}
	}
	return overlap, maxDev, minRatio
}

// x2Obs is one tidy observation of X2: in the execution with Seed, a
// Measure of Source ("truth", "predicted" or a jfr instance) for Thread
// ("" for the whole run): "share_pct" (a thread's share), "samples",
// "coverage_pct" or "method_overlap_pct".
type x2Obs struct {
	Execution string
	Seed      uint64
	Thread    string
	Source    string
	Measure   string
	Value     float64
}

// x2Result is X2's executions, per setting in seed order.
type x2Result struct {
	Seeds   []uint64
	Benches []x2Bench
	runs    [][]*x2Run
}

// x2Range is an estimate over seeds with its extremes.
type x2Range struct {
	stat
	Min, Max float64
}

// x2Stats are the summary statistics of X2, by key.
var x2Stats = []struct {
	key, label string
	f          func(r *x2Run, j string) float64
}{
	{"samples", "samples per run", func(r *x2Run, j string) float64 { return r.Samples[j] }},
	{"coverage", "coverage: samples × period / CPU time (%)", func(r *x2Run, j string) float64 { return r.Coverage[j] }},
	{"thread_overlap", "thread shares: overlap with truth (%)", func(r *x2Run, j string) float64 { o, _, _ := threadStats(r.Truth, r.Share[j]); return o }},
	{"max_dev", "thread shares: max |share − truth| (points)", func(r *x2Run, j string) float64 { _, d, _ := threadStats(r.Truth, r.Share[j]); return d }},
	{"min_ratio", fmt.Sprintf("thread shares: min share/truth (threads ≥ %.0f %%)", x2MinShare), func(r *x2Run, j string) float64 { _, _, m := threadStats(r.Truth, r.Share[j]); return m }},
	{"pred_dev", "thread shares: max |share − predicted| (points)", func(r *x2Run, j string) float64 { _, d, _ := threadStats(r.Pred, r.Share[j]); return d }},
	{"method_overlap", "methods: overlap with truth (%)", func(r *x2Run, j string) float64 { return r.Methods[j] }},
}

// of is the runs of the execution named b.
func (r *x2Result) of(b string) []*x2Run {
	for i, x := range r.Benches {
		if x.name == b {
			return r.runs[i]
		}
	}
	panic("study: X2 has no execution " + b)
}

// jfrKnown panics unless j is one of x2Jfr.
func jfrKnown(j string) {
	for _, x := range x2Jfr {
		if x.name == j {
			return
		}
	}
	panic("study: X2 has no jfr instance " + j)
}

// Summary is statistic key (x2Stats) of jfr instance j on execution b
// over the seeds.
func (r *x2Result) Summary(b, j, key string) x2Range {
	jfrKnown(j)
	for _, st := range x2Stats {
		if st.key != key {
			continue
		}
		var xs []float64
		for _, run := range r.of(b) {
			xs = append(xs, st.f(run, j))
		}
		rg := x2Range{stat: newStat(xs), Min: math.Inf(1), Max: math.Inf(-1)}
		for _, x := range xs {
			rg.Min, rg.Max = math.Min(rg.Min, x), math.Max(rg.Max, x)
		}
		return rg
	}
	panic("study: X2 has no statistic " + key)
}

// thread is thread th's index on execution b.
func (r *x2Result) thread(b, th string) int {
	for i, x := range r.of(b)[0].Threads {
		if x == th {
			return i
		}
	}
	panic(fmt.Sprintf("study: X2 has no thread %s on %s", th, b))
}

// Share is thread th's share (%) of source ("truth", "predicted" or a
// jfr instance) on execution b over the seeds.
func (r *x2Result) Share(b, th, source string) stat {
	ti := r.thread(b, th)
	var xs []float64
	for _, run := range r.of(b) {
		switch source {
		case "truth":
			xs = append(xs, run.Truth[ti])
		case "predicted":
			xs = append(xs, run.Pred[ti])
		default:
			jfrKnown(source)
			xs = append(xs, run.Share[source][ti])
		}
	}
	return newStat(xs)
}

// SameAsUncapped counts b's runs where the cap-5 jfr took exactly the
// uncapped one's samples.
func (r *x2Result) SameAsUncapped(b string) int {
	n := 0
	for _, run := range r.of(b) {
		if run.SameAsUncapped {
			n++
		}
	}
	return n
}

// measureX2 runs every execution for every seed.
func measureX2(o Options) (*x2Result, error) {
	benches := x2Benches(o)
	var keys []x2Key
	for _, b := range benches {
		for _, seed := range o.Seeds {
			keys = append(keys, x2Key{b, seed})
		}
	}
	runs, err := runAll(o, keys)
	if err != nil {
		return nil, err
	}
	byBench := make([][]*x2Run, len(benches))
	for i := range keys {
		bi := i / len(o.Seeds)
		byBench[bi] = append(byBench[bi], runs[i])
	}
	for bi, b := range benches {
		rs := byBench[bi]
		for _, r := range rs[1:] {
			if strings.Join(r.Threads, ",") != strings.Join(rs[0].Threads, ",") {
				return nil, fmt.Errorf("%s: threads differ between seeds", b.name)
			}
		}
	}
	return &x2Result{Seeds: o.Seeds, Benches: benches, runs: byBench}, nil
}

// obs lists the observations.
func (r *x2Result) obs() []x2Obs {
	var out []x2Obs
	for bi, b := range r.Benches {
		for si, run := range r.runs[bi] {
			seed := r.Seeds[si]
			for ti, th := range run.Threads {
				out = append(out, x2Obs{b.name, seed, th, "truth", "share_pct", run.Truth[ti]}, x2Obs{b.name, seed, th, "predicted", "share_pct", run.Pred[ti]})
				for _, j := range x2Jfr {
					out = append(out, x2Obs{b.name, seed, th, j.name, "share_pct", run.Share[j.name][ti]})
				}
			}
			for _, j := range x2Jfr {
				out = append(out, x2Obs{b.name, seed, "", j.name, "samples", run.Samples[j.name]},
					x2Obs{b.name, seed, "", j.name, "coverage_pct", run.Coverage[j.name]},
					x2Obs{b.name, seed, "", j.name, "method_overlap_pct", run.Methods[j.name]})
			}
		}
	}
	return out
}

func (r *x2Result) render() (*Result, error) {
	benches, o := r.Benches, Options{Seeds: r.Seeds}
	byBench := r.runs
	cols := []string{"execution", "thread", "truth CPU share (%)", "predicted for cap 5 (%)"}
	for _, j := range x2Jfr {
		cols = append(cols, j.label)
	}
	t := &Table{Title: "X2: jfr's per-thread share of samples vs each thread's share of CPU time, and what the cap costs (mean ± 95 % CI over seeds)", Columns: cols}
	res := &Result{Table: t, Tidy: tidyOf(r.obs())}
	ratioLines := map[string]errPoints{}
	// addRatio appends, to line name, the mean over seeds of num/den per
	// seed and its 95 % CI.
	addRatio := func(name string, num, den []float64) {
		var xs []float64
		for i := range num {
			xs = append(xs, num[i]/den[i])
		}
		l := ratioLines[name]
		l.add(float64(len(l.XYs)), newStat(xs))
		ratioLines[name] = l
	}
	for bi, b := range benches {
		rs := byBench[bi]
		threads := rs[0].Threads
		col := func(f func(r *x2Run) float64) []float64 {
			var xs []float64
			for _, r := range rs {
				xs = append(xs, f(r))
			}
			return xs
		}
		cell := func(f func(r *x2Run) float64) string { return fmtCI(MeanCI(col(f))) }
		for ti, th := range threads {
			cells := []any{b.name, th, cell(func(r *x2Run) float64 { return r.Truth[ti] }), cell(func(r *x2Run) float64 { return r.Pred[ti] })}
			truth, _ := MeanCI(col(func(r *x2Run) float64 { return r.Truth[ti] }))
			for _, j := range x2Jfr {
				cells = append(cells, cell(func(r *x2Run) float64 { return r.Share[j.name][ti] }))
				if truth >= x2MinShare && (b.prog == x2Staggered || b.name == benches[0].name) && j.name != "jfr-uncapped" {
					addRatio(b.prog+", "+j.label, col(func(r *x2Run) float64 { return r.Share[j.name][ti] }), col(func(r *x2Run) float64 { return r.Truth[ti] }))
				}
			}
			if truth >= x2MinShare && b.prog == x2Staggered {
				addRatio(b.prog+", predicted for cap 5", col(func(r *x2Run) float64 { return r.Pred[ti] }), col(func(r *x2Run) float64 { return r.Truth[ti] }))
			}
			t.AddRow(cells...)
		}
		t.AddRow(b.name, "samples identical to the cap-64 jfr's (the cap never bound)", "", "", fmt.Sprintf("%d of %d runs", r.SameAsUncapped(b.name), len(rs)), "", "")
		// Summary rows: mean ± CI over seeds.
		for _, st := range x2Stats {
			cells := []any{b.name, st.label, "", ""}
			for _, j := range x2Jfr {
				cells = append(cells, r.Summary(b.name, j.name, st.key).String())
			}
			t.AddRow(cells...)
		}
	}
	var about []string
	for _, b := range benches {
		about = append(about, fmt.Sprintf("%s (%v: %s)", b.name, b.d, b.about))
	}
	t.Notes = append(t.Notes,
		fmt.Sprintf("Executions, seeds %v: %s. Default VM and JIT with DebugNonSafepoints (so that debug-info skid, X1, does not blur the method profiles); on each execution the three jfr instances (20 ms period, on a perfect clock: jitter=0) and a census of the running threads at each tick watch passively, so they see the same threads at the same ticks.", o.Seeds, strings.Join(about, "; ")))
	t.Notes = append(t.Notes, discussion("x2-jfr-thread-cap")...)

	p := plot.New()
	p.Title.Text = "X2: jfr's share of a thread ÷ its share of CPU time"
	p.X.Label.Text = "thread (creation order; threads with ≥ 2 % of CPU)"
	p.Y.Label.Text = "sampled share ÷ truth share (1 = unbiased)"
	maxX := 0.0
	k := 0
	for _, name := range []string{"lusearch, jfr (cap 5)", "lusearch, ablation: cap 5, restart each round", x2Staggered + ", jfr (cap 5)", x2Staggered + ", predicted for cap 5", x2Staggered + ", ablation: cap 5, restart each round"} {
		pts := ratioLines[name]
		if len(pts.XYs) == 0 {
			continue
		}
		maxX = math.Max(maxX, pts.XYs[len(pts.XYs)-1].X)
		if err := pts.addTo(p, series{Label: name, Style: k, Line: true, Dashes: plotutil.Dashes(k)}); err != nil {
			return nil, err
		}
		k++
	}
	one, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 1}, {X: maxX + 0.5, Y: 1}})
	if err != nil {
		return nil, err
	}
	one.Color, one.Dashes = color.Gray{Y: 100}, []vg.Length{vg.Points(1), vg.Points(2)}
	p.Add(one)
	p.Legend.Add("unbiased (1)", one)
	p.X.Min, p.X.Max = -0.5, maxX+0.5
	p.Y.Min = 0
	res.Figure = newFigure("Per thread (those with at least 2 % of the CPU time), the share of jfr's samples it gets divided by its share of CPU time (1: unbiased), mean ± CI over seeds, on lusearch and on the staggered stand-in, whose threads start one after another; jfr samples at most 5 running threads per period, and the ablation restarts its round-robin each period. CPU = central processing unit (processor); jfr = Java Flight Recorder's execution sampler. "+captionCI, p)
	return res, nil
}
