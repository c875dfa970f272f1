package study

import (
	"testing"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	needsSeeds(t, "precision, the correlation between runs of two different seeds, and overhead CIs over seeds")
	r := measure[*w2Result](t, "w2-overhead-precision")
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

// The two PCCT measurements W2 reads: a count window keeps exactly the
// samples of one data set, and edge weights count new activations — every
// sample's whole path under full walks, the entry frame once with marker
// bits (it lives the whole run).
func TestWhaleyDataSetsAndEdgeWeights(t *testing.T) {
	p, err := workloads.Get("abcuv")
	require.NoError(t, err)
	cfg := harness.MustPresetConfig("hotspot6")
	cfg.Sim.Duration = 300 * sim.Millisecond
	// The window's ten ticks and the comparison of the marked tree with
	// the full walks' need exact, shared tick times: each sampler draws
	// its jitter from its own stream, so all three run at jitter 0.
	cfg.Samplers = []string{
		"pcct:set,count_from=100ms,count_until=200ms,jitter=0",
		"pcct:marked,jitter=0",
		"pcct:full,full_walk=true,jitter=0",
	}
	rig, err := harness.Build(p, cfg)
	require.NoError(t, err)
	require.NoError(t, rig.Run())
	out, err := rig.Collect()
	require.NoError(t, err)
	tree := func(id string) samplers.ContextTree {
		s, ok := rig.Sampler(id).(samplers.ContextTree)
		require.True(t, ok, "%s is a samplers.ContextTree", id)
		return s
	}
	set, marked, full := tree("pcct:set"), tree("pcct:marked"), tree("pcct:full")
	count := func(s samplers.ContextTree) (n int64) {
		for _, c := range s.Contexts() {
			n += c.Count
		}
		return n
	}
	assert.Equal(t, int64(10), count(set), "ticks at 100, 110, …, 190 ms")
	assert.Equal(t, out.Costs["pcct:marked"].Taken, count(marked))
	inclusive := map[string]int64{}
	for _, c := range full.Contexts() {
		for i := range c.Path {
			if i == len(c.Path)-1 || c.Path[i+1] == profile.FrameSep[0] {
				inclusive[c.Path[:i+1]] += c.Count
			}
		}
	}
	for _, c := range full.Contexts() {
		assert.Equal(t, inclusive[c.Path], c.Edge, "full walks: edge weight = samples through %s", c.Path)
	}
	entry := false
	for _, c := range marked.Contexts() {
		assert.LessOrEqual(t, c.Edge, inclusive[c.Path], c.Path)
		if c.Path == "Main.main" {
			entry = true
			assert.Equal(t, int64(1), c.Edge, "one activation of the entry frame")
		}
	}
	assert.True(t, entry, "Main.main in the tree")
}
