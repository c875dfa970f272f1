package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Tolerances of A1 (CLAIMS.md A1).
const (
	// a1TimerRatioMin reads "jikes-timer … records call_1 far more than
	// call_2" as at least 10× on every run (paper Fig. 1: call_2 missed).
	a1TimerRatioMin = 10.0
	// a1CBSRatioMin and a1CBSRatioMax read "cbs with STRIDE ≥ 2 records
	// them about equally" as call_1 / call_2 within ±25 % (1/1.25 = 0.8
	// to 1.25) on every run.
	a1CBSRatioMin = 0.8
	a1CBSRatioMax = 1.25
)

// TestA1_CallPair: jikes-timer records call_1 at least 10× as often as
// call_2 on every run (truth: equal); CBS with STRIDE ≥ 2 records them
// within ±25 % on every run — the unbiased mechanism passes where the
// biased one fails. Fails if CBS took one sample per window at the first
// yield point (it would then be the timer mechanism, see
// TestCBSStride1Samples1IsJikesTimer).
func TestA1_CallPair(t *testing.T) {
	r := measure[*a1Result](t, "a1-callpair")
	for _, x := range r.Ratios("jikes-timer") {
		assert.GreaterOrEqual(t, x, a1TimerRatioMin)
	}
	for _, x := range r.Ratios("cbs") {
		assert.GreaterOrEqual(t, x, a1CBSRatioMin)
		assert.LessOrEqual(t, x, a1CBSRatioMax)
	}
}
