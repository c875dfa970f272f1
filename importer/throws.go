package importer

import (
	"errors"
	"fmt"
	"strings"

	"github.com/profsim/profsim/classfile"
	"github.com/profsim/profsim/jfrjson"
)

// The stack walk a throwable's construction makes: Throwable's
// constructors call fillInStackTrace(), which calls the native
// fillInStackTrace(int), whose body is JVM_FillInStackTrace (prims/jvm.cpp,
// a JVM_ENTRY: the thread is _thread_in_vm) and so
// java_lang_Throwable::fill_in_stack_trace (classfile/javaClasses.cpp),
// which walks every frame of the thread's stack, skipping the
// fillInStackTrace frames and the throwable's own constructors and
// recording up to MaxJavaStackTraceDepth. Neither of JFR's samplers takes
// a thread in the VM, so a recording's samples hold none of that time; its
// jdk.JavaExceptionThrow events give each throwable's class and stack, and
// the cost of a walk is measured (tools/calibrate: throw_walk_fixed,
// throw_walk_per_frame).
const (
	// DefaultThrowWalkFixed is a walk's cost besides its frames, in ns
	// (calibration.csv's throw_walk_fixed, OpenJDK 17.0.15 on this
	// project's 2-core machine).
	DefaultThrowWalkFixed = 110.0
	// DefaultThrowWalkPerFrame is a walk's cost per frame walked, in ns
	// (calibration.csv's throw_walk_per_frame).
	DefaultThrowWalkPerFrame = 18.0
	// MaxJavaStackTraceDepth is HotSpot's default
	// -XX:MaxJavaStackTraceDepth: the walk stops after recording that many
	// frames.
	MaxJavaStackTraceDepth = 1024
	// throwWalkSkipped are the frames the walk passes without recording:
	// fillInStackTrace() and fillInStackTrace(int), which a
	// jdk.JavaExceptionThrow stack does not hold (the event is emitted
	// after they returned).
	throwWalkSkipped = 2
)

const throwableClass = "java/lang/Throwable"

// The two methods a throwable's stack walk runs in, as the model names
// them: the Java method Throwable's constructors call and the native one
// it calls.
var (
	fillInStackTrace       = jfrjson.Method{Class: throwableClass, Name: "fillInStackTrace", Descriptor: "()Ljava/lang/Throwable;"}
	fillInStackTraceNative = jfrjson.Method{Class: throwableClass, Name: "fillInStackTrace", Descriptor: "(I)Ljava/lang/Throwable;"}
)

// throwSamples aggregates jdk.JavaExceptionThrow events by thread, class
// and stack, until the period is known (addThrows).
type throwSamples struct {
	stacks map[string]*throwStack
	order  []string
	// events counts every event; recorder those of the recorder's own
	// threads (left out with them); truncated and empty those whose stack
	// lost its root or has no frames (not used).
	events, recorder, truncated, empty int
	key                                strings.Builder
	report                             ThrowReport
	// sites counts, by where they were made, the throwables whose
	// handler is in a caller: by that handler's depth (catchSite).
	sites map[throwSite]map[int]int
}

// throwSite is where throwables were made: the constructing method and
// the bytecode index of its call of their constructor.
type throwSite struct {
	m   jfrjson.Method
	bci int
}

type throwStack struct {
	t     *jfrjson.Throw // the first event of the stack
	count int
	// ns is the walks' time and frames the stack of their samples
	// (throwTime); frames is nil for a throwable not modelled.
	ns     float64
	frames []jfrjson.Frame
}

func (ts *throwSamples) add(t *jfrjson.Throw) {
	n := max(t.Count, 1)
	ts.events += n
	if t.Truncated || len(t.Frames) == 0 {
		if t.Truncated {
			ts.truncated += n
		} else {
			ts.empty += n
		}
		return
	}
	k := &ts.key
	stackKey(k, t.Thread, t.Class, t.Frames)
	st, ok := ts.stacks[k.String()]
	if !ok {
		st = &throwStack{t: t}
		ts.stacks[k.String()] = st
		ts.order = append(ts.order, k.String())
	}
	st.count += n
}

// ThrowReport is what an import made of a recording's throwables.
type ThrowReport struct {
	// Events counts the jdk.JavaExceptionThrow events; Used those of the
	// model's threads whose walk is modelled. Other counts those of
	// threads without execution samples (not in the model), Recorder
	// those of the recorder's own threads, Unusable those whose stack was
	// truncated or empty, and Unwalked those whose class overrides
	// fillInStackTrace() without calling Throwable's (no walk).
	Events, Used, Other, Recorder, Unusable, Unwalked int
	// Samples is how many samples of Period the walks were modelled as,
	// Time their total (ns), MeanFrames the mean frames a walk passed.
	Samples    int
	Time       float64
	MeanFrames float64
	// UnknownClasses counts the throwables whose class (or a superclass)
	// is not on the classpath: their walk is modelled, as for a class that
	// does not override fillInStackTrace().
	UnknownClasses int
	// Caught counts the used throwables by where the class files'
	// exception tables would catch them (catchSite): [0] in the method
	// that constructed them, [1] one frame up, [2] further up, [3] no
	// handler found on their stack (or a class file missing).
	Caught [4]int
	// Deopts counts the compiled frames the used throwables would enter
	// from a callee on their way to the handler, by their stacks' frame
	// types: what HotSpot deoptimizes while an agent holds exception
	// events (sim.VM.SetCatchDeopt). It assumes each is thrown where it
	// was constructed.
	Deopts int
	// Sites counts the model's calls of a throwable's constructor that
	// throw once they return (program.Thrown), and Thrown the throwables
	// they stand for: those made there and caught in a caller.
	Sites, Thrown int
	// SharedSites counts the model's calls of methods that throw a shared
	// object on every call (classfile.Body.SharedThrow), which throw once
	// a call when they return: throws no throwable event counts.
	SharedSites int
}

// throwTime decides, for each folded throwable of a model thread, whether
// its construction walks the stack and what the walk costs: fixed +
// perFrame × the frames it passes (ns). It returns the walks' total time
// by thread (index in rec.threads); addThrows then adds them as samples.
func (rec *recording) throwTime(cp *classfile.Classpath, fixed, perFrame float64) (map[int]float64, error) {
	ts := &rec.throws
	r := &ts.report
	*r = ThrowReport{Events: ts.events, Recorder: ts.recorder, Unusable: ts.truncated + ts.empty}
	walks := map[string]walkKind{}
	byThread := map[int]float64{}
	var frames float64
	for _, k := range ts.order {
		st := ts.stacks[k]
		t := st.t
		ti, ok := rec.byThread[threadKey{t.Thread.Name, threadID(t.Thread)}]
		if !ok {
			r.Other += st.count
			continue
		}
		w, ok := walks[t.Class]
		if !ok {
			var err error
			if w, err = throwableWalks(cp, t.Class); err != nil {
				return nil, err
			}
			walks[t.Class] = w
		}
		switch w {
		case walkNone:
			r.Unwalked += st.count
			continue
		case walkUnknown:
			r.UnknownClasses += st.count
		}
		fr, err := throwFrames(cp, t.Frames)
		if err != nil {
			return nil, err
		}
		depth, deopts, first, err := catchSite(cp, t.Class, t.Frames)
		if err != nil {
			return nil, err
		}
		if depth >= 1 && first >= 1 {
			k := throwSite{m: t.Frames[first].Method, bci: t.Frames[first].BCI}
			if ts.sites[k] == nil {
				ts.sites[k] = map[int]int{}
			}
			ts.sites[k][depth] += st.count
		}
		switch {
		case depth < 0:
			r.Caught[3] += st.count
		case depth >= 2:
			r.Caught[2] += st.count
		default:
			r.Caught[depth] += st.count
		}
		r.Deopts += deopts * st.count
		n := float64(min(len(t.Frames), MaxJavaStackTraceDepth) + throwWalkSkipped)
		st.ns = float64(st.count) * (fixed + perFrame*n)
		st.frames = fr
		byThread[ti] += st.ns
		r.Time += st.ns
		frames += float64(st.count) * n
		r.Used += st.count
	}
	if r.Used > 0 {
		r.MeanFrames = frames / float64(r.Used)
	}
	return byThread, nil
}

// addThrows adds the stack walks throwTime costed as samples of the
// native Throwable.fillInStackTrace(int) on the throwable's stack, a
// sample standing for period (ns), rounded over all stacks together so
// that their total is the walks' total time to within one sample.
func (rec *recording) addThrows(period float64) ThrowReport {
	ts := &rec.throws
	var r rounder
	for _, k := range ts.order {
		st := ts.stacks[k]
		if st.frames == nil {
			continue
		}
		if n := r.add(st.ns / period); n > 0 {
			rec.sample(&jfrjson.Sample{Time: st.t.Time, Thread: st.t.Thread, Frames: st.frames}, n)
		}
	}
	ts.report.Samples = r.emitted
	ts.stacks, ts.order = nil, nil
	return ts.report
}

type walkKind uint8

const (
	walkYes     walkKind = iota // Throwable's fillInStackTrace() runs
	walkUnknown                 // a class in the hierarchy is not on the classpath
	walkNone                    // an override that does not call Throwable's
)

// throwableWalks says whether constructing a throwable of class walks the
// stack: unless a class between it and Throwable declares
// fillInStackTrace() without calling another fillInStackTrace (the idiom
// of throwables made cheap on purpose).
func throwableWalks(cp *classfile.Classpath, class string) (walkKind, error) {
	if cp == nil {
		return walkUnknown, nil
	}
	for c, depth := class, 0; c != throwableClass && c != ""; depth++ {
		if depth > 64 {
			return walkUnknown, nil // a broken hierarchy: cannot tell
		}
		cf, err := cp.Class(c)
		switch {
		case errors.Is(err, classfile.ErrNotFound):
			return walkUnknown, nil
		case err != nil:
			return walkUnknown, fmt.Errorf("throwable class %s: %w", className(c), err)
		}
		if m := cf.Method(fillInStackTrace.Name, fillInStackTrace.Descriptor); m != nil && m.Code != nil {
			if !invokes(cf, m, fillInStackTrace.Name) {
				return walkNone, nil
			}
			return walkYes, nil
		}
		c = cf.Super
	}
	return walkYes, nil
}

// invokes reports whether method m of class c calls a method named name.
func invokes(c *classfile.Class, m *classfile.Method, name string) bool {
	return invokeAt(c, m, name) >= 0
}

// invokeAt is the bytecode index of m's first call to a method named
// name, or -1.
func invokeAt(c *classfile.Class, m *classfile.Method, name string) int {
	if m == nil || m.Code == nil {
		return -1
	}
	ins, err := classfile.Decode(m.Code.Bytecode)
	if err != nil {
		return -1
	}
	for i := range ins {
		if !ins[i].IsInvoke() || ins[i].Op == classfile.OpInvokedynamic {
			continue
		}
		if _, n, _, err := c.Pool.MethodRef(ins[i].Index); err == nil && n == name {
			return ins[i].BCI
		}
	}
	return -1
}

// throwFrames is a throwable's stack as a sample of its walk: the
// native fillInStackTrace(int) on top, then fillInStackTrace(), then the
// event's frames with Throwable's constructor at its call of
// fillInStackTrace() where the classpath has Throwable (the event is
// emitted at the constructor's end, at a bytecode index JFR's
// instrumentation added).
func throwFrames(cp *classfile.Classpath, event []jfrjson.Frame) ([]jfrjson.Frame, error) {
	out := make([]jfrjson.Frame, 0, len(event)+2)
	ctor := event[0]
	typ := ctor.Type
	if typ == jfrjson.Native || typ == "" {
		typ = jfrjson.Interpreted
	}
	inner, outer := -1, -1
	if cp != nil && ctor.Method.Class == throwableClass && ctor.Method.Name == "<init>" {
		c, err := cp.Class(throwableClass)
		switch {
		case errors.Is(err, classfile.ErrNotFound):
		case err != nil:
			return nil, fmt.Errorf("class %s: %w", className(throwableClass), err)
		default:
			outer = invokeAt(c, c.Method("<init>", ctor.Method.Descriptor), fillInStackTrace.Name)
			inner = invokeAt(c, c.Method(fillInStackTrace.Name, fillInStackTrace.Descriptor), fillInStackTrace.Name)
		}
	}
	out = append(out,
		jfrjson.Frame{Method: fillInStackTraceNative, BCI: -1, Type: jfrjson.Native},
		jfrjson.Frame{Method: fillInStackTrace, BCI: max(inner, 0), Type: typ})
	if outer >= 0 {
		ctor.BCI = outer
	}
	out = append(out, ctor)
	return append(out, event[1:]...), nil
}

// catchSite finds where the JVM would catch a throwable of class whose
// construction stack is frames (innermost first, as jdk.JavaExceptionThrow
// records it), assuming it is thrown where it was constructed: depth is
// the number of frames between the constructing method — the first frame
// that is not a constructor of class or of one of its superclasses — and
// the first frame whose method has an exception-table entry covering the
// frame's bytecode index for class or a superclass (a typed handler; a
// finally block rethrows); -1 when no frame has one or a class file is
// missing. deopts counts the frames on the way, the handler's included,
// that the exception enters from a callee in another physical frame (the
// callee's frame not Inlined) and that run compiled code (JIT compiled
// or Inlined): JvmtiExport::can_post_on_exceptions deoptimizes each
// (OptoRuntime::handle_exception_C_helper). first is the constructing
// method's frame.
func catchSite(cp *classfile.Classpath, class string, frames []jfrjson.Frame) (depth, deopts, first int, err error) {
	if cp == nil {
		return -1, 0, 0, nil
	}
	supers := map[string]bool{}
	for c, n := class, 0; c != "" && n <= 64; n++ {
		supers[c] = true
		cf, err := cp.Class(c)
		if errors.Is(err, classfile.ErrNotFound) {
			break
		}
		if err != nil {
			return 0, 0, 0, fmt.Errorf("throwable class %s: %w", className(c), err)
		}
		c = cf.Super
	}
	for first < len(frames) && frames[first].Method.Name == "<init>" && supers[frames[first].Method.Class] {
		first++
	}
	for i := first; i < len(frames); i++ {
		f := frames[i]
		if i > first && frames[i-1].Type != jfrjson.Inlined && (f.Type == jfrjson.JITCompiled || f.Type == jfrjson.Inlined) {
			deopts++
		}
		cf, err := cp.Class(f.Method.Class)
		if errors.Is(err, classfile.ErrNotFound) {
			return -1, 0, 0, nil
		}
		if err != nil {
			return 0, 0, 0, fmt.Errorf("class %s: %w", className(f.Method.Class), err)
		}
		m := cf.Method(f.Method.Name, f.Method.Descriptor)
		if m == nil || m.Code == nil {
			continue
		}
		for _, h := range m.Code.Exceptions {
			if h.CatchType != "" && supers[h.CatchType] && int(h.StartPC) <= f.BCI && f.BCI < int(h.EndPC) {
				return i - first, deopts, first, nil
			}
		}
	}
	return -1, 0, 0, nil
}
