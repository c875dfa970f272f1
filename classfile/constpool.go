package classfile

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Constant pool tags (JVMS §4.4 Table 4.4-B).
const (
	TagUtf8               = 1
	TagInteger            = 3
	TagFloat              = 4
	TagLong               = 5
	TagDouble             = 6
	TagClass              = 7
	TagString             = 8
	TagFieldref           = 9
	TagMethodref          = 10
	TagInterfaceMethodref = 11
	TagNameAndType        = 12
	TagMethodHandle       = 15
	TagMethodType         = 16
	TagDynamic            = 17
	TagInvokeDynamic      = 18
	TagModule             = 19
	TagPackage            = 20
)

// Constant is one constant pool entry. Tag says which fields mean
// something: Str for Utf8; A for Class (name_index), String, MethodType,
// Module, Package; A, B for the references (class_index,
// name_and_type_index), NameAndType (name_index, descriptor_index), Dynamic
// and InvokeDynamic (bootstrap_method_attr_index, name_and_type_index);
// MethodHandle's reference kind is A and its reference B. Numbers are not
// kept. Tag 0 marks index 0 and the unusable slot after a Long or Double
// (JVMS §4.4.5).
type Constant struct {
	Tag  uint8
	A, B uint16
	Str  string
}

// Pool is a constant pool, indexed from 1 as the class file does (entry 0
// is unused).
type Pool []Constant

// parse reads constant_pool_count and the entries (JVMS §4.4).
func (p *Pool) parse(r *reader) error {
	n := int(r.u2())
	if r.err != nil {
		return r.err
	}
	if n == 0 {
		return fmt.Errorf("constant_pool_count 0: must be at least 1 (JVMS §4.1)")
	}
	// Every entry takes at least 3 bytes (a tag and a u2), so the count
	// cannot exceed what the file holds by more than a factor of 3.
	if (n-1)*3 > len(r.b)-r.off {
		return fmt.Errorf("%w: constant_pool_count %d, %d bytes left", ErrTruncated, n, len(r.b)-r.off)
	}
	*p = make(Pool, n)
	for i := 1; i < n; i++ {
		tag := r.u1()
		c := &(*p)[i]
		c.Tag = tag
		switch tag {
		case TagUtf8: // JVMS §4.4.7
			length := int(r.u2())
			b := r.bytes(length)
			if r.err != nil {
				return fmt.Errorf("constant_pool[%d]: %w", i, r.err)
			}
			s, err := decodeModifiedUTF8(b)
			if err != nil {
				return fmt.Errorf("constant_pool[%d]: %w", i, err)
			}
			c.Str = s
		case TagInteger, TagFloat: // JVMS §4.4.4
			r.u4()
		case TagLong, TagDouble: // JVMS §4.4.5: takes two entries
			r.u4()
			r.u4()
			if i+1 >= n {
				return fmt.Errorf("constant_pool[%d]: an 8-byte constant in the last slot", i)
			}
			i++
		case TagClass, TagString, TagMethodType, TagModule, TagPackage: // §4.4.1, §4.4.3, §4.4.9, §4.4.11, §4.4.12
			c.A = r.u2()
		case TagFieldref, TagMethodref, TagInterfaceMethodref, TagNameAndType, TagDynamic, TagInvokeDynamic: // §4.4.2, §4.4.6, §4.4.10
			c.A, c.B = r.u2(), r.u2()
		case TagMethodHandle: // JVMS §4.4.8
			c.A, c.B = uint16(r.u1()), r.u2()
		default:
			if r.err == nil {
				return fmt.Errorf("constant_pool[%d]: unknown tag %d", i, tag)
			}
		}
		if r.err != nil {
			return fmt.Errorf("constant_pool[%d]: %w", i, r.err)
		}
	}
	return nil
}

// entry returns the constant at i if it has the tag.
func (p Pool) entry(i uint16, tag uint8) (*Constant, error) {
	if int(i) <= 0 || int(i) >= len(p) {
		return nil, fmt.Errorf("constant pool index %d out of range [1, %d)", i, len(p))
	}
	c := &p[i]
	if c.Tag != tag {
		return nil, fmt.Errorf("constant pool index %d: tag %d, want %d", i, c.Tag, tag)
	}
	return c, nil
}

// Utf8 is the string of a CONSTANT_Utf8 entry (JVMS §4.4.7).
func (p Pool) Utf8(i uint16) (string, error) {
	c, err := p.entry(i, TagUtf8)
	if err != nil {
		return "", err
	}
	return c.Str, nil
}

// ClassName is the name of a CONSTANT_Class entry (JVMS §4.4.1): a binary
// name with '/' separators, or an array descriptor ("[I").
func (p Pool) ClassName(i uint16) (string, error) {
	c, err := p.entry(i, TagClass)
	if err != nil {
		return "", err
	}
	return p.Utf8(c.A)
}

// NameAndType is a CONSTANT_NameAndType entry's name and descriptor (JVMS
// §4.4.6).
func (p Pool) NameAndType(i uint16) (name, descriptor string, err error) {
	c, err := p.entry(i, TagNameAndType)
	if err != nil {
		return "", "", err
	}
	if name, err = p.Utf8(c.A); err != nil {
		return "", "", err
	}
	if descriptor, err = p.Utf8(c.B); err != nil {
		return "", "", err
	}
	return name, descriptor, nil
}

// MethodRef is the target of an invoke instruction: a CONSTANT_Methodref
// or CONSTANT_InterfaceMethodref (JVMS §4.4.2), whose class, name and
// descriptor it returns. For a CONSTANT_InvokeDynamic (§4.4.10) the class
// is "" and the name and descriptor are the call site's.
func (p Pool) MethodRef(i uint16) (class, name, descriptor string, err error) {
	if int(i) <= 0 || int(i) >= len(p) {
		return "", "", "", fmt.Errorf("constant pool index %d out of range [1, %d)", i, len(p))
	}
	c := &p[i]
	switch c.Tag {
	case TagMethodref, TagInterfaceMethodref:
		if class, err = p.ClassName(c.A); err != nil {
			return "", "", "", err
		}
	case TagInvokeDynamic:
	default:
		return "", "", "", fmt.Errorf("constant pool index %d: tag %d is not a method reference", i, c.Tag)
	}
	name, descriptor, err = p.NameAndType(c.B)
	if err != nil {
		return "", "", "", err
	}
	return class, name, descriptor, nil
}

// decodeModifiedUTF8 decodes the JVM's modified UTF-8 (JVMS §4.4.7): no
// byte is 0 or in [0xf0, 0xff]; NUL is the two bytes 0xc0 0x80;
// supplementary characters are surrogate pairs, each encoded in three
// bytes. An unpaired surrogate becomes U+FFFD.
func decodeModifiedUTF8(b []byte) (string, error) {
	ascii := true
	for _, c := range b {
		if c == 0 || c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return string(b), nil
	}
	var sb strings.Builder
	sb.Grow(len(b))
	cont := func(i int) (rune, error) {
		if i >= len(b) || b[i]&0xc0 != 0x80 {
			return 0, fmt.Errorf("malformed modified UTF-8 at byte %d", i)
		}
		return rune(b[i] & 0x3f), nil
	}
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == 0 || c >= 0xf0:
			return "", fmt.Errorf("byte %#02x at %d is not allowed in modified UTF-8 (JVMS §4.4.7)", c, i)
		case c < 0x80:
			sb.WriteByte(c)
			i++
		case c&0xe0 == 0xc0:
			x, err := cont(i + 1)
			if err != nil {
				return "", err
			}
			sb.WriteRune(rune(c&0x1f)<<6 | x)
			i += 2
		case c&0xf0 == 0xe0:
			x, err := cont(i + 1)
			if err != nil {
				return "", err
			}
			y, err := cont(i + 2)
			if err != nil {
				return "", err
			}
			r := rune(c&0x0f)<<12 | x<<6 | y
			i += 3
			if r >= 0xd800 && r < 0xdc00 && i+2 < len(b) && b[i] == 0xed && b[i+1]&0xf0 == 0xb0 {
				lo := rune(b[i]&0x0f)<<12 | rune(b[i+1]&0x3f)<<6 | rune(b[i+2]&0x3f)
				if b[i+2]&0xc0 == 0x80 && lo >= 0xdc00 && lo < 0xe000 {
					r = 0x10000 + (r-0xd800)<<10 + (lo - 0xdc00)
					i += 3
				}
			}
			if !utf8.ValidRune(r) {
				r = utf8.RuneError
			}
			sb.WriteRune(r)
		default:
			return "", fmt.Errorf("malformed modified UTF-8 at byte %d", i)
		}
	}
	return sb.String(), nil
}
