package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tolerances of M3 and M4 (CLAIMS.md).
const (
	// m3Union1Claim: "Union_1 > 1 on at least 3 of the 7 single-threaded
	// stand-ins" (the claim's words).
	m3Union1Claim = 3
	// m3Union1Above1 pins a documented divergence (REPRODUCTIONS.md, M3):
	// the model gives Union_1 > 1 on 2 of 7 with HotSpot 17's interpreter
	// polls (no poll at method entry, jit.interpreted), whose timing moves
	// the compile times and sample phases this claim rests on; mean
	// Union_1 is then not clearly above 1.
	m3Union1Above1 = 2
	// m4MinPairs: "most pairs are not …" (M4) needs pairs to count; with
	// fewer than 3 a single pair decides the share.
	m4MinPairs = 3
	// m4RelatedMax: "most pairs are not in a transitive caller/callee
	// relation" (the claim's words): related pairs below half.
	m4RelatedMax = 0.5
)

// TestM3_Disagreement: four safepoint profilers that differ only in their
// observer effect (interval handling, agent CPU, allocation, depth), each
// costed alone: mean Union_n grows with n and its 95 % CI stays above n
// for n ≥ 2, Union_1's mean above 1. The claim's "Union_1 > 1 on at least
// 3 of the 7" and "clearly above n" for n = 1 are not met
// (TestDivergence_M3).
func TestM3_Disagreement(t *testing.T) {
	r := measure[*m3Result](t, "m3-disagreement")
	if n := r.Union1Above1(); n < m3Union1Claim {
		diverges(t, "Union_1 > 1 on %d of 7 stand-ins (claim: at least %d)", n, m3Union1Claim)
	}
	assertUnionGrows(t, r)
}

// assertUnionGrows asserts M3's Union_n shape: mean Union_1 above 1 (its
// CI not clearly so is logged as a divergence), and for n ≥ 2 a 95 % CI
// above n and a mean that grows with n.
func assertUnionGrows(t *testing.T, r *m3Result) {
	t.Helper()
	for n := 1; n <= m3MaxN; n++ {
		u := r.Mean(n)
		if n == 1 {
			assert.Greater(t, u.Mean, 1.0, "Union_1 above 1")
			if u.Lo() <= 1 {
				diverges(t, "Union_1 = %v is not clearly above 1", u)
			}
			continue
		}
		assert.Greater(t, u.Lo(), float64(n), "Union_%d clearly above %d", n, n)
		assert.GreaterOrEqual(t, u.Mean, r.Mean(n-1).Mean, "grows with n")
	}
}

// TestDivergence_M3 pins the documented divergence (REPRODUCTIONS.md, M3):
// the hottest method differs on m3Union1Above1 of the 7 stand-ins.
func TestDivergence_M3(t *testing.T) {
	r := measure[*m3Result](t, "m3-disagreement")
	assert.GreaterOrEqual(t, r.Union1Above1(), m3Union1Above1)
}

// TestM4_Innocuous: where two profilers disagree on the hottest method,
// fewer than half of the pairs are caller and callee (transitively).
func TestM4_Innocuous(t *testing.T) {
	assertFewPairsRelated(t, measure[*m4Result](t, "m4-innocuous"))
}

// assertFewPairsRelated asserts M4's shape: enough disagreeing pairs, and
// fewer than half of them caller and callee.
func assertFewPairsRelated(t *testing.T, r *m4Result) {
	t.Helper()
	require.GreaterOrEqual(t, len(r.Pairs), m4MinPairs)
	assert.Less(t, float64(r.Related())/float64(len(r.Pairs)), m4RelatedMax)
}

// TestM3_Models: on the models the claim holds as written for Union_1 >
// 1 (on at least 3 models) and Union_n for n ≥ 2 (grows, 95 % CI above
// n, Union_1's included: 2.00 ± 0.89 over the 8 models).
func TestM3_Models(t *testing.T) {
	r := measureModels[*m3Result](t, "m3-disagreement")
	assert.GreaterOrEqual(t, r.Union1Above1(), m3Union1Claim)
	assertUnionGrows(t, r)
}

// TestM4_Models: on the models, as on the stand-ins, fewer than half of
// the disagreeing pairs are caller and callee (6 of 21: hsqldb's
// Index.next under TableFilter.next and jython's PyTableCode.call against
// PyType.lookup_where and ConcurrentHashMap.putVal; the rest name
// unrelated methods).
func TestM4_Models(t *testing.T) {
	assertFewPairsRelated(t, measureModels[*m4Result](t, "m4-innocuous"))
}
