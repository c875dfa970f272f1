package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The accessors read what the flattener wrote: every control-flow operand
// lands where its instruction goes next.
func TestInstrAccessorsOfFlattenedCode(t *testing.T) {
	src := `
name: shapes
methods:
  - class: S
    name: main
    body:
      - loop:
          trips: {constant: 3}
          body:
            - branch:
                probability: 0.25
                then: [{work: {cycles: 1, bytecodes: 1}}]
                else: [{throw: {depth: 0}}, {work: {cycles: 1, bytecodes: 1}}]
            - branch:
                probability: 1
                then: [{alloc: {bytes: 64}}]
      - call: {method: S.f}
  - {class: S, name: f, body: [{work: {cycles: 1, bytecodes: 1}}]}
threads: [{name: main, entry: S.main}]
`
	img, err := NewImage(parse(t, src), DefaultCostModel())
	require.NoError(t, err)
	code := img.Base[0].Instrs
	ops := make([]Op, len(code))
	for i := range code {
		ops[i] = code[i].Op
	}
	require.Equal(t, []Op{OpLoopEnter, OpBranch, OpWork, OpJump, OpThrow, OpWork, OpBranch, OpAlloc, OpJump,
		OpLoopBack, OpCall, OpReturn}, ops)

	enter, back := &code[0], &code[9]
	assert.Equal(t, int32(10), enter.LoopExit())
	assert.Equal(t, int32(9), enter.LoopBackPC())
	assert.Equal(t, int32(1), back.LoopBackTarget())
	assert.Equal(t, int32(0), back.LoopEnterPC())
	assert.Equal(t, enter.LoopSlot(), back.LoopSlot())
	assert.Zero(t, back.StripLength())
	assert.Equal(t, int64(3), img.LoopTrips(enter).A)

	br := &code[1]
	assert.False(t, br.BranchAlways())
	assert.Equal(t, int64(0.25*float64(1<<63)), br.BranchThreshold())
	assert.Equal(t, int32(4), br.BranchElse(), "the else list starts after the then list's jump")
	assert.Equal(t, int32(6), code[3].JumpTarget(), "the then list's jump skips the else list")
	assert.Equal(t, int32(0), code[4].ThrowDepth())
	assert.Equal(t, int32(6), code[4].ThrowEnd(), "a depth-0 throw skips to the end of its list")
	assert.True(t, code[6].BranchAlways())
	assert.Equal(t, int64(64), code[7].AllocBytes())

	call := &code[10]
	assert.Equal(t, int32(1), call.Callee())
	assert.Equal(t, CallEdge{Caller: 0, Callee: 1, Line: call.Line}, img.Edges[call.CallEdge()])
}

// Target and SetTarget reach the one pc-valued operand of each
// control-flow instruction and leave every other instruction alone.
func TestInstrTarget(t *testing.T) {
	with := []Instr{{Op: OpBranch, A: 5}, {Op: OpJump, A: 5}, {Op: OpLoopEnter, C: 5}, {Op: OpLoopBack, B: 5}, {Op: OpThrow, B: 5}}
	for _, in := range with {
		pc, ok := in.Target()
		assert.True(t, ok, in.Op)
		assert.Equal(t, int32(5), pc, in.Op)
		in.SetTarget(9)
		pc, _ = in.Target()
		assert.Equal(t, int32(9), pc, in.Op)
	}
	without := []Instr{{Op: OpWork, A: 1, B: 2, C: 3}, {Op: OpCall, A: 1, B: 2, C: 3}, {Op: OpThrow, A: 1, B: 2}, {Op: OpReturn}}
	for _, in := range without {
		_, ok := in.Target()
		assert.False(t, ok, in.Op)
		before := in
		in.SetTarget(9)
		assert.Equal(t, before, in, in.Op)
	}
}

func TestInstrConstructors(t *testing.T) {
	always := NewBranch(3, 1, 7)
	assert.True(t, always.BranchAlways())
	assert.Equal(t, int32(7), always.BranchElse())
	assert.Equal(t, int32(3), always.Line)
	never := NewBranch(3, 0, 7)
	assert.False(t, never.BranchAlways())
	assert.Zero(t, never.BranchThreshold())

	c := NewCount(2, 10, 4, 6, true)
	assert.Equal(t, Instr{Op: OpCount, Flags: FlagCheck, Line: 2, Bytecodes: 10, Cycles: 4, C: 6}, c)
	assert.Equal(t, int32(6), c.CountCodeSize())
	assert.Zero(t, NewCount(2, 10, 4, 6, false).Flags)
}
