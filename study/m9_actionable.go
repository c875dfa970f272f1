package study

import (
	"fmt"
	"math"
	"strings"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "m9-actionable", Claim: "M9", Title: "Mytkowicz §7.3: is a profiler's top method worth speeding up?", Run: typed(measureM9), Models: true})
}

// m9Scale and m9FullScale are M9's run sizes: its stand-ins' iteration
// counts (causalityBenchmarks) times these.
const (
	m9Scale     = 3
	m9FullScale = 5
)

// m9Profilers are the profilers whose top method M9 speeds up.
var m9Profilers = []string{"tprof", "xprof"}

// m9Obs is one tidy observation: in the run of Benchmark with Seed, the
// profiler's top method, its share, the speed-up (%) its share predicts
// for making the method 50 % cheaper and the one simulated.
type m9Obs struct {
	Benchmark    string
	Seed         uint64
	Profiler     string
	TopMethod    string
	SharePct     float64 `tidy:"share_pct"`
	PredictedPct float64 `tidy:"predicted_pct"`
	SimulatedPct float64 `tidy:"simulated_pct"`
	BaseS        float64 `tidy:"base_s"`
	SpedS        float64 `tidy:"sped_s"`
}

// m9Result is M9's observations, by stand-in and seed.
type m9Result struct {
	Seeds []uint64
	// Scale is the runs' size: the stand-ins' M2 iteration counts times
	// Scale.
	Scale int
	Obs   []m9Obs
	// Benchmarks are the stand-ins or, with Models, the models of real
	// applications (their entry loops scaled by ModelScale).
	Benchmarks []string
	Models     bool
	ModelScale float64
}

// of lists profiler p's observations on benchmark b.
func (r *m9Result) of(p, b string) []m9Obs {
	return where(r.Obs, func(x m9Obs) bool { return x.Profiler == p && x.Benchmark == b })
}

// AbsError is |predicted − simulated| (points) of profiler p on
// benchmark b, over the seeds.
func (r *m9Result) AbsError(p, b string) stat {
	var xs []float64
	for _, x := range r.of(p, b) {
		xs = append(xs, math.Abs(x.PredictedPct-x.SimulatedPct))
	}
	return newStat(xs)
}

// Predicted and Simulated are profiler p's predicted and simulated
// speed-ups (%) on benchmark b, over the seeds.
func (r *m9Result) Predicted(p, b string) stat {
	var xs []float64
	for _, x := range r.of(p, b) {
		xs = append(xs, x.PredictedPct)
	}
	return newStat(xs)
}

func (r *m9Result) Simulated(p, b string) stat {
	var xs []float64
	for _, x := range r.of(p, b) {
		xs = append(xs, x.SimulatedPct)
	}
	return newStat(xs)
}

// Shortfalls counts the stand-ins on which profiler p's top method gains,
// in the mean over seeds, less than half of what p predicts.
func (r *m9Result) Shortfalls(p string) int {
	n := 0
	for _, b := range r.Benchmarks {
		if r.Simulated(p, b).Mean < r.Predicted(p, b).Mean/2 {
			n++
		}
	}
	return n
}

// m9Key is one M9 run of stand-in bench at iters iterations (or, with
// scale > 0, model bench at scale: modelProgram) to its end, inlining off
// (tprof's setting, Mytkowicz §7.1): with profilers (comma-separated)
// passive, or with method speedUp's own work made 50 % cheaper.
type m9Key struct {
	bench     string
	iters     int
	scale     float64
	seed      uint64
	profilers string
	speedUp   string
}

// m9Run is an M9 run's end (s) and, per profiler, the top Java method it
// names and that method's share of its samples.
type m9Run struct {
	End   float64
	Top   map[string]string
	Share map[string]float64
}

// spec is k's run: the stand-in regenerated at iters iterations, or the
// model with its entry loops scaled, inlining off, to its end.
func (k m9Key) spec() harness.Spec {
	s := paperSpec(k.bench, k.seed, 120*sim.Second)
	if k.scale > 0 {
		if k.scale != 1 {
			s.LoopScale = k.scale
		}
	} else {
		s.Iterations = k.iters
	}
	s.Inline, s.Truth = new(bool), "methods"
	if k.profilers != "" {
		s.Samplers = strings.Split(k.profilers, ",")
	}
	return s
}

func (k m9Key) run() (*m9Run, error) {
	s := k.spec()
	if k.speedUp != "" {
		// The method as the program names it: an overloaded one by its
		// signature (methodRef).
		p, _, err := s.Load()
		if err != nil {
			return nil, err
		}
		s.SpeedUps = []string{methodRef(p, k.speedUp) + ":0.5"}
	}
	out, err := runSpec(s, func(cfg *harness.Config) {
		cfg.NoTruthProfile = true // only the samplers' profiles are read
	})
	if err != nil {
		return nil, err
	}
	r := &m9Run{End: out.Result.End.Seconds(), Top: map[string]string{}, Share: map[string]float64{}}
	for _, prof := range s.Samplers {
		// The top Java method: tprof's "<interpreted>" bucket names none.
		for _, m := range out.Profiles[prof].TopMethods(2) {
			if m != "<interpreted>" {
				r.Top[prof], r.Share[prof] = m, profile.Hotness(out.Profiles[prof], m)/100
				break
			}
		}
	}
	return r, nil
}

// measureM9 speeds up (virtually, by 50 %) the method each profiler ranks
// first and compares the run-time reduction it predicts (its share × 50 %)
// with the simulated one, for every stand-in and seed.
func measureM9(o Options) (*m9Result, error) {
	// Runs long enough for 90+ tprof samples (10 ms) on every stand-in,
	// 150+ with Full.
	scale := m9Scale
	if o.Full {
		scale = m9FullScale
	}
	var base []m9Key
	benches := toEndSet(o)
	for _, b := range benches {
		for _, seed := range o.Seeds {
			// A model's 1.4–2.1 s at modelScale hold 140+ tprof
			// samples as they are.
			base = append(base, m9Key{b.name, scale * b.iters, b.scale, seed, strings.Join(m9Profilers, ","), ""})
		}
	}
	bases, err := runAll(o, base)
	if err != nil {
		return nil, err
	}
	// The sped-up runs: each profiler's top method made 50 % cheaper (two
	// profilers ranking the same method first share the run).
	type pick struct {
		base int
		prof string
		sped m9Key
	}
	var picks []pick
	var sped []m9Key
	for i, k := range base {
		for _, prof := range m9Profilers {
			top, ok := bases[i].Top[prof]
			if !ok {
				continue
			}
			s := m9Key{k.bench, k.iters, k.scale, k.seed, "", top}
			picks = append(picks, pick{i, prof, s})
			sped = append(sped, s)
		}
	}
	speds, err := runAll(o, sped)
	if err != nil {
		return nil, err
	}
	runs := make([][]m9Obs, len(base))
	for j, pk := range picks {
		k, b := base[pk.base], bases[pk.base]
		t0, t1 := b.End, speds[j].End
		share := b.Share[pk.prof]
		runs[pk.base] = append(runs[pk.base], m9Obs{Benchmark: k.bench, Seed: k.seed, Profiler: pk.prof, TopMethod: pk.sped.speedUp,
			SharePct: 100 * share, PredictedPct: 100 * share * 0.5,
			SimulatedPct: 100 * (1 - t1/t0), BaseS: t0, SpedS: t1})
	}
	res := &m9Result{Seeds: o.Seeds, Scale: scale, Models: o.Models}
	if o.Models {
		res.ModelScale = modelRunScale(o)
	}
	for _, b := range benches {
		res.Benchmarks = append(res.Benchmarks, b.name)
	}
	for _, r := range runs {
		res.Obs = append(res.Obs, r...)
	}
	return res, nil
}

func (r *m9Result) render() (*Result, error) {
	t := &Table{Title: "Actionability: predicted vs simulated speed-up of each profiler's top method (50 % faster)",
		Columns: []string{"benchmark", "seed", "profiler", "top method", "its share", "predicted", "simulated", "error (points)"}}
	for _, x := range r.Obs {
		t.AddRow(x.Benchmark, x.Seed, x.Profiler, x.TopMethod, fmt.Sprintf("%.0f %%", x.SharePct), fmt.Sprintf("%.1f %%", x.PredictedPct), fmt.Sprintf("%.1f %%", x.SimulatedPct), fmt.Sprintf("%.1f", x.PredictedPct-x.SimulatedPct))
	}
	noun := benchNoun(r.Models)
	for _, p := range m9Profilers {
		var worst float64
		for _, b := range r.Benchmarks {
			worst = max(worst, r.AbsError(p, b).Mean)
		}
		t.Notes = append(t.Notes, fmt.Sprintf("%s: |predicted − simulated| up to %.1f points (mean over seeds per %s); its top method gains less than half the prediction on %d of %d %ss.", p, worst, noun, r.Shortfalls(p), len(r.Benchmarks), noun))
	}
	what := fmt.Sprintf("Each Mytkowicz stand-in runs to its end (%d× M2's iterations)", r.Scale)
	if r.Models {
		what = "Each model runs to its end"
	}
	t.Notes = append(t.Notes, fmt.Sprintf("%s, inlining off, seeds %v; a method's own work is made 50 %% cheaper and the run repeated with the same seed. Paper: acting on tprof's advice gave the predicted speed-up (within 2 %%); following the other profilers one would have looked at other methods first.", what, r.Seeds))
	if r.Models {
		t.Notes = append(t.Notes, modelNote(r.ModelScale))
	}
	return &Result{Table: t, Tidy: tidyOf(r.Obs)}, nil
}
