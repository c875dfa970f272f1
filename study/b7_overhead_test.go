package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Tolerances of B7 (CLAIMS.md B7).
const (
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
)

// TestB7_Overhead: overhead falls as granularity grows and stays above
// the instrumentation floor; the floor is positive; the leaf
// optimisation lowers the floor on the call-heavy javac-like stand-in by
// ≥ 10 % of it (paper: 25 % on average). The claim's "a few tens of
// percent above the floor" at 10 000 is not met (TestDivergence_B7).
func TestB7_Overhead(t *testing.T) {
	r := measure[*b7Result](t, "b7-overhead")
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
	r := measure[*b7Result](t, "b7-overhead")
	for _, b := range []string{"compress", "javac"} {
		assert.Less(t, r.Overhead(b, "10000").Mean-r.Overhead(b, "No Prof.").Mean, b7AboveFloorPin, b)
	}
}
