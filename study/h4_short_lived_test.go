package study

import (
	"testing"

	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
)

// Tolerances of H4 (CLAIMS.md H4).
const (
	// h4ThreadEnds reads "short-lived threads" as more than 100 thread
	// ends a run (measured 576–599).
	h4ThreadEnds = 100.0
)

// TestH4_ShortLived: on the tmt stand-in ISPS costs more than SPS at 10
// and 1 ms (paired by seed, CI above 0; paper: ISPS > SPS at both), and
// it entered a full safepoint at each of the hundreds of thread ends.
// Fails if ISPS's thread-end retrieves were free (ISPS ≤ SPS, as on every
// other stand-in).
func TestH4_ShortLived(t *testing.T) {
	needsSeeds(t, "ISPS − SPS on tmt paired by seed, its 95 % CI above 0")
	r := measure[*h4Result](t, "h4-short-lived")
	for _, iv := range []sim.Time{ms10, ms1} {
		assert.Positive(t, r.Diff("tmt", "isps", "sps", iv).Lo(), "%v: ISPS − SPS", iv)
		assert.Greater(t, r.ThreadEnds("tmt", iv), h4ThreadEnds, "%v", iv)
	}
}
