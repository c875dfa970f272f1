package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
	r := measure[*x1Result](t, "x1-debug-info")
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
