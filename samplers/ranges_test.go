package samplers_test

import (
	"strings"
	"testing"

	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/samplers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSamplerKeyRanges: every sampler's period (interval, period,
// retrieve_interval) starts at MinInterval, its jitter ends at MaxJitter,
// a cost per frame or thread at MaxPerItemCost, every other time key at
// sim.MaxTime, and a spec below the floor is
// refused naming the sampler, the key, the value and the range.
func TestSamplerKeyRanges(t *testing.T) {
	floor := param.FormatDuration(samplers.MinInterval) + "..max" // max: sim.MaxTime (param)
	periods := 0
	for _, info := range samplers.List() {
		if info.Config == nil {
			continue
		}
		for _, k := range param.Keys(info.Config()) {
			if k.Kind != param.Duration {
				continue
			}
			switch {
			case k.Name == "interval" || k.Name == "period" || strings.HasSuffix(k.Name, "_interval"):
				periods++
				assert.Equal(t, floor, k.Check, "%s.%s", info.Name, k.Name)
				_, err := samplers.Spec{Name: info.Name, Set: []param.KV{{Key: k.Name, Value: "999ns"}}}.Resolve()
				require.Error(t, err, "%s.%s=999ns", info.Name, k.Name)
				assert.Equal(t, "sampler "+info.Name+": "+k.Name+": 999ns must be in [1us, 10¹⁸ns]", err.Error())
			case k.Name == "jitter":
				hi, err := param.ParseDuration(strings.TrimPrefix(k.Check, "0.."))
				require.NoError(t, err, "%s.%s: %s", info.Name, k.Name, k.Check)
				assert.Equal(t, samplers.MaxJitter, hi, "%s.%s", info.Name, k.Name)
			case strings.Contains(k.Name, "per_frame") || strings.Contains(k.Name, "per_thread") || strings.HasSuffix(k.Name, "frame_cost") || k.Name == "trampoline_cost":
				assert.Equal(t, "0.."+param.FormatDuration(samplers.MaxPerItemCost), k.Check, "%s.%s", info.Name, k.Name)
			default:
				assert.Equal(t, "0..max", k.Check, "%s.%s", info.Name, k.Name)
			}
		}
	}
	assert.GreaterOrEqual(t, periods, 9, "every sampler family's period is covered")
	_, err := samplers.Spec{Name: "async", Set: []param.KV{{Key: "interval", Value: "1us"}}}.Resolve()
	assert.NoError(t, err, "the floor itself is valid")
}

// TestKomoriumKeyRanges: the instrumentation's code sizes stay within an
// instruction's int32 size, its cycles within the cost model's bound, and
// granularity + random within int64.
func TestKomoriumKeyRanges(t *testing.T) {
	for kv, want := range map[string]string{
		"count_bytes=65536":               "count_bytes: 65536 must be in [0, 65_535]",
		"check_bytes=4294967296":          "check_bytes: 4294967296 must be in [0, 65_535]",
		"push_cycles=1000000001":          "push_cycles: 1000000001 must be in [0, 1_000_000_000]",
		"granularity=1000000000000000001": "granularity: 1000000000000000001 must be in [1, 1_000_000_000_000_000_000]",
		"random=9223372036854775807":      "random: 9223372036854775807 must be in [0, 1_000_000_000_000_000_000]",
		"count_bytes=65535":               "",
		"granularity=1000000000000000000": "",
		"check_cycles=1000000000":         "",
	} {
		s, err := samplers.ParseSpec("komorium," + kv)
		require.NoError(t, err)
		_, err = s.Resolve()
		if want == "" {
			assert.NoError(t, err, kv)
			continue
		}
		require.Error(t, err, kv)
		assert.Equal(t, "sampler komorium: "+want, err.Error())
	}
}
