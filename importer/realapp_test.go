package importer

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/classfile"
	"github.com/profsim/profsim/profile"
)

// A real application round-trips: testdata/hsqldb is 300 samples of
// tools/realapps/hsqldb's recording (HSQLDB 1.8 bank transactions, trimmed
// by jfrtrim --skip 1s --samples 300) with the driver's classes and the 36
// HSQLDB classes the model names (JDK classes are not in testdata: their
// methods are modelled from the samples alone, Report.NoClassFile). Three
// refinement runs, as record.sh does; the model's truth, run with another
// seed, must match the recording (issue 20's bound).
func TestRealApplicationRoundTrip(t *testing.T) {
	f, err := os.Open("testdata/hsqldb/hsqldb.json")
	require.NoError(t, err)
	defer f.Close()
	cp, err := classfile.OpenClasspath("testdata/hsqldb/classes")
	require.NoError(t, err)
	defer cp.Close()
	m, err := Import(f, cp, Options{Name: "hsqldb-real", Refine: 3})
	require.NoError(t, err)
	require.NoError(t, m.Program.Validate())
	assert.Equal(t, 300, m.Report.Samples)
	assert.Len(t, m.Report.Refinement, 3)
	assert.NotEmpty(t, m.Report.NoClassFile, "the JDK's classes are left out of testdata")
	truth := runTruth(t, m)
	methods := profile.OverlapMethods(truth, m.Recorded)
	t.Logf("method overlap %.4f, context overlap %.4f", methods, profile.OverlapContexts(truth, m.Recorded))
	assert.GreaterOrEqual(t, methods, MinMethodOverlap)
}
