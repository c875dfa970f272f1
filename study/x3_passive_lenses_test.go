package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

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
	ob := measure[*x3ObserverResult](t, "x3-observer-effect")
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

	r := measure[*x3LensesResult](t, "x3-passive-lenses")
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
