package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Tolerances of H1 (CLAIMS.md H1).
const (
	// h1JVMTIOverSPS: the paper's geo-means at 10 ms, JVMTI > 10 % vs
	// SPS < 3 %, put JVMTI over 3× SPS; asserted at 10 and 1 ms.
	h1JVMTIOverSPS = 3.0
	// h1ISPSSlack: "SPS > ISPS at 10 ms"; at 10 and 1 ms the two differ
	// by hundredths of a point, so ISPS may exceed SPS by 0.05 points, a
	// margin chosen when the test was written.
	h1ISPSSlack = 0.05
	// h1JVMTIClaim: "paper geo-means: > 10 %" for JVMTI at 10 ms.
	h1JVMTIClaim = 10.0
)

// TestH1_Overhead: on the multi-threaded stand-ins (tmt, H4's exception,
// left out) the geometric-mean overhead orders JVMTI > SPS at every
// interval, JVMTI by at least 3× at 10 and 1 ms; ISPS ≤ SPS + 0.05 points
// at 10 and 1 ms, where the two differ by hundredths. At 0.1 ms, on each
// CPU-heavy stand-in (stable stacks), ISPS costs less than SPS, paired by
// seed with the 95 % CI below 0: decoding one frame instead of walking
// eight (paper: ISPS ≈ 2 % < SPS); on call-heavy h2 its return
// trampolines cost more than they save, so the geometric means are level.
// The gap JVMTI − SPS, paired by seed, has its 95 % CI above 0 and widens
// from 10 ms to 1 ms to 0.1 ms (paper: "the improvements become more
// significant with 1 ms"). Both agents do the same work per sample (wake,
// 20 µs and 4 KiB to store traces), and both sample waiting threads, as in
// the paper's evaluation, so the gap is the safepoints'. JVMTI's level at
// 10 ms is below the paper's > 10 % (TestDivergence_H1). Fails if SPS
// waited for every thread as JVMTI does (its overhead would approach
// JVMTI's) or if ISPS walked its whole stack.
func TestH1_Overhead(t *testing.T) {
	needsSeeds(t, "ISPS − SPS at 0.1 ms paired by seed, its 95 % CI below 0 on each CPU-heavy stand-in")
	r := measure[*h1Result](t, "h1-overhead")
	for _, iv := range hoferIntervals {
		j, s, i := r.GeoMean("jvmti", iv), r.GeoMean("sps", iv), r.GeoMean("isps", iv)
		assert.Greater(t, j, s, "%v", iv)
		assert.Positive(t, r.Gap(iv).Lo(), "%v: JVMTI − SPS CI above 0", iv)
		if iv != us100 {
			assert.GreaterOrEqual(t, j, h1JVMTIOverSPS*s, "%v: JVMTI ≥ 3 × SPS", iv)
			assert.LessOrEqual(t, i, s+h1ISPSSlack, "%v", iv)
		}
	}
	if i, s := r.GeoMean("isps", ms10), r.GeoMean("sps", ms10); i >= s {
		diverges(t, "at 10 ms ISPS (%.2f %%) is not below SPS (%.2f %%)", i, s)
	}
	if j := r.GeoMean("jvmti", ms10); j <= h1JVMTIClaim {
		diverges(t, "JVMTI's geo. mean at 10 ms is %.1f %% (paper > 10 %%)", j)
	}
	for _, b := range hoferCPUHeavy {
		assert.Negative(t, r.Diff(b, "isps", "sps", us100).Hi(), "%s: ISPS < SPS at 0.1 ms (paired CI below 0)", b)
	}
	assert.Greater(t, r.Gap(ms1).Mean, r.Gap(ms10).Mean)
	assert.Greater(t, r.Gap(us100).Mean, r.Gap(ms1).Mean)
}

// TestDivergence_H1 pins the documented divergence (REPRODUCTIONS.md,
// H1): JVMTI's geometric-mean overhead at 10 ms stays below the paper's
// 10 %. The real JVM measured here agrees: a GetAllStackTraces sampler
// every 10 ms, bookkeeping and output included, costs OpenJDK 17 0–10 %
// (lusearch 0 %; tools/agents prof:safepoint, 2026-11-29, load 0.57–2.31;
// docs/CALIBRATION.md).
func TestDivergence_H1(t *testing.T) {
	r := measure[*h1Result](t, "h1-overhead")
	assert.Less(t, r.GeoMean("jvmti", ms10), h1JVMTIClaim)
}
