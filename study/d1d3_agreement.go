package study

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"

	"github.com/profsim/profsim/profile"
)

func init() {
	register(Experiment{Name: "d1-top5-agreement", Claim: "D1", Title: "Burchell et al. (MPLR'23): profilers cannot reliably agree on the set of the top 5 hottest methods", Run: typed(measureD1)})
	register(Experiment{Name: "d3-self-agreement", Claim: "D3", Title: "Burchell et al. (MPLR'23): each profiler agrees with itself across runs far better than with the others", Run: typed(measureD3)})
}

// d1Profilers are the profilers D1 and D3 compare, as users run them:
// safepoint (a JVMTI sampler at safepoints, their Honest Profiler /
// YourKit class), jfr (Java Flight Recorder on its own: no
// DebugNonSafepoints), jfr-dns (JFR beside async-profiler, whose agent
// turns DebugNonSafepoints on), async (async-profiler) and tprof
// (Mytkowicz's random-interval sampler).
var d1Profilers = []string{"safepoint", "jfr", "jfr-dns", "async", "tprof"}

// d1TopN is the paper's "top 5 hottest methods".
const d1TopN = 5

// d1Benches are D1's and D3's programs, each run to its end: the models
// of real applications (workloads/models) at the entry-loop scale of
// the study's model runs (modelRunScale: a fifth of the recording, 1.4–
// 2.1 s) and two Mytkowicz stand-ins at their M2 iterations. The default
// size leaves out fop-real and jython-real, the slowest models to
// simulate (1.4–1.5 s a run against 0.35–0.7 s); Options.Full runs all
// eight, the whole recording, and four stand-ins at 5× M2's iterations.
func d1Benches(o Options) []d6Bench {
	scale, names := modelRunScale(o), []string{"antlr-real", "chart-real", "hsqldb-real", "luindex-real", "lusearch-real", "xalan-real"}
	standins, iters := []string{"antlr", "pmd"}, 1
	if o.models != nil {
		names = o.models
	}
	if o.Full {
		names, standins, iters = daCapoModels, []string{"antlr", "fop", "luindex", "pmd"}, 5
	}
	var out []d6Bench
	for _, n := range names {
		out = append(out, d6Bench{Name: n, Scale: scale})
	}
	for _, b := range causalityBenchmarks {
		if slices.Contains(standins, b.name) {
			out = append(out, d6Bench{Name: b.name, Iters: iters * b.iters})
		}
	}
	return out
}

// d1Key is one D1 run of bench at seed: with DebugNonSafepoints, D6's
// run (truth, safepoint, jfr, async, tprof at 1 ms; async-profiler's
// agent turns it on), else the truth and JFR alone, as JFR runs by
// default.
type d1Key struct {
	bench d6Bench
	seed  uint64
	dns   bool
}

func (k d1Key) run() (*d6Run, error) {
	base := d6Key{k.bench, k.seed, 1}
	s := base.spec()
	if !k.dns {
		off := false
		s.DebugNonSafepoints = &off
		s.Samplers = []string{"truth", "jfr,period=1ms"}
	}
	return base.runOf(s)
}

// d1Runs are the profiles of every bench at every seed: by bench, then
// seed index, then profiler (truth and d1Profilers), each a flat
// profile of method self shares.
type d1Runs struct {
	Seeds    []uint64
	Benches  []d6Bench
	Profiles map[string][]map[string]d6Profile
}

// measureD1Runs runs every bench at every seed with and without
// DebugNonSafepoints.
func measureD1Runs(o Options) (*d1Runs, error) {
	benches := d1Benches(o)
	var keys []d1Key
	for _, b := range benches {
		for _, seed := range o.Seeds {
			keys = append(keys, d1Key{b, seed, true}, d1Key{b, seed, false})
		}
	}
	rs, err := runAll(o, keys)
	if err != nil {
		return nil, err
	}
	d := &d1Runs{Seeds: o.Seeds, Benches: benches, Profiles: map[string][]map[string]d6Profile{}}
	for i := 0; i < len(keys); i += 2 {
		with, without := rs[i], rs[i+1]
		b := keys[i].bench.Name
		ps := map[string]d6Profile{}
		for id, from := range map[string]struct {
			run *d6Run
			id  string
		}{"truth": {with, "truth"}, "safepoint": {with, "safepoint"}, "jfr": {without, "jfr"}, "jfr-dns": {with, "jfr"}, "async": {with, "async"}, "tprof": {with, "tprof"}} {
			p, ok := from.run.Profiles[from.id]
			if !ok {
				return nil, fmt.Errorf("%s seed %d: no %s profile (as %s)", b, keys[i].seed, from.id, id)
			}
			ps[id] = p
		}
		d.Profiles[b] = append(d.Profiles[b], ps)
	}
	return d, nil
}

// topN is the set of the n methods with the largest shares (ties by
// name), sorted by name; fewer when the profile has fewer methods with
// a positive share.
func topN(shares map[string]float64, n int) []string {
	ms := ranked(shares)
	ms = ms[:min(n, len(ms))]
	slices.Sort(ms)
	return ms
}

// ranked lists the methods with a positive share, the largest first
// (ties by name).
func ranked(shares map[string]float64) []string {
	var ms []string
	for m, v := range shares {
		if v > 0 {
			ms = append(ms, m)
		}
	}
	slices.SortFunc(ms, func(a, b string) int {
		if c := cmpFloat(shares[b], shares[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return ms
}

// topAgreement is |A ∩ B| / n of two top-n sets.
func topAgreement(a, b []string, n int) float64 {
	common := 0
	for _, m := range a {
		if slices.Contains(b, m) {
			common++
		}
	}
	return float64(common) / float64(n)
}

// d1Obs is one tidy observation: the top-5 sets of profilers A and B
// (truth included) on Bench at Seed, their agreement |A∩B|/5 and each
// set (methods joined by " | ").
type d1Obs struct {
	Bench     string  `tidy:"benchmark"`
	Seed      uint64  `tidy:"seed"`
	A         string  `tidy:"profiler_a"`
	B         string  `tidy:"profiler_b"`
	Agreement float64 `tidy:"top5_agreement"`
	TopA      string  `tidy:"top5_a"`
	TopB      string  `tidy:"top5_b"`
}

// d1Result is every pair's top-5 agreement in every run.
type d1Result struct {
	Seeds   []uint64
	Benches []d6Bench
	Obs     []d1Obs
}

func measureD1(o Options) (*d1Result, error) {
	d, err := measureD1Runs(o)
	if err != nil {
		return nil, err
	}
	ids := append([]string{"truth"}, d1Profilers...)
	res := &d1Result{Seeds: d.Seeds, Benches: d.Benches}
	for _, b := range d.Benches {
		for si, ps := range d.Profiles[b.Name] {
			for i, a := range ids {
				ta := topN(ps[a].Shares, d1TopN)
				for _, bb := range ids[i+1:] {
					tb := topN(ps[bb].Shares, d1TopN)
					res.Obs = append(res.Obs, d1Obs{Bench: b.Name, Seed: d.Seeds[si], A: a, B: bb, Agreement: topAgreement(ta, tb, d1TopN),
						TopA: strings.Join(ta, " | "), TopB: strings.Join(tb, " | ")})
				}
			}
		}
	}
	return res, nil
}

// pair lists the observations of profilers a and b (either order) on
// bench (every bench: "").
func (r *d1Result) pair(bench, a, b string) []d1Obs {
	return where(r.Obs, func(x d1Obs) bool {
		return (bench == "" || x.Bench == bench) && (x.A == a && x.B == b || x.A == b && x.B == a)
	})
}

// Agreement is the top-5 agreement of a and b on bench over the seeds.
func (r *d1Result) Agreement(bench, a, b string) stat {
	return newStat(values(r.pair(bench, a, b), func(x d1Obs) float64 { return x.Agreement }))
}

// Profilers is the mean top-5 agreement over every pair of d1Profilers
// on bench at seed.
func (r *d1Result) Profilers(bench string, seed uint64) float64 {
	xs := values(where(r.Obs, func(x d1Obs) bool { return x.Bench == bench && x.Seed == seed && x.A != "truth" }), func(x d1Obs) float64 { return x.Agreement })
	m, _ := MeanCI(xs)
	return m
}

// AllAgree reports whether every profiler of d1Profilers has the same
// top-5 set on bench at seed.
func (r *d1Result) AllAgree(bench string, seed uint64) bool {
	for _, x := range r.Obs {
		if x.Bench == bench && x.Seed == seed && x.A != "truth" && x.Agreement < 1 {
			return false
		}
	}
	return true
}

// AgreeRuns is how many of bench's seeds AllAgree.
func (r *d1Result) AgreeRuns(bench string) int {
	n := 0
	for _, s := range r.Seeds {
		if r.AllAgree(bench, s) {
			n++
		}
	}
	return n
}

// Disagrees reports whether the profilers disagree on bench: their
// top-5 sets differ in most of its runs (more than half the seeds).
func (r *d1Result) Disagrees(bench string) bool {
	return 2*r.AgreeRuns(bench) < len(r.Seeds)
}

// Worst is the pair of d1Profilers with the lowest mean top-5
// agreement on bench (ties: the first in d1Profilers' order).
func (r *d1Result) Worst(bench string) (a, b string, agreement float64) {
	agreement = math.Inf(1)
	for i, p := range d1Profilers {
		for _, q := range d1Profilers[i+1:] {
			if m := r.Agreement(bench, p, q).Mean; m < agreement {
				a, b, agreement = p, q, m
			}
		}
	}
	return a, b, agreement
}

func (r *d1Result) render() (*Result, error) {
	cols := []string{"benchmark", "mean pairwise top-5 agreement of the profilers", "least agreeing pair", "runs where all five agree"}
	for _, id := range d1Profilers {
		cols = append(cols, id+" vs truth")
	}
	t := &Table{Title: "D1: agreement |A∩B|/5 of the profilers' top-5 hottest methods (self time), pairwise and with the truth (mean ± 95 % CI over seeds)", Columns: cols}
	disagree := 0
	for _, b := range r.Benches {
		var xs []float64
		for _, s := range r.Seeds {
			xs = append(xs, r.Profilers(b.Name, s))
		}
		wa, wb, w := r.Worst(b.Name)
		row := []any{b.Name, newStat(xs).String(), fmt.Sprintf("%s–%s %.2f", wa, wb, w), fmt.Sprintf("%d / %d", r.AgreeRuns(b.Name), len(r.Seeds))}
		for _, id := range d1Profilers {
			row = append(row, r.Agreement(b.Name, "truth", id).String())
		}
		t.AddRow(row...)
		if r.Disagrees(b.Name) {
			disagree++
		}
	}
	t.Notes = []string{d1RunsNote(r.Seeds, r.Benches),
		fmt.Sprintf("A program's profilers disagree when their top-5 sets differ in more than half its runs: %d of %d programs.", disagree, len(r.Benches))}
	t.Notes = append(t.Notes, discussion("d1-top5-agreement")...)
	fig, err := r.figure()
	if err != nil {
		return nil, err
	}
	return &Result{Table: t, Tidy: tidyOf(r.Obs), Figure: fig}, nil
}

// d1RunsNote describes D1's and D3's runs.
func d1RunsNote(seeds []uint64, benches []d6Bench) string {
	about := describeBenches(benches)
	return fmt.Sprintf("Seeds %v. Programs, each run to its end: %v. HotSpot 17 preset; truth, safepoint, async, tprof and jfr-dns (JFR with DebugNonSafepoints, as beside async-profiler, whose agent turns it on) watch one execution passively, jfr (JFR on its own, no DebugNonSafepoints) a second one of the same seed; each samples every 1 ms (tprof 1 ms ± 0.3 ms). A profile is each method's self share.", seeds, about)
}

// figure: per profiler, its top-5 agreement with the truth and its mean
// with the other profilers, mean over programs and seeds.
func (r *d1Result) figure() (*Figure, error) {
	p := plot.New()
	p.Title.Text = "D1: top-5 hottest methods"
	p.X.Label.Text = "profiler"
	p.Y.Label.Text = "top-5 agreement |A∩B|/5"
	for si, with := range []string{"truth", "others"} {
		var pts errPoints
		for i, id := range d1Profilers {
			var xs []float64
			if with == "truth" {
				xs = values(r.pair("", "truth", id), func(x d1Obs) float64 { return x.Agreement })
			} else {
				for _, q := range d1Profilers {
					if q != id {
						xs = append(xs, values(r.pair("", id, q), func(x d1Obs) float64 { return x.Agreement })...)
					}
				}
			}
			pts.add(float64(i)-0.1+0.2*float64(si), newStat(xs))
		}
		label := "with the truth"
		if with == "others" {
			label = "with each other profiler"
		}
		if err := pts.addTo(p, series{Label: label, Style: si}); err != nil {
			return nil, err
		}
	}
	p.NominalX(d1Profilers...)
	p.X.Min, p.X.Max = -0.5, float64(len(d1Profilers))-0.5
	p.Y.Min, p.Y.Max = 0, 1.05
	return newFigure("How many of the five methods with the most self time each profiler shares with the truth's top five and, on average, with each other profiler's, in the same execution: mean over the programs (six models of real applications and two stand-ins) and seeds, with its CI. safepoint = timer-driven samples at safepoint polls; jfr = Java Flight Recorder on its own; jfr-dns = with DebugNonSafepoints; async = async-profiler; tprof = Mytkowicz's random-interval sampler; every profiler samples every 1 ms. CI = confidence interval (95 %, Student's t over the programs and seeds).", p), nil
}

// d3Obs is one tidy observation of profiler Profiler on Bench: Self,
// the mean overlap (%) of its profiles of two different seeds; Cross,
// the mean overlap of its profile with Other's in the same execution
// (Other "all": the mean over every other profiler of d1Profilers);
// SelfTop5 and CrossTop5 the same for top-5 sets; Spread the median
// over its top-5 methods (by mean share) of the max − min of a
// method's share over the seeds (points); Samples its mean samples a
// run.
type d3Obs struct {
	Bench     string  `tidy:"benchmark"`
	Profiler  string  `tidy:"profiler"`
	Other     string  `tidy:"other"`
	Self      float64 `tidy:"self_overlap_pct"`
	Cross     float64 `tidy:"cross_overlap_pct"`
	SelfTop5  float64 `tidy:"self_top5"`
	CrossTop5 float64 `tidy:"cross_top5"`
	Spread    float64 `tidy:"median_spread_pts"`
	Samples   float64 `tidy:"samples"`
}

// d3Result is every profiler's self- and cross-agreement on every
// program.
type d3Result struct {
	Seeds   []uint64
	Benches []d6Bench
	Obs     []d3Obs
}

// measureD3 compares each profiler's profiles of one program across
// seeds, and with the other profilers' in the same executions.
func measureD3(o Options) (*d3Result, error) {
	if len(o.Seeds) < 2 {
		return nil, fmt.Errorf("d3-self-agreement: needs at least 2 seeds, got %d", len(o.Seeds))
	}
	d, err := measureD1Runs(o)
	if err != nil {
		return nil, err
	}
	res := &d3Result{Seeds: d.Seeds, Benches: d.Benches}
	for _, b := range d.Benches {
		runs := d.Profiles[b.Name]
		for _, id := range append([]string{"truth"}, d1Profilers...) {
			var self, selfTop []float64
			var samples float64
			for i := range runs {
				samples += float64(runs[i][id].Samples) / float64(len(runs))
				for j := i + 1; j < len(runs); j++ {
					self = append(self, 100*profile.OverlapWeights(runs[i][id].Shares, runs[j][id].Shares))
					selfTop = append(selfTop, topAgreement(topN(runs[i][id].Shares, d1TopN), topN(runs[j][id].Shares, d1TopN), d1TopN))
				}
			}
			x := d3Obs{Bench: b.Name, Profiler: id, Self: mean(self), SelfTop5: mean(selfTop), Spread: d3Spread(runs, id), Samples: samples}
			var all, allTop []float64
			for _, q := range d1Profilers {
				if q == id {
					continue
				}
				var cross, crossTop []float64
				for _, r := range runs {
					cross = append(cross, 100*profile.OverlapWeights(r[id].Shares, r[q].Shares))
					crossTop = append(crossTop, topAgreement(topN(r[id].Shares, d1TopN), topN(r[q].Shares, d1TopN), d1TopN))
				}
				y := x
				y.Other, y.Cross, y.CrossTop5 = q, mean(cross), mean(crossTop)
				res.Obs = append(res.Obs, y)
				all, allTop = append(all, cross...), append(allTop, crossTop...)
			}
			x.Other, x.Cross, x.CrossTop5 = "all", mean(all), mean(allTop)
			res.Obs = append(res.Obs, x)
		}
	}
	return res, nil
}

func mean(xs []float64) float64 {
	m, _ := MeanCI(xs)
	return m
}

// d3Spread is the median, over profiler id's top-5 methods by mean
// share over runs, of the max − min of the method's share over runs
// (points).
func d3Spread(runs []map[string]d6Profile, id string) float64 {
	avg := map[string]float64{}
	for _, r := range runs {
		for m, v := range r[id].Shares {
			avg[m] += v / float64(len(runs))
		}
	}
	var spreads []float64
	for _, m := range topN(avg, d1TopN) {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, r := range runs {
			lo, hi = math.Min(lo, r[id].Shares[m]), math.Max(hi, r[id].Shares[m])
		}
		spreads = append(spreads, hi-lo)
	}
	return median(spreads)
}

// median is xs's median (0 for none); xs is not changed.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// of is profiler id's observation against other ("all": every other
// profiler) on bench.
func (r *d3Result) of(bench, id, other string) d3Obs {
	for _, x := range r.Obs {
		if x.Bench == bench && x.Profiler == id && x.Other == other {
			return x
		}
	}
	panic(fmt.Sprintf("study: D3 has no %s–%s on %s", id, other, bench))
}

// SelfWins is how many programs profiler id agrees with itself across
// seeds better than with any other profiler in the same execution.
func (r *d3Result) SelfWins(id string) int {
	n := 0
	for _, b := range r.Benches {
		if r.Beats(b.Name, id) {
			n++
		}
	}
	return n
}

// Beats reports whether id's self-overlap on bench exceeds its overlap
// with every other profiler.
func (r *d3Result) Beats(bench, id string) bool {
	self := r.of(bench, id, "all").Self
	for _, q := range d1Profilers {
		if q != id && r.of(bench, id, q).Cross >= self {
			return false
		}
	}
	return true
}

func (r *d3Result) render() (*Result, error) {
	t := &Table{Title: "D3: each profiler's agreement with itself across seeds against its agreement with the other profilers in the same execution; spread of its top methods' shares over seeds",
		Columns: []string{"benchmark", "profiler", "samples a run", "self overlap (%)", "mean overlap with the others (%)", "closest other (overlap %)", "self top-5", "top-5 with the others", "median max−min spread (pts)"}}
	for _, b := range r.Benches {
		for _, id := range append([]string{"truth"}, d1Profilers...) {
			x := r.of(b.Name, id, "all")
			best, bo := "", -1.0
			for _, q := range d1Profilers {
				if q != id && r.of(b.Name, id, q).Cross > bo {
					best, bo = q, r.of(b.Name, id, q).Cross
				}
			}
			samples := "—"
			if id != "truth" {
				samples = fmt.Sprintf("%.0f", x.Samples)
			}
			t.AddRow(b.Name, id, samples, fmt.Sprintf("%.1f", x.Self), fmt.Sprintf("%.1f", x.Cross), fmt.Sprintf("%s (%.1f)", best, bo),
				fmt.Sprintf("%.2f", x.SelfTop5), fmt.Sprintf("%.2f", x.CrossTop5), fmt.Sprintf("%.2f", x.Spread))
		}
	}
	var wins []string
	for _, id := range d1Profilers {
		wins = append(wins, fmt.Sprintf("%s %d", id, r.SelfWins(id)))
	}
	t.Notes = []string{d1RunsNote(r.Seeds, r.Benches),
		fmt.Sprintf("Self overlap: mean over pairs of seeds of the overlap of the profiler's two flat profiles (Σ min of the shares); overlap with the others: mean over seeds and the other profilers of the overlap in the same execution (the truth is the execution's own, against the profilers). Spread: for each of the profiler's five methods with the largest mean share, the max − min of its share over the %d seeds, median over the five (the paper: 2–8 %% over 30 runs). Programs of %d on which each profiler agrees with itself better than with every other profiler: %s.", len(r.Seeds), len(r.Benches), strings.Join(wins, ", "))}
	t.Notes = append(t.Notes, discussion("d3-self-agreement")...)
	fig, err := r.figure()
	if err != nil {
		return nil, err
	}
	return &Result{Table: t, Tidy: tidyOf(r.Obs), Figure: fig}, nil
}

// figure: per profiler, its self overlap and its mean overlap with the
// others, mean over programs with its CI.
func (r *d3Result) figure() (*Figure, error) {
	p := plot.New()
	p.Title.Text = "D3: self- vs cross-agreement"
	p.X.Label.Text = "profiler"
	p.Y.Label.Text = "overlap of flat profiles (%)"
	for si, est := range []struct {
		label string
		f     func(d3Obs) float64
	}{{"with itself, another seed", func(x d3Obs) float64 { return x.Self }}, {"with the other profilers, same execution", func(x d3Obs) float64 { return x.Cross }}} {
		var pts errPoints
		for i, id := range d1Profilers {
			pts.add(float64(i)-0.1+0.2*float64(si), newStat(values(where(r.Obs, func(x d3Obs) bool { return x.Profiler == id && x.Other == "all" }), est.f)))
		}
		if err := pts.addTo(p, series{Label: est.label, Style: si}); err != nil {
			return nil, err
		}
	}
	p.NominalX(d1Profilers...)
	p.X.Min, p.X.Max = -0.5, float64(len(d1Profilers))-0.5
	return newFigure("Each profiler's flat profile (methods' self shares) against its own profile of the same program at another seed, and against the other profilers' profiles of the same execution (overlap = Σ over methods of the smaller share): mean over six models of real applications and two stand-ins, with its CI. safepoint = timer-driven samples at safepoint polls; jfr = Java Flight Recorder on its own; jfr-dns = with DebugNonSafepoints; async = async-profiler; tprof = Mytkowicz's random-interval sampler; every profiler samples every 1 ms. CI = confidence interval (95 %, Student's t over the programs and seeds).", p), nil
}
