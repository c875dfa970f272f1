package samplers

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/sim"
)

// One rewrite serves every member, and the members cost nothing: a set
// refuses members with different instrumentation, no members and a
// costed run. A spec cannot give the first two (its members share the
// rewriting's keys and it has at least one granularity), so the
// constructor is tested here.
func TestKomoriumSetRefuses(t *testing.T) {
	a, b := DefaultKomoriumConfig(), DefaultKomoriumConfig()
	b.Instrumentation.MaxPath = 0
	_, err := newKomoriumSet("grid", []KomoriumConfig{a, b})
	assert.ErrorContains(t, err, "instrumentation differs")
	_, err = newKomoriumSet("grid", nil)
	assert.ErrorContains(t, err, "no configuration")
	set, err := newKomoriumSet("grid", []KomoriumConfig{a})
	require.NoError(t, err)
	assert.ErrorContains(t, set.Instrument(nil, Costed, sim.CostModel{}), "passive only")
}
