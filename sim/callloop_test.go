package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/profsim/profsim/program"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// callLoopSrc is a call loop of each shape fastForwardCalls takes: two
// leaves called per iteration, one of them twice, with Work between, and a
// loop whose callee is not a leaf (stepped).
const callLoopSrc = `
name: callloop
methods:
  - class: A
    name: main
    body:
      - loop:
          trips: 3000
          body:
            - work: {cycles: 3, bytecodes: 2}
            - call: {method: A.leaf}
            - call: {method: A.two}
            - work: {cycles: 1, bytecodes: 1}
            - call: {method: A.leaf}
      - loop:
          trips: 50
          body:
            - call: {method: A.inner}
  - class: A
    name: inner
    body:
      - loop:
          trips: 40
          body:
            - call: {method: A.two}
  - class: A
    name: leaf
    body:
      - work: {cycles: 2, bytecodes: 3}
  - class: A
    name: two
    body:
      - work: {cycles: 5, bytecodes: 1}
      - work: {cycles: 1, bytecodes: 2}
threads: [{name: main, entry: A.main}]
`

// codeVariants rewrites every method's code the way a JIT flavour would,
// so that fast-forwarding meets each kind of poll and inlining: 0 leaves
// the flattened code, 1 adds Jikes-like prologue and epilogue polls, 2
// inlines every static call to a straight-line leaf and strip-mines every
// loop.
func codeVariants(vm *VM, variant int) {
	leaf := func(c *Code) bool {
		for i := range c.Instrs[:len(c.Instrs)-1] {
			if c.Instrs[i].Op != OpWork {
				return false
			}
		}
		return true
	}
	orig := append([]*Code(nil), vm.code...)
	for m, c := range orig {
		n := *c
		n.Instrs = append([]Instr(nil), c.Instrs...)
		switch variant {
		case 1:
			n.PollEntry, n.EpiloguePoll = true, true
		case 2:
			n.Inline = make([][]*Code, len(n.Instrs))
			for pc := range n.Instrs {
				in := &n.Instrs[pc]
				if in.Op == OpCall && leaf(orig[in.Callee()]) {
					n.Inline[pc] = []*Code{orig[in.Callee()]}
				}
				if in.Op == OpLoopBack {
					in.Flags &^= FlagPoll
					in.SetStripLength(7)
				}
			}
			UpdateLoopCosts(&n, vm.cfg.Cost)
		}
		n.Method = int32(m)
		vm.Install(&n)
	}
}

// TestCallLoopFastForwardMatchesStepping runs programs with loops that
// call straight-line leaves once with fastForwardCalls and once stepping
// every statement (VM.stepAll), both stopped at the same random horizons, and
// requires the same truth to the line, the same call counts, threads,
// statements and end.
func TestCallLoopFastForwardMatchesStepping(t *testing.T) {
	progs := map[string]*program.Program{
		"callloop": parse(t, callLoopSrc),
		"sqsum":    builtin(t, "sqsum"),
		"deepcall": builtin(t, "deepcall"),
	}
	for seed := uint64(0); seed < 20; seed++ {
		progs[fmt.Sprintf("gen%d", seed)] = genProgram(seed, 30, seed%2 == 0)
	}
	for name, p := range progs {
		for variant := 0; variant < 3; variant++ {
			run := func(step bool) *VM {
				vm := newVM(t, p, func(c *Config) { c.Duration = 5 * Millisecond })
				codeVariants(vm, variant)
				vm.stepAll = step
				r := rand.New(rand.NewPCG(uint64(variant), 7))
				for at := Time(0); vm.RunUntil(at); at += Time(1 + r.IntN(20000)) {
				}
				return vm
			}
			ff, st := run(false), run(true)
			what := fmt.Sprintf("%s/variant %d", name, variant)
			require.Equal(t, st.truth.nodes, ff.truth.nodes, what)
			require.Equal(t, st.truth.cells, ff.truth.cells, what)
			require.Equal(t, st.truth.edgeCounts, ff.truth.edgeCounts, what)
			sr, fr := st.Result(), ff.Result()
			assert.Equal(t, sr.Threads, fr.Threads, what)
			assert.Equal(t, sr.Statements, fr.Statements, what)
			assert.Equal(t, sr.End, fr.End, what)
			assert.Equal(t, sr.Incidents, fr.Incidents, what)
		}
	}
}
