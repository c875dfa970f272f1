package jit

import (
	"fmt"
	"strings"
	"testing"

	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nested has an outer loop that keeps its poll (it allocates) around a
// call to a small method with an inner loop whose bound is known only at
// run time.
const nested = `
name: polls
methods:
  - {class: P, name: main, body: [{loop: {trips: 100, body: [{alloc: {bytes: 8}}, {call: {method: P.inner}}]}}]}
  - {class: P, name: inner, body: [{loop: {trips: {uniform: [5, 6]}, body: [{work: {cycles: 10, bytecodes: 4}}]}}]}
threads: [{name: main, entry: P.main}]
`

// TestPollSites counts the yield points of compiled code with what is
// inlined into it: an inlined callee brings its loops' polls but neither a
// prologue nor a return poll.
func TestPollSites(t *testing.T) {
	for _, c := range []struct {
		name        string
		tweak       func(*Config)
		main, inner int
	}{
		// main: outer back-edge + return; inner: its counted loop has none.
		{"hotspot", nil, 2, 1},
		// The inner loop strip mined: one more site, in main through inner.
		{"hotspot, strip mined", func(c *Config) { c.StripMiningIter = 100 }, 3, 2},
		// main: prologue, epilogue, outer back-edge, inlined inner back-edge.
		{"jikes", func(c *Config) { c.Flavour = Jikes }, 4, 3},
		{"jikes without inlining", func(c *Config) { c.Flavour, c.Inline = Jikes, false }, 3, 3},
	} {
		vm, _ := setup(t, parse(t, nested), c.tweak)
		assert.Equal(t, c.main, PollSites(vm.Code(method(t, vm, "P.main"))), "%s: main", c.name)
		assert.Equal(t, c.inner, PollSites(vm.Code(method(t, vm, "P.inner"))), "%s: inner", c.name)
	}
}

// TestCompiledCodeAndMethod: CompiledCode is nil while a method is
// interpreted and the installed version once it is compiled; Method finds
// methods by display name.
func TestCompiledCodeAndMethod(t *testing.T) {
	vm, j := setup(t, parse(t, loops), func(c *Config) {
		c.Tiered = true
		c.CompileThreshold, c.BackedgeThreshold = 10, 10
	})
	leaf, ok := j.Method("L.leaf")
	require.True(t, ok)
	assert.Equal(t, method(t, vm, "L.leaf"), leaf)
	_, ok = j.Method("L.nothing")
	assert.False(t, ok)
	main, ok := j.Method("L.main")
	require.True(t, ok)

	assert.Nil(t, j.CompiledCode(leaf), "interpreted before the run")
	vm.Run()
	compiled := map[int32]bool{}
	for _, e := range j.Events() {
		compiled[e.Method] = true
	}
	require.True(t, compiled[leaf], "leaf runs 1000 times: compiled")
	c := j.CompiledCode(leaf)
	require.NotNil(t, c)
	assert.Equal(t, sim.Compiled, c.Tier)
	assert.Same(t, vm.Code(leaf), c)
	require.False(t, compiled[main], "main runs once and has no loop")
	assert.Nil(t, j.CompiledCode(main))
	assert.Equal(t, sim.Interpreted, vm.Code(main).Tier)
}

// TestExplainPolls: --explain-jit names each compiled version's polls by
// kind and line, inlined callees indented under their call site.
func TestExplainPolls(t *testing.T) {
	for _, c := range []struct {
		name  string
		tweak func(*Config)
		want  []string
	}{
		{"hotspot", nil, []string{
			"P.main [compiled] polls: back-edge of loop at line 1, return (after the pop)\n",
			"      inlined at line 3:\n        P.inner [compiled] polls: none in counted loop at line 1\n",
			"    P.inner [compiled] polls: none in counted loop at line 1, return (after the pop)\n",
		}},
		{"strip mined", func(c *Config) { c.StripMiningIter = 100 }, []string{
			"P.inner [compiled] polls: counted loop at line 1 every 100 iterations and at its exit (strip mined)\n",
		}},
		{"a poll every iteration", func(c *Config) { c.StripMiningIter = 1 }, []string{
			"P.inner [compiled] polls: counted loop at line 1 every iteration\n",
		}},
		{"jikes", func(c *Config) { c.Flavour = Jikes }, []string{
			"P.main [compiled] polls: prologue, back-edge of loop at line 1, epilogue\n",
			"P.inner [compiled] polls: back-edge of loop at line 1\n", // inlined: no prologue, no epilogue
			"P.inner [compiled] polls: prologue, back-edge of loop at line 1, epilogue\n",
		}},
	} {
		_, j := setup(t, parse(t, nested), c.tweak)
		out := j.Explain()
		assert.True(t, strings.HasPrefix(out, "P.main: startup, queued 0s, installed 0s, 24 bytecodes, 1 inlined\n"), "%s:\n%s", c.name, out)
		for _, w := range c.want {
			assert.Contains(t, out, w, c.name)
		}
	}
	// A loop whose literal bound fits in one strip polls once, at its exit.
	src := `
name: one
methods:
  - {class: O, name: main, body: [{loop: {trips: 500, body: [{work: {cycles: 10, bytecodes: 4}}]}}]}
threads: [{name: main, entry: O.main}]
`
	_, j := setup(t, parse(t, src), func(c *Config) { c.StripMiningIter = 1000 })
	assert.Contains(t, j.Explain(), "O.main [compiled] polls: exit of counted loop at line 1 (one strip), return (after the pop)\n")
}

// TestExplainWithoutCompilations: a run that compiles nothing says so, and
// a compile command that matches no method is reported as such.
func TestExplainWithoutCompilations(t *testing.T) {
	_, j := setup(t, parse(t, nested), func(c *Config) {
		c.Tiered, c.InterpretOnly = true, true
		c.CompileCommands = "dontinline,X::y inline,P::inner"
	})
	assert.Equal(t, "no method was compiled (everything stayed interpreted)\n"+
		"CompileCommand dontinline,X.y matches no method\n"+
		"CompileCommand inline,P.inner matches P.inner\n", j.Explain())
	// Excluded methods are listed after the commands.
	_, j = setup(t, parse(t, nested), func(c *Config) { c.CompileCommands = "exclude,P::inner" })
	out := j.Explain()
	assert.True(t, strings.HasSuffix(out, fmt.Sprintf("CompileCommand exclude,P.inner matches P.inner\n%s: excluded by CompileCommand, never compiled (interpreted)\n", "P.inner")), out)
}
