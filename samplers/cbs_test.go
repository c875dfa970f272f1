package samplers_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

// A cbs instance draws from the streams its stream key names (its ID by
// default): cbs:a with stream=grid-1 is, sample for sample, the instance
// NewCBS reports as grid-1, and cbs:a and cbs:b, with their own streams,
// differ.
func TestCBSStreamKey(t *testing.T) {
	jikes := func(c *harness.Config) {
		c.JIT.Flavour, c.JIT.Inline = jit.Jikes, false
		c.Sim.Duration = 300 * sim.Millisecond
	}
	c := samplers.DefaultCBSConfig()
	c.Samples, c.Stride = 4, 7
	byName := run(t, "callpair", func(cfg *harness.Config) {
		jikes(cfg)
		cfg.Extra = []samplers.Sampler{samplers.NewCBS("grid-1", c)}
	})
	bySpec := run(t, "callpair", func(cfg *harness.Config) {
		jikes(cfg)
		cfg.Samplers = []string{"cbs:a,samples=4,stride=7,stream=grid-1", "cbs:b,samples=4,stride=7"}
	})
	require.NotEmpty(t, byName.Profiles["grid-1"].Edges)
	assert.Equal(t, byName.Profiles["grid-1"].Edges, bySpec.Profiles["cbs:a"].Edges)
	assert.Equal(t, byName.Costs["grid-1"].Ticks, bySpec.Costs["cbs:a"].Ticks, "the same jitter")
	assert.NotEqual(t, bySpec.Costs["cbs:a"].Ticks, bySpec.Costs["cbs:b"].Ticks, "other streams, other jitter")
}
