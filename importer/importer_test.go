package importer

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/classfile"
	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/sim"
)

// MinMethodOverlap is issue 20's acceptance bound: "Validate: the model's
// truth vs the recording's profile, method overlap ≥ 90 %".
const MinMethodOverlap = 0.90

// testdata/hotcold holds a recording of Listing 1 (tools/realapps/hotcold:
// 2 s from 5 s into the run, trimmed to 300 samples by jfrtrim) and the
// HotCold.class it ran.

func importHotCold(t testing.TB, opt Options) *Model {
	t.Helper()
	f, err := os.Open("testdata/hotcold/hotcold.json")
	require.NoError(t, err)
	defer f.Close()
	cp, err := classfile.OpenClasspath("testdata/hotcold")
	require.NoError(t, err)
	defer cp.Close()
	m, err := Import(f, cp, opt)
	require.NoError(t, err)
	return m
}

// runTruth runs the model to its end (every thread finishes) and returns
// the ground truth.
func runTruth(t testing.TB, p *program.Program) *profile.Profile {
	t.Helper()
	cfg := harness.DefaultConfig()
	cfg.Sim.Duration = 60 * sim.Second
	out, err := harness.Run(p, cfg)
	require.NoError(t, err)
	return out.Profiles["truth"]
}

func TestHotColdRoundTrip(t *testing.T) {
	m := importHotCold(t, Options{Name: "hotcold-real"})
	p := m.Program
	require.NoError(t, p.Validate())
	assert.Equal(t, 300, m.Report.Samples)
	assert.Equal(t, 1, m.Report.Threads)
	assert.Empty(t, m.Report.NoClassFile)
	assert.Zero(t, m.Report.InferredLoops)
	assert.Zero(t, m.Report.Mismatched)

	truth := runTruth(t, p)
	methods := profile.OverlapMethods(truth, m.Recorded)
	contexts := profile.OverlapContexts(truth, m.Recorded)
	t.Logf("method overlap %.4f, context overlap %.4f", methods, contexts)
	for _, s := range truth.Flat() {
		t.Logf("truth %-20s %6.2f%%", s.Name, 100*s.SelfShare)
	}
	for _, s := range m.Recorded.Flat() {
		t.Logf("jfr   %-20s %6.2f%%", s.Name, 100*s.SelfShare)
	}
	assert.GreaterOrEqual(t, methods, MinMethodOverlap)
	assert.GreaterOrEqual(t, contexts, MinMethodOverlap)
}
