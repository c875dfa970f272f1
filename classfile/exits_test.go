package classfile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Paths tells the code a loop runs only on its way out from the code it
// runs only to go round again and the code every trip going round runs,
// and whether every way out passes the first (javac 17's code for each
// source).
func TestLoopPaths(t *testing.T) {
	for _, c := range []struct {
		name               string
		code               []byte
		exit, latch, round []Block
		closed             bool
	}{
		// int i = 0; while (true) { if (i == n) return -1; int v = a[i]; i++; if (v > 0) return v; }
		{"left from its body", []byte{
			0x03, 0x3d, // 0: iconst_0; istore_2
			0x1c, 0x1b, 0xa0, 0x00, 0x05, // 2: iload_2; iload_1; if_icmpne 9
			0x02, 0xac, // 7: iconst_m1; ireturn
			0x2a, 0x1c, 0x2e, 0x3e, 0x84, 0x02, 0x01, 0x1d, 0x9e, 0x00, 0x05, // 9: … 17: ifle 22
			0x1d, 0xac, // 20: iload_3; ireturn
			0xa7, 0xff, 0xec, // 22: goto 2
		}, []Block{{7, 9}, {20, 22}}, []Block{{22, 25}}, []Block{{2, 7}, {9, 20}}, true},
		// int s = 0; for (int i = 0; i < n; i++) s += a[i]; return s;
		{"tested at its head", []byte{
			0x03, 0x3d, 0x03, 0x3e, // 0: s = 0; i = 0
			0x1d, 0x1b, 0xa2, 0x00, 0x0f, // 4: iload_3; iload_1; if_icmpge 21
			0x1c, 0x2a, 0x1d, 0x2e, 0x60, 0x3d, 0x84, 0x03, 0x01, 0xa7, 0xff, 0xf2, // 9: s += a[i]; i++; goto 4
			0x1c, 0xac, // 21: iload_2; ireturn
		}, nil, []Block{{9, 21}}, []Block{{4, 9}}, false},
		// int i = 0; for (;;) { if (a[i] > 0) break; i++; } return i;
		{"left by a break", []byte{
			0x03, 0x3c, // 0: iconst_0; istore_1
			0x2a, 0x1b, 0x2e, 0x9e, 0x00, 0x06, // 2: a[i]; ifle 11
			0xa7, 0x00, 0x09, // 8: goto 17
			0x84, 0x01, 0x01, 0xa7, 0xff, 0xf4, // 11: i++; goto 2
			0x1b, 0xac, // 17: iload_1; ireturn
		}, []Block{{8, 11}}, []Block{{11, 17}}, []Block{{2, 8}}, true},
		// int s = 0; for (int i = 0; i < n; i++) { if (a[i] > 0) s += a[i]; } return s;
		{"a branch in its body", []byte{
			0x03, 0x3d, 0x03, 0x3e, // 0: s = 0; i = 0
			0x1d, 0x1b, 0xa2, 0x00, 0x15, // 4: iload_3; iload_1; if_icmpge 27
			0x2a, 0x1d, 0x2e, 0x9e, 0x00, 0x09, // 9: a[i]; ifle 21
			0x1c, 0x2a, 0x1d, 0x2e, 0x60, 0x3d, // 15: s += a[i]: only some trips
			0x84, 0x03, 0x01, 0xa7, 0xff, 0xec, // 21: i++; goto 4
			0x1c, 0xac, // 27: iload_2; ireturn
		}, nil, []Block{{9, 15}, {21, 27}}, []Block{{4, 9}}, false},
		// int s = 0; for (int i = 0; i < n; i++) { for (int j = 0; j < i; j++) s += a[j]; s++; } return s;
		{"a loop in its body", []byte{
			0x03, 0x3d, 0x03, 0x3e, // 0: s = 0; i = 0
			0x1d, 0x1b, 0xa2, 0x00, 0x22, // 4: iload_3; iload_1; if_icmpge 40
			0x03, 0x36, 0x04, // 9: j = 0
			0x15, 0x04, 0x1d, 0xa2, 0x00, 0x10, // 12: the inner loop's test
			0x1c, 0x2a, 0x15, 0x04, 0x2e, 0x60, 0x3d, 0x84, 0x04, 0x01, 0xa7, 0xff, 0xf0, // 18: s += a[j]; j++; goto 12
			0x84, 0x02, 0x01, 0x84, 0x03, 0x01, 0xa7, 0xff, 0xdf, // 31: s++; i++; goto 4
			0x1c, 0xac, // 40: iload_2; ireturn
		}, nil, []Block{{9, 12}, {31, 40}}, []Block{{4, 9}}, false},
	} {
		b, err := Analyze(nil, &Code{Bytecode: c.code})
		require.NoError(t, err, c.name)
		require.NotEmpty(t, b.Loops, c.name)
		p := b.Paths(b.Loops[0]) // the outermost
		assert.Equal(t, c.exit, p.Exit, c.name)
		assert.Equal(t, c.latch, p.Latch, c.name)
		assert.Equal(t, c.round, p.Round, c.name)
		assert.Equal(t, c.closed, p.Closed, c.name)
	}
}

// On the JDK's own classes (OpenJDK 17's java.base): ConcurrentHashMap's
// putVal is a for (;;) left by breaks and returns, closed, but it goes
// round by its back branch alone (no latch code a sample can land on);
// HashMap.getNode's do-while walks a chain, tested at its bottom, and
// ArrayList.indexOfRange's for loops are tested at their head: neither is
// closed.
func TestLoopPathsOfTheJDK(t *testing.T) {
	closed := func(b *Body, _ []byte, l Loop) bool { return b.Paths(l).Closed }
	assert.Equal(t, []bool{true, true}, jdkLoops(t, "java/util/concurrent/ConcurrentHashMap", "putVal", "", closed))
	assert.Equal(t, []bool{false}, jdkLoops(t, "java/util/HashMap", "getNode", "", closed))
	assert.Equal(t, []bool{false, false}, jdkLoops(t, "java/util/ArrayList", "indexOfRange", "", closed))
	latch := func(b *Body, code []byte, l Loop) bool {
		p := b.Paths(l)
		return len(p.Latch) == 1 && p.Latch[0].End-p.Latch[0].Start == 3 && code[p.Latch[0].Start] == OpGoto
	}
	assert.Equal(t, []bool{true, false}, jdkLoops(t, "java/util/concurrent/ConcurrentHashMap", "putVal", "", latch), "the outer loop's latch is its goto")
}

// OnEveryPath: in int s = 0; for (int i = 0; i < n; i++) { if (a[i] > 0)
// s += a[i]; } return s; every path to the return passes the entry, the
// loop's test and the return's block, not the loop's body (it may run no
// trip) nor the branch inside it.
func TestOnEveryPath(t *testing.T) {
	code := []byte{
		0x03, 0x3d, 0x03, 0x3e, // 0: s = 0; i = 0
		0x1d, 0x1b, 0xa2, 0x00, 0x15, // 4: iload_3; iload_1; if_icmpge 27
		0x2a, 0x1d, 0x2e, 0x9e, 0x00, 0x09, // 9: a[i]; ifle 21
		0x1c, 0x2a, 0x1d, 0x2e, 0x60, 0x3d, // 15: s += a[i]
		0x84, 0x03, 0x01, 0xa7, 0xff, 0xec, // 21: i++; goto 4
		0x1c, 0xac, // 27: iload_2; ireturn
	}
	b, err := Analyze(nil, &Code{Bytecode: code})
	require.NoError(t, err)
	for bci, want := range map[int]bool{0: true, 5: true, 9: false, 15: false, 21: false, 27: true, 99: false} {
		assert.Equal(t, want, b.OnEveryPath(bci), "bci %d", bci)
	}
}
