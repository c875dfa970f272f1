package harness

import (
	"testing"

	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hotcoldShares runs hotcold under hotspot17 and flags with the safepoint
// sampler (passive) and returns its and the truth's method shares, by name.
func hotcoldShares(t *testing.T, flags string) (overlap, hotSampled, coldTruth float64) {
	t.Helper()
	p, err := workloads.Get("hotcold")
	require.NoError(t, err)
	cfg := DefaultConfig()
	require.NoError(t, ApplyPreset(&cfg, "hotspot17"))
	require.NoError(t, ApplyJVMFlags(&cfg, flags))
	cfg.Sim.Duration = 500 * sim.Millisecond
	cfg.Samplers = []string{"safepoint"}
	out, err := Run(p, cfg)
	require.NoError(t, err)
	truth, sp := out.Profiles["truth"], out.Profiles["safepoint"]
	share := func(pr *profile.Profile, name string) float64 {
		m := pr.MethodWeights()
		var total float64
		for _, v := range m {
			total += v
		}
		return m[name] / total
	}
	return profile.OverlapMethods(truth, sp), share(sp, "HotCold.hot"), share(truth, "HotCold.cold")
}

// xintColdShareSlack is what the safepoint sampler under -Xint may lose
// beyond HotCold.cold's own share of the time: interpreted, the first poll
// after a request is hot's return poll (in hot, before its frame is popped)
// unless the request falls in the 1 ns between that poll and cold's
// back-edge poll, so the sampler sees hot for all of cold's own time and
// the overlap is 1 − cold's true share; the slack covers the sampling noise
// of 50 samples at a share of a few per cent (one sample is 0.02).
const xintColdShareSlack = 0.02

// TestSafepointSamplerUnderXint: on Mytkowicz's hotcold, whose hot leaf
// C2 compiles without a poll, a safepoint-biased sampler puts nearly every
// sample in cold (overlap with the truth a few per cent). Interpreted
// (-Xint) hot has its return poll in itself, so the sampler is close to the
// truth at method level: off only by cold's own share, which it gives hot.
func TestSafepointSamplerUnderXint(t *testing.T) {
	compiled, _, _ := hotcoldShares(t, "")
	overlap, hot, cold := hotcoldShares(t, "-Xint")
	t.Logf("overlap with the truth: compiled %.3f, -Xint %.3f (hot sampled %.3f, cold's true share %.3f)", compiled, overlap, hot, cold)
	assert.Less(t, compiled, 0.1, "compiled: the poll-free hot loop's samples land in cold")
	assert.GreaterOrEqual(t, overlap, 1-cold-xintColdShareSlack, "-Xint: off by at most cold's own share")
	assert.Greater(t, hot, 1-cold-xintColdShareSlack, "-Xint: hot gets its own share and cold's")
}
