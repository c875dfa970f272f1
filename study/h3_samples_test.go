package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tolerances of H3 (CLAIMS.md H3).
const (
	// h3RatioPin and h3LongSlack pin a documented divergence
	// (REPRODUCTIONS.md, H3): JVMTI takes over 3× more samples at 0.1 ms
	// than at 1 ms (measured 3.2–3.4×), and latencies beyond 1 ms are not
	// more frequent at 0.1 ms (within 1 point).
	h3RatioPin  = 3.0
	h3LongSlack = 0.01
)

// TestH3_FewerSamples: the paper saw JVMTI take fewer samples at 0.1 ms
// than at 1 ms on lusearch, sunflow and xalan ("possibly due to
// scheduling effects"). The model does not (TestDivergence_H3): a long
// latency is a long poll-free loop met by chance at either interval.
// Asserted: JVMTI sampled at both intervals.
func TestH3_FewerSamples(t *testing.T) {
	r := measure[*h3Result](t, "h3-samples")
	for _, b := range hoferCPUHeavy {
		require.Positive(t, r.Taken(b, "jvmti", ms1), b)
		if x := r.Ratio(b); x >= 1 {
			diverges(t, "%s: JVMTI takes %.1f× the samples at 0.1 ms that it takes at 1 ms (claim: fewer)", b, x)
		}
	}
}

// TestDivergence_H3 pins the documented divergence (REPRODUCTIONS.md,
// H3): JVMTI takes at least 3× more samples at 0.1 ms, and latencies
// beyond 1 ms are not more frequent there (share within 1 point). If this
// fails because the ratio drops below 1, the claim has started to
// reproduce: update REPRODUCTIONS.md.
func TestDivergence_H3(t *testing.T) {
	r := measure[*h3Result](t, "h3-samples")
	for _, b := range hoferCPUHeavy {
		assert.Greater(t, r.Ratio(b), h3RatioPin, b)
		assert.LessOrEqual(t, r.LongShare(b, "jvmti", us100), r.LongShare(b, "jvmti", ms1)+h3LongSlack, b)
	}
}
