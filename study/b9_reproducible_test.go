package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tolerances of B9 (CLAIMS.md B9).
const (
	// b9TprofIdenticalMax reads "unlike timer samplers" as: tprof's
	// profile is identical in at most half of the comparisons.
	b9TprofIdenticalMax = 0.5
)

// TestB9_Reproducible: Komorium's profile is identical across CPU speeds
// and a shared CPU; tprof's is not (identical in at most half of the
// comparisons).
func TestB9_Reproducible(t *testing.T) {
	r := measure[*b9Result](t, "b9-reproducible")
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
