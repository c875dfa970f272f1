package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Tolerances of H7 (CLAIMS.md H7).
const (
	// h7Fifth reads "frames decoded per sample ≪ depth" as below a fifth
	// of the depth and of SPS's walk on the deep stand-ins.
	h7Fifth = 0.2
	// h7DeepMin: the deep stand-ins' stacks are deeper than 100 frames
	// at the samples (a check that the runs measure deep stacks).
	h7DeepMin = 100.0
)

// TestH7_FramesDecodedOnce: ISPS decodes fewer frames per sample than SPS
// walks on every stand-in, and on the recursive-descent stand-ins (stacks
// ≈ 130–290 deep) less than a fifth of what SPS walks and of the stack
// depth (paper: "examines each stack frame only once"). Fails if ISPS
// re-decoded shared frames (its count would approach SPS's).
func TestH7_FramesDecodedOnce(t *testing.T) {
	r := measure[*h7Result](t, "h7-frames-decoded")
	for _, b := range r.Benches {
		assert.Less(t, r.ISPS(b).Mean, r.SPS(b).Mean, b)
	}
	for _, b := range []string{"kiama", "scalac"} {
		assert.Less(t, r.ISPS(b).Mean, h7Fifth*r.SPS(b).Mean, b)
		assert.Less(t, r.Ratio(b).Mean, h7Fifth, b)
		assert.Greater(t, r.Depth(b).Mean, h7DeepMin, b)
	}
}
