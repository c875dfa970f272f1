package study

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Tolerances of B5 (CLAIMS.md B5).
const (
	// b5ErrorMax: "|δb| < 1 % everywhere" (the claim's words).
	b5ErrorMax = 0.01
	// b5SmallGranMax: the largest granularity at which the model meets
	// b5ErrorMax; at 10⁶ the 100 ms runs' unreported tail is larger
	// (REPRODUCTIONS.md, B5).
	b5SmallGranMax = 100000
)

// TestB5_BytecodeError: |δb| < 1 % up to granularity 10⁵ everywhere
// (paper: everywhere; our 100 ms runs cut a larger tail at 10⁶, see
// TestDivergence_B5); underestimation grows with granularity on the
// stand-ins without exceptions; overestimation only on the
// exception-heavy jack-like one.
func TestB5_BytecodeError(t *testing.T) {
	r := measure[*b5Result](t, "b5-bytecode-error")
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
	r := measure[*b5Result](t, "b5-bytecode-error")
	for _, b := range r.Benches {
		for _, g := range binderGrans {
			if d := r.DeltaB(b, g); math.Abs(d) >= b5ErrorMax {
				assert.Greater(t, g, int64(b5SmallGranMax), "%s at %d", b, g)
				assert.Negative(t, d, "%s at %d: the tail", b, g)
			}
		}
	}
}
