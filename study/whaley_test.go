package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
)

// Tolerances of W1, W3 and W4 (CLAIMS.md). Whaley gives no numbers for
// these claims; each constant reads the claim's words.
const (
	// w1Kiama1msMax and w1Kiama10msMax read "frames examined per sample
	// ≪ stack depth" as at most 1/4 of the stack at 1 ms and, with ten
	// times the time for the stack to change between samples, at most
	// 3/4 at 10 ms, on the upper end of the 95 % CI over seeds (measured
	// ≈ 0.1 and ≈ 0.55).
	w1Kiama1msMax  = 0.25
	w1Kiama10msMax = 0.75
	// w1KiamaDepthMin: the saving is asserted on a deep stack; kiama's
	// recursion is deeper than 100 frames by construction (the stand-in's
	// knobs), a check that the runs measure what they are meant to.
	w1KiamaDepthMin = 100.0
	// w1DeepcallMin: deepcall rebuilds its 60-level chain every ≈ 2 µs,
	// so a sample must walk (nearly) the whole stack: the marker bits
	// save nothing on frames that do not outlive the interval.
	w1DeepcallMin = 0.95
	// w3DCTRatioMin: "orders of magnitude smaller than the exhaustive
	// call tree" (the claim's words): at least two, 100×, on every run.
	w3DCTRatioMin = 100.0
	// w3PCCTBytesMax and w3CCTBytesMin: "kilobytes where a CCT can take
	// megabytes" (the paper's words, §2): the PCCT below 64 kB, the
	// exact CCT at 1 MB or more at the same node size.
	w3PCCTBytesMax = 64e3
	w3CCTBytesMin  = 1e6
	// w4SmallestLimitMin reads "deep call sequences are attached at the
	// wrong place" as: at limit 4, at least 90 % of the samples on the
	// deep stand-ins are misattached.
	w4SmallestLimitMin = 90.0
	// w4GrowSlack: "the share … grows as the limit shrinks", allowing a
	// rise of up to 5 points from one limit to the next larger one, a
	// margin chosen when the test was written for seed-to-seed scatter.
	w4GrowSlack = 5.0
	// w4FallMin: the share falls by at least 20 points between limit 4
	// and the largest limit below the deepest stack, so that "grows as
	// the limit shrinks" is more than a flat line within w4GrowSlack.
	w4FallMin = 20.0
)

// TestW1_PartialWalks: on every run and at 1 and 10 ms the marker-bit
// PCCT is exactly the tree full walks build on the same execution (no
// depth limit: the paper's "complete calling context"), and a walk never
// reads more frames than the stack has. On kiama, whose recursion
// outlives the interval, a sample at 1 ms examines at most 1/4 of the
// stack (upper end of the 95 % CI) and at 10 ms at most 3/4; the paper
// gives no number, only "without traversing the entire stack". deepcall
// rebuilds its 60-level chain every ≈ 2 µs, so there a sample walks the
// whole stack (ratio ≥ 0.95): the saving needs frames that live longer
// than the interval. Fails if the sampler ignores its marker bits
// (kiama's ratio → 1) or attaches new frames under the wrong node (trees
// differ).
func TestW1_PartialWalks(t *testing.T) {
	r := measure[*W1Result](t, "w1-partial-walks")
	ms, ms10 := sim.Millisecond, 10*sim.Millisecond
	assert.Zero(t, r.NotIdentical(), "runs whose marker-bit PCCT differs from the full walks'")
	assert.LessOrEqual(t, r.ExcessMax(), 0.0, "a walk never examines more than the stack")
	assert.Less(t, r.Ratio("kiama", ms).Hi(), w1Kiama1msMax)
	assert.Less(t, r.Ratio("kiama", ms10).Hi(), w1Kiama10msMax)
	assert.Greater(t, r.Depth("kiama", ms).Mean, w1KiamaDepthMin, "kiama's stack is deep")
	assert.GreaterOrEqual(t, r.Ratio("deepcall", ms10).Mean, w1DeepcallMin)
}

// Tolerances of W2 (CLAIMS.md W2).
const (
	// w2OverheadMax: "both cost a few percent at 10 ms" (the claim's
	// words), as a bound: below 3 %. The model's overheads are ≈ 0.2 %,
	// far below the paper's (REPRODUCTIONS.md, W2).
	w2OverheadMax = 3.0
	// w2StrongCorrelation reads the claim's "precision … is high at
	// 1–10 ms" and "lost at 100 ms", which have no number (the paper's
	// table digits are lost in our copy), on the conventional scale of
	// correlation strength: r ≥ 0.6 is "strong" (Evans, Straightforward
	// Statistics for the Behavioral Sciences, 1996: 0.6–0.79 strong,
	// ≥ 0.8 very strong). High: a mean at or above it; lost: below it.
	// The drop itself is asserted as separated 95 % CIs over seed pairs.
	w2StrongCorrelation = 0.6
)

// TestW2_OverheadPrecision: for each stand-in (jess for SPECjvm98, jbb for
// pBOB) on one CPU, per interval: hot-method counting costs less than the
// PCCT (paper's tables: PCCT slightly more expensive; paired by seed, the
// 95 % CI of the difference above 0); overhead falls as the interval
// grows; at 10 ms both are above 0 and below 3 % ("a few percent" as a
// bound; ours are ≈ 0.2 %, far below the paper's — see the experiment's
// note). Precision (Whaley: correlation of the second data sets of two
// runs) is strong (≥ w2StrongCorrelation) at 1 and 10 ms for both
// profilers, and at 100 ms falls below it, its 95 % CI wholly below the
// one at 10 ms.
func TestW2_OverheadPrecision(t *testing.T) {
	r := measure[*W2Result](t, "w2-overhead-precision")
	ms, ms10, ms100 := sim.Millisecond, 10*sim.Millisecond, 100*sim.Millisecond
	assert.Zero(t, r.ShortRuns, "every run spans both data sets")
	for _, b := range []string{"jess", "jbb"} {
		for _, iv := range w2Intervals {
			assert.Positive(t, r.Extra(1, b, iv).Lo(), "%s %v: hot methods cheaper than the PCCT (paired by seed, 95 %% CI above 0)", b, iv)
		}
		for _, pr := range w2Profilers {
			ov := func(iv sim.Time) float64 { return r.Overhead(pr, 1, b, iv).Mean }
			prec := func(iv sim.Time) float64 { return r.Precision(pr, 1, b, iv).Mean }
			assert.Greater(t, ov(ms), ov(ms10), "%s %s", b, pr)
			assert.Greater(t, ov(ms10), ov(ms100), "%s %s", b, pr)
			assert.Positive(t, ov(ms10), "%s %s", b, pr)
			assert.Less(t, ov(ms10), w2OverheadMax, "%s %s", b, pr)
			for _, iv := range []sim.Time{ms, ms10} {
				assert.GreaterOrEqual(t, prec(iv), w2StrongCorrelation, "%s %s %v precision", b, pr, iv)
			}
			assert.Less(t, prec(ms100), w2StrongCorrelation, "%s %s", b, pr)
			assert.Greater(t, r.Precision(pr, 1, b, ms10).Lo(), r.Precision(pr, 1, b, ms100).Hi(), "%s %s: precision drops from 10 to 100 ms", b, pr)
		}
	}
}

// TestW3_Size: after the run the PCCT (10 ms) has ≥ 100× fewer nodes than
// the dynamic call tree on every run (paper: orders of magnitude) and
// fewer than the exact CCT on every run; on the SPEC-like and Scala-like
// stand-ins the PCCT takes kilobytes (< 64 kB) while the exact CCT takes
// megabytes (≥ 1 MB at the same node size; paper: "kilobytes where a CCT
// can take megabytes"). Fails if the PCCT stopped sharing nodes between
// samples (it would grow by a stack per sample).
func TestW3_Size(t *testing.T) {
	r := measure[*W3Result](t, "w3-size")
	assert.GreaterOrEqual(t, r.DCTRatioMin(), w3DCTRatioMin)
	assert.Greater(t, r.CCTRatioMin(), 1.0)
	for _, b := range []string{"jess", "kiama"} {
		assert.Less(t, r.PCCTBytes(b), w3PCCTBytesMax, b)
		assert.GreaterOrEqual(t, r.CCTBytes(b), w3CCTBytesMin, b)
	}
}

// TestW4_DepthLimit: on deepcall (63 frames) and kiama (> 300 frames),
// at 1 ms, the misattached share of samples (mean over seeds) is ≥ 90 %
// at limit 4, never grows by more than 5 points from one limit to the next
// larger one, falls by ≥ 20 points between limit 4 and the largest limit
// below the stack's maximum depth, and is 0 at a limit above it (paper: a
// long new call sequence is "not correctly attached"; no share given).
// Wherever no walk hit the limit, the tree equals the full walks'. Fails
// if the limit is ignored (every share 0) or misattached frames are
// attached correctly later.
func TestW4_DepthLimit(t *testing.T) {
	r := measure[*W4Result](t, "w4-depth-limit")
	assert.Zero(t, r.UnlimitedButDifferent())
	for _, b := range []string{"deepcall", "kiama"} {
		at := func(l int) float64 { return r.Misattached(b, l).Mean }
		depth := int(r.MaxDepth(b))
		assert.GreaterOrEqual(t, at(w4Limits[0]), w4SmallestLimitMin, b)
		below := w4Limits[0]
		for i := 1; i < len(w4Limits); i++ {
			assert.LessOrEqual(t, at(w4Limits[i]), at(w4Limits[i-1])+w4GrowSlack, "%s: limit %d vs %d", b, w4Limits[i], w4Limits[i-1])
			if w4Limits[i] < depth {
				below = w4Limits[i]
			}
			if w4Limits[i] > depth {
				assert.Zero(t, at(w4Limits[i]), "%s: limit %d above the deepest stack", b, w4Limits[i])
			}
		}
		assert.GreaterOrEqual(t, at(w4Limits[0])-at(below), w4FallMin, "%s: limit %d vs %d", b, w4Limits[0], below)
	}
}

// The two PCCT measurements W2 reads: a count window keeps exactly the
// samples of one data set, and edge weights count new activations — every
// sample's whole path under full walks, the entry frame once with marker
// bits (it lives the whole run).
func TestWhaleyDataSetsAndEdgeWeights(t *testing.T) {
	p, err := workloads.Get("abcuv")
	require.NoError(t, err)
	cfg := harness.DefaultConfig()
	cfg.Sim.Duration = 300 * sim.Millisecond
	// The window's ten ticks and the comparison of the marked tree with
	// the full walks' need exact, shared tick times: each sampler draws
	// its jitter from its own stream, so all three run at jitter 0.
	set := newPCCT("set", func(c *samplers.PCCTConfig) {
		c.CountFrom, c.CountUntil, c.Jitter = 100*sim.Millisecond, 200*sim.Millisecond, 0
	})
	marked := newPCCT("marked", func(c *samplers.PCCTConfig) { c.Jitter = 0 })
	full := newPCCT("full", func(c *samplers.PCCTConfig) { c.FullWalk, c.Jitter = true, 0 })
	cfg.Extra = []samplers.Sampler{set, marked, full}
	out, err := harness.Run(p, cfg)
	require.NoError(t, err)
	count := func(s samplers.Sampler) (n int64) {
		for _, c := range s.(*samplers.PCCT).Contexts() {
			n += c.Count
		}
		return n
	}
	assert.Equal(t, int64(10), count(set), "ticks at 100, 110, …, 190 ms")
	assert.Equal(t, out.Costs["marked"].Taken, count(marked))
	inclusive := map[string]int64{}
	for _, c := range full.(*samplers.PCCT).Contexts() {
		for i := range c.Path {
			if i == len(c.Path)-1 || c.Path[i+1] == profile.FrameSep[0] {
				inclusive[c.Path[:i+1]] += c.Count
			}
		}
	}
	for _, c := range full.(*samplers.PCCT).Contexts() {
		assert.Equal(t, inclusive[c.Path], c.Edge, "full walks: edge weight = samples through %s", c.Path)
	}
	entry := false
	for _, c := range marked.(*samplers.PCCT).Contexts() {
		assert.LessOrEqual(t, c.Edge, inclusive[c.Path], c.Path)
		if c.Path == "Main.main" {
			entry = true
			assert.Equal(t, int64(1), c.Edge, "one activation of the entry frame")
		}
	}
	assert.True(t, entry, "Main.main in the tree")
}
