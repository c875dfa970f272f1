package study

import (
	"testing"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A paper-length grid run (komoriumSetKey: every granularity of a seed on
// one execution) measures what the separate runs of the test-size grid
// (komoriumKey) measure, run for run, on a single-threaded stand-in.
func TestKomoriumSetKeyIsTheGrid(t *testing.T) {
	const d = 20 * sim.Millisecond
	set, err := komoriumSetKey{bench: "jack", seed: 2, d: d}.run()
	require.NoError(t, err)
	cfgs := binderSetConfigs()
	require.Len(t, set, len(cfgs))
	for i, c := range cfgs {
		alone, err := komoriumKey{bench: "jack", seed: 2, d: d, gran: c.Granularity, random: c.Random > 0}.run()
		require.NoError(t, err)
		assert.Equal(t, alone.Overlap, set[i].Overlap, "granularity %d random %d", c.Granularity, c.Random)
		assert.Equal(t, alone.Nodes, set[i].Nodes, "granularity %d random %d", c.Granularity, c.Random)
		assert.Equal(t, alone.DeltaB, set[i].DeltaB, "granularity %d random %d", c.Granularity, c.Random)
	}
}

// A Binder grid run's Spec (a komorium-set) replayed from its `profsim
// run` arguments gives the same member profiles.
func TestKomoriumSet_SpecArgsReplay(t *testing.T) {
	k := komoriumSetKey{bench: "compress", seed: 2, d: 20 * sim.Millisecond}
	out := replaySpec(t, k.spec(), func(cfg *harness.Config) { cfg.NoTruthProfile = true })
	require.Len(t, out.Members["komorium-set"], len(binderSetConfigs()), "a member per granularity and randomization")
	for _, m := range out.Members["komorium-set"] {
		assert.Positive(t, out.Profiles[m].TotalCount(), m)
	}
}
