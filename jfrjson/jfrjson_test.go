package jfrjson

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testdata/excerpt.json is verbatim output of OpenJDK 17.0.15's
// `jfr print --json --events jdk.ExecutionSample,jdk.Compilation,
// jdk.CompilerInlining,jdk.ThreadStart,jdk.ActiveRecording` for a
// recording of HotCold (tools/realapps), cut to one event of each kind of
// frame-type sequence, compilation and inlining decision.

func excerpt(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/excerpt.json")
	require.NoError(t, err)
	return data
}

func TestExcerpt(t *testing.T) {
	events, err := ReadAll(bytes.NewReader(excerpt(t)))
	require.NoError(t, err)
	byType := map[string]int{}
	for _, e := range events {
		byType[e.Type]++
	}
	assert.Equal(t, map[string]int{TypeExecutionSample: 9, TypeCompilation: 3, TypeInlining: 4, TypeThreadStart: 1, TypeActiveRecording: 1}, byType)

	c := events[0].Compilation
	require.NotNil(t, c)
	assert.Equal(t, Compilation{
		Time: time.Date(2026, 11, 23, 15, 43, 51, 682159721, time.UTC), Duration: 127960 * time.Nanosecond,
		ID: 1140, Compiler: "c1", Method: Method{Class: "jdk/jfr/internal/Logger", Name: "shouldLog", Descriptor: "(Ljdk/jfr/internal/LogTag;Ljdk/jfr/internal/LogLevel;)Z"},
		Level: 2, Succeeded: true, CodeSize: 472,
	}, *c)

	var hot *Sample
	var inl *Inlining
	var rec *Recording
	for _, e := range events {
		if s := e.Sample; s != nil && len(s.Frames) == 3 && s.Frames[0].Type == Inlined && hot == nil {
			hot = s
		}
		if e.Inlining != nil && e.Inlining.Caller.Name == "cold" && e.Inlining.Succeeded {
			inl = e.Inlining
		}
		if e.Recording != nil {
			rec = e.Recording
		}
	}
	require.NotNil(t, hot)
	assert.Equal(t, Thread{Name: "main", JavaID: 1, OSID: 30924, IsJava: true}, hot.Thread)
	assert.Equal(t, "STATE_RUNNABLE", hot.State)
	assert.False(t, hot.Truncated)
	assert.Equal(t, Frame{Method: Method{Class: "HotCold", Name: "hot", Descriptor: "(I)V"}, Line: 8, BCI: 45, Type: Inlined}, hot.Frames[0])
	assert.Equal(t, Frame{Method: Method{Class: "HotCold", Name: "cold", Descriptor: "()V"}, Line: 12, BCI: 9, Type: JITCompiled}, hot.Frames[1])
	assert.Equal(t, Frame{Method: Method{Class: "HotCold", Name: "main", Descriptor: "([Ljava/lang/String;)V"}, Line: 15, BCI: 0, Type: Interpreted}, hot.Frames[2])
	assert.Equal(t, "HotCold.hot(I)V", hot.Frames[0].Method.String())

	require.NotNil(t, inl)
	assert.Equal(t, Method{Class: "HotCold", Name: "hot", Descriptor: "(I)V"}, inl.Callee)
	assert.Equal(t, 9, inl.BCI)
	assert.Equal(t, "inline (hot)", inl.Message)

	require.NotNil(t, rec)
	assert.Equal(t, 3*time.Second, rec.Duration)
	assert.Equal(t, time.Date(2026, 11, 23, 15, 43, 51, 680000000, time.UTC), rec.Start)
}

// Write keeps only what Read uses; reading it back gives equal events.
func TestWriteRoundTrip(t *testing.T) {
	events, err := ReadAll(bytes.NewReader(excerpt(t)))
	require.NoError(t, err)
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, e := range events {
		require.NoError(t, w.Write(e))
	}
	require.NoError(t, w.Close())
	assert.Less(t, buf.Len(), len(excerpt(t))/4, "compact")
	again, err := ReadAll(&buf)
	require.NoError(t, err)
	require.Equal(t, len(events), len(again))
	for i := range events {
		assert.Equal(t, events[i], again[i], "event %d", i)
	}
}

// Read hands each event over as soon as it is decoded: a writer that
// blocks after the first event still lets the callback run.
func TestReadStreams(t *testing.T) {
	events, err := ReadAll(bytes.NewReader(excerpt(t)))
	require.NoError(t, err)
	pr, pw := io.Pipe()
	seen := make(chan struct{})
	go func() {
		w := NewWriter(pw)
		w.Write(events[0])
		w.w.Flush()
		select { // the reader must see the first event before the rest exists
		case <-seen:
		case <-time.After(10 * time.Second):
		}
		for i := 1; i < 2000; i++ {
			w.Write(events[3])
		}
		w.Close()
		pw.Close()
	}()
	n := 0
	start := time.Now()
	err = Read(pr, func(e *Event) error {
		if n == 0 {
			close(seen)
		}
		n++
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, 2000, n)
	assert.Less(t, time.Since(start), 10*time.Second, "the first event was not delivered before the stream went on")
}

func TestReadErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, "document"},
		{`[]`, "document"},
		{`{"x": 1}`, `no "recording"`},
		{`{"recording": {"events": {}}}`, "recording.events"},
		{`{"recording": {"events": [1]}}`, "recording.events[0]"},
		{`{"recording": {"events": [{"type": "jdk.ExecutionSample", "values": {"startTime": "yesterday"}}]}}`, "startTime"},
		{`{"recording": {"events": [{"type": "jdk.ExecutionSample", "values": {"startTime": "2026-11-23T15:43:51Z"}}]}}`, "sampledThread: missing"},
		{`{"recording": {"events": [{"type": "jdk.ExecutionSample", "values": {"startTime": "2026-11-23T15:43:51Z", "sampledThread": {"javaName": "m"}, "stackTrace": {"frames": [{"method": null}]}}}]}}`, "stackTrace.frames[0].method"},
		{`{"recording": {"events": [{"type": "jdk.ExecutionSample", "values": {"startTime": "2026-11-23T15:43:51Z", "sampledThread": {"javaName": "m"}, "stackTrace": {"frames": [{"method": {"type": {"name": "A"}, "name": "a"}, "lineNumber": 1e99}]}}}]}}`, "lineNumber"},
		{`{"recording": {"events": [{"type": "jdk.Compilation", "values": {"startTime": "2026-11-23T15:43:51Z", "compileId": 1, "compileLevel": 9, "method": {"type": {"name": "A"}, "name": "a"}}}]}}`, "compileLevel"},
		{`{"recording": {"events": [{"type": "jdk.CompilerInlining", "values": {"startTime": "2026-11-23T15:43:51Z", "compileId": 1, "bci": 70000, "caller": {"type": {"name": "A"}, "name": "a"}, "callee": {"type": "B", "name": "b"}}}]}}`, "bci"},
		{`{"recording": {"events": [{"type": "jdk.ActiveRecording", "values": {"recordingStart": "2026-11-23T15:43:51Z", "recordingDuration": "3 s"}}]}}`, "recordingDuration"},
		{`{"recording": {"events": [`, "recording.events"},
		{`{"recording": {"events": [{"type": "jdk.JavaExceptionThrow", "values": {"startTime": "2026-11-23T15:43:51Z", "eventThread": {"javaName": "m"}}}]}}`, "thrownClass: missing"},
		{`{"recording": {"events": [{"type": "jdk.JavaExceptionThrow", "values": {"startTime": "2026-11-23T15:43:51Z", "eventThread": {"javaName": "m"}, "thrownClass": {"name": "E"}, "count": 0}}]}}`, "count"},
		{`{"recording": {"events": []}} [1]`, "document 2"},
		{`{"recording": {"events": []}} {"recording": {"events": [1]}}`, "recording.events[0]"},
	} {
		err := Read(strings.NewReader(tc.in), func(*Event) error { return nil })
		require.Error(t, err, tc.in)
		assert.Contains(t, err.Error(), tc.want, tc.in)
	}
	// Unknown event types and fields are skipped.
	err := Read(strings.NewReader(`{"other": 1, "recording": {"x": [1], "events": [{"type": "jdk.GCPhasePause", "values": {"a": 1}}]}}`), func(e *Event) error {
		assert.Equal(t, "", e.Type)
		return nil
	})
	require.NoError(t, err)
	// The callback's error stops the read and is returned as is.
	stop := errors.New("stop")
	err = Read(bytes.NewReader(excerpt(t)), func(*Event) error { return stop })
	require.ErrorIs(t, err, stop)
}

// A jdk.JavaExceptionThrow, folded with a count by ThrowFold.java and
// appended as a second document, reads back as written; events are
// numbered across documents.
func TestThrowsInASecondDocument(t *testing.T) {
	at := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	main := Thread{Name: "main", JavaID: 1, OSID: 7, IsJava: true}
	frames := []Frame{
		{Method: Method{Class: "java/lang/Throwable", Name: "<init>", Descriptor: "(Ljava/lang/String;)V"}, Line: 273, BCI: 35, Type: JITCompiled},
		{Method: Method{Class: "App", Name: "run", Descriptor: "()V"}, Line: 9, BCI: 4, Type: Inlined},
	}
	var buf bytes.Buffer
	for _, ev := range []*Event{
		{Sample: &Sample{Time: at, Thread: main, Frames: frames[1:]}},
		{Throw: &Throw{Time: at, Thread: main, Frames: frames, Class: "app/Oops", Count: 41}},
	} {
		w := NewWriter(&buf)
		require.NoError(t, w.Write(ev))
		require.NoError(t, w.Close())
	}
	evs, err := ReadAll(&buf)
	require.NoError(t, err)
	require.Len(t, evs, 2)
	assert.Equal(t, TypeExecutionSample, evs[0].Type)
	require.NotNil(t, evs[1].Throw)
	assert.Equal(t, &Throw{Time: at, Thread: main, Frames: frames, Class: "app/Oops", Count: 41}, evs[1].Throw)

	// jfr print's own events have no count: one throwable each.
	one := `{"recording": {"events": [{"type": "jdk.JavaExceptionThrow", "values": {"startTime": "2026-11-29T00:00:00Z", "eventThread": {"javaName": "m"}, "thrownClass": {"name": "E"}}}]}}`
	evs, err = ReadAll(strings.NewReader(one))
	require.NoError(t, err)
	assert.Equal(t, 1, evs[0].Throw.Count)
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"PT0S": 0, "PT3S": 3 * time.Second, "PT0.00012796S": 127960 * time.Nanosecond,
		"PT1H2M3.5S": time.Hour + 2*time.Minute + 3500*time.Millisecond, "PT-0.5S": -500 * time.Millisecond,
	} {
		got, err := ParseDuration(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "PT", "P1D", "PT5", "PTxS", "PT1e300S"} {
		_, err := ParseDuration(in)
		assert.Error(t, err, in)
	}
	assert.Equal(t, "PT0.00012796S", formatDuration(127960*time.Nanosecond))
}

// FuzzRead: any input is an error or events, never a panic.
func FuzzRead(f *testing.F) {
	f.Add(excerpt(f))
	f.Add([]byte(`{"recording": {"events": []}}`))
	for i := 0; i < 3; i++ {
		f.Add([]byte(fmt.Sprintf(`{"recording": {"events": [{"type": "jdk.ExecutionSample", "values": {"startTime": "2026-11-23T15:43:51Z", "sampledThread": {"javaName": "m", "javaThreadId": %d}, "stackTrace": {"truncated": true, "frames": [{"method": {"type": {"name": "A"}, "name": "a", "descriptor": "()V"}, "lineNumber": 3, "bytecodeIndex": %d, "type": "Inlined"}]}}}]}}`, i, i)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = Read(bytes.NewReader(data), func(e *Event) error {
			if s := e.Sample; s != nil {
				for _, fr := range s.Frames {
					_ = fr.Method.String()
				}
			}
			return nil
		})
	})
}

// testdata/native.json is verbatim output of OpenJDK 17.0.15's `jfr print
// --json` (tools/realapps/record.sh) for one jdk.NativeMethodSample of
// tools/realapps/antlr: the main thread in FileOutputStream.open0.
func TestNativeMethodSample(t *testing.T) {
	data, err := os.ReadFile("testdata/native.json")
	require.NoError(t, err)
	events, err := ReadAll(bytes.NewReader(data))
	require.NoError(t, err)
	require.Len(t, events, 1)
	e := events[0]
	assert.Equal(t, TypeNativeSample, e.Type)
	assert.Nil(t, e.Sample, "a native sample is not an execution sample")
	s := e.NativeSample
	require.NotNil(t, s)
	assert.Equal(t, time.Date(2026, 11, 28, 17, 29, 36, 297554370, time.UTC), s.Time)
	assert.Equal(t, "main", s.Thread.Name)
	assert.Equal(t, "STATE_RUNNABLE", s.State)
	require.Len(t, s.Frames, 11)
	assert.Equal(t, Frame{Method: Method{Class: "java/io/FileOutputStream", Name: "open0", Descriptor: "(Ljava/lang/String;Z)V"}, Line: -1, BCI: 0, Type: Native}, s.Frames[0])
	assert.Equal(t, Frame{Method: Method{Class: "java/io/FileOutputStream", Name: "open", Descriptor: "(Ljava/lang/String;Z)V"}, Line: 293, BCI: 3, Type: Inlined}, s.Frames[1])

	// Write keeps it a native sample.
	var buf bytes.Buffer
	w := NewWriter(&buf)
	require.NoError(t, w.Write(e))
	require.NoError(t, w.Close())
	back, err := ReadAll(&buf)
	require.NoError(t, err)
	require.Len(t, back, 1)
	assert.Equal(t, TypeNativeSample, back[0].Type)
	assert.Nil(t, back[0].Sample)
	assert.Equal(t, s, back[0].NativeSample)
}

// jdk.ThreadCPULoad and jdk.CPUInformation, as `jfr print --json` writes
// them (the values of a recording of tools/realapps/antlr), decode; a
// load outside [0, 1] or a count below 1 is refused naming the field.
func TestCPULoadAndInformation(t *testing.T) {
	doc := `{"recording": {"events": [
	{"type": "jdk.CPUInformation", "values": {"startTime": "2026-11-29T00:49:32.4Z", "cpu": "AMD", "description": "x", "sockets": 1, "cores": 1, "hwThreads": 2}},
	{"type": "jdk.ThreadCPULoad", "values": {"startTime": "2026-11-29T00:49:33.427Z",
	  "eventThread": {"osName": "main", "osThreadId": 3890, "javaName": "main", "javaThreadId": 1, "group": null},
	  "user": 0.274231, "system": 0.13909748}}]}}`
	evs, err := ReadAll(strings.NewReader(doc))
	require.NoError(t, err)
	require.Len(t, evs, 2)
	assert.Equal(t, &CPUInformation{HWThreads: 2, Cores: 1, Sockets: 1}, evs[0].CPUInfo)
	l := evs[1].CPULoad
	require.NotNil(t, l)
	assert.Equal(t, "main", l.Thread.Name)
	assert.InDelta(t, 0.274231, l.User, 1e-12)
	assert.InDelta(t, 0.13909748, l.System, 1e-12)
	for _, c := range []struct{ in, want string }{
		{`{"type": "jdk.ThreadCPULoad", "values": {"startTime": "2026-11-29T00:49:33Z", "eventThread": {"javaName": "main", "javaThreadId": 1}, "user": 1.5, "system": 0}}`, "user: \"1.5\" is not a share"},
		{`{"type": "jdk.ThreadCPULoad", "values": {"startTime": "2026-11-29T00:49:33Z", "user": 0.1, "system": 0}}`, "eventThread: missing"},
		{`{"type": "jdk.CPUInformation", "values": {"hwThreads": 0, "cores": 1, "sockets": 1}}`, "hwThreads: \"0\" is not a count"},
	} {
		_, err := ReadAll(strings.NewReader(`{"recording": {"events": [` + c.in + `]}}`))
		if assert.Error(t, err, c.in) {
			assert.Contains(t, err.Error(), c.want)
		}
	}
}
