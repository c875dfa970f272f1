package classfile

import (
	"encoding/binary"
	"sort"
	"strings"
)

// Opcodes SharedThrow reads besides those of code.go (JVMS §6.5).
const (
	OpGetstatic = 0xb2
	OpGetfield  = 0xb4
	OpNew       = 0xbb
)

// FieldRef is a CONSTANT_Fieldref entry's class, name and descriptor
// (JVMS §4.4.2).
func (p Pool) FieldRef(i uint16) (class, name, descriptor string, err error) {
	c, err := p.entry(i, TagFieldref)
	if err != nil {
		return "", "", "", err
	}
	if class, err = p.ClassName(c.A); err != nil {
		return "", "", "", err
	}
	name, descriptor, err = p.NameAndType(c.B)
	if err != nil {
		return "", "", "", err
	}
	return class, name, descriptor, nil
}

// SharedThrow reports whether every call of the method throws, and throws
// an object it did not construct: its code has no return instruction (a
// call ends in athrow, or never ends), and some athrow throws a value read
// from a field (getfield, getstatic) or returned by a method of the value's
// own class that returns that class (a fluent setter called on an object
// made before, as javac's Resolve.AbstractMethodCheck.reportMC throws
// SharedInapplicableMethodException.setMessage(…); not one on an object
// its basic block made with new). Such a throw is one a
// recording's throwable events, emitted by Throwable's constructors, do
// not count. class is the thrown value's declared class ('/' separators).
//
// The value an athrow throws is the one its predecessor leaves on the
// stack: the instruction before it when that one falls through, or the
// instruction before a goto to it. A value reaching it any other way (a
// conditional branch, an exception handler) is not read.
func (b *Body) SharedThrow(pool Pool, code []byte) (class string, ok bool) {
	for i := range b.Instrs {
		if op := b.Instrs[i].Op; op >= OpIreturn && op <= OpReturn {
			return "", false
		}
	}
	for i := range b.Instrs {
		in := &b.Instrs[i]
		if in.Op != OpAthrow {
			continue
		}
		if i > 0 && !b.Instrs[i-1].EndsBlock() {
			if c, ok := b.sharedValue(pool, code, i-1); ok {
				return c, true
			}
		}
		for j := range b.Instrs {
			g := &b.Instrs[j]
			if (g.Op != OpGoto && g.Op != OpGotoW) || len(g.Targets) != 1 || g.Targets[0] != in.BCI || j == 0 {
				continue
			}
			if p := &b.Instrs[j-1]; !p.EndsBlock() {
				if c, ok := b.sharedValue(pool, code, j-1); ok {
					return c, true
				}
			}
		}
	}
	return "", false
}

// sharedValue reports whether instruction k leaves on the stack an object
// made before it (SharedThrow): a field's value, or what a fluent setter
// of the object's class returns when its basic block made no object of
// that class. class is the value's declared class.
func (b *Body) sharedValue(pool Pool, code []byte, k int) (class string, ok bool) {
	in := &b.Instrs[k]
	switch in.Op {
	case OpGetfield, OpGetstatic:
		if in.BCI+3 > len(code) {
			return "", false
		}
		_, _, desc, err := pool.FieldRef(binary.BigEndian.Uint16(code[in.BCI+1:]))
		if err != nil {
			return "", false
		}
		return objectType(desc)
	case OpInvokevirtual, OpInvokeinterface:
		owner, name, desc, err := pool.MethodRef(in.Index)
		if err != nil || name == "<init>" {
			return "", false
		}
		ret, ok := objectType(desc[strings.LastIndexByte(desc, ')')+1:])
		if !ok || ret != owner {
			return "", false
		}
		for j := k - 1; j >= 0 && !b.Instrs[j].EndsBlock() && !b.leader(b.Instrs[j+1].BCI); j-- {
			if n := &b.Instrs[j]; n.Op == OpNew && n.BCI+3 <= len(code) {
				if c, err := pool.ClassName(binary.BigEndian.Uint16(code[n.BCI+1:])); err == nil && c == owner {
					return "", false
				}
			}
		}
		return ret, true
	}
	return "", false
}

// leader reports whether a basic block starts at bci.
func (b *Body) leader(bci int) bool {
	i := sort.Search(len(b.Blocks), func(i int) bool { return b.Blocks[i].Start >= bci })
	return i < len(b.Blocks) && b.Blocks[i].Start == bci
}

// objectType is the class a field or return descriptor names ("Lp/C;"),
// if it names one.
func objectType(desc string) (string, bool) {
	if len(desc) < 3 || desc[0] != 'L' || desc[len(desc)-1] != ';' {
		return "", false
	}
	return desc[1 : len(desc)-1], true
}
