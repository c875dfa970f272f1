package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// d5Blind is how close a before-inlining tracer's profile with inlining
// on comes to its profile with inlining off: "basically identical"
// (Burchell & Marr, MPLR'24). Measured 98.38–100.00 % over the six
// programs and seeds 1–3 (the stand-ins and luindex-real ≥ 99.46 %).
const d5Blind = 98.5

// d5BlindAntlrReal pins a documented divergence: on antlr-real the
// before-inlining tracer's profiles with inlining on and off overlap
// 98.38–98.46 % (seeds 1–3), under d5Blind, because the program's own
// flat profile in the traced runs changes as much (its truth, inlining on
// against off: 98.35 % at seed 1), mostly in native I/O
// (FileInputStream.available0 1.50 → 1.97 %, readBytes 1.00 → 1.33 %);
// the tracer sees no more than that (study/notes/d5-instrumentation.md).
const d5BlindAntlrReal = 98.0

// d5InliningMatters marks the programs whose real profile inlining
// changes measurably: the truth with inlining on and off overlaps less
// than this (%). The two models (98.19–99.10 % over seeds 1–3); the
// stand-ins, where the JIT inlines 0–19 callees, overlap 99.77–100 %.
const d5InliningMatters = 99.5

// d5Closer is how much closer (overlap points) the before-inlining
// tracer's profile must sit to the no-inlining truth than to the
// inlining one where inlining matters: measured 0.83–0.85 on
// antlr-real, 1.57–1.59 on luindex-real (seeds 1–3).
const d5Closer = 0.5

// d5MinSlowdown: probes of 100 cycles at every entry and exit slow the
// programs at least this much; measured 1.67× (antlr-real, whose time is
// mostly native) to 3.52× (antlr).
const d5MinSlowdown = 1.5

// d5BuboSlowdown bounds the after-inlining tracer's median slowdown over
// the programs, seed by seed: the paper's Bubo has "a median overhead of
// 23.3 %" over its benchmarks (MPLR'24 abstract), a median, not a bound
// on every program; measured 1.184× (seeds 1–3), the programs
// 1.154–1.234× (luindex-real 1.198–1.234×).
const d5BuboSlowdown = 1.25

// d5SameInlining bounds the relative change of the callees inlined in
// the methods compiled in every run when the probes are placed after
// inlining: the JIT decides as without the profiler, only the slightly
// slower run compiles with other call-site counts; measured no change
// (the models inline 2 436 and 578 callees with and without it).
const d5SameInlining = 0.005

// d5BuboSees bounds the after-inlining tracer's profile with inlining on
// against off where the JIT inlines much (d5ManyInlined): an inlined
// callee's time is its compiled root's, so the profile changes with
// inlining; measured 30.37–33.19 % on the models.
const d5BuboSees = 60.0

// d5ManyInlined: programs whose compiled methods inline at least this
// many callees (the models: 578–2436; the stand-ins 0–19).
const d5ManyInlined = 100

// TestD5_Instrumentation: Burchell & Marr (MPLR'24) find that with
// bytecode-level instrumentation a program "with and without inlining
// is basically identical" to the profiler, and that instrumenting after
// inlining (their Bubo) gives realistic results at a fraction of the
// overhead. With instrument's probes of 100 cycles and 6 bytes:
//   - before inlining, the tracer's profile with inlining on and off
//     overlaps ≥ d5Blind: it cannot tell whether the JIT inlines;
//   - where inlining changes the real profile (the models), its profile
//     is closer to the no-inlining truth than to the inlining one, by
//     d5Closer: every call keeps its probes, inlined or not;
//   - the probes' size makes the JIT inline less: never more callees
//     than with probes of no size in the same (as slow) run, and fewer
//     on some program (antlr-real, whose methods sit near
//     MaxInlineSize; at --full the stand-ins inline 488–1752 callees
//     and the probes' size changes none of them);
//   - the probes slow the run ≥ d5MinSlowdown; placed after inlining,
//     the median over the programs ≤ d5BuboSlowdown, and less than
//     before inlining on every run;
//   - after inlining the JIT inlines as without the profiler (within
//     d5SameInlining), and the tracer's profile does change with
//     inlining (≤ d5BuboSees where the JIT inlines much): it sees the
//     compiled code as it runs.
//
// Fails when a probe does not survive inlining and has no size (the
// mutation in study/notes/d5-instrumentation.md).
func TestD5_Instrumentation(t *testing.T) {
	r := measure[*d5Result](t, "d5-instrumentation")
	before := map[[2]any]d5Obs{}
	var sawSize bool
	for _, x := range r.of("", "before") {
		before[[2]any{x.Bench, x.Seed}] = x
		blind := d5Blind
		if x.Bench == "antlr-real" {
			blind = d5BlindAntlrReal
		}
		assert.GreaterOrEqual(t, x.Blind, blind, "%s seed %d: the before-inlining tracer sees the program alike with and without inlining", x.Bench, x.Seed)
		if x.TruthBlind < d5InliningMatters {
			assert.GreaterOrEqual(t, x.VsNoInlining-x.VsInlining, d5Closer, "%s seed %d: its profile is closer to the no-inlining truth (%.2f) than to the inlining one (%.2f)", x.Bench, x.Seed, x.VsNoInlining, x.VsInlining)
		}
		sawSize = sawSize || x.Inlined < x.InlinedSizeless
		assert.LessOrEqual(t, x.Inlined, x.InlinedSizeless, "%s seed %d: the probes' size never makes the JIT inline more", x.Bench, x.Seed)
		assert.GreaterOrEqual(t, x.Slowdown, d5MinSlowdown, "%s seed %d: the probes' cost", x.Bench, x.Seed)
	}
	var sawMany, sawMatters bool
	slowdowns := map[uint64][]float64{}
	for _, x := range r.of("", "after") {
		b := before[[2]any{x.Bench, x.Seed}]
		slowdowns[x.Seed] = append(slowdowns[x.Seed], x.Slowdown)
		assert.Less(t, x.Slowdown, b.Slowdown, "%s seed %d: less than probes before inlining", x.Bench, x.Seed)
		assert.InDelta(t, float64(x.InlinedPlain), float64(x.Inlined), d5SameInlining*float64(x.InlinedPlain), "%s seed %d: the JIT inlines as without the profiler", x.Bench, x.Seed)
		if x.InlinedPlain >= d5ManyInlined {
			sawMany = true
			assert.LessOrEqual(t, x.Blind, d5BuboSees, "%s seed %d: the after-inlining tracer sees inlining", x.Bench, x.Seed)
			assert.Less(t, x.Blind, b.Blind, "%s seed %d: more than the before-inlining tracer", x.Bench, x.Seed)
		}
		sawMatters = sawMatters || x.TruthBlind < d5InliningMatters
	}
	for seed, xs := range slowdowns {
		assert.LessOrEqual(t, median(xs), d5BuboSlowdown, "seed %d: probes after inlining cost little at the median (programs %.3f)", seed, xs)
	}
	assert.True(t, sawSize, "the probes' size makes the JIT inline less somewhere")
	assert.True(t, sawMany, "a program inlines much")
	assert.True(t, sawMatters, "a program whose real profile inlining changes")
}

// d5TruthBlind: without the profiler, the programs' exact profiles with
// inlining on and off overlap at least this much (measured 98.06 % on
// luindex-real to 100 % on luindex, seeds 1–3).
const d5TruthBlind = 97.0

// d5InlineGain bounds how much longer a program runs with inlining off:
// measured 0.999–1.027× (seeds 1–3). Real JVMs run the paper's
// benchmarks several times slower without inlining.
const d5InlineGain = 1.1

// d5PaperSlowdown: the paper's least costly bytecode-instrumenting
// profiler slowed its benchmarks 82× (MPLR'24 abstract); the
// before-inlining tracer here costs at most this (measured 1.63–3.52×).
const d5PaperSlowdown = 10.0

// TestDivergence_D5 pins where profsim diverges from the paper. Inlining
// saves only the call sequence (jit's call_cycles, 4) and a return poll
// here — no optimisation across method boundaries — so the real
// program's own profile barely changes with inlining off (≥ d5TruthBlind)
// and runs hardly longer (≤ d5InlineGain): the tracer's blindness to
// inlining is largely the program's, and its pull towards the
// no-inlining truth is 1–2 points. And with our assumed probe cost of
// 100 cycles the bytecode tracer is one to two orders of magnitude
// cheaper than the paper's profilers (≤ d5PaperSlowdown, not 82×).
func TestDivergence_D5(t *testing.T) {
	r := measure[*d5Result](t, "d5-instrumentation")
	for _, x := range r.of("", "before") {
		assert.GreaterOrEqual(t, x.TruthBlind, d5TruthBlind, "%s seed %d: inlining barely changes the real profile", x.Bench, x.Seed)
		assert.LessOrEqual(t, x.InlineGain, d5InlineGain, "%s seed %d: nor the run's length", x.Bench, x.Seed)
		assert.LessOrEqual(t, x.Slowdown, d5PaperSlowdown, "%s seed %d: the tracer's slowdown", x.Bench, x.Seed)
		if x.TruthBlind < d5InliningMatters {
			diverges(t, "%s seed %d: the real profile changes by only %.2f points with inlining off", x.Bench, x.Seed, 100-x.TruthBlind)
		}
	}
	diverges(t, "without inlining the programs run only %.3f–%.3f× longer", minOf(r.of("", "before"), func(x d5Obs) float64 { return x.InlineGain }),
		maxOf(r.of("", "before"), func(x d5Obs) float64 { return x.InlineGain }))
	diverges(t, "the before-inlining tracer slows the programs %.2f–%.2f×, the paper's least costly profiler 82×",
		minOf(r.of("", "before"), func(x d5Obs) float64 { return x.Slowdown }), maxOf(r.of("", "before"), func(x d5Obs) float64 { return x.Slowdown }))
}
