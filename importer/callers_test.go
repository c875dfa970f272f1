package importer

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/profile"
)

// A method whose callee depends on its caller: M.m calls X.x (at bci 5)
// when A.a called it and Y.y (at bci 9) when B.b did. The model gives
// each site its probability by caller, so its truth has no sample where
// A.a's M.m runs Y.y or B.b's X.x; averaged over callers (IgnoreCallers)
// each caller's M.m runs both, in contexts the recording never had.
func TestCallSitesByCaller(t *testing.T) {
	data := jfrJSON(t, []struct {
		thread string
		stack  []string
		n      int
	}{
		{"main", []string{"App.main@1", "A.a@3", "M.m@5", "X.x@2"}, 60},
		{"main", []string{"App.main@2", "B.b@3", "M.m@9", "Y.y@2"}, 60},
		{"main", []string{"App.main@1", "A.a@3", "M.m@1"}, 10},
		{"main", []string{"App.main@2", "B.b@3", "M.m@1"}, 10},
		{"main", []string{"App.main@1", "A.a@1"}, 5},
		{"main", []string{"App.main@2", "B.b@1"}, 5},
	})
	crossed := func(truth *profile.Profile) (good, bad float64) {
		for k, v := range truth.ContextWeights() {
			switch strings.ReplaceAll(k, profile.FrameSep, ";") {
			case "App.main;A.a;M.m;X.x", "App.main;B.b;M.m;Y.y":
				good += v
			case "App.main;A.a;M.m;Y.y", "App.main;B.b;M.m;X.x":
				bad += v
			}
		}
		return good, bad
	}

	m, err := Import(bytes.NewReader(data), nil, Options{})
	require.NoError(t, err)
	require.NoError(t, m.Program.Validate())
	assert.Equal(t, 2, m.Report.CallerSites)
	// The fit calls M.m once a caller and each site once a call of M.m
	// (probability 1): the other caller's is 0.
	assert.Equal(t, 2, m.Report.CallerProbabilities)
	good, bad := crossed(runTruth(t, m))
	assert.Positive(t, good)
	assert.Zero(t, bad)

	m, err = Import(bytes.NewReader(data), nil, Options{IgnoreCallers: true})
	require.NoError(t, err)
	assert.Zero(t, m.Report.CallerSites)
	good, bad = crossed(runTruth(t, m))
	assert.Positive(t, bad, "averaged over callers, each caller's M.m calls both")
	assert.Positive(t, good)
}
