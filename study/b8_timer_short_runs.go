package study

import (
	"fmt"

	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "b8-timer-short-runs", Claim: "B8", Title: "Binder Fig. 16: a 1 ms timer sampler on short runs", Run: typed(measureB8)})
}

// b8Obs is one tidy observation of B8: on Benchmark with Seed, the
// overlap (%) of the 1 ms timer sampler with the exact CPU-time CCT and
// of Komorium (10 000) with the exact bytecode CCT.
type b8Obs struct {
	Benchmark   string
	Seed        uint64
	TimerPct    float64 `tidy:"timer_pct"`
	KomoriumPct float64 `tidy:"komorium_pct"`
}

// b8Result is B8's runs.
type b8Result struct {
	Seeds    []uint64
	Benches  []string
	Duration sim.Time
	Obs      []b8Obs
}

// of lists benchmark b's runs.
func (r *b8Result) of(b string) []b8Obs {
	return mustWhere(r.Obs, func(x b8Obs) bool { return x.Benchmark == b }, "B8 has no runs of %s", b)
}

// Timer and Komorium are the two profilers' overlap on b over the seeds.
func (r *b8Result) Timer(b string) stat {
	var xs []float64
	for _, x := range r.of(b) {
		xs = append(xs, x.TimerPct)
	}
	return newStat(xs)
}

func (r *b8Result) Komorium(b string) stat {
	var xs []float64
	for _, x := range r.of(b) {
		xs = append(xs, x.KomoriumPct)
	}
	return newStat(xs)
}

// TimerMean is the timer's overlap, mean over the stand-ins.
func (r *b8Result) TimerMean() float64 {
	var m float64
	for _, b := range r.Benches {
		m += r.Timer(b).Mean / float64(len(r.Benches))
	}
	return m
}

// measureB8: a timer-driven safepoint sampler at 1 ms with depth 100
// (hprof's setting in Binder's comparison) on the short -small
// stand-ins, against the exact CPU-time CCT, next to Komorium at 10 000
// against the exact bytecode CCT.
func measureB8(o Options) (*b8Result, error) {
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
	res := &b8Result{Seeds: o.Seeds, Benches: benches, Duration: d}
	for i, k := range timer {
		res.Obs = append(res.Obs, b8Obs{k.bench, k.seed, tv[i], kv[i].Overlap})
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
	s := paperSpec(k.bench, k.seed, k.d)
	s.Samplers = []string{"safepoint,interval=1ms,depth=100"}
	out, err := runSpec(s)
	if err != nil {
		return 0, err
	}
	return 100 * profile.OverlapContexts(out.Profiles["safepoint"], out.Profiles["truth"]), nil
}

func (r *b8Result) render() (*Result, error) {
	t := &Table{Title: "Accuracy (% CCT overlap) on short runs: 1 ms safepoint timer sampler vs Komorium (mean ± 95 % CI over seeds)", Columns: []string{"benchmark", "timer 1 ms, depth 100", "komorium 10 000"}}
	for _, b := range r.Benches {
		tm, km := r.Timer(b), r.Komorium(b)
		t.AddRow(b, fmt.Sprintf("%.1f ± %.1f", tm.Mean, tm.CI), fmt.Sprintf("%.1f ± %.1f", km.Mean, km.CI))
	}
	t.Notes = append(t.Notes, fmt.Sprintf("%v per run (short runs: ≈ %d timer samples). Paper: hprof at 1 ms reached < 7 %% overlap with the exact CPU-time CCT on SPECjvm98.", r.Duration, r.Duration/sim.Millisecond))
	return &Result{Table: t, Tidy: tidyOf(r.Obs)}, nil
}
