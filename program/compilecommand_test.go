package program

import (
	"testing"

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
}

// TestCompileCommandMatches: classes in HotSpot's internal form, wildcards,
// signatures by prefix.
func TestCompileCommandMatches(t *testing.T) {
	get := &Method{Class: "java.util.HashMap", Name: "get", Signature: "(Ljava/lang/Object;)Ljava/lang/Object;"}
	plain := &Method{Class: "Foo", Name: "bar"}
	for _, c := range []struct {
		pattern string
		m       *Method
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

// TestCompileCommandFileForms: a line of a -XX:CompileCommandFile
// separates with spaces, as CompilerOracle::parse_from_line reads it.
func TestCompileCommandFileForms(t *testing.T) {
	for text, want := range map[string]CompileCommand{
		"exclude java/lang/String indexOf": {Kind: Exclude, Class: "java/lang/String", Method: "indexOf", Value: true},
		"dontinline\tFoo.bar":              {Kind: DontInline, Class: "Foo", Method: "bar", Value: true},
		"inline  Foo::bar (I)V":            {Kind: Inline, Class: "Foo", Method: "bar", Signature: "(I)V", Value: true},
	} {
		got, err := ParseCompileCommand(text)
		require.NoError(t, err, text)
		assert.Equal(t, want, got, text)
	}
}

// TestProgramCompileCommands: the workload key, decoded in order and
// validated with the path and line of a bad command.
func TestProgramCompileCommands(t *testing.T) {
	src := prog("      - work: {cycles: 1, bytecodes: 1}\n") +
		"compile_commands:\n  - dontinline,A::g\n  - exclude A h\n"
	p, err := Parse([]byte(src), YAML)
	require.NoError(t, err)
	assert.Equal(t, []string{"dontinline,A::g", "exclude A h"}, p.CompileCommands)

	_, err = Parse([]byte(prog("      - work: {cycles: 1, bytecodes: 1}\n")+"compile_commands:\n  - dontinline,A::g\n  - option,A::h,PrintInlining\n"), YAML)
	assert.ErrorContains(t, err, `line 12: compile_commands[1]: compile command "option,A::h,PrintInlining": "option" is not a command profsim models (supported: dontinline, inline, exclude)`)
	_, err = Parse([]byte(prog("      - work: {cycles: 1, bytecodes: 1}\n")+"compile_commands: dontinline,A::g\n"), YAML)
	assert.ErrorContains(t, err, "line 10: compile_commands: want a list, got a value")
	_, err = Parse([]byte(prog("      - work: {cycles: 1, bytecodes: 1}\n")+"compile_commands: [[dontinline]]\n"), YAML)
	assert.ErrorContains(t, err, "compile_commands[0]: want a string")
}
