package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/report"
	"github.com/profsim/profsim/sweep"
	"github.com/profsim/profsim/sweep/runs"
)

// exampleGrid is issue 13's example with short runs.
const exampleGrid = `name: interval-vs-bias
run:                       # any 'profsim run' setting, by its long flag name
  duration: 30ms
  vm: hotspot17
  sampler: [truth, safepoint, "async:exact,interval=10ms"]
grid:                      # the cross product of these axes
  workload: [hotcold, callpair, lusearch]
  safepoint.interval: [1ms, 3ms, 10ms]
  seed: 1..3
`

// writeGrid writes a grid file into a fresh directory and returns its path.
func writeGrid(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "grid.yaml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

// sweepMain runs `profsim ARGS` in process.
func sweepMain(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = Main(args, &o, &e)
	return code, o.String(), e.String()
}

// tables reads a sweep directory's tables and manifest.
func tables(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range []string{"runs.csv", "methods.csv", runs.SummaryFile, sweep.ManifestFile} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		out[f] = string(b)
	}
	return out
}

func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	var out []map[string]string
	for _, r := range rows[1:] {
		m := map[string]string{}
		for i, h := range rows[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

func TestSweepExampleGridIndependentOfJobs(t *testing.T) {
	grid := writeGrid(t, exampleGrid)
	d1, d2 := filepath.Join(t.TempDir(), "j1"), filepath.Join(t.TempDir(), "j2")
	code, _, stderr := sweepMain(t, "sweep", grid, "--out", d1, "--jobs", "1")
	require.Equal(t, 0, code, stderr)
	code, _, stderr = sweepMain(t, "sweep", "--jobs", "2", grid, "--out", d2)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "27 points (shard 1/1 of 27): 27 run now, 0 already done; 0 failed")
	assert.Equal(t, tables(t, d1), tables(t, d2), "tables do not depend on --jobs")

	runs := readCSV(t, filepath.Join(d1, "runs.csv"))
	require.Len(t, runs, 27*3, "one row per run and profile")
	perPoint := map[string]int{}
	for _, r := range runs {
		perPoint[r["point"]]++
		assert.Equal(t, "ok", r["status"])
		for _, col := range []string{"samples", "simulated_ns", "safepoint.interval_ns", "seed"} {
			if col == "samples" && r["profile"] == "truth" {
				assert.Empty(t, r[col], "the truth has no samples")
				continue
			}
			_, err := strconv.ParseFloat(r[col], 64)
			assert.NoError(t, err, "%s of %v", col, r)
		}
	}
	assert.Len(t, perPoint, 27)
	// The axis reached the sampler: a 1 ms safepoint sampler over 30 ms
	// takes about 30 samples, a 10 ms one about 3.
	for _, r := range runs {
		if r["profile"] != "safepoint" || r["workload"] != "hotcold" {
			continue
		}
		iv, _ := strconv.ParseFloat(r["safepoint.interval_ns"], 64)
		req, _ := strconv.ParseFloat(r["requested"], 64)
		assert.InDelta(t, 30e6/iv, req, 1, "%v", r)
	}
	methods := readCSV(t, filepath.Join(d1, "methods.csv"))
	assert.NotEmpty(t, methods)
	assert.Equal(t, "0", methods[0]["point"])

	// Results are self-contained lines: key, coordinates, config, result.
	recs, err := sweep.ReadResults(filepath.Join(d1, sweep.ResultsFile))
	require.NoError(t, err)
	require.Len(t, recs, 27)
	var rc harness.Description
	require.NoError(t, json.Unmarshal(recs[0].Config, &rc))
	assert.Equal(t, rc.Key(), recs[0].Key, "the key is the config's hash")
	var rep report.Report
	require.NoError(t, json.Unmarshal(recs[0].Result, &rep))
	assert.Equal(t, []string{"truth", "safepoint", "async:exact"}, rep.Order)

	// The same command again resumes: nothing to run, same tables.
	code, _, stderr = sweepMain(t, "sweep", grid, "--out", d1)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "0 run now, 27 already done")
	assert.Equal(t, tables(t, d2), tables(t, d1))

	code, stdout, _ := sweepMain(t, "sweep", "status", d1)
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, "done 27, failed 0, missing 0")
}

func TestSweepResumesAfterCancellationAndTruncation(t *testing.T) {
	grid := writeGrid(t, exampleGrid)
	want := filepath.Join(t.TempDir(), "whole")
	code, _, stderr := sweepMain(t, "sweep", grid, "--out", want, "--jobs", "2")
	require.Equal(t, 0, code, stderr)

	dir := filepath.Join(t.TempDir(), "cut")
	plan, err := runs.New(grid, sweep.Shard{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	var e bytes.Buffer
	err = executeSweep(ctx, func() os.Signal { return nil }, plan, runs.Options{Out: dir, Jobs: 2, Stored: func(sweep.Record) {
		if n++; n == 5 {
			cancel()
		}
	}}, &e)
	var ec exitCodeError
	require.ErrorAs(t, err, &ec)
	assert.Equal(t, 130, ec.code)
	assert.Contains(t, err.Error(), "after 5 of 27 runs")
	recs, err := sweep.ReadResults(filepath.Join(dir, sweep.ResultsFile))
	require.NoError(t, err)
	assert.Len(t, recs, 5)
	_, err = os.Stat(filepath.Join(dir, "runs.csv"))
	assert.True(t, os.IsNotExist(err), "no tables from an interrupted sweep")

	// A write cut short: the last line loses its end.
	path := filepath.Join(dir, sweep.ResultsFile)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b[:len(b)-40], 0o644))

	code, _, stderr = sweepMain(t, "sweep", grid, "--out", dir, "--jobs", "2")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "discarded a truncated last line")
	assert.Contains(t, stderr, "23 run now, 4 already done", "the truncated run is redone")
	assert.Equal(t, tables(t, want), tables(t, dir))
}

func TestSweepShardsMergeToTheWhole(t *testing.T) {
	grid := writeGrid(t, exampleGrid)
	root := t.TempDir()
	whole := filepath.Join(root, "whole")
	code, _, stderr := sweepMain(t, "sweep", grid, "--out", whole)
	require.Equal(t, 0, code, stderr)
	var shards []string
	for i := 1; i <= 3; i++ {
		d := filepath.Join(root, "shard"+strconv.Itoa(i))
		code, _, stderr := sweepMain(t, "sweep", grid, "--out", d, "--shard", strconv.Itoa(i)+"/3")
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, stderr, "9 points (shard "+strconv.Itoa(i)+"/3 of 27)")
		shards = append(shards, d)
	}
	code, stdout, _ := sweepMain(t, "sweep", "status", shards[1])
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, "shard 2/3: 9 points")

	// A missing shard is reported, and nothing is written.
	merged := filepath.Join(root, "merged")
	code, _, stderr = sweepMain(t, "sweep", "merge", shards[0], shards[2], "--out", merged)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "9 of 27 points missing: 1, 4, 7, 10")
	_, err := os.Stat(merged)
	assert.True(t, os.IsNotExist(err))
	// A shard given twice duplicates its points.
	code, _, stderr = sweepMain(t, "sweep", "merge", shards[0], shards[1], shards[2], shards[0]+"/", "--out", merged)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "9 points in more than one directory: 0 (in ")

	code, _, stderr = sweepMain(t, "sweep", "merge", shards[0], shards[1], shards[2], "--out", merged)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, tables(t, whole), tables(t, merged), "shards merged equal the unsharded sweep")

	// Shards of different grids do not merge.
	other := writeGrid(t, strings.Replace(exampleGrid, "seed: 1..3", "seed: 4..6", 1))
	d := filepath.Join(root, "other")
	code, _, stderr = sweepMain(t, "sweep", other, "--out", d, "--shard", "2/3")
	require.Equal(t, 0, code, stderr)
	code, _, stderr = sweepMain(t, "sweep", "merge", shards[0], d, shards[2], "--out", filepath.Join(root, "m2"))
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "hold different grids")
}

func TestSweepRecordsAFailedRunAndGoesOn(t *testing.T) {
	grid := writeGrid(t, `run: {duration: 10ms, sampler: [truth, async]}
grid: {workload: [hotcold, broken.yaml, callpair]}
`)
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(grid), "broken.yaml"), []byte("name: x\nmethods: 7\n"), 0o644))
	dir := filepath.Join(t.TempDir(), "out")
	code, _, stderr := sweepMain(t, "sweep", grid, "--out", dir)
	assert.Equal(t, 1, code, "a failed run makes the exit status non-zero")
	assert.Contains(t, stderr, "1 of 3 runs failed")
	runs := readCSV(t, filepath.Join(dir, "runs.csv"))
	require.Len(t, runs, 2+1+2)
	assert.Equal(t, "failed", runs[2]["status"])
	assert.Equal(t, "broken.yaml", runs[2]["workload"])
	assert.Contains(t, runs[2]["error"], "broken.yaml")
	assert.Equal(t, "", runs[2]["profile"])
	assert.Equal(t, "ok", runs[3]["status"], "the sweep went on")

	code, _, _ = sweepMain(t, "sweep", grid, "--out", filepath.Join(t.TempDir(), "ff"), "--fail-fast", "--jobs", "1")
	assert.Equal(t, 1, code)
}

func TestSweepWorkloadFilesAreRelativeToTheGrid(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "w"), 0o755))
	threads, err := os.ReadFile("testdata/threads.yaml")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "w", "threads.yaml"), threads, 0o644))
	grid := filepath.Join(dir, "g.yaml")
	require.NoError(t, os.WriteFile(grid, []byte("run: {workload: w/threads.yaml, duration: 10ms}\ngrid: {cpus: [1, 2]}\n"), 0o644))
	out := filepath.Join(t.TempDir(), "o")
	code, _, stderr := sweepMain(t, "sweep", grid, "--out", out, "--keep-profiles")
	require.Equal(t, 0, code, stderr)
	runs := readCSV(t, filepath.Join(out, "runs.csv"))
	require.Len(t, runs, 2)
	_, err = os.Stat(filepath.Join(out, "profiles", runs[1]["key"], "truth.pb.gz"))
	assert.NoError(t, err, "--keep-profiles writes each run's profiles under its key")
}

func TestSweepBadGridsExit2NamingThePath(t *testing.T) {
	for _, c := range []struct{ grid, want string }{
		{"run: {sampler: [truth, safepoint], duration: 10ms}\ngrid: {safepoint.intervl: [1ms, 2ms]}",
			`grid.yaml:2: grid["safepoint.intervl"]: sampler safepoint has no key "intervl" (did you mean "interval"?); its keys: interval,`},
		{"grid: {dration: [1ms]}", `grid["dration"]: unknown setting (did you mean "duration"?)`},
		{"run: {format: json}", `run["format"]: --format is about presenting one run`},
		{"grid: {jit.inlin: [true]}", `grid["jit.inlin"]: unknown VM setting (did you mean "jit.inline"?)`},
		{"run: {sampler: [async]}\ngrid: {exact.interval: [1ms]}", `grid["exact.interval"]: no sampler labelled "exact" at point 0, whose samplers are async`},
		{"run: {sampler: [async:x, jfr:x]}\ngrid: {x.interval: [1ms]}", `"x" names several samplers at point 0 (async:x, jfr:x)`},
		{"run: {workload: hotcold}\ngrid: {seed: [1, x]}", `point 1: --seed "x": want a whole number in [0, 18446744073709551615]`},
		{"run: {workload: [hotcold, callpair]}", `run["workload"]: workload takes one value, not a list`},
		{"run: {workload: hotcold}\ngrid: {sim.time_slice: [1ms, 0s]}", `point 1: --set: sim.time_slice`},
		{"grid: {seed: 1..2}\nzip: {cpus: [1, 2], seed: [1, 2]}", `axis "seed" is also grid["seed"]`},
	} {
		grid := writeGrid(t, c.grid)
		code, _, stderr := sweepMain(t, "sweep", grid, "--out", filepath.Join(t.TempDir(), "o"))
		assert.Equal(t, 2, code, c.grid)
		assert.Contains(t, stderr, c.want, c.grid)
		assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "one line: %s", stderr)
	}
	for _, args := range [][]string{
		{"sweep"}, {"sweep", "g.yaml"}, {"sweep", "a.yaml", "b.yaml", "--out", "o"}, {"sweep", "nosuch.yaml", "--out", "o"},
		{"sweep", "g.yaml", "--out", "o", "--jobs", "0"}, {"sweep", "g.yaml", "--out", "o", "--shard", "4/3"},
		{"sweep", "merge", "--out", "o"}, {"sweep", "status"}, {"sweep", "status", t.TempDir()},
	} {
		code, _, stderr := sweepMain(t, args...)
		assert.Equal(t, 2, code, "%v: %s", args, stderr)
	}
}

// A sweep plans its samplers as the run attaches them
// (harness.Config.PlanSamplers): a point whose sampler list `profsim run`
// refuses stops the whole sweep before any run, exit status 2, with the
// run's message naming the point. cbs on HotSpot code, which has no
// prologue yield points, once planned and failed only when the point ran.
func TestSweepRefusesTheSamplerListsRunRefuses(t *testing.T) {
	for _, c := range []struct {
		run   []string // the point's `profsim run` flags
		grid  string
		point int
	}{
		{[]string{"--vm", "hotspot17", "--sampler", "cbs"},
			"run: {workload: hotcold, duration: 10ms, sampler: [truth, cbs]}\ngrid: {vm: [jikes, hotspot17]}", 1},
		{[]string{"--sampler", "jikes-timer:a"},
			"run: {workload: hotcold, duration: 10ms}\ngrid: {sampler: [\"jikes-timer:a\"]}", 0},
		{[]string{"--sampler", "async", "--sampler", "async"},
			"run: {workload: hotcold, duration: 10ms}\ngrid: {seed: [1]}\nzip: {sampler: [[async, async]]}", 0},
		{[]string{"--sampler", "truth,x=1"},
			"run: {workload: hotcold, duration: 10ms, sampler: [\"truth,x=1\"]}", 0},
	} {
		code, _, runErr := sweepMain(t, append([]string{"run", "--workload", "hotcold", "--duration", "10ms"}, c.run...)...)
		require.Equal(t, 2, code, "%v: %s", c.run, runErr)
		msg := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(runErr), "profsim: "), "run: ")

		dir := filepath.Join(t.TempDir(), "o")
		code, _, stderr := sweepMain(t, "sweep", writeGrid(t, c.grid), "--out", dir)
		assert.Equal(t, 2, code, "%s: %s", c.grid, stderr)
		assert.Contains(t, stderr, fmt.Sprintf("grid.yaml: point %d: %s (settings: ", c.point, msg), c.grid)
		assert.NoFileExists(t, filepath.Join(dir, "runs.csv"), "no point ran")
	}
}

// TestSweepSIGINT interrupts a real `profsim sweep` process with SIGINT,
// resumes it, and compares the tables with an uninterrupted sweep's.
func TestSweepSIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := filepath.Join(t.TempDir(), "profsim")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))
	grid := writeGrid(t, "run: {workload: lusearch, duration: 100ms, sampler: [truth, async, safepoint]}\ngrid: {seed: 1..60}\n")
	root := t.TempDir()
	whole, cut := filepath.Join(root, "whole"), filepath.Join(root, "cut")
	require.NoError(t, exec.Command(bin, "sweep", grid, "--out", whole, "--jobs", "1").Run())

	cmd := exec.Command(bin, "sweep", grid, "--out", cut, "--jobs", "1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	results := filepath.Join(cut, sweep.ResultsFile)
	deadline := time.Now().Add(time.Minute)
	for {
		b, _ := os.ReadFile(results)
		if bytes.Count(b, []byte("\n")) >= 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	// Another process's sweep into the directory is refused, naming this one.
	second := exec.Command(bin, "sweep", grid, "--out", cut, "--jobs", "1")
	msg, err := second.CombinedOutput()
	var se *exec.ExitError
	require.ErrorAs(t, err, &se, string(msg))
	assert.Equal(t, 2, se.ExitCode(), string(msg))
	assert.Contains(t, string(msg), fmt.Sprintf("profsim: sweep: %s is in use by pid %d on host ", cut, cmd.Process.Pid))
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err = cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, stderr.String())
	assert.Equal(t, 130, ee.ExitCode(), stderr.String())
	assert.Contains(t, stderr.String(), "profsim: sweep: interrupted (SIGINT)")
	recs, err := sweep.ReadResults(results)
	require.NoError(t, err)
	assert.Less(t, len(recs), 60, "interrupted before the end")

	resume := exec.Command(bin, "sweep", grid, "--out", cut, "--jobs", "2")
	msg, err = resume.CombinedOutput()
	require.NoError(t, err, string(msg))
	assert.Equal(t, tables(t, whole), tables(t, cut))
}

func TestSweepSettingsReachTheRun(t *testing.T) {
	grid := writeGrid(t, `run:
  workload: hotcold
  duration: 10ms
  samplers: truth,safepoint
  safepoint.depth: 7
zip:
  jit.inline: [true, false]
  seed: [4, 5]
`)
	dir := filepath.Join(t.TempDir(), "o")
	code, _, stderr := sweepMain(t, "sweep", grid, "--out", dir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "profsim sweep: 2/2 runs done", "a plain progress line when stderr is not a terminal")
	recs, err := sweep.ReadResults(filepath.Join(dir, sweep.ResultsFile))
	require.NoError(t, err)
	require.Len(t, recs, 2)
	slices.SortFunc(recs, func(a, b sweep.Record) int { return a.Point - b.Point }) // records are in completion order
	for i, want := range []struct {
		inline string
		seed   uint64
	}{{"true", 4}, {"false", 5}} {
		var rc harness.Description
		require.NoError(t, json.Unmarshal(recs[i].Config, &rc))
		assert.Equal(t, want.inline, rc.Settings["jit.inline"])
		assert.Equal(t, want.seed, rc.Seed)
		require.Len(t, rc.Samplers, 1)
		assert.Equal(t, "7", rc.Samplers[0].Params["depth"], "LABEL.KEY reached the sampler named by --samplers")
	}
}

func TestSweepShardAuto(t *testing.T) {
	grid := writeGrid(t, "run: {workload: hotcold, duration: 5ms}\ngrid: {seed: 1..5}\n")
	t.Setenv("JOB_COMPLETION_INDEX", "1")
	dir := filepath.Join(t.TempDir(), "o")
	code, _, stderr := sweepMain(t, "sweep", grid, "--out", dir, "--shard", "auto", "--shard-count", "2")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "2 points (shard 2/2 of 5)", "points 1 and 3")
	code, _, stderr = sweepMain(t, "sweep", grid, "--out", dir, "--shard", "auto")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "no shard count")
}

func TestSweepHonoursMaxInputSize(t *testing.T) {
	dir := t.TempDir()
	threads, err := os.ReadFile("testdata/threads.yaml")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "w.yaml"), threads, 0o644))
	grid := filepath.Join(dir, "g.yaml")
	require.NoError(t, os.WriteFile(grid, []byte("run: {workload: w.yaml, duration: 5ms, max-input-size: 16B}\n"), 0o644))
	code, _, stderr := sweepMain(t, "sweep", grid, "--out", filepath.Join(dir, "o"))
	assert.Equal(t, 1, code, "the point fails: its workload file is over the grid's limit")
	runs := readCSV(t, filepath.Join(dir, "o", "runs.csv"))
	require.Len(t, runs, 1, stderr)
	assert.Equal(t, "failed", runs[0]["status"])
	assert.Contains(t, runs[0]["error"], "max-input-size")
}

// A second sweep, or a merge, into a directory a sweep is writing exits 2
// naming the holder; once the first ends, the directory is free.
func TestSweepSecondSweepOnOneOutExits2(t *testing.T) {
	grid := writeGrid(t, "run: {workload: hotcold, duration: 10ms, sampler: [truth]}\ngrid: {seed: 1..2}\n")
	root := t.TempDir()
	dir, whole := filepath.Join(root, "out"), filepath.Join(root, "whole")
	code, _, stderr := sweepMain(t, "sweep", grid, "--out", whole, "--jobs", "1")
	require.Equal(t, 0, code, stderr)

	plan, err := runs.New(grid, sweep.Shard{})
	require.NoError(t, err)
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	done := make(chan error, 1)
	go func() {
		var e bytes.Buffer
		// The sweep holds the directory while it stores its first run.
		done <- executeSweep(context.Background(), func() os.Signal { return nil }, plan, runs.Options{Out: dir, Jobs: 1,
			Stored: func(sweep.Record) {
				once.Do(func() { close(started) })
				<-release
			}}, &e)
	}()
	<-started
	host, _ := os.Hostname()
	holder := fmt.Sprintf("%s is in use by pid %d on host %s since ", dir, os.Getpid(), host)
	code, _, stderr = sweepMain(t, "sweep", grid, "--out", dir, "--jobs", "1")
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "profsim: sweep: "+holder)
	assert.Contains(t, stderr, "(profsim sweep)")
	code, _, stderr = sweepMain(t, "sweep", "merge", whole, "--out", dir)
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "profsim: sweep merge: "+holder)
	close(release)
	require.NoError(t, <-done)
	code, _, stderr = sweepMain(t, "sweep", grid, "--out", dir, "--jobs", "1")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "0 run now, 2 already done")
	recs, err := sweep.ReadResults(filepath.Join(dir, sweep.ResultsFile))
	require.NoError(t, err)
	assert.Len(t, recs, 2, "each point ran once")
}

// sweep, sweep status and sweep merge all exit 2 on a damaged directory,
// each naming itself and the file.
func TestSweepSubcommandsExit2OnBadDirectories(t *testing.T) {
	grid := writeGrid(t, "run: {workload: hotcold, duration: 10ms, sampler: [truth]}\ngrid: {seed: 1..3}\n")
	root := t.TempDir()
	good := filepath.Join(root, "good")
	code, _, stderr := sweepMain(t, "sweep", grid, "--out", good, "--jobs", "1")
	require.Equal(t, 0, code, stderr)
	results, err := os.ReadFile(filepath.Join(good, sweep.ResultsFile))
	require.NoError(t, err)
	manifest, err := os.ReadFile(filepath.Join(good, sweep.ManifestFile))
	require.NoError(t, err)
	lines := strings.SplitAfter(string(results), "\n")
	// damaged makes a copy of good with its results or manifest changed.
	damaged := func(name string, results, manifest string) string {
		dir := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, sweep.ResultsFile), []byte(results), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, sweep.ManifestFile), []byte(manifest), 0o644))
		return dir
	}
	corrupt := damaged("corrupt", lines[0]+"garbage\n"+lines[2], string(manifest))
	var first struct{ Key string }
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	// A line whose key and status read but whose record does not decode.
	undecodable := damaged("undecodable", `{"key":"`+first.Key+`","status":"ok","coords":5}`+"\n"+lines[1]+lines[2], string(manifest))
	badShard := damaged("badshard", string(results), strings.Replace(string(manifest), `"shard": "1/1"`, `"shard": "0/7"`, 1))
	require.NotEqual(t, string(manifest), func() string { b, _ := os.ReadFile(filepath.Join(badShard, sweep.ManifestFile)); return string(b) }())
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", grid, "--out", corrupt}, "profsim: sweep: " + corrupt + "/results.jsonl:2: a corrupt record"},
		{[]string{"sweep", "status", corrupt}, "profsim: sweep status: " + corrupt + "/results.jsonl:2: a corrupt record"},
		{[]string{"sweep", "merge", corrupt, "--out", filepath.Join(root, "m1")}, "profsim: sweep merge: " + corrupt + "/results.jsonl:2: a corrupt record"},
		{[]string{"sweep", "merge", undecodable, "--out", filepath.Join(root, "m2")}, "profsim: sweep merge: " + undecodable + "/results.jsonl: the record of key " + first.Key},
		{[]string{"sweep", grid, "--out", undecodable}, "profsim: sweep: " + undecodable + "/results.jsonl: the record of key " + first.Key},
		{[]string{"sweep", "status", badShard}, "profsim: sweep status: " + badShard + "/sweep.json: shard \"0/7\""},
		{[]string{"sweep", "merge", badShard, "--out", filepath.Join(root, "m3")}, "profsim: sweep merge: " + badShard + "/sweep.json: shard \"0/7\""},
	} {
		code, _, stderr := sweepMain(t, c.args...)
		assert.Equal(t, 2, code, "%v: %s", c.args, stderr)
		assert.True(t, strings.HasPrefix(stderr, c.want), "%v:\n got %s\nwant %s", c.args, stderr, c.want)
	}
}

// A grid file over the input limit is refused before it is read: a 100 GB
// sparse file exits 2 at once, naming the file and the limit.
func TestSweepRefusesAGridFileOverTheInputLimit(t *testing.T) {
	grid := filepath.Join(t.TempDir(), "huge.yaml")
	f, err := os.Create(grid)
	require.NoError(t, err)
	_, err = f.WriteString("run: {workload: hotcold}\n")
	require.NoError(t, err)
	require.NoError(t, f.Truncate(100<<30)) // sparse: no disk, no memory
	require.NoError(t, f.Close())
	start := time.Now()
	code, _, stderr := sweepMain(t, "sweep", grid, "--out", filepath.Join(t.TempDir(), "o"))
	assert.Equal(t, 2, code)
	assert.Equal(t, "profsim: sweep: "+grid+": 100GiB is over the input limit of 64MiB\n", stderr)
	assert.Less(t, time.Since(start), 5*time.Second, "refused without reading")

	// At the limit it is read (and here refused for what it says).
	require.NoError(t, os.Truncate(grid, harness.DefaultMaxInput))
	code, _, stderr = sweepMain(t, "sweep", grid, "--out", filepath.Join(t.TempDir(), "o"))
	assert.Equal(t, 2, code)
	assert.NotContains(t, stderr, "input limit")
}

// A shard runs its own points only: the manifest of a one-point shard
// of a 10⁶-point grid lists that point alone (its planning:
// runs.TestPlansOnlyItsShard).
func TestSweepPlansOnlyItsShard(t *testing.T) {
	grid := writeGrid(t, "run: {workload: hotcold, duration: 5ms, sampler: [truth]}\ngrid: {seed: 1..1000000}\n")
	dir := filepath.Join(t.TempDir(), "o")
	code, _, stderr := sweepMain(t, "sweep", grid, "--out", dir, "--shard", "777778/1000000")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "1 points (shard 777778/1000000 of 1000000)")
	m, err := sweep.ReadManifest(dir)
	require.NoError(t, err)
	assert.Equal(t, 1000000, m.Size)
	require.Len(t, m.Points, 1)
	assert.Equal(t, 777777, m.Points[0].Point)
	code, stdout, stderr := sweepMain(t, "sweep", "status", dir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "grid grid: 1000000 points; this directory runs shard 777778/1000000: 1 points\n")
	assert.Contains(t, stdout, "\ndone 1, failed 0, missing 0\n")
}

// A bad value stops every shard before anything runs, not only the shard
// with its point: each level of each axis is planned (a range at its ends).
func TestSweepShardChecksEveryLevel(t *testing.T) {
	for _, c := range []struct{ grid, shard, want string }{
		{"grid: {workload: [hotcold, callpair], seed: [1, x, 3]}\n", "1/6", `grid["seed"][1]=x`},
		{"grid: {workload: [hotcold, nosuch.yaml], seed: [1, 2]}\n", "1/4", ""},                                              // a workload that does not load is a point's failure
		{"grid: {workload: [hotcold, hotcld], seed: [1, 2]}\n", "1/4", `unknown workload "hotcld": did you mean "hotcold"?`}, // a misspelt built-in stops the plan
		{"grid: {workload: [hotcold, zzzz], seed: [1, 2]}\n", "1/4", `unknown workload "zzzz": not a built-in`},
		{"grid: {seed: 1..3, cpus: 1..100000}\n", "1/300000", `grid["cpus"][99999]=100000`},
	} {
		grid := writeGrid(t, "run: {workload: hotcold, duration: 5ms, sampler: [truth]}\n"+c.grid)
		code, _, stderr := sweepMain(t, "sweep", grid, "--out", filepath.Join(t.TempDir(), "o"), "--shard", c.shard)
		if c.want == "" {
			assert.Equal(t, 0, code, stderr)
			continue
		}
		assert.Equal(t, 2, code, stderr)
		assert.Contains(t, stderr, c.want)
	}
}

// Shards planned from different workload files (edited between them) do
// not merge: each manifest carries the hashes of the files it loaded.
// Point 0 runs a built-in, so its key, the manifests' first_key, agrees.
func TestSweepMergeRefusesAChangedWorkload(t *testing.T) {
	dir := t.TempDir()
	threads, err := os.ReadFile("testdata/threads.yaml")
	require.NoError(t, err)
	w := filepath.Join(dir, "w.yaml")
	require.NoError(t, os.WriteFile(w, threads, 0o644))
	grid := filepath.Join(dir, "g.yaml")
	require.NoError(t, os.WriteFile(grid, []byte("run: {duration: 5ms, sampler: [truth]}\ngrid: {workload: [hotcold, w.yaml], seed: 1..2}\n"), 0o644))
	s1, s2 := filepath.Join(dir, "s1"), filepath.Join(dir, "s2")
	code, _, stderr := sweepMain(t, "sweep", grid, "--out", s1, "--shard", "1/2")
	require.Equal(t, 0, code, stderr)
	edited := strings.Replace(string(threads), "cycles: 20000", "cycles: 20001", 1)
	require.NotEqual(t, string(threads), edited)
	require.NoError(t, os.WriteFile(w, []byte(edited), 0o644))
	code, _, stderr = sweepMain(t, "sweep", grid, "--out", s2, "--shard", "2/2")
	require.Equal(t, 0, code, stderr)
	code, _, stderr = sweepMain(t, "sweep", "merge", s1, s2, "--out", filepath.Join(dir, "m"))
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "profsim: sweep merge: "+s1+" and "+s2+" hold different grids (workload w.yaml changed between them)")
}

// Shards of one grid text, planned from two copies of the grid whose
// workload files (relative to each copy) differ, do not merge: the
// manifests name a workload as the grid does, not by the path it was
// loaded from, which differs between the copies.
func TestSweepMergeRefusesAnotherCopysWorkload(t *testing.T) {
	threads, err := os.ReadFile("testdata/threads.yaml")
	require.NoError(t, err)
	edited := strings.Replace(string(threads), "cycles: 20000", "cycles: 20001", 1)
	require.NotEqual(t, string(threads), edited)
	text := "run: {duration: 5ms, sampler: [truth]}\ngrid: {workload: [hotcold, w.yaml], seed: 1..2}\n"
	dir := t.TempDir()
	var outs []string
	for i, content := range []string{string(threads), edited} {
		copyDir := filepath.Join(dir, fmt.Sprintf("copy%d", i+1))
		require.NoError(t, os.MkdirAll(copyDir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(copyDir, "w.yaml"), []byte(content), 0o644))
		grid := filepath.Join(copyDir, "g.yaml")
		require.NoError(t, os.WriteFile(grid, []byte(text), 0o644))
		out := filepath.Join(dir, fmt.Sprintf("s%d", i+1))
		code, _, stderr := sweepMain(t, "sweep", grid, "--out", out, "--shard", fmt.Sprintf("%d/2", i+1))
		require.Equal(t, 0, code, stderr)
		outs = append(outs, out)
	}
	code, _, stderr := sweepMain(t, "sweep", "merge", outs[0], outs[1], "--out", filepath.Join(dir, "m"))
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "profsim: sweep merge: "+outs[0]+" and "+outs[1]+" hold different grids (workload w.yaml changed between them)")
}

// The synopses of 'profsim sweep --help' and docs/SWEEPS.md name every
// flag sweep takes.
func TestSweepSynopsesNameEveryFlag(t *testing.T) {
	code, help, _ := sweepMain(t, "sweep", "--help")
	require.Equal(t, 0, code)
	usage, flags, ok := strings.Cut(help, "\nFlags:\n")
	require.True(t, ok, help)
	doc, err := os.ReadFile("../../docs/SWEEPS.md")
	require.NoError(t, err)
	var docSynopsis string
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "profsim sweep GRID.yaml --out DIR") {
			docSynopsis = line
		}
	}
	require.NotEmpty(t, docSynopsis)
	var helpSynopsis string
	for _, line := range strings.Split(usage, "\n") {
		if strings.HasPrefix(line, "  profsim sweep GRID.yaml") {
			helpSynopsis = line
		}
	}
	require.NotEmpty(t, helpSynopsis)
	n := 0
	for _, line := range strings.Split(flags, "\n") {
		if !strings.HasPrefix(line, "  -") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(line, "  -"), " ")
		n++
		flag := regexp.MustCompile(`[ \[]--` + regexp.QuoteMeta(name) + `[ \]]`)
		assert.Regexp(t, flag, helpSynopsis, "sweep --help's synopsis")
		assert.Regexp(t, flag, docSynopsis, "docs/SWEEPS.md's synopsis")
	}
	assert.Equal(t, 7, n, "sweep's flags")
}

// Every `profsim run` flag is a Spec's (a grid may set it) or an output
// flag (the sweep refuses it by name).
func TestRunFlagsAreSpecOrOutput(t *testing.T) {
	var help bytes.Buffer
	_, err := parseRunFlags([]string{"-h"}, &help)
	require.ErrorIs(t, err, errHelp)
	names, _ := runs.SettingNames()
	var flags []string
	for _, line := range strings.Split(help.String(), "\n") {
		if name, ok := strings.CutPrefix(line, "  -"); ok {
			name, _, _ = strings.Cut(name, " ")
			flags = append(flags, name)
			assert.True(t, slices.Contains(names, name) != slices.Contains(runs.OutputFlags, name),
				"--%s is either a run setting or an output flag", name)
		}
	}
	for _, n := range slices.Concat(names, runs.OutputFlags) {
		assert.Contains(t, flags, n, "--%s is a flag of profsim run", n)
	}
}
