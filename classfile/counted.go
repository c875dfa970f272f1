package classfile

// Opcodes a loop's exit test is made of.
const (
	opIload     = 0x15
	opIload0    = 0x1a
	opIload3    = 0x1d
	opIinc      = 0x84
	opIconstM1  = 0x02
	opIconst5   = 0x08
	opBipush    = 0x10
	opSipush    = 0x11
	opLdc       = 0x12
	opLdcW      = 0x13
	opIstore    = 0x36
	opIstore0   = 0x3b
	opIstore3   = 0x3e
	opIfIcmpeq  = 0x9f
	opGoto      = 0xa7
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
	_, ok := b.countedTest(code, l)
	return ok
}

// countedTest is a counted loop's exit test: its instructions (the
// loop's, in order), the test's index among them and the stepped local
// it reads; ok is false where the loop is not counted (Counted).
func (b *Body) countedTest(code []byte, l Loop) (t loopTest, ok bool) {
	stepped := map[int]bool{}
	for i := range b.Instrs {
		x := &b.Instrs[i]
		if x.BCI < l.Head || x.BCI >= l.End {
			continue
		}
		t.in = append(t.in, x)
		if x.Op == opIinc {
			if k, ok := local(code, x); ok {
				stepped[k] = true
			}
		}
	}
	in := t.in
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
				if to := x.Targets[0]; to < l.Head || to >= l.End {
					test = i
					break
				}
			}
		}
	}
	if test < 0 || in[test].Op > opIfIcmpl {
		return t, false // none, or a reference test
	}
	t.test = test
	// The test's operands: at most the four instructions before the
	// branch (iload i; aload a; arraylength; if_icmplt).
	for i := test - 1; i >= 0 && i >= test-4; i-- {
		x := in[i]
		if x.Op == opIload || (x.Op >= opIload0 && x.Op <= opIload3) {
			if k, ok := local(code, x); ok && stepped[k] {
				t.local, t.load = k, i
				return t, true
			}
		}
	}
	return t, false
}

// loopTest is a counted loop's exit test (countedTest): in[test] the
// branch, in[load] the load of the stepped local it tests.
type loopTest struct {
	in                []*Instr
	test, load, local int
}

// LiteralBound reports whether counted loop l's trip count is bounded by
// literals the compiler sees: the exit test compares the stepped local
// with an int constant (if<cond> compares it with 0; if_icmp<cond> with
// an iconst, bipush, sipush or ldc pushed next to the load), and the
// local's last store before the loop stores a constant — `for (int i =
// 0; i < 100; i++)`. C2 bounds a counted loop's iterations by its
// induction variable's type, [init, limit] (PhiNode::Value for a counted
// loop's phi, opto/cfgnode.cpp), and strip-mines only a loop that may
// run long (OuterStripMinedLoopNode::adjust_strip_mined_loop,
// opto/loopnode.cpp); a limit or start computed at run time (i < n, i <
// a.length, i = offset) leaves that type the whole int. A loop that is
// not counted has no literal bound.
func (b *Body) LiteralBound(code []byte, l Loop) bool {
	t, ok := b.countedTest(code, l)
	if !ok {
		return false
	}
	if op := t.in[t.test].Op; op < opIfIcmpeq {
		// if<cond>: the local against 0, its load right before.
		if t.load != t.test-1 {
			return false
		}
	} else {
		// if_icmp<cond>: the local and a constant, in either order, as
		// the test's two operands.
		if t.test < 2 || t.load < t.test-2 {
			return false
		}
		other := t.in[t.test-1]
		if t.load == t.test-1 {
			other = t.in[t.test-2]
		}
		if !isIntConst(other.Op) {
			return false
		}
	}
	// The local's initial value: its store before the loop (skipping the
	// goto into a loop tested at the bottom), right after a constant.
	var before []*Instr
	for i := range b.Instrs {
		if b.Instrs[i].BCI >= l.Head {
			break
		}
		before = append(before, &b.Instrs[i])
	}
	n := len(before)
	if n > 0 && before[n-1].Op == opGoto {
		n--
	}
	if n < 2 {
		return false
	}
	st := before[n-1]
	if k, ok := storedLocal(code, st); !ok || k != t.local {
		return false
	}
	return isIntConst(before[n-2].Op)
}

// isIntConst reports an instruction that pushes an int constant:
// iconst_<n>, bipush, sipush, or an ldc or ldc_w (which feeds an int
// comparison or an istore only when its constant is an int).
func isIntConst(op uint8) bool {
	return op >= opIconstM1 && op <= opIconst5 || op == opBipush || op == opSipush || op == opLdc || op == opLdcW
}

// storedLocal is the local variable an istore or istore_<n> writes.
func storedLocal(code []byte, in *Instr) (int, bool) {
	switch {
	case in.Op >= opIstore0 && in.Op <= opIstore3:
		return int(in.Op - opIstore0), true
	case in.Op == opIstore:
		return local(code, in)
	}
	return 0, false
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
