package jit

import (
	"fmt"

	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/sim"
)

// Instrumentation configures Komorium's bytecode rewriting (Binder 2006
// §4–5): a per-thread counter decremented at the start of every basic
// block, and granularity checks where a sample could otherwise be
// attributed to the wrong method.
type Instrumentation struct {
	// MaxPath bounds the bytecodes executed between two granularity checks:
	// longer basic blocks are split and extra checks inserted (50 in the
	// paper; 0 disables both).
	MaxPath int64 `key:"max_path" check:">=0" unit:"bytecodes" doc:"MaxPath: bytecodes between granularity checks at most (0: no extra checks)" src:"Binder SPE'06 §5: MaxPath 50"`
	// LeafOpt moves the reified-stack push of leaf methods into the check
	// (§5.1): leaves pay for it only when they are sampled.
	LeafOpt bool `key:"leaf_opt" doc:"leaf methods push their reified frame only when sampled" src:"Binder §5.1"`
	// Cycles of the inserted code: the counter update per block, the
	// check, the reified-stack push per method entry, and passing the
	// three extra arguments per call.
	CountCycles int64 `key:"count_cycles" check:"0..1_000_000_000" unit:"cycles" doc:"inserted counter update per basic block (costed mode)" src:"our choice: ~1 cycle"`
	CheckCycles int64 `key:"check_cycles" check:"0..1_000_000_000" unit:"cycles" doc:"inserted granularity check (costed mode)" src:"our choice: ~1 cycle"`
	PushCycles  int64 `key:"push_cycles" check:"0..1_000_000_000" unit:"cycles" doc:"reified-stack push per method entry (costed mode)" src:"our choice: ~2 cycles"`
	ArgCycles   int64 `key:"arg_cycles" check:"0..1_000_000_000" unit:"cycles" doc:"passing the three extra arguments per call (costed mode)" src:"our choice: ~1 cycle"`
	// SizeBytes per inserted update and check, which the inliner sees
	// (instrumented methods are larger); each at most
	// program.MaxBlockBytecodes, so that their sum, an instruction's
	// int32 code size, is exact. The cycles are at most
	// sim.MaxCostCycles, as the cost model's own.
	CountBytes int64 `key:"count_bytes" check:"0..65_535" unit:"bytes" doc:"code size of an inserted counter update, seen by the inliner (costed mode)" src:"our choice"`
	CheckBytes int64 `key:"check_bytes" check:"0..65_535" unit:"bytes" doc:"code size of an inserted check (costed mode)" src:"our choice"`
}

// Validate names the first key outside its range (the check tags:
// MaxPath ≥ 0, the cycles at most sim.MaxCostCycles, the sizes at most
// program.MaxBlockBytecodes).
func (c Instrumentation) Validate() error {
	if err := param.Check(&c); err != nil {
		return fmt.Errorf("instrumentation: %w", err)
	}
	return nil
}

// Instrument rewrites every method's base code of img, before a VM is
// created from it. Basic blocks follow Komorium's definition: only control
// flow (branches, jumps, loop heads and back-edges, returns, throws) ends
// a block; calls do not. Each block starts with an OpCount that counts all
// its bytecodes down at once — so an exception thrown by a callee makes
// the bytecodes after the call counted but not executed — and checks the
// counter if the block contains a call, ends the method, starts a loop, or
// would otherwise leave a path of more than MaxPath unchecked bytecodes.
func Instrument(img *sim.Image, in Instrumentation, cost sim.CostModel) error {
	if err := in.Validate(); err != nil {
		return err
	}
	for m, c := range img.Base {
		if c.Instrumented {
			return fmt.Errorf("instrumentation: method %s is instrumented already", img.Names[m])
		}
		split := splitBlocks(c.Instrs, in.MaxPath)
		img.Base[m] = sim.Recost(instrument(split, in, c), cost, c.Tier)
	}
	return nil
}

// rewrite builds a new instruction list where old instruction i becomes
// emit(i) (one or more instructions, the first of which jump targets to i
// now reach), and fixes every jump target (sim.Instr.Target).
func rewrite(old []sim.Instr, emit func(i int) []sim.Instr) []sim.Instr {
	start := make([]int32, len(old)+1)
	var out []sim.Instr
	origin := []int{} // new index → old index of the instruction it came from (-1 inserted)
	for i := range old {
		start[i] = int32(len(out))
		for _, x := range emit(i) {
			out = append(out, x)
			origin = append(origin, i)
		}
	}
	start[len(old)] = int32(len(out))
	for k := range out {
		x := &out[k]
		if origin[k] < 0 || old[origin[k]].Op != x.Op {
			continue // an inserted instruction
		}
		if pc, ok := x.Target(); ok {
			x.SetTarget(start[pc])
		}
	}
	return out
}

// splitBlocks cuts Work statements of more than maxPath bytecodes into
// pieces of at most maxPath (cycles divided in proportion, totals kept), so
// that each piece can be its own basic block.
func splitBlocks(instrs []sim.Instr, maxPath int64) []sim.Instr {
	if maxPath <= 0 {
		return append([]sim.Instr(nil), instrs...)
	}
	return rewrite(instrs, func(i int) []sim.Instr {
		x := instrs[i]
		if x.Op != sim.OpWork || x.Bytecodes <= maxPath {
			return []sim.Instr{x}
		}
		n := (x.Bytecodes + maxPath - 1) / maxPath
		var pieces []sim.Instr
		var cyc, bc int64
		for k := int64(1); k <= n; k++ {
			p := x
			p.Bytecodes = x.Bytecodes*k/n - bc
			p.Cycles = x.Cycles*k/n - cyc
			if p.Cycles == 0 {
				p.Cycles = 1 // every piece costs something; the total grows by at most n
			}
			bc += p.Bytecodes
			cyc += p.Cycles
			p.Flags |= splitPiece
			pieces = append(pieces, p)
		}
		return pieces
	})
}

// splitPiece marks Work pieces produced by splitBlocks: each starts a block.
const splitPiece uint8 = 1 << 7

func instrument(instrs []sim.Instr, in Instrumentation, orig *sim.Code) *sim.Code {
	n := len(instrs)
	leader := make([]bool, n+1)
	leader[0] = true
	loopHead := make([]bool, n+1)
	mark := func(pc int32) {
		if pc >= 0 && int(pc) <= n {
			leader[pc] = true
		}
	}
	for i, x := range instrs {
		if pc, ok := x.Target(); ok {
			mark(pc)
		}
		switch x.Op {
		case sim.OpLoopEnter:
			mark(int32(i) + 1)
			loopHead[i+1] = true
		case sim.OpLoopBack, sim.OpBranch, sim.OpJump, sim.OpReturn, sim.OpThrow:
			mark(int32(i) + 1)
		case sim.OpWork:
			if x.Flags&splitPiece != 0 {
				mark(int32(i))
			}
		}
	}
	leaf := true
	for _, x := range instrs {
		switch x.Op {
		case sim.OpCall, sim.OpVirtualCall, sim.OpSpawn:
			leaf = false
		}
	}
	counts := make([]sim.Instr, n) // the OpCount before each leader
	var unchecked int64
	for s := 0; s < n; {
		e := s + 1
		for e < n && !leader[e] {
			e++
		}
		var bc, calls int64
		terminates := false
		for i := s; i < e; i++ {
			switch instrs[i].Op {
			case sim.OpWork:
				bc += instrs[i].Bytecodes
			case sim.OpCall, sim.OpVirtualCall, sim.OpNative, sim.OpBlock, sim.OpSpawn:
				calls++
			case sim.OpReturn, sim.OpThrow:
				terminates = true
			}
		}
		check := calls > 0 || terminates || loopHead[s]
		unchecked += bc
		if !check && in.MaxPath > 0 && unchecked > in.MaxPath {
			check = true
		}
		if check {
			unchecked = 0
		}
		cyc := in.CountCycles + calls*in.ArgCycles
		if check {
			cyc += in.CheckCycles
		}
		if s == 0 && !(in.LeafOpt && leaf) {
			cyc += in.PushCycles
		}
		size := int32(in.CountBytes)
		if check {
			size += int32(in.CheckBytes)
		}
		counts[s] = sim.NewCount(instrs[s].Line, bc, cyc, size, check)
		s = e
	}
	out := rewrite(instrs, func(i int) []sim.Instr {
		x := instrs[i]
		x.Flags &^= splitPiece
		if leader[i] {
			return []sim.Instr{counts[i], x}
		}
		return []sim.Instr{x}
	})
	code := &sim.Code{Method: orig.Method, Tier: orig.Tier, Instrs: out, LoopSlots: orig.LoopSlots, Instrumented: true}
	for i := range code.Instrs {
		if code.Instrs[i].Op != sim.OpLoopEnter {
			continue
		}
		pure := true
		for pc := int32(i) + 1; pc < code.Instrs[i].LoopBackPC(); pc++ {
			if code.Instrs[pc].Op != sim.OpWork {
				pure = false
			}
		}
		if pure {
			code.Instrs[i].Flags |= sim.FlagPureLoop
		} else {
			code.Instrs[i].Flags &^= sim.FlagPureLoop
		}
	}
	return code
}
