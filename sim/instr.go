package sim

import "math"

// Per-opcode views of Instr's operand slots. A, B, C, Cycles and
// Bytecodes mean different things per Op (see the Op list); these
// accessors name them. Each is valid only for the opcodes its comment
// names and reads the raw field without checking Op: they compile to a
// field load, so the executor's hot loop uses them too.

// Callee is an OpCall's callee method.
func (in *Instr) Callee() int32 { return in.A }

// CallEdge is an OpCall's static call edge (an index into Image.Edges and
// Truth.EdgeCount).
func (in *Instr) CallEdge() int32 { return in.B }

// vtable is an OpVirtualCall's index into Image.vtables.
func (in *Instr) vtable() int32 { return in.A }

// ReceiverEdge is the static call edge of an OpVirtualCall's receiver r
// (the r-th of Image.Receivers): the site's edges are consecutive.
func (in *Instr) ReceiverEdge(r int32) int32 { return in.B + r }

// ReceiverCount is how many receivers an OpVirtualCall can dispatch to.
func (in *Instr) ReceiverCount() int32 { return in.C }

// LoopSlot is the loop-counter slot (in the frame's loop counters) of an
// OpLoopEnter or OpLoopBack.
func (in *Instr) LoopSlot() int32 { return in.A }

// tripsDist is an OpLoopEnter's index into Image.dists: its trip count
// (Image.LoopTrips).
func (in *Instr) tripsDist() int32 { return in.B }

// LoopExit is the pc after an OpLoopEnter's loop, where it goes on when the
// loop runs no iteration or ends.
func (in *Instr) LoopExit() int32 { return in.C }

// LoopBackPC is the pc of an OpLoopEnter's OpLoopBack: the instruction
// before LoopExit.
func (in *Instr) LoopBackPC() int32 { return in.C - 1 }

// LoopBackTarget is the pc an OpLoopBack jumps to: the first instruction
// of the loop's body.
func (in *Instr) LoopBackTarget() int32 { return in.B }

// LoopEnterPC is the pc of an OpLoopBack's OpLoopEnter: the instruction
// before LoopBackTarget.
func (in *Instr) LoopEnterPC() int32 { return in.B - 1 }

// StripLength is N > 0 for an OpLoopBack strip-mined with a poll every N
// iterations and at the loop's exit (see stripPoll), 0 for none.
func (in *Instr) StripLength() int32 { return in.C }

// SetStripLength makes an OpLoopBack strip-mined every n iterations
// (0: not strip-mined).
func (in *Instr) SetStripLength(n int32) { in.C = n }

// BranchElse is the pc an OpBranch goes to when it is not taken: its else
// list, or the end of the branch when it has none.
func (in *Instr) BranchElse() int32 { return in.A }

// BranchThreshold is an OpBranch's taken probability scaled to the range
// of a 63-bit draw: the branch is taken when a draw is below it.
func (in *Instr) BranchThreshold() int64 { return in.Cycles }

// BranchAlways reports whether an OpBranch is taken whatever the draw
// (probability 1, which no 63-bit threshold can express).
func (in *Instr) BranchAlways() bool { return in.Bytecodes == 1 }

// JumpTarget is the pc an OpJump goes to.
func (in *Instr) JumpTarget() int32 { return in.A }

// AllocBytes is the size of an OpAlloc's allocation.
func (in *Instr) AllocBytes() int64 { return in.Cycles }

// blockDist is an OpBlock's index into Image.dists: its duration.
func (in *Instr) blockDist() int32 { return in.A }

// Lock is the monitor an OpMonitorEnter or OpMonitorExit enters or exits
// (an index into Image.Locks).
func (in *Instr) Lock() int32 { return in.A }

// spawn is an OpSpawn's index into Image.spawns.
func (in *Instr) spawn() int32 { return in.A }

// ThrowDepth is how many frames an OpThrow unwinds (0: caught in its own
// method).
func (in *Instr) ThrowDepth() int32 { return in.A }

// ThrowEnd is the pc a depth-0 OpThrow resumes at: the end of the
// statement list enclosing it.
func (in *Instr) ThrowEnd() int32 { return in.B }

// CountCodeSize is the code size in bytes of an OpCount's inserted
// instrumentation, which the inliner counts (jit.Instrumentation's
// CountBytes, plus CheckBytes with FlagCheck).
func (in *Instr) CountCodeSize() int32 { return in.C }

// Target returns the pc-valued operand of a control-flow instruction:
// BranchElse, JumpTarget, LoopExit, LoopBackTarget, or a depth-0 throw's
// ThrowEnd. ok is false for the other instructions, which go on at pc+1.
// Rewriters that move instructions fix this operand (SetTarget).
func (in *Instr) Target() (pc int32, ok bool) {
	switch in.Op {
	case OpBranch, OpJump:
		return in.A, true
	case OpLoopEnter:
		return in.C, true
	case OpLoopBack:
		return in.B, true
	case OpThrow:
		if in.A == 0 {
			return in.B, true
		}
	}
	return 0, false
}

// BranchConds is 1 + the index of an OpBranch's thresholds by caller and
// by depth (program.Branch.ByCaller, ByDepth) in its Image, 0 for a
// branch without them.
func (in *Instr) BranchConds() int32 { return in.B }

// SetTarget sets the operand Target returns; it does nothing for an
// instruction without one.
func (in *Instr) SetTarget(pc int32) {
	switch in.Op {
	case OpBranch, OpJump:
		in.A = pc
	case OpLoopEnter:
		in.C = pc
	case OpLoopBack:
		in.B = pc
	case OpThrow:
		if in.A == 0 {
			in.B = pc
		}
	}
}

// NewBranch returns an OpBranch at line taken with probability p (≥ 1:
// always) that goes to elsePC otherwise.
func NewBranch(line int32, p float64, elsePC int32) Instr {
	in := Instr{Op: OpBranch, Line: line, A: elsePC}
	if p >= 1 {
		in.Bytecodes = 1 // BranchAlways
	} else {
		in.Cycles = int64(p * math.MaxInt64) // compared with a 63-bit draw
	}
	return in
}

// NewCount returns an instrumentation OpCount at line that counts
// bytecodes down and costs cycles; its inserted code is codeSize bytes,
// and check adds the granularity check (FlagCheck).
func NewCount(line int32, bytecodes, cycles int64, codeSize int32, check bool) Instr {
	in := Instr{Op: OpCount, Line: line, Bytecodes: bytecodes, Cycles: cycles, C: codeSize}
	if check {
		in.Flags = FlagCheck
	}
	return in
}
