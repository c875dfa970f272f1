package jit

import (
	"testing"

	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// interpCalls is tools/interpreter's "calls" case: a caller with long
// straight-line work between calls to a small callee, everything
// interpreted.
const interpCalls = `
name: interp-calls
methods:
  - class: B
    name: main
    body:
      - work: {cycles: 1000, bytecodes: 100}
      - call: {method: B.f}
      - work: {cycles: 1000, bytecodes: 100}
  - class: B
    name: f
    body:
      - work: {cycles: 10, bytecodes: 2}
      - work: {cycles: 10, bytecodes: 2}
threads: [{name: main, entry: B.main}]
`

// firstPoll records the first poll a thread reaches after being armed.
type firstPoll struct {
	kind   sim.PollKind
	method string
	line   int32
	at     sim.Time
	seen   bool
}

func (p *firstPoll) OnHook(vm sim.Agent, t sim.ThreadID, h sim.Hook) sim.Action {
	if !p.seen && vm.State(t) == sim.Running {
		st := vm.Stack(t, nil)
		top := st[len(st)-1]
		p.kind, p.method, p.line, p.at, p.seen = vm.PollKindOf(t), vm.Image().Names[top.Method], top.Line, vm.Now(), true
	}
	return sim.Continue
}

// TestInterpreterHasNoEntryPoll: HotSpot 17's interpreter has no poll at
// method entry (generate_normal_entry dispatches the first bytecode
// without one) and polls at a return before the frame is popped
// (TemplateTable::_return). A thread armed in the caller's straight-line
// work reaches its first poll at the callee's return, seen in the callee —
// as OpenJDK 17.0.15 -Xint stopped tools/interpreter's worker at f's
// return line in 10 of 10 safepoints, never at its entry. Jikes RVM's
// baseline code has a prologue yield point, so there the callee's entry
// comes first.
func TestInterpreterHasNoEntryPoll(t *testing.T) {
	for _, tc := range []struct {
		flavour Flavour
		kind    sim.PollKind
		line    int32
	}{
		{HotSpot, sim.PollEpilogue, 3}, // f's return (line 3: after its 2 statements)
		{Jikes, sim.PollPrologue, 1},
	} {
		vm, _ := setup(t, parse(t, interpCalls), func(c *Config) { c.Flavour, c.InterpretOnly, c.Tiered = tc.flavour, true, true })
		require.Equal(t, sim.Interpreted, vm.Code(method(t, vm, "B.f")).Tier)
		p := &firstPoll{}
		id, err := vm.AddHookHandler(p)
		require.NoError(t, err)
		vm.Arm(id, 0, sim.HookPoll)
		vm.Run()
		require.True(t, p.seen, tc.flavour)
		assert.Equal(t, tc.kind, p.kind, tc.flavour)
		assert.Equal(t, "B.f", p.method, tc.flavour)
		assert.Equal(t, tc.line, p.line, tc.flavour)
	}
}

// TestInterpretOnly: with InterpretOnly (-Xint) every method stays
// interpreted for the whole run however often it runs, the compiler gets
// nothing, and RecompileAll has nothing to recompile.
func TestInterpretOnly(t *testing.T) {
	vm, j := setup(t, parse(t, loops), func(c *Config) {
		c.Tiered, c.InterpretOnly = true, true
		c.CompileThreshold, c.BackedgeThreshold = 10, 10 // would compile everything hot at once
	})
	vm.Run()
	assert.Empty(t, j.Events())
	assert.Zero(t, j.RecompileAll())
	for m := range vm.Image().Methods {
		c := vm.Code(int32(m))
		assert.Equal(t, sim.Interpreted, c.Tier, vm.Image().Names[m])
		assert.False(t, c.PollEntry, vm.Image().Names[m])
		assert.True(t, c.EpiloguePoll, vm.Image().Names[m])
	}
	// Without it the same thresholds compile the hot methods.
	vm2, j2 := setup(t, parse(t, loops), func(c *Config) {
		c.Tiered = true
		c.CompileThreshold, c.BackedgeThreshold = 10, 10
	})
	vm2.Run()
	assert.NotEmpty(t, j2.Events())

	bad := DefaultConfig()
	bad.InterpretOnly, bad.Tiered = true, false
	err := bad.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "jit.interpret_only=true and jit.tiered=false")
}
