package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 14, classes 2 and 6 at the command line: extreme and malformed
// flags and workload files exit 2 with one line that names the problem.
func TestBadFlagsAndFilesNameTheProblem(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	dupJSON := file("dup.json", `{"name": "x", "methods": [{"class": "A", "name": "main", "body": [`+"\n"+
		`{"work": {"cycles": 10, "bytecodes": 1, "cycles": 20}}]}], "threads": [{"name": "main", "entry": "A.main"}]}`)
	typo := file("typo.yaml", "name: x\nmethods:\n  - class: A\n    name: main\n    body: [{work: {cycles: 10, bytecode: 1}}]\nthreads: [{name: main, entry: A.main}]\n")
	sleep := file("sleep.yaml", "name: x\nmethods:\n  - {class: A, name: main, body: [{block: {kind: sleep, duration: 9223372036854775000}}]}\nthreads: [{name: main, entry: A.main}]\n")
	count0 := file("count0.yaml", "name: x\nmethods:\n  - {class: A, name: main, body: [{work: {cycles: 1, bytecodes: 1}}]}\nthreads: [{name: main, entry: A.main, count: 0}]\n")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--workload", "hotcold", "--duration", "5"}, "--duration 5: a duration needs a unit: 5s (or 5ms, 5us, 5ns)"},
		{[]string{"run", "--workload", "hotcold", "--duration", "2.5"}, "--duration 2.5: a duration needs a unit: 2.5s"},
		{[]string{"run", "--workload", "hotcold", "--duration", "2562047h47m16.854775807s"}, "--duration 2562047h47m16.854775807s must be > 0 and at most 277777h46m40s"},
		{[]string{"run", "--workload", "hotcold", "--duration", "9999999999h"}, `--duration 9999999999h: beyond the model's maximum time (10¹⁸ns, 277777h46m40s)`},
		{[]string{"run", "--workload", "hotcold", "--strip-mining", "4294967396"}, "--strip-mining 4294967396 must be in [0, 4294967295]"},
		{[]string{"run", "--workload", "hotcold", "--strip-mining", "99999999999999999999"}, `invalid value "99999999999999999999" for flag -strip-mining`},
		{[]string{"run", "--workload", "hotcold", "--set", "jit.strip_mining_iter=4294967396"}, "jit.strip_mining_iter: 4294967396 is beyond HotSpot's -XX:LoopStripMiningIter range"},
		{[]string{"run", "--workload", "hotcold", "--speedup", "HotCold.hot:1e17"}, "speedup HotCold.hot:1e+17: methods[2].body[0].work.cycles: 100 × 1e+17 = 1e+19 is not in [1, 10^12]"},
		{[]string{"run", "--workload", "hotcold", "--speedup", "HotCold.hot:NaN"}, "factor must be a finite number > 0"},
		{[]string{"run", "--workload", "hotcold", "--slowdown", "HotCold.hot:0.9"}, `--slowdown "HotCold.hot:0.9": factor must be a finite number ≥ 1`},
		{[]string{"run", "--workload", "hotcold", "--slowdown", "HotCold.hot:3-1:2"}, `--slowdown "HotCold.hot:3-1:2": lines 3-1 must be a range 1 ≤ first ≤ last`},
		{[]string{"run", "--workload", "hotcold", "--slowdown", "*:1-2:2"}, `--slowdown "*:1-2:2": a line range needs one method, not *`},
		{[]string{"run", "--workload", "hotcold", "--slowdown", "HotCold.hot:2-3:2"}, "--slowdown HotCold.hot:2-3:2: HotCold.hot has lines 1-1 ('profsim show' lists them)"},
		{[]string{"run", "--workload", "hotcold", "--slowdown", "HotCold.main:2"}, "--slowdown HotCold.main:2: no work or native statement to slow in HotCold.main"},
		{[]string{"run", "--workload", "hotcold", "--slowdown", "HotCold.hot:1e11"}, "--slowdown HotCold.hot:1e+11: methods[2].body[0].work.cycles: 100 × 1e+11 = 1e+13 is not in [1, 10^12]"},
		{[]string{"run", "--workload", "hotcold", "--inject", "HotCold.hot:9223372036854775807"}, "f must be an integer in [1, 10^15]"},
		{[]string{"run", "--workload", "hotcold", "--set", "sim.cost.poll_cycles=9223372036854775807"}, "cost.poll_cycles: 9223372036854775807 must be in [0, 1_000_000_000]"},
		{[]string{"run", "--workload", "hotcold", "--inline", "nope"}, `unexpected argument "nope"`},
		{[]string{"run", "--workload", dupJSON}, "dup.json: invalid program: line 2: methods[0].body[0].work.cycles: key repeated (first at line 2)"},
		{[]string{"run", "--workload", typo}, `typo.yaml: invalid program: line 5: methods[0].body[0].work: unknown key "bytecode"; did you mean "bytecodes"?`},
		{[]string{"run", "--workload", sleep}, "sleep.yaml: invalid program: line 3: methods[0].body[0].block.duration: 9223372036854775000 is not in [0, 10^18]"},
		{[]string{"run", "--workload", count0}, "count0.yaml: invalid program: line 4: threads[0].count: 0 is not in [1, 2^31−1]"},
	}
	for _, c := range cases {
		code, out, errOut := runMain(c.args...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Empty(t, out, "%v", c.args)
		assert.Contains(t, errOut, c.want, "%v", c.args)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "%v: one line, got %q", c.args, errOut)
	}
}

// A boolean flag takes its value after a space as well as after "=".
func TestBoolFlagsTakeASpacedValue(t *testing.T) {
	for _, args := range [][]string{
		{"--inline", "false"}, {"--inline=false"}, {"-inline", "false"},
	} {
		f, err := parseRunFlags(append([]string{"--workload", "hotcold", "--gc", "false"}, args...), nil)
		require.NoError(t, err, "%v", args)
		require.NotNil(t, f.spec.Inline, "%v", args)
		assert.False(t, *f.spec.Inline, "%v", args)
		assert.False(t, f.spec.GC, "%v", args)
	}
	f, err := parseRunFlags([]string{"--inline", "--workload", "hotcold"}, nil)
	require.NoError(t, err)
	assert.True(t, *f.spec.Inline, "a bare boolean flag is true")
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.Bool("inline", true, "")
	fs.Bool("gc", true, "")
	fs.String("a", "", "")
	assert.Equal(t, []string{"--a", "--inline=true", "x", "--", "--gc", "false"},
		joinBoolValues(fs, []string{"--a", "--inline", "true", "x", "--", "--gc", "false"}), "only boolean flags, only before --")
	assert.Equal(t, []string{"--a", "true"}, joinBoolValues(fs, []string{"--a", "true"}), "a string flag keeps its value")
}
