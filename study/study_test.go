package study

import (
	"testing"

	"github.com/stretchr/testify/assert"

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
