package jit

import (
	"testing"

	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// siteDecisions calls small and big from two sites each (lines 3 and 5:
// small, without and with a decision; lines 4 and 6: big, likewise) and
// dispatches to both from a virtual site (line 7) whose small receiver is
// never inlined and whose big one, a tenth of the calls, always is.
const siteDecisions = `
name: sites
methods:
  - class: C
    name: main
    body:
      - loop:
          trips: 1000
          body:
            - work: {cycles: 10, bytecodes: 4}
            - call: {method: C.small}
            - call: {method: C.big}
            - call: {method: C.small, inline: false}
            - call: {method: C.big, inline: true}
            - virtual_call:
                receivers: {C.small: 9, C.big: 1}
                inline: {C.small: false, C.big: true}
  - class: C
    name: small
    body: [{work: {cycles: 20, bytecodes: 10}}]
  - class: C
    name: big
    body: [{work: {cycles: 2000, bytecodes: 400}}]
threads: [{name: main, entry: C.main}]
`

// TestSiteDecisionsSteerInliningPerSite: a call site's own decision
// (program.Call.Inline) overrides the size rules at that site only, for
// static and virtual sites, and still yields to the inlining depth.
func TestSiteDecisionsSteerInliningPerSite(t *testing.T) {
	vm, _ := setup(t, parse(t, siteDecisions), nil)
	c := vm.Code(method(t, vm, "C.main"))
	require.Equal(t, sim.Compiled, c.Tier)
	require.NotNil(t, c.Inline)
	names := func(pc int) []string {
		var out []string
		for _, v := range c.Inline[pc] {
			out = append(out, vm.Image().Names[v.Method])
		}
		return out
	}
	assert.Equal(t, []string{"C.small"}, names(2), "no decision: 10 bytecodes ≤ MaxInlineSize")
	assert.Empty(t, names(3), "no decision: 400 bytecodes > FreqInlineSize")
	assert.Empty(t, names(4), "inline: false keeps a small callee out at this site")
	assert.Equal(t, []string{"C.big"}, names(5), "inline: true brings a big callee in at this site")
	assert.Equal(t, []string{"C.big"}, names(6), "virtual: the decided receivers, whatever their share")

	vm, _ = setup(t, parse(t, siteDecisions), func(c *Config) { c.MaxInlineLevel = 0 })
	assert.Nil(t, vm.Code(method(t, vm, "C.main")).Inline, "MaxInlineLevel bounds a site's decision")
}
