package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/sim"
)

func TestReportHotEdgeCoverage(t *testing.T) {
	r := runReport(t, "hotcold", 50*sim.Millisecond, []string{"truth", "async", "async:never,interval=1s"}, nil)
	assert.Nil(t, r.Profiles["truth"].HotEdgeCoverageVsTruth, "truth is the reference")
	// hotcold's one hot context is main → HotCold.hot (97 % of the time;
	// cold's 2.4 % is below T = 0.1 of it); async samples where the thread
	// is and finds it.
	require.NotNil(t, r.Profiles["async"].HotEdgeCoverageVsTruth)
	assert.Equal(t, 1.0, *r.Profiles["async"].HotEdgeCoverageVsTruth)
	// A profile without samples covers nothing.
	require.Zero(t, r.Profiles["async:never"].Samples)
	assert.Equal(t, 0.0, *r.Profiles["async:never"].HotEdgeCoverageVsTruth)

	// A call-graph profiler's coverage is over call edges.
	r = runReport(t, "callpair", 50*sim.Millisecond, []string{"truth", "cbs"}, func(c *harness.Config) {
		require.NoError(t, harness.ApplyPreset(c, "jikes"))
		c.Sim.Duration = 50 * sim.Millisecond
	})
	cbs := r.Profiles["cbs"]
	require.True(t, cbs.EdgeOnly)
	require.NotNil(t, cbs.HotEdgeCoverageVsTruth)
	assert.Equal(t, 1.0, *cbs.HotEdgeCoverageVsTruth, "cbs samples every call edge of callpair's loop (Arnold & Grove)")
}
