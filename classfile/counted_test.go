package classfile

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Counted tells the loops C2 counts (an int induction variable stepped by
// iinc, tested at the back edge) from the ones it does not.
func TestCountedLoops(t *testing.T) {
	for _, c := range []struct {
		name string
		code []byte
		want bool
	}{
		// for (int i = 0; i < n; i++) {}  (n in local 0, i in local 1)
		{"for i < n", []byte{0x03, 0x3c, 0xa7, 0x00, 0x06, 0x84, 0x01, 0x01, 0x1b, 0x1a, 0xa1, 0xff, 0xfb, 0xb1}, true},
		// the same as javac compiles it, tested at the top: iload_1; iload_0;
		// if_icmpge out; iinc 1 1; goto test
		{"for i < n, top-tested", []byte{0x03, 0x3c, 0x1b, 0x1a, 0xa2, 0x00, 0x09, 0x84, 0x01, 0x01, 0xa7, 0xff, 0xf8, 0xb1}, true},
		// while (x != null) x = null; tested at the top: aload_0; ifnull out
		{"while x != null, top-tested", []byte{0x2a, 0xc6, 0x00, 0x08, 0x01, 0x4b, 0xa7, 0xff, 0xfa, 0xb1}, false},
		// the same with wide iinc and wide iload of local 1
		{"wide", []byte{0x03, 0x3c, 0xa7, 0x00, 0x09, 0xc4, 0x84, 0x00, 0x01, 0x00, 0x01, 0xc4, 0x15, 0x00, 0x01, 0x1a, 0xa1, 0xff, 0xf5, 0xb1}, true},
		// while (--k > 0) {}  (k in local 0): iinc 0 -1; iload_0; ifgt
		{"while --k > 0", []byte{0x84, 0x00, 0xff, 0x1a, 0x9d, 0xff, 0xfc, 0xb1}, true},
		// while (x != null) x = null;  (x in local 0): a reference test
		{"while x != null", []byte{0xa7, 0x00, 0x05, 0x01, 0x4b, 0x2a, 0xc7, 0xff, 0xfd, 0xb1}, false},
		// while (true) { i++; }: the back edge is a goto
		{"while true", []byte{0x84, 0x00, 0x01, 0xa7, 0xff, 0xfd}, false},
		// while (n > 0) {}: an int test, but nothing steps n
		{"unstepped", []byte{0xa7, 0x00, 0x04, 0x00, 0x1a, 0x9d, 0xff, 0xfe, 0xb1}, false},
	} {
		b, err := Analyze(nil, &Code{Bytecode: c.code})
		require.NoError(t, err, c.name)
		require.Len(t, b.Loops, 1, c.name)
		assert.Equal(t, c.want, b.Counted(c.code, b.Loops[0]), c.name)
	}
}

// LiteralBound tells the counted loops whose trip count the compiler
// knows from literals (a constant start and limit) from those bounded at
// run time.
func TestLiteralBound(t *testing.T) {
	for _, c := range []struct {
		name string
		code []byte
		want bool
	}{
		// for (int i = 0; i < 100; i++) {} as javac compiles it: iconst_0;
		// istore_1; iload_1; bipush 100; if_icmpge out; iinc 1 1; goto test
		{"for i < 100, top-tested", []byte{0x03, 0x3c, 0x1b, 0x10, 0x64, 0xa2, 0x00, 0x09, 0x84, 0x01, 0x01, 0xa7, 0xff, 0xf7, 0xb1}, true},
		// the same tested at the bottom: goto test; iinc; iload_1;
		// bipush 100; if_icmplt body
		{"for i < 100, bottom-tested", []byte{0x03, 0x3c, 0xa7, 0x00, 0x06, 0x84, 0x01, 0x01, 0x1b, 0x10, 0x64, 0xa1, 0xff, 0xfa, 0xb1}, true},
		// for (int i = 10; i > 0; i--) {}: bipush 10; istore_1; goto test;
		// iinc 1 -1; iload_1; ifgt body
		{"for i = 10 down to 0", []byte{0x10, 0x0a, 0x3c, 0xa7, 0x00, 0x06, 0x84, 0x01, 0xff, 0x1b, 0x9d, 0xff, 0xfc, 0xb1}, true},
		// for (int i = n; i < 100; i++) {}  (n in local 0): the start is
		// computed at run time
		{"for i = n; i < 100", []byte{0x1a, 0x3c, 0x1b, 0x10, 0x64, 0xa2, 0x00, 0x09, 0x84, 0x01, 0x01, 0xa7, 0xff, 0xf7, 0xb1}, false},
		// for (int i = 0; i < n; i++) {}: the limit is
		{"for i < n", []byte{0x03, 0x3c, 0xa7, 0x00, 0x06, 0x84, 0x01, 0x01, 0x1b, 0x1a, 0xa1, 0xff, 0xfb, 0xb1}, false},
		// while (--k > 0) {}: k's start is the caller's
		{"while --k > 0", []byte{0x84, 0x00, 0xff, 0x1a, 0x9d, 0xff, 0xfc, 0xb1}, false},
		// while (x != null) x = null;: not counted
		{"while x != null", []byte{0xa7, 0x00, 0x05, 0x01, 0x4b, 0x2a, 0xc7, 0xff, 0xfd, 0xb1}, false},
	} {
		b, err := Analyze(nil, &Code{Bytecode: c.code})
		require.NoError(t, err, c.name)
		require.Len(t, b.Loops, 1, c.name)
		assert.Equal(t, c.want, b.LiteralBound(c.code, b.Loops[0]), c.name)
	}
}

// jdkLoops applies f to every loop of the methods of OpenJDK 17's
// java.base class named method (with descriptor desc, unless empty), in
// the order of the class's methods and their loops; the test is skipped
// without OpenJDK 17's jmods (another JDK's methods may be compiled to
// other loop shapes).
func jdkLoops(t *testing.T, class, method, desc string, f func(b *Body, code []byte, l Loop) bool) []bool {
	t.Helper()
	jmods, _ := filepath.Glob("/usr/lib/jvm/*17*/jmods/java.base.jmod")
	if len(jmods) == 0 {
		t.Skip("no OpenJDK 17 jmods under /usr/lib/jvm")
	}
	cp, err := OpenClasspath(jmods[0])
	require.NoError(t, err)
	defer cp.Close()
	cl, err := cp.Class(class)
	require.NoError(t, err, class)
	var got []bool
	for _, m := range cl.Methods {
		if m.Name != method || desc != "" && m.Descriptor != desc || m.Code == nil {
			continue
		}
		b, err := Analyze(cl.Pool, m.Code)
		require.NoError(t, err)
		for _, l := range b.Loops {
			got = append(got, f(b, m.Code.Bytecode, l))
		}
	}
	return got
}

// On the JDK's own classes (OpenJDK 17's java.base, the JDK the models
// were recorded on): the for loops over an index are counted, the walks
// along a chain of nodes are not — HashMap.resize has one of each.
func TestCountedLoopsOfTheJDK(t *testing.T) {
	for _, c := range []struct {
		class, method string
		want          []bool // by loop, outer first
	}{
		{"java/util/ArrayList", "indexOfRange", []bool{true, true}},
		{"java/lang/StringLatin1", "hashCode", []bool{true}},
		{"java/util/HashMap", "getNode", []bool{false}},
		{"java/util/LinkedList", "indexOf", []bool{false, false}},
		{"java/util/HashMap", "resize", []bool{true, false}},
	} {
		got := jdkLoops(t, c.class, c.method, "", (*Body).Counted)
		assert.Equal(t, c.want, got, "%s.%s", c.class, c.method)
	}
}

// On the JDK's own classes: SHA-1's rounds (for (int t = 16; t <= 79;
// t++)) have literal bounds, a loop over an array's length or a range
// passed in has none.
func TestLiteralBoundOfTheJDK(t *testing.T) {
	for _, c := range []struct {
		class, method, desc string
		want                []bool // by loop, outer first
	}{
		{"sun/security/provider/SHA", "implCompress0", "([BI)V", []bool{true, true, true, true, true}},
		{"java/lang/StringLatin1", "hashCode", "([B)I", []bool{false}},
		{"java/util/Arrays", "fill", "([IIII)V", []bool{false}},
	} {
		got := jdkLoops(t, c.class, c.method, c.desc, (*Body).LiteralBound)
		assert.Equal(t, c.want, got, "%s.%s%s", c.class, c.method, c.desc)
	}
}
