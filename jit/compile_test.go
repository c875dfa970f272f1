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

// recorded: R.hot is marked compiled (the recording saw it run compiled),
// R.cold is not; main calls hot through a loop often enough to pass the
// invocation threshold.
const recorded = `
name: recorded
methods:
  - class: R
    name: main
    body: [{loop: {trips: 20000, body: [{call: {method: R.hot}}, {call: {method: R.cold}}]}}]
  - {class: R, name: hot, compiled: true, body: [{work: {cycles: 10, bytecodes: 40}}, {call: {method: R.leaf}}]}
  - {class: R, name: cold, body: [{work: {cycles: 10, bytecodes: 40}}]}
  - {class: R, name: leaf, body: [{work: {cycles: 10, bytecodes: 100}}]}
threads: [{name: main, entry: R.main}]
`

// TestRecordedCompiledMethodStartsCompiled: a method marked compiled runs
// compiled code from the run's start, inlining by size alone (leaf, 101
// bytecodes, is above MaxInlineSize), while the others start interpreted;
// its counters still run, so the invocation threshold compiles it again
// with the call-site profile (leaf's site is hot: inlined up to
// FreqInlineSize).
func TestRecordedCompiledMethodStartsCompiled(t *testing.T) {
	vm, j := setup(t, parse(t, recorded), func(c *Config) { c.Tiered = true })
	hot, cold := method(t, vm, "R.hot"), method(t, vm, "R.cold")
	assert.Equal(t, sim.Compiled, vm.Code(hot).Tier)
	assert.True(t, vm.Code(hot).Counting)
	assert.Nil(t, vm.Code(hot).Inline, "no profile at the start: leaf is above MaxInlineSize")
	assert.Equal(t, sim.Interpreted, vm.Code(cold).Tier)
	assert.Equal(t, sim.Interpreted, vm.Code(method(t, vm, "R.main")).Tier)
	require.NotEmpty(t, j.Events())
	assert.Equal(t, Event{Method: hot, Reason: "recorded compiled", Size: vm.Code(hot).Size}, j.Events()[0])

	vm.Run()
	var reasons []string
	for _, e := range j.Events() {
		if e.Method == hot {
			reasons = append(reasons, e.Reason)
		}
	}
	assert.Equal(t, []string{"recorded compiled", "invocations"}, reasons)
	assert.Contains(t, j.Explain(), "R.hot: recorded compiled, installed before the run, ")
	c := vm.Code(hot)
	assert.False(t, c.Counting, "the profiled compilation keeps no counters")
	require.NotNil(t, c.Inline)
	assert.Len(t, c.Inline[1], 1, "leaf inlined at the hot site")

	// -Xint compiles nothing, marked or not.
	vmi, _ := setup(t, parse(t, recorded), func(c *Config) { c.Tiered, c.InterpretOnly = true, true })
	assert.Equal(t, sim.Interpreted, vmi.Code(hot).Tier)
}

// clipped calls four 3000-bytecode callees that a compile command forces
// inline (CompileCommand inline does not lift the bound: only @ForceInline
// does, under IncrementalInline).
const clipped = `
name: clipped
compile_commands: ["inline,D.*"]
methods:
  - {class: D, name: main, body: [{call: {method: D.a}}, {call: {method: D.b}}, {call: {method: D.c}}, {call: {method: D.d}}]}
  - {class: D, name: a, body: [{work: {cycles: 10, bytecodes: 3000}}]}
  - {class: D, name: b, body: [{work: {cycles: 10, bytecodes: 3000}}]}
  - {class: D, name: c, body: [{work: {cycles: 10, bytecodes: 3000}}]}
  - {class: D, name: d, body: [{work: {cycles: 10, bytecodes: 3000}}]}
threads: [{name: main, entry: D.main}]
`

// TestInliningStopsAtDesiredMethodLimit: C2 refuses a callee once the
// caller's inlined bytecodes plus the callee's would reach 8000, so main
// (13 bytecodes) inlines a and b (3001 each with the return: 6015), as
// 6015 + 3001 ≥ 8000 keeps c and d as calls;
// Jikes has no such bound.
func TestInliningStopsAtDesiredMethodLimit(t *testing.T) {
	vm, _ := setup(t, parse(t, clipped), nil)
	main := vm.Code(method(t, vm, "D.main"))
	var inlined []string
	for _, vs := range main.Inline {
		for _, v := range vs {
			inlined = append(inlined, vm.Image().Names[v.Method])
		}
	}
	assert.Equal(t, []string{"D.a", "D.b"}, inlined)
	assert.Equal(t, int64(6015), main.Size)
	assert.Less(t, main.Size, int64(DesiredMethodLimit))

	vmj, _ := setup(t, parse(t, clipped), func(c *Config) { c.Flavour = Jikes })
	assert.Equal(t, int64(12017), vmj.Code(method(t, vmj, "D.main")).Size)
}
