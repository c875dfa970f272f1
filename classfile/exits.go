package classfile

import "sort"

// LoopPaths splits a loop's basic blocks (Body.Paths) by the trips that
// run them. A trip runs from the loop's head to a back branch, going
// round again, or out of the loop; the code on only one of the two ways
// and the code every trip runs tell how often each is taken, which is how
// the samples of such code count a loop's trips (importer: fitRegions).
// Blocks of a loop nested in this one are in none of the lists: they may
// run many times a trip.
type LoopPaths struct {
	// Exit are the blocks from which no path inside the loop reaches its
	// head: they run only on the trip that leaves (a return, a throw, or a
	// break's goto out of the loop, and the code before it).
	Exit []Block
	// Latch are the blocks that every trip going round again runs once
	// and no other trip runs: from them every path reaches the head
	// without leaving the loop, and no way from the head to a back branch
	// avoids them (a for loop's update, the back branch and the code
	// before it where the body's branches have joined). Code that only
	// some trips going round run is in no list.
	Latch []Block
	// Round are the blocks, not latch blocks, that every trip going
	// round again runs once, the head's first: no way from the head to a
	// back branch avoids them. A trip that leaves may run them too (a
	// loop's test, the code before a return in its body) or not.
	Round []Block
	// Closed reports that every way out of the loop passes an exit block:
	// no other block of the loop leaves it (a head's exit test, a
	// conditional break, a switch case out), so the last trip is a whole
	// one. A loop tested at its head is not closed: its last trip runs the
	// test alone. A loop holding jsr or ret is neither closed nor split (a
	// subroutine's return has no target in the code).
	Closed bool
}

// Paths splits loop l's blocks by the trips that run them (LoopPaths).
// Exception edges are left out: a handler inside the loop is a block
// like the others, which control reaches only by a throw.
func (b *Body) Paths(l Loop) LoopPaths {
	var in []int // indices into b.Blocks of the loop's blocks
	index := map[int]int{}
	for i, bl := range b.Blocks {
		if l.Head <= bl.Start && bl.Start < l.End {
			index[bl.Start] = len(in)
			in = append(in, i)
		}
	}
	n := len(in)
	if n == 0 || b.Blocks[in[0]].Start != l.Head {
		return LoopPaths{}
	}
	succ := make([][]int, n) // successors inside the loop, the head excluded
	toHead := make([]bool, n)
	leaves := make([]bool, n)
	for k, i := range in {
		targets, end := b.successors(b.Blocks[i])
		switch end {
		case endSubroutine:
			return LoopPaths{}
		case endReturn, endThrow:
			leaves[k] = true
		}
		for _, t := range targets {
			switch j, ok := index[t]; {
			case t == l.Head:
				toHead[k] = true
			case !ok:
				leaves[k] = true
			default:
				succ[k] = append(succ[k], j)
			}
		}
	}
	// reach[k]: some path from block k reaches a block that mark says
	// without passing the head: a fixed point over the loop's blocks.
	reach := func(mark []bool) []bool {
		r := append([]bool(nil), mark...)
		for changed := true; changed; {
			changed = false
			for k := range n {
				if r[k] {
					continue
				}
				for _, j := range succ[k] {
					if r[j] {
						r[k], changed = true, true
						break
					}
				}
			}
		}
		return r
	}
	// round reports whether a trip from the head can go round again
	// without passing block skip.
	round := func(skip int) bool {
		seen := make([]bool, n)
		stack := []int{0}
		seen[0] = true
		for len(stack) > 0 {
			k := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if toHead[k] {
				return true
			}
			for _, j := range succ[k] {
				if j != skip && !seen[j] {
					seen[j] = true
					stack = append(stack, j)
				}
			}
		}
		return false
	}
	nested := func(pc int) bool {
		for _, o := range b.Loops {
			if o != l && l.Head <= o.Head && o.End <= l.End && o.Head <= pc && pc < o.End {
				return true
			}
		}
		return false
	}
	head, out := reach(toHead), reach(leaves)
	p := LoopPaths{Closed: true}
	for k, i := range in {
		bl := b.Blocks[i]
		if (head[k] || k == 0) && leaves[k] {
			p.Closed = false // it leaves, and may go round again
		}
		switch {
		case nested(bl.Start):
		case k == 0:
			p.Round = append(p.Round, bl)
		case !head[k] && out[k]:
			p.Exit = append(p.Exit, bl)
		case !round(k) && !out[k]:
			p.Latch = append(p.Latch, bl)
		case head[k] && !out[k]:
		case !round(k):
			p.Round = append(p.Round, bl)
		}
	}
	p.Closed = p.Closed && len(p.Exit) > 0
	return p
}

// blockEnd is how a basic block's last instruction leaves it besides
// its targets.
type blockEnd uint8

const (
	endNext       blockEnd = iota // to its targets only
	endReturn                     // a return instruction
	endThrow                      // athrow
	endSubroutine                 // jsr or ret: targets the code does not say
)

// successors returns the blocks' starts control goes to from block bl
// (branch targets, the next block after a conditional branch or a block
// cut by a leader) and how else it leaves (exception edges left out).
func (b *Body) successors(bl Block) ([]int, blockEnd) {
	last := b.lastInstr(bl)
	switch op := last; {
	case op == nil:
		return nil, endNext
	case op.Op == OpJsr || op.Op == OpJsrW || op.Op == OpRet:
		return nil, endSubroutine
	case op.Op >= OpIreturn && op.Op <= OpReturn:
		return nil, endReturn
	case op.Op == OpAthrow:
		return nil, endThrow
	case op.Op == OpGoto || op.Op == OpGotoW || op.Op == OpTableswitch || op.Op == OpLookupswitch:
		return op.Targets, endNext
	case op.EndsBlock(): // the conditional branches
		return append([]int{op.BCI + op.Length}, op.Targets...), endNext
	default: // a block cut by the next one's leader
		return []int{bl.End}, endNext
	}
}

// lastInstr returns the last instruction of block bl, or nil.
func (b *Body) lastInstr(bl Block) *Instr {
	i := sort.Search(len(b.Instrs), func(i int) bool { return b.Instrs[i].BCI >= bl.End }) - 1
	if i < 0 || b.Instrs[i].BCI < bl.Start {
		return nil
	}
	return &b.Instrs[i]
}

// OnEveryPath reports whether every path from the method's entry to a
// return instruction passes the block that holds bci: a call there is
// made on every call of the method that returns (exception edges and
// throws are left out). It reports false for a bci in no block and for a
// method with jsr or ret.
func (b *Body) OnEveryPath(bci int) bool {
	skip := -1
	for i, bl := range b.Blocks {
		if bl.Start <= bci && bci < bl.End {
			skip = i
		}
	}
	if skip < 0 || len(b.Blocks) == 0 {
		return false
	}
	if skip == 0 {
		return true
	}
	index := make(map[int]int, len(b.Blocks))
	for i, bl := range b.Blocks {
		index[bl.Start] = i
	}
	seen := make([]bool, len(b.Blocks))
	stack := []int{0}
	seen[0] = true
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		targets, end := b.successors(b.Blocks[k])
		if end == endSubroutine || end == endReturn {
			return false // a return reached without passing skip
		}
		for _, t := range targets {
			if j, ok := index[t]; ok && j != skip && !seen[j] {
				seen[j] = true
				stack = append(stack, j)
			}
		}
	}
	return true
}
