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
// the ground truth. Its seed differs from the refinement runs'
// (harness.DefaultConfig's), so a refined fit is checked on another run.
func runTruth(t testing.TB, m *Model) *profile.Profile {
	t.Helper()
	cfg := RunToEnd(harness.MustPresetConfig("hotspot6"), &m.Report)
	cfg.Sim.Seed = 2
	out, err := harness.Run(m.Program, cfg)
	require.NoError(t, err)
	return out.Profiles["truth"]
}

func TestHotColdRoundTrip(t *testing.T) {
	for _, refine := range []int{0, 2} {
		m := importHotCold(t, Options{Name: "hotcold-real", Refine: refine})
		p := m.Program
		require.NoError(t, p.Validate())
		assert.Equal(t, 300, m.Report.Samples)
		assert.Equal(t, 1, m.Report.Threads)
		assert.Empty(t, m.Report.NoClassFile)
		assert.Zero(t, m.Report.InferredLoops)
		assert.Zero(t, m.Report.Mismatched)
		assert.Len(t, m.Report.Refinement, refine)

		truth := runTruth(t, m)
		methods := profile.OverlapMethods(truth, m.Recorded)
		contexts := profile.OverlapContexts(truth, m.Recorded)
		t.Logf("refine %d: method overlap %.4f, context overlap %.4f", refine, methods, contexts)
		for _, s := range truth.Flat() {
			t.Logf("truth %-20s %6.2f%%", s.Name, 100*s.SelfShare)
		}
		for _, s := range m.Recorded.Flat() {
			t.Logf("jfr   %-20s %6.2f%%", s.Name, 100*s.SelfShare)
		}
		assert.GreaterOrEqual(t, methods, MinMethodOverlap, "refine %d", refine)
		assert.GreaterOrEqual(t, contexts, MinMethodOverlap, "refine %d", refine)
	}
}

// The model has Listing 1's structure: cold's call to hot in a loop of
// the class file's (no inferred loop), hot a leaf of 50 bytes of bytecode.
func TestHotColdStructure(t *testing.T) {
	m := importHotCold(t, Options{})
	var cold, hot *program.Method
	for i := range m.Program.Methods {
		switch pm := &m.Program.Methods[i]; pm.Name {
		case "cold":
			cold = pm
		case "hot":
			hot = pm
		}
	}
	require.NotNil(t, cold)
	require.NotNil(t, hot)
	var loop *program.Loop
	for _, s := range cold.Body {
		if s.Loop != nil {
			loop = s.Loop
		}
	}
	require.NotNil(t, loop, "cold's for loop")
	var call *program.Call
	for _, s := range loop.Body {
		if s.Call != nil {
			call = s.Call
		}
	}
	require.NotNil(t, call, "hot() called in the loop body, once per iteration")
	assert.Equal(t, "HotCold.hot(I)V", call.Method)
	var bytes int64
	for _, s := range hot.Body {
		require.Nil(t, s.Loop)
		require.Nil(t, s.Call)
		if s.Work != nil {
			bytes += s.Work.Bytecodes
		}
	}
	assert.Equal(t, int64(50), bytes, "hot's code_length")
	// The recording's lines are the model's: hot's samples on its work.
	for i := range m.Recorded.Samples {
		leaf, _ := m.Recorded.Leaf(i)
		assert.NotZero(t, leaf.Line, "every sample's leaf maps to a statement")
	}
}

func harnessDefault() harness.Config { return harness.MustPresetConfig("hotspot6") }

// runHarness runs m under cfg and returns its truth.
func runHarness(m *Model, cfg harness.Config) (*profile.Profile, error) {
	out, err := harness.Run(m.Program, cfg)
	if err != nil {
		return nil, err
	}
	return out.Profiles["truth"], nil
}
