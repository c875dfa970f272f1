package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/samplers"
)

// Tolerances of X1 (CLAIMS.md X1).
const (
	// x1TruthMin: the positive control. hot() holds over 90 % of the
	// truth's self time by Listing 1's construction (measured 98.0 %),
	// so a profiler that moves it to cold() is visibly wrong.
	x1TruthMin = 90.0
	// x1NoDNSMax reads "moves samples of inlined code to the nearest
	// poll's frame" as: less than 5 % left in hot() on every seed
	// (measured 0.5 %, the samples taken while hot() was still
	// interpreted).
	x1NoDNSMax = 5.0
	// x1DNSPoints reads "with it, async matches the truth" as within 3
	// points, pooled over seeds — the tolerance M1 gives exact samplers.
	x1DNSPoints = 3.0
	// x1DNSMin: with DNS, async keeps hot() above 90 % on every seed
	// (the same level as x1TruthMin).
	x1DNSMin = 90.0
)

// TestX1_DebugInfo: with hot() inlined into cold(), async without
// DebugNonSafepoints attributes hot()'s time to cold() (< 5 % left in
// hot() on every seed); with it, async matches the truth within 3 points
// and keeps hot() above 90 % on every seed. The truth is the same with and
// without DNS (debug information costs nothing at run time).
func TestX1_DebugInfo(t *testing.T) {
	r := measure[*X1Result](t, "x1-debug-info")
	truth := r.Hot("truth", false)
	t.Logf("truth hot() %.2f %%; async without DNS %.2f %%, with DNS %.2f %%", truth, r.Hot("async", false), r.Hot("async", true))
	assert.Greater(t, truth, x1TruthMin)
	assert.Equal(t, truth, r.Hot("truth", true), "DNS does not change the execution")
	for _, x := range r.Runs("async", false) {
		assert.Less(t, x, x1NoDNSMax, "without DNS inlined hot() samples must move to cold()")
	}
	assert.InDelta(t, truth, r.Hot("async", true), x1DNSPoints)
	for _, x := range r.Runs("async", true) {
		assert.Greater(t, x, x1DNSMin)
	}
}

// Tolerances of X2 (CLAIMS.md X2). The claim is the model's own; each
// bound was set from 10 seeds (1–10) with the measured values given, so
// these pin the mechanism's behaviour (fair round-robin, the cap's
// coverage, the ablation's starvation) rather than a paper's number.
const (
	// x2CrowdMaxDev: with a constant crowd every worker's share is within
	// 0.5 points of its CPU share on every seed (measured ≤ 0.17; one
	// sample of ≈ 495 is 0.2).
	x2CrowdMaxDev = 0.5
	// x2CrowdMinRatio: and at least 0.95× it (measured ≥ 0.987).
	x2CrowdMinRatio = 0.95
	// x2CrowdCoverage and x2CoverageDelta: coverage is the cap's 5 of 8
	// running threads, 62.5 %, within 2 points (measured 61.9: no tick
	// at 0).
	x2CrowdCoverage = 62.5
	x2CoverageDelta = 2.0
	// x2UncappedMaxDev: the uncapped jfr is within two of its ≈ 790
	// samples, 0.25 points (measured ≤ 0.22).
	x2UncappedMaxDev = 0.25
	// x2UncappedCoverage: the uncapped jfr covers nearly all CPU time.
	x2UncappedCoverage = 97.0
	// x2StarvedRatio and x2StarvedDev: the ablation never samples
	// workers 5–7 (share 0 of 12.5 points): ratio ≤ 0.05, deviation ≥ 10.
	x2StarvedRatio = 0.05
	x2StarvedDev   = 10.0
	// x2PredDev: on the falling crowd jfr's shares follow the fair-cap
	// prediction min(1, 5/R) within 1 point on every seed (measured ≤
	// 0.46).
	x2PredDev = 1.0
	// x2UnderRatio: some thread gets ≤ 0.9× its CPU share on every seed
	// (measured 0.68–0.83, s0).
	x2UnderRatio = 0.9
	// x2UncappedRatio: the uncapped jfr keeps every thread ≥ 0.9×
	// (measured ≥ 0.935).
	x2UncappedRatio = 0.9
	// x2RestartPredDev: the ablation is ≥ 5 points off the prediction on
	// every seed (measured ≥ 7.3).
	x2RestartPredDev = 5.0
)

// TestX2_JFRThreadCap: what jfr's cap of 5 running threads per 20 ms does.
// Tolerances from 10 seeds (1–10), values per seed:
//   - Constant crowd (lusearch, sunflow, xalan: 8 workers on 8 CPUs):
//     round-robin keeps every worker's share within 0.5 points of its CPU
//     share on every seed (measured ≤ 0.17; one sample of ≈ 495 is 0.2)
//     and ≥ 0.95× it (measured ≥ 0.987); coverage is 5/8 (62.5 ± 2 %,
//     measured 61.9: no tick at 0). The ablation that restarts each round
//     at the first thread never samples workers 5–7 (share 0, 12.5 points
//     off). The uncapped jfr is within two of its ≈ 790 samples, 0.25
//     points (measured ≤ 0.22: a worker the compiler thread has just
//     preempted is not running at that tick and is missed).
//   - Falling crowd (staggered, 10 threads ending one by one): jfr's
//     shares follow the fair-cap prediction min(1, 5/R) within 1 point on
//     every seed (measured ≤ 0.46) and under-represent the short-lived
//     thread: on every seed some thread gets ≤ 0.9× its CPU share
//     (measured 0.68–0.83, s0). The uncapped jfr keeps every thread ≥
//     0.9× (measured ≥ 0.935); the ablation is ≥ 5 points off the
//     prediction on every seed (measured ≥ 7.3).
//   - ≤ 4 threads on CPUs (lusearch, 4 CPUs): the cap never binds, jfr's
//     samples are the uncapped one's on every run.
//
// Fails if the round-robin cursor is lost (the ablation's starvation),
// if the cap is not applied (coverage 100 %, no under-representation) or
// if it is applied to runnable rather than running threads.
func TestX2_JFRThreadCap(t *testing.T) {
	r := measure[*X2Result](t, "x2-jfr-thread-cap")
	seeds := len(r.Seeds)
	for _, b := range []string{"lusearch, 8 CPUs", "sunflow, 8 CPUs", "xalan, 8 CPUs"} {
		at := func(s, k string) X2Range { return r.Summary(b, s, k) }
		assert.LessOrEqual(t, at("jfr", "max_dev").Max, x2CrowdMaxDev, "%s: round-robin keeps thread shares", b)
		assert.GreaterOrEqual(t, at("jfr", "min_ratio").Min, x2CrowdMinRatio, b)
		assert.InDelta(t, x2CrowdCoverage, at("jfr", "coverage").Mean, x2CoverageDelta, "%s: coverage 5/8", b)
		assert.LessOrEqual(t, at("jfr-uncapped", "max_dev").Max, x2UncappedMaxDev, b)
		assert.Greater(t, at("jfr-uncapped", "coverage").Mean, x2UncappedCoverage, b)
		assert.LessOrEqual(t, at("jfr-restart", "min_ratio").Max, x2StarvedRatio, "%s: the ablation starves the later workers", b)
		assert.GreaterOrEqual(t, at("jfr-restart", "max_dev").Min, x2StarvedDev, b)
		assert.Zero(t, r.SameAsUncapped(b), "%s: the cap binds", b)
	}
	const st = "staggered, 10 CPUs"
	assert.LessOrEqual(t, r.Summary(st, "jfr", "pred_dev").Max, x2PredDev, "staggered: jfr follows the fair-cap prediction")
	assert.LessOrEqual(t, r.Summary(st, "jfr", "min_ratio").Max, x2UnderRatio, "staggered: some thread under-represented on every seed")
	assert.Less(t, r.Share(st, "s0", "jfr").Mean, r.Share(st, "s0", "truth").Mean, "the short-lived thread is the under-represented one")
	assert.Greater(t, r.Share(st, "s9", "jfr").Mean, r.Share(st, "s9", "truth").Mean, "the thread that runs alone at the end is over-represented")
	assert.GreaterOrEqual(t, r.Summary(st, "jfr-uncapped", "min_ratio").Min, x2UncappedRatio)
	assert.GreaterOrEqual(t, r.Summary(st, "jfr-restart", "pred_dev").Min, x2RestartPredDev)
	assert.Equal(t, seeds, r.SameAsUncapped("lusearch, 4 CPUs"), "≤ 4 running threads: the cap never binds")
}

// Same seeds, same table and data: the runs go through the sweep
// engine's workers, so this also checks that the order they finish in
// does not leak out. The second making runs again, not from the cache.
func TestX2_Deterministic(t *testing.T) {
	run := typed(MeasureX2)
	a, err := run(DefaultOptions())
	require.NoError(t, err)
	forgetRuns[x2Key]()
	b, err := run(DefaultOptions())
	require.NoError(t, err)
	assert.Equal(t, a.Table.Markdown(), b.Table.Markdown())
	ca, err := a.Tidy.CSV()
	require.NoError(t, err)
	cb, err := b.Tidy.CSV()
	require.NoError(t, err)
	assert.Equal(t, string(ca), string(cb))
}

// Tolerances of X3 (CLAIMS.md X3), set from 10 seeds with the measured
// values given.
const (
	// x3PassiveShare: on the multi-threaded stand-ins a passive run moves
	// the truth at most a tenth of what one costed jvmti moves (measured
	// 72× and 127× less at 1 s, seeds 1–3; 15× and 38× less at 3 s).
	x3PassiveShare = 0.1
	// x3TruthMin: the positive control, hot() holds over 90 % of the
	// truth on hotcold by Listing 1's construction (measured ≈ 93 %).
	x3TruthMin = 90.0
	// x3BlameColdMax: a safepoint-family lens gives hot() at most 5 %,
	// M1's "≥ 95 % of samples in cold()" (measured 2.0 %: the samples
	// taken while hot() was interpreted).
	x3BlameColdMax = 5.0
	// x3ExactPoints: the exact-position lenses are within 2 points of the
	// truth (measured 0.8–1.0), tighter than M1's 3.
	x3ExactPoints = 2.0
	// x3TprofSlack: tprof (random intervals) within its 95 % CI over
	// seeds plus 1 point.
	x3TprofSlack = 1.0
	// x3TimerEdgesMax and x3CBSEdgesMin: jikes-timer sees one of
	// callpair's two hot edges (edge overlap ≤ 60 %, measured 54 %), cbs
	// both (≥ 95 %, measured 100 %) — A1's claim on overlap.
	x3TimerEdgesMax = 60.0
	x3CBSEdgesMin   = 95.0
)

// TestX3_PassiveLenses: many samplers watch one execution, passively.
//
// Observer effect (x3-observer-effect, tolerances from 10 seeds): the same
// seed twice is the same run; on the single-threaded stand-ins (hotcold,
// callpair, kiama) every passive run — timer lenses, all lenses, isps — is
// identical to the bare run (truth, end, bytecodes, statements, JIT
// decisions, thread states) on every seed. With threads (h2, xalan) the
// JIT's shared counters let a passive run drift, and the drift grows with
// run length, so it is bounded against the costed sampler of the same
// runs: a passive run moves at most a tenth of the truth's context
// weight that one costed jvmti moves (measured: 72× and 127× less at
// 1 s, seeds 1–3; 15× and 38× less at 3 s, seeds 1–10, where xalan's
// passive runs move up to 1 593 ppm). A costed jvmti is never identical
// (where the program ends within the run, as callpair does at 3 s, only
// its end time differs); komorium, whose instrumentation is different
// code, changes every run that has an instrumented loop (callpair, kiama,
// h2).
//
// Disagreement (x3-passive-lenses): on hotcold without inlining every
// safepoint-family lens gives hot() ≤ 5 % (truth ≈ 93 %; measured 2.0 %
// on every seed: the samples taken while hot() was interpreted) and the
// exact-position lenses are within 2 points of the truth (measured
// 0.8–1.0; jfr 1.0: hot()'s samples resolve to its uncommon traps'
// PcDescs after its return, as OpenJDK 17's do in tools/debuginfo),
// tprof (random intervals) within its 95 % CI + 1 point. No
// depth-limited lens reports a deeper stack; on kiama (308 frames) the
// 256-frame lenses are cut at exactly 256 while the unlimited ones see
// more. jikes-timer sees one of callpair's two hot edges (edge overlap ≤
// 60 %, measured 54 %), cbs both (≥ 95 %, measured 100 %). Every identity
// the mechanisms predict (same clock and polls, cut to the lens's depth;
// sps ≡ isps; hotmethods ≡ the top of pcct; without inlining xprof ≡
// safepoint's leaf and async ≡ pcct) holds on every run where both lenses
// watched the same execution, and the two inlining-sensitive ones break
// where inlining hides frames (xalan: both; h2: async).
func TestX3_PassiveLenses(t *testing.T) {
	ob := measure[*X3ObserverResult](t, "x3-observer-effect")
	n := len(ob.Seeds)
	passive := []string{"timer lenses", "lenses", "isps"}
	for _, b := range []string{"hotcold", "callpair (jikes)", "kiama", "h2", "xalan"} {
		assert.Equal(t, 1, ob.Run(b, "bare again").Identical, "%s: same seed, same run", b)
		for _, k := range passive {
			if b == "h2" || b == "xalan" {
				assert.LessOrEqual(t, ob.Run(b, k).PPM, ob.Run(b, "jvmti costed").PPM*x3PassiveShare, "%s %s: passive ≪ costed", b, k)
			} else {
				assert.Equal(t, n, ob.Run(b, k).Identical, "%s %s: zero observer effect", b, k)
			}
		}
		assert.Zero(t, ob.Run(b, "jvmti costed").Identical, "%s: costed jvmti perturbs", b)
	}
	for _, b := range []string{"callpair (jikes)", "kiama", "h2"} {
		assert.Zero(t, ob.Run(b, "komorium").Identical, "%s: instrumented code is another execution", b)
	}

	r := measure[*X3LensesResult](t, "x3-passive-lenses")
	assert.Zero(t, r.DepthViolations())
	truth := r.TruthTopShare("hotcold").Mean
	assert.Greater(t, truth, x3TruthMin)
	for _, s := range []string{"safepoint", "yourkit", "xprof", "jvmti", "jprofile", "hprof", "sps", "isps"} {
		assert.LessOrEqual(t, r.Lens("hotcold", s).TopShare.Mean, x3BlameColdMax, "%s must blame cold()", s)
	}
	for _, s := range []string{"async", "jfr", "pcct", "hotmethods"} {
		assert.InDelta(t, truth, r.Lens("hotcold", s).TopShare.Mean, x3ExactPoints, s)
	}
	tp := r.Lens("hotcold", "tprof").TopShare
	assert.InDelta(t, truth, tp.Mean, tp.CI+x3TprofSlack, "tprof")
	for _, s := range []string{"safepoint", "jvmti", "sps"} {
		assert.Equal(t, 256, r.Lens("kiama", s).MaxDepth, "%s: cut at 256", s)
	}
	for _, s := range []string{"yourkit", "jprofile", "isps", "pcct", "async"} {
		assert.Greater(t, r.Lens("kiama", s).MaxDepth, 256, "%s: unlimited", s)
	}
	assert.Greater(t, r.TruthDepth("kiama"), 256)
	assert.LessOrEqual(t, r.Lens("callpair (jikes)", "jikes-timer").Methods.Mean, x3TimerEdgesMax)
	assert.GreaterOrEqual(t, r.Lens("callpair (jikes)", "cbs").Methods.Mean, x3CBSEdgesMin)
	// Every identity predicted to hold is checked; the prediction itself
	// comes from the mechanisms, so every identity must be checked on some
	// stand-in and every stand-in must check some identity, or the loop
	// below could assert nothing.
	checkedID, checkedBench := map[string]int{}, map[string]int{}
	for _, b := range []string{"hotcold", "callpair (jikes)", "kiama", "h2", "xalan"} {
		for _, id := range x3Identities {
			k := id.got + "≡" + id.ref
			x := r.Identity(b, id.got, id.ref)
			if !x.Holds() {
				t.Logf("%s %s: not asserted, %s (%d of %d comparable runs)", b, k, x.Prediction, x.Same, x.Comparable)
				continue
			}
			// isps runs alone; on the multi-threaded stand-ins that run
			// drifts by a few ppm from the lenses run (see above), so it
			// may have no comparable run there.
			if id.ref != "isps" || (b != "h2" && b != "xalan") {
				assert.Positive(t, x.Comparable, "%s %s", b, k)
			}
			assert.Equal(t, x.Comparable, x.Same, "%s %s: holds on every comparable run", b, k)
			checkedID[k]++
			checkedBench[b]++
		}
	}
	for _, id := range x3Identities {
		assert.Positive(t, checkedID[id.got+"≡"+id.ref], "%s≡%s asserted on no stand-in", id.got, id.ref)
	}
	for _, b := range []string{"hotcold", "callpair (jikes)", "kiama", "h2", "xalan"} {
		assert.Positive(t, checkedBench[b], "%s: no identity asserted", b)
	}
	for _, b := range []string{"hotcold", "callpair (jikes)", "kiama"} {
		assert.Equal(t, n, r.Identity(b, "sps", "isps").Comparable, "%s: isps ran on the same execution", b)
	}
	assert.Zero(t, r.Identity("xalan", "async", "pcct").Same, "inlined frames without debug records")
	assert.Zero(t, r.Identity("h2", "async", "pcct").Same, "inlined frames without debug records")
	assert.Zero(t, r.Identity("xalan", "xprof", "safepoint").Same, "polls inside inlined code: xprof names the caller")
}

// TestX6_AsyncEngines: async-profiler's engines watch one execution and
// disagree exactly where their mechanisms part. Tolerances, from the
// mechanisms and seeds 1–3:
//   - cpu and ctimer count each thread's CPU time in 10 ms intervals: a
//     thread's share is its CPU share up to one sample of ≈ 170 (h2: 0.6
//     points) and ctimer's tick rounding, one more (measured ≤ 0.9).
//   - wall takes every live thread once per interval: its shares are the
//     threads' shares of live time up to one sample of ≈ 400.
//   - itimer charges 4 ms ticks to the thread running at each: on
//     oversub's 8 threads each gets ≈ 50 samples, binomial sd 1.8
//     points; the largest of eight deviations stays within 3 sd.
//
// Fails if an engine samples threads that are not running (cpu, ctimer),
// if wall skips waiting threads or samples by CPU time, or if itimer
// stops following the ticks.
func TestX6_AsyncEngines(t *testing.T) {
	r := measure[*X6Result](t, "x6-async-engines")
	cpuDev := func(e X6Engine) float64 { return e.CPUDev }
	aliveDev := func(e X6Engine) float64 { return e.AliveDev }
	waiting := func(e X6Engine) float64 { return e.Waiting }
	for _, b := range []string{"blockhalf", "oversub", "h2"} {
		for _, e := range []string{samplers.EngineCPU, samplers.EngineCTimer} {
			assert.LessOrEqual(t, r.Max(b, e, cpuDev), x6CPUEngineDev, "%s %s: thread shares are CPU shares", b, e)
		}
		assert.LessOrEqual(t, r.Max(b, samplers.EngineWall, aliveDev), x6WallDev, "%s wall: thread shares are live-time shares", b)
	}
	// Oversubscribed, every thread always runnable with the same CPU:
	// all four agree.
	assert.LessOrEqual(t, r.Max("oversub", samplers.EngineWall, cpuDev), x6CPUEngineDev, "oversub: wall agrees")
	assert.LessOrEqual(t, r.Max("oversub", samplers.EngineITimer, cpuDev), x6ITimerDev, "oversub: itimer agrees within its tick noise")
	// A thread that blocks: wall gives it its live time, the CPU engines
	// its CPU time, and half of main's wall samples are asleep.
	assert.InDelta(t, 50, r.Share("blockhalf", "main", samplers.EngineWall).Mean, x6WallDev)
	assert.InDelta(t, r.Share("blockhalf", "main", "cpu time").Mean, r.Share("blockhalf", "main", samplers.EngineCPU).Mean, x6CPUEngineDev)
	assert.GreaterOrEqual(t, r.Min("blockhalf", samplers.EngineWall, cpuDev), x6SplitDev, "blockhalf: wall departs from CPU time")
	assert.InDelta(t, 25, r.Min("blockhalf", samplers.EngineWall, waiting), x6WallAsleep, "blockhalf: main asleep in half its wall samples")
	assert.Zero(t, r.Max("blockhalf", samplers.EngineCPU, waiting), "blockhalf: the cpu engine never sees main asleep")
	assert.LessOrEqual(t, r.Max("blockhalf", samplers.EngineITimer, cpuDev), x6ITimerDev, "blockhalf: profsim's itimer follows CPU time (the real one does not: docs/FIDELITY.md)")
	// h2: main only waits for its workers (no CPU), which take locks.
	assert.InDelta(t, 20, r.Share("h2", "main", samplers.EngineWall).Mean, x6WallDev, "h2: wall gives the waiting main its live time")
	assert.Zero(t, r.Share("h2", "main", samplers.EngineCPU).Mean)
	assert.GreaterOrEqual(t, r.Min("h2", samplers.EngineWall, waiting), 3*r.Max("h2", samplers.EngineCPU, waiting), "h2: wall's samples are where threads wait")
}

// x6CPUEngineDev: one sample of ≈ 170 (h2) is 0.6 points, ctimer's tick
// rounding adds up to one more (measured max 0.89 over seeds 1–3).
const x6CPUEngineDev = 1.5

// x6WallDev: wall samples each live thread once per 10 ms; one sample of
// ≈ 400 is 0.25 points.
const x6WallDev = 0.5

// x6ITimerDev: ≈ 50 tick-charged samples a thread on oversub, binomial
// sd 1.8 points, 3 sd (measured max 3.7).
const x6ITimerDev = 5.5

// x6SplitDev: on blockhalf main lives 50 % of the threads' time and
// computes a third of their CPU time: wall departs from CPU time by
// about 16 points; at least 10 is the mechanism's, not noise.
const x6SplitDev = 10.0

// x6WallAsleep: main sleeps half its cycle, so a quarter of wall's
// samples are asleep in pause(); ± 3 points is about the binomial sd
// of ≈ 200 main samples (3.5 % of them, 1.8 points) over its drifting
// phase (measured 25.6–26.9).
const x6WallAsleep = 3.0

// TestX4_CooperativeSampling: JDK 25's cooperative sampler takes the top
// frame from the position recorded at the request, so the poll that
// decides *when* the thread walks does not decide *which method* is on
// top; what it still decides is whether a thread is sampled at all. On
// one execution per seed (seeds 1–3):
//   - hotcold without inlining: safepoint charges hot() to cold(), jfr-coop
//     finds it as jfr and async do;
//   - inlined without DebugNonSafepoints: jfr-coop skids as jfr does (the
//     same debug information, X1), and with it finds hot();
//   - a thread whose polls are 40 ms apart beside one polling every
//     microsecond: a request waits for the poll and the rounds pass over a
//     thread with one pending, so the slow-polling thread gets one sample
//     per 40 ms to the other's one per 20 ms (a third, not its half); jfr
//     and async, which walk at the request, give it its half.
func TestX4_CooperativeSampling(t *testing.T) {
	r := measure[*X4Result](t, "x4-cooperative-sampling")
	hot := func(x X4Sampler) float64 { return x.Hot }
	truthHot := func(x *X4Run) float64 { return x.TruthHot }
	const noInline, inl, dns = "hotcold, no inlining", "hotcold, inlined", "hotcold, inlined, DNS"
	assert.LessOrEqual(t, r.Stat(noInline, "safepoint", hot).Mean, x4Skid, "safepoint charges hot() to cold()")
	for _, s := range []string{"jfr-coop", "jfr", "async"} {
		assert.InDelta(t, r.Truth(noInline, truthHot).Mean, r.Stat(noInline, s, hot).Mean, x4TopFramePoints, "%s finds hot()", s)
		assert.LessOrEqual(t, r.Stat(inl, s, hot).Mean, x4Skid, "%s: inlined hot() has no debug record without DNS", s)
		assert.InDelta(t, r.Truth(dns, truthHot).Mean, r.Stat(dns, s, hot).Mean, x4TopFramePoints, "%s finds inlined hot() with DNS", s)
	}
	a := func(x X4Sampler) float64 { return x.ThreadA }
	truthA := r.Truth("pending", func(x *X4Run) float64 { return x.TruthA }).Mean
	require.InDelta(t, 50, truthA, 1, "the premise: two busy threads")
	assert.InDelta(t, x4PendingShare, r.Stat("pending", "jfr-coop", a).Mean, x4PendingPoints, "jfr-coop: the slow-polling thread gets a third")
	for _, s := range []string{"jfr", "async"} {
		assert.InDelta(t, truthA, r.Stat("pending", s, a).Mean, x4PendingPoints, "%s gives it its half", s)
	}
	returned := func(x X4Sampler) float64 { return x.Returned }
	assert.Zero(t, r.Stat("pending", "jfr-coop", returned).Mean, "every compiled return polls and corrects a request in its method")
	// A method with no debug record of its own (returnpoll's callee, not
	// inlined, poll-free but for its return): the request's pc has no
	// PcDesc, so at the return poll compute_top_frame cannot rebuild the
	// frame, the walk starts at the caller (returned), and the callee gets
	// nothing; jfr drops those samples, async names the callee at bci 0.
	callee := func(x X4Sampler) float64 { return x.Callee }
	truthCallee := r.Truth("returnpoll", func(x *X4Run) float64 { return x.TruthCallee }).Mean
	require.Greater(t, truthCallee, 40.0, "the premise: the callee has about half the time")
	assert.LessOrEqual(t, r.Stat("returnpoll", "jfr-coop", callee).Mean, x4Skid, "jfr-coop charges the callee to its caller")
	assert.InDelta(t, truthCallee, r.Stat("returnpoll", "jfr-coop", returned).Mean, x4ReturnedPoints, "jfr-coop: the callee's requests are the returned ones")
	assert.LessOrEqual(t, r.Stat("returnpoll", "jfr", callee).Mean, x4Skid, "jfr drops them")
	assert.Less(t, r.Stat("returnpoll", "jfr", func(x X4Sampler) float64 { return float64(x.Samples) }).Mean,
		r.Stat("returnpoll", "jfr-coop", func(x X4Sampler) float64 { return float64(x.Samples) }).Mean, "jfr takes fewer samples than jfr-coop")
	assert.InDelta(t, truthCallee, r.Stat("returnpoll", "async", callee).Mean, x4ReturnedPoints, "async names the callee at bci 0")
	assert.InDelta(t, truthCallee, r.Stat("returnpoll, DNS", "jfr-coop", callee).Mean, x4ReturnedPoints, "with DNS the callee has its records")
	assert.Zero(t, r.Stat("returnpoll, DNS", "jfr-coop", returned).Mean)
}

// x4ReturnedPoints: three binomial standard deviations of a 46.5 % share
// over three seeds of ≈ 49 jfr-coop samples each (147): 12.3 points.
const x4ReturnedPoints = 12.5

// x4TopFramePoints: three binomial standard deviations of hot()'s share
// (≈ 93 %) pooled over three seeds of ≈ 49 jfr-coop samples each (147):
// 6.3 points.
const x4TopFramePoints = 6.5

// x4Skid: a sampler that cannot name hot() gives it at most its few
// samples from before C2 inlined it (X1's x1NoDNSMax, at this length).
const x4Skid = 5.0

// x4PendingShare: thread a polls every 40 ms, thread b every 1 µs; at a
// 20 ms period a's request waits for its poll and the next round passes a
// over: a is sampled every 40 ms, b every 20 ms, so a has a third.
const x4PendingShare = 100.0 / 3

// x4PendingPoints: about 147 jfr-coop samples over the three seeds; the
// rounds' 375 µs jitter moves a round past a's poll now and then; 3
// points (measured 33.33 on every seed).
const x4PendingPoints = 3.0

// TestX5_CPUTimeSampling: JDK 25's CPU-time sampler against the execution
// samplers on one execution per seed (seeds 1–3):
//   - eight always-running workers on 8 CPUs: a round takes five, so the
//     execution samplers cover 5/8 of the CPU time, fairly (round-robin,
//     X2); jfr-cputime covers all of it;
//   - ten threads that end one by one: the execution samplers
//     under-represent the threads that ran in the crowd (X2), jfr-cputime
//     gives every thread its CPU share;
//   - a thread half in native code: the execution samplers take threads
//     in Java code only, so it gets a third of their samples; jfr-cputime
//     its half, native time included;
//   - a thread that sleeps half the time: jfr-cputime gives it its CPU
//     share less the periods its 5 ms bursts lose to the 4 ms tick.
func TestX5_CPUTimeSampling(t *testing.T) {
	r := measure[*X5Result](t, "x5-cpu-time-sampling")
	cov := func(x X5Sampler) float64 { return x.Coverage }
	dev := func(x X5Sampler) float64 { return x.MaxDev }
	ratio := func(x X5Sampler) float64 { return x.MinRatio }
	const crowd, stag = "lusearch, 8 CPUs", "staggered, 10 CPUs"
	for _, s := range []string{"jfr", "jfr-coop"} {
		assert.InDelta(t, x2CrowdCoverage, r.Stat(crowd, s, cov).Mean, x2CoverageDelta, "%s covers 5/8", s)
		assert.LessOrEqual(t, r.Max(crowd, s, dev), x2CrowdMaxDev, "%s: fair between the workers", s)
		assert.LessOrEqual(t, r.Max(stag, s, ratio), x2UnderRatio, "%s: the crowd's threads under-represented on every seed", s)
	}
	assert.GreaterOrEqual(t, r.Min(crowd, "jfr-cputime", cov), x5CPUCoverage, "jfr-cputime covers the CPU time")
	assert.LessOrEqual(t, r.Max(crowd, "jfr-cputime", dev), x5CPUTimeDev)
	assert.LessOrEqual(t, r.Max(stag, "jfr-cputime", dev), x5CPUTimeDev, "staggered: every thread its CPU share")
	assert.GreaterOrEqual(t, r.Min(stag, "jfr-cputime", ratio), x2UncappedRatio)

	require.InDelta(t, 50, r.Share("native", "n", "cpu time").Mean, 1, "the premise: two busy threads")
	assert.InDelta(t, 50, r.Share("native", "n", "jfr-cputime").Mean, x5CPUTimeDev, "jfr-cputime: native time counts")
	for _, s := range []string{"jfr", "jfr-coop"} {
		assert.InDelta(t, x5JavaOnlyShare, r.Share("native", "n", s).Mean, x5NativeShareDelta, "%s: only n's Java half", s)
		assert.Zero(t, r.Max("native", s, func(x X5Sampler) float64 { return x.Native }), "%s takes no sample in native code", s)
	}
	main, cpu := r.Share("blockhalf", "main", "jfr-cputime").Mean, r.Share("blockhalf", "main", "cpu time").Mean
	assert.GreaterOrEqual(t, cpu-main, x5BurstLossMin, "blockhalf: jfr-cputime gives main less than its CPU share")
	fine := r.Share("blockhalf", "main", X5FineTick).Mean
	assert.InDelta(t, cpu, fine, x5CPUTimeDev, "checked every 10 us, the same timer gives main its CPU share: the loss is the 4 ms tick's")
	t.Logf("blockhalf: main's CPU share %.2f %%; jfr-cputime %.2f %% at the 4 ms tick, %.2f %% at 10 us", cpu, main, fine)
}

// x5CPUCoverage: jfr-cputime weighs each sample one period (4 ms on 8
// CPUs at 500/s … CPUs/500 s); the period in progress at the end is
// not counted: ≥ 97 % of the CPU time (measured 99.4).
const x5CPUCoverage = 97.0

// x5CPUTimeDev: a thread's samples are its CPU time in periods, one
// sample of ≈ 330–1 000 at most off (0.3 points; measured ≤ 0.33).
const x5CPUTimeDev = 0.5

// x5JavaOnlyShare: thread n spends half its CPU time in native code,
// which the execution samplers skip; they see n's Java half against j's
// whole: 25 / 75 = a third.
const x5JavaOnlyShare = 100.0 / 3

// x5NativeShareDelta: ≈ 145 samples a seed, binomial sd 3.9 points a
// seed, 2.3 over the mean of three; 3 sd.
const x5NativeShareDelta = 7.0

// x5BurstLossMin: main runs 5 ms bursts at a 4 ms CPU period that the
// kernel checks only at its 4 ms tick, and an overrun between two checks
// is one signal, so main loses periods the always-running spinner does
// not; checked every 10 µs (X5FineTick) nothing folds. A loss of at least
// four times x5CPUTimeDev is that mechanism, not rounding (measured 3.7
// points at the tick, 0.04 at 10 µs).
const x5BurstLossMin = 4 * x5CPUTimeDev
