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

// exactly is how near a fitted probability comes to the value its counts
// give exactly: only rounding differs.
const exactly = 1e-9

// A recursion whose depth decides: R calls X and recurses at depth 1, and
// calls Y at depth 2. Inside the recursion R's caller is R itself, so
// only the depth tells the two apart: the model's R takes its sites by
// depth (each site's branch.by_depth: X's 1 then 0, the recursion's 0.5
// then 0, Y's 0 then 1), so its truth, summed over seeds, has no X below
// the inner R and no Y below the outer one. Without (IgnoreCallers) a
// site is taken at one probability at both depths.
func TestCallSitesByDepth(t *testing.T) {
	samples := []struct {
		thread string
		stack  []string
		n      int
	}{
		{"main", []string{"App.main@1", "R.r@5", "X.x@2"}, 60},
		{"main", []string{"App.main@1", "R.r@7", "R.r@9", "Y.y@2"}, 60},
		{"main", []string{"App.main@1", "R.r@1"}, 10},
		{"main", []string{"App.main@1", "R.r@7", "R.r@1"}, 10},
		// X and Y run from main as well, which bounds their calls.
		{"main", []string{"App.main@6", "X.x@2"}, 60},
		{"main", []string{"App.main@7", "Y.y@2"}, 60},
	}
	data := jfrJSON(t, samples)
	// byDepth is each of R.r's branches' probabilities by depth, by the
	// method its branch calls.
	byDepth := func(m *Model) map[string][]float64 {
		out := map[string][]float64{}
		for _, pm := range m.Program.Methods {
			if pm.Class != "R" {
				continue
			}
			for _, st := range pm.Body {
				if st.Branch != nil && len(st.Branch.Then) == 1 && st.Branch.Then[0].Call != nil {
					out[st.Branch.Then[0].Call.Method] = st.Branch.ByDepth
				}
			}
		}
		return out
	}
	m, err := Import(bytes.NewReader(data), nil, Options{})
	require.NoError(t, err)
	require.NoError(t, m.Program.Validate())
	assert.Equal(t, 3, m.Report.DepthSites)
	got := byDepth(m)
	assert.InDeltaSlice(t, []float64{1, 0}, got["X.x()V"], exactly)
	assert.InDeltaSlice(t, []float64{0.5, 0}, got["R.r()V"], exactly)
	assert.InDeltaSlice(t, []float64{0, 1}, got["Y.y()V"], exactly)
	var bad float64
	for seed := uint64(2); seed < 12; seed++ {
		cfg := RunToEnd(harnessDefault(), &m.Report)
		cfg.Sim.Seed = seed
		truth, err := runHarness(m, cfg)
		require.NoError(t, err)
		for k, v := range truth.ContextWeights() {
			switch strings.ReplaceAll(k, profile.FrameSep, ";") {
			case "App.main;R.r;Y.y", "App.main;R.r;R.r;X.x":
				bad += v
			}
		}
	}
	assert.Zero(t, bad)

	m, err = Import(bytes.NewReader(data), nil, Options{IgnoreCallers: true})
	require.NoError(t, err)
	assert.Zero(t, m.Report.DepthSites)
	for callee, d := range byDepth(m) {
		assert.Nil(t, d, callee)
	}
}
