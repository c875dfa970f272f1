package workloads

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/profsim/profsim/program"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slowProg has a method whose lines (profsim show's numbering) are
//
//	1 work 10   2 loop   3 work 3   4 call B.leaf   5 branch   6 work 7
//	  (else)  7 native 100   8 work 1
const slowProg = `
name: slowdown
methods:
  - class: A
    name: main
    body:
      - work: {cycles: 10, bytecodes: 1}
      - loop:
          trips: 4
          body:
            - work: {cycles: 3, bytecodes: 1}
            - call: {method: B.leaf}
      - branch:
          probability: 0.5
          then: [{work: {cycles: 7, bytecodes: 1}}]
          else: [{native: {cycles: 100}}]
      - work: {cycles: 1, bytecodes: 1}
  - class: B
    name: leaf
    body:
      - work: {cycles: 5, bytecodes: 1}
  - class: B
    name: caller
    body:
      - call: {method: B.leaf}
threads:
  - name: main
    entry: A.main
`

func slowProgram(t *testing.T) *program.Program {
	t.Helper()
	p, err := program.Parse([]byte(slowProg), program.YAML)
	require.NoError(t, err)
	return p
}

// mainCycles are A.main's Work and Native cycles by line.
func mainCycles(p *program.Program) map[int]int64 {
	b := p.Methods[0].Body
	return map[int]int64{1: b[0].Work.Cycles, 3: b[1].Loop.Body[0].Work.Cycles, 6: b[2].Branch.Then[0].Work.Cycles,
		7: b[2].Branch.Else[0].Native.Cycles, 8: b[3].Work.Cycles}
}

// A slowdown scales exactly the Work and Native statements on its lines,
// numbered as profiles and the listing number them; the whole method
// without a range; every method with *.
func TestSlowDownScalesItsLines(t *testing.T) {
	for _, c := range []struct {
		flag string
		main map[int]int64
		leaf int64
	}{
		{"A.main:3-7:2", map[int]int64{1: 10, 3: 6, 6: 14, 7: 200, 8: 1}, 5},
		{"A.main:6:2", map[int]int64{1: 10, 3: 3, 6: 14, 7: 100, 8: 1}, 5},
		{"A.main:7-8:1.5", map[int]int64{1: 10, 3: 3, 6: 7, 7: 150, 8: 2}, 5}, // 1 × 1.5 rounds to 2
		{"A.main:2", map[int]int64{1: 20, 3: 6, 6: 14, 7: 200, 8: 2}, 5},
		{"*:2", map[int]int64{1: 20, 3: 6, 6: 14, 7: 200, 8: 2}, 10},
		{"*:1", map[int]int64{1: 10, 3: 3, 6: 7, 7: 100, 8: 1}, 5},
	} {
		sd, err := ParseSlowDown(c.flag)
		require.NoError(t, err, c.flag)
		assert.Equal(t, c.flag, sd.String(), "String is the CLI form")
		p := slowProgram(t)
		require.NoError(t, ApplySlowDown(p, sd), c.flag)
		assert.Equal(t, c.main, mainCycles(p), c.flag)
		assert.Equal(t, c.leaf, p.Methods[1].Body[0].Work.Cycles, c.flag)
	}
}

// The listing's numbering is the one ApplySlowDown reads: line 3 of
// A.main in `profsim show` is the loop's work.
func TestSlowDownLinesAreTheListings(t *testing.T) {
	var b strings.Builder
	require.NoError(t, slowProgram(t).WriteListing(&b))
	assert.Contains(t, b.String(), "    3      work 3 cycles")
	assert.Contains(t, b.String(), "    7      native 100 cycles")
	assert.Contains(t, b.String(), "    8    work 1 cycles")
}

// Each malformed flag is an error naming --slowdown and the problem.
func TestParseSlowDownErrors(t *testing.T) {
	for _, c := range []struct{ flag, want string }{
		{"A.main", "want METHOD:factor, METHOD:LINE-LINE:factor or *:factor"},
		{":2", "want METHOD:factor"},
		{"A.main:0.5", "factor must be a finite number ≥ 1"},
		{"A.main:0", "factor must be a finite number ≥ 1"},
		{"A.main:-2", "factor must be a finite number ≥ 1"},
		{"A.main:NaN", "factor must be a finite number ≥ 1"},
		{"A.main:Inf", "factor must be a finite number ≥ 1"},
		{"A.main:two", "factor must be a finite number ≥ 1"},
		{"A.main:3-x:2", `lines "3-x" must be LINE or LINE-LINE, whole numbers`},
		{"A.main::2", `lines "" must be LINE or LINE-LINE`},
		{"A.main:0-3:2", "lines 0-3 must be a range 1 ≤ first ≤ last"},
		{"A.main:5-3:2", "lines 5-3 must be a range 1 ≤ first ≤ last"},
		{":3-4:2", "no method (* for every method)"},
		{"*:1-2:2", "a line range needs one method, not *"},
	} {
		_, err := ParseSlowDown(c.flag)
		require.Error(t, err, c.flag)
		assert.Contains(t, err.Error(), "--slowdown", c.flag)
		assert.Contains(t, err.Error(), c.want, c.flag)
	}
}

// What only the program can tell is ApplySlowDown's error, naming the
// method and the problem; a failed slowdown changes nothing.
func TestApplySlowDownErrors(t *testing.T) {
	for _, c := range []struct {
		sd   SlowDown
		want string
	}{
		{SlowDown{Method: "A.main", From: 8, To: 9, Factor: 2}, "slowdown A.main:8-9:2: A.main has lines 1-8"},
		{SlowDown{Method: "A.mian", Factor: 2}, "slowdown: "},
		{SlowDown{Method: "A.main", From: 4, To: 4, Factor: 2}, "no work or native statement to slow on lines 4-4 of A.main (a call's cost is its callee's"},
		{SlowDown{Method: "B.caller", Factor: 2}, "no work or native statement to slow in B.caller"},
		{SlowDown{Method: "A.main", Factor: 0.5}, "factor 0.5 must be a finite number ≥ 1"},
		{SlowDown{Method: "A.main", From: 3, To: 2, Factor: 2}, "must be a range 1 ≤ first ≤ last"},
		{SlowDown{Method: "*", From: 1, To: 2, Factor: 2}, "a line range needs one method, not *"},
		{SlowDown{Method: "A.main", Factor: 1e11}, "methods[0].body[2].branch.else[0].native.cycles: 100 × 1e+11 = 1e+13 is not in [1, 10^12]"},
		{SlowDown{Method: "*", Factor: 1e11}, "is not in [1, 10^12]"},
	} {
		p := slowProgram(t)
		before, _ := json.Marshal(p)
		err := ApplySlowDown(p, c.sd)
		assert.ErrorContains(t, err, c.want, "%+v", c.sd)
		after, _ := json.Marshal(p)
		assert.Equal(t, string(before), string(after), "%+v: a failed slowdown changes nothing", c.sd)
	}
	p, err := program.Parse([]byte("name: x\nmethods:\n  - {class: A, name: main, body: [{call: {method: A.f}}]}\n  - {class: A, name: f, body: [{alloc: {bytes: 8}}]}\nthreads: [{name: main, entry: A.main}]\n"), program.YAML)
	require.NoError(t, err)
	assert.ErrorContains(t, ApplySlowDown(p, SlowDown{Method: "*", Factor: 2}), "slowdown *:2: the program has no work or native statement to slow")
}
