package classfile

// Opcodes a loop's exit test is made of.
const (
	opIload   = 0x15
	opIload0  = 0x1a
	opIload3  = 0x1d
	opIinc    = 0x84
	opIfeq    = 0x99
	opIfIcmpl = 0xa4 // if_icmple, the last int comparison
)

// Counted reports whether loop l of a method's code has the shape C2
// turns into a counted loop (PhaseIdealLoop::is_counted_loop,
// opto/loopnode.cpp): its back edge is a conditional branch on ints
// (if<cond> against 0 or if_icmp<cond>) whose operands load an int local
// that the loop steps by a constant (iinc) — `for (int i = 0; i < n;
// i++)`, `while (--k > 0)`. A loop whose back edge is a goto (a
// while (true) left by a break or a return) or whose test compares
// references (ifnull, ifnonnull, if_acmp<cond>: walking a list or a
// tree) or a value a call returned is not: C2 keeps its back-edge
// safepoint poll, where a counted loop's is removed or strip-mined.
// The limit's invariance, which C2 also checks, is not: a test on a
// stepped int local is taken as counted.
func (b *Body) Counted(code []byte, l Loop) bool {
	back := b.InstrAt(l.BackEdge)
	if back == nil || back.Op < opIfeq || back.Op > opIfIcmpl {
		return false
	}
	stepped := map[int]bool{}
	var before []*Instr // the instructions before the back edge, nearest last
	for i := range b.Instrs {
		in := &b.Instrs[i]
		if in.BCI < l.Head || in.BCI >= l.End {
			continue
		}
		if in.Op == opIinc {
			if k, ok := local(code, in); ok {
				stepped[k] = true
			}
		}
		if in.BCI < l.BackEdge {
			before = append(before, in)
		}
	}
	// The test's operands: at most the four instructions before the
	// branch (iload i; aload a; arraylength; if_icmplt).
	for i := len(before) - 1; i >= 0 && i >= len(before)-4; i-- {
		in := before[i]
		if in.Op == opIload || (in.Op >= opIload0 && in.Op <= opIload3) {
			if k, ok := local(code, in); ok && stepped[k] {
				return true
			}
		}
	}
	return false
}

// local is the local variable index an iload, iload_<n> or iinc
// instruction names.
func local(code []byte, in *Instr) (int, bool) {
	if in.Op >= opIload0 && in.Op <= opIload3 {
		return int(in.Op - opIload0), true
	}
	at := in.BCI + 1
	if in.Wide {
		at = in.BCI + 2
		if at+1 >= len(code) {
			return 0, false
		}
		return int(code[at])<<8 | int(code[at+1]), true
	}
	if at >= len(code) {
		return 0, false
	}
	return int(code[at]), true
}
