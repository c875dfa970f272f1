package jfrjson

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lazyReader is prefix, then n copies of fill made as they are read,
// then suffix: a huge input without its memory.
type lazyReader struct {
	prefix, suffix string
	fill           string // repeated
	n              int64  // bytes of fill
	read           int64  // bytes handed out
	pos            int64
}

func (l *lazyReader) Read(p []byte) (int, error) {
	total := int64(len(l.prefix)) + l.n + int64(len(l.suffix))
	if l.pos >= total {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && l.pos < total {
		switch {
		case l.pos < int64(len(l.prefix)):
			p[k] = l.prefix[l.pos]
		case l.pos < int64(len(l.prefix))+l.n:
			p[k] = l.fill[(l.pos-int64(len(l.prefix)))%int64(len(l.fill))]
		default:
			p[k] = l.suffix[l.pos-int64(len(l.prefix))-l.n]
		}
		k++
		l.pos++
	}
	l.read += int64(k)
	return k, nil
}

const gib = 1 << 30

// limitSlack is what the reader may take beyond a limit before it
// stops: its 64 KiB buffer and the decoder's read ahead.
const limitSlack = 1 << 20

// heapBound bounds the bytes allocated while failing on a huge string:
// the decoder's buffer doubles up to twice MaxString, and a copy of the
// part read (measured 67 MiB); a whole 1 GiB string is 16 times more.
const heapBound = 6 * MaxString

// A 1 GiB string — a thread's name, an unknown key's value, a method
// name — is refused once it passes MaxString: a *LimitError, after
// reading about MaxString bytes of it and allocating a small multiple.
func TestHugeString(t *testing.T) {
	sample := `{"recording": {"events": [{"type": "jdk.ExecutionSample", "values": {"startTime": "2026-11-23T15:43:51Z", "sampledThread": {"javaName": "`
	for _, tc := range []struct {
		name           string
		prefix, suffix string
		fill           string
	}{
		{"thread name", sample, `"}}}]}}`, "a"},
		{"escapes", sample, `"}}}]}}`, `\\`}, // "\\\\…": escaped backslashes never close it
		{"skipped key", `{"metadata": "`, `", "recording": {"events": []}}`, "a"},
		{"unknown event", `{"recording": {"events": [{"type": "jdk.X", "values": {"x": "`, `"}}]}}`, "a"},
		{"a number", `{"recording": {"events": [{"type": "jdk.X", "values": {"x": 1`, `}}]}}`, "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &lazyReader{prefix: tc.prefix, suffix: tc.suffix, fill: tc.fill, n: gib}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			err := Read(r, func(*Event) error { return nil })
			runtime.ReadMemStats(&after)
			var le *LimitError
			require.ErrorAs(t, err, &le)
			what := map[bool]string{true: "number", false: "string"}[tc.fill == "1"]
			assert.Equal(t, what, le.What)
			assert.Equal(t, int64(MaxString), le.Limit)
			assert.Equal(t, int64(len(tc.prefix)-1), le.Offset, "the string's opening quote, the number's first digit")
			assert.Contains(t, err.Error(), fmt.Sprintf("a JSON %s longer than %d bytes (jfrjson.MaxString) at byte %d", what, MaxString, len(tc.prefix)-1))
			assert.Less(t, r.read, int64(MaxString+limitSlack))
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("read %d bytes, allocated %d", r.read, alloc)
			assert.Less(t, alloc, uint64(heapBound))
		})
	}
}

// An event larger than MaxEvent (here a smaller limit, for speed) is
// refused before it is read whole; a document's other keys of any size
// are skipped a token at a time.
func TestHugeEvent(t *testing.T) {
	const limit = 1 << 20
	r := &lazyReader{prefix: `{"recording": {"events": [{"type": "jdk.X", "values": {"x": [1`, suffix: `]}}]}}`, fill: ",1", n: 64 << 20}
	err := readLimited(r, func(*Event) error { return nil }, MaxString, limit)
	var le *LimitError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "event", le.What)
	assert.Contains(t, err.Error(), "recording.events[0]: a JSON event longer than 1048576 bytes, whitespace aside (jfrjson.MaxEvent)")
	assert.Less(t, r.read, int64(limit+limitSlack))

	// A skipped key's value and whitespace of any size are read through,
	// not held (before: 64 MiB of whitespace took a minute, the decoder
	// rescanning it on every read).
	for _, c := range []struct {
		fill string
		n    int64
	}{{",1", 8 << 20}, {" ", 64 << 20}, {"\n  ", 64 << 20}} {
		fill := c.fill
		r = &lazyReader{prefix: `{"metadata": [1`, suffix: `], "recording": {"events": [` + strings.TrimPrefix(fill, ",1") + `]}}`, fill: fill, n: c.n}
		start := time.Now()
		require.NoError(t, readLimited(r, func(*Event) error { return nil }, MaxString, limit), "%q", fill)
		assert.Less(t, time.Since(start), skipTime, "%q", fill)
	}
}

// skipTime bounds reading these skipped values: under 2 s measured, 60
// s for 64 MiB of whitespace before the guard collapsed its runs.
const skipTime = 20 * time.Second

// Names longer than a class file can hold, bytecode indices beyond
// code_length's range and times outside JFR's are refused by field.
func TestFieldLimits(t *testing.T) {
	ev := func(class, name, bci, time string) string {
		return `{"recording": {"events": [{"type": "jdk.ExecutionSample", "values": {"startTime": "` + time +
			`", "sampledThread": {"javaName": "m", "javaThreadId": 1}, "stackTrace": {"truncated": false, "frames": [{"method": {"type": {"name": "` +
			class + `"}, "name": "` + name + `", "descriptor": "()V"}, "bytecodeIndex": ` + bci + `, "type": "Inlined"}]}}}]}}`
	}
	long := strings.Repeat("x", MaxName+1)
	now := "2026-11-23T15:43:51Z"
	for _, tc := range []struct{ doc, want string }{
		{ev(long, "a", "0", now), "stackTrace.frames[0].method: a class name of 65536 bytes, longer than a class file can hold (65535: JVMS §4.4.7)"},
		{ev("A", long, "0", now), "a method name of 65536 bytes"},
		{ev("A", "a", "65536", now), "stackTrace.frames[0].bytecodeIndex: 65536 is not a bytecode index"},
		{ev("A", "a", "-2", now), "-2 is not a bytecode index"},
		{ev("A", "a", "0", "1500-01-01T00:00:00Z"), `startTime: "1500-01-01T00:00:00Z" is outside JFR's timestamps`},
		{ev("A", "a", "0", "2300-01-01T00:00:00Z"), `is outside JFR's timestamps (nanoseconds from 1970 in 64 bits: 1677-09-21T00:12:43.145224192Z to 2262-04-11T23:47:16.854775807Z)`},
	} {
		err := Read(strings.NewReader(tc.doc), func(*Event) error { return nil })
		require.Error(t, err, tc.want)
		assert.Contains(t, err.Error(), tc.want)
		var le *LimitError
		assert.False(t, errors.As(err, &le))
	}
	// The limits themselves are accepted.
	require.NoError(t, Read(strings.NewReader(ev(long[1:], long[1:], "65535", "2262-04-11T23:47:16Z")), func(*Event) error { return nil }))
}
