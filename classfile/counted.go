package classfile

// Opcodes a loop's exit test is made of.
const (
	opIload     = 0x15
	opIload0    = 0x1a
	opIload3    = 0x1d
	opIinc      = 0x84
	opIfeq      = 0x99
	opIfIcmpl   = 0xa4 // if_icmple, the last int comparison
	opIfAcmpne  = 0xa6
	opIfnull    = 0xc6
	opIfnonnull = 0xc7
)

// Counted reports whether loop l of a method's code has the shape C2
// turns into a counted loop (PhaseIdealLoop::is_counted_loop,
// opto/loopnode.cpp): its exit test is a conditional branch on ints
// (if<cond> against 0 or if_icmp<cond>) whose operands load an int local
// that the loop steps by a constant (iinc) — `for (int i = 0; i < n;
// i++)`, `while (--k > 0)`. The exit test is the back edge where it is a
// conditional branch (a loop tested at the bottom), else the loop's first
// conditional branch out of it (tested at the top, as javac compiles for
// and while loops, the back edge a goto). A loop whose exit test compares
// references (ifnull, ifnonnull, if_acmp<cond>: walking a list or a tree)
// or a value a call returned, or that has none (while (true) left only by
// a return or a throw), is not: C2 keeps its back-edge safepoint poll,
// where a counted loop's is removed or strip-mined. The limit's
// invariance, which C2 also checks, is not: a test on a stepped int local
// is taken as counted.
func (b *Body) Counted(code []byte, l Loop) bool {
	stepped := map[int]bool{}
	var in []*Instr // the loop's instructions in order
	for i := range b.Instrs {
		x := &b.Instrs[i]
		if x.BCI < l.Head || x.BCI >= l.End {
			continue
		}
		in = append(in, x)
		if x.Op == opIinc {
			if k, ok := local(code, x); ok {
				stepped[k] = true
			}
		}
	}
	test := -1 // index in in of the exit test
	for i, x := range in {
		if x.BCI == l.BackEdge && x.Op >= opIfeq && x.Op <= opIfAcmpne {
			test = i
			break
		}
	}
	if test < 0 {
		for i, x := range in {
			if x.Op >= opIfeq && x.Op <= opIfAcmpne || x.Op == opIfnull || x.Op == opIfnonnull {
				if t := x.Targets[0]; t < l.Head || t >= l.End {
					test = i
					break
				}
			}
		}
	}
	if test < 0 || in[test].Op > opIfIcmpl {
		return false // none, or a reference test
	}
	// The test's operands: at most the four instructions before the
	// branch (iload i; aload a; arraylength; if_icmplt).
	for i := test - 1; i >= 0 && i >= test-4; i-- {
		x := in[i]
		if x.Op == opIload || (x.Op >= opIload0 && x.Op <= opIload3) {
			if k, ok := local(code, x); ok && stepped[k] {
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
