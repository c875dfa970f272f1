package jit

import (
	"strings"

	"github.com/profsim/profsim/program"
)

// CompileCommands is a list of HotSpot compile commands, each what follows
// -XX:CompileCommand= on a java command line, separated by whitespace:
// "dontinline,Foo::bar exclude,Baz.*". A command is KIND,PATTERN with
// KIND one of dontinline, inline and exclude, and an optional ",true" or
// ",false" after the pattern (true is implied); program.ParseCompileCommand
// reads each. Config.Validate parses it; ParseCompileCommands returns the
// commands. A program's own commands (program.Program.CompileCommands)
// come after these.
type CompileCommands string

// ParseCompileCommands parses a whitespace-separated list.
func ParseCompileCommands(s CompileCommands) ([]program.CompileCommand, error) {
	var out []program.CompileCommand
	for _, tok := range strings.Fields(string(s)) {
		c, err := program.ParseCompileCommand(tok)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// oracle is the compile commands' verdict per method, as
// CompilerOracle::should_inline, should_not_inline and should_exclude
// (compiler/compilerOracle.cpp) give it: for each kind, the last command of
// that kind whose pattern matches decides (HotSpot searches its command
// list newest first), and should_not_inline is dontinline or exclude.
type oracle struct {
	forceInline, dontInline, exclude []bool
}

func newOracle(cmds []program.CompileCommand, methods []*program.Method) oracle {
	o := oracle{make([]bool, len(methods)), make([]bool, len(methods)), make([]bool, len(methods))}
	for _, c := range cmds {
		verdict := o.dontInline
		switch c.Kind {
		case program.Inline:
			verdict = o.forceInline
		case program.Exclude:
			verdict = o.exclude
		}
		for i, m := range methods {
			if c.Matches(m) {
				verdict[i] = c.Value
			}
		}
	}
	return o
}
