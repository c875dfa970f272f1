package classfile

import (
	"encoding/binary"
	"fmt"
	"sort"
)

// Opcodes the analysis needs by name (JVMS §6.5).
const (
	OpIfeq            = 0x99
	OpIfAcmpne        = 0xa6
	OpGoto            = 0xa7
	OpJsr             = 0xa8
	OpRet             = 0xa9
	OpTableswitch     = 0xaa
	OpLookupswitch    = 0xab
	OpIreturn         = 0xac
	OpReturn          = 0xb1
	OpInvokevirtual   = 0xb6
	OpInvokespecial   = 0xb7
	OpInvokestatic    = 0xb8
	OpInvokeinterface = 0xb9
	OpInvokedynamic   = 0xba
	OpAthrow          = 0xbf
	OpWide            = 0xc4
	OpIfnull          = 0xc6
	OpIfnonnull       = 0xc7
	OpGotoW           = 0xc8
	OpJsrW            = 0xc9
)

// opLength is each opcode's length in bytes, operands included (JVMS
// §6.5); 0 marks the variable-length ones (tableswitch, lookupswitch,
// wide) and -1 opcodes a class file may not contain (JVMS §6.2: 0xca
// breakpoint and 0xfe, 0xff are reserved; 0xcb–0xfd are unassigned).
var opLength = func() [256]int8 {
	var t [256]int8
	for i := range t {
		t[i] = -1
	}
	set := func(lo, hi int, n int8) {
		for i := lo; i <= hi; i++ {
			t[i] = n
		}
	}
	set(0x00, 0x0f, 1) // nop, aconst_null, iconst_*, lconst_*, fconst_*, dconst_*
	t[0x10] = 2        // bipush
	t[0x11] = 3        // sipush
	t[0x12] = 2        // ldc
	set(0x13, 0x14, 3) // ldc_w, ldc2_w
	set(0x15, 0x19, 2) // iload … aload
	set(0x1a, 0x35, 1) // *load_n, *aload
	set(0x36, 0x3a, 2) // istore … astore
	set(0x3b, 0x83, 1) // *store_n, *astore, stack ops, arithmetic
	t[0x84] = 3        // iinc
	set(0x85, 0x98, 1) // conversions, comparisons
	set(0x99, 0xa8, 3) // if*, goto, jsr
	t[0xa9] = 2        // ret
	t[0xaa] = 0        // tableswitch
	t[0xab] = 0        // lookupswitch
	set(0xac, 0xb1, 1) // returns
	set(0xb2, 0xb8, 3) // get/put field/static, invokevirtual/special/static
	set(0xb9, 0xba, 5) // invokeinterface, invokedynamic
	t[0xbb] = 3        // new
	t[0xbc] = 2        // newarray
	t[0xbd] = 3        // anewarray
	set(0xbe, 0xbf, 1) // arraylength, athrow
	set(0xc0, 0xc1, 3) // checkcast, instanceof
	set(0xc2, 0xc3, 1) // monitorenter, monitorexit
	t[0xc4] = 0        // wide
	t[0xc5] = 4        // multianewarray
	set(0xc6, 0xc7, 3) // ifnull, ifnonnull
	set(0xc8, 0xc9, 5) // goto_w, jsr_w
	return t
}()

// Instr is one decoded instruction.
type Instr struct {
	BCI    int   // offset of the opcode in the code array
	Op     uint8 // opcode (for wide: the widened opcode, with Wide set)
	Length int   // bytes, operands included
	Wide   bool
	// Targets are the branch targets (absolute offsets): one for if*,
	// goto, jsr; default first, then the cases, for the switches.
	Targets []int
	// Index is the constant pool index of invoke instructions.
	Index uint16
}

// IsInvoke reports invokevirtual, invokespecial, invokestatic,
// invokeinterface and invokedynamic.
func (in *Instr) IsInvoke() bool { return in.Op >= OpInvokevirtual && in.Op <= OpInvokedynamic }

// EndsBlock reports an instruction after which control does not simply
// fall through to the next one: branches, switches, returns, athrow, ret.
func (in *Instr) EndsBlock() bool {
	switch {
	case in.Op >= OpIfeq && in.Op <= OpLookupswitch, in.Op == OpIfnull, in.Op == OpIfnonnull,
		in.Op == OpGotoW, in.Op == OpJsrW, in.Op >= OpIreturn && in.Op <= OpReturn, in.Op == OpAthrow:
		return true
	}
	return false
}

// MaxSwitchCases bounds the entries of one tableswitch or lookupswitch: a
// switch cannot have more than its code's bytes allow (JVMS §4.7.3 caps
// code at 65535 bytes and each case takes at least 4), so this rejects no
// valid class file.
const MaxSwitchCases = MaxCodeLength / 4

// Decode splits code into instructions (JVMS §6.5) and checks that every
// branch target is the start of an instruction (JVMS §4.9.1).
func Decode(code []byte) ([]Instr, error) {
	if len(code) == 0 || len(code) > MaxCodeLength {
		return nil, fmt.Errorf("code of %d bytes: must be in [1, %d] (JVMS §4.7.3)", len(code), MaxCodeLength)
	}
	var out []Instr
	starts := make([]bool, len(code))
	for pc := 0; pc < len(code); {
		in, err := decodeAt(code, pc)
		if err != nil {
			return nil, err
		}
		starts[pc] = true
		out = append(out, in)
		pc += in.Length
	}
	for i := range out {
		for _, t := range out[i].Targets {
			if t < 0 || t >= len(code) || !starts[t] {
				return nil, fmt.Errorf("bci %d: branch target %d is not an instruction (JVMS §4.9.1)", out[i].BCI, t)
			}
		}
	}
	return out, nil
}

// decodeAt decodes the instruction at pc.
func decodeAt(code []byte, pc int) (Instr, error) {
	op := code[pc]
	in := Instr{BCI: pc, Op: op}
	s16 := func(at int) int { return int(int16(binary.BigEndian.Uint16(code[at:]))) }
	s32 := func(at int) int { return int(int32(binary.BigEndian.Uint32(code[at:]))) }
	need := func(n int) error {
		if pc+n > len(code) {
			return fmt.Errorf("bci %d: opcode %#02x needs %d bytes, code ends after %d", pc, op, n, len(code)-pc)
		}
		return nil
	}
	switch n := opLength[op]; {
	case n < 0:
		return in, fmt.Errorf("bci %d: opcode %#02x is not a valid instruction (JVMS §6.2)", pc, op)
	case n > 0:
		if err := need(int(n)); err != nil {
			return in, err
		}
		in.Length = int(n)
		switch {
		case op >= OpIfeq && op <= OpJsr, op == OpIfnull, op == OpIfnonnull:
			in.Targets = []int{pc + s16(pc+1)}
		case op == OpGotoW || op == OpJsrW:
			in.Targets = []int{pc + s32(pc+1)}
		case in.IsInvoke():
			in.Index = binary.BigEndian.Uint16(code[pc+1:])
		}
		return in, nil
	}
	switch op {
	case OpWide: // JVMS §6.5 wide: a widened load, store, ret or iinc
		if err := need(2); err != nil {
			return in, err
		}
		in.Op, in.Wide = code[pc+1], true
		switch {
		case in.Op >= 0x15 && in.Op <= 0x19, in.Op >= 0x36 && in.Op <= 0x3a, in.Op == OpRet:
			in.Length = 4
		case in.Op == 0x84: // iinc
			in.Length = 6
		default:
			return in, fmt.Errorf("bci %d: wide cannot modify opcode %#02x", pc, in.Op)
		}
		return in, need(in.Length)
	case OpTableswitch, OpLookupswitch:
		// 0–3 bytes of padding align the operands to a multiple of 4 from
		// the start of the code (JVMS §6.5 tableswitch, lookupswitch).
		at := pc + 1 + (3-pc%4)%4
		if err := need(at - pc + 12); err != nil {
			return in, err
		}
		in.Targets = []int{pc + s32(at)}
		var cases, size int
		if op == OpTableswitch {
			low, high := s32(at+4), s32(at+8)
			if high < low || int64(high)-int64(low)+1 > MaxSwitchCases {
				return in, fmt.Errorf("bci %d: tableswitch low %d high %d", pc, low, high)
			}
			cases, size = high-low+1, 4
			at += 12
		} else {
			n := s32(at + 4)
			if n < 0 || n > MaxSwitchCases {
				return in, fmt.Errorf("bci %d: lookupswitch npairs %d", pc, n)
			}
			cases, size = n, 8
			at += 8
		}
		end := at + cases*size
		if err := need(end - pc); err != nil {
			return in, err
		}
		for k := 0; k < cases; k++ {
			in.Targets = append(in.Targets, pc+s32(at+k*size+size-4))
		}
		in.Length = end - pc
		return in, nil
	}
	return in, fmt.Errorf("bci %d: opcode %#02x has no decoder", pc, op)
}

// CallSite is an invoke instruction and its symbolic target.
type CallSite struct {
	BCI int
	Op  uint8 // OpInvokevirtual … OpInvokedynamic
	// Class is the target's class (binary name, '/' separators); "" for
	// invokedynamic, whose Name and Descriptor are the call site's.
	Class, Name, Descriptor string
}

// Loop is a natural loop as the bytecode shows it: the code from Head to
// End (exclusive) with a backward branch to Head from its last instruction
// (at BackEdge). Loops with several back-edges to one head are one loop
// ending after the last of them.
type Loop struct {
	Head, End, BackEdge int
}

// Block is a basic block: [Start, End) with control entering only at
// Start and leaving only at the last instruction (JVMS §4.10's notion of
// control flow; exception handlers start blocks too).
type Block struct {
	Start, End int
}

// Body is the control-flow summary of one method's code.
type Body struct {
	Length int // code_length in bytes
	Instrs []Instr
	Blocks []Block
	// Loops are sorted by Head, outer loops before the loops they contain.
	Loops []Loop
	Calls []CallSite
}

// Analyze decodes a method's code and finds its basic blocks, loops and
// call sites. A call site whose constant cannot be resolved is an error.
func Analyze(pool Pool, code *Code) (*Body, error) {
	instrs, err := Decode(code.Bytecode)
	if err != nil {
		return nil, err
	}
	b := &Body{Length: len(code.Bytecode), Instrs: instrs}
	leader := map[int]bool{0: true}
	for _, h := range code.Exceptions {
		leader[int(h.HandlerPC)] = true
	}
	loops := map[int]int{} // head → end of the last back-edge
	backEdge := map[int]int{}
	for i := range instrs {
		in := &instrs[i]
		for _, t := range in.Targets {
			leader[t] = true
			if t <= in.BCI && in.Op != OpJsr && in.Op != OpJsrW {
				if end := in.BCI + in.Length; end > loops[t] {
					loops[t], backEdge[t] = end, in.BCI
				}
			}
		}
		if in.EndsBlock() && in.BCI+in.Length < b.Length {
			leader[in.BCI+in.Length] = true
		}
		if in.IsInvoke() {
			class, name, desc, err := pool.MethodRef(in.Index)
			if err != nil {
				return nil, fmt.Errorf("bci %d: %w", in.BCI, err)
			}
			b.Calls = append(b.Calls, CallSite{BCI: in.BCI, Op: in.Op, Class: class, Name: name, Descriptor: desc})
		}
	}
	starts := make([]int, 0, len(leader))
	for pc := range leader {
		starts = append(starts, pc)
	}
	sort.Ints(starts)
	for i, s := range starts {
		end := b.Length
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		b.Blocks = append(b.Blocks, Block{Start: s, End: end})
	}
	for head, end := range loops {
		b.Loops = append(b.Loops, Loop{Head: head, End: end, BackEdge: backEdge[head]})
	}
	b.Loops = nestLoops(b.Loops)
	return b, nil
}

// nestLoops makes the loops a laminar family — any two either nested or
// disjoint — by extending a loop that another one partly overlaps (javac
// never emits those; other compilers and obfuscators may) to that loop's
// end, which nests it, and sorts them outer first. One sweep over the
// loops sorted by head, with a stack of the loops still open.
func nestLoops(ls []Loop) []Loop {
	sortLoops(ls)
	var open []int // indices into ls, outermost first
	for i := range ls {
		c := ls[i]
		for len(open) > 0 && ls[open[len(open)-1]].End <= c.Head {
			open = open[:len(open)-1]
		}
		// The open loops' ends never increase from the bottom of the
		// stack to its top: extend from the top down while they end
		// before c.
		for k := len(open) - 1; k >= 0 && ls[open[k]].End < c.End; k-- {
			ls[open[k]].End, ls[open[k]].BackEdge = c.End, c.BackEdge
		}
		open = append(open, i)
	}
	sortLoops(ls)
	return ls
}

// sortLoops orders loops by head, then longest first (outer first).
func sortLoops(ls []Loop) {
	sort.Slice(ls, func(i, j int) bool {
		if ls[i].Head != ls[j].Head {
			return ls[i].Head < ls[j].Head
		}
		return ls[i].End > ls[j].End
	})
}

// Innermost returns the index in b.Loops of the innermost loop that
// contains bci, or -1.
func (b *Body) Innermost(bci int) int {
	best := -1
	for i, l := range b.Loops {
		if l.Head <= bci && bci < l.End && (best < 0 || l.End-l.Head < b.Loops[best].End-b.Loops[best].Head) {
			best = i
		}
	}
	return best
}

// InstrAt returns the instruction starting at bci, or nil.
func (b *Body) InstrAt(bci int) *Instr {
	i := sort.Search(len(b.Instrs), func(i int) bool { return b.Instrs[i].BCI >= bci })
	if i < len(b.Instrs) && b.Instrs[i].BCI == bci {
		return &b.Instrs[i]
	}
	return nil
}
