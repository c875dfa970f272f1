package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestH1_Overhead: on the multi-threaded stand-ins (tmt, H4's exception,
// left out) the geometric-mean overhead orders JVMTI > SPS at every
// interval (paper at 10 ms: > 10 % vs < 3 %), JVMTI by at least 3× at 10
// and 1 ms; ISPS ≤ SPS + 0.05 points at 10 and 1 ms, where the two differ
// by hundredths. At 0.1 ms, on each CPU-heavy stand-in (stable stacks),
// ISPS costs less than SPS, paired by seed with the 95 % CI below 0:
// decoding one frame instead of walking eight (paper: ISPS ≈ 2 % < SPS);
// on call-heavy h2 its return trampolines cost more than they save, so
// the geometric means are level. The gap JVMTI − SPS, paired by seed, has
// its 95 % CI above 0 and widens from 10 ms to 1 ms to 0.1 ms (paper: "the
// improvements become more significant with 1 ms"). Both agents do the
// same work per sample (wake, 20 µs and 4 KiB to store traces), and both
// sample waiting threads, as in the paper's evaluation, so the gap is the
// safepoints'. Fails if SPS waited for every thread as JVMTI does (its
// overhead would approach JVMTI's) or if ISPS walked its whole stack.
func TestH1_Overhead(t *testing.T) {
	r := runExperiment(t, "h1-overhead")
	v := r.Values
	for _, iv := range []string{"10ms", "1ms", "100µs"} {
		j, s, i := v["geomean/jvmti/"+iv], v["geomean/sps/"+iv], v["geomean/isps/"+iv]
		assert.Greater(t, j, s, iv)
		assert.Positive(t, v["gap/"+iv]-v["gap/"+iv+"/ci"], "%s: JVMTI − SPS CI above 0", iv)
		if iv != "100µs" {
			assert.GreaterOrEqual(t, j, 3*s, "%s: JVMTI ≥ 3 × SPS", iv)
			assert.LessOrEqual(t, i, s+0.05, iv)
		}
	}
	for _, b := range hoferCPUHeavy {
		k := b + "/isps-sps/100µs"
		assert.Negative(t, v[k]+v[k+"/ci"], "%s: ISPS < SPS at 0.1 ms (paired CI below 0)", b)
	}
	assert.Greater(t, v["gap/1ms"], v["gap/10ms"])
	assert.Greater(t, v["gap/100µs"], v["gap/1ms"])
}

// TestH2_Latency: at 1 ms, JVMTI's latency reaches more than 10 ms on
// each CPU-heavy stand-in (a long poll-free loop holds the safepoint;
// paper: > 10 ms on lusearch, sunflow, xalan) while its median stays below
// 1 ms, and SPS's and ISPS's never exceeds 1 ms there; their 97.5th
// percentile stays below 0.2 ms everywhere (paper: low and stable); JVMTI's median exceeds SPS's on every stand-in
// (everyone must reach a safepoint); and JVMTI's median is highest on the
// many-thread stand-ins (tradebeans, actors: 33 threads walked per
// sample; paper: high median on actors, tradebeans). Fails if partial
// safepoints waited for the thread in the long loop, or if JVMTI skipped
// the waiting threads.
func TestH2_Latency(t *testing.T) {
	r := runExperiment(t, "h2-latency")
	v := r.Values
	for _, b := range hoferCPUHeavy {
		assert.Greater(t, v[b+"/jvmti/max"], 10.0, b)
		assert.Less(t, v[b+"/jvmti/median"], 1.0, b)
		for _, pr := range []string{"sps", "isps"} {
			assert.Less(t, v[b+"/"+pr+"/max"], 1.0, "%s %s: no partial safepoint waits for the thread in a long loop", b, pr)
		}
	}
	for _, b := range hoferOverheadBenches(DefaultOptions()) {
		for _, pr := range []string{"sps", "isps"} {
			assert.Less(t, v[b+"/"+pr+"/p975"], 0.2, "%s %s", b, pr)
		}
		assert.Greater(t, v[b+"/jvmti/median"], v[b+"/sps/median"], b)
	}
	// Many threads: JVMTI walks all 33 at every sample, so its median is
	// higher there than on any other stand-in (paper: actors, tradebeans).
	for _, many := range []string{"tradebeans", "actors"} {
		for _, b := range hoferOverheadBenches(DefaultOptions()) {
			if b != "tradebeans" && b != "actors" {
				assert.Greater(t, v[many+"/jvmti/median"], v[b+"/jvmti/median"], "%s vs %s", many, b)
			}
		}
	}
}

// TestH3_FewerSamples documents a divergence: the paper saw JVMTI take
// fewer samples at 0.1 ms than at 1 ms on lusearch, sunflow and xalan
// ("possibly due to scheduling effects"). In the model a long latency is a
// long poll-free loop met by chance at either interval, so JVMTI takes at
// least 3× more samples at 0.1 ms, and latencies beyond 1 ms are not more
// frequent at 0.1 ms (share within 1 point). If this test fails because
// the ratio drops below 1, the claim has started to reproduce: update
// REPRODUCTIONS.md.
func TestH3_FewerSamples(t *testing.T) {
	r := runExperiment(t, "h3-samples")
	v := r.Values
	for _, b := range hoferCPUHeavy {
		assert.Greater(t, v[b+"/ratio"], 3.0, b)
		assert.LessOrEqual(t, v[b+"/long01"], v[b+"/long1"]+0.01, b)
	}
}

// TestH4_ShortLived: on the tmt stand-in ISPS costs more than SPS at 10
// and 1 ms (paired by seed, CI above 0; paper: ISPS > SPS at both), and
// it entered a full safepoint at each of the hundreds of thread ends.
// Fails if ISPS's thread-end retrieves were free (ISPS ≤ SPS, as on every
// other stand-in).
func TestH4_ShortLived(t *testing.T) {
	r := runExperiment(t, "h4-short-lived")
	v := r.Values
	for _, iv := range []string{"10ms", "1ms"} {
		assert.Positive(t, v["diff/"+iv]-v["diff/"+iv+"/ci"], "%s: ISPS − SPS", iv)
		assert.Greater(t, v["ends/"+iv], 100.0, iv)
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
	r := runExperiment(t, "h5-stability")
	v := r.Values
	for _, b := range hoferAccuracyBenches(DefaultOptions()) {
		sps, isps, jvmti := v[b+"/sps/overlap"], v[b+"/isps/overlap"], v[b+"/jvmti/overlap"]
		assert.InDelta(t, sps, isps, 5, "%s: SPS and ISPS equally stable", b)
		assert.GreaterOrEqual(t, jvmti, min(sps, isps)-5, "%s: JVMTI no less stable", b)
	}
}

// TestH6_Agreement: on the CPU-heavy stand-ins, whose time sits in a few
// hot contexts, SPS and ISPS — the same partial safepoints — agree (their
// average CCTs overlap ≥ 85 %), and each agrees less with JVMTI: a partial
// safepoint samples the first K threads to reach a poll, never the one in
// a ms-long poll-free loop that JVMTI's global safepoint waits for and
// then samples. (The paper's > 70 % between all techniques: see the table
// and REPRODUCTIONS.md.) On the recursive-descent stand-ins deeper than
// 256 frames every overlap is < 70 % (paper: kiama, scalac, scaladoc) and
// ISPS covers fewer of JVMTI's hot edges than SPS does (paper: ISPS's
// complete traces do not match the others' truncated ones). On the flat
// stand-ins (h2, jython9) JVMTI and SPS disagree no more than sampling
// noise does: their overlap is ≥ 0.8 × that of SPS and ISPS. Fails if
// ISPS truncated its stacks like the others, or if partial safepoints
// waited for every thread.
func TestH6_Agreement(t *testing.T) {
	r := runExperiment(t, "h6-agreement")
	v := r.Values
	ov := func(b string, pair [2]string) float64 { return v[b+"/"+pair[0]+"-"+pair[1]+"/overlap"] }
	for _, b := range hoferCPUHeavy {
		partial := ov(b, hoferPairs[2])
		assert.GreaterOrEqual(t, partial, 85.0, "%s: sps–isps", b)
		assert.Less(t, ov(b, hoferPairs[0]), partial, "%s: jvmti–sps below sps–isps", b)
		assert.Less(t, ov(b, hoferPairs[1]), partial, "%s: jvmti–isps below sps–isps", b)
	}
	for _, b := range []string{"kiama", "scalac"} {
		assert.Greater(t, v[b+"/depth"], 256.0, b)
		for _, pair := range hoferPairs {
			assert.Less(t, ov(b, pair), 70.0, "%s %s–%s", b, pair[0], pair[1])
		}
		assert.Less(t, v[b+"/jvmti-isps/coverage"], v[b+"/jvmti-sps/coverage"], b)
	}
	for _, b := range []string{"h2", "jython9"} {
		assert.GreaterOrEqual(t, ov(b, hoferPairs[0]), 0.8*ov(b, hoferPairs[2]), b)
	}
}

// TestH7_FramesDecodedOnce: ISPS decodes fewer frames per sample than SPS
// walks on every stand-in, and on the recursive-descent stand-ins (stacks
// ≈ 130–290 deep) less than a fifth of what SPS walks and of the stack
// depth (paper: "examines each stack frame only once"). Fails if ISPS
// re-decoded shared frames (its count would approach SPS's).
func TestH7_FramesDecodedOnce(t *testing.T) {
	r := runExperiment(t, "h7-frames-decoded")
	v := r.Values
	for _, b := range hoferAccuracyBenches(DefaultOptions()) {
		assert.Less(t, v[b+"/isps"], v[b+"/sps"], b)
	}
	for _, b := range []string{"kiama", "scalac"} {
		assert.Less(t, v[b+"/isps"], v[b+"/sps"]/5, b)
		assert.Less(t, v[b+"/ratio"], 0.2, b)
		assert.Greater(t, v[b+"/depth"], 100.0, b)
	}
}
