package importer

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/profile"
)

// Methods whose callee depends on their caller: M.m calls X.x (at bci 5)
// when A.a called it and Y.y (at bci 9) when B.b did; M.v's virtual call
// at bci 7 dispatches to P.p from A.a and to Q.q from B.b. The model
// gives each site its probability by caller and the virtual site its
// receivers by caller, so its truth has no sample where A.a's M.m runs
// Y.y or its M.v P.p's sibling, nor the converse; averaged over callers
// (IgnoreCallers) each caller's methods run both, in contexts the
// recording never had.
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
		{"main", []string{"App.main@1", "A.a@5", "M.v@7", "P.p@1"}, 40},
		{"main", []string{"App.main@2", "B.b@5", "M.v@7", "Q.q@1"}, 40},
		{"main", []string{"App.main@1", "A.a@1"}, 5},
		{"main", []string{"App.main@2", "B.b@1"}, 5},
	})
	crossed := func(truth *profile.Profile) (good, bad float64) {
		for k, v := range truth.ContextWeights() {
			switch strings.ReplaceAll(k, profile.FrameSep, ";") {
			case "App.main;A.a;M.m;X.x", "App.main;B.b;M.m;Y.y", "App.main;A.a;M.v;P.p", "App.main;B.b;M.v;Q.q":
				good += v
			case "App.main;A.a;M.m;Y.y", "App.main;B.b;M.m;X.x", "App.main;A.a;M.v;Q.q", "App.main;B.b;M.v;P.p":
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
	assert.Equal(t, 1, m.Report.CallerVirtualSites)
	assert.Equal(t, 2, m.Report.CallerMixes, "one mix per caller")
	good, bad := crossed(runTruth(t, m))
	assert.Positive(t, good)
	assert.Zero(t, bad)

	m, err = Import(bytes.NewReader(data), nil, Options{IgnoreCallers: true})
	require.NoError(t, err)
	assert.Zero(t, m.Report.CallerSites)
	assert.Zero(t, m.Report.CallerVirtualSites)
	good, bad = crossed(runTruth(t, m))
	assert.Positive(t, bad, "averaged over callers, each caller's M.m calls both")
	assert.Positive(t, good)
}
