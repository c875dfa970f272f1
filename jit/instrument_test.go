package jit

import (
	"fmt"
	"testing"

	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// instrumented builds src's image and rewrites it with in (the VM's default
// cost model), as a sampler's Instrument does before the VM exists.
func instrumented(t *testing.T, src string, in Instrumentation) *sim.Image {
	t.Helper()
	img, err := sim.NewImage(parse(t, src), sim.DefaultConfig().Cost)
	require.NoError(t, err)
	require.NoError(t, Instrument(img, in, sim.DefaultConfig().Cost))
	return img
}

// instrumentedVM is setup for an instrumented image: a VM with the JIT
// attached, compiling every method up front unless tweak says otherwise.
func instrumentedVM(t *testing.T, src string, in Instrumentation, tweak func(*Config)) (*sim.VM, *JIT) {
	t.Helper()
	cfg := sim.DefaultConfig()
	cfg.ContextSwitch = 0
	img := instrumented(t, src, in)
	vm, err := sim.New(img, cfg)
	require.NoError(t, err)
	jc := DefaultConfig()
	jc.Tiered = false
	if tweak != nil {
		tweak(&jc)
	}
	j, err := Attach(vm, jc)
	require.NoError(t, err)
	return vm, j
}

// block is what one inserted OpCount says about its basic block.
type block struct {
	Line      int32
	Bytecodes int64
	Check     bool
}

func (b block) String() string {
	return fmt.Sprintf("line %d: %d bytecodes, check %v", b.Line, b.Bytecodes, b.Check)
}

// blocks lists the OpCounts of c in code order.
func blocks(c *sim.Code) []block {
	var out []block
	for _, in := range c.Instrs {
		if in.Op == sim.OpCount {
			out = append(out, block{in.Line, in.Bytecodes, in.Flags&sim.FlagCheck != 0})
		}
	}
	return out
}

// ops lists c's opcodes in code order.
func ops(c *sim.Code) []sim.Op {
	var out []sim.Op
	for _, in := range c.Instrs {
		out = append(out, in.Op)
	}
	return out
}

// blocky has every kind of block boundary Komorium knows, and a call that
// is not one. Its base code (pc: statement, line):
//
//	0 work 5 (1)   1 call (2)   2 work 6 (3)   3 branch (4)   4 work 7 (5)
//	5 jump (4)     6 work 8 (6) 7 loop (7)     8 work 9 (8)   9 throw (9)
//	10 work 11 (10)             11 back-edge (7)              12 work 12 (11)
//	13 return (12)
const blocky = `
name: blocky
methods:
  - class: K
    name: main
    body:
      - work: {cycles: 10, bytecodes: 5}
      - call: {method: K.leaf}
      - work: {cycles: 10, bytecodes: 6}
      - branch: {probability: 0.5, then: [{work: {cycles: 10, bytecodes: 7}}], else: [{work: {cycles: 10, bytecodes: 8}}]}
      - loop:
          trips: 3
          body:
            - work: {cycles: 10, bytecodes: 9}
            - throw: {depth: 0}
            - work: {cycles: 10, bytecodes: 11}
      - work: {cycles: 10, bytecodes: 12}
  - class: K
    name: leaf
    body: [{work: {cycles: 10, bytecodes: 3}}]
threads: [{name: main, entry: K.main}]
`

// TestInstrumentCountsEachBasicBlock: control flow ends a block, a call
// does not; each block starts with one OpCount for all its bytecodes; the
// check sits in blocks with a call, a return or throw, and at loop heads;
// every jump lands on the count of its target's block.
func TestInstrumentCountsEachBasicBlock(t *testing.T) {
	base, err := sim.NewImage(parse(t, blocky), sim.DefaultConfig().Cost)
	require.NoError(t, err)
	orig := base.Base[0]
	img := instrumented(t, blocky, Instrumentation{})
	c := img.Base[0]
	assert.True(t, c.Instrumented)
	assert.Equal(t, []block{
		{1, 5 + 6, true}, // work, call, work, branch: the call does not end it; the check is for the call
		{5, 7, false},    // then: work, jump
		{6, 8, false},    // else
		{7, 0, false},    // the loop entry, where the branch's jump lands
		{8, 9, true},     // loop head: work, throw (checked twice over)
		{10, 11, false},  // after the throw: never reached, still its own block
		{7, 0, false},    // the back-edge, where the throw lands
		{11, 12, true},   // after the loop, with the return
	}, blocks(c))
	C, W := sim.OpCount, sim.OpWork
	assert.Equal(t, []sim.Op{C, W, sim.OpCall, W, sim.OpBranch, C, W, sim.OpJump, C, W, C, sim.OpLoopEnter,
		C, W, sim.OpThrow, C, W, C, sim.OpLoopBack, C, W, sim.OpReturn}, ops(c))

	// The original instructions keep their order and fields, jump targets
	// aside, and every jump goes to the count of the block it entered.
	var kept []sim.Instr
	newPC := map[int32]int32{} // old pc → new pc of the same instruction
	for pc, in := range c.Instrs {
		if in.Op != sim.OpCount {
			newPC[int32(len(kept))] = int32(pc)
			kept = append(kept, in)
		}
	}
	require.Len(t, kept, len(orig.Instrs))
	for pc, in := range orig.Instrs {
		got := kept[pc]
		if old, ok := in.Target(); ok {
			want := newPC[old] - 1
			require.Equal(t, sim.OpCount, c.Instrs[want].Op, "pc %d (%v): a count before its target", pc, in.Op)
			tgt, _ := got.Target()
			assert.Equal(t, want, tgt, "pc %d (%v) jumps to the count before old pc %d", pc, in.Op, old)
			in.SetTarget(0)
			got.SetTarget(0)
		}
		assert.Equal(t, in, got, "pc %d", pc)
	}
	// The leaf is one block: its work and return, checked.
	assert.Equal(t, []block{{1, 3, true}}, blocks(img.Base[1]))
}

// pathy is five blocks of 20 bytecodes in a row, cut by two branches whose
// then-lists run with probability 1: blocks at lines 1, 3, 4, 6 and 7 (the
// last with the return).
const pathy = `
name: pathy
methods:
  - class: P
    name: main
    body:
      - work: {cycles: 10, bytecodes: 20}
      - branch: {probability: 1, then: [{work: {cycles: 10, bytecodes: 20}}]}
      - work: {cycles: 10, bytecodes: 20}
      - branch: {probability: 1, then: [{work: {cycles: 10, bytecodes: 20}}]}
      - work: {cycles: 10, bytecodes: 20}
threads: [{name: main, entry: P.main}]
`

// TestMaxPathChecksWhereThePathExceedsIt: a block gets a check when the
// bytecodes of the unchecked blocks since the last checked one, its own
// included, exceed MaxPath — not when they reach it. So every run of
// blocks without a check holds at most MaxPath bytecodes, and a counter
// that runs out in one is checked within MaxPath bytecodes (Binder §5.2).
func TestMaxPathChecksWhereThePathExceedsIt(t *testing.T) {
	checked := func(maxPath int64) []int32 {
		var lines []int32
		for _, b := range blocks(instrumented(t, pathy, Instrumentation{MaxPath: maxPath}).Base[0]) {
			require.Equal(t, int64(20), b.Bytecodes, "line %d", b.Line)
			if b.Check {
				lines = append(lines, b.Line)
			}
		}
		return lines
	}
	// Running totals from the last check: 20, 40, 60, 80, 100. (A MaxPath
	// below 20 would split the statements.)
	assert.Equal(t, []int32{7}, checked(0), "MaxPath 0: only the return's check")
	assert.Equal(t, []int32{7}, checked(100), "100 bytecodes reach MaxPath 100 without exceeding it")
	assert.Equal(t, []int32{6, 7}, checked(79), "80 > 79 at the fourth block")
	assert.Equal(t, []int32{7}, checked(80), "80 ≤ 80: the fourth block needs no check")
	assert.Equal(t, []int32{4, 7}, checked(59), "60 > 59 at the third block; 20 + 20 after it")
	assert.Equal(t, []int32{6, 7}, checked(60), "60 ≤ 60; 80 > 60 at the fourth")
	assert.Equal(t, []int32{3, 6, 7}, checked(39), "the count starts again after each check")
	assert.Equal(t, []int32{4, 7}, checked(40), "40 ≤ 40 at the second block")
}

// TestMaxPathSplitsLongWork: a Work statement of more than MaxPath
// bytecodes becomes ⌈bytecodes/MaxPath⌉ pieces of near-equal size, each
// its own block, with its cycles shared in proportion and their total
// kept.
func TestMaxPathSplitsLongWork(t *testing.T) {
	src := func(cycles, bytecodes int64) string {
		return fmt.Sprintf(`
name: long
methods:
  - {class: P, name: main, body: [{work: {cycles: %d, bytecodes: %d}}]}
threads: [{name: main, entry: P.main}]
`, cycles, bytecodes)
	}
	split := func(maxPath, cycles, bytecodes int64) (bc, cyc []int64, bl []block) {
		c := instrumented(t, src(cycles, bytecodes), Instrumentation{MaxPath: maxPath}).Base[0]
		for _, in := range c.Instrs {
			if in.Op == sim.OpWork {
				bc, cyc = append(bc, in.Bytecodes), append(cyc, in.Cycles)
				assert.Equal(t, int32(1), in.Line, "a piece keeps its statement's line")
			}
		}
		return bc, cyc, blocks(c)
	}
	pieces := func(maxPath, cycles int64) (bc, cyc []int64, bl []block) { return split(maxPath, cycles, 120) }
	bc, cyc, bl := pieces(50, 100)
	assert.Equal(t, []int64{40, 40, 40}, bc, "⌈120/50⌉ = 3 pieces")
	assert.Equal(t, []int64{33, 33, 34}, cyc, "100 cycles in proportion, total kept")
	assert.Equal(t, []block{{1, 40, false}, {1, 40, true}, {1, 40, true}}, bl,
		"each piece a block; 80 > 50 at the second; the third ends the method")

	bc, _, _ = pieces(119, 100)
	assert.Equal(t, []int64{60, 60}, bc, "just above MaxPath: two pieces")
	bc, _, bl = pieces(120, 100)
	assert.Equal(t, []int64{120}, bc, "MaxPath bytecodes: not split")
	assert.Equal(t, []block{{1, 120, true}}, bl)
	bc, _, _ = pieces(0, 100)
	assert.Equal(t, []int64{120}, bc, "MaxPath 0: nothing split")
	bc, _, _ = split(50, 100, 121)
	assert.Equal(t, []int64{40, 40, 41}, bc, "121 bytecodes: the total kept")

	// Too few cycles to share: every piece costs at least one, so the
	// total grows by at most the number of pieces.
	bc, cyc, _ = pieces(50, 2)
	assert.Equal(t, []int64{40, 40, 40}, bc)
	assert.Equal(t, []int64{1, 1, 1}, cyc)
}

// TestInstrumentationCosts: each count costs CountCycles, plus CheckCycles
// with a check and ArgCycles per call in its block; a method's first
// block also pays the reified-stack push, which the leaf optimisation
// leaves out for methods that call nothing.
func TestInstrumentationCosts(t *testing.T) {
	src := `
name: costs
methods:
  - class: Q
    name: main
    body:
      - work: {cycles: 10, bytecodes: 5}
      - call: {method: Q.leaf}
      - call: {method: Q.spawner}
      - branch: {probability: 0.5, then: [{work: {cycles: 10, bytecodes: 5}}]}
  - class: Q
    name: leaf
    body: [{work: {cycles: 10, bytecodes: 5}}]
  - class: Q
    name: spawner
    body: [{spawn: {name: w, entry: Q.leaf}}]
threads: [{name: main, entry: Q.main}]
`
	// Powers of ten, so that every sum shows which costs it holds.
	const count, check, push, arg = 1, 10, 100, 1000
	in := Instrumentation{CountCycles: count, CheckCycles: check, PushCycles: push, ArgCycles: arg}
	cycles := func(c *sim.Code) []int64 {
		var out []int64
		for _, x := range c.Instrs {
			if x.Op == sim.OpCount {
				out = append(out, x.Cycles)
			}
		}
		return out
	}
	for _, leafOpt := range []bool{false, true} {
		in.LeafOpt = leafOpt
		img := instrumented(t, src, in)
		// main: [work, call, call, branch] [then-work, jump] [return].
		assert.Equal(t, []int64{count + 2*arg + check + push, count, count + check}, cycles(img.Base[0]), "leaf_opt %v: main", leafOpt)
		// A spawn is a call: the spawner is no leaf.
		assert.Equal(t, []int64{count + arg + check + push}, cycles(img.Base[2]), "leaf_opt %v: spawner", leafOpt)
		leaf := int64(count + check)
		if !leafOpt {
			leaf += push
		}
		assert.Equal(t, []int64{leaf}, cycles(img.Base[1]), "leaf_opt %v: leaf", leafOpt)
	}
	// The executor charges a count's cycles through the cost model, like
	// any statement.
	img := instrumented(t, src, in)
	for _, x := range img.Base[0].Instrs {
		if x.Op == sim.OpCount {
			assert.Equal(t, sim.DefaultConfig().Cost.Nanos(x.Cycles), x.Cost)
		}
	}
}

// TestInstrumentedSizesSeenByInliner: each count adds CountBytes to its
// method's size, a checked one CheckBytes more, and the inliner judges the
// instrumented size: a callee at MaxInlineSize is inlined, one byte more
// is not.
func TestInstrumentedSizesSeenByInliner(t *testing.T) {
	// callee: one block (work 30, return) = 31 bytecodes uninstrumented,
	// checked for its return; MaxInlineSize is 35.
	src := `
name: sizes
methods:
  - {class: Z, name: main, body: [{call: {method: Z.callee}}, {branch: {probability: 0.5, then: [{work: {cycles: 10, bytecodes: 1}}]}}]}
  - {class: Z, name: callee, body: [{work: {cycles: 10, bytecodes: 30}}]}
threads: [{name: main, entry: Z.main}]
`
	require.Equal(t, int64(35), DefaultConfig().MaxInlineSize)
	for _, c := range []struct {
		countBytes, checkBytes int64
		size                   int64
		inlined                bool
	}{
		{0, 0, 31, true},
		{2, 2, 35, true},
		{2, 3, 36, false},
		{3, 2, 36, false},
	} {
		name := fmt.Sprintf("count_bytes %d, check_bytes %d", c.countBytes, c.checkBytes)
		vm, _ := instrumentedVM(t, src, Instrumentation{CountBytes: c.countBytes, CheckBytes: c.checkBytes}, nil)
		assert.Equal(t, c.size, MethodSize(vm.Image().Base[1]), name)
		main := vm.Code(method(t, vm, "Z.main"))
		assert.Equal(t, c.inlined, main.Inline != nil && len(main.Inline[1]) == 1, name)
		// main: [call, branch] checked, [then-work, jump] not, [return]
		// checked: 3 counts and 2 checks on call 3 + branch 3 + work 1 +
		// return 1 bytecodes.
		want := 8 + 3*c.countBytes + 2*c.checkBytes
		assert.Equal(t, want, MethodSize(vm.Image().Base[0]), name)
	}
}

// TestInstrumentedLoopKeepsItsPoll: a loop head always has a check, and a
// check may call the profiling agent, so no instrumented loop is counted:
// the back-edge keeps its poll where the same loop uninstrumented loses
// it. The checks are where compiled code has debug information (the call
// to the agent); counts without one have none.
func TestInstrumentedLoopKeepsItsPoll(t *testing.T) {
	src := `
name: loop
methods:
  - {class: L, name: main, body: [{loop: {trips: 1000, body: [{work: {cycles: 10, bytecodes: 4}}]}}, {work: {cycles: 10, bytecodes: 4}}]}
threads: [{name: main, entry: L.main}]
`
	plain, _ := setup(t, parse(t, src), nil)
	assert.Zero(t, loopBack(t, plain.Code(0)).Flags&sim.FlagPoll, "uninstrumented: a counted loop")
	for _, strip := range []int64{0, 1000} {
		vm, _ := instrumentedVM(t, src, Instrumentation{}, func(c *Config) { c.StripMiningIter = strip })
		c := vm.Code(0)
		back := loopBack(t, c)
		assert.NotZero(t, back.Flags&sim.FlagPoll, "strip_mining_iter %d: instrumented loop polls at its back-edge", strip)
		assert.Zero(t, back.StripLength(), "strip_mining_iter %d: not strip mined", strip)
		assert.Zero(t, c.Instrs[0].Flags&sim.FlagPureLoop, "a loop with a count is not fast-forwarded")
		require.NotNil(t, c.Debug)
		var checks, counts int
		for pc, in := range c.Instrs {
			if in.Op != sim.OpCount {
				continue
			}
			counts++
			if in.Flags&sim.FlagCheck != 0 {
				checks++
			}
			assert.Equal(t, in.Flags&sim.FlagCheck != 0, c.Debug[pc], "pc %d", pc)
		}
		// Blocks: [loop entry], [loop head: work, back-edge], [work, return].
		assert.Equal(t, 3, counts)
		assert.Equal(t, 2, checks)
	}
}

// counterReader owns a thread's bytecode counter and never fires.
type counterReader struct{}

func (counterReader) OnHook(sim.Agent, sim.ThreadID, sim.Hook) sim.Action { return sim.Continue }

// TestInstrumentedRunCounts: running instrumented code, every block entered
// counts its bytecodes once — jumps land on counts — and a block is counted
// whole when it starts, so the bytecodes after a call that an exception
// leaves are counted but never run (Binder §4), unless MaxPath split them
// into blocks of their own.
func TestInstrumentedRunCounts(t *testing.T) {
	src := `
name: run
methods:
  - class: R
    name: main
    body:
      - work: {cycles: 10, bytecodes: 5}
      - loop:
          trips: 10
          body:
            - branch: {probability: 1, then: [{work: {cycles: 10, bytecodes: 7}}], else: [{work: {cycles: 10, bytecodes: 1000}}]}
            - throw: {depth: 0}
            - work: {cycles: 10, bytecodes: 2000}
      - call: {method: R.mid}
      - work: {cycles: 10, bytecodes: 6}
  - class: R
    name: mid
    body: [{work: {cycles: 10, bytecodes: 3}}, {call: {method: R.thrower}}, {work: {cycles: 10, bytecodes: 40}}]
  - class: R
    name: thrower
    body: [{work: {cycles: 10, bytecodes: 2}}, {throw: {depth: 2}}]
threads: [{name: main, entry: R.main}]
`
	const start = int64(1) << 40 // far more than the run counts: the hook never fires
	// Run: 5, then 10 × 7 (the branch, the throw skipping the 2000), the
	// call, mid's 3, thrower's 2, back in main after the call: 6.
	const executed = 5 + 10*7 + 3 + 2 + 6
	for _, c := range []struct {
		maxPath, over int64
	}{
		{0, 40},  // mid's block, counted as it starts, holds the 40 after its call
		{40, 40}, // the 40 are not split
		{39, 0},  // split: the pieces after the call are blocks of their own
	} {
		vm, err := sim.New(instrumented(t, src, Instrumentation{MaxPath: c.maxPath}), sim.DefaultConfig())
		require.NoError(t, err)
		id, err := vm.AddHookHandler(counterReader{})
		require.NoError(t, err)
		vm.SetBytecodeCounter(id, 0, start)
		res := vm.Run()
		require.Empty(t, res.Incidents)
		assert.Equal(t, int64(executed)+c.over, start-vm.BytecodeCounter(0), "max_path %d", c.maxPath)
	}
}

// TestInstrumentRejects: negative settings and a second rewriting are
// errors naming the problem.
func TestInstrumentRejects(t *testing.T) {
	for name, in := range map[string]Instrumentation{
		"max_path":     {MaxPath: -1},
		"count_cycles": {CountCycles: -1},
		"check_cycles": {CheckCycles: -1},
		"push_cycles":  {PushCycles: -1},
		"arg_cycles":   {ArgCycles: -1},
		"count_bytes":  {CountBytes: -1},
		"check_bytes":  {CheckBytes: -1},
	} {
		assert.ErrorContains(t, in.Validate(), "instrumentation: "+name+": -1 must be", name)
		img, err := sim.NewImage(parse(t, blocky), sim.DefaultConfig().Cost)
		require.NoError(t, err)
		assert.Error(t, Instrument(img, in, sim.DefaultConfig().Cost), name)
		assert.False(t, img.Base[0].Instrumented, "%s: nothing rewritten", name)
	}
	assert.NoError(t, Instrumentation{}.Validate())
	img := instrumented(t, blocky, Instrumentation{MaxPath: 50})
	assert.EqualError(t, Instrument(img, Instrumentation{MaxPath: 50}, sim.DefaultConfig().Cost),
		"instrumentation: method K.main is instrumented already")
}
