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
