package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/sim"
)

// Tolerances of the Hofer claims (CLAIMS.md H1–H7).
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
	// h2LongLatency: "fluctuates to > 10 ms when hot loops have no polls"
	// (the claim's number).
	h2LongLatency = 10.0
	// h2LowMs and h2P975Ms read "SPS/ISPS latency stays low and stable":
	// never above 1 ms on the CPU-heavy stand-ins, 97.5th percentile
	// below 0.2 ms everywhere — margins chosen when the test was written
	// (measured max ≤ 0.16 ms). h2LowMs also bounds JVMTI's median there.
	h2LowMs  = 1.0
	h2P975Ms = 0.2
	// h3RatioPin and h3LongSlack pin a documented divergence
	// (REPRODUCTIONS.md, H3): JVMTI takes over 3× more samples at 0.1 ms
	// than at 1 ms (measured 3.2–3.4×), and latencies beyond 1 ms are not
	// more frequent at 0.1 ms (within 1 point).
	h3RatioPin  = 3.0
	h3LongSlack = 0.01
	// h4ThreadEnds reads "short-lived threads" as more than 100 thread
	// ends a run (measured 576–599).
	h4ThreadEnds = 100.0
	// h5Similar reads "overlap their average CCT similarly" as medians
	// within 5 points (chosen when the test was written; measured within
	// 2.2).
	h5Similar = 5.0
	// h6PartialAgree: SPS and ISPS, the same partial safepoints, overlap
	// by at least 85 % on the CPU-heavy stand-ins (chosen; measured
	// 89.7–98.9).
	h6PartialAgree = 85.0
	// h6OverlapClaim: "overlap between techniques > 70 % except on the
	// deep-recursion stand-ins" (the claim's number).
	h6OverlapClaim = 70.0
	// h6CoverageClaim: "hot-edge coverage (T = 0.1) SPS vs JVMTI > 90 %"
	// (the claim's number).
	h6CoverageClaim = 90.0
	// h6DeepFrames: the 256-frame limit of JVMTI and SPS.
	h6DeepFrames = 256.0
	// h6FlatNoise: on the flat stand-ins JVMTI–SPS overlap is at least
	// 0.8× the SPS–ISPS overlap, i.e. no worse than sampling noise (a
	// margin chosen when the test was written).
	h6FlatNoise = 0.8
	// h7Fifth reads "frames decoded per sample ≪ depth" as below a fifth
	// of the depth and of SPS's walk on the deep stand-ins.
	h7Fifth = 0.2
	// h7DeepMin: the deep stand-ins' stacks are deeper than 100 frames
	// at the samples (a check that the runs measure deep stacks).
	h7DeepMin = 100.0
)

var (
	ms10, ms1, us100 = 10 * sim.Millisecond, sim.Millisecond, 100 * sim.Microsecond
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
	r := measure[*H1Result](t, "h1-overhead")
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
// 10 %.
func TestDivergence_H1(t *testing.T) {
	r := measure[*H1Result](t, "h1-overhead")
	assert.Less(t, r.GeoMean("jvmti", ms10), h1JVMTIClaim)
}

// TestH2_Latency: at 1 ms, JVMTI's latency reaches more than 10 ms on
// each CPU-heavy stand-in (a long poll-free loop holds the safepoint;
// paper: > 10 ms on lusearch, sunflow, xalan) while its median stays below
// 1 ms, and SPS's and ISPS's never exceeds 1 ms there; their 97.5th
// percentile stays below 0.2 ms everywhere (paper: low and stable);
// JVMTI's median exceeds SPS's on every stand-in (everyone must reach a
// safepoint); and JVMTI's median is highest on the many-thread stand-ins
// (tradebeans, actors: 33 threads walked per sample; paper: high median on
// actors, tradebeans). Fails if partial safepoints waited for the thread
// in the long loop, or if JVMTI skipped the waiting threads.
func TestH2_Latency(t *testing.T) {
	r := measure[*H2Result](t, "h2-latency")
	for _, b := range hoferCPUHeavy {
		assert.Greater(t, r.Quantile(b, "jvmti", 1), h2LongLatency, b)
		assert.Less(t, r.Quantile(b, "jvmti", 0.5), h2LowMs, b)
		for _, pr := range []string{"sps", "isps"} {
			assert.Less(t, r.Quantile(b, pr, 1), h2LowMs, "%s %s: no partial safepoint waits for the thread in a long loop", b, pr)
		}
	}
	for _, b := range r.Benches {
		for _, pr := range []string{"sps", "isps"} {
			assert.Less(t, r.Quantile(b, pr, 0.975), h2P975Ms, "%s %s", b, pr)
		}
		assert.Greater(t, r.Quantile(b, "jvmti", 0.5), r.Quantile(b, "sps", 0.5), b)
	}
	// Many threads: JVMTI walks all 33 at every sample, so its median is
	// higher there than on any other stand-in (paper: actors, tradebeans).
	for _, many := range []string{"tradebeans", "actors"} {
		for _, b := range r.Benches {
			if b != "tradebeans" && b != "actors" {
				assert.Greater(t, r.Quantile(many, "jvmti", 0.5), r.Quantile(b, "jvmti", 0.5), "%s vs %s", many, b)
			}
		}
	}
}

// TestH3_FewerSamples: the paper saw JVMTI take fewer samples at 0.1 ms
// than at 1 ms on lusearch, sunflow and xalan ("possibly due to
// scheduling effects"). The model does not (TestDivergence_H3): a long
// latency is a long poll-free loop met by chance at either interval.
// Asserted: JVMTI sampled at both intervals.
func TestH3_FewerSamples(t *testing.T) {
	r := measure[*H3Result](t, "h3-samples")
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
	r := measure[*H3Result](t, "h3-samples")
	for _, b := range hoferCPUHeavy {
		assert.Greater(t, r.Ratio(b), h3RatioPin, b)
		assert.LessOrEqual(t, r.LongShare(b, "jvmti", us100), r.LongShare(b, "jvmti", ms1)+h3LongSlack, b)
	}
}

// TestH4_ShortLived: on the tmt stand-in ISPS costs more than SPS at 10
// and 1 ms (paired by seed, CI above 0; paper: ISPS > SPS at both), and
// it entered a full safepoint at each of the hundreds of thread ends.
// Fails if ISPS's thread-end retrieves were free (ISPS ≤ SPS, as on every
// other stand-in).
func TestH4_ShortLived(t *testing.T) {
	r := measure[*H4Result](t, "h4-short-lived")
	for _, iv := range []sim.Time{ms10, ms1} {
		assert.Positive(t, r.Diff("tmt", "isps", "sps", iv).Lo(), "%v: ISPS − SPS", iv)
		assert.Greater(t, r.ThreadEnds("tmt", iv), h4ThreadEnds, "%v", iv)
	}
}

// TestH5_Stability: per stand-in, SPS's and ISPS's median overlaps of
// iteration CCTs with their own average CCT lie within 5 points of each
// other, and JVMTI's is no lower than theirs less 5 (paper: "the
// stability of all three sampling techniques is very similar"). JVMTI can
// be steadier: it samples every thread at each request where SPS and
// ISPS sample K = 4, so on the 8-thread CPU-heavy stand-ins its iterations
// hold twice the samples (measured up to 16 points higher on sunflow).
// Hot-edge coverage is printed, not asserted: those stand-ins have two or
// three hot edges, so a coverage moves in steps of 33–50 points.
func TestH5_Stability(t *testing.T) {
	r := measure[*H5Result](t, "h5-stability")
	for _, b := range r.Benches {
		sps, isps, jvmti := r.Overlap(b, "sps", 0.5), r.Overlap(b, "isps", 0.5), r.Overlap(b, "jvmti", 0.5)
		assert.InDelta(t, sps, isps, h5Similar, "%s: SPS and ISPS equally stable", b)
		assert.GreaterOrEqual(t, jvmti, min(sps, isps)-h5Similar, "%s: JVMTI no less stable", b)
	}
}

// TestH6_Agreement: on the CPU-heavy stand-ins, whose time sits in a few
// hot contexts, SPS and ISPS — the same partial safepoints — agree (their
// average CCTs overlap ≥ 85 %), and each agrees less with JVMTI: a partial
// safepoint samples the first K threads to reach a poll, never the one in
// a ms-long poll-free loop that JVMTI's global safepoint waits for and
// then samples. On the recursive-descent stand-ins deeper than 256 frames
// every overlap is < 70 % (paper: kiama, scalac, scaladoc) and ISPS
// covers fewer of JVMTI's hot edges than SPS does (paper: ISPS's complete
// traces do not match the others' truncated ones). On the flat stand-ins
// (h2, jython9) JVMTI and SPS disagree no more than sampling noise does:
// their overlap is ≥ 0.8 × that of SPS and ISPS. The paper's > 70 %
// between all techniques elsewhere and SPS's > 90 % coverage of JVMTI's
// hot edges are not met on every stand-in (TestDivergence_H6). Fails if
// ISPS truncated its stacks like the others, or if partial safepoints
// waited for every thread.
func TestH6_Agreement(t *testing.T) {
	r := measure[*H6Result](t, "h6-agreement")
	for _, b := range hoferCPUHeavy {
		partial := r.Overlap(b, hoferPairs[2])
		assert.GreaterOrEqual(t, partial, h6PartialAgree, "%s: sps–isps", b)
		assert.Less(t, r.Overlap(b, hoferPairs[0]), partial, "%s: jvmti–sps below sps–isps", b)
		assert.Less(t, r.Overlap(b, hoferPairs[1]), partial, "%s: jvmti–isps below sps–isps", b)
	}
	deep := map[string]bool{"kiama": true, "scalac": true}
	for _, b := range []string{"kiama", "scalac"} {
		assert.Greater(t, float64(r.Depth(b)), h6DeepFrames, b)
		for _, pair := range hoferPairs {
			assert.Less(t, r.Overlap(b, pair), h6OverlapClaim, "%s %s–%s", b, pair[0], pair[1])
		}
		assert.Less(t, r.Coverage(b, hoferPairs[1]), r.Coverage(b, hoferPairs[0]), b)
	}
	for _, b := range []string{"h2", "jython9"} {
		assert.GreaterOrEqual(t, r.Overlap(b, hoferPairs[0]), h6FlatNoise*r.Overlap(b, hoferPairs[2]), b)
	}
	for _, b := range r.Benches {
		if deep[b] {
			continue
		}
		for _, pair := range hoferPairs {
			if v := r.Overlap(b, pair); v <= h6OverlapClaim {
				diverges(t, "%s: %s–%s overlap %.1f %% (claim: > 70 %%)", b, pair[0], pair[1], v)
			}
		}
		if v := r.Coverage(b, hoferPairs[0]); v <= h6CoverageClaim {
			diverges(t, "%s: SPS covers %.0f %% of JVMTI's hot edges (claim: > 90 %%)", b, v)
		}
	}
}

// TestDivergence_H6 pins the documented divergence (REPRODUCTIONS.md,
// H6): on some CPU-heavy stand-in SPS covers at most 90 % of JVMTI's hot
// edges, since a partial safepoint never samples the thread in a long
// poll-free loop that JVMTI waits for.
func TestDivergence_H6(t *testing.T) {
	r := measure[*H6Result](t, "h6-agreement")
	least := 100.0
	for _, b := range hoferCPUHeavy {
		least = min(least, r.Coverage(b, hoferPairs[0]))
	}
	assert.LessOrEqual(t, least, h6CoverageClaim)
}

// TestH7_FramesDecodedOnce: ISPS decodes fewer frames per sample than SPS
// walks on every stand-in, and on the recursive-descent stand-ins (stacks
// ≈ 130–290 deep) less than a fifth of what SPS walks and of the stack
// depth (paper: "examines each stack frame only once"). Fails if ISPS
// re-decoded shared frames (its count would approach SPS's).
func TestH7_FramesDecodedOnce(t *testing.T) {
	r := measure[*H7Result](t, "h7-frames-decoded")
	for _, b := range r.Benches {
		assert.Less(t, r.ISPS(b).Mean, r.SPS(b).Mean, b)
	}
	for _, b := range []string{"kiama", "scalac"} {
		assert.Less(t, r.ISPS(b).Mean, h7Fifth*r.SPS(b).Mean, b)
		assert.Less(t, r.Ratio(b).Mean, h7Fifth, b)
		assert.Greater(t, r.Depth(b).Mean, h7DeepMin, b)
	}
}
