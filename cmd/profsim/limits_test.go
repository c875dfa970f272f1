package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/profsim/profsim/sweep/runs"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/profsim/profsim/study"
	"github.com/profsim/profsim/workloads"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeWorkload writes src as name in a temporary directory.
func writeWorkload(t *testing.T, name, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	return path
}

// spawnTreeYAML: the thread at level i spawns fan threads of level i+1.
func spawnTreeYAML(levels, fan int) string {
	var b strings.Builder
	b.WriteString("name: tree\nmethods:\n")
	for i := 0; i < levels; i++ {
		fmt.Fprintf(&b, "  - {class: T, name: m%d, body: [{spawn: {name: t%d, entry: T.m%d, count: %d}}, {work: {cycles: 100000, bytecodes: 1}}]}\n", i, i, i+1, fan)
	}
	fmt.Fprintf(&b, "  - {class: T, name: m%d, body: [{work: {cycles: 100000, bytecodes: 1}}]}\n", levels)
	b.WriteString("threads: [{name: main, entry: T.m0}]\n")
	return b.String()
}

// spawnChainYAML: each thread spawns the next and joins it, n deep.
func spawnChainYAML(n int) string {
	var b strings.Builder
	b.WriteString("name: chain\nmethods:\n")
	for i := 0; i < n-1; i++ {
		fmt.Fprintf(&b, "  - {class: C, name: m%d, body: [{spawn: {name: t%d, entry: C.m%d, join: true}}]}\n", i, i, i+1)
	}
	fmt.Fprintf(&b, "  - {class: C, name: m%d, body: [{work: {cycles: 10, bytecodes: 1}}]}\n", n-1)
	b.WriteString("threads: [{name: main, entry: C.m0}]\n")
	return b.String()
}

const virtualRecursionYAML = `
name: virt
methods:
  - {class: A, name: f, recursion_limit: 12, body: [{work: {cycles: 10, bytecodes: 1}}, {virtual_call: {receivers: {A.f: 1, B.f: 1, C.f: 1}}}]}
  - {class: B, name: f, recursion_limit: 12, body: [{virtual_call: {receivers: {A.f: 1, B.f: 1, C.f: 1}}}]}
  - {class: C, name: f, recursion_limit: 12, body: [{virtual_call: {receivers: {A.f: 1, B.f: 1, C.f: 1}}}]}
  - {class: M, name: main, body: [{loop: {trips: 100000000, body: [{call: {method: A.f}}]}}]}
threads: [{name: main, entry: M.main}]
`

func threadsYAML(count int) string {
	return fmt.Sprintf("name: many\nmethods: [{class: A, name: main, body: [{work: {cycles: 1000, bytecodes: 1}}]}]\nthreads: [{name: main, entry: A.main, count: %d}]\n", count)
}

// Every case of issue 14's class 3 stops at once with exit status 2 and
// one line naming the limit, the value reached and the flag.
func TestRunLimits(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	zero := filepath.Join(dir, "zero.yaml")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	sparse := filepath.Join(dir, "sparse.yaml")
	fh, err := os.Create(sparse)
	require.NoError(t, err)
	require.NoError(t, fh.Truncate(100<<30), "a 100 GB sparse file") // no disk space used
	require.NoError(t, fh.Close())
	small := writeWorkload(t, "small.yaml", threadsYAML(1))

	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"threads 2e9", []string{"--workload", writeWorkload(t, "t.yaml", threadsYAML(2_000_000_000))},
			[]string{"run stopped at 0s simulated", "2000000000 application threads", "over --max-threads 100000"}},
		{"10^6 threads", []string{"--workload", writeWorkload(t, "t.yaml", threadsYAML(1_000_000))},
			[]string{"1000000 application threads", "--max-threads 100000"}},
		{"spawn storm", []string{"--workload", writeWorkload(t, "t.yaml", spawnTreeYAML(9, 10)), "--duration", "10000s", "--max-threads", "1000"},
			[]string{"spawning 10 × T.m", "application threads, over --max-threads 1000 (raise it with --max-threads N)"}},
		{"spawn chain", []string{"--workload", writeWorkload(t, "t.yaml", spawnChainYAML(1500)), "--max-threads", "1000"},
			[]string{"would make 1001 application threads, over --max-threads 1000"}},
		{"deep virtual recursion", []string{"--workload", writeWorkload(t, "t.yaml", virtualRecursionYAML), "--duration", "10s", "--max-memory", "64MiB"},
			[]string{"its estimated memory would reach", "calling contexts", "over --max-memory 64MiB (raise it with --max-memory SIZE)"}},
		{"cpus 2e9", []string{"--workload", "hotcold", "--cpus", "2000000000"}, []string{"--cpus 2000000000 must be in [1, 1024]"}},
		{"cpus 1e8", []string{"--workload", "hotcold", "--cpus", "100000000"}, []string{"--cpus 100000000 must be in [1, 1024]"}},
		{"100 GB sparse file", []string{"--workload", sparse}, []string{"sparse.yaml: 100GiB is over the input limit of 64MiB (raise it with --max-input-size SIZE)"}},
		{"input limit", []string{"--workload", small, "--max-input-size", "100B"}, []string{"small.yaml: ", "over the input limit of 100B"}},
		{"FIFO", []string{"--workload", fifo}, []string{"not a regular file (a named pipe)"}},
		{"symlink to /dev/zero", []string{"--workload", zero}, []string{"not a regular file (a character device)"}},
		{"directory", []string{"--workload", dir}, []string{"not a regular file (a directory)"}},
		{"max-threads 0", []string{"--workload", "hotcold", "--max-threads", "0"}, []string{"--max-threads 0 must be in [1, "}},
		{"max-memory 0", []string{"--workload", "hotcold", "--max-memory", "0"}, []string{"--max-memory 0B must be > 0"}},
		{"max-memory unit", []string{"--workload", "hotcold", "--max-memory", "12GB"}, []string{`"12GB" is not a size`}},
		{"max-memory overflow", []string{"--workload", "hotcold", "--max-memory", "9000000TiB"}, []string{"over the largest size"}},
		{"max-input-size", []string{"--workload", "hotcold", "--max-input-size", "-1"}, []string{`"-1" is not a size`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runMain(append([]string{"run"}, c.args...)...)
			assert.Equal(t, 2, code, errOut)
			assert.Empty(t, out)
			for _, w := range c.want {
				assert.Contains(t, errOut, w)
			}
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
		})
	}
}

// Raising a limit lets the run through: the same spawn chain, the same
// recursion and file within raised limits.
func TestRunLimitsRaised(t *testing.T) {
	code, out, errOut := runMain("run", "--workload", writeWorkload(t, "t.yaml", spawnChainYAML(1500)), "--max-threads", "1500")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "statements 1500")
	code, _, errOut = runMain("run", "--workload", writeWorkload(t, "t.yaml", virtualRecursionYAML), "--duration", "1ms", "--max-memory", "1GiB")
	require.Equal(t, 0, code, errOut)
}

// A program that only sleeps reaches a long duration at once: the run
// advances by events (sim's TestSleepAdvancesByEvents counts the rounds).
func TestRunSleeperToLongDuration(t *testing.T) {
	src := `
name: sleeper
methods:
  - {class: A, name: main, body: [{loop: {trips: 1000000, body: [{block: {kind: sleep, duration: 10000s}}, {work: {cycles: 1000, bytecodes: 1}}]}}]}
threads: [{name: main, entry: A.main}]
`
	code, out, errOut := runMain("run", "--workload", writeWorkload(t, "s.yaml", src), "--duration", "87600h", "--format", "json")
	require.Equal(t, 0, code, errOut)
	var rep struct {
		SimulatedNS int64 `json:"simulated_ns"`
		Statements  int64 `json:"statements"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, int64(87600*time.Hour), rep.SimulatedNS, "ten years simulated")
	// 10 years of 10 000 s sleeps: 31 536 sleeps, each a sleep and a work.
	assert.InDelta(t, 2*31536, rep.Statements, 4)
}

// dirNames lists dir's entries.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// --out writes all profiles or none: a profile that cannot be written
// leaves none of the others behind, and no temporary file.
func TestRunOutAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "tprof.folded"), 0o755)) // in the way
	code, _, errOut := runMain("run", "--workload", "hotcold", "--duration", "10ms", "--samplers", "truth,tprof,async", "--out", dir)
	assert.Equal(t, 2, code, errOut)
	assert.Contains(t, errOut, "tprof.folded exists and is not a regular file")
	assert.Equal(t, []string{"tprof.folded"}, dirNames(t, dir), "nothing written, nothing left over")

	// --out naming a file, or a directory under a file: bad input,
	// refused before the run.
	code, _, errOut = runMain("run", "--workload", "hotcold", "--out", "/dev/null")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--out /dev/null: exists and is not a directory")
	code, _, errOut = runMain("run", "--workload", "hotcold", "--out", "/dev/null/x")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--out /dev/null/x: not a directory")

	// The directories the run made are removed again when it fails.
	made := filepath.Join(t.TempDir(), "a", "b")
	code, _, errOut = runMain("run", "--workload", writeWorkload(t, "t.yaml", threadsYAML(2)), "--max-threads", "1", "--out", made)
	assert.Equal(t, 2, code, errOut)
	_, err := os.Stat(filepath.Dir(made))
	assert.ErrorIs(t, err, os.ErrNotExist, "the directories the run made are gone")

	// Profiles whose export would pass the memory limit are not written:
	// deepcall's run fits in 768 KiB (about 110 KiB), writing its truth
	// profile (1 MiB, most of it the compressor's) does not.
	made2 := filepath.Join(t.TempDir(), "c")
	code, _, errOut = runMain("run", "--workload", "deepcall", "--duration", "50ms", "--max-memory", "768KiB", "--out", made2)
	assert.Equal(t, 2, code, errOut)
	assert.Contains(t, errOut, "run stopped before writing its profiles: writing truth to --out would take its estimated memory to ")
	assert.Contains(t, errOut, "over --max-memory 768KiB (raise it with --max-memory SIZE)")
	_, err = os.Stat(made2)
	assert.ErrorIs(t, err, os.ErrNotExist)

	// Success: every file in place, readable, no temporary file.
	code, _, errOut = runMain("run", "--workload", "hotcold", "--duration", "10ms", "--samplers", "truth,tprof", "--out", made)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, []string{"tprof.folded", "tprof.pb.gz", "truth.folded", "truth.pb.gz"}, dirNames(t, made))
	st, err := os.Stat(filepath.Join(made, "truth.pb.gz"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), st.Mode().Perm())
}

// An interrupt while the profiles are written removes every one, and the
// command exits with 130.
func TestRunInterruptedWhileWriting(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var written []string
	afterWrite = func(path string) {
		written = append(written, filepath.Base(path))
		if len(written) == 3 {
			cancel() // as SIGINT does
		}
	}
	defer func() { afterWrite = nil }()
	var stdout bytes.Buffer
	err := runCommand(ctx, func() os.Signal { return os.Interrupt }, []string{"--workload", "hotcold", "--duration", "10ms", "--samplers", "truth,tprof", "--out", dir}, &stdout, io.Discard)
	var ec exitCodeError
	require.ErrorAs(t, err, &ec)
	assert.Equal(t, 130, ec.code)
	assert.Contains(t, err.Error(), "run interrupted (SIGINT); nothing written")
	assert.Equal(t, []string{"truth.pb.gz", "truth.folded", "tprof.pb.gz"}, written)
	_, statErr := os.Stat(dir)
	assert.ErrorIs(t, statErr, os.ErrNotExist, "the directory the run made is gone with its files")
	assert.Empty(t, stdout.String())

	// Interrupted before the run ends: the run stops, nothing written.
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	err = runCommand(ctx, func() os.Signal { return syscall.SIGTERM }, []string{"--workload", "hotcold", "--duration", "1000s", "--out", dir}, io.Discard, io.Discard)
	require.ErrorAs(t, err, &ec)
	assert.Equal(t, 143, ec.code)
	_, statErr = os.Stat(dir)
	assert.ErrorIs(t, statErr, os.ErrNotExist)
}

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// binary builds the command once for the tests that need a process.
func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the command")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "profsim-bin-*")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "profsim")
		out, err := exec.Command("go", "build", "-o", builtBin, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("%v: %s", err, out)
		}
	})
	require.NoError(t, buildErr)
	return builtBin
}

// A real SIGINT or SIGTERM stops a long run: exit status 130 or 143, one
// line, and the --out directory it made is gone.
func TestRunSignals(t *testing.T) {
	bin := binary(t)
	for _, c := range []struct {
		sig  syscall.Signal
		code int
		name string
	}{{syscall.SIGINT, 130, "SIGINT"}, {syscall.SIGTERM, 143, "SIGTERM"}} {
		out := filepath.Join(t.TempDir(), "out")
		cmd := exec.Command(bin, "run", "--workload", "javac", "--duration", "1000s", "--out", out)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		// Wait until the run has made its directory: it is running.
		deadline := time.Now().Add(time.Minute)
		for {
			if _, err := os.Stat(out); err == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond)
		require.NoError(t, cmd.Process.Signal(c.sig))
		err := cmd.Wait()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, stderr.String())
		assert.Equal(t, c.code, ee.ExitCode(), stderr.String())
		assert.Equal(t, "profsim: run interrupted ("+c.name+"); nothing written\n", stderr.String())
		_, err = os.Stat(out)
		assert.ErrorIs(t, err, os.ErrNotExist)
	}
}

// A file-size limit (ulimit -f) fails the write of the first profile: exit
// status 1 and no partial truth.pb.gz (not even the 1 KiB written before
// the limit).
func TestRunFileSizeLimit(t *testing.T) {
	bin := binary(t)
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command("sh", "-c", `ulimit -f 1 && exec "$0" run --workload deepcall --duration 50ms --samplers truth,async --out "$1"`, bin, out)
	msg, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, string(msg))
	assert.Equal(t, 1, ee.ExitCode(), string(msg))
	assert.Contains(t, string(msg), "file too large")
	_, err = os.Stat(out)
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing left: %s", msg)
}

// failWriter fails every write, as stdout on a full device does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

func TestStdoutWriteErrorsFail(t *testing.T) {
	for _, args := range [][]string{{"samplers"}, {"samplers", "async"}, {"workloads"}, {"study"}, {"help"}, {"run", "--workload", "hotcold", "--duration", "1ms"}} {
		var stderr bytes.Buffer
		code := Main(args, failWriter{}, &stderr)
		assert.Equal(t, 1, code, "%v", args)
		assert.Equal(t, "profsim: writing standard output: no space left on device\n", stderr.String(), "%v", args)
	}
}

// Flags that contradict each other, or that the rest of the command line
// would ignore, are errors naming them.
func TestRunFlagConflicts(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--explain-jit", "--format", "csv"}, "--explain-jit adds the JIT's decisions to the table and json, which --format csv does not print"},
		{[]string{"--top", "3", "--format", "jsonl"}, "--top shapes the table, which --format jsonl does not print"},
		{[]string{"--by", "line", "--format", "json"}, "--by shapes the table, csv and jsonl; --format json has every profile by method and by line"},
		{[]string{"--samplers", "cbs", "--baseline-only"}, "--sampler cbs samples at prologue/epilogue yield points of the optimizing JIT's Jikes-like code (--vm jikes), which --baseline-only turns off"},
		{[]string{"--samplers", "cbs", "--no-jit"}, "which --no-jit turns off"},
		{[]string{"--vm", "jikes", "--sampler", "cbs:x", "--baseline-only"}, "--sampler cbs:x samples at prologue/epilogue yield points"},
		{[]string{"--baseline-only", "--explain-jit"}, "--explain-jit configures the optimizing JIT, which --baseline-only turns off"},
		{[]string{"--no-jit", "--inline=false"}, "--inline configures the optimizing JIT, which --no-jit turns off"},
		{[]string{"--baseline-only", "--strip-mining", "100"}, "--strip-mining configures the optimizing JIT"},
		{[]string{"--baseline-only", "--debug-non-safepoints"}, "--debug-non-safepoints configures the optimizing JIT"},
		{[]string{"--baseline-only", "--jvm-flags", "-XX:-Inline"}, "--jvm-flags configures the optimizing JIT, which --baseline-only turns off"},
		{[]string{"--baseline-only", "--set", "jit.max_inline_size=10"}, "--set jit.max_inline_size configures the optimizing JIT, which --baseline-only turns off"},
		{[]string{"--no-jit", "--set", "sim.time_slice=5ms", "--set", "jit.tiered=false"}, "--set jit.tiered configures the optimizing JIT, which --no-jit turns off"},
		{[]string{"--keys", "--seed", "3"}, "--keys lists the keys and runs nothing: --seed, --workload would be ignored"},
	}
	for _, c := range cases {
		code, out, errOut := runMain(append([]string{"run", "--workload", "hotcold"}, c.args...)...)
		assert.Equal(t, 2, code, "%v: %s", c.args, errOut)
		assert.Empty(t, out, "%v", c.args)
		assert.Contains(t, errOut, c.want, "%v", c.args)
	}
	// Still fine: the table's flags with the table, --by with csv, the
	// JIT's with the JIT, and --vm (whose JIT settings a baseline run
	// does not use) with --baseline-only and --no-jit.
	for _, args := range [][]string{
		{"--explain-jit", "--top", "3", "--by", "line"},
		{"--by", "line", "--format", "csv"},
		{"--vm", "jikes", "--samplers", "cbs", "--inline=false"},
		{"--baseline-only", "--vm", "hotspot17", "--set", "sim.time_slice=5ms", "--no-jit"},
	} {
		code, _, errOut := runMain(append([]string{"run", "--workload", "hotcold", "--duration", "5ms"}, args...)...)
		assert.Equal(t, 0, code, "%v: %s", args, errOut)
	}
}

// profsim workloads: flags the others would ignore are errors.
func TestWorkloadsFlagConflicts(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--doc", "--measure"}, "--doc prints the measured table itself; --measure would be ignored"},
		{[]string{"--doc", "--only", "hotcold"}, "--doc covers every workload; --only would be ignored"},
		{[]string{"--duration", "1s"}, "--duration is the simulated time of --measure or --doc"},
		{[]string{"--only", "hotcold", "--duration", "1s"}, "--duration is the simulated time of --measure or --doc"},
		{[]string{"--lines", "hotcold", "--measure"}, "--lines prints one workload's statements; it takes no other flag"},
		{[]string{"--lines", "hotcld"}, `unknown workload "hotcld": did you mean "hotcold"?`},
	} {
		code, out, errOut := runMain(append([]string{"workloads"}, c.args...)...)
		assert.Equal(t, 2, code, "%v: %s", c.args, errOut)
		assert.Empty(t, out)
		assert.Contains(t, errOut, c.want, "%v", c.args)
	}
	code, out, errOut := runMain("workloads", "--only", "hotcold,sqsum")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, 2, strings.Count(out, "\n"))
	code, _, errOut = runMain("workloads", "--measure", "--only", "hotcold", "--duration", "1ms")
	require.Equal(t, 0, code, errOut)
}

// Uncaught exceptions are reported (docs/WORKLOADS.md: "ends the thread
// (reported)"): in the table and in the JSON incidents.
func TestUncaughtExceptionsAreReported(t *testing.T) {
	src := `
name: thrower
methods:
  - {class: A, name: main, body: [{spawn: {name: w, entry: A.work, count: 2, join: true}}]}
  - {class: A, name: work, body: [{call: {method: A.fail}}]}
  - {class: A, name: fail, body: [{work: {cycles: 1000, bytecodes: 10}}, {throw: {depth: 5}}]}
threads: [{name: main, entry: A.main}]
`
	path := writeWorkload(t, "thrower.yaml", src)
	code, out, errOut := runMain("run", "--workload", path)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "incident: thread w-0: uncaught exception thrown in A.fail at ")
	assert.Contains(t, out, "incident: thread w-1: uncaught exception thrown in A.fail at ")

	code, out, errOut = runMain("run", "--workload", path, "--format", "json")
	require.Equal(t, 0, code, errOut)
	var rep struct {
		Incidents []string `json:"incidents"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.Incidents, 2)
	for _, inc := range rep.Incidents {
		assert.Regexp(t, `^thread w-[01]: uncaught exception thrown in A\.fail at [0-9.]+µs; thread ended$`, inc)
	}
}

// study --out: an existing file or a directory that cannot hold files
// is bad input (exit status 2), refused before the study runs.
func TestStudyOutErrors(t *testing.T) {
	file := writeWorkload(t, "file", "x")
	for _, c := range []struct{ out, want string }{
		{file, "exists and is not a directory"},
		{"/dev/null/sub", "not a directory"},
	} {
		code, out, errOut := runMain("study", "b9-reproducible", "--out", c.out)
		assert.Equal(t, 2, code, errOut)
		assert.Empty(t, out)
		assert.Contains(t, errOut, "--out "+c.out+": "+c.want)
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := t.TempDir()
		require.NoError(t, os.Chmod(ro, 0o555))
		code, _, errOut := runMain("study", "b9-reproducible", "--out", ro)
		assert.Equal(t, 2, code, errOut)
		assert.Contains(t, errOut, "cannot create files there")
	}
}

// A study writes its files whole and names only those it wrote: an
// experiment without a figure writes no .svg and does not claim one.
func TestWriteStudyNamesWhatItWrote(t *testing.T) {
	dir := t.TempDir()
	r := &study.Result{Table: &study.Table{Columns: []string{"a", "b"}, Rows: [][]string{{"1", "2"}}}}
	files := newOutputs(context.Background(), "--out")
	written, err := writeStudy(files, r, dir, "b9-reproducible")
	require.NoError(t, err)
	assert.Equal(t, []string{"b9-reproducible.csv", "b9-reproducible.md"}, written)
	assert.Equal(t, written, dirNames(t, dir), "and no temporary file or directory")
	assert.Equal(t, "b9-reproducible.csv and b9-reproducible.md", listAnd(written))
	assert.Equal(t, "a.csv, a.md and a.svg", listAnd([]string{"a.csv", "a.md", "a.svg"}))

	// A file in the way: nothing moved into place, nothing left over.
	dir = t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "x.md"), 0o755))
	files = newOutputs(context.Background(), "--out")
	_, err = writeStudy(files, r, dir, "x")
	require.Error(t, err)
	files.abort()
	assert.Equal(t, []string{"x.md"}, dirNames(t, dir))
	assert.True(t, errors.As(err, new(usageError)), "%v", err)
}

// SIGINT during a study (which cannot stop half-way) exits at once with
// 130 and removes the --out directory the command made.
func TestStudySignal(t *testing.T) {
	bin := binary(t)
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(bin, "study", "b9-reproducible", "--seeds", "1", "--out", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(out); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err := cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, stderr.String())
	assert.Equal(t, 130, ee.ExitCode(), stderr.String())
	assert.Equal(t, "profsim: study b9-reproducible interrupted (SIGINT); nothing written\n", stderr.String())
	_, err = os.Stat(out)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// `profsim run --help` lists every limit with its default and flag.
func TestRunHelpListsLimits(t *testing.T) {
	code, out, _ := runMain("run", "--help")
	require.Equal(t, 0, code)
	for _, want := range []string{
		"--max-threads N (default 100000)",
		"--max-memory SIZE (default 12GiB)",
		"--max-input-size SIZE (default 64MiB)",
		"--cpus N: at most 1024",
		"-max-memory SIZE", "-max-input-size SIZE", "-max-threads int",
	} {
		assert.Contains(t, out, want)
	}
	names, _ := runs.SettingNames()
	assert.Subset(t, names, []string{"max-threads", "max-memory", "max-input-size"}, "a sweep grid may set the limits")
	for _, n := range names {
		assert.NotContains(t, n, " ", "a flag name read from the help")
		assert.False(t, strings.HasPrefix(n, "-"), n)
	}
}

// profsim workloads lists the fidelity twins, and --only takes them.
func TestWorkloadsListsFidelityTwins(t *testing.T) {
	code, out, errOut := runMain("workloads")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Twins of the fidelity micro-programs")
	for _, n := range workloads.Twins() {
		assert.Contains(t, out, "\n"+n+" ", n)
	}
	code, out, errOut = runMain("workloads", "--only", "fid-hotcold")
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(out, "fid-hotcold "), out)
}
