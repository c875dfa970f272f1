package study

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tolerances of the Binder grid claims (CLAIMS.md B1, B2, B3, B5, B6).
const (
	// b1LargeDrop reads "falls for large granularities (few samples)" as
	// the geometric mean at 10⁶ at least 20 points below 10⁴; the claim
	// gives no number, the margin was chosen when the test was written
	// (measured 48.4 → 4.4).
	b1LargeDrop = 20.0
	// b1PeriodicDip reads "dips at 500–1 000 on stand-ins with periodic
	// behaviour" as compress at 500 more than 1 point below 1 000, a
	// margin chosen when the test was written (measured 96.4 vs 98.9).
	b1PeriodicDip = 1.0
	// b2MonotoneSlack: "accuracy non-increasing in granularity", allowing
	// a rise of 1 point between neighbouring granularities for
	// seed-to-seed scatter (chosen, not a CI).
	b2MonotoneSlack = 1.0
	// b2DipRemoved: "adding U[0, 100) removes the low-granularity dip":
	// compress at 500 more than 2 points above the constant run's, twice
	// b1PeriodicDip.
	b2DipRemoved = 2.0
	// b2GeoClaim: "geometric mean at 500 above 95 %" (the claim's words;
	// paper > 96 %).
	b2GeoClaim = 95.0
	// b5ErrorMax: "|δb| < 1 % everywhere" (the claim's words).
	b5ErrorMax = 0.01
	// b5SmallGranMax: the largest granularity at which the model meets
	// b5ErrorMax; at 10⁶ the 100 ms runs' unreported tail is larger
	// (REPRODUCTIONS.md, B5).
	b5SmallGranMax = 100000
	// b6RatioBand pins a documented divergence (REPRODUCTIONS.md, B6): at
	// 500–10 000 randomized and constant profiles have about the same
	// size (randomized / constant within 1 ± 0.1; measured 0.96–1.02)
	// where the paper finds constant ones smaller.
	b6RatioBand = 0.1
)

// TestB1_ConstantGranularity: accuracy falls for large granularities on
// every stand-in (10⁶ at least 20 points below 10⁴ on average), and the
// loop-dominated compress-like stand-in dips at 500 below 1 000 (its
// periodic loop keeps meeting the constant period). The paper's optimum
// at 5 000–10 000 does not reproduce at this run length
// (TestDivergence_B1).
func TestB1_ConstantGranularity(t *testing.T) {
	r := measure[*BinderAccuracyResult](t, "b1-constant")
	assert.Less(t, r.Geo(1000000, false), r.Geo(10000, false)-b1LargeDrop)
	assert.Less(t, r.Accuracy("compress", 500, false).Mean, r.Accuracy("compress", 1000, false).Mean-b1PeriodicDip, "periodic dip at 500")
	if best := binderBest(r); best != 5000 && best != 10000 {
		diverges(t, "accuracy (geo. mean) is best at granularity %d, not around 5 000–10 000", best)
	}
}

// binderBest is the granularity with the highest geometric mean of the
// constant-granularity accuracy.
func binderBest(r *BinderAccuracyResult) int64 {
	best := binderGrans[0]
	for _, g := range binderGrans {
		if r.Geo(g, false) > r.Geo(best, false) {
			best = g
		}
	}
	return best
}

// TestDivergence_B1 pins the documented divergence (REPRODUCTIONS.md,
// B1): with ≈ 5·10⁷ bytecodes per run finer is always better, the best
// granularity is the finest, 500.
func TestDivergence_B1(t *testing.T) {
	r := measure[*BinderAccuracyResult](t, "b1-constant")
	assert.Equal(t, binderGrans[0], binderBest(r))
}

// TestB2_RandomizedGranularity: with U[0, 100) added, the dip is gone —
// accuracy is non-increasing in granularity on every stand-in (tolerance
// 1 point) — and randomized ≥ constant at 500 (geo. mean). The claim's
// geo. mean above 95 % at 500 is not met (TestDivergence_B2): the
// javac-like stand-in's call tree is barely covered in 100 ms.
func TestB2_RandomizedGranularity(t *testing.T) {
	c := measure[*BinderAccuracyResult](t, "b1-constant")
	r := measure[*BinderAccuracyResult](t, "b2-randomized")
	for _, b := range r.Benches {
		for i := 1; i < len(binderGrans); i++ {
			assert.LessOrEqual(t, r.Accuracy(b, binderGrans[i], true).Mean, r.Accuracy(b, binderGrans[i-1], true).Mean+b2MonotoneSlack, "%s non-increasing at %d", b, binderGrans[i])
		}
	}
	assert.Greater(t, r.Accuracy("compress", 500, true).Mean, c.Accuracy("compress", 500, false).Mean+b2DipRemoved, "randomization removes the dip")
	assert.GreaterOrEqual(t, r.Geo(500, true), c.Geo(500, false))
	if g := r.Geo(500, true); g <= b2GeoClaim {
		diverges(t, "geo. mean at 500 is %.1f %% (claim: above %.0f %%)", g, b2GeoClaim)
	}
}

// TestDivergence_B2 pins the documented divergence (REPRODUCTIONS.md,
// B2): the randomized geo. mean at 500 stays below the claim's 95 %.
func TestDivergence_B2(t *testing.T) {
	r := measure[*BinderAccuracyResult](t, "b2-randomized")
	assert.Less(t, r.Geo(500, true), b2GeoClaim)
}

// TestB3_WhereItIsHard: at granularity 10 000 the javac-like stand-in
// (deep, many short methods) is the least accurate and the compress-like
// (loop-dominated) the most. The claim also places jack low and mpegaudio
// high; here mpegaudio ranks below jack (REPRODUCTIONS.md, B3: partly).
func TestB3_WhereItIsHard(t *testing.T) {
	r := measure[*BinderAccuracyResult](t, "b1-constant")
	lo, hi := "", ""
	at := func(b string) float64 { return r.Accuracy(b, 10000, false).Mean }
	for _, b := range r.Benches {
		if lo == "" || at(b) < at(lo) {
			lo = b
		}
		if hi == "" || at(b) > at(hi) {
			hi = b
		}
	}
	assert.Equal(t, "javac", lo)
	assert.Equal(t, "compress", hi)
	if at("mpegaudio") < at("jack") {
		diverges(t, "mpegaudio (%.1f %%) ranks below jack (%.1f %%)", at("mpegaudio"), at("jack"))
	}
}

// Tolerances of B4, B7, B8 and B9 (CLAIMS.md).
const (
	// b4SeveralPoints: "disabling MaxPath costs several points of
	// accuracy (paper ≈ 5)" on mpegaudio, read as at least 2 points.
	b4SeveralPoints = 2.0
	// b4LossPin pins a documented divergence (REPRODUCTIONS.md, B4):
	// mpegaudio loses more than 0.2 points (measured 0.4), not several.
	b4LossPin = 0.2
	// b4Elsewhere: "elsewhere it changes nothing", as |loss| below 0.1
	// points (one decimal of the table).
	b4Elsewhere = 0.1
	// b7AboveFloorMin: "at 10 000 it is a few tens of percent above the
	// instrumentation-only floor" (the claim's words), read as at least
	// 10 points.
	b7AboveFloorMin = 10.0
	// b7AboveFloorPin pins a documented divergence (REPRODUCTIONS.md,
	// B7): sampling at 10 000 costs less than 5 points above the floor
	// (measured 1–2: our agent's costs are small).
	b7AboveFloorPin = 5.0
	// b7LeafShareMin reads "the leaf-method optimisation removes a large
	// share of the floor (paper: 25 % on average)" as at least 10 % of
	// it on the call-heavy javac-like stand-in, a margin chosen when
	// the test was written (measured 15.5 %).
	b7LeafShareMin = 0.10
	// b8TimerMax: "reaches low overlap with the exact CPU-time CCT
	// (paper < 7 %)" (the claim's number).
	b8TimerMax = 7.0
	// b8TimerMeanPin pins a documented divergence (REPRODUCTIONS.md, B8):
	// the timer's mean overlap stays below 20 % although the
	// loop-dominated compress-like stand-in reaches ≈ 32 %.
	b8TimerMeanPin = 20.0
	// b9TprofIdenticalMax reads "unlike timer samplers" as: tprof's
	// profile is identical in at most half of the comparisons.
	b9TprofIdenticalMax = 0.5
)

// TestB4_MaxPath: disabling MaxPath costs accuracy on the large-block
// mpegaudio-like stand-in more than anywhere else, and changes nothing
// elsewhere (|loss| < 0.1). The claim's "several points" is not met
// (TestDivergence_B4).
func TestB4_MaxPath(t *testing.T) {
	r := measure[*B4Result](t, "b4-maxpath")
	for _, b := range []string{"compress", "javac", "jack"} {
		assert.Less(t, math.Abs(r.Loss(b)), b4Elsewhere, b)
		assert.Greater(t, r.Loss("mpegaudio"), r.Loss(b), "mpegaudio loses most")
	}
	if l := r.Loss("mpegaudio"); l < b4SeveralPoints {
		diverges(t, "mpegaudio loses %.1f points without MaxPath (claim: several, paper ≈ 5)", l)
	}
}

// TestDivergence_B4 pins the documented divergence (REPRODUCTIONS.md,
// B4): mpegaudio's loss is above 0.2 points but below several.
func TestDivergence_B4(t *testing.T) {
	r := measure[*B4Result](t, "b4-maxpath")
	assert.Greater(t, r.Loss("mpegaudio"), b4LossPin)
	assert.Less(t, r.Loss("mpegaudio"), b4SeveralPoints)
}

// TestB5_BytecodeError: |δb| < 1 % up to granularity 10⁵ everywhere
// (paper: everywhere; our 100 ms runs cut a larger tail at 10⁶, see
// TestDivergence_B5); underestimation grows with granularity on the
// stand-ins without exceptions; overestimation only on the
// exception-heavy jack-like one.
func TestB5_BytecodeError(t *testing.T) {
	r := measure[*B5Result](t, "b5-bytecode-error")
	for _, b := range r.Benches {
		for _, g := range binderGrans {
			d := r.DeltaB(b, g)
			if g <= b5SmallGranMax {
				assert.Less(t, math.Abs(d), b5ErrorMax, "%s at %d", b, g)
			} else if math.Abs(d) >= b5ErrorMax {
				diverges(t, "|δb| = %.1e on %s at %d (claim: < 1 %% everywhere)", math.Abs(d), b, g)
			}
			if b != "jack" {
				assert.Negative(t, d, "%s at %d: underestimates", b, g)
			}
		}
		if b != "jack" {
			assert.Less(t, r.DeltaB(b, 1000000), r.DeltaB(b, 1000), "%s: the tail grows", b)
		}
	}
	assert.Positive(t, r.DeltaB("jack", 10000), "exceptions: blocks counted whole")
}

// TestDivergence_B5 pins the documented divergence (REPRODUCTIONS.md,
// B5): where |δb| reaches 1 % (at 10⁶) it is an underestimate, the
// unreported tail the 100 ms runs cut.
func TestDivergence_B5(t *testing.T) {
	r := measure[*B5Result](t, "b5-bytecode-error")
	for _, b := range r.Benches {
		for _, g := range binderGrans {
			if d := r.DeltaB(b, g); math.Abs(d) >= b5ErrorMax {
				assert.Greater(t, g, int64(b5SmallGranMax), "%s at %d", b, g)
				assert.Negative(t, d, "%s at %d: the tail", b, g)
			}
		}
	}
}

// TestB6_ProfileSize: the sampled CCT shrinks with granularity (each step
// smaller). The paper's "constant smaller than randomized at 500–10 000"
// does not reproduce (TestDivergence_B6).
func TestB6_ProfileSize(t *testing.T) {
	r := measure[*B6Result](t, "b6-profile-size")
	for i := 1; i < len(binderGrans); i++ {
		for _, random := range []bool{false, true} {
			assert.Less(t, r.Size(binderGrans[i], random), r.Size(binderGrans[i-1], random), "random %v at %d", random, binderGrans[i])
		}
	}
	for _, g := range binderGrans {
		if g <= 10000 && r.Size(g, false) >= r.Size(g, true) {
			diverges(t, "at %d the constant profile (%.0f nodes) is not smaller than the randomized one (%.0f)", g, r.Size(g, false), r.Size(g, true))
		}
	}
}

// TestDivergence_B6 pins the documented divergence (REPRODUCTIONS.md,
// B6): at 500–10 000 randomized / constant size stays within 1 ± 0.1.
func TestDivergence_B6(t *testing.T) {
	r := measure[*B6Result](t, "b6-profile-size")
	for _, g := range binderGrans {
		if g <= 10000 {
			assert.InDelta(t, 1.0, r.Size(g, true)/r.Size(g, false), b6RatioBand, "at %d", g)
		}
	}
}

// TestB7_Overhead: overhead falls as granularity grows and stays above
// the instrumentation floor; the floor is positive; the leaf
// optimisation lowers the floor on the call-heavy javac-like stand-in by
// ≥ 10 % of it (paper: 25 % on average). The claim's "a few tens of
// percent above the floor" at 10 000 is not met (TestDivergence_B7).
func TestB7_Overhead(t *testing.T) {
	r := measure[*B7Result](t, "b7-overhead")
	ov := func(b, c string) float64 { return r.Overhead(b, c).Mean }
	for _, b := range []string{"compress", "javac"} {
		assert.Greater(t, ov(b, "1000"), ov(b, "10000"), b)
		assert.GreaterOrEqual(t, ov(b, "10000"), ov(b, "100000"), b)
		assert.GreaterOrEqual(t, ov(b, "100000"), ov(b, "No Prof."), b)
		assert.Positive(t, ov(b, "No Prof."), b)
		if d := ov(b, "10000") - ov(b, "No Prof."); d < b7AboveFloorMin {
			diverges(t, "%s: sampling at 10 000 costs %.1f points above the floor (claim: a few tens of per cent)", b, d)
		}
	}
	noLeaf := ov("javac", "No Prof., no leaf opt.")
	assert.Greater(t, (noLeaf-ov("javac", "No Prof."))/noLeaf, b7LeafShareMin)
}

// TestDivergence_B7 pins the documented divergence (REPRODUCTIONS.md,
// B7): at 10 000 sampling costs less than 5 points above the floor.
func TestDivergence_B7(t *testing.T) {
	r := measure[*B7Result](t, "b7-overhead")
	for _, b := range []string{"compress", "javac"} {
		assert.Less(t, r.Overhead(b, "10000").Mean-r.Overhead(b, "No Prof.").Mean, b7AboveFloorPin, b)
	}
}

// TestB8_TimerShortRuns: a 1 ms safepoint timer sampler on short runs
// stays below 7 % overlap with the exact CPU-time CCT on the call-heavy
// jess- and javac-like stand-ins (paper < 7 % everywhere), and Komorium
// at 10 000 does better on every one. On the others the claim's < 7 % is
// not met (TestDivergence_B8).
func TestB8_TimerShortRuns(t *testing.T) {
	r := measure[*B8Result](t, "b8-timer-short-runs")
	for _, b := range []string{"jess-small", "javac-small"} {
		assert.Less(t, r.Timer(b).Mean, b8TimerMax, b)
	}
	for _, b := range r.Benches {
		assert.Greater(t, r.Komorium(b).Mean, r.Timer(b).Mean, b)
		if m := r.Timer(b).Mean; m >= b8TimerMax {
			diverges(t, "%s: the timer reaches %.1f %% (claim: < 7 %%)", b, m)
		}
	}
}

// TestDivergence_B8 pins the documented divergence (REPRODUCTIONS.md,
// B8): the timer's mean overlap over the short stand-ins stays below 20 %.
func TestDivergence_B8(t *testing.T) {
	r := measure[*B8Result](t, "b8-timer-short-runs")
	assert.Less(t, r.TimerMean(), b8TimerMeanPin)
}

// TestB9_Reproducible: Komorium's profile is identical across CPU speeds
// and a shared CPU; tprof's is not (identical in at most half of the
// comparisons).
func TestB9_Reproducible(t *testing.T) {
	r := measure[*B9Result](t, "b9-reproducible")
	cmp := r.Compared()
	require.NotEmpty(t, cmp)
	same := 0
	for _, x := range cmp {
		assert.True(t, x.KomoriumIdentical, "%s seed %d on %s", x.Program, x.Seed, x.Variant)
		assert.Equal(t, 100.0, x.KomoriumPct, "%s seed %d on %s", x.Program, x.Seed, x.Variant)
		if x.TprofIdentical {
			same++
		}
	}
	assert.LessOrEqual(t, float64(same), b9TprofIdenticalMax*float64(len(cmp)), "tprof changes with the CPU in most variants")
}
