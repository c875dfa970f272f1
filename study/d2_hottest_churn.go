package study

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"

	"github.com/profsim/profsim/harness"
)

func init() {
	register(Experiment{Name: "d2-hottest-churn", Claim: "D2", Title: "Burchell et al. (MPLR'23): a profiler's hottest method changes from run to run; which mechanism changes it", Run: typed(measureD2)})
}

// d2Samplers are the profilers D2 watches at their defaults (JFR every
// 20 ms, the others every 10 ms): how often a user's own run names
// another hottest method.
var d2Samplers = []string{"safepoint", "jfr", "async", "tprof"}

// d2Instances is how many instances of each profiler watch one
// execution, each drawing its timer's lateness from its own stream (a
// stream is named by the instance's label): runs of the profiler that
// differ in sample timing only, the program's execution unchanged.
const d2Instances = 5

// d2Key is one D2 run: bench at seed, watched by the truth and
// d2Instances instances of each of d2Samplers.
type d2Key struct {
	bench d6Bench
	seed  uint64
}

// spec is D6's unslowed run of bench (HotSpot 17 with DebugNonSafepoints,
// to the program's end) with the profilers at their defaults, each as
// instances r1 … r5.
func (k d2Key) spec() harness.Spec {
	s := d6Key{bench: k.bench, seed: k.seed, factor: 1}.spec()
	s.Samplers = []string{"truth"}
	for _, id := range d2Samplers {
		for i := 1; i <= d2Instances; i++ {
			s.Samplers = append(s.Samplers, fmt.Sprintf("%s:r%d", id, i))
		}
	}
	return s
}

// top2 is the method with the largest share in f and the runner-up
// (ties by name; "" where there is none).
func top2(f d6Profile) (first, second string) {
	ms := ranked(f.Shares)
	if len(ms) > 0 {
		first = ms[0]
	}
	if len(ms) > 1 {
		second = ms[1]
	}
	return first, second
}

// d2Run is one run's flat profiles by profile ID (truth, safepoint:r1, …).
type d2Run struct{ Profiles map[string]d6Profile }

func (k d2Key) run() (*d2Run, error) {
	out, err := runSpec(k.spec())
	if err != nil {
		return nil, fmt.Errorf("%s seed %d: %w", k.bench.Name, k.seed, err)
	}
	r := &d2Run{Profiles: map[string]d6Profile{}}
	for _, id := range out.Names {
		r.Profiles[id] = flatProfile(out.Profiles[id])
	}
	return r, nil
}

// d2Obs is one profiler on one execution (Bench at Seed): how many
// different hottest methods its Instances name (Distinct), the truth's
// hottest, and the two methods its instances' pooled profile ranks
// first and second (Hottest, Runner) with the margin between them: Gap (points) and
// GapZ, the gap over the sampling sd of the difference of two shares of
// one instance's n samples, sqrt((p₁ + p₂ − (p₁ − p₂)²)/n) — how far
// from a tie the two are for a single run.
type d2Obs struct {
	Bench     string  `tidy:"benchmark"`
	Seed      uint64  `tidy:"seed"`
	Sampler   string  `tidy:"sampler"`
	Instances int     `tidy:"instances"`
	Samples   float64 `tidy:"samples_per_instance"`
	Distinct  int     `tidy:"distinct_hottest"`
	Hottest   string  `tidy:"hottest"`
	Runner    string  `tidy:"runner_up"`
	Truth     string  `tidy:"truth_hottest"`
	Gap       float64 `tidy:"gap_pts"`
	GapZ      float64 `tidy:"gap_z"`
}

// d2Result is every D2 observation, and per bench and profiler the
// distinct hottest methods over all seeds and instances.
type d2Result struct {
	Seeds   []uint64
	Benches []d6Bench
	Obs     []d2Obs
	// OverSeeds[bench][sampler] counts the different hottest methods
	// over every seed's instances (the truth: over its seeds).
	OverSeeds map[string]map[string]int
}

func measureD2(o Options) (*d2Result, error) {
	benches := d6Benches(o)
	var keys []d2Key
	for _, b := range benches {
		for _, seed := range o.Seeds {
			keys = append(keys, d2Key{b, seed})
		}
	}
	rs, err := runAll(o, keys)
	if err != nil {
		return nil, err
	}
	res := &d2Result{Seeds: o.Seeds, Benches: benches, OverSeeds: map[string]map[string]int{}}
	over := map[string]map[string]map[string]bool{}
	add := func(bench, id, m string) {
		if over[bench] == nil {
			over[bench] = map[string]map[string]bool{}
		}
		if over[bench][id] == nil {
			over[bench][id] = map[string]bool{}
		}
		over[bench][id][m] = true
	}
	for i, k := range keys {
		r := rs[i]
		truth, _ := top2(r.Profiles["truth"])
		add(k.bench.Name, "truth", truth)
		for _, id := range d2Samplers {
			counts := map[string]int{}
			pooled := d6Profile{Shares: map[string]float64{}}
			var n int64
			for j := 1; j <= d2Instances; j++ {
				f := r.Profiles[fmt.Sprintf("%s:r%d", id, j)]
				h, _ := top2(f)
				counts[h]++
				add(k.bench.Name, id, h)
				n += f.Samples
				for m, s := range f.Shares {
					pooled.Shares[m] += s / d2Instances
				}
			}
			first, second := top2(pooled)
			per := float64(n) / d2Instances
			p1, p2 := pooled.Shares[first]/100, pooled.Shares[second]/100
			gap := 100 * (p1 - p2)
			z := math.Inf(1)
			if sd := 100 * math.Sqrt((p1+p2-(p1-p2)*(p1-p2))/math.Max(per, 1)); sd > 0 {
				z = gap / sd
			}
			res.Obs = append(res.Obs, d2Obs{Bench: k.bench.Name, Seed: k.seed, Sampler: id, Instances: d2Instances, Samples: per,
				Distinct: len(counts), Hottest: first, Runner: second, Truth: truth, Gap: gap, GapZ: z})
		}
	}
	for b, ids := range over {
		res.OverSeeds[b] = map[string]int{}
		for id, ms := range ids {
			res.OverSeeds[b][id] = len(ms)
		}
	}
	return res, nil
}

// of lists the observations of sampler on bench.
func (r *d2Result) of(bench, sampler string) []d2Obs {
	return where(r.Obs, func(x d2Obs) bool { return x.Bench == bench && x.Sampler == sampler })
}

func (r *d2Result) render() (*Result, error) {
	t := &Table{Title: "D2: how many different hottest methods each profiler names — five runs of it on one execution (sample timing alone), and over every seed's runs (the program's draws too)",
		Columns: []string{"benchmark", "profiler", "samples per run", "hottest methods in one execution (mean over seeds)", "largest", "over all seeds' runs", "truth's over seeds", "hottest (pooled runs)", "runner-up", "gap (pts)", "gap in sd of one run"}}
	for _, b := range r.Benches {
		for _, id := range d2Samplers {
			obs := r.of(b.Name, id)
			if len(obs) == 0 {
				continue
			}
			last := obs[len(obs)-1]
			t.AddRow(b.Name, id, fmt.Sprintf("%.0f", newStat(values(obs, func(x d2Obs) float64 { return x.Samples })).Mean),
				fmt.Sprintf("%.2f", newStat(values(obs, func(x d2Obs) float64 { return float64(x.Distinct) })).Mean),
				fmt.Sprintf("%.0f", maxOf(obs, func(x d2Obs) float64 { return float64(x.Distinct) })),
				fmt.Sprint(r.OverSeeds[b.Name][id]), fmt.Sprint(r.OverSeeds[b.Name]["truth"]),
				last.Hottest, last.Runner,
				newStat(values(obs, func(x d2Obs) float64 { return x.Gap })).String(),
				newStat(values(obs, func(x d2Obs) float64 { return math.Min(x.GapZ, 99) })).String())
		}
	}
	t.Notes = []string{fmt.Sprintf("Seeds %v; D6's unslowed programs, each to its end (HotSpot 17 with DebugNonSafepoints). On each execution %d instances of each profiler at its default rate (safepoint, async and tprof every 10 ms, tprof ± 3 ms, JFR every 20 ms) watch passively, each drawing its timer's lateness from its own stream: runs that differ in sample timing only. Hottest: the method with the largest self share (ties by name); the pooled runs' hottest, its runner-up and the gap between them are the instances' pooled profile's (the last seed's names; the gap mean ± CI over seeds); the gap in sd divides it by the sampling sd of the difference of the two shares in one run, sqrt((p₁ + p₂ − (p₁ − p₂)²)/n).", r.Seeds, d2Instances)}
	t.Notes = append(t.Notes, discussion("d2-hottest-churn")...)
	fig, err := r.figure()
	if err != nil {
		return nil, err
	}
	return &Result{Table: t, Tidy: tidyOf(r.Obs), Figure: fig}, nil
}

// figure: per profiler, the different hottest methods among the runs on
// one execution, against how close its top two are (gap in sd), every
// (program, seed).
func (r *d2Result) figure() (*Figure, error) {
	p := plot.New()
	p.Title.Text = "D2: hottest-method churn against the top two's margin"
	p.X.Label.Text = "gap between the top two methods (sd of one run; 4 and more at 4)"
	p.Y.Label.Text = "different hottest methods in 5 runs"
	for si, id := range d2Samplers {
		var pts errPoints
		for _, x := range where(r.Obs, func(x d2Obs) bool { return x.Sampler == id }) {
			pts.add(math.Min(x.GapZ, 4), stat{Mean: float64(x.Distinct), CI: math.NaN()})
		}
		if err := pts.addTo(p, series{Label: id, Style: si}); err != nil {
			return nil, err
		}
	}
	p.X.Min, p.X.Max = 0, 4.2
	p.Y.Min, p.Y.Max = 0.5, d2Instances+0.5
	return newFigure("Each point is one profiler on one program and seed: how many different methods its five runs on the same execution name hottest (they differ in sample timing only), against how far apart its top two methods are, in standard deviations of one run's sampling noise. Churn needs a near-tie. safepoint = timer-driven samples at safepoint polls; jfr = Java Flight Recorder; async = async-profiler; tprof = Mytkowicz's random-interval leaf sampler; sd = standard deviation.", p), nil
}
