package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func read(t *testing.T, name string, fn func(r *os.File) (*Profile, error)) *Profile {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	require.NoError(t, err)
	defer f.Close()
	p, err := fn(f)
	require.NoError(t, err)
	return p
}

func TestReadAgent(t *testing.T) {
	p := read(t, "agent.folded", func(f *os.File) (*Profile, error) { return ReadAgent(f) })
	assert.Equal(t, Totals{Total: 13, Main: 10, NativeLeaf: 2}, p.Totals())
	assert.Equal(t, "agent: ticks 1000, overruns 0, mean tick 0.60 ms", p.Note)
	assert.Equal(t, []SelfRow{
		{"Reference Handler", "java.lang.ref.Reference.waitForReferencePendingList", 3},
		{"main", "a.B.loop", 4},
		{"main", "a.C.hot", 4},
		{"main", "java.io.FileOutputStream.open0", 2},
	}, p.Self())
	assert.Contains(t, p.Folded(), "main;Driver.main;a.B$$Lambda.run;java.io.FileOutputStream.open0 2")
}

// With lines=1 the agent appends the leaf's "@BCI:LINE"; the profile is
// the one without it.
func TestReadAgentLines(t *testing.T) {
	plain := read(t, "agent.folded", func(f *os.File) (*Profile, error) { return ReadAgent(f) })
	lines := read(t, "agent-lines.folded", func(f *os.File) (*Profile, error) { return ReadAgent(f) })
	assert.Equal(t, plain.Totals(), lines.Totals())
	assert.Equal(t, plain.Self(), lines.Self())
}

func TestReadAgentErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "empty file"},
		{"main;a.B.c 1\n", "line 1: want the \"# safepoint-agent\" header"},
		{"# safepoint-agent dropped=3\nmain;a.B.c 1\n", "line 1: the agent dropped 3 samples"},
		{"# safepoint-agent ticks=3\nmain;a.B.c 1\n", "line 1: the agent dropped  samples"},
		{"# safepoint-agent x=1 dropped=0\nmain;a.B.c\n", "line 2: no count"},
		{"# safepoint-agent dropped=0\nmain;a.B.c x\n", "line 2: count \"x\""},
		{"# safepoint-agent dropped=0\nmain 3\n", "line 2: want THREAD;frame"},
	} {
		_, err := ReadAgent(strings.NewReader(tc.in))
		require.Error(t, err, tc.in)
		assert.Contains(t, err.Error(), tc.want)
	}
}

func TestReadAsync(t *testing.T) {
	p := read(t, "async.collapsed", func(f *os.File) (*Profile, error) { return ReadAsync(f) })
	// Native leaves on main: the write below FileOutputStream.writeBytes
	// (2); the compiler thread's (3) are not main's.
	assert.Equal(t, Totals{Total: 12, Main: 8, NativeLeaf: 2}, p.Totals())
	assert.Equal(t, []SelfRow{
		{"C2 CompilerThread0", "C2Compiler::compile_method", 3},
		{"main", "a.B.loop", 5},
		{"main", "java.io.FileOutputStream.writeBytes", 2},
		{"main", "a.C.hot", 1},
		{"tid=17700", "a.C.hot", 1},
	}, p.Self())
	assert.Contains(t, p.Folded(),
		"main;Driver.main;a.B$$Lambda.run;java.io.FileOutputStream.writeBytes;Java_java_io_FileOutputStream_writeBytes;__GI___libc_write 2")
	assert.Contains(t, p.Folded(), "main;[break_stack_range];a.C.hot 1")
}

func TestReadAsyncWithoutThreads(t *testing.T) {
	_, err := ReadAsync(strings.NewReader("Driver.main_[0];a/B.run_[j] 3\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "line 1: first frame \"Driver.main_[0]\" is not a thread")
}

func TestReadJFR(t *testing.T) {
	p := read(t, "jfr.json", func(f *os.File) (*Profile, error) { return ReadJFR(f) })
	assert.Equal(t, Totals{Total: 4, Main: 3, NativeLeaf: 1}, p.Totals())
	assert.Equal(t, []SelfRow{
		{"main", "a.B.loop", 2},
		{"main", "java.lang.Throwable.fillInStackTrace", 1},
		{"worker", "a.C.hot", 1},
	}, p.Self())
	assert.Equal(t, []string{
		"main;Driver.main;a.B$$Lambda.run;java.lang.Throwable.fillInStackTrace 1",
		"main;Driver.main;a.B.run;a.B.loop 2",
		"worker;a.C.hot 1",
	}, p.Folded())
}

func TestSelfOrder(t *testing.T) {
	p := &Profile{Stacks: []Stack{
		{Thread: "main", Method: "z.Z.z", Count: 2},
		{Thread: "main", Method: "a.A.a", Count: 2},
		{Thread: "main", Method: "m.M.m", Count: 5},
		{Thread: "Worker", Method: "q.Q.q", Count: 1},
		{Thread: "main", Method: "a.A.a", Count: 1},
	}}
	assert.Equal(t, []SelfRow{
		{"Worker", "q.Q.q", 1},
		{"main", "m.M.m", 5},
		{"main", "a.A.a", 3},
		{"main", "z.Z.z", 2},
	}, p.Self())
}

func args(dir, in, profiler string, extra ...string) []string {
	a := []string{"--in", in, "--out", dir, "--app", "lusearch", "--profiler", profiler, "--rep", "1",
		"--java-version", "17.0.15", "--jvm-option", "-Xss2m", "--jvm-option", "-agentpath:x",
		"--started", "2026-11-28T18:00:00Z", "--load-before", "0.50 0.40 0.30 1/100 7", "--load-after", "1.0 0.5 0.3",
		"--tool", "test"}
	return append(a, extra...)
}

func TestRunWrites(t *testing.T) {
	dir := t.TempDir()
	var stderr bytes.Buffer
	require.NoError(t, run(args(dir, "testdata/async.collapsed", "async", "--engine", "ctimer"), &stderr))
	assert.Equal(t, "12 samples (main 8, native leaf on main 2)\n", stderr.String())
	self, err := os.ReadFile(filepath.Join(dir, "self.tsv"))
	require.NoError(t, err)
	assert.Equal(t, "thread\tmethod\tsamples\nC2 CompilerThread0\tC2Compiler::compile_method\t3\n"+
		"main\ta.B.loop\t5\nmain\tjava.io.FileOutputStream.writeBytes\t2\nmain\ta.C.hot\t1\ntid=17700\ta.C.hot\t1\n", string(self))
	raw, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	require.NoError(t, err)
	var m Meta
	require.NoError(t, json.Unmarshal(raw, &m))
	assert.Equal(t, Meta{App: "lusearch", Profiler: "async", Rep: 1, JavaVersion: "17.0.15",
		JVMOptions: []string{"-Xss2m", "-agentpath:x"}, IntervalNS: 10e6, WarmupNS: 8e9, WindowNS: 10e9,
		Started: "2026-11-28T18:00:00Z", LoadBefore: [3]float64{0.5, 0.4, 0.3}, LoadAfter: [3]float64{1, 0.5, 0.3},
		SamplesTotal: 12, SamplesMain: 8, SamplesNativeLeaf: 2, Engine: "ctimer", Tool: "test"}, m)
	var keys map[string]any
	require.NoError(t, json.Unmarshal(raw, &keys))
	assert.Len(t, keys, 16)
	_, err = os.Stat(filepath.Join(dir, "stacks.folded"))
	assert.NoError(t, err)
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.collapsed")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	nomain := filepath.Join(dir, "nomain.collapsed")
	require.NoError(t, os.WriteFile(nomain, []byte("[w tid=1];a/B.c_[j] 3\n"), 0o644))
	for _, tc := range []struct {
		args  []string
		want  string
		usage bool
	}{
		{args(dir, empty, "async", "--engine", "ctimer"), "no samples", false},
		{args(dir, nomain, "async", "--engine", "ctimer"), "3 samples, none on thread \"main\"", false},
		{args(dir, "testdata/async.collapsed", "async"), "--engine is required for async", true},
		{args(dir, "testdata/agent.folded", "safepoint", "--engine", "ctimer"), "--engine is required for async and only", true},
		{args(dir, "testdata/agent.folded", "perf"), "--profiler \"perf\"", true},
		{args(dir, "testdata/agent.folded", "safepoint", "--format", "jfr"), "profiler safepoint writes agent", true},
		{args(dir, "testdata/agent.folded", "safepoint", "--rep", "0"), "--rep \"0\"", true},
		{args(dir, "testdata/agent.folded", "safepoint", "--load-after", "1 2"), "--load-after \"1 2\"", true},
		{args(dir, "testdata/agent.folded", "safepoint", "--started", "today"), "--started \"today\"", true},
		{args(dir, "testdata/agent.folded", "safepoint", "--in", ""), "--in is required", true},
		{args(dir, "testdata/async.collapsed", "safepoint"), "want the \"# safepoint-agent\" header", false},
	} {
		err := run(tc.args, &bytes.Buffer{})
		require.Error(t, err, tc.want)
		assert.Contains(t, err.Error(), tc.want)
		var u usageError
		assert.Equal(t, tc.usage, errors.As(err, &u), tc.want)
	}
	_, err := os.Stat(filepath.Join(dir, "meta.json"))
	assert.True(t, os.IsNotExist(err), "a failed run writes no meta.json")
}
