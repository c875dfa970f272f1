package study

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
)

func init() {
	register(Experiment{Name: "m6-observer", Claim: "M6", Title: "Mytkowicz Fig. 9: a second profiler changes xprof's hottest method, and the JIT's yield points", Run: runM6})
}

// m6Companions are the profilers turned on beside xprof (Fig. 9's bars).
var m6Companions = []string{"hprof", "jprofile", "yourkit"}

// m6Run is what one costed run leaves for M6: each profiler's hotness per
// method, and the yield points the JIT placed in the truth's 10 hottest
// methods.
type m6Run struct {
	hotness map[string]map[string]float64 // profiler → method → %
	polls   map[string]int                // method → poll sites in its compiled code
	top     []string                      // truth's 10 hottest methods
}

func m6Once(bench string, seed uint64, d sim.Time, profs []string) (*m6Run, error) {
	p, err := workloads.Get(bench)
	if err != nil {
		return nil, err
	}
	cfg := harness.DefaultConfig()
	cfg.Sim.Seed, cfg.Sim.Duration = seed, d
	cfg.Samplers, cfg.Mode = profs, samplers.Costed
	out, err := harness.Run(p, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s %v: %w", bench, profs, err)
	}
	r := &m6Run{hotness: map[string]map[string]float64{}, polls: map[string]int{}}
	for _, n := range profs {
		h := map[string]float64{}
		for m := range out.Profiles[n].MethodWeights() {
			h[m] = profile.Hotness(out.Profiles[n], m)
		}
		r.hotness[n] = h
	}
	tw := out.Profiles["truth"].MethodWeights()
	for m := range tw {
		r.top = append(r.top, m)
	}
	sort.Slice(r.top, func(i, j int) bool {
		if tw[r.top[i]] != tw[r.top[j]] {
			return tw[r.top[i]] > tw[r.top[j]]
		}
		return r.top[i] < r.top[j]
	})
	r.top = r.top[:min(10, len(r.top))]
	for _, m := range r.top {
		if i, ok := out.JIT.Method(m); ok {
			if c := out.JIT.CompiledCode(i); c != nil {
				r.polls[m] = jit.PollSites(c)
			}
		}
	}
	return r, nil
}

// runM6: on each single-threaded DaCapo-2006 stand-in, xprof runs costed
// alone and beside each of hprof, jprofile and yourkit (also costed), for
// every seed; the bar is |x − y|, x and y xprof's hotness of its hottest
// method alone and with the companion, averaged over the seeds (the
// paper's Fig. 9). The yield points the JIT placed in the 10 hottest
// methods are compared between a run profiled by xprof and one by hprof.
func runM6(o Options) (*Result, error) {
	d := 500 * sim.Millisecond
	if o.Full {
		d = 5 * sim.Second
	}
	configs := [][]string{{"xprof"}, {"hprof"}}
	for _, c := range m6Companions {
		configs = append(configs, []string{"xprof", c})
	}
	type key struct {
		bench    string
		seed, cf int
	}
	var keys []key
	for _, b := range disagreementBenches {
		for si := range o.Seeds {
			for ci := range configs {
				keys = append(keys, key{b, si, ci})
			}
		}
	}
	runs, err := runAll(keys, func(k key) (*m6Run, error) { return m6Once(k.bench, o.Seeds[k.seed], d, configs[k.cf]) })
	if err != nil {
		return nil, err
	}
	get := map[key]*m6Run{}
	for i, k := range keys {
		get[k] = runs[i]
	}

	t := &Table{Title: "Mytkowicz Fig. 9: change in xprof's hotness of its hottest method M when a second profiler runs (|x − y|, points), and the JIT's yield points in the 10 hottest methods",
		Columns: []string{"benchmark", "M (xprof alone)", "x (%)", "Δ hprof", "Δ jprofile", "Δ yourkit", "paired |Δ| mean", "polls/method xprof", "polls/method hprof", "methods whose polls differ"}}
	res := &Result{Table: t, Values: map[string]float64{}}
	var maxDelta, sumDelta, sumPolls, sumPollsH float64
	var pollDiffs, compared int
	deltas := map[string]plotter.Values{}
	for _, b := range disagreementBenches {
		// M: xprof's hottest method alone, by hotness averaged over seeds.
		avg := map[string]float64{}
		for si := range o.Seeds {
			for m, h := range get[key{b, si, 0}].hotness["xprof"] {
				avg[m] += h / float64(len(o.Seeds))
			}
		}
		top, x := "", -1.0
		for m, h := range avg {
			if h > x || (h == x && m < top) {
				top, x = m, h
			}
		}
		cells := []any{b, top, fmt.Sprintf("%.1f", x)}
		var paired []float64
		for ci, c := range m6Companions {
			var y float64
			for si := range o.Seeds {
				with := get[key{b, si, 2 + ci}].hotness["xprof"][top]
				y += with / float64(len(o.Seeds))
				paired = append(paired, math.Abs(with-get[key{b, si, 0}].hotness["xprof"][top]))
			}
			delta := math.Abs(x - y)
			res.Values[b+"/"+c] = delta
			deltas[c] = append(deltas[c], delta)
			maxDelta = math.Max(maxDelta, delta)
			sumDelta += delta / float64(len(disagreementBenches)*len(m6Companions))
			cells = append(cells, fmt.Sprintf("%.1f", delta))
		}
		pm, _ := MeanCI(paired)
		cells = append(cells, fmt.Sprintf("%.1f", pm))
		// Yield points: the same seed profiled by xprof and by hprof; the
		// methods both runs compiled among the truth's 10 hottest.
		var px, ph, n, differ int
		for si := range o.Seeds {
			rx, rh := get[key{b, si, 0}], get[key{b, si, 1}]
			for _, m := range rx.top {
				a, okA := rx.polls[m]
				c, okC := rh.polls[m]
				if !okA || !okC {
					continue
				}
				px, ph, n = px+a, ph+c, n+1
				if a != c {
					differ++
				}
			}
		}
		if n > 0 {
			res.Values[b+"/polls_xprof"] = float64(px) / float64(n)
			res.Values[b+"/polls_hprof"] = float64(ph) / float64(n)
			sumPolls += float64(px) / float64(n) / float64(len(disagreementBenches))
			sumPollsH += float64(ph) / float64(n) / float64(len(disagreementBenches))
		}
		pollDiffs += differ
		compared += n
		cells = append(cells, fmt.Sprintf("%.1f", float64(px)/float64(max(n, 1))), fmt.Sprintf("%.1f", float64(ph)/float64(max(n, 1))), fmt.Sprintf("%d of %d", differ, n))
		t.AddRow(cells...)
	}
	res.Values["max_delta"] = maxDelta
	res.Values["mean_delta"] = sumDelta
	res.Values["poll_diffs"] = float64(pollDiffs)
	res.Values["polls_compared"] = float64(compared)
	res.Values["polls_xprof"], res.Values["polls_hprof"] = sumPolls, sumPollsH
	t.AddRow("mean", "", "", fmt.Sprintf("%.1f", stat_mean(deltas["hprof"])), fmt.Sprintf("%.1f", stat_mean(deltas["jprofile"])), fmt.Sprintf("%.1f", stat_mean(deltas["yourkit"])), "",
		fmt.Sprintf("%.1f", sumPolls), fmt.Sprintf("%.1f", sumPollsH), fmt.Sprintf("%d of %d", pollDiffs, compared))
	t.Notes = append(t.Notes,
		fmt.Sprintf("Every profiler costed (agent threads, safepoint pauses, allocation), %v per run, seeds %v; paper: 30 runs each, bars up to ≈ 20 points (Fig. 9), antlr's 10 hottest methods had 9 yield points each with xprof, 7 with hprof.", d, o.Seeds),
		"Δ compares seed-averaged hotness, as the paper does; 'paired |Δ|' compares runs of the same seed, where the program's own random choices are identical and only the companion profiler differs.",
		"Yield points: poll sites (prologue, returns, back-edges, strip-mined ones) of each method's compiled code at the end of the run, inlined callees included; the compiler decides inlining when it starts a compilation, from the call-site counts at that moment.")

	p := plot.New()
	p.Title.Text = "M6: xprof's hotness of its hottest method, alone vs with another profiler"
	p.Y.Label.Text = "|x − y| (points)"
	w := vg.Points(8)
	for ci, c := range m6Companions {
		bars, err := plotter.NewBarChart(deltas[c], w)
		if err != nil {
			return nil, err
		}
		bars.Offset = w * vg.Length(ci-1)
		bars.Color = plotutil.Color(ci)
		p.Add(bars)
		p.Legend.Add(c, bars)
	}
	p.NominalX(disagreementBenches...)
	p.Legend.Top = true
	res.Figure = p
	return res, nil
}
