package study

import (
	"testing"

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
		assert.Equal(t, alone.overlap, set[i].overlap, "granularity %d random %d", c.Granularity, c.Random)
		assert.Equal(t, alone.nodes, set[i].nodes, "granularity %d random %d", c.Granularity, c.Random)
		assert.Equal(t, alone.deltaB, set[i].deltaB, "granularity %d random %d", c.Granularity, c.Random)
	}
}
