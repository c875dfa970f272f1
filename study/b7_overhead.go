package study

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "b7-overhead", Claim: "B7", Title: "Binder Fig. 12–15: overhead vs granularity and the instrumentation floor", Run: typed(measureB7)})
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
	s := paperSpec(k.bench, k.seed, k.d)
	c := k.cfg
	if c.profile {
		s.Samplers, s.Mode = []string{fmt.Sprintf("komorium,granularity=%d,leaf_opt=%t", c.gran, c.leafOpt)}, samplers.Costed
	}
	s.Truth = "methods"
	out, err := runSpec(s, func(cfg *harness.Config) {
		cfg.NoTruthProfile = true // only the bytecodes executed are read
	})
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", k.bench, c.name, err)
	}
	return float64(out.Result.Truth.BytecodeTotal()), nil
}

// measureB7: costed Komorium, overhead = extra simulated time per unit of
// work over the unprofiled run, for each granularity, the
// instrumentation alone ("No Prof.": a granularity no run reaches), and
// the instrumentation alone without the leaf-method optimisation.
func measureB7(o Options) (*b7Result, error) {
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
	res := &b7Result{Seeds: o.Seeds, Benches: benches, Duration: d}
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
		res.Obs = append(res.Obs, b7Obs{k.bench, k.seed, k.cfg.name, b0, work[i], 100 * (b0/work[i] - 1)})
	}
	return res, nil
}

// b7Obs is one tidy observation of B7: the bytecodes Benchmark executed
// with Seed unprofiled (BaseBytecodes) and under Config (a granularity,
// "No Prof." or "No Prof., no leaf opt."), and the overhead (%).
type b7Obs struct {
	Benchmark     string
	Seed          uint64
	Config        string
	BaseBytecodes float64 `tidy:"base_bytecodes"`
	Bytecodes     float64
	OverheadPct   float64 `tidy:"overhead_pct"`
}

// b7Result is B7's runs.
type b7Result struct {
	Seeds    []uint64
	Benches  []string
	Configs  []string
	Duration sim.Time
	Obs      []b7Obs
}

// Overhead is the overhead (%) on b under config c over the seeds.
func (r *b7Result) Overhead(b, c string) stat {
	runs := mustWhere(r.Obs, func(x b7Obs) bool { return x.Benchmark == b && x.Config == c }, "B7 has no runs of %s under %q", b, c)
	return newStat(values(runs, func(x b7Obs) float64 { return x.OverheadPct }))
}

func (r *b7Result) render() (*Result, error) {
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
	p.Y.Min, p.Y.Max = 0, top
	res.Figure = newFigure("Komorium's overhead per stand-in, for each configuration: sampling at a granularity (bytecodes between samples), and the instrumentation alone (No Prof. = no sampling, the floor; leaf opt. = the leaf optimisation). "+captionCI, p)
	return res, nil
}
