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
	samples := []struct {
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
		// The callees run from main as well, which bounds their calls
		// (one each from main): each site is taken on half of M's calls.
		{"main", []string{"App.main@6", "X.x@2"}, 60},
		{"main", []string{"App.main@7", "Y.y@2"}, 60},
		{"main", []string{"App.main@8", "P.p@1"}, 40},
		{"main", []string{"App.main@9", "Q.q@1"}, 40},
		{"main", []string{"App.main@1", "A.a@1"}, 5},
		{"main", []string{"App.main@2", "B.b@1"}, 5},
	}
	data := jfrJSON(t, samples)
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
	assert.Equal(t, 4, m.Report.CallerProbabilities, "each site: 1 from its caller, 0 from the other")
	assert.Zero(t, m.Report.CallerUnplaced)
	assert.Equal(t, 1, m.Report.CallerVirtualSites)
	assert.Equal(t, 2, m.Report.CallerMixes, "one mix per caller")
	good, bad := crossed(runTruth(t, m))
	assert.Positive(t, good)
	assert.Zero(t, bad)

	// Without main's calls the fit gives X.x and Y.y as many calls as
	// M.m's (the most its callers allow), so each of M.m's sites is taken
	// on every call and would need two calls a call through its caller:
	// probability 1 there, 0 through the other, as near to its calls as
	// a probability comes. M.v's site, taken on every call through both,
	// mixes its receivers by caller.
	unplaced := jfrJSON(t, samples[:6])
	m, err = Import(bytes.NewReader(unplaced), nil, Options{})
	require.NoError(t, err)
	assert.Equal(t, 2, m.Report.CallerUnplaced)
	assert.Equal(t, 2, m.Report.CallerSites)
	assert.Equal(t, 2, m.Report.CallerProbabilities)
	assert.Equal(t, 1, m.Report.CallerVirtualSites)
	good, bad = crossed(runTruth(t, m))
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
