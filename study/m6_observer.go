package study

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "m6-observer", Claim: "M6", Title: "Mytkowicz Fig. 9: a second profiler changes xprof's hottest method, and the JIT's yield points", Run: typed(measureM6), Models: true})
}

// m6Companions are the profilers turned on beside xprof (Fig. 9's bars).
var m6Companions = []string{"hprof", "jprofile", "yourkit"}

// m6Run is what one costed run leaves for M6: each profiler's hotness per
// method, and the yield points the JIT placed in the truth's 10 hottest
// methods.
type m6Run struct {
	Hotness map[string]map[string]float64 // profiler → method → %
	Polls   map[string]int                // method → poll sites in its compiled code
	Top     []string                      // truth's 10 hottest methods
}

// m6Key is one M6 run: bench for d with profs (comma-separated) costed.
type m6Key struct {
	bench string
	seed  uint64
	d     sim.Time
	profs string
}

func (k m6Key) run() (*m6Run, error) {
	return m6Once(k.bench, k.seed, k.d, strings.Split(k.profs, ","))
}

func m6Once(bench string, seed uint64, d sim.Time, profs []string) (*m6Run, error) {
	s := paperSpec(bench, seed, d)
	s.Samplers, s.Mode = profs, samplers.Costed
	s.Truth = "methods" // the truth is read by method
	out, err := runSpec(s)
	if err != nil {
		return nil, fmt.Errorf("%s %v: %w", bench, profs, err)
	}
	r := &m6Run{Hotness: map[string]map[string]float64{}, Polls: map[string]int{}}
	for _, n := range profs {
		h := map[string]float64{}
		for m := range out.Profiles[n].MethodWeights() {
			h[m] = profile.Hotness(out.Profiles[n], m)
		}
		r.Hotness[n] = h
	}
	tw := out.Profiles["truth"].MethodWeights()
	for m := range tw {
		r.Top = append(r.Top, m)
	}
	sort.Slice(r.Top, func(i, j int) bool {
		if tw[r.Top[i]] != tw[r.Top[j]] {
			return tw[r.Top[i]] > tw[r.Top[j]]
		}
		return r.Top[i] < r.Top[j]
	})
	r.Top = r.Top[:min(10, len(r.Top))]
	for _, m := range r.Top {
		if i, ok := out.JIT.Method(m); ok {
			if c := out.JIT.CompiledCode(i); c != nil {
				r.Polls[m] = jit.PollSites(c)
			}
		}
	}
	return r, nil
}

// m6Bench is M6 on one stand-in.
type m6Bench struct {
	Benchmark string
	// Top is xprof's hottest method alone (hotness averaged over seeds),
	// X its hotness (%).
	Top string
	X   float64
	// Delta is |x − y| per companion, y xprof's hotness of Top beside it
	// (averaged over seeds).
	Delta keyed[string, float64]
	// Paired is the mean of |x − y| over same-seed pairs, every companion.
	Paired float64
	// PollsXprof and PollsHprof are the poll sites per compiled method
	// among the truth's 10 hottest, profiled by xprof and by hprof; Differ
	// of Compared methods (same seed, compiled in both) have other counts.
	PollsXprof, PollsHprof float64
	Differ, Compared       int
}

// m6Obs is one tidy observation: xprof's hotness (%) of Method — its
// hottest method alone on Benchmark — in the run with Seed beside
// Companion ("none": alone).
type m6Obs struct {
	Benchmark  string
	Seed       uint64
	Companion  string
	Method     string
	HotnessPct float64 `tidy:"hotness_pct"`
}

// m6Result is M6 on every stand-in.
type m6Result struct {
	Seeds    []uint64
	Duration sim.Time
	Benches  []m6Bench
	Obs      []m6Obs
	// Models: the benchmarks are the models, not the stand-ins.
	Models bool
}

// MaxDelta and MeanDelta are the largest and the mean |x − y| over the
// stand-ins and companions.
func (r *m6Result) MaxDelta() float64 {
	var m float64
	for _, b := range r.Benches {
		for _, c := range m6Companions {
			m = math.Max(m, b.Delta.At(c))
		}
	}
	return m
}

func (r *m6Result) MeanDelta() float64 {
	var s float64
	for _, b := range r.Benches {
		for _, c := range m6Companions {
			s += b.Delta.At(c) / float64(len(r.Benches)*len(m6Companions))
		}
	}
	return s
}

// PollsCompared and PollDiffs count the compiled methods whose poll sites
// were compared, and those whose counts differ.
func (r *m6Result) PollsCompared() int {
	n := 0
	for _, b := range r.Benches {
		n += b.Compared
	}
	return n
}

func (r *m6Result) PollDiffs() int {
	n := 0
	for _, b := range r.Benches {
		n += b.Differ
	}
	return n
}

// measureM6: on each single-threaded DaCapo-2006 stand-in (with o.Models,
// each model, its recorder threads dropped), xprof runs
// costed alone and beside each of hprof, jprofile and yourkit (also
// costed), for every seed; the bar is |x − y|, x and y xprof's hotness of
// its hottest method alone and with the companion, averaged over the
// seeds (the paper's Fig. 9). The yield points the JIT placed in the 10
// hottest methods are compared between a run profiled by xprof and one by
// hprof.
func measureM6(o Options) (*m6Result, error) {
	d := 500 * sim.Millisecond
	if o.Full {
		d = 5 * sim.Second
	}
	d = fixedDuration(o, d)
	configs := [][]string{{"xprof"}, {"hprof"}}
	for _, c := range m6Companions {
		configs = append(configs, []string{"xprof", c})
	}
	type key struct {
		bench    string
		seed, cf int
	}
	var keys []key
	benches := disagreementSet(o)
	for _, b := range benches {
		for si := range o.Seeds {
			for ci := range configs {
				keys = append(keys, key{b, si, ci})
			}
		}
	}
	rk := make([]m6Key, len(keys))
	for i, k := range keys {
		rk[i] = m6Key{k.bench, o.Seeds[k.seed], d, strings.Join(configs[k.cf], ",")}
	}
	runs, err := runAll(o, rk)
	if err != nil {
		return nil, err
	}
	get := map[key]*m6Run{}
	for i, k := range keys {
		get[k] = runs[i]
	}
	res := &m6Result{Seeds: o.Seeds, Duration: d, Models: o.Models}
	for _, b := range benches {
		// M: xprof's hottest method alone, by hotness averaged over seeds.
		avg := map[string]float64{}
		for si := range o.Seeds {
			for m, h := range get[key{b, si, 0}].Hotness["xprof"] {
				avg[m] += h / float64(len(o.Seeds))
			}
		}
		top, x := "", -1.0
		for m, h := range avg {
			if h > x || (h == x && m < top) {
				top, x = m, h
			}
		}
		mb := m6Bench{Benchmark: b, Top: top, X: x, Delta: keyed[string, float64]{}}
		for si, seed := range o.Seeds {
			res.Obs = append(res.Obs, m6Obs{b, seed, "none", top, get[key{b, si, 0}].Hotness["xprof"][top]})
		}
		var paired []float64
		for ci, c := range m6Companions {
			var y float64
			for si, seed := range o.Seeds {
				with := get[key{b, si, 2 + ci}].Hotness["xprof"][top]
				res.Obs = append(res.Obs, m6Obs{b, seed, c, top, with})
				y += with / float64(len(o.Seeds))
				paired = append(paired, math.Abs(with-get[key{b, si, 0}].Hotness["xprof"][top]))
			}
			mb.Delta[c] = math.Abs(x - y)
		}
		mb.Paired, _ = MeanCI(paired)
		// Yield points: the same seed profiled by xprof and by hprof; the
		// methods both runs compiled among the truth's 10 hottest.
		var px, ph int
		for si := range o.Seeds {
			rx, rh := get[key{b, si, 0}], get[key{b, si, 1}]
			for _, m := range rx.Top {
				a, okA := rx.Polls[m]
				c, okC := rh.Polls[m]
				if !okA || !okC {
					continue
				}
				px, ph, mb.Compared = px+a, ph+c, mb.Compared+1
				if a != c {
					mb.Differ++
				}
			}
		}
		if mb.Compared > 0 {
			mb.PollsXprof = float64(px) / float64(mb.Compared)
			mb.PollsHprof = float64(ph) / float64(mb.Compared)
		}
		res.Benches = append(res.Benches, mb)
	}
	return res, nil
}

func (r *m6Result) render() (*Result, error) {
	t := &Table{Title: "Mytkowicz Fig. 9: change in xprof's hotness of its hottest method M when a second profiler runs (|x − y|, points), and the JIT's yield points in the 10 hottest methods",
		Columns: []string{"benchmark", "M (xprof alone)", "x (%)", "Δ hprof", "Δ jprofile", "Δ yourkit", "paired |Δ| mean", "polls/method xprof", "polls/method hprof", "methods whose polls differ"}}
	res := &Result{Table: t, Tidy: tidyOf(r.Obs)}
	deltas := map[string]plotter.Values{}
	var sumPolls, sumPollsH float64
	for _, mb := range r.Benches {
		cells := []any{mb.Benchmark, mb.Top, fmt.Sprintf("%.1f", mb.X)}
		for _, c := range m6Companions {
			deltas[c] = append(deltas[c], mb.Delta.At(c))
			cells = append(cells, fmt.Sprintf("%.1f", mb.Delta.At(c)))
		}
		cells = append(cells, fmt.Sprintf("%.1f", mb.Paired))
		sumPolls += mb.PollsXprof / float64(len(r.Benches))
		sumPollsH += mb.PollsHprof / float64(len(r.Benches))
		cells = append(cells, fmt.Sprintf("%.1f", mb.PollsXprof), fmt.Sprintf("%.1f", mb.PollsHprof), fmt.Sprintf("%d of %d", mb.Differ, mb.Compared))
		t.AddRow(cells...)
	}
	t.AddRow("mean", "", "", fmt.Sprintf("%.1f", stat_mean(deltas["hprof"])), fmt.Sprintf("%.1f", stat_mean(deltas["jprofile"])), fmt.Sprintf("%.1f", stat_mean(deltas["yourkit"])), "",
		fmt.Sprintf("%.1f", sumPolls), fmt.Sprintf("%.1f", sumPollsH), fmt.Sprintf("%d of %d", r.PollDiffs(), r.PollsCompared()))
	t.Notes = append(t.Notes,
		fmt.Sprintf("Every profiler costed (agent threads, safepoint pauses, allocation), %v per run, seeds %v; paper: 30 runs each, bars up to ≈ 20 points (Fig. 9), antlr's 10 hottest methods had 9 yield points each with xprof, 7 with hprof.", r.Duration, r.Seeds))
	t.Notes = append(t.Notes, discussion("m6-observer")...)
	if r.Models {
		t.Notes = append(t.Notes, modelFixedNote)
	}

	// Figure: per stand-in and companion, y − x paired by seed (xprof's
	// hotness of M beside the companion minus alone), mean and 95 % CI
	// over seeds; its magnitude is the table's |x − y|. Zero (no
	// observer effect) is the reference.
	hot := func(b, c string, seed uint64) float64 {
		for _, o := range r.Obs {
			if o.Benchmark == b && o.Companion == c && o.Seed == seed {
				return o.HotnessPct
			}
		}
		return math.NaN()
	}
	p := plot.New()
	p.Title.Text = "M6: xprof's hotness of its hottest method M beside a companion"
	p.X.Label.Text = benchNoun(r.Models)
	p.Y.Label.Text = "y − x: change in M's hotness (points)"
	p.Y.Tick.Marker = plot.TickerFunc(func(min, max float64) []plot.Tick {
		ts := plot.DefaultTicks{}.Ticks(min, max)
		for i := range ts {
			if ts[i].Label != "" {
				ts[i].Label = strconv.FormatFloat(ts[i].Value, 'f', -1, 64)
			}
		}
		return ts
	})
	var names []string
	for _, mb := range r.Benches {
		names = append(names, mb.Benchmark)
	}
	lo, hi := 0.0, 0.0
	for ci, c := range m6Companions {
		var pts errPoints
		for bi, mb := range r.Benches {
			var d []float64
			for _, seed := range r.Seeds {
				d = append(d, hot(mb.Benchmark, c, seed)-hot(mb.Benchmark, "none", seed))
			}
			m := newStat(d)
			h := pts.add(float64(bi)-0.2+0.2*float64(ci), m)
			lo, hi = math.Min(lo, m.Mean-h), math.Max(hi, m.Mean+h)
		}
		if err := pts.addTo(p, series{Label: "with " + c, Style: ci, Radius: vg.Points(3.5)}); err != nil {
			return nil, err
		}
	}
	zero, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 0}, {X: float64(len(names)) - 0.5, Y: 0}})
	if err != nil {
		return nil, err
	}
	zero.Color, zero.Dashes = color.Gray{Y: 100}, []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(zero)
	p.Legend.Add("no observer effect (0)", zero)
	p.NominalX(tickNames(names)...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	p.Y.Min, p.Y.Max = lo, hi
	res.Figure = newFigure(fmt.Sprintf("x = the share of samples xprof gives its hottest method M when it profiles alone; y = the same share when a second profiler (the companion) runs beside it, both costed; y − x paired by seed, mean ± CI per %s: 0 means the companion changes nothing. ", benchNoun(r.Models))+captionCI, p)
	return res, nil
}

func stat_mean(v []float64) float64 {
	m, _ := MeanCI(v)
	return m
}
