package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/sim"
)

// The paper-length versions (Options.Paper) exist for the experiments run
// length limits, and only there: Binder's grid (B1–B3, B5, B6) and
// Hofer's iterations (H5, H6).
func TestPaperExperiments(t *testing.T) {
	var got []string
	for _, e := range Experiments() {
		if e.Paper != "" {
			got = append(got, e.Name)
		}
	}
	assert.Equal(t, []string{"b1-constant", "b2-randomized", "b5-bytecode-error", "b6-profile-size", "h5-stability", "h6-agreement"}, got)
}

// Options.Paper gives the paper's run lengths — Binder's grid ≈ 10¹⁰
// bytecodes a run (20 s) on the default stand-ins, Hofer's iterations
// 2 s — and leaves the test size as it was.
func TestPaperSizes(t *testing.T) {
	benches, d := binderSetup(DefaultOptions())
	assert.Equal(t, binderBenchesDefault, benches)
	assert.Equal(t, 100*sim.Millisecond, d)
	benches, d = binderSetup(Options{Paper: true})
	assert.Equal(t, binderBenchesDefault, benches)
	assert.Equal(t, 20*sim.Second, d)

	z := hoferAccuracySizeOf(DefaultOptions())
	assert.Equal(t, hoferAccuracySize{skip: 2, iterations: 10, iteration: 50 * sim.Millisecond}, z)
	assert.Equal(t, hoferWarmUp, z.warmUp())
	assert.Equal(t, 600*sim.Millisecond, z.duration())
	z = hoferAccuracySizeOf(Options{Paper: true})
	assert.Equal(t, hoferAccuracySize{skip: 1, iterations: 10, iteration: 2 * sim.Second}, z)
	assert.Equal(t, 22*sim.Second, z.duration())
	assert.Equal(t, hoferAccuracyBenches(DefaultOptions()), hoferAccuracyBenches(Options{Paper: true}), "the default stand-ins")
}

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
