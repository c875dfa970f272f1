package study

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"

	"github.com/profsim/profsim/workloads"
)

func init() {
	register(Experiment{Name: "d7-targeted-slowdown", Claim: "D7", Title: "Burchell & Marr (OOPSLA'25): a targeted slowdown of the hot block ranks the samplers by how much of the true change each reports — the paper's estimate against the exact one", Run: typed(measureD7)})
}

// d7Factors are the targeted slowdowns, the paper's 50, 100 and 150 %
// levels.
var d7Factors = []float64{1.5, 2, 2.5}

// d7Key is one D7 run: bench at seed with the statement on line of
// method ref (the unslowed run's hot statement) slowed by factor.
type d7Key struct {
	bench  d6Bench
	seed   uint64
	factor float64
	ref    string
	line   int
}

func (k d7Key) run() (*d6Run, error) {
	base := d6Key{k.bench, k.seed, 1}
	s := base.spec()
	s.SlowDowns = []string{workloads.SlowDown{Method: k.ref, From: k.line, To: k.line, Factor: k.factor}.String()}
	return base.runOf(s)
}

// d7Obs is one tidy observation: a profiler's view of the slowed
// method of Bench at Seed, its hot statement slowed by Factor.
//
// Base and Slowed are the method's self share (%) in the profiler's
// unslowed and slowed profiles; TrueBase and TrueSlowed the truth's.
// Expected is the paper's estimate of the slowed share from the
// profiler's own unslowed share and the CPU time the slowdown added,
// all of it in the method: (base·C₀ + (C₁ − C₀)) / C₁. PaperFrac is the
// change the profiler reports over the change the paper expects,
// (Slowed − Base) / (Expected − Base); ExactFrac the reported change
// over the true one, (Slowed − Base) / (TrueSlowed − TrueBase): 1 when
// the profiler reports all of it. Error is Slowed − TrueSlowed (points).
type d7Obs struct {
	Bench      string  `tidy:"benchmark"`
	Seed       uint64  `tidy:"seed"`
	Factor     float64 `tidy:"factor"`
	Method     string  `tidy:"method"`
	Line       int     `tidy:"line"`
	Sampler    string  `tidy:"sampler"`
	Base       float64 `tidy:"base_pct"`
	Slowed     float64 `tidy:"slowed_pct"`
	TrueBase   float64 `tidy:"true_base_pct"`
	TrueSlowed float64 `tidy:"true_slowed_pct"`
	Expected   float64 `tidy:"paper_expected_pct"`
	PaperFrac  float64 `tidy:"paper_fraction"`
	ExactFrac  float64 `tidy:"exact_fraction"`
	Error      float64 `tidy:"error_pts"`
}

// d7Result is every D7 observation.
type d7Result struct {
	Seeds   []uint64
	Benches []d6Bench
	Obs     []d7Obs
}

// measureD7 runs every bench unslowed (D6's runs), finds its hot
// statement (the one with the most exact self time a slowdown can
// slow), slows it by each factor and reads every profiler's change of
// its method's share.
func measureD7(o Options) (*d7Result, error) {
	benches := d6Benches(o)
	var bases []d6Key
	for _, b := range benches {
		for _, seed := range o.Seeds {
			bases = append(bases, d6Key{b, seed, 1})
		}
	}
	brs, err := runAll(o, bases)
	if err != nil {
		return nil, err
	}
	var keys []d7Key
	for i, k := range bases {
		hot := brs[i].Hot
		if hot.Ref == "" {
			return nil, fmt.Errorf("%s seed %d: no statement to slow", k.bench.Name, k.seed)
		}
		for _, f := range d7Factors {
			keys = append(keys, d7Key{k.bench, k.seed, f, hot.Ref, hot.Line})
		}
	}
	srs, err := runAll(o, keys)
	if err != nil {
		return nil, err
	}
	res := &d7Result{Seeds: o.Seeds, Benches: benches}
	for j, k := range keys {
		base, slow := brs[j/len(d7Factors)], srs[j]
		m := base.Hot.Method
		tb, ts := base.Profiles["truth"].Shares[m], slow.Profiles["truth"].Shares[m]
		// The truth's paper fraction checks the estimate: all the added
		// time is the method's.
		for _, id := range append([]string{"truth"}, d6Samplers...) {
			b, s := base.Profiles[id].Shares[m], slow.Profiles[id].Shares[m]
			exp := 100 * (b/100*base.CPU + (slow.CPU - base.CPU)) / slow.CPU
			res.Obs = append(res.Obs, d7Obs{Bench: k.bench.Name, Seed: k.seed, Factor: k.factor, Method: m, Line: k.line, Sampler: id,
				Base: b, Slowed: s, TrueBase: tb, TrueSlowed: ts, Expected: exp,
				PaperFrac: (s - b) / (exp - b), ExactFrac: (s - b) / (ts - tb), Error: s - ts})
		}
	}
	return res, nil
}

// of lists sampler's observations on bench (every bench: "").
func (r *d7Result) of(bench, sampler string) []d7Obs {
	return where(r.Obs, func(x d7Obs) bool { return (bench == "" || x.Bench == bench) && x.Sampler == sampler })
}

// Stat is f's stat over sampler's observations on bench (every bench:
// "").
func (r *d7Result) Stat(bench, sampler string, f func(d7Obs) float64) stat {
	return newStat(values(r.of(bench, sampler), f))
}

// missOf is how far a fraction is from the whole change, |1 − f|: the
// accuracy the ranking orders by.
func missOf(f float64) float64 { return math.Abs(1 - f) }

// Ranking orders the samplers on bench (every bench: "") by the mean
// miss of their fraction of the change (paper: PaperFrac, else
// ExactFrac), most accurate first.
func (r *d7Result) Ranking(bench string, paper bool) []string {
	frac := func(x d7Obs) float64 {
		if paper {
			return missOf(x.PaperFrac)
		}
		return missOf(x.ExactFrac)
	}
	ids := slices.Clone(d6Samplers)
	slices.SortStableFunc(ids, func(a, b string) int {
		return cmpFloat(r.Stat(bench, a, frac).Mean, r.Stat(bench, b, frac).Mean)
	})
	return ids
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (r *d7Result) render() (*Result, error) {
	t := &Table{Title: "D7: the hot statement slowed ×1.5, ×2, ×2.5: each profiler's change of its method's share against the change the paper's method expects and the true change (mean ± 95 % CI over seeds and factors)",
		Columns: []string{"benchmark", "slowed statement", "profiler", "unslowed share (%)", "true unslowed share (%)", "share of the change reported: paper's estimate", "exact", "error of the slowed share (pts)"}}
	for _, b := range r.Benches {
		for _, id := range append([]string{"truth"}, d6Samplers...) {
			obs := r.of(b.Name, id)
			if len(obs) == 0 {
				continue
			}
			target := fmt.Sprintf("%s:%d", obs[0].Method, obs[0].Line)
			for _, x := range obs[1:] {
				if x.Method != obs[0].Method || x.Line != obs[0].Line {
					target += " (varies by seed)"
					break
				}
			}
			t.AddRow(b.Name, target, id, r.Stat(b.Name, id, func(x d7Obs) float64 { return x.Base }).String(),
				r.Stat(b.Name, id, func(x d7Obs) float64 { return x.TrueBase }).String(),
				r.Stat(b.Name, id, func(x d7Obs) float64 { return x.PaperFrac }).String(),
				r.Stat(b.Name, id, func(x d7Obs) float64 { return x.ExactFrac }).String(),
				r.Stat(b.Name, id, func(x d7Obs) float64 { return x.Error }).String())
		}
	}
	var ranks []string
	for _, b := range append([]string{""}, benchNames(r.Benches)...) {
		name := b
		if b == "" {
			name = "all"
		}
		p, e := r.Ranking(b, true), r.Ranking(b, false)
		same := "the same"
		if !slices.Equal(p, e) {
			same = "different"
		}
		ranks = append(ranks, fmt.Sprintf("%s: paper %s, exact %s (%s)", name, strings.Join(p, " > "), strings.Join(e, " > "), same))
	}
	t.Notes = []string{fmt.Sprintf("Seeds %v; factors %v. D6's unslowed runs (every profiler at 1 ms, HotSpot 17 with DebugNonSafepoints, each program to its end); in each, the statement with the most exact self time that --slowdown can slow (a Work or Native statement) is slowed by each factor and the run repeated. The paper's estimate takes the profiler's own unslowed share and the processor time the slowdown added, C₁ − C₀ (the application's CPU time), all of it in the method: expected share (base·C₀ + C₁ − C₀)/C₁; the exact one takes the truth's change. A fraction of 1 reports the whole change.", r.Seeds, d7Factors),
		"Ranking by mean |1 − fraction|, most accurate first — " + strings.Join(ranks, "; ") + "."}
	t.Notes = append(t.Notes, discussion("d7-targeted-slowdown")...)
	fig, err := r.figure()
	if err != nil {
		return nil, err
	}
	return &Result{Table: t, Tidy: tidyOf(r.Obs), Figure: fig}, nil
}

func benchNames(bs []d6Bench) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.Name)
	}
	return out
}

// figure: per profiler, the fraction of the change it reports, by the
// paper's estimate and exactly, mean over programs, seeds and factors.
func (r *d7Result) figure() (*Figure, error) {
	p := plot.New()
	p.Title.Text = "D7: targeted slowdown of the hot statement"
	p.X.Label.Text = "profiler"
	p.Y.Label.Text = "reported / expected change of the method's share"
	for si, est := range []struct {
		label string
		f     func(d7Obs) float64
	}{{"paper's estimate", func(x d7Obs) float64 { return x.PaperFrac }}, {"exact (truth's change)", func(x d7Obs) float64 { return x.ExactFrac }}} {
		var pts errPoints
		for i, id := range d6Samplers {
			pts.add(float64(i)-0.1+0.2*float64(si), r.Stat("", id, est.f))
		}
		if err := pts.addTo(p, series{Label: est.label, Style: si}); err != nil {
			return nil, err
		}
	}
	p.NominalX(d6Samplers...)
	p.X.Min, p.X.Max = -0.5, float64(len(d6Samplers))-0.5
	p.Y.Min = math.Min(0, p.Y.Min)
	return newFigure("How much of the change a slowdown of the hot statement makes to its method's share each profiler reports (1 = all of it): against the paper's estimate, from the profiler's own unslowed share and the processor time the slowdown added, and against the truth's change; mean over four stand-ins, two models, seeds and the factors 1.5, 2 and 2.5, with its CI. safepoint = timer-driven samples at safepoint polls; jfr = Java Flight Recorder; async = async-profiler; tprof = Mytkowicz's random-interval leaf sampler; every profiler samples every 1 ms. "+captionCI, p), nil
}
