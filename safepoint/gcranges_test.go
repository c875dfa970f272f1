package safepoint

import (
	"fmt"
	"testing"

	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGCKeyRanges: the collector's keys take what Validate takes, up to
// the bounds that keep a pause and eden's fill exact in int64, and the
// largest pause they allow is computed without a wrap.
func TestGCKeyRanges(t *testing.T) {
	for _, c := range []GCConfig{
		{EdenBytes: MaxEdenBytes + 1, TLABBytes: 1},
		{EdenBytes: 1, TLABBytes: 1, PausePerMB: MaxPausePerMB + 1},
		{EdenBytes: 1, TLABBytes: 1, PauseBase: sim.MaxTime + 1},
	} {
		assert.Error(t, c.Validate(), "%+v", c)
	}
	for _, tc := range []struct {
		key, ok, bad string
	}{
		{"eden_bytes", fmt.Sprint(int64(MaxEdenBytes)), fmt.Sprint(int64(MaxEdenBytes) + 1)},
		{"tlab_bytes", "1", "0"},
		{"pause_per_mb", param.FormatDuration(MaxPausePerMB), param.FormatDuration(MaxPausePerMB + 1)},
		{"pause_base", param.FormatDuration(sim.MaxTime), param.FormatDuration(sim.MaxTime + 1)},
	} {
		c := DefaultGCConfig()
		require.NoError(t, param.Set(&c, tc.key, tc.ok), tc.key)
		require.NoError(t, c.Validate(), tc.key)
		c = DefaultGCConfig()
		err := param.Set(&c, tc.key, tc.bad)
		require.Error(t, err, tc.key)
		assert.Contains(t, err.Error(), tc.key+": "+tc.bad+" must be in [", tc.key)
	}
	g := GC{cfg: GCConfig{EdenBytes: MaxEdenBytes, TLABBytes: MaxEdenBytes, PauseBase: sim.MaxTime, PausePerMB: MaxPausePerMB}}
	assert.Equal(t, sim.MaxTime+MaxPausePerMB*(MaxEdenBytes>>20), g.Run(nil, 0), "the largest pause is exact")
}
