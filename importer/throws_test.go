package importer

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/classfile"
	"github.com/profsim/profsim/jfrjson"
	"github.com/profsim/profsim/program"
)

// throwRecording is 100 execution samples 1 ms apart of thread main
// (App.main@4 → App.work), and throws jdk.JavaExceptionThrow events of
// class class, each constructed at App.work@7 through the constructors of
// RuntimeException, Exception and Throwable; a thread "other" without
// execution samples throws as many.
func throwRecording(t testing.TB, throws int, class string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := jfrjson.NewWriter(&buf)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	main := jfrjson.Thread{Name: "main", JavaID: 1, IsJava: true}
	frame := func(class, name, desc string, bci int, typ jfrjson.FrameType) jfrjson.Frame {
		return jfrjson.Frame{Method: jfrjson.Method{Class: class, Name: name, Descriptor: desc}, BCI: bci, Type: typ}
	}
	for k := 0; k < 100; k++ {
		s := &jfrjson.Sample{Time: at.Add(time.Duration(k) * time.Millisecond), Thread: main,
			Frames: []jfrjson.Frame{frame("App", "work", "()V", 2, jfrjson.JITCompiled), frame("App", "main", "()V", 4, jfrjson.JITCompiled)}}
		require.NoError(t, w.Write(&jfrjson.Event{Sample: s}))
	}
	stack := []jfrjson.Frame{
		frame("java/lang/Throwable", "<init>", "(Ljava/lang/String;)V", 35, jfrjson.JITCompiled),
		frame("java/lang/Exception", "<init>", "(Ljava/lang/String;)V", 2, jfrjson.Inlined),
		frame("java/lang/RuntimeException", "<init>", "(Ljava/lang/String;)V", 2, jfrjson.Inlined),
		frame("App", "work", "()V", 7, jfrjson.JITCompiled),
		frame("App", "main", "()V", 4, jfrjson.JITCompiled),
	}
	for _, th := range []jfrjson.Thread{main, {Name: "other", JavaID: 2, IsJava: true}} {
		for k := 0; k < throws; k++ {
			ev := &jfrjson.Throw{Time: at.Add(time.Duration(k) * 99 * time.Millisecond / time.Duration(throws)), Thread: th, Frames: stack, Class: class}
			require.NoError(t, w.Write(&jfrjson.Event{Throw: ev}))
		}
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// Each throwable of a model thread costs a stack walk of fixed + per
// frame × (its frames + 2) ns, modelled as samples of the native
// Throwable.fillInStackTrace(int) on its stack; another thread's are
// counted, not modelled.
func TestThrowsBecomeStackWalks(t *testing.T) {
	// 10 000 throws of 5 frames (7 walked) at 110 + 18 × 7 = 236 ns:
	// 2.36 ms, 2 samples of 1 ms (rounded), beside 100 of Java code.
	m, err := Import(bytes.NewReader(throwRecording(t, 10000, "java/lang/RuntimeException")), nil, Options{})
	require.NoError(t, err)
	r := m.Report.Throws
	assert.Equal(t, 20000, r.Events)
	assert.Equal(t, 10000, r.Used)
	assert.Equal(t, 10000, r.Other)
	assert.Equal(t, 10000, r.UnknownClasses, "no classpath: every class unknown, its walk modelled")
	assert.InDelta(t, 7.0, r.MeanFrames, 1e-9)
	assert.InDelta(t, 10000*(DefaultThrowWalkFixed+7*DefaultThrowWalkPerFrame), r.Time, 1e-6)
	assert.Equal(t, 2, r.Samples)
	assert.Equal(t, time.Millisecond, m.Report.Period)

	w := m.Recorded.MethodWeights()
	assert.InDelta(t, 2*float64(time.Millisecond), w["java.lang.Throwable.fillInStackTrace(I)Ljava/lang/Throwable;"], 1)
	var nat bool
	for i := range m.Program.Methods {
		mm := &m.Program.Methods[i]
		if mm.Class == "java.lang.Throwable" && mm.Name == "fillInStackTrace" {
			for _, s := range mm.Body {
				nat = nat || s.Native != nil
			}
		}
	}
	assert.True(t, nat, "the walk is native code in the model: no JFR sampler sees it, a JVMTI one does")

	// Options set the costs; IgnoreThrows leaves the walks out.
	m, err = Import(bytes.NewReader(throwRecording(t, 10000, "java/lang/RuntimeException")), nil, Options{ThrowWalkFixed: 1000, ThrowWalkPerFrame: 1000})
	require.NoError(t, err)
	assert.Equal(t, 80, m.Report.Throws.Samples, "10 000 × (1000 + 7 × 1000) ns = 80 ms")
	m, err = Import(bytes.NewReader(throwRecording(t, 10000, "java/lang/RuntimeException")), nil, Options{IgnoreThrows: true})
	require.NoError(t, err)
	assert.Zero(t, m.Report.Throws.Samples)
	assert.Equal(t, 20000, m.Report.Throws.Events)
	for name := range m.Recorded.MethodWeights() {
		assert.NotContains(t, name, "fillInStackTrace")
	}

	_, err = Import(bytes.NewReader(throwRecording(t, 1, "java/lang/RuntimeException")), nil, Options{ThrowWalkPerFrame: -1})
	assert.ErrorContains(t, err, "throw walk cost per frame: -1 ns must be > 0")
}

// A throwable whose class overrides fillInStackTrace() without calling
// another fillInStackTrace does not walk the stack; one that calls
// Throwable's does. Throwable's constructor frame moves to its call of
// fillInStackTrace().
// throwableClasses are Throwable — its <init>(String) calling
// fillInStackTrace(), which calls fillInStackTrace(int), both through
// pool entry 1 — Exception and RuntimeException.
func throwableClasses(t testing.TB) (throwable, exc, rte *classfile.Class, pool classfile.Pool) {
	t.Helper()
	pool = methodRefPool(t, "java/lang/Throwable", "fillInStackTrace", "()Ljava/lang/Throwable;")
	throwable = &classfile.Class{Name: "java/lang/Throwable", Super: "java/lang/Object", Pool: pool, Methods: []classfile.Method{
		// <init>(String): aload_0, invokevirtual #1 fillInStackTrace()
		{Name: "<init>", Descriptor: "(Ljava/lang/String;)V", Code: &classfile.Code{Bytecode: []byte{0x2a, 0x2a, 0xb6, 0, 1, 0x57, 0xb1}}},
		{Name: "fillInStackTrace", Descriptor: "()Ljava/lang/Throwable;", Code: &classfile.Code{Bytecode: []byte{0x2a, 0x03, 0xb6, 0, 1, 0xb0}}},
	}}
	exc = &classfile.Class{Name: "java/lang/Exception", Super: "java/lang/Throwable"}
	rte = &classfile.Class{Name: "java/lang/RuntimeException", Super: "java/lang/Exception"}
	return throwable, exc, rte, pool
}

func TestThrowableWalksFollowsOverrides(t *testing.T) {
	throwable, exc, rte, pool := throwableClasses(t)
	cheap := &classfile.Class{Name: "app/Cheap", Super: "java/lang/RuntimeException", Methods: []classfile.Method{
		{Name: "fillInStackTrace", Descriptor: "()Ljava/lang/Throwable;", Code: &classfile.Code{Bytecode: []byte{0x2a, 0xb0}}}}}
	calls := &classfile.Class{Name: "app/Calls", Super: "java/lang/RuntimeException", Pool: pool, Methods: []classfile.Method{
		{Name: "fillInStackTrace", Descriptor: "()Ljava/lang/Throwable;", Code: &classfile.Code{Bytecode: []byte{0x2a, 0xb7, 0, 1, 0xb0}}}}}
	cp := classfile.ClasspathOf(throwable, cheap, calls, rte, exc)

	for _, c := range []struct {
		class string
		want  walkKind
	}{{"java/lang/RuntimeException", walkYes}, {"app/Cheap", walkNone}, {"app/Calls", walkYes}, {"app/Missing", walkUnknown}} {
		got, err := throwableWalks(cp, c.class)
		require.NoError(t, err)
		assert.Equal(t, c.want, got, c.class)
	}

	m, err := Import(bytes.NewReader(throwRecording(t, 10000, "app/Cheap")), cp, Options{})
	require.NoError(t, err)
	assert.Equal(t, 10000, m.Report.Throws.Unwalked)
	assert.Zero(t, m.Report.Throws.Samples)

	fr, err := throwFrames(cp, []jfrjson.Frame{{Method: jfrjson.Method{Class: "java/lang/Throwable", Name: "<init>", Descriptor: "(Ljava/lang/String;)V"}, BCI: 35, Type: jfrjson.JITCompiled}})
	require.NoError(t, err)
	require.Len(t, fr, 3)
	assert.Equal(t, fillInStackTraceNative, fr[0].Method)
	assert.Equal(t, jfrjson.Native, fr[0].Type)
	assert.Equal(t, fillInStackTrace, fr[1].Method)
	assert.Equal(t, 2, fr[1].BCI, "fillInStackTrace()'s call of fillInStackTrace(int)")
	assert.Equal(t, 2, fr[2].BCI, "the constructor's call of fillInStackTrace()")
}

// methodRefPool is a constant pool whose entry 1 is a Methodref to
// class.name descriptor.
func methodRefPool(t testing.TB, class, name, descriptor string) classfile.Pool {
	t.Helper()
	return classfile.Pool{
		{},
		{Tag: classfile.TagMethodref, A: 2, B: 3},
		{Tag: classfile.TagClass, A: 4},
		{Tag: classfile.TagNameAndType, A: 5, B: 6},
		{Tag: classfile.TagUtf8, Str: class},
		{Tag: classfile.TagUtf8, Str: name},
		{Tag: classfile.TagUtf8, Str: descriptor},
	}
}

// TestCatchSite: a throwable's handler is found in the class files'
// exception tables on its construction stack — a typed handler covering
// the frame's bytecode index, for its class or a superclass — and each
// compiled frame it enters from a callee in another physical frame is
// counted as HotSpot's deoptimization under JVMTI exception events.
func TestCatchSite(t *testing.T) {
	throwable, exc, rte, _ := throwableClasses(t)
	app := func(workHandler, mainHandler string) *classfile.Class {
		code := func(start, end uint16, typ string) *classfile.Code {
			c := &classfile.Code{Bytecode: make([]byte, 16)}
			if typ != "-" {
				c.Exceptions = []classfile.ExceptionHandler{{StartPC: start, EndPC: end, HandlerPC: 12, CatchType: typ}}
			}
			return c
		}
		return &classfile.Class{Name: "App", Super: "java/lang/Object", Methods: []classfile.Method{
			{Name: "work", Descriptor: "()V", Code: code(5, 9, workHandler)}, // covers the construction at bci 7
			{Name: "main", Descriptor: "()V", Code: code(0, 8, mainHandler)}, // covers the call at bci 4
		}}
	}
	for _, c := range []struct {
		name       string
		work, main string
		caught     [4]int
		deopts     int
	}{
		{"caught one frame up, entering App.main's compiled frame", "-", "java/lang/RuntimeException", [4]int{0, 10000, 0, 0}, 10000},
		{"a superclass's handler catches it", "-", "java/lang/Throwable", [4]int{0, 10000, 0, 0}, 10000},
		{"caught where it was made: no frame entered", "java/lang/Exception", "java/lang/RuntimeException", [4]int{10000, 0, 0, 0}, 0},
		{"a finally block rethrows; another class's handler does not match", "", "java/lang/IllegalStateException", [4]int{0, 0, 0, 10000}, 0},
	} {
		cp := classfile.ClasspathOf(throwable, rte, exc, app(c.work, c.main))
		m, err := Import(bytes.NewReader(throwRecording(t, 10000, "java/lang/RuntimeException")), cp, Options{})
		require.NoError(t, err, c.name)
		assert.Equal(t, c.caught, m.Report.Throws.Caught, c.name)
		assert.Equal(t, c.deopts, m.Report.Throws.Deopts, c.name)
		// The model throws those caught in a caller, after App.work's
		// call of the constructor, at the handler's depth.
		thrown := modelThrows(m.Program, "App.work()V")
		if c.caught[1] > 0 {
			require.Len(t, thrown, 1, c.name)
			assert.Equal(t, 1, thrown[0].Depth, c.name)
			assert.Equal(t, 1, m.Report.Throws.Sites, c.name)
			assert.Equal(t, c.caught[1], m.Report.Throws.Thrown, c.name)
		} else {
			assert.Empty(t, thrown, c.name)
			assert.Zero(t, m.Report.Throws.Thrown, c.name)
		}
	}
}

// modelThrows lists the throws (call.throws) of method ref's calls.
func modelThrows(p *program.Program, ref string) []*program.Thrown {
	var out []*program.Thrown
	for i := range p.Methods {
		if p.Methods[i].Key() == ref {
			program.Walk(p.Methods[i].Body, func(s *program.Stmt) {
				if s.Call != nil && s.Call.Throws != nil {
					out = append(out, s.Call.Throws)
				}
			})
		}
	}
	return out
}

// A method that throws a shared object on every call (classfile's
// SharedThrow: App.fail throws the static App.CACHED) makes each of its
// model calls throw once, at the depth the class files' handlers catch
// it on the recorded stacks through the call — though no throwable
// event was recorded.
func TestSharedThrows(t *testing.T) {
	throwable, exc, rte, _ := throwableClasses(t)
	pool := classfile.Pool{
		{},
		{Tag: classfile.TagMethodref, A: 4, B: 5},
		{Tag: classfile.TagMethodref, A: 4, B: 6},
		{Tag: classfile.TagFieldref, A: 4, B: 7},
		{Tag: classfile.TagClass, A: 8},
		{Tag: classfile.TagNameAndType, A: 9, B: 10},
		{Tag: classfile.TagNameAndType, A: 11, B: 10},
		{Tag: classfile.TagNameAndType, A: 12, B: 13},
		{Tag: classfile.TagUtf8, Str: "App"},
		{Tag: classfile.TagUtf8, Str: "fail"},
		{Tag: classfile.TagUtf8, Str: "()V"},
		{Tag: classfile.TagUtf8, Str: "work"},
		{Tag: classfile.TagUtf8, Str: "CACHED"},
		{Tag: classfile.TagUtf8, Str: "Ljava/lang/RuntimeException;"},
	}
	app := func(handler string) *classfile.Class {
		main := &classfile.Code{Bytecode: []byte{0, 0, 0, 0, 0xb8, 0, 2, 0xb1}} // invokestatic work at bci 4
		if handler != "" {
			main.Exceptions = []classfile.ExceptionHandler{{StartPC: 0, EndPC: 7, HandlerPC: 7, CatchType: handler}}
		}
		return &classfile.Class{Name: "App", Super: "java/lang/Object", Pool: pool, Methods: []classfile.Method{
			{Name: "fail", Descriptor: "()V", AccessFlags: classfile.AccStatic, Code: &classfile.Code{Bytecode: []byte{0xb2, 0, 3, 0xbf}}},       // getstatic CACHED; athrow
			{Name: "work", Descriptor: "()V", AccessFlags: classfile.AccStatic, Code: &classfile.Code{Bytecode: []byte{0, 0, 0xb8, 0, 1, 0xb1}}}, // invokestatic fail at bci 2
			{Name: "main", Descriptor: "()V", AccessFlags: classfile.AccStatic, Code: main},
		}}
	}
	var buf bytes.Buffer
	w := jfrjson.NewWriter(&buf)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	frame := func(name string, bci int) jfrjson.Frame {
		return jfrjson.Frame{Method: jfrjson.Method{Class: "App", Name: name, Descriptor: "()V"}, BCI: bci, Type: jfrjson.JITCompiled}
	}
	for k := 0; k < 100; k++ {
		require.NoError(t, w.Write(&jfrjson.Event{Sample: &jfrjson.Sample{Time: at.Add(time.Duration(k) * time.Millisecond),
			Thread: jfrjson.Thread{Name: "main", JavaID: 1, IsJava: true}, Frames: []jfrjson.Frame{frame("fail", 0), frame("work", 2), frame("main", 4)}}}))
	}
	require.NoError(t, w.Close())

	for _, c := range []struct {
		name, handler string
		want          []*program.Thrown
	}{
		{"caught in main, one frame above work", "java/lang/RuntimeException", []*program.Thrown{{Depth: 1, Times: 1}}},
		{"caught by a superclass's handler", "java/lang/Exception", []*program.Thrown{{Depth: 1, Times: 1}}},
		{"no handler on the stack", "", nil},
		{"another class's handler", "java/lang/IllegalStateException", nil},
	} {
		m, err := Import(bytes.NewReader(buf.Bytes()), classfile.ClasspathOf(throwable, exc, rte, app(c.handler)), Options{})
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, modelThrows(m.Program, "App.work()V"), c.name)
		assert.Equal(t, len(c.want), m.Report.Throws.SharedSites, c.name)
		assert.Zero(t, m.Report.Throws.Sites, c.name)
	}
}
