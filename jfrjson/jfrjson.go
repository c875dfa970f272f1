// Package jfrjson streams the JSON that the JDK's `jfr print --json`
// writes for a Java Flight Recorder recording, and turns the events a
// profile is made of into Go values: execution samples and native method
// samples (thread, stack of method, line, bytecode index and frame type),
// compilations and inlining
// decisions, throwables constructed, thread starts and the recording's own
// extent.
//
// The shape read is JDK 17's (jdk.jfr.tool.PrettyWriter's JSON mode):
//
//	{"recording": {"events": [{"type": "jdk.ExecutionSample", "values": {...}}, ...]}}
//
// Recordings are large (a 1 ms sampling period gives ~1 KB of JSON per
// sample per thread and second), so Read decodes one event at a time with
// a json.Decoder and hands each to a callback; nothing holds the whole
// document. Unknown event types and unknown fields are skipped, so the
// output of any --events selection is accepted. Write emits the same shape
// with only the fields Read uses: a compact copy of a recording that Read
// reads back to equal values.
package jfrjson

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// Event type names (JDK 17's jdk.jfr event metadata).
const (
	TypeExecutionSample = "jdk.ExecutionSample"
	TypeNativeSample    = "jdk.NativeMethodSample"
	TypeCompilation     = "jdk.Compilation"
	TypeInlining        = "jdk.CompilerInlining"
	TypeThreadStart     = "jdk.ThreadStart"
	TypeActiveRecording = "jdk.ActiveRecording"
	TypeExceptionThrow  = "jdk.JavaExceptionThrow"
	TypeThreadCPULoad   = "jdk.ThreadCPULoad"
	TypeCPUInformation  = "jdk.CPUInformation"
)

// FrameType is how a frame was executing, as JFR names it.
type FrameType string

// JDK 17's frame types (jfrStackTrace.cpp, JfrStackFrame::_type names in
// the FrameType constant pool).
const (
	Interpreted FrameType = "Interpreted"
	JITCompiled FrameType = "JIT compiled"
	Inlined     FrameType = "Inlined"
	Native      FrameType = "Native"
)

// Method identifies a Java method. Class is the binary name with '/'
// separators, as JFR prints it ("java/lang/String").
type Method struct {
	Class, Name, Descriptor string
	// Hidden marks hidden frames (lambda forms and the like).
	Hidden bool
}

// String is "Class.name(descriptor)" with '.' separators.
func (m Method) String() string {
	return strings.ReplaceAll(m.Class, "/", ".") + "." + m.Name + m.Descriptor
}

// Frame is one stack frame of a sample.
type Frame struct {
	Method Method
	// Line is the source line, 0 or negative when unknown.
	Line int
	// BCI is the bytecode index: the current instruction in the leaf frame,
	// the invoke instruction in its callers.
	BCI  int
	Type FrameType
}

// Thread is a Java thread as JFR identifies it.
type Thread struct {
	Name   string // javaName (osName if it has none)
	JavaID int64
	OSID   int64
	IsJava bool // JavaID is set (a Java thread)
}

// Sample is a jdk.ExecutionSample: a thread seen running Java code
// (_thread_in_Java), or a jdk.NativeMethodSample: a thread seen in native
// code (_thread_in_native), its native method the leaf frame. Both have
// the same fields (JDK 17's jfrThreadSampler.cpp writes both from one
// walk, JfrStackTrace::record_thread).
type Sample struct {
	Time   time.Time
	Thread Thread
	// Frames are leaf first, as JFR records them.
	Frames []Frame
	// Truncated: the stack was deeper than the recording's stack depth
	// (-XX:FlightRecorderOptions:stackdepth, 64 by default) and lost its
	// root end.
	Truncated bool
	State     string
}

// Throw is a jdk.JavaExceptionThrow: a throwable constructed. JDK 17's
// JFR instruments every constructor of java.lang.Throwable to emit it as
// the constructor ends (jdk.jfr.internal.instrument.ConstructorTracerWriter
// and ThrowableTracer.traceThrowable), after Throwable.fillInStackTrace has
// walked the stack; so every throwable, an Error too, is one Throw.
type Throw struct {
	Time   time.Time
	Thread Thread
	// Frames are leaf first: the constructor of java.lang.Throwable that
	// emitted the event, then the subclasses' constructors, then the code
	// that constructed the throwable.
	Frames    []Frame
	Truncated bool
	// Class is the throwable's class, '/'-separated as JFR prints it.
	Class string
	// Count is how many throwables the event stands for: 1, or the
	// "count" that tools/realapps/ThrowFold.java writes when it folds the
	// events of one thread, class and stack into the first of them.
	Count int
}

// Compilation is a jdk.Compilation event.
type Compilation struct {
	Time         time.Time
	Duration     time.Duration
	ID           int64
	Compiler     string // "c1", "c2"
	Method       Method
	Level        int // 1–3 C1, 4 C2
	Succeeded    bool
	OSR          bool
	CodeSize     int64
	InlinedBytes int64
}

// Inlining is a jdk.CompilerInlining event: one decision of compilation
// ID about the call at BCI in Caller.
type Inlining struct {
	Time      time.Time
	ID        int64
	Caller    Method
	Callee    Method
	Succeeded bool
	Message   string
	BCI       int
}

// ThreadStart is a jdk.ThreadStart event.
type ThreadStart struct {
	Time           time.Time
	Thread, Parent Thread
}

// Recording is a jdk.ActiveRecording event: the recording's extent.
type Recording struct {
	Start    time.Time
	Duration time.Duration
	Name     string
}

// ThreadCPULoad is a jdk.ThreadCPULoad event: the CPU time a thread used
// since the previous period, in user and in system mode, as shares of the
// wall time times the active processors (JfrThreadCPULoadEvent::
// update_event, jfr/periodic/jfrThreadCPULoadEvent.cpp: the larger of this
// and the last period's os::active_processor_count()), so a thread busy on
// one CPU of two has user + system 0.5. A period in which the thread used
// less than 1 ms of CPU sends no event.
type ThreadCPULoad struct {
	Time         time.Time
	Thread       Thread
	User, System float64
}

// CPUInformation is a jdk.CPUInformation event: the recording machine's
// hardware threads, cores and sockets.
type CPUInformation struct {
	HWThreads, Cores, Sockets int64
}

// Event is one event; exactly one pointer is set, or none for a type this
// package does not decode (Type says which).
type Event struct {
	Type   string
	Sample *Sample
	// NativeSample is a jdk.NativeMethodSample.
	NativeSample *Sample
	Compilation  *Compilation
	Inlining     *Inlining
	ThreadStart  *ThreadStart
	Recording    *Recording
	Throw        *Throw
	CPULoad      *ThreadCPULoad
	CPUInfo      *CPUInformation
}

// ErrShape reports JSON that is not `jfr print --json` output.
var ErrShape = errors.New("not the JSON of `jfr print --json`")

// Limits of what Read holds in memory at once. The document is
// streamed, so its size has no limit; one event and one string are read
// whole, so each has one.
const (
	// MaxString bounds one JSON string, in bytes as written (escapes
	// included), and one number or literal. A JVM's names are at most 65535 bytes (MaxName), six
	// bytes each as \u escapes; the longest other strings of a recording
	// (a system property holding a class path, a command line) are
	// hundreds of KiB. 16 MiB refuses only a broken or hostile file.
	MaxString = 16 << 20
	// MaxEvent bounds one event, in bytes as written but for runs of
	// whitespace (each counts one). JFR keeps at most
	// 2048 frames of a stack (-XX:FlightRecorderOptions:stackdepth's
	// maximum), about 1.5 MB of jfr print's JSON at its 700 bytes a frame
	// without the indentation;
	// 256 MiB holds a 100 000-frame stack of it three times over, and decoding
	// one event takes about three times its size.
	MaxEvent = 256 << 20
	// MaxName bounds a class name, a method name and a descriptor, in
	// bytes of UTF-8: a CONSTANT_Utf8 holds at most 65535 bytes of
	// modified UTF-8 (JVMS §4.4.7), never fewer than the UTF-8 of the
	// same text.
	MaxName = 65535
	// MaxBCI is the largest bytecode index: code_length < 65536 (JVMS
	// §4.7.3).
	MaxBCI = 65535
)

// LimitError reports input over one of Read's limits.
type LimitError struct {
	What  string // "string", "number" (or literal), "event"
	Limit int64  // bytes
	// Offset is the byte of the input where the string or number
	// starts; -1 for an event (the error names its index).
	Offset int64
}

func (e *LimitError) Error() string {
	if e.What == "event" {
		return fmt.Sprintf("a JSON event longer than %d bytes, whitespace aside (jfrjson.MaxEvent)", e.Limit)
	}
	return fmt.Sprintf("a JSON %s longer than %d bytes (jfrjson.MaxString) at byte %d", e.What, e.Limit, e.Offset)
}

// guard passes the input to the decoder and fails it, before the
// decoder has buffered it whole, at a string longer than MaxString or an
// event longer than MaxEvent. It follows JSON's strings lexically: a '"'
// outside a string opens one, an unescaped '"' inside closes it. Outside
// strings it passes each run of whitespace on as one space: the JSON is
// the same, jfr print's indentation costs the decoder nothing, and the
// decoder's whitespace skipping (which rescans its buffer on each read)
// never meets a long run.
type guard struct {
	r         io.Reader
	off       int64 // bytes read from r
	passed    int64 // bytes passed on (the decoder's InputOffset)
	inString  bool
	escape    bool
	space     bool  // the last byte passed on outside a string was whitespace
	scalar    int64 // bytes so far of the number or literal being read
	start     int64 // the open string's first byte in r
	mark      int64 // the current event's first byte passed on, or noEvent
	maxString int64
	maxEvent  int64
	err       error
}

func (g *guard) Read(p []byte) (int, error) {
	for {
		n, err := g.read(p)
		// A chunk of whitespace already passed on gives nothing: read on
		// rather than return 0, nil (which io.Reader discourages).
		if n > 0 || err != nil {
			return n, err
		}
	}
}

func (g *guard) read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if g.passed-g.mark > g.maxEvent {
		g.err = &LimitError{What: "event", Limit: g.maxEvent, Offset: -1}
		return 0, g.err
	}
	// Small reads: the input past a limit is never read, whatever the
	// decoder's buffer has room for.
	n, err := g.r.Read(p[:min(len(p), guardChunk)])
	w := 0
	for i := 0; i < n; i++ {
		c := p[i]
		switch {
		case !g.inString:
			switch c {
			case ' ', '\n', '\t', '\r':
				g.scalar = 0
				if g.space {
					continue
				}
				g.space = true
				c = ' '
			case '"':
				g.inString, g.start, g.space, g.scalar = true, g.off+int64(i), false, 0
			case '{', '}', '[', ']', ',', ':':
				g.space, g.scalar = false, 0
			default: // a number's or a literal's
				if g.scalar == 0 {
					g.start = g.off + int64(i)
				}
				g.space = false
				g.scalar++
				if g.scalar > g.maxString {
					g.err = &LimitError{What: "number", Limit: g.maxString, Offset: g.start}
					return 0, g.err
				}
			}
			p[w] = c
			w++
			continue
		case g.escape:
			g.escape = false
		case c == '\\':
			g.escape = true
		case c == '"':
			g.inString = false
		}
		if g.off+int64(i)-g.start > g.maxString {
			g.err = &LimitError{What: "string", Limit: g.maxString, Offset: g.start}
			return 0, g.err
		}
		p[w] = c
		w++
	}
	g.off += int64(n)
	g.passed += int64(w)
	return w, err
}

// guardChunk is the most a guard reads at once.
const guardChunk = 64 << 10

// noEvent is guard.mark outside events: no value there is read whole.
const noEvent = math.MaxInt64 / 2

// Read streams the events of r to fn in file order: those of one document
// or of several one after the other (record.sh appends the throwables
// folded by tools/realapps/ThrowFold.java to jfr print's). It stops at the first
// error, fn's included (returned as is). A string or an event over its
// limit (MaxString, MaxEvent) is a *LimitError, found before it is read
// whole.
func Read(r io.Reader, fn func(*Event) error) error {
	return readLimited(r, fn, MaxString, MaxEvent)
}

func readLimited(r io.Reader, fn func(*Event) error, maxString, maxEvent int64) error {
	g := &guard{r: bufio.NewReaderSize(r, 1<<16), maxString: maxString, maxEvent: maxEvent, mark: noEvent}
	dec := json.NewDecoder(g)
	dec.UseNumber()
	// fail reports err at where: the limit's error if the guard stopped
	// the input, else the shape's.
	fail := func(where string, err error) error {
		if g.err != nil {
			return fmt.Errorf("%s: %w", where, g.err)
		}
		return fmt.Errorf("%w: %s: %v", ErrShape, where, err)
	}
	expect := func(want json.Delim, where string) error {
		tok, err := dec.Token()
		if err != nil {
			return fail(where, err)
		}
		if d, ok := tok.(json.Delim); !ok || d != want {
			return fmt.Errorf("%w: %s: got %v, want %v", ErrShape, where, tok, want)
		}
		return nil
	}
	// skip reads the next value token by token: an unknown key's value
	// of any size, held no more than a string at a time.
	skip := func(where string) error {
		depth := 0
		for {
			tok, err := dec.Token()
			if err != nil {
				return fail(where, err)
			}
			switch tok {
			case json.Delim('{'), json.Delim('['):
				depth++
			case json.Delim('}'), json.Delim(']'):
				depth--
			}
			if depth == 0 {
				return nil
			}
		}
	}
	// findKey reads keys of the current object until key, skipping the
	// values of the others.
	findKey := func(key, where string) error {
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return fail(where, err)
			}
			if k, _ := tok.(string); k == key {
				return nil
			}
			if err := skip(where); err != nil {
				return err
			}
		}
		if g.err != nil {
			return fmt.Errorf("%s: %w", where, g.err)
		}
		return fmt.Errorf("%w: %s: no %q", ErrShape, where, key)
	}
	// closeObject skips the rest of the current object's keys and values
	// and reads its '}'.
	closeObject := func(where string) error {
		for dec.More() {
			if _, err := dec.Token(); err != nil {
				return fail(where, err)
			}
			if err := skip(where); err != nil {
				return err
			}
		}
		return expect('}', where)
	}
	// One or more documents, one after the other: record.sh appends the
	// folded throwables (tools/realapps/ThrowFold.java) to jfr print's.
	for doc, i := 0, 0; ; doc++ {
		where := "document"
		if doc > 0 {
			where = fmt.Sprintf("document %d", doc+1)
		}
		tok, err := dec.Token()
		if err == io.EOF && doc > 0 && g.err == nil {
			return nil
		}
		if err != nil {
			return fail(where, err)
		}
		if d, ok := tok.(json.Delim); !ok || d != '{' {
			return fmt.Errorf("%w: %s: got %v, want {", ErrShape, where, tok)
		}
		if err := findKey("recording", where); err != nil {
			return err
		}
		if err := expect('{', "recording"); err != nil {
			return err
		}
		if err := findKey("events", "recording"); err != nil {
			return err
		}
		if err := expect('[', "recording.events"); err != nil {
			return err
		}
		for ; dec.More(); i++ {
			var raw wireEvent
			g.mark = dec.InputOffset()
			if err := dec.Decode(&raw); err != nil {
				if g.err != nil {
					return fmt.Errorf("recording.events[%d]: %w", i, g.err)
				}
				return fmt.Errorf("recording.events[%d]: %v", i, err)
			}
			g.mark = noEvent
			ev, err := raw.event()
			if err != nil {
				return fmt.Errorf("recording.events[%d] (%s): %w", i, raw.Type, err)
			}
			if err := fn(ev); err != nil {
				return err
			}
		}
		if g.err != nil {
			return fmt.Errorf("recording.events: %w", g.err)
		}
		if err := expect(']', "recording.events"); err != nil {
			return err
		}
		if err := closeObject("recording"); err != nil {
			return err
		}
		if err := closeObject(where); err != nil {
			return err
		}
	}
}

// ReadAll reads every sample, compilation and inlining event into memory:
// for small recordings and tests (Read streams).
func ReadAll(r io.Reader) ([]*Event, error) {
	var out []*Event
	err := Read(r, func(e *Event) error {
		if e.Type != "" {
			out = append(out, e)
		}
		return nil
	})
	return out, err
}

// The wire structures: JDK 17's field names. Fields Read does not use are
// not declared and so skipped by encoding/json.

type wireEvent struct {
	Type   string          `json:"type"`
	Values json.RawMessage `json:"values"`
}

type wireClass struct {
	Name string `json:"name"`
}

type wireMethod struct {
	Type       *wireClass `json:"type"`
	Name       string     `json:"name"`
	Descriptor string     `json:"descriptor"`
	Hidden     bool       `json:"hidden,omitempty"`
}

// wireCallee is jdk.CompilerInlining's callee: a struct whose type is a
// plain string (JDK 17's CalleeMethod).
type wireCallee struct {
	Type       string `json:"type"`
	Name       string `json:"name"`
	Descriptor string `json:"descriptor"`
}

type wireThread struct {
	OSName       string       `json:"osName,omitempty"`
	OSThreadID   *json.Number `json:"osThreadId,omitempty"`
	JavaName     string       `json:"javaName,omitempty"`
	JavaThreadID *json.Number `json:"javaThreadId,omitempty"`
}

type wireFrame struct {
	Method        *wireMethod  `json:"method"`
	LineNumber    *json.Number `json:"lineNumber,omitempty"`
	BytecodeIndex *json.Number `json:"bytecodeIndex,omitempty"`
	Type          string       `json:"type"`
}

type wireStack struct {
	Truncated bool        `json:"truncated"`
	Frames    []wireFrame `json:"frames"`
}

type wireSample struct {
	StartTime     string      `json:"startTime"`
	SampledThread *wireThread `json:"sampledThread"`
	StackTrace    *wireStack  `json:"stackTrace"`
	State         string      `json:"state,omitempty"`
}

type wireThrow struct {
	StartTime   string      `json:"startTime"`
	EventThread *wireThread `json:"eventThread"`
	StackTrace  *wireStack  `json:"stackTrace"`
	ThrownClass *wireClass  `json:"thrownClass"`
	// Count is not JFR's: ThrowFold.java's, absent from jfr print.
	Count *json.Number `json:"count,omitempty"`
}

type wireCompilation struct {
	StartTime    string      `json:"startTime"`
	Duration     string      `json:"duration,omitempty"`
	CompileID    json.Number `json:"compileId"`
	Compiler     string      `json:"compiler,omitempty"`
	Method       *wireMethod `json:"method"`
	CompileLevel json.Number `json:"compileLevel"`
	// JDK 17 spells it "succeded" (jdk.Compilation's field name); later
	// JDKs may correct it.
	Succeded     *bool        `json:"succeded,omitempty"`
	Succeeded    *bool        `json:"succeeded,omitempty"`
	IsOsr        bool         `json:"isOsr"`
	CodeSize     *json.Number `json:"codeSize,omitempty"`
	InlinedBytes *json.Number `json:"inlinedBytes,omitempty"`
}

type wireInlining struct {
	StartTime string      `json:"startTime"`
	CompileID json.Number `json:"compileId"`
	Caller    *wireMethod `json:"caller"`
	Callee    *wireCallee `json:"callee"`
	Succeeded bool        `json:"succeeded"`
	Message   string      `json:"message,omitempty"`
	BCI       json.Number `json:"bci"`
}

type wireThreadStart struct {
	StartTime    string      `json:"startTime"`
	Thread       *wireThread `json:"thread"`
	ParentThread *wireThread `json:"parentThread,omitempty"`
}

type wireThreadCPULoad struct {
	StartTime   string      `json:"startTime"`
	EventThread *wireThread `json:"eventThread"`
	User        json.Number `json:"user"`
	System      json.Number `json:"system"`
}

type wireCPUInformation struct {
	HWThreads json.Number `json:"hwThreads"`
	Cores     json.Number `json:"cores"`
	Sockets   json.Number `json:"sockets"`
}

type wireRecording struct {
	StartTime         string `json:"startTime,omitempty"`
	Name              string `json:"name,omitempty"`
	RecordingStart    string `json:"recordingStart"`
	RecordingDuration string `json:"recordingDuration"`
}

func (w *wireEvent) event() (*Event, error) {
	ev := &Event{Type: w.Type}
	var err error
	switch w.Type {
	case TypeExecutionSample:
		var v wireSample
		if err = json.Unmarshal(w.Values, &v); err == nil {
			ev.Sample, err = v.sample()
		}
	case TypeNativeSample:
		var v wireSample
		if err = json.Unmarshal(w.Values, &v); err == nil {
			ev.NativeSample, err = v.sample()
		}
	case TypeCompilation:
		var v wireCompilation
		if err = json.Unmarshal(w.Values, &v); err == nil {
			ev.Compilation, err = v.compilation()
		}
	case TypeInlining:
		var v wireInlining
		if err = json.Unmarshal(w.Values, &v); err == nil {
			ev.Inlining, err = v.inlining()
		}
	case TypeThreadStart:
		var v wireThreadStart
		if err = json.Unmarshal(w.Values, &v); err == nil {
			ev.ThreadStart, err = v.threadStart()
		}
	case TypeExceptionThrow:
		var v wireThrow
		if err = json.Unmarshal(w.Values, &v); err == nil {
			ev.Throw, err = v.throw()
		}
	case TypeThreadCPULoad:
		var v wireThreadCPULoad
		if err = json.Unmarshal(w.Values, &v); err == nil {
			ev.CPULoad, err = v.load()
		}
	case TypeCPUInformation:
		var v wireCPUInformation
		if err = json.Unmarshal(w.Values, &v); err == nil {
			ev.CPUInfo, err = v.info()
		}
	case TypeActiveRecording:
		var v wireRecording
		if err = json.Unmarshal(w.Values, &v); err == nil {
			ev.Recording, err = v.recording()
		}
	default:
		ev.Type = ""
	}
	if err != nil {
		return nil, err
	}
	return ev, nil
}

func (m *wireMethod) method(field string) (Method, error) {
	if m == nil || m.Type == nil {
		return Method{}, fmt.Errorf("%s: missing method or its type", field)
	}
	if m.Type.Name == "" || m.Name == "" {
		return Method{}, fmt.Errorf("%s: method without a class or a name", field)
	}
	if err := nameLengths(field, m.Type.Name, m.Name, m.Descriptor); err != nil {
		return Method{}, err
	}
	return Method{Class: m.Type.Name, Name: m.Name, Descriptor: m.Descriptor, Hidden: m.Hidden}, nil
}

// nameLengths refuses a class name, method name or descriptor longer
// than MaxName.
func nameLengths(field, class, name, desc string) error {
	for _, n := range []struct{ what, s string }{{"class name", class}, {"method name", name}, {"descriptor", desc}} {
		if len(n.s) > MaxName {
			return fmt.Errorf("%s: a %s of %d bytes, longer than a class file can hold (%d: JVMS §4.4.7)", field, n.what, len(n.s), MaxName)
		}
	}
	return nil
}

func toWireMethod(m Method) *wireMethod {
	return &wireMethod{Type: &wireClass{Name: m.Class}, Name: m.Name, Descriptor: m.Descriptor, Hidden: m.Hidden}
}

func (t *wireThread) thread(field string) (Thread, error) {
	if t == nil {
		return Thread{}, fmt.Errorf("%s: missing", field)
	}
	th := Thread{Name: t.JavaName}
	if th.Name == "" {
		th.Name = t.OSName
	}
	var err error
	if t.JavaThreadID != nil {
		if th.JavaID, err = t.JavaThreadID.Int64(); err != nil {
			return th, fmt.Errorf("%s.javaThreadId: %v", field, err)
		}
		th.IsJava = true
	}
	if t.OSThreadID != nil {
		if th.OSID, err = t.OSThreadID.Int64(); err != nil {
			return th, fmt.Errorf("%s.osThreadId: %v", field, err)
		}
	}
	return th, nil
}

func toWireThread(t Thread) *wireThread {
	w := &wireThread{JavaName: t.Name, OSName: t.Name}
	os := json.Number(strconv.FormatInt(t.OSID, 10))
	w.OSThreadID = &os
	if t.IsJava {
		id := json.Number(strconv.FormatInt(t.JavaID, 10))
		w.JavaThreadID = &id
	}
	return w
}

// intOf reads an optional integer field, def when absent.
func intOf(n *json.Number, field string, def int) (int, error) {
	if n == nil {
		return def, nil
	}
	v, err := n.Int64()
	if err != nil || v < -1<<31 || v > 1<<31-1 {
		return 0, fmt.Errorf("%s: %q is not a 32-bit integer", field, n.String())
	}
	return int(v), nil
}

func num(v int64) *json.Number {
	n := json.Number(strconv.FormatInt(v, 10))
	return &n
}

func (v *wireSample) sample() (*Sample, error) {
	s := &Sample{State: v.State}
	var err error
	if s.Time, err = parseTime(v.StartTime, "startTime"); err != nil {
		return nil, err
	}
	if s.Thread, err = v.SampledThread.thread("sampledThread"); err != nil {
		return nil, err
	}
	if v.StackTrace == nil {
		return s, nil
	}
	s.Truncated = v.StackTrace.Truncated
	if s.Frames, err = v.StackTrace.frames(); err != nil {
		return nil, err
	}
	return s, nil
}

// frames decodes a stack's frames, leaf first.
func (st *wireStack) frames() ([]Frame, error) {
	out := make([]Frame, len(st.Frames))
	var err error
	for i := range st.Frames {
		w := &st.Frames[i]
		f := &out[i]
		field := fmt.Sprintf("stackTrace.frames[%d]", i)
		if f.Method, err = w.Method.method(field + ".method"); err != nil {
			return nil, err
		}
		if f.Line, err = intOf(w.LineNumber, field+".lineNumber", 0); err != nil {
			return nil, err
		}
		if f.BCI, err = intOf(w.BytecodeIndex, field+".bytecodeIndex", -1); err != nil {
			return nil, err
		}
		if f.BCI < -1 || f.BCI > MaxBCI {
			return nil, fmt.Errorf("%s.bytecodeIndex: %d is not a bytecode index (-1 or 0 to %d: JVMS §4.7.3)", field, f.BCI, MaxBCI)
		}
		f.Type = FrameType(w.Type)
	}
	return out, nil
}

func (v *wireThrow) throw() (*Throw, error) {
	t := &Throw{}
	var err error
	if t.Time, err = parseTime(v.StartTime, "startTime"); err != nil {
		return nil, err
	}
	if t.Thread, err = v.EventThread.thread("eventThread"); err != nil {
		return nil, err
	}
	if v.ThrownClass == nil || v.ThrownClass.Name == "" {
		return nil, fmt.Errorf("thrownClass: missing")
	}
	if err := nameLengths("thrownClass", v.ThrownClass.Name, "", ""); err != nil {
		return nil, err
	}
	t.Class = v.ThrownClass.Name
	t.Count = 1
	if v.Count != nil {
		c, err := v.Count.Int64()
		if err != nil || c < 1 || c > math.MaxInt32 {
			return nil, fmt.Errorf("count: %q is not a count of throwables (1 to %d)", v.Count.String(), math.MaxInt32)
		}
		t.Count = int(c)
	}
	if v.StackTrace == nil {
		return t, nil
	}
	t.Truncated = v.StackTrace.Truncated
	if t.Frames, err = v.StackTrace.frames(); err != nil {
		return nil, err
	}
	return t, nil
}

func (v *wireCompilation) compilation() (*Compilation, error) {
	c := &Compilation{Compiler: v.Compiler, OSR: v.IsOsr}
	var err error
	if c.Time, err = parseTime(v.StartTime, "startTime"); err != nil {
		return nil, err
	}
	if v.Duration != "" {
		if c.Duration, err = ParseDuration(v.Duration); err != nil {
			return nil, fmt.Errorf("duration: %w", err)
		}
	}
	if c.ID, err = v.CompileID.Int64(); err != nil {
		return nil, fmt.Errorf("compileId: %v", err)
	}
	if c.Method, err = v.Method.method("method"); err != nil {
		return nil, err
	}
	level, err := v.CompileLevel.Int64()
	if err != nil || level < 0 || level > 4 {
		return nil, fmt.Errorf("compileLevel: %q is not in [0, 4]", v.CompileLevel.String())
	}
	c.Level = int(level)
	switch {
	case v.Succeeded != nil:
		c.Succeeded = *v.Succeeded
	case v.Succeded != nil:
		c.Succeeded = *v.Succeded
	}
	if v.CodeSize != nil {
		if c.CodeSize, err = v.CodeSize.Int64(); err != nil {
			return nil, fmt.Errorf("codeSize: %v", err)
		}
	}
	if v.InlinedBytes != nil {
		if c.InlinedBytes, err = v.InlinedBytes.Int64(); err != nil {
			return nil, fmt.Errorf("inlinedBytes: %v", err)
		}
	}
	return c, nil
}

func (v *wireInlining) inlining() (*Inlining, error) {
	in := &Inlining{Succeeded: v.Succeeded, Message: v.Message}
	var err error
	if in.Time, err = parseTime(v.StartTime, "startTime"); err != nil {
		return nil, err
	}
	if in.ID, err = v.CompileID.Int64(); err != nil {
		return nil, fmt.Errorf("compileId: %v", err)
	}
	if in.Caller, err = v.Caller.method("caller"); err != nil {
		return nil, err
	}
	if v.Callee == nil || v.Callee.Type == "" || v.Callee.Name == "" {
		return nil, fmt.Errorf("callee: missing class or name")
	}
	if err := nameLengths("callee", v.Callee.Type, v.Callee.Name, v.Callee.Descriptor); err != nil {
		return nil, err
	}
	in.Callee = Method{Class: v.Callee.Type, Name: v.Callee.Name, Descriptor: v.Callee.Descriptor}
	b, err := v.BCI.Int64()
	if err != nil || b < -1 || b > 65535 {
		return nil, fmt.Errorf("bci: %q is not a bytecode index", v.BCI.String())
	}
	in.BCI = int(b)
	return in, nil
}

func (v *wireThreadStart) threadStart() (*ThreadStart, error) {
	ts := &ThreadStart{}
	var err error
	if ts.Time, err = parseTime(v.StartTime, "startTime"); err != nil {
		return nil, err
	}
	if ts.Thread, err = v.Thread.thread("thread"); err != nil {
		return nil, err
	}
	if v.ParentThread != nil {
		if ts.Parent, err = v.ParentThread.thread("parentThread"); err != nil {
			return nil, err
		}
	}
	return ts, nil
}

func (v *wireThreadCPULoad) load() (*ThreadCPULoad, error) {
	l := &ThreadCPULoad{}
	var err error
	if l.Time, err = parseTime(v.StartTime, "startTime"); err != nil {
		return nil, err
	}
	if l.Thread, err = v.EventThread.thread("eventThread"); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		name string
		n    json.Number
		into *float64
	}{{"user", v.User, &l.User}, {"system", v.System, &l.System}} {
		x, err := f.n.Float64()
		if err != nil || !(x >= 0 && x <= 1) {
			return nil, fmt.Errorf("%s: %q is not a share of the machine's CPU in [0, 1]", f.name, f.n)
		}
		*f.into = x
	}
	return l, nil
}

func (v *wireCPUInformation) info() (*CPUInformation, error) {
	c := &CPUInformation{}
	for _, f := range []struct {
		name string
		n    json.Number
		into *int64
	}{{"hwThreads", v.HWThreads, &c.HWThreads}, {"cores", v.Cores, &c.Cores}, {"sockets", v.Sockets, &c.Sockets}} {
		x, err := f.n.Int64()
		if err != nil || x < 1 {
			return nil, fmt.Errorf("%s: %q is not a count ≥ 1", f.name, f.n)
		}
		*f.into = x
	}
	return c, nil
}

func (v *wireRecording) recording() (*Recording, error) {
	r := &Recording{Name: v.Name}
	var err error
	if r.Start, err = parseTime(v.RecordingStart, "recordingStart"); err != nil {
		return nil, err
	}
	if r.Duration, err = ParseDuration(v.RecordingDuration); err != nil {
		return nil, fmt.Errorf("recordingDuration: %w", err)
	}
	return r, nil
}

// JFR's timestamps are int64 nanoseconds from 1970: no time outside
// these is one of them (and time.Time.UnixNano is undefined outside).
var (
	minTime = time.Unix(0, math.MinInt64).UTC()
	maxTime = time.Unix(0, math.MaxInt64).UTC()
)

func parseTime(s, field string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return t, fmt.Errorf("%s: %q is not an RFC 3339 time", field, s)
	}
	if t.Before(minTime) || t.After(maxTime) {
		return t, fmt.Errorf("%s: %q is outside JFR's timestamps (nanoseconds from 1970 in 64 bits: %s to %s)",
			field, s, minTime.Format(time.RFC3339Nano), maxTime.Format(time.RFC3339Nano))
	}
	return t, nil
}

// ParseDuration reads the ISO-8601 durations JFR prints (Java's
// Duration.toString: "PT0.00012796S", "PT1H2M3.5S", "PT-0.5S"), exactly to
// the nanosecond.
func ParseDuration(s string) (time.Duration, error) {
	bad := fmt.Errorf("%q is not an ISO-8601 duration like PT1.5S", s)
	rest, ok := strings.CutPrefix(s, "PT")
	if !ok || rest == "" {
		return 0, bad
	}
	var total int64
	for rest != "" {
		i := strings.IndexAny(rest, "HMS")
		if i <= 0 {
			return 0, bad
		}
		unit := int64(time.Second)
		switch rest[i] {
		case 'H':
			unit = int64(time.Hour)
		case 'M':
			unit = int64(time.Minute)
		}
		v, err := decimalTimes(rest[:i], unit)
		if err != nil {
			return 0, fmt.Errorf("%q: %v", s, err)
		}
		if (v > 0 && total > math.MaxInt64-v) || (v < 0 && total < math.MinInt64-v) {
			return 0, fmt.Errorf("%q is out of range", s)
		}
		total += v
		rest = rest[i+1:]
	}
	return time.Duration(total), nil
}

// decimalTimes is the decimal number s ("-12.345") times unit
// nanoseconds, truncated to whole nanoseconds.
func decimalTimes(s string, unit int64) (int64, error) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" && frac == "" {
		return 0, fmt.Errorf("no digits")
	}
	for _, part := range []string{whole, frac} {
		for _, c := range part {
			if c < '0' || c > '9' {
				return 0, fmt.Errorf("%q is not a decimal number", s)
			}
		}
	}
	var w int64
	if whole != "" {
		var err error
		if w, err = strconv.ParseInt(whole, 10, 64); err != nil || w >= math.MaxInt64/unit {
			return 0, fmt.Errorf("%q is out of range", s)
		}
	}
	v := w * unit
	// The fraction: at most 18 digits matter below one unit (≤ 1 h).
	if len(frac) > 18 {
		frac = frac[:18]
	}
	if frac != "" {
		f, _ := strconv.ParseInt(frac, 10, 64)
		scale := int64(1)
		for range frac {
			scale *= 10
		}
		// f/scale × unit without overflow: unit ≤ 3.6e12, so split it.
		v += f / scale * unit
		v += new(big.Int).Div(new(big.Int).Mul(big.NewInt(f%scale), big.NewInt(unit)), big.NewInt(scale)).Int64()
	}
	if neg {
		v = -v
	}
	return v, nil
}

// formatDuration is Java's Duration.toString for what Write emits.
func formatDuration(d time.Duration) string {
	return "PT" + strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "S"
}

// Writer writes events in `jfr print --json`'s shape, with only the
// fields Read uses: a compact recording that Read reads back to the same
// values.
type Writer struct {
	w     *bufio.Writer
	n     int
	err   error
	ended bool
}

// NewWriter starts the document.
func NewWriter(w io.Writer) *Writer {
	bw := bufio.NewWriter(w)
	_, err := bw.WriteString("{\"recording\": {\"events\": [")
	return &Writer{w: bw, err: err}
}

// Write appends one event (events with no decoded payload are skipped).
func (wr *Writer) Write(e *Event) error {
	if wr.err != nil {
		return wr.err
	}
	var values any
	typ := e.Type
	switch {
	case e.Sample != nil || e.NativeSample != nil:
		s, native := e.Sample, false
		if s == nil {
			s, native = e.NativeSample, true
		}
		typ = TypeExecutionSample
		if native {
			typ = TypeNativeSample
		}
		v := wireSample{StartTime: s.Time.Format(time.RFC3339Nano), SampledThread: toWireThread(s.Thread), State: s.State,
			StackTrace: &wireStack{Truncated: s.Truncated, Frames: make([]wireFrame, len(s.Frames))}}
		toWireFrames(v.StackTrace.Frames, s.Frames)
		values = v
	case e.Throw != nil:
		t := e.Throw
		typ = TypeExceptionThrow
		v := wireThrow{StartTime: t.Time.Format(time.RFC3339Nano), EventThread: toWireThread(t.Thread), ThrownClass: &wireClass{Name: t.Class},
			StackTrace: &wireStack{Truncated: t.Truncated, Frames: make([]wireFrame, len(t.Frames))}}
		if t.Count > 1 {
			v.Count = num(int64(t.Count))
		}
		toWireFrames(v.StackTrace.Frames, t.Frames)
		values = v
	case e.Compilation != nil:
		c := e.Compilation
		ok := c.Succeeded
		values = wireCompilation{StartTime: c.Time.Format(time.RFC3339Nano), Duration: formatDuration(c.Duration),
			CompileID: json.Number(strconv.FormatInt(c.ID, 10)), Compiler: c.Compiler, Method: toWireMethod(c.Method),
			CompileLevel: json.Number(strconv.Itoa(c.Level)), Succeded: &ok, IsOsr: c.OSR, CodeSize: num(c.CodeSize), InlinedBytes: num(c.InlinedBytes)}
	case e.Inlining != nil:
		in := e.Inlining
		values = wireInlining{StartTime: in.Time.Format(time.RFC3339Nano), CompileID: json.Number(strconv.FormatInt(in.ID, 10)),
			Caller: toWireMethod(in.Caller), Callee: &wireCallee{Type: in.Callee.Class, Name: in.Callee.Name, Descriptor: in.Callee.Descriptor},
			Succeeded: in.Succeeded, Message: in.Message, BCI: json.Number(strconv.Itoa(in.BCI))}
	case e.ThreadStart != nil:
		ts := e.ThreadStart
		values = wireThreadStart{StartTime: ts.Time.Format(time.RFC3339Nano), Thread: toWireThread(ts.Thread), ParentThread: toWireThread(ts.Parent)}
	case e.Recording != nil:
		r := e.Recording
		values = wireRecording{Name: r.Name, RecordingStart: r.Start.Format(time.RFC3339Nano), RecordingDuration: formatDuration(r.Duration)}
	default:
		return nil
	}
	b, err := json.Marshal(struct {
		Type   string `json:"type"`
		Values any    `json:"values"`
	}{typ, values})
	if err != nil {
		wr.err = err
		return err
	}
	if wr.n > 0 {
		wr.w.WriteString(",")
	}
	wr.w.WriteString("\n")
	_, wr.err = wr.w.Write(b)
	wr.n++
	return wr.err
}

func toWireFrames(dst []wireFrame, frames []Frame) {
	for i, f := range frames {
		dst[i] = wireFrame{Method: toWireMethod(f.Method), LineNumber: num(int64(f.Line)), BytecodeIndex: num(int64(f.BCI)), Type: string(f.Type)}
	}
}

// Close ends the document and flushes it.
func (wr *Writer) Close() error {
	if wr.ended {
		return wr.err
	}
	wr.ended = true
	if wr.err != nil {
		return wr.err
	}
	if _, err := wr.w.WriteString("\n]}}\n"); err != nil {
		return err
	}
	return wr.w.Flush()
}
