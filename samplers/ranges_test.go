package samplers_test

import (
	"strings"
	"testing"

	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSamplerKeyRanges: every sampler's period (interval, period,
// retrieve_interval) starts at MinInterval, its jitter ends at MaxJitter,
// every other time key ends at sim.MaxTime, and a spec below the floor is
// refused naming the sampler, the key, the value and the range.
func TestSamplerKeyRanges(t *testing.T) {
	floor := param.FormatDuration(samplers.MinInterval) + ".." + param.FormatDuration(sim.MaxTime)
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
				assert.Equal(t, "sampler "+info.Name+": "+k.Name+": 999ns must be in [1us, 277777h46m40s]", err.Error())
			case k.Name == "jitter":
				hi, err := param.ParseDuration(strings.TrimPrefix(k.Check, "0.."))
				require.NoError(t, err, "%s.%s: %s", info.Name, k.Name, k.Check)
				assert.Equal(t, samplers.MaxJitter, hi, "%s.%s", info.Name, k.Name)
			default:
				assert.Equal(t, "0.."+param.FormatDuration(sim.MaxTime), k.Check, "%s.%s", info.Name, k.Name)
			}
		}
	}
	assert.GreaterOrEqual(t, periods, 9, "every sampler family's period is covered")
	_, err := samplers.Spec{Name: "async", Set: []param.KV{{Key: "interval", Value: "1us"}}}.Resolve()
	assert.NoError(t, err, "the floor itself is valid")
}
