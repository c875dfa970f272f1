package classfile

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The class files in testdata are javac 17's output for testdata/src
// (javac -g -d testdata testdata/src/*.java).

func load(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return data
}

func parse(t testing.TB, name string) *Class {
	t.Helper()
	c, err := Parse(load(t, name))
	require.NoError(t, err)
	return c
}

func analyze(t testing.TB, c *Class, name, desc string) *Body {
	t.Helper()
	m := c.Method(name, desc)
	require.NotNil(t, m, "%s%s", name, desc)
	require.NotNil(t, m.Code)
	b, err := Analyze(c.Pool, m.Code)
	require.NoError(t, err)
	return b
}

// HotCold is Mytkowicz et al.'s Listing 1; javap -c -l shows the offsets
// asserted here.
func TestHotCold(t *testing.T) {
	c := parse(t, "HotCold.class")
	assert.Equal(t, "HotCold", c.Name)
	assert.Equal(t, "java/lang/Object", c.Super)
	assert.Equal(t, uint16(61), c.Major) // Java SE 17 (JVMS §4.1 Table 4.1-A)
	assert.Equal(t, "HotCold.java", c.SourceFile)
	var names []string
	for _, m := range c.Methods {
		names = append(names, m.Key())
	}
	assert.Equal(t, []string{"<init>()V", "hot(I)V", "cold()V", "main([Ljava/lang/String;)V", "<clinit>()V"}, names)

	hot := c.Method("hot", "(I)V")
	assert.True(t, hot.IsStatic())
	assert.Len(t, hot.Code.Bytecode, 50)
	assert.Equal(t, 4, hot.Code.Line(0))
	assert.Equal(t, 5, hot.Code.Line(21))
	assert.Equal(t, 8, hot.Code.Line(47))
	hb := analyze(t, c, "hot", "(I)V")
	assert.Empty(t, hb.Loops)
	assert.Empty(t, hb.Calls)
	// Two forward ifs split hot into blocks at 27, 30, 34 and 37.
	assert.Equal(t, []Block{{0, 27}, {27, 30}, {30, 34}, {34, 37}, {37, 50}}, hb.Blocks)

	cb := analyze(t, c, "cold", "()V")
	assert.Equal(t, 19, cb.Length)
	// for (i = 0; i < MAX; i++) hot(i): the test at 2, the back-edge goto at 15.
	assert.Equal(t, []Loop{{Head: 2, End: 18, BackEdge: 15}}, cb.Loops)
	assert.Equal(t, []CallSite{{BCI: 9, Op: OpInvokestatic, Class: "HotCold", Name: "hot", Descriptor: "(I)V"}}, cb.Calls)
	assert.Equal(t, 0, cb.Innermost(9))
	assert.Equal(t, -1, cb.Innermost(18))
	assert.Equal(t, OpGoto, int(cb.InstrAt(15).Op))
	assert.Nil(t, cb.InstrAt(16))
}

func TestShapes(t *testing.T) {
	c := parse(t, "Shapes.class")
	var names []string
	for _, k := range c.Pool {
		if k.Tag == TagUtf8 && strings.HasPrefix(k.Str, "Fläche") {
			names = append(names, k.Str)
		}
	}
	// Modified UTF-8 (JVMS §4.4.7): a surrogate pair and an encoded NUL.
	assert.Contains(t, names, "Fläche \U0001F600 \x00")

	total := analyze(t, c, "total", "([LShapes$Shape;I)D")
	require.Len(t, total.Loops, 2)
	outer, inner := total.Loops[0], total.Loops[1]
	assert.True(t, outer.Head < inner.Head && inner.End <= outer.End, "nested: %v", total.Loops)
	require.Len(t, total.Calls, 1)
	call := total.Calls[0]
	assert.Equal(t, CallSite{BCI: call.BCI, Op: OpInvokeinterface, Class: "Shapes$Shape", Name: "area", Descriptor: "()D"}, call)
	assert.Equal(t, 1, total.Innermost(call.BCI), "the call is in the inner loop")

	classify := analyze(t, c, "classify", "(I)I")
	var table, lookup *Instr
	for i := range classify.Instrs {
		switch classify.Instrs[i].Op {
		case OpTableswitch:
			table = &classify.Instrs[i]
		case OpLookupswitch:
			lookup = &classify.Instrs[i]
		}
	}
	require.NotNil(t, table)
	require.NotNil(t, lookup)
	assert.Len(t, table.Targets, 1+4) // default + cases 0…3
	assert.Len(t, lookup.Targets, 1+3)
	assert.Empty(t, classify.Loops)

	collatz := analyze(t, c, "collatz", "(J)I")
	require.Len(t, collatz.Loops, 1, "do-while: a conditional back-edge")
	assert.NotEqual(t, OpGoto, int(collatz.InstrAt(collatz.Loops[0].BackEdge).Op))

	fib := analyze(t, c, "fib", "(I)I")
	require.Len(t, fib.Calls, 2)
	assert.Equal(t, "fib", fib.Calls[1].Name)

	guarded := c.Method("guarded", "([II)I")
	require.NotEmpty(t, guarded.Code.Exceptions)
	assert.Equal(t, "java/lang/ArrayIndexOutOfBoundsException", guarded.Code.Exceptions[0].CatchType)
	assert.Equal(t, "", guarded.Code.Exceptions[len(guarded.Code.Exceptions)-1].CatchType, "finally")

	search := analyze(t, c, "search", "([[II)I")
	assert.Len(t, search.Loops, 2, "labelled break and continue add no loops")

	many := analyze(t, c, "manyLocals", "(I)I")
	wide := 0
	for _, in := range many.Instrs {
		if in.Wide {
			wide++
		}
	}
	assert.Greater(t, wide, 0)
	assert.Len(t, many.Loops, 1)

	main := analyze(t, c, "main", "([Ljava/lang/String;)V")
	var dyn *CallSite
	for i := range main.Calls {
		if main.Calls[i].Op == OpInvokedynamic && dyn == nil {
			dyn = &main.Calls[i] // the lambda; the second is the string concatenation
		}
	}
	require.NotNil(t, dyn)
	assert.Equal(t, "", dyn.Class)
	assert.Equal(t, "applyAsInt", dyn.Name)
	// Instructions tile the code exactly.
	for _, name := range []string{"HotCold.class", "Shapes.class", "Shapes$Circle.class", "Shapes$Square.class"} {
		c := parse(t, name)
		for _, m := range c.Methods {
			if m.Code == nil {
				continue
			}
			b, err := Analyze(c.Pool, m.Code)
			require.NoError(t, err)
			pc := 0
			for _, in := range b.Instrs {
				require.Equal(t, pc, in.BCI, "%s %s", name, m.Key())
				pc += in.Length
			}
			require.Equal(t, b.Length, pc)
		}
	}
}

// Every proper prefix of a class file is an error, not a panic.
func TestTruncated(t *testing.T) {
	data := load(t, "HotCold.class")
	for n := 0; n < len(data); n++ {
		_, err := Parse(data[:n])
		require.Error(t, err, "prefix of %d bytes", n)
	}
	_, err := Parse(append(append([]byte(nil), data...), 0))
	require.ErrorContains(t, err, "after the end")
}

// Length fields larger than the file are rejected before anything is
// allocated for them.
func TestHostileCounts(t *testing.T) {
	head := func(cpCount uint16) []byte {
		b := binary.BigEndian.AppendUint32(nil, Magic)
		b = binary.BigEndian.AppendUint16(b, 0)
		b = binary.BigEndian.AppendUint16(b, 61)
		return binary.BigEndian.AppendUint16(b, cpCount)
	}
	_, err := Parse(head(65535))
	require.ErrorIs(t, err, ErrTruncated)
	// A Utf8 constant claiming 65535 bytes in a short file.
	b := append(head(2), TagUtf8, 0xff, 0xff, 'a')
	_, err = Parse(b)
	require.ErrorIs(t, err, ErrTruncated)
	allocs := testing.AllocsPerRun(10, func() { _, _ = Parse(head(65535)) })
	assert.Less(t, allocs, 10.0)

	_, err = Parse([]byte{0xca, 0xfe, 0xba, 0xbf, 0, 0, 0, 61})
	require.ErrorContains(t, err, "not a class file")

	// Decode: a tableswitch whose range needs more bytes than the code has.
	code := []byte{OpTableswitch, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff}
	_, err = Decode(code)
	require.Error(t, err)
	_, err = Decode([]byte{OpGoto, 0x7f, 0xff})
	require.ErrorContains(t, err, "branch target")
	_, err = Decode([]byte{0xca})
	require.ErrorContains(t, err, "not a valid instruction")
}

func TestNestLoops(t *testing.T) {
	// Partly overlapping loops: the first is extended so the second nests.
	got := nestLoops([]Loop{{Head: 10, End: 20, BackEdge: 17}, {Head: 0, End: 12, BackEdge: 9}, {Head: 30, End: 40, BackEdge: 37}})
	assert.Equal(t, []Loop{{0, 20, 17}, {10, 20, 17}, {30, 40, 37}}, got)
}

func TestClasspath(t *testing.T) {
	dir := t.TempDir()
	jar := filepath.Join(dir, "shapes.jar")
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, name := range []string{"Shapes.class", "Shapes$Shape.class"} {
		w, err := z.Create(name)
		require.NoError(t, err)
		_, err = w.Write(load(t, name))
		require.NoError(t, err)
	}
	w, err := z.Create("Wrong.class") // holds another class
	require.NoError(t, err)
	_, err = w.Write(load(t, "HotCold.class"))
	require.NoError(t, err)
	require.NoError(t, z.Close())
	require.NoError(t, os.WriteFile(jar, buf.Bytes(), 0o644))

	cp, err := OpenClasspath(jar, "testdata")
	require.NoError(t, err)
	defer cp.Close()
	c, err := cp.Class("Shapes")
	require.NoError(t, err)
	assert.Equal(t, "Shapes", c.Name)
	again, err := cp.Class("Shapes")
	require.NoError(t, err)
	assert.Same(t, c, again, "read once")
	c, err = cp.Class("HotCold") // from the directory
	require.NoError(t, err)
	assert.Equal(t, "HotCold", c.Name)
	_, err = cp.Class("java.lang.String")
	require.ErrorIs(t, err, ErrNotFound)
	_, err = cp.Class("Wrong")
	require.ErrorContains(t, err, "holds class HotCold")

	// A JDK module file: the magic "JM" 1 0, then a zip with classes/.
	var jm bytes.Buffer
	jm.WriteString("JM\x01\x00")
	z = zip.NewWriter(&jm)
	w, err = z.Create("classes/HotCold.class")
	require.NoError(t, err)
	_, err = w.Write(load(t, "HotCold.class"))
	require.NoError(t, err)
	require.NoError(t, z.Close())
	jmod := filepath.Join(dir, "hot.jmod")
	require.NoError(t, os.WriteFile(jmod, jm.Bytes(), 0o644))
	mcp, err := OpenClasspath(jmod)
	require.NoError(t, err)
	defer mcp.Close()
	c, err = mcp.Class("HotCold")
	require.NoError(t, err)
	assert.Equal(t, "HotCold", c.Name)

	_, err = OpenClasspath(filepath.Join(dir, "missing.jar"))
	require.Error(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.jar"), []byte("not a zip"), 0o644))
	_, err = OpenClasspath(filepath.Join(dir, "bad.jar"))
	require.Error(t, err)
}

// FuzzParse feeds mutated class files to Parse and Analyze: errors are
// fine, panics and runaway allocation are not.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"HotCold.class", "Shapes.class", "Shapes$Circle.class", "Shapes$Shape.class", "Shapes$Square.class"} {
		f.Add(load(f, name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			return
		}
		for _, m := range c.Methods {
			if m.Code == nil {
				continue
			}
			if len(m.Code.Bytecode) > len(data) {
				t.Fatalf("%s: %d bytes of code from a %d-byte file", m.Key(), len(m.Code.Bytecode), len(data))
			}
			b, err := Analyze(c.Pool, m.Code)
			if err != nil {
				continue
			}
			for _, l := range b.Loops {
				if l.Head < 0 || l.End > b.Length || l.Head >= l.End {
					t.Fatalf("%s: loop %v outside code of %d bytes", m.Key(), l, b.Length)
				}
			}
			for _, s := range b.Calls {
				_ = b.Innermost(s.BCI)
				_ = m.Code.Line(s.BCI)
			}
		}
	})
}
