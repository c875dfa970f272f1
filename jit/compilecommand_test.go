package jit

import (
	"strings"
	"testing"

	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompileCommandsList: the configuration's list, and its errors named
// by key.
func TestCompileCommandsList(t *testing.T) {
	cmds, err := ParseCompileCommands("dontinline,A::b  exclude,C.*")
	require.NoError(t, err)
	assert.Equal(t, []program.CompileCommand{
		{Kind: program.DontInline, Class: "A", Method: "b", Value: true},
		{Kind: program.Exclude, Class: "C", MethodMode: program.Any, Value: true}}, cmds)
	c := DefaultConfig()
	c.CompileCommands = "dontinline,A::b print,C.d"
	assert.ErrorContains(t, c.Validate(), `jit.compile_commands: compile command "print,C.d": "print" is not a command profsim models`)
}

const commands = `
name: commands
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
  - class: C
    name: small
    body: [{work: {cycles: 20, bytecodes: 10}}]
  - class: C
    name: big
    body: [{work: {cycles: 2000, bytecodes: 400}}]
threads: [{name: main, entry: C.main}]
`

// inlinedAt lists what the compiled main inlines at its two call sites.
func inlinedAt(t *testing.T, vm *sim.VM) (small, big bool) {
	c := vm.Code(method(t, vm, "C.main"))
	require.Equal(t, sim.Compiled, c.Tier)
	if c.Inline == nil {
		return false, false
	}
	return len(c.Inline[2]) == 1, len(c.Inline[3]) == 1
}

// TestCompileCommandsSteerInlining: each command changes a decision the
// size rules make the other way.
func TestCompileCommandsSteerInlining(t *testing.T) {
	run := func(cmds CompileCommands, tweak func(*Config)) (*sim.VM, *JIT) {
		return setup(t, parse(t, commands), func(c *Config) {
			c.CompileCommands = cmds
			if tweak != nil {
				tweak(c)
			}
		})
	}
	vm, _ := run("", nil)
	small, big := inlinedAt(t, vm)
	assert.True(t, small, "10 bytecodes ≤ MaxInlineSize")
	assert.False(t, big, "400 bytecodes > FreqInlineSize")

	vm, _ = run("dontinline,C::small", nil)
	small, _ = inlinedAt(t, vm)
	assert.False(t, small, "dontinline")
	assert.Equal(t, sim.Compiled, vm.Code(method(t, vm, "C.small")).Tier, "dontinline still compiles the method")

	vm, _ = run("inline,C.big", nil)
	_, big = inlinedAt(t, vm)
	assert.True(t, big, "inline forces a callee over FreqInlineSize")

	vm, _ = run("dontinline,C.small inline,C.small", nil)
	small, _ = inlinedAt(t, vm)
	assert.True(t, small, "inline wins over dontinline (checked first)")
	vm, _ = run("inline,C.small dontinline,C.small", nil)
	small, _ = inlinedAt(t, vm)
	assert.True(t, small, "whatever the order")

	vm, _ = run("dontinline,C.* dontinline,C.small,false", nil)
	small, _ = inlinedAt(t, vm)
	assert.True(t, small, "the last matching dontinline decides")

	vm, _ = run("inline,C.big", func(c *Config) { c.Inline = false })
	_, big = inlinedAt(t, vm)
	assert.False(t, big, "-XX:-Inline: no inlining at all")
	vm, _ = run("inline,C.big", func(c *Config) { c.MaxInlineLevel = 0 })
	_, big = inlinedAt(t, vm)
	assert.False(t, big, "MaxInlineLevel bounds forced inlining")

	vm, j := run("exclude,C.small", nil)
	small, _ = inlinedAt(t, vm)
	assert.False(t, small, "an excluded method is not inlined")
	assert.Equal(t, sim.Interpreted, vm.Code(method(t, vm, "C.small")).Tier, "exclude: never compiled")
	assert.Len(t, j.Events(), 2, "main and big compiled, small not")
	assert.Contains(t, j.Explain(), "CompileCommand exclude,C.small matches C.small")
	assert.Contains(t, j.Explain(), "C.small: excluded by CompileCommand, never compiled (interpreted)")
	assert.Equal(t, 2, j.RecompileAll(), "a recompilation skips the excluded method")

	vm, _ = run("exclude,C.small inline,C.small", nil)
	small, _ = inlinedAt(t, vm)
	assert.True(t, small, "inline wins over exclude for inlining")
	assert.Equal(t, sim.Interpreted, vm.Code(method(t, vm, "C.small")).Tier, "but it is still never compiled on its own")
}

// TestDontInlineKeepsTheCountedLoopPoll: un-inlining the one call in a
// counted loop leaves a real call, so the loop keeps its back-edge poll —
// what users of -XX:CompileCommand=dontinline see in a profile.
func TestDontInlineKeepsTheCountedLoopPoll(t *testing.T) {
	vm, _ := setup(t, parse(t, loops), nil)
	assert.Zero(t, loopBack(t, vm.Code(method(t, vm, "L.counted"))).Flags&sim.FlagPoll)
	vm, _ = setup(t, parse(t, loops), func(c *Config) { c.CompileCommands = "dontinline,L::leaf" })
	assert.NotZero(t, loopBack(t, vm.Code(method(t, vm, "L.counted"))).Flags&sim.FlagPoll)
}

// TestExcludeWhileTiered: an excluded method's counters never queue it.
func TestExcludeWhileTiered(t *testing.T) {
	vm, j := setup(t, parse(t, commands), func(c *Config) {
		c.Tiered = true
		c.CompileThreshold, c.BackedgeThreshold = 10, 10
		c.CompileCommands = "exclude,C::small exclude,C.main"
	})
	vm.Run()
	var compiled []string
	for _, e := range j.Events() {
		compiled = append(compiled, vm.Image().Names[e.Method])
	}
	assert.Equal(t, []string{"C.big"}, compiled)
	assert.Equal(t, sim.Interpreted, vm.Code(method(t, vm, "C.small")).Tier)
	assert.Equal(t, sim.Interpreted, vm.Code(method(t, vm, "C.main")).Tier, "no OSR either")
}

// TestProgramCompileCommandsComeLast: a workload's compile_commands apply
// after the configuration's, as HotSpot reads -XX:CompileCommandFile after
// the -XX:CompileCommand options, so for each kind they decide.
func TestProgramCompileCommandsComeLast(t *testing.T) {
	for _, c := range []struct {
		config  CompileCommands
		program string
		small   bool
	}{
		{"", "[dontinline C::small]", false},
		{"dontinline,C.*", "[\"dontinline C::small,false\"]", true},
		{"dontinline,C.small,false", "[\"dontinline,C.*\"]", false},
		{"dontinline,C.small", "[\"inline,C.small\"]", true},
	} {
		vm, _ := setup(t, parse(t, commands+"compile_commands: "+c.program+"\n"), func(cfg *Config) { cfg.CompileCommands = c.config })
		small, _ := inlinedAt(t, vm)
		assert.Equal(t, c.small, small, "%s then %s", c.config, c.program)
	}
}

// TestUncountedLoopKeepsItsPoll: a loop C2 does not count (walking a list
// or a tree; program.Loop.Uncounted) keeps its back-edge poll when
// compiled, where the same loop counted loses it.
func TestUncountedLoopKeepsItsPoll(t *testing.T) {
	vm, _ := setup(t, parse(t, loops), nil)
	counted := loopBack(t, vm.Code(method(t, vm, "L.counted")))
	assert.Zero(t, counted.Flags&sim.FlagPoll)
	uncounted := strings.Replace(loops, "body: [{loop: {trips: 1000, body: [{work: {cycles: 10, bytecodes: 4}}, {call: {method: L.leaf}}]}}]",
		"body: [{loop: {trips: 1000, uncounted: true, body: [{work: {cycles: 10, bytecodes: 4}}, {call: {method: L.leaf}}]}}]", 1)
	require.NotEqual(t, loops, uncounted)
	vm, _ = setup(t, parse(t, uncounted), nil)
	back := loopBack(t, vm.Code(method(t, vm, "L.counted")))
	assert.NotZero(t, back.Flags&sim.FlagPoll)
	assert.Zero(t, back.StripLength(), "a poll every trip, not strip-mined")
}

// everyTrip: uncounted loops whose one call is made on every trip in the
// real code (program.Call.EveryTrip), to a method the JIT does not inline
// (big), to one it inlines (leaf), and to one it inlines that makes such
// a call itself (via → big).
const everyTrip = `
name: every-trip
methods:
  - class: E
    name: main
    body:
      - call: {method: E.notInlined}
      - call: {method: E.inlined}
      - call: {method: E.through}
      - call: {method: E.unmarked}
  - class: E
    name: notInlined
    body: [{loop: {trips: 1000, uncounted: true, body: [{work: {cycles: 10, bytecodes: 4}}, {branch: {probability: 0.5, then: [{call: {method: E.big, every_trip: true}}]}}]}}]
  - class: E
    name: inlined
    body: [{loop: {trips: 1000, uncounted: true, body: [{work: {cycles: 10, bytecodes: 4}}, {call: {method: E.leaf, every_trip: true}}]}}]
  - class: E
    name: through
    body: [{loop: {trips: 1000, uncounted: true, body: [{work: {cycles: 10, bytecodes: 4}}, {call: {method: E.via, every_trip: true}}]}}]
  - class: E
    name: unmarked
    body: [{loop: {trips: 1000, uncounted: true, body: [{work: {cycles: 10, bytecodes: 4}}, {call: {method: E.big}}]}}]
  - class: E
    name: via
    body: [{work: {cycles: 5, bytecodes: 2}}, {call: {method: E.big, every_trip: true}}]
  - class: E
    name: leaf
    body: [{work: {cycles: 20, bytecodes: 10}}]
  - class: E
    name: big
    body: [{work: {cycles: 2000, bytecodes: 400}}]
threads: [{name: main, entry: E.main}]
`

// TestEveryTripCallDropsTheLoopPoll: C2 removes the SafePoint of a loop
// whose every trip makes a call (IdealLoopTree::check_safepts): a loop
// whose every-trip call stays a call, directly or inside an inlined
// callee that makes it on every path, loses its back-edge poll, even
// where the model takes the call on half the trips; one whose call is
// inlined away, or not marked, keeps it.
func TestEveryTripCallDropsTheLoopPoll(t *testing.T) {
	vm, _ := setup(t, parse(t, everyTrip), nil)
	for name, want := range map[string]bool{"E.notInlined": false, "E.inlined": true, "E.through": false, "E.unmarked": true} {
		assert.Equal(t, want, loopBack(t, vm.Code(method(t, vm, name))).Flags&sim.FlagPoll != 0, "%s keeps its poll", name)
	}
	_, j := setup(t, parse(t, everyTrip), nil)
	assert.Contains(t, j.Explain(), "E.notInlined [compiled] polls: none in loop at line 1 (a call on every trip), return (after the pop)\n")
	vm, _ = setup(t, parse(t, everyTrip), func(c *Config) { c.CompileCommands = "dontinline,E::leaf" })
	assert.Zero(t, loopBack(t, vm.Code(method(t, vm, "E.inlined"))).Flags&sim.FlagPoll, "dontinline leaves the call: no poll")
}
