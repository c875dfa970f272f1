package sim

import (
	"fmt"
	"math/rand/v2"
	"strings"
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
      - stub: {cycles: 4, name: arraycopy}
      - work: {cycles: 1, bytecodes: 2}
threads: [{name: main, entry: A.main}]
`

// leafSrc calls leaves of every shape VM.runLeaf runs in one step (Work,
// stubs, allocations, pure loops of 0, 1 and 5 trips) and one it does not (a
// loop whose trips are drawn), statically, virtually and from a method
// that is not a leaf, in and outside loops.
const leafSrc = `
name: leaves
methods:
  - class: A
    name: main
    body:
      - loop:
          trips: 4000
          body:
            - work: {cycles: 3, bytecodes: 2}
            - call: {method: A.looped}
            - call: {method: A.alloc}
            - virtual_call: {receivers: {A.looped: 2, A.once: 1, A.drawn: 1}}
            - call: {method: A.mid}
            - call: {method: A.empty}
  - class: A
    name: mid
    body:
      - work: {cycles: 2, bytecodes: 1}
      - stub: {cycles: 3}
      - call: {method: A.once}
      - call: {method: A.alloc}
  - class: A
    name: looped
    body:
      - work: {cycles: 4, bytecodes: 3}
      - loop:
          trips: 5
          body:
            - work: {cycles: 2, bytecodes: 1}
            - work: {cycles: 1, bytecodes: 2}
      - work: {cycles: 1, bytecodes: 1}
  - class: A
    name: once
    body:
      - loop:
          trips: 1
          body:
            - work: {cycles: 7, bytecodes: 4}
      - loop:
          trips: 0
          body:
            - work: {cycles: 9, bytecodes: 4}
  - class: A
    name: alloc
    body:
      - work: {cycles: 2, bytecodes: 2}
      - alloc: {bytes: 40}
      - work: {cycles: 1, bytecodes: 1}
      - alloc: {bytes: 24}
  - class: A
    name: drawn
    body:
      - loop:
          trips: {uniform: [1, 4]}
          body:
            - work: {cycles: 3, bytecodes: 3}
  - class: A
    name: empty
    body: []
threads: [{name: main, entry: A.main}, {name: second, entry: A.main}]
`

// tlabs hands out every TLAB at once.
type tlabs struct{}

func (tlabs) OnTLAB(Agent, ThreadID, int64) Action { return Continue }

// instrumentCounts rewrites c as bytecode-counting instrumentation does
// (jit.Instrument, which this package cannot import): an OpCount of 1 ns
// before every Work, counting its bytecodes, every other one a check;
// jump targets moved; no loop with an OpCount is pure.
func instrumentCounts(c *Code) {
	var out []Instr
	start := make([]int32, len(c.Instrs)+1)
	inserted := map[int]bool{}
	check := true
	for i, in := range c.Instrs {
		start[i] = int32(len(out))
		if in.Op == OpWork {
			cnt := NewCount(in.Line, in.Bytecodes, 1, 0, check)
			cnt.Cost = 1
			inserted[len(out)] = true
			out = append(out, cnt)
			check = !check
		}
		out = append(out, in)
	}
	start[len(c.Instrs)] = int32(len(out))
	for k := range out {
		if pc, ok := out[k].Target(); ok && !inserted[k] {
			out[k].SetTarget(start[pc])
		}
	}
	for i := range out {
		if out[i].Op != OpLoopEnter {
			continue
		}
		for pc := int32(i) + 1; pc < out[i].LoopBackPC(); pc++ {
			if out[pc].Op == OpCount {
				out[i].Flags &^= FlagPureLoop
			}
		}
	}
	c.Instrs, c.Instrumented = out, true
}

// counterHook re-arms every application thread's bytecode counter with
// granularity gran at its start and at each hook, and logs where the hook
// stopped it.
type counterHook struct {
	id   HandlerID
	gran int64
	log  []string
}

func (h *counterHook) OnThreadStart(vm Agent, t ThreadID) { vm.SetBytecodeCounter(h.id, t, h.gran) }

func (h *counterHook) OnHook(vm Agent, t ThreadID, k Hook) Action {
	var at string
	for _, f := range vm.Stack(t, nil) {
		at += fmt.Sprintf(">%d:%d", f.Method, f.Line)
	}
	h.log = append(h.log, fmt.Sprintf("%v t%d@%d counter %d %s", k, t, vm.Now(), vm.BytecodeCounter(t), at))
	vm.SetBytecodeCounter(h.id, t, h.gran)
	return Continue
}

// codeVariants rewrites every method's code the way a JIT flavour would,
// so that fast-forwarding meets each kind of poll and inlining: 0 leaves
// the flattened code, 1 adds Jikes-like prologue and epilogue polls, 2
// inlines every static call to a straight-line leaf and strip-mines every
// loop, 3 counts bytecodes with instrumentation (OpCount), 4 removes every
// back-edge's poll (C2's short counted loops) and inlines every static
// call to a method that makes none.
func codeVariants(vm *VM, variant int) {
	if variant == 4 {
		vs := make([]*Code, len(vm.code))
		for m, c := range vm.code {
			n := *c
			n.Instrs = append([]Instr(nil), c.Instrs...)
			for pc := range n.Instrs {
				if in := &n.Instrs[pc]; in.Op == OpLoopBack {
					in.Flags &^= FlagPoll
					in.SetStripLength(0)
				}
			}
			UpdateLoopCosts(&n, vm.cfg.Cost)
			vs[m] = &n
		}
		calls := func(c *Code) bool {
			for i := range c.Instrs {
				if op := c.Instrs[i].Op; op == OpCall || op == OpVirtualCall {
					return true
				}
			}
			return false
		}
		for _, n := range vs {
			n.Inline = make([][]*Code, len(n.Instrs))
			for pc := range n.Instrs {
				if in := &n.Instrs[pc]; in.Op == OpCall && !calls(vs[in.Callee()]) {
					n.Inline[pc] = []*Code{vs[in.Callee()]}
				}
			}
		}
		for _, n := range vs {
			vm.Install(n)
		}
		return
	}
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
		case 3:
			instrumentCounts(&n)
		}
		n.Method = int32(m)
		vm.Install(&n)
	}
}

// TestCallLoopFastForwardMatchesStepping runs programs with loops that
// call straight-line leaves once with fastForwardCalls and once stepping
// every statement (VM.stepAll), both stopped at the same random horizons, and
// requires the same truth to the line, the same call counts, threads,
// statements and end. Every variant runs with a bytecode counter armed on
// every thread too (variant 3's instrumentation counts with OpCounts, the
// others' Work), re-armed at each hook, which must fire at the same
// instants and places.
func TestCallLoopFastForwardMatchesStepping(t *testing.T) {
	progs := map[string]*program.Program{
		"callloop": parse(t, callLoopSrc),
		"sqsum":    builtin(t, "sqsum"),
		"deepcall": builtin(t, "deepcall"),
		"leaves":   parse(t, leafSrc),
	}
	for seed := uint64(0); seed < 20; seed++ {
		progs[fmt.Sprintf("gen%d", seed)] = genProgram(seed, 30, seed%2 == 0)
	}
	for name, p := range progs {
		for variant := 0; variant < 5; variant++ {
			for _, gran := range []int64{0, 997, 10_000} {
				run := func(step bool) (*VM, *counterHook) {
					vm := newVM(t, p, func(c *Config) { c.Duration = 5 * Millisecond })
					codeVariants(vm, variant)
					vm.stepAll = step
					if name == "leaves" {
						vm.SetAllocHandler(tlabs{}, 500)
					}
					h := &counterHook{gran: gran}
					if gran > 0 {
						var err error
						h.id, err = vm.AddHookHandler(h)
						require.NoError(t, err)
						vm.AddThreadObserver(h)
					}
					r := rand.New(rand.NewPCG(uint64(variant), 7))
					for at := Time(0); vm.RunUntil(at); at += Time(1 + r.IntN(20000)) {
					}
					return vm, h
				}
				ff, fh := run(false)
				st, sh := run(true)
				what := fmt.Sprintf("%s/variant %d/granularity %d", name, variant, gran)
				require.Equal(t, sh.log, fh.log, what)
				if gran > 0 && !strings.HasPrefix(name, "gen") { // a generated program may end first
					require.NotEmpty(t, fh.log, what)
				}
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
}
