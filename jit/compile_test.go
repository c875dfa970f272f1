package jit

import (
	"fmt"
	"testing"

	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUnrollBodySizeCountsBranchesAndInlinedCallees: a counted loop is
// unrolled when its body — the loop's own test and back-branch (6), a
// branch's 3, a call's 3 and the inlined callee's whole size — is at most
// LoopUnrollMaxBody bytecodes; one bytecode more and it is not, so its
// strip is LoopStripMiningIter source iterations instead of
// LoopStripMiningIter × LoopUnroll.
func TestUnrollBodySizeCountsBranchesAndInlinedCallees(t *testing.T) {
	const strip, unroll = 100, 8
	branchy := `
name: branchy
methods:
  - {class: U, name: main, body: [{loop: {trips: {uniform: [5000, 6000]}, body: [{branch: {probability: 0.5, then: [{work: {cycles: 10, bytecodes: 41}}]}}]}}]}
threads: [{name: main, entry: U.main}]
`
	calls := `
name: calls
methods:
  - {class: U, name: main, body: [{loop: {trips: {uniform: [5000, 6000]}, body: [{call: {method: U.callee}}]}}]}
  - {class: U, name: callee, body: [{work: {cycles: 10, bytecodes: 20}}, {work: {cycles: 10, bytecodes: 1}}]}
threads: [{name: main, entry: U.main}]
`
	for _, c := range []struct {
		name string
		src  string
		body int64
	}{
		{"branch", branchy, 6 + 3 + 41},               // the jump is no bytecode of its own
		{"inlined call", calls, 6 + 3 + (20 + 1 + 1)}, // the callee with its return: 22 ≤ MaxInlineSize, inlined
	} {
		for _, limit := range []int64{c.body, c.body - 1} {
			vm, _ := setup(t, parse(t, c.src), func(cfg *Config) {
				cfg.StripMiningIter, cfg.LoopUnroll, cfg.LoopUnrollMaxBody = strip, unroll, limit
			})
			code := vm.Code(method(t, vm, "U.main"))
			back := loopBack(t, code)
			require.Zero(t, back.Flags&sim.FlagPoll, "%s: a counted loop", c.name)
			want := int32(strip)
			if limit >= c.body {
				want = strip * unroll
			}
			assert.Equal(t, want, back.StripLength(), "%s: body of %d bytecodes, loop_unroll_max_body %d", c.name, c.body, limit)
		}
	}
}

// TestCountedLoopsWithCalls: a loop whose every call is inlined is counted
// only if the inlined bodies are: a callee that allocates, runs native code
// or has a loop of its own (the outer loop is then not innermost) leaves
// the loop its poll.
func TestCountedLoopsWithCalls(t *testing.T) {
	for _, c := range []struct {
		callee string
		poll   bool
	}{
		{"[{work: {cycles: 10, bytecodes: 4}}]", false},
		{"[{alloc: {bytes: 16}}]", true},
		{"[{loop: {trips: 3, body: [{work: {cycles: 10, bytecodes: 4}}]}}]", true},
		{"[{native: {cycles: 10}}]", true},
	} {
		src := fmt.Sprintf(`
name: calls
methods:
  - {class: U, name: main, body: [{loop: {trips: 1000, body: [{call: {method: U.callee}}]}}]}
  - {class: U, name: callee, body: %s}
threads: [{name: main, entry: U.main}]
`, c.callee)
		vm, _ := setup(t, parse(t, src), nil)
		code := vm.Code(method(t, vm, "U.main"))
		require.Len(t, code.Inline[1], 1, c.callee)
		assert.Equal(t, c.poll, loopBack(t, code).Flags&sim.FlagPoll != 0, c.callee)
	}
}

// TestQueuedOnce: a method whose counters fire again before its
// compilation starts (both counters, say) is queued once.
func TestQueuedOnce(t *testing.T) {
	vm, j := setup(t, parse(t, loops), func(c *Config) { c.Tiered = true })
	leaf := method(t, vm, "L.leaf")
	j.OnCounter(vm, 0, leaf, sim.InvocationCounter)
	j.OnCounter(vm, 0, leaf, sim.BackedgeCounter)
	require.Len(t, j.Events(), 1)
	assert.Equal(t, "invocations", j.Events()[0].Reason)
}
