package study

import (
	"fmt"
	"slices"

	"gonum.org/v1/plot"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "d5-instrumentation", Claim: "D5", Title: "Burchell & Marr (MPLR'24): probes inserted before inlining make a tracing profiler see a program as if nothing were inlined; probes placed after inlining (Bubo) leave compilation as it was", Run: typed(measureD5)})
}

// d5Placements are the tracer's two probe placements: in the bytecode,
// before the JIT (JProfiler's and YourKit's call tracing), and at the
// JIT's compiled units, after inlining (Bubo).
var d5Placements = []string{"before", "after"}

// d5Sizeless is the before-inlining tracer with probes of no size
// (probe_bytes=0), run with inlining on only: the run as slow as with
// sized probes, compiled as if their size did not count — what the
// probes' size alone does to inlining.
const d5Sizeless = "before-sizeless"

// d5Spec is the instrument sampler's spec for a placement.
func d5Spec(placement string) string {
	switch placement {
	case "after":
		return "instrument,after_inlining=true"
	case d5Sizeless:
		return "instrument,probe_bytes=0"
	}
	return "instrument"
}

// d5Benches are D6's programs, shorter: the tracer stops every thread at
// every probe, which makes a run several times slower to simulate. Four
// stand-ins at a fifth of M2's iterations and the two models at a
// twentieth of the recording (--full: D6's lengths).
func d5Benches(o Options) []d6Bench {
	if o.Full {
		return d6Benches(Options{}) // D6's claim-test lengths
	}
	var out []d6Bench
	for _, b := range causalityBenchmarks {
		if slices.Contains([]string{"antlr", "fop", "luindex", "pmd"}, b.name) {
			out = append(out, d6Bench{Name: b.name, Iters: b.iters / 5})
		}
	}
	return append(out, d6Bench{Name: "antlr-real", Scale: 0.05}, d6Bench{Name: "luindex-real", Scale: 0.05})
}

// d5Key is one D5 run: bench at seed, with inlining on or off, and the
// tracer with its probes placed before or after inlining ("": no
// profiler, the truth alone).
type d5Key struct {
	bench     d6Bench
	seed      uint64
	inline    bool
	placement string
}

// spec is k's run: HotSpot 17, costed (the probes cost their cycles and
// the inliner sees their size), to the program's end, the truth and the
// tracer.
func (k d5Key) spec() harness.Spec {
	s := paperSpec(k.bench.Name, k.seed, 120*sim.Second)
	s.VM = "hotspot17"
	if k.bench.Scale > 0 {
		if k.bench.Scale != 1 {
			s.LoopScale = k.bench.Scale
		}
	} else {
		s.Iterations = k.bench.Iters
	}
	inline := k.inline
	s.Inline = &inline
	s.Mode = samplers.Costed
	s.Truth = "methods"
	s.Samplers = []string{"truth"}
	if k.placement != "" {
		s.Samplers = append(s.Samplers, d5Spec(k.placement))
	}
	return s
}

// d5Run is one run: its end (s), the callees inlined in each compiled
// method's last installed code, the truth's and the tracer's flat
// profiles, and the tracer's probe calls and activations it closed late
// or missed.
type d5Run struct {
	End              float64
	Inlined          map[int32]int
	Truth, Profile   d6Profile
	Probes           int64
	Unmatched, Stale float64
}

func (k d5Key) run() (*d5Run, error) {
	out, err := runSpec(k.spec())
	if err != nil {
		return nil, fmt.Errorf("%s seed %d inline %v %s: %w", k.bench.Name, k.seed, k.inline, k.placement, err)
	}
	r := &d5Run{End: out.Result.End.Seconds(), Truth: flatProfile(out.Profiles["truth"])}
	r.Inlined = map[int32]int{}
	for _, e := range out.JIT.Events() {
		if e.Done > 0 || e.Started == 0 && e.Size > 0 { // installed, or compiled before the run (not still queued)
			r.Inlined[e.Method] = e.Inlined // its last installed code's
		}
	}
	if k.placement != "" {
		r.Profile = flatProfile(out.Profiles["instrument"])
		c := out.Costs["instrument"]
		r.Probes, r.Unmatched, r.Stale = c.Taken, c.Measures[samplers.UnmatchedExits], c.Measures[samplers.StaleActivations]
	}
	return r, nil
}

// d5Obs is one tidy observation: the tracer with its probes placed
// Placement on Bench at Seed, inlining on.
//
// VsInlining and VsNoInlining are the overlaps (%) of its flat profile
// with the truth of the run without the profiler, inlining on (the real
// program) and off; VsOwnTruth with the truth of its own run (the
// instrumented program). Blind is the overlap of its profile with
// inlining on and its profile with inlining off: 100 when it cannot tell
// whether the JIT inlines. TruthBlind is the same for the truth without
// the profiler: how much inlining changes the real program's profile;
// InlineGain how much longer the program runs without inlining.
// Slowdown is the run's length over the run without the profiler;
// InlinedPlain and Inlined the callees the JIT inlined without and with
// it in the Compiled methods it compiled in all three runs (each
// method's last installed code).
type d5Obs struct {
	Bench        string  `tidy:"benchmark"`
	Seed         uint64  `tidy:"seed"`
	Placement    string  `tidy:"placement"`
	VsInlining   float64 `tidy:"overlap_vs_inlining_truth_pct"`
	VsNoInlining float64 `tidy:"overlap_vs_no_inlining_truth_pct"`
	VsOwnTruth   float64 `tidy:"overlap_vs_own_truth_pct"`
	Blind        float64 `tidy:"overlap_inline_on_off_pct"`
	TruthBlind   float64 `tidy:"truth_overlap_inline_on_off_pct"`
	InlineGain   float64 `tidy:"no_inlining_run_ratio"`
	Slowdown     float64 `tidy:"slowdown"`
	Compiled     int     `tidy:"methods_compiled_in_both"`
	InlinedPlain int     `tidy:"inlined_without_profiler"`
	Inlined      int     `tidy:"inlined_with_profiler"`
	// InlinedSizeless is Inlined with probes of no size (d5Sizeless).
	InlinedSizeless int     `tidy:"inlined_with_sizeless_probes"`
	Probes          int64   `tidy:"probe_calls"`
	Unmatched       float64 `tidy:"unmatched_exits"`
	Stale           float64 `tidy:"stale_activations"`
}

// d5Result is every D5 observation.
type d5Result struct {
	Seeds   []uint64
	Benches []d6Bench
	Obs     []d5Obs
}

// overlapPct is the overlap (%) of two flat profiles.
func overlapPct(a, b d6Profile) float64 { return 100 * profile.OverlapWeights(a.Shares, b.Shares) }

// measureD5 runs every bench at every seed with inlining on and off,
// without the profiler and with each probe placement, and compares the
// tracer's profiles with the two truths.
func measureD5(o Options) (*d5Result, error) {
	benches := d5Benches(o)
	var keys []d5Key
	for _, b := range benches {
		for _, seed := range o.Seeds {
			for _, inline := range []bool{true, false} {
				for _, pl := range append([]string{""}, d5Placements...) {
					keys = append(keys, d5Key{b, seed, inline, pl})
				}
				if inline {
					keys = append(keys, d5Key{b, seed, inline, d5Sizeless})
				}
			}
		}
	}
	rs, err := runAll(o, keys)
	if err != nil {
		return nil, err
	}
	at := map[d5Key]*d5Run{}
	for i, k := range keys {
		at[k] = rs[i]
	}
	res := &d5Result{Seeds: o.Seeds, Benches: benches}
	for _, b := range benches {
		for _, seed := range o.Seeds {
			on, off := at[d5Key{b, seed, true, ""}], at[d5Key{b, seed, false, ""}]
			for _, pl := range d5Placements {
				p, q := at[d5Key{b, seed, true, pl}], at[d5Key{b, seed, false, pl}]
				sizeless := at[d5Key{b, seed, true, d5Sizeless}]
				var plain, with, without, compiled int
				for m, n := range on.Inlined {
					k, ok := p.Inlined[m]
					z, zok := sizeless.Inlined[m]
					if ok && zok {
						plain, with, without, compiled = plain+n, with+k, without+z, compiled+1
					}
				}
				res.Obs = append(res.Obs, d5Obs{Bench: b.Name, Seed: seed, Placement: pl,
					VsInlining: overlapPct(p.Profile, on.Truth), VsNoInlining: overlapPct(p.Profile, off.Truth),
					VsOwnTruth: overlapPct(p.Profile, p.Truth), Blind: overlapPct(p.Profile, q.Profile),
					TruthBlind: overlapPct(on.Truth, off.Truth), InlineGain: off.End / on.End, Slowdown: p.End / on.End,
					Compiled: compiled, InlinedPlain: plain, Inlined: with, InlinedSizeless: without, Probes: p.Probes, Unmatched: p.Unmatched, Stale: p.Stale})
			}
		}
	}
	return res, nil
}

// of lists the observations of placement on bench (every bench: "").
func (r *d5Result) of(bench, placement string) []d5Obs {
	return where(r.Obs, func(x d5Obs) bool { return (bench == "" || x.Bench == bench) && x.Placement == placement })
}

// Stat is f's stat over the seeds of placement on bench (every bench:
// "").
func (r *d5Result) Stat(bench, placement string, f func(d5Obs) float64) stat {
	return newStat(values(r.of(bench, placement), f))
}

func (r *d5Result) render() (*Result, error) {
	t := &Table{Title: "D5: a tracing profiler's flat profile against the truth of the program with and without inlining, its profile with inlining on against off, its slowdown and the JIT's inlining — probes before inlining (bytecode) and after (Bubo) (mean ± 95 % CI over seeds)",
		Columns: []string{"benchmark", "probes", "overlap with the inlining truth (%)", "with the no-inlining truth (%)", "with its own run's truth (%)", "its profile, inlining on vs off (%)", "the truth, inlining on vs off (%)", "slowdown ×", "methods compiled in every run", "their inlined callees: without the profiler / with / (before) with probes of no size"}}
	for _, b := range r.Benches {
		for _, pl := range d5Placements {
			obs := r.of(b.Name, pl)
			if len(obs) == 0 {
				continue
			}
			st := func(f func(d5Obs) float64) string { return r.Stat(b.Name, pl, f).String() }
			mean := func(f func(d5Obs) int) float64 {
				return r.Stat(b.Name, pl, func(x d5Obs) float64 { return float64(f(x)) }).Mean
			}
			inl := fmt.Sprintf("%.0f / %.0f", mean(func(x d5Obs) int { return x.InlinedPlain }), mean(func(x d5Obs) int { return x.Inlined }))
			if pl == "before" {
				inl += fmt.Sprintf(" / %.0f", mean(func(x d5Obs) int { return x.InlinedSizeless }))
			}
			t.AddRow(b.Name, pl, st(func(x d5Obs) float64 { return x.VsInlining }), st(func(x d5Obs) float64 { return x.VsNoInlining }),
				st(func(x d5Obs) float64 { return x.VsOwnTruth }), st(func(x d5Obs) float64 { return x.Blind }),
				st(func(x d5Obs) float64 { return x.TruthBlind }), st(func(x d5Obs) float64 { return x.Slowdown }),
				fmt.Sprintf("%.0f", mean(func(x d5Obs) int { return x.Compiled })),
				inl)
		}
	}
	about := describeBenches(r.Benches)
	t.Notes = []string{fmt.Sprintf("Seeds %v. Programs, each run to its end: %v. HotSpot 17 preset, costed; instrument's probes of 100 cycles and (before inlining) 6 bytes each, at every method's entry and before its returns: before = in every method's bytecode before the JIT (inlined bodies keep them), after = placed by the JIT at the entry and returns of each unit it compiles (Bubo: no size, none in inlined callees or interpreted code). Overlaps are of flat profiles (self share per method); the truths are of the runs without the profiler, inlining on (the real program) and off (--inline=false); inlined callees are those of each method's last installed code, summed over the methods the JIT compiled in the run without the profiler, with it and with the before-inlining tracer's probes of no size (probe_bytes=0: as slow, but sized out of inlining; mean over seeds).", r.Seeds, about)}
	t.Notes = append(t.Notes, discussion("d5-instrumentation")...)
	fig, err := r.figure()
	if err != nil {
		return nil, err
	}
	return &Result{Table: t, Tidy: tidyOf(r.Obs), Figure: fig}, nil
}

// figure: per program, the before-inlining tracer's overlap with the
// inlining and the no-inlining truth, and the after-inlining tracer's
// with the inlining truth.
func (r *d5Result) figure() (*Figure, error) {
	p := plot.New()
	p.Title.Text = "D5: the tracer against two truths"
	p.X.Label.Text = "program"
	p.Y.Label.Text = "overlap of flat profiles (%)"
	names := benchNames(r.Benches)
	for si, s := range []struct {
		label, placement string
		f                func(d5Obs) float64
	}{
		{"before: inlining truth", "before", func(x d5Obs) float64 { return x.VsInlining }},
		{"before: no-inlining truth", "before", func(x d5Obs) float64 { return x.VsNoInlining }},
		{"after (Bubo): inlining truth", "after", func(x d5Obs) float64 { return x.VsInlining }},
	} {
		var pts errPoints
		for i, b := range names {
			pts.add(float64(i)-0.2+0.2*float64(si), r.Stat(b, s.placement, s.f))
		}
		if err := pts.addTo(p, series{Label: s.label, Style: si}); err != nil {
			return nil, err
		}
	}
	p.NominalX(tickNames(names)...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5

	q := plot.New()
	q.Title.Text = "D5: inlining on against off"
	q.X.Label.Text = "program"
	q.Y.Label.Text = "overlap, inlining on vs off (%)"
	for si, s := range []struct {
		label, placement string
		f                func(d5Obs) float64
	}{
		{"truth (no profiler)", "before", func(x d5Obs) float64 { return x.TruthBlind }},
		{"before inlining", "before", func(x d5Obs) float64 { return x.Blind }},
		{"after inlining (Bubo)", "after", func(x d5Obs) float64 { return x.Blind }},
	} {
		var pts errPoints
		for i, b := range names {
			pts.add(float64(i)-0.2+0.2*float64(si), r.Stat(b, s.placement, s.f))
		}
		if err := pts.addTo(q, series{Label: s.label, Style: si}); err != nil {
			return nil, err
		}
	}
	q.NominalX(tickNames(names)...)
	q.X.Min, q.X.Max = -0.5, float64(len(names))-0.5
	return newFigure("Left: the overlap of a tracing profiler's flat profile (self time per method from its probes' timestamps) with the exact profile of the program run without the profiler, with inlining (the real program) and without (--inline=false). Right: each profile with inlining on against the same with inlining off — the exact one of the program without the profiler and the tracer's; 100 % = it cannot tell whether the JIT inlines. Probes in the bytecode before the JIT (before), or placed by the JIT after inlining at its compiled units (after: Bubo); costed, probes of 100 cycles; mean over seeds with its CI. JIT = just-in-time compiler. "+captionCI, p, q), nil
}
