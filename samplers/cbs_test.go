package samplers_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/sim"
)

// A cbs instance draws from the streams its stream key names (its ID by
// default): cbs:a with stream=cbs:x is, sample for sample, the instance
// whose ID is cbs:x, and cbs:a and cbs:b, with their own streams, differ.
func TestCBSStreamKey(t *testing.T) {
	jikes := func(c *harness.Config) {
		c.JIT.Flavour, c.JIT.Inline = jit.Jikes, false
		c.Sim.Duration = 300 * sim.Millisecond
	}
	byName := run(t, "callpair", func(cfg *harness.Config) {
		jikes(cfg)
		cfg.Samplers = []string{"cbs:x,samples=4,stride=7"}
	})
	bySpec := run(t, "callpair", func(cfg *harness.Config) {
		jikes(cfg)
		cfg.Samplers = []string{"cbs:a,samples=4,stride=7,stream=cbs:x", "cbs:b,samples=4,stride=7"}
	})
	require.NotEmpty(t, byName.Profiles["cbs:x"].Edges)
	assert.Equal(t, byName.Profiles["cbs:x"].Edges, bySpec.Profiles["cbs:a"].Edges)
	assert.Equal(t, byName.Costs["cbs:x"].Ticks, bySpec.Costs["cbs:a"].Ticks, "the same jitter")
	assert.NotEqual(t, bySpec.Costs["cbs:a"].Ticks, bySpec.Costs["cbs:b"].Ticks, "other streams, other jitter")
}
