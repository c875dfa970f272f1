package jit

import (
	"testing"

	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseCompileCommand: the forms HotSpot 17's CompilerOracle and
// MethodMatcher accept, and the errors they report.
func TestParseCompileCommand(t *testing.T) {
	for _, c := range []struct {
		text  string
		want  CompileCommand
		canon string
	}{
		{"dontinline,Foo::bar", CompileCommand{Kind: DontInline, Class: "Foo", Method: "bar", Value: true}, "dontinline,Foo.bar"},
		{"dontinline,Foo.bar", CompileCommand{Kind: DontInline, Class: "Foo", Method: "bar", Value: true}, "dontinline,Foo.bar"},
		{"DontInline,pkg/Foo.bar", CompileCommand{Kind: DontInline, Class: "pkg/Foo", Method: "bar", Value: true}, "dontinline,pkg/Foo.bar"},
		{"inline,java.util.HashMap::get", CompileCommand{Kind: Inline, Class: "java/util/HashMap", Method: "get", Value: true}, "inline,java/util/HashMap.get"},
		{"exclude,Foo,bar", CompileCommand{Kind: Exclude, Class: "Foo", Method: "bar", Value: true}, "exclude,Foo.bar"},
		{"exclude,Foo.*", CompileCommand{Kind: Exclude, Class: "Foo", MethodMode: Any, Value: true}, "exclude,Foo.*"},
		{"exclude,*.*", CompileCommand{Kind: Exclude, ClassMode: Any, MethodMode: Any, Value: true}, "exclude,*.*"},
		{"inline,*Map*.get*", CompileCommand{Kind: Inline, Class: "Map", ClassMode: Substring, Method: "get", MethodMode: Prefix, Value: true}, "inline,*Map*.get*"},
		{"inline,*Map.*et", CompileCommand{Kind: Inline, Class: "Map", ClassMode: Suffix, Method: "et", MethodMode: Suffix, Value: true}, "inline,*Map.*et"},
		{"dontinline,Foo.bar(I)V", CompileCommand{Kind: DontInline, Class: "Foo", Method: "bar", Signature: "(I)V", Value: true}, "dontinline,Foo.bar(I)V"},
		{"dontinline,Foo::bar(Ljava/lang/String;)V", CompileCommand{Kind: DontInline, Class: "Foo", Method: "bar", Signature: "(Ljava/lang/String;)V", Value: true}, "dontinline,Foo.bar(Ljava/lang/String;)V"},
		{"dontinline,Foo::bar,false", CompileCommand{Kind: DontInline, Class: "Foo", Method: "bar"}, "dontinline,Foo.bar,false"},
		{"dontinline,Foo.<init>", CompileCommand{Kind: DontInline, Class: "Foo", Method: "<init>", Value: true}, "dontinline,Foo.<init>"},
	} {
		got, err := ParseCompileCommand(c.text)
		require.NoError(t, err, c.text)
		assert.Equal(t, c.want, got, c.text)
		assert.Equal(t, c.canon, got.String(), c.text)
		again, err := ParseCompileCommand(got.String())
		require.NoError(t, err, c.canon)
		assert.Equal(t, got, again, "canonical form %s reads back", c.canon)
	}
	for _, c := range []struct{ text, err string }{
		{"option,Foo::bar,PrintInlining", `"option" is not a command profsim models (supported: dontinline, inline, exclude)`},
		{"compileonly,Foo.bar", `"compileonly" is not a command profsim models`},
		{"quiet", `"quiet" is not a command profsim models`},
		{"dontinline", "want dontinline,PATTERN"},
		{"dontinline,", "method pattern missing"},
		{"dontinline,Foo", "could not parse the method pattern"},
		{"dontinline,Foo(I)V", "could not parse the method pattern"},
		{"dontinline,A::b::c", "only allows one '::'"},
		{"dontinline,a/B::c", "'/' together with '::'"},
		{"dontinline,a.B.c", "multiple '.'"},
		{"dontinline,a.b/c", "mixed '/' and '.'"},
		{"dontinline,F*o.bar", "embedded * not allowed"},
		{"dontinline,**.bar", `"**" is not a valid pattern`},
		{"dontinline,Foo.bar(I*", "wildcard * not allowed in signature"},
		{"dontinline,Foo.bar,maybe", `"maybe" after the pattern is not a boolean`},
		{"dontinline,Foo.b<r", "only allowed in <init>, <clinit>"},
		{"dontinline,F<o.bar", "not allowed in class name"},
	} {
		_, err := ParseCompileCommand(c.text)
		assert.ErrorContains(t, err, c.err, c.text)
	}
	cmds, err := ParseCompileCommands("dontinline,A::b  exclude,C.*")
	require.NoError(t, err)
	assert.Equal(t, []CompileCommand{
		{Kind: DontInline, Class: "A", Method: "b", Value: true},
		{Kind: Exclude, Class: "C", MethodMode: Any, Value: true}}, cmds)
	c := DefaultConfig()
	c.CompileCommands = "dontinline,A::b print,C.d"
	assert.ErrorContains(t, c.Validate(), `jit.compile_commands: compile command "print,C.d": "print" is not a command profsim models`)
}

// TestCompileCommandMatches: classes in HotSpot's internal form, wildcards,
// signatures by prefix.
func TestCompileCommandMatches(t *testing.T) {
	get := &program.Method{Class: "java.util.HashMap", Name: "get", Signature: "(Ljava/lang/Object;)Ljava/lang/Object;"}
	plain := &program.Method{Class: "Foo", Name: "bar"}
	for _, c := range []struct {
		pattern string
		m       *program.Method
		want    bool
	}{
		{"java.util.HashMap::get", get, true},
		{"java/util/HashMap.get", get, true},
		{"HashMap.get", get, false}, // exact class: the package is part of the name
		{"*HashMap.get", get, true},
		{"java/util/*.g*", get, true},
		{"*.*", get, true},
		{"java/util/HashMap.get(Ljava/lang/Object;)", get, true},
		{"java/util/HashMap.get(I)", get, false},
		{"Foo.bar", plain, true},
		{"Foo.bar()V", plain, false}, // no signature given: a signature pattern matches nothing
		{"Foo.ba", plain, false},
		{"*oo.*a*", plain, true},
	} {
		cmd, err := ParseCompileCommand("dontinline," + c.pattern)
		require.NoError(t, err, c.pattern)
		assert.Equal(t, c.want, cmd.Matches(c.m), c.pattern)
	}
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
