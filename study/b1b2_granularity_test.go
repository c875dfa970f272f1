package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Tolerances of B1, B2 and B3 (CLAIMS.md).
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
)

// TestB1_ConstantGranularity: accuracy falls for large granularities on
// every stand-in (10⁶ at least 20 points below 10⁴ on average), and the
// loop-dominated compress-like stand-in dips at 500 below 1 000 (its
// periodic loop keeps meeting the constant period). The paper's optimum
// at 5 000–10 000 does not reproduce at this run length
// (TestDivergence_B1).
func TestB1_ConstantGranularity(t *testing.T) {
	r := measure[*binderAccuracyResult](t, "b1-constant")
	assert.Less(t, r.Geo(1000000, false), r.Geo(10000, false)-b1LargeDrop)
	assert.Less(t, r.Accuracy("compress", 500, false).Mean, r.Accuracy("compress", 1000, false).Mean-b1PeriodicDip, "periodic dip at 500")
	if best := binderBest(r); best != 5000 && best != 10000 {
		diverges(t, "accuracy (geo. mean) is best at granularity %d, not around 5 000–10 000", best)
	}
}

// binderBest is the granularity with the highest geometric mean of the
// constant-granularity accuracy.
func binderBest(r *binderAccuracyResult) int64 {
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
	r := measure[*binderAccuracyResult](t, "b1-constant")
	assert.Equal(t, binderGrans[0], binderBest(r))
}

// TestB2_RandomizedGranularity: with U[0, 100) added, the dip is gone —
// accuracy is non-increasing in granularity on every stand-in (tolerance
// 1 point) — and randomized ≥ constant at 500 (geo. mean). The claim's
// geo. mean above 95 % at 500 is not met (TestDivergence_B2): the
// javac-like stand-in's call tree is barely covered in 100 ms.
func TestB2_RandomizedGranularity(t *testing.T) {
	c := measure[*binderAccuracyResult](t, "b1-constant")
	r := measure[*binderAccuracyResult](t, "b2-randomized")
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
	r := measure[*binderAccuracyResult](t, "b2-randomized")
	assert.Less(t, r.Geo(500, true), b2GeoClaim)
}

// TestB3_WhereItIsHard: at granularity 10 000 the javac-like stand-in
// (deep, many short methods) is the least accurate and the compress-like
// (loop-dominated) the most. The claim also places jack low and mpegaudio
// high; here mpegaudio ranks below jack (REPRODUCTIONS.md, B3: partly).
func TestB3_WhereItIsHard(t *testing.T) {
	r := measure[*binderAccuracyResult](t, "b1-constant")
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
