package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tolerances of M2 and M7 (CLAIMS.md).
const (
	// causalitySlopeMax: "mean slope … safepoint samplers < 0.5" (the
	// claim's words, M2 and M7), asserted on the upper end of the 95 % CI.
	causalitySlopeMax = 0.5
	// exactSlopeDelta: "tprof in [0.9, 1.1]" (the claim's words, M2 and
	// M7); the same interval is the positive control for the truth,
	// whose attributed time is the injected time itself.
	exactSlopeDelta = 0.1
	// m7TprofCIMax bounds the half-width of tprof's 95 % CI over the
	// pairs: the claim's interval half-width (0.1) widened by half, so
	// that "≈ 1" is an estimate and not a lucky mean of scattered slopes.
	m7TprofCIMax = 0.15
)

// TestM2_CausalitySlope: with inlining, the safepoint samplers' mean
// causality slope is < 0.5 (paper 0.23–0.28); tolerance: the upper end of
// the 95 % CI must stay below 0.5. Positive control: the truth's slope is
// in [0.9, 1.1] on every pair (its attributed time is the injected time).
// Fails if samplers saw exact positions (their slope would be ≈ 1, like
// tprof's).
func TestM2_CausalitySlope(t *testing.T) {
	r := measure[*causalityResult](t, "m2-causality")
	for _, row := range r.Rows {
		assert.InDelta(t, 1.0, row.Slopes.At("truth"), exactSlopeDelta, "truth's slope, %s/%s", row.Benchmark, row.Method)
	}
	for _, p := range causalityProfilers {
		assert.Less(t, r.Mean(p).Hi(), causalitySlopeMax, p)
	}
}

// TestM7_NoInlining: without inlining tprof's mean slope is in [0.9, 1.1]
// (paper 0.99) with a 95 % CI half-width below 0.15, the truth's slope is
// in [0.9, 1.1] on every pair (positive control), and the safepoint
// samplers stay < 0.5. The claim's "somewhat better" than with inlining
// is not asserted: the model's hot leaves have no poll either way
// (REPRODUCTIONS.md, M7: partly).
func TestM7_NoInlining(t *testing.T) {
	r := measure[*causalityResult](t, "m7-no-inlining")
	for _, row := range r.Rows {
		assert.InDelta(t, 1.0, row.Slopes.At("truth"), exactSlopeDelta, "truth's slope, %s/%s", row.Benchmark, row.Method)
	}
	tp := r.Mean("tprof")
	assert.InDelta(t, 1.0, tp.Mean, exactSlopeDelta, "tprof mean slope")
	assert.Less(t, tp.CI, m7TprofCIMax)
	for _, p := range causalityProfilers {
		assert.Less(t, r.Mean(p).Hi(), causalitySlopeMax, p)
	}
}

// Tolerances of M2 on the models, beyond those of the stand-ins' tests
// above, which they share.
const (
	// nearZeroSlope reads the claim's "several ≈ 0" (M2) as a slope
	// within ±0.1 of 0, the width of the claim's own interval for ≈ 1
	// (exactSlopeDelta).
	nearZeroSlope = exactSlopeDelta
	// severalPairs: "several" (M2) is at least 2 pairs.
	severalPairs = 2
)

// nearZero counts profiler p's pairs with a slope within nearZeroSlope
// of 0.
func nearZero(r *causalityResult, p string) int {
	n := 0
	for _, row := range r.Rows {
		if s := row.Slopes.At(p); s > -nearZeroSlope && s < nearZeroSlope {
			n++
		}
	}
	return n
}

// TestM2_Models reads M2 on the models as TestM2_CausalitySlope does on
// the stand-ins (positive control, each safepoint sampler's mean slope
// clearly below 0.5) and adds the claim's "several ≈ 0" for each sampler.
// The claim's "some near 1" is not asserted: no pair reaches 0.9
// (REPRODUCTIONS.md, M2 on models: partly).
func TestM2_Models(t *testing.T) {
	r := measureModels[*causalityResult](t, "m2-causality")
	for _, row := range r.Rows {
		assert.InDelta(t, 1.0, row.Slopes.At("truth"), exactSlopeDelta, "truth's slope, %s/%s", row.Benchmark, row.Method)
	}
	for _, p := range causalityProfilers {
		assert.GreaterOrEqual(t, nearZero(r, p), severalPairs, "%s: several pairs ≈ 0", p)
		assert.Less(t, r.Mean(p).Hi(), causalitySlopeMax, p)
	}
}

// TestM7_Models reads M7 on the models as TestM7_NoInlining does on the
// stand-ins: the truth's positive control, tprof's mean slope ≈ 1 with a
// narrow CI, and the safepoint samplers below 0.5. The claim's "somewhat
// better without inlining" does not hold on the models
// (TestDivergence_M7_Models).
func TestM7_Models(t *testing.T) {
	r := measureModels[*causalityResult](t, "m7-no-inlining")
	for _, row := range r.Rows {
		assert.InDelta(t, 1.0, row.Slopes.At("truth"), exactSlopeDelta, "truth's slope, %s/%s", row.Benchmark, row.Method)
	}
	tp := r.Mean("tprof")
	assert.InDelta(t, 1.0, tp.Mean, exactSlopeDelta, "tprof mean slope")
	assert.Less(t, tp.CI, m7TprofCIMax)
	for _, p := range causalityProfilers {
		assert.Less(t, r.Mean(p).Hi(), causalitySlopeMax, p)
	}
}

// TestDivergence_M7_Models pins the documented divergence
// (REPRODUCTIONS.md, M7 on models): without inlining no safepoint
// sampler's mean slope is above its mean slope with inlining (M2 on the
// models) beyond their 95 % CIs over the method pairs — the intervals
// overlap (measured: means −0.00 to 0.02 without, −0.00 to 0.01 with, CIs
// ±0.01–0.05) — where the claim has them "somewhat better": compiled on
// its own, the injected method's poll-free loop is still met at its
// return poll, charged to the caller.
func TestDivergence_M7_Models(t *testing.T) {
	without := measureModels[*causalityResult](t, "m7-no-inlining")
	with := measureModels[*causalityResult](t, "m2-causality")
	require.Equal(t, len(with.Rows), len(without.Rows), "as many method pairs with and without inlining")
	for _, p := range causalityProfilers {
		t.Logf("%s: mean slope without inlining %v, with %v", p, without.Mean(p), with.Mean(p))
		assert.LessOrEqual(t, without.Mean(p).Lo(), with.Mean(p).Hi(), "%s: not better without inlining beyond the CIs", p)
	}
}
