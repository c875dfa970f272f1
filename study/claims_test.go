package study

import (
	"flag"
	"math"
	"testing"

	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// full runs the paper-sized version of each experiment.
var full = flag.Bool("study.full", false, "run paper-sized experiments (slow)")

func seeds() []uint64 {
	if *full {
		return []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	}
	return []uint64{1, 2, 3}
}

// TestM1_ListingOne: a safepoint sampler puts ≥ 95 % of samples in cold()
// (paper: xprof 99.8 %); tprof and async (with DebugNonSafepoints) put
// hot() within ±3 points of the truth, pooled over 3 seeds. tprof, as in
// the paper, only on the configuration without inlining.
func TestM1_ListingOne(t *testing.T) {
	rows, table, err := ListingOne(ListingOneConfigs, seeds(), 2*sim.Second)
	require.NoError(t, err)
	t.Log("\n" + table.Markdown())
	for _, c := range ListingOneConfigs {
		for _, s := range []string{"safepoint", "hprof", "xprof"} {
			for _, r := range rows {
				if r.Config.Name == c.Name {
					assert.GreaterOrEqual(t, r.Cold[s], 95.0, "%s, seed %d: %s must blame cold()", c.Name, r.Seed, s)
				}
			}
		}
		truth := PooledShare(rows, c.Name, "truth", "hot")
		exact := []string{"async"}
		if !c.Inline {
			exact = append(exact, "tprof")
		}
		for _, s := range exact {
			got := PooledShare(rows, c.Name, s, "hot")
			t.Logf("%s: %s hot() %.2f %% vs truth %.2f %%", c.Name, s, got, truth)
			assert.InDelta(t, truth, got, 3, "%s: %s must find hot() within 3 points", c.Name, s)
		}
	}
}

// TestX1_DebugInfo: with hot() inlined into cold(), async without
// DebugNonSafepoints attributes hot()'s time to cold() (the nearest
// recorded position); with it, async matches the truth.
func TestX1_DebugInfo(t *testing.T) {
	configs := []ListingOneConfig{
		{Name: "inlining, no DNS", Inline: true, StripMining: 1000, DNS: false},
		{Name: "inlining, DNS", Inline: true, StripMining: 1000, DNS: true},
	}
	rows, table, err := ListingOne(configs, seeds(), 2*sim.Second)
	require.NoError(t, err)
	table.Title = "X1: async with and without DebugNonSafepoints, hot() inlined into cold()"
	t.Log("\n" + table.Markdown())
	truth := PooledShare(rows, configs[0].Name, "truth", "hot")
	noDNS := PooledShare(rows, configs[0].Name, "async", "hot")
	withDNS := PooledShare(rows, configs[1].Name, "async", "hot")
	t.Logf("truth hot() %.2f %%; async without DNS %.2f %%, with DNS %.2f %%", truth, noDNS, withDNS)
	assert.Greater(t, truth, 90.0)
	assert.Less(t, noDNS, 5.0, "without DNS inlined hot() samples must move to cold()")
	assert.InDelta(t, truth, withDNS, 3)
	assert.False(t, math.IsNaN(noDNS))
}
