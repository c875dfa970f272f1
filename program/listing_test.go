package program

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestListingShowsSiteInlining: 'profsim show' prints a call site's
// inlining decision beside the call, for static and virtual sites.
func TestListingShowsSiteInlining(t *testing.T) {
	p, err := Parse([]byte(prog(
		"      - call: {method: A.g, inline: true}\n"+
			"      - call: {method: A.h, inline: false}\n"+
			"      - call: {method: A.g}\n"+
			"      - virtual_call: {receivers: {A.g: 1, A.h: 1}, inline: {A.h: false}}\n")), YAML)
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, p.WriteListing(&b))
	out := b.String()
	assert.Contains(t, out, "call A.g (inlined here)")
	assert.Contains(t, out, "call A.h (never inlined here)")
	assert.Contains(t, out, "virtual_call A.g | A.h (never inlined here)")
	assert.Equal(t, 1, strings.Count(out, "(inlined here)"), "a site without a decision shows none")
}

// The listing prints a branch's probabilities by caller beside its own,
// and how many callers a virtual call's receivers depend on.
func TestListingShowsByCaller(t *testing.T) {
	p, err := Parse([]byte(prog("      - branch: {probability: 0.25, by_caller: {A.h: 0.5, A.g: 1}, then: [{call: {method: A.g}}]}\n"+
		"      - virtual_call: {receivers: {A.g: 1, A.h: 1}, by_caller: {A.g: {A.h: 1}}}\n")), YAML)
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, p.WriteListing(&b))
	assert.Contains(t, b.String(), "branch, probability 0.25 (1 from A.g, 0.5 from A.h)")
	assert.Contains(t, b.String(), "virtual_call A.g | A.h (receivers by 1 caller)")
}

// A recursive method's conditions by depth: each depth's probability, and
// how many depths a virtual call's receivers are given for.
func TestListingShowsByDepth(t *testing.T) {
	src := "name: x\nmethods:\n  - class: A\n    name: main\n    recursion_limit: 3\n    body:\n" +
		"      - branch: {probability: 0.5, by_depth: [1, 0.25], then: [{call: {method: A.main}}]}\n" +
		"      - virtual_call: {receivers: {A.g: 1, A.h: 1}, by_depth: [{A.g: 1}, {A.h: 1}, {A.g: 1, A.h: 1}]}\n" +
		"  - {class: A, name: g, body: [{work: {cycles: 1, bytecodes: 1}}]}\n" +
		"  - {class: A, name: h, body: [{work: {cycles: 1, bytecodes: 1}}]}\nthreads: [{name: main, entry: A.main}]\n"
	p, err := Parse([]byte(src), YAML)
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, p.WriteListing(&b))
	assert.Contains(t, b.String(), "branch, probability 0.5 (1 at depth 1, 0.25 at depth 2)")
	assert.Contains(t, b.String(), "virtual_call A.g | A.h (receivers by depth, 3)")
	assert.Equal(t, []float64{1, 0.25}, p.Methods[0].Body[0].Branch.ByDepth)
	assert.Len(t, p.Methods[0].Body[1].VirtualCall.ByDepth, 3)
}

// The listing says which loops are uncounted and which are bounded at
// run time, and the key survives parsing.
func TestListingShowsLoopBounds(t *testing.T) {
	p, err := Parse([]byte(prog("      - loop: {trips: 30, runtime_bound: true, body: [{call: {method: A.g}}]}\n"+
		"      - loop: {trips: 5, uncounted: true, body: [{call: {method: A.g}}]}\n"+
		"      - loop: {trips: 7, body: [{call: {method: A.g}}]}\n")), YAML)
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, p.WriteListing(&b))
	assert.Contains(t, b.String(), "loop, trips 30, bound at run time")
	assert.Contains(t, b.String(), "loop, trips 5, uncounted")
	assert.Contains(t, b.String(), "loop, trips 7\n")
	assert.True(t, p.Methods[0].Body[0].Loop.RuntimeBound)
	assert.False(t, p.Methods[0].Body[2].Loop.RuntimeBound)
}

// The listing names a stub where the statement does.
func TestListingShowsStubs(t *testing.T) {
	p, err := Parse([]byte(prog("      - stub: {cycles: 30, name: arraycopy}\n"+
		"      - stub: {cycles: 4}\n")), YAML)
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, p.WriteListing(&b))
	assert.Contains(t, b.String(), "stub arraycopy 30 cycles\n")
	assert.Contains(t, b.String(), "stub 4 cycles\n")
}
