package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Tolerances of W3 (CLAIMS.md W3). Whaley gives no numbers for
// this claim; each constant reads the claim's words.
const (
	// w3DCTRatioMin: "orders of magnitude smaller than the exhaustive
	// call tree" (the claim's words): at least two, 100×, on every run.
	w3DCTRatioMin = 100.0
	// w3PCCTBytesMax and w3CCTBytesMin: "kilobytes where a CCT can take
	// megabytes" (the paper's words, §2): the PCCT below 64 kB, the
	// exact CCT at 1 MB or more at the same node size.
	w3PCCTBytesMax = 64e3
	w3CCTBytesMin  = 1e6
)

// TestW3_Size: after the run the PCCT (10 ms) has ≥ 100× fewer nodes than
// the dynamic call tree on every run (paper: orders of magnitude) and
// fewer than the exact CCT on every run; on the SPEC-like and Scala-like
// stand-ins the PCCT takes kilobytes (< 64 kB) while the exact CCT takes
// megabytes (≥ 1 MB at the same node size; paper: "kilobytes where a CCT
// can take megabytes"). Fails if the PCCT stopped sharing nodes between
// samples (it would grow by a stack per sample).
func TestW3_Size(t *testing.T) {
	r := measure[*w3Result](t, "w3-size")
	assert.GreaterOrEqual(t, r.DCTRatioMin(), w3DCTRatioMin)
	assert.Greater(t, r.CCTRatioMin(), 1.0)
	for _, b := range []string{"jess", "kiama"} {
		assert.Less(t, r.PCCTBytes(b), w3PCCTBytesMax, b)
		assert.GreaterOrEqual(t, r.CCTBytes(b), w3CCTBytesMin, b)
	}
}
