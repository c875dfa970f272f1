// Package classfile reads Java class files and the jars that hold them:
// the constant pool, the methods, their Code attributes and line numbers,
// and enough of the bytecode to find basic blocks, loops (backward
// branches) and call sites by bytecode index.
//
// The specification is the JVM Specification, Java SE 17 edition, chapter
// 4 ("The class File Format"); comments cite its sections as JVMS §4.x.
// The reader is meant for untrusted input: every length field is checked
// against the bytes that remain before anything is allocated for it, so a
// hostile file costs at most a small multiple of its own size, and every
// problem is an error, never a panic.
package classfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Access flags of classes and methods (JVMS §4.1 Table 4.1-B, §4.6
// Table 4.6-A).
const (
	AccPublic       = 0x0001
	AccPrivate      = 0x0002
	AccProtected    = 0x0004
	AccStatic       = 0x0008
	AccFinal        = 0x0010
	AccSynchronized = 0x0020
	AccBridge       = 0x0040
	AccVarargs      = 0x0080
	AccNative       = 0x0100
	AccInterface    = 0x0200
	AccAbstract     = 0x0400
	AccStrict       = 0x0800
	AccSynthetic    = 0x1000
)

// Magic is the first four bytes of every class file (JVMS §4.1).
const Magic = 0xCAFEBABE

// MaxCodeLength bounds a method's bytecode: code_length must be greater
// than zero and less than 65536 (JVMS §4.7.3).
const MaxCodeLength = 65535

// ErrTruncated reports a class file that ends in the middle of a structure.
var ErrTruncated = errors.New("truncated class file")

// Class is one parsed class file.
type Class struct {
	Major, Minor uint16
	Pool         Pool
	AccessFlags  uint16
	// Name is the binary name with '/' separators ("java/lang/String"),
	// as the constant pool holds it (JVMS §4.2.1).
	Name       string
	Super      string // "" for java/lang/Object
	Interfaces []string
	Methods    []Method
	// SourceFile is the SourceFile attribute (JVMS §4.7.10), "" if absent.
	SourceFile string
}

// Method is one method_info (JVMS §4.6).
type Method struct {
	AccessFlags uint16
	Name        string
	// Descriptor is the method descriptor (JVMS §4.3.3), "(I)V".
	Descriptor string
	// Code is nil for abstract and native methods (JVMS §4.7.3).
	Code *Code
}

// Code is a Code attribute (JVMS §4.7.3).
type Code struct {
	MaxStack, MaxLocals uint16
	// Bytecode is the method's code array; len(Bytecode) is code_length.
	Bytecode   []byte
	Exceptions []ExceptionHandler
	// Lines is the LineNumberTable (JVMS §4.7.12), all tables of the
	// attribute concatenated, in file order.
	Lines []LineNumber
}

// ExceptionHandler is one exception_table entry (JVMS §4.7.3): the
// handler at HandlerPC covers [StartPC, EndPC).
type ExceptionHandler struct {
	StartPC, EndPC, HandlerPC uint16
	CatchType                 string // "" catches everything (finally)
}

// LineNumber maps the bytecode from StartPC on to a source line (JVMS
// §4.7.12).
type LineNumber struct {
	StartPC, Line uint16
}

// Key is "name" followed by the descriptor, unique within a class.
func (m *Method) Key() string { return m.Name + m.Descriptor }

// IsStatic reports ACC_STATIC.
func (m *Method) IsStatic() bool { return m.AccessFlags&AccStatic != 0 }

// IsNative reports ACC_NATIVE.
func (m *Method) IsNative() bool { return m.AccessFlags&AccNative != 0 }

// Method finds a method by name and descriptor; nil if absent.
func (c *Class) Method(name, descriptor string) *Method {
	for i := range c.Methods {
		if c.Methods[i].Name == name && c.Methods[i].Descriptor == descriptor {
			return &c.Methods[i]
		}
	}
	return nil
}

// Line is the source line of the instruction at bci: the entry with the
// greatest StartPC ≤ bci (JVMS §4.7.12 allows entries in any order and
// several for one line). 0 if the table has none.
func (c *Code) Line(bci int) int {
	best, line := -1, 0
	for _, l := range c.Lines {
		if int(l.StartPC) <= bci && int(l.StartPC) > best {
			best, line = int(l.StartPC), int(l.Line)
		}
	}
	return line
}

// reader is a bounds-checked big-endian cursor (class files are
// big-endian, JVMS §4.1). After the first failure every read returns zero
// and err keeps the first error.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *reader) need(n int) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || len(r.b)-r.off < n {
		r.fail(fmt.Errorf("%w at offset %d: need %d bytes, %d left", ErrTruncated, r.off, n, len(r.b)-r.off))
		return false
	}
	return true
}

func (r *reader) u1() uint8 {
	if !r.need(1) {
		return 0
	}
	v := r.b[r.off]
	r.off++
	return v
}

func (r *reader) u2() uint16 {
	if !r.need(2) {
		return 0
	}
	v := binary.BigEndian.Uint16(r.b[r.off:])
	r.off += 2
	return v
}

func (r *reader) u4() uint32 {
	if !r.need(4) {
		return 0
	}
	v := binary.BigEndian.Uint32(r.b[r.off:])
	r.off += 4
	return v
}

// bytes returns the next n bytes without copying.
func (r *reader) bytes(n int) []byte {
	if !r.need(n) {
		return nil
	}
	v := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return v
}

// count reads a u2 count of items each at least minSize bytes long and
// checks that they can fit in what remains, so that no slice is sized by
// a length field the file cannot back.
func (r *reader) count(what string, minSize int) int {
	n := int(r.u2())
	if r.err == nil && n*minSize > len(r.b)-r.off {
		r.fail(fmt.Errorf("%w: %d %s need at least %d bytes, %d left", ErrTruncated, n, what, n*minSize, len(r.b)-r.off))
		return 0
	}
	return n
}

// Parse reads one class file (JVMS §4.1: ClassFile structure). It copies
// nothing it does not keep: the returned Class shares no memory with data
// except the bytecode arrays, which are copied too, so data may be reused.
func Parse(data []byte) (*Class, error) {
	r := &reader{b: data}
	if m := r.u4(); r.err == nil && m != Magic {
		return nil, fmt.Errorf("not a class file: magic %#08x, want %#08x", m, uint32(Magic))
	}
	c := &Class{}
	c.Minor = r.u2()
	c.Major = r.u2()
	if r.err != nil {
		return nil, r.err
	}
	// JVMS §4.1: major versions 45 (JDK 1.0.2) to 61 (Java SE 17); later
	// versions keep the same structure, so they are read too.
	if c.Major < 45 {
		return nil, fmt.Errorf("class file version %d.%d: major version below 45", c.Major, c.Minor)
	}
	if err := c.Pool.parse(r); err != nil {
		return nil, err
	}
	c.AccessFlags = r.u2()
	var err error
	if c.Name, err = c.Pool.ClassName(r.u2()); err != nil && r.err == nil {
		return nil, fmt.Errorf("this_class: %w", err)
	}
	if super := r.u2(); super != 0 && r.err == nil { // JVMS §4.1: 0 only for Object
		if c.Super, err = c.Pool.ClassName(super); err != nil {
			return nil, fmt.Errorf("super_class: %w", err)
		}
	}
	n := r.count("interfaces", 2)
	for i := 0; i < n && r.err == nil; i++ {
		name, err := c.Pool.ClassName(r.u2())
		if err != nil && r.err == nil {
			return nil, fmt.Errorf("interfaces[%d]: %w", i, err)
		}
		c.Interfaces = append(c.Interfaces, name)
	}
	// JVMS §4.5: fields are skipped (8 bytes at least: flags, name,
	// descriptor, attributes_count).
	n = r.count("fields", 8)
	for i := 0; i < n && r.err == nil; i++ {
		r.bytes(6)
		if err := skipAttributes(r); err != nil {
			return nil, fmt.Errorf("fields[%d]: %w", i, err)
		}
	}
	n = r.count("methods", 8)
	c.Methods = make([]Method, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		m, err := c.parseMethod(r)
		if err != nil {
			return nil, fmt.Errorf("methods[%d]: %w", i, err)
		}
		c.Methods = append(c.Methods, m)
	}
	// Class attributes (JVMS §4.7): only SourceFile is kept.
	n = r.count("attributes", 6)
	for i := 0; i < n && r.err == nil; i++ {
		name, body, err := c.attribute(r)
		if err != nil {
			return nil, fmt.Errorf("class attributes[%d]: %w", i, err)
		}
		if name == "SourceFile" && len(body) == 2 {
			// JVMS §4.7.10: sourcefile_index → CONSTANT_Utf8.
			if s, err := c.Pool.Utf8(binary.BigEndian.Uint16(body)); err == nil {
				c.SourceFile = s
			}
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if r.off != len(data) {
		return nil, fmt.Errorf("%d bytes after the end of the class file", len(data)-r.off)
	}
	return c, nil
}

// skipAttributes skips an attributes_count and its attribute_info
// structures (JVMS §4.7).
func skipAttributes(r *reader) error {
	n := r.count("attributes", 6)
	for i := 0; i < n && r.err == nil; i++ {
		r.u2()
		r.bytes(int(r.u4()))
	}
	return r.err
}

// attribute reads one attribute_info (JVMS §4.7): its name and body.
func (c *Class) attribute(r *reader) (string, []byte, error) {
	idx := r.u2()
	length := r.u4()
	if r.err != nil {
		return "", nil, r.err
	}
	if int64(length) > int64(len(r.b)-r.off) {
		return "", nil, fmt.Errorf("%w: attribute_length %d, %d bytes left", ErrTruncated, length, len(r.b)-r.off)
	}
	body := r.bytes(int(length))
	name, err := c.Pool.Utf8(idx)
	if err != nil {
		return "", nil, fmt.Errorf("attribute_name_index: %w", err)
	}
	return name, body, nil
}

// parseMethod reads one method_info (JVMS §4.6).
func (c *Class) parseMethod(r *reader) (Method, error) {
	var m Method
	var err error
	m.AccessFlags = r.u2()
	nameIdx, descIdx := r.u2(), r.u2()
	if r.err != nil {
		return m, r.err
	}
	if m.Name, err = c.Pool.Utf8(nameIdx); err != nil {
		return m, fmt.Errorf("name_index: %w", err)
	}
	if m.Descriptor, err = c.Pool.Utf8(descIdx); err != nil {
		return m, fmt.Errorf("descriptor_index: %w", err)
	}
	if !strings.HasPrefix(m.Descriptor, "(") {
		return m, fmt.Errorf("method %s: descriptor %q is not a method descriptor (JVMS §4.3.3)", m.Name, m.Descriptor)
	}
	n := r.count("attributes", 6)
	for i := 0; i < n && r.err == nil; i++ {
		name, body, err := c.attribute(r)
		if err != nil {
			return m, fmt.Errorf("method %s attributes[%d]: %w", m.Name, i, err)
		}
		if name != "Code" {
			continue
		}
		if m.Code != nil {
			return m, fmt.Errorf("method %s: two Code attributes (JVMS §4.7.3 allows one)", m.Name)
		}
		if m.Code, err = c.parseCode(body); err != nil {
			return m, fmt.Errorf("method %s Code: %w", m.Name, err)
		}
	}
	return m, r.err
}

// parseCode reads a Code attribute's body (JVMS §4.7.3).
func (c *Class) parseCode(body []byte) (*Code, error) {
	r := &reader{b: body}
	code := &Code{MaxStack: r.u2(), MaxLocals: r.u2()}
	length := r.u4()
	if r.err != nil {
		return nil, r.err
	}
	if length == 0 || length > MaxCodeLength {
		return nil, fmt.Errorf("code_length %d: must be in [1, %d] (JVMS §4.7.3)", length, MaxCodeLength)
	}
	code.Bytecode = append([]byte(nil), r.bytes(int(length))...)
	n := r.count("exception_table entries", 8)
	for i := 0; i < n && r.err == nil; i++ {
		h := ExceptionHandler{StartPC: r.u2(), EndPC: r.u2(), HandlerPC: r.u2()}
		if t := r.u2(); t != 0 && r.err == nil {
			name, err := c.Pool.ClassName(t)
			if err != nil {
				return nil, fmt.Errorf("exception_table[%d].catch_type: %w", i, err)
			}
			h.CatchType = name
		}
		// JVMS §4.7.3: start_pc < end_pc ≤ code_length, handler_pc < code_length.
		if r.err == nil && (h.StartPC >= h.EndPC || uint32(h.EndPC) > length || uint32(h.HandlerPC) >= length) {
			return nil, fmt.Errorf("exception_table[%d]: range [%d, %d) handler %d outside code of %d bytes", i, h.StartPC, h.EndPC, h.HandlerPC, length)
		}
		code.Exceptions = append(code.Exceptions, h)
	}
	n = r.count("attributes", 6)
	for i := 0; i < n && r.err == nil; i++ {
		name, attr, err := c.attribute(r)
		if err != nil {
			return nil, fmt.Errorf("attributes[%d]: %w", i, err)
		}
		if name != "LineNumberTable" {
			continue
		}
		// JVMS §4.7.12: line_number_table_length, then (start_pc, line_number) pairs.
		lr := &reader{b: attr}
		k := lr.count("line numbers", 4)
		for j := 0; j < k && lr.err == nil; j++ {
			ln := LineNumber{StartPC: lr.u2(), Line: lr.u2()}
			if lr.err == nil && uint32(ln.StartPC) >= length {
				return nil, fmt.Errorf("LineNumberTable[%d]: start_pc %d outside code of %d bytes", j, ln.StartPC, length)
			}
			code.Lines = append(code.Lines, ln)
		}
		if lr.err != nil {
			return nil, fmt.Errorf("LineNumberTable: %w", lr.err)
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if r.off != len(body) {
		return nil, fmt.Errorf("%d bytes after the Code attribute's attributes", len(body)-r.off)
	}
	return code, nil
}
