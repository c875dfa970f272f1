package main

import (
	"encoding/json"
	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/sweep/runs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/sweep"
)

// skipReport is the part of the JSON report --skip changes.
type skipReport struct {
	SimulatedNS int64 `json:"simulated_ns"`
	AppCPUNS    int64 `json:"app_cpu_ns"`
	Safepoints  struct {
		Count int `json:"count"`
	} `json:"safepoints"`
	Profiles map[string]struct {
		Samples int64 `json:"samples"`
		Costs   *struct {
			Requested int64 `json:"requested"`
		} `json:"costs"`
	} `json:"profiles"`
	Config struct {
		Skip *string  `json:"skip"`
		Args []string `json:"args"`
	} `json:"config"`
}

func TestRunSkipWindowsTheReport(t *testing.T) {
	args := []string{"run", "--workload", "hotcold", "--duration", "200ms", "--samplers", "async,jfr,safepoint", "--mode", "costed", "--format", "json"}
	code, whole, errOut := runMain(args...)
	require.Equal(t, 0, code, errOut)
	code, out, errOut := runMain(append(args, "--skip", "150ms")...)
	require.Equal(t, 0, code, errOut)
	var w, s skipReport
	require.NoError(t, json.Unmarshal([]byte(whole), &w))
	require.NoError(t, json.Unmarshal([]byte(out), &s))
	assert.Nil(t, w.Config.Skip, "no skip, no key: the config of a run without --skip is unchanged")
	assert.NotContains(t, w.Config.Args, "--skip")
	require.NotNil(t, s.Config.Skip)
	assert.Equal(t, "150ms", *s.Config.Skip)
	assert.Equal(t, int64(200e6), w.SimulatedNS)
	assert.Equal(t, int64(50e6), s.SimulatedNS, "the window's length")
	assert.Equal(t, s.AppCPUNS, s.Profiles["truth"].Samples, "the truth is the window's application CPU")
	assert.Less(t, s.AppCPUNS, w.AppCPUNS/3)
	assert.Greater(t, w.Safepoints.Count, 10)
	assert.InDelta(t, float64(w.Safepoints.Count)/4, float64(s.Safepoints.Count), 2, "the safepoints requested in the window")
	for _, name := range []string{"async", "jfr", "safepoint"} {
		ws, ss := w.Profiles[name].Costs.Requested, s.Profiles[name].Costs.Requested
		assert.InDelta(t, float64(ws)/4, float64(ss), 1, "%s: a quarter of the run, a quarter of the ticks", name)
	}

	code, again, errOut := runMain(append(args, "--skip", "150ms")...)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, out, again, "same seed, same output")
	code, replay, errOut := runMain(append(s.Config.Args[:len(s.Config.Args):len(s.Config.Args)], "--format", "json")...)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, out, replay, "config.args reproduce the run, --skip included")
}

func TestRunSkipRefused(t *testing.T) {
	for _, skip := range []string{"-1ms", "100ms", "1s"} {
		code, _, errOut := runMain("run", "--workload", "hotcold", "--duration", "100ms", "--skip", skip)
		assert.Equal(t, 2, code, skip)
		assert.Contains(t, errOut, "--skip", skip)
	}
	code, _, errOut := runMain("run", "--workload", "hotcold", "--duration", "100ms", "--skip", "10ms", "--samplers", "komorium")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--skip: sampler komorium instruments the program before it runs and cannot start at 10ms")
}

func TestSweepGridSetsSkip(t *testing.T) {
	names, _ := runs.SettingNames()
	require.Contains(t, names, "skip")
	grid := writeGrid(t, `run:
  workload: hotcold
  duration: 20ms
  samplers: truth,async
grid:
  skip: [0s, 15ms]
`)
	dir := filepath.Join(t.TempDir(), "o")
	code, _, stderr := sweepMain(t, "sweep", grid, "--out", dir)
	require.Equal(t, 0, code, stderr)
	recs, err := sweep.ReadResults(filepath.Join(dir, sweep.ResultsFile))
	require.NoError(t, err)
	require.Len(t, recs, 2)
	slices.SortFunc(recs, func(a, b sweep.Record) int { return a.Point - b.Point })
	assert.NotEqual(t, recs[0].Key, recs[1].Key, "the run key tells the windows apart")
	var skips []string
	for _, r := range recs {
		var rc harness.Description
		require.NoError(t, json.Unmarshal(r.Config, &rc))
		skips = append(skips, rc.Skip)
	}
	assert.Equal(t, []string{"", "15ms"}, skips)
	rows := readCSV(t, filepath.Join(dir, "runs.csv"))
	require.NotEmpty(t, rows)
	got := map[string]bool{}
	for _, r := range rows {
		got[r["skip_ns"]+"/"+r["simulated_ns"]] = true
	}
	assert.Equal(t, map[string]bool{"0/20000000": true, "15000000/5000000": true}, got)
}

func TestRunThreadsRestrictsTheReport(t *testing.T) {
	args := []string{"run", "--workload", "lusearch", "--duration", "100ms", "--samplers", "async,jfr", "--format", "json"}
	code, whole, errOut := runMain(args...)
	require.Equal(t, 0, code, errOut)
	code, out, errOut := runMain(append(args, "--threads", "worker-0,worker-1")...)
	require.Equal(t, 0, code, errOut)
	type th struct {
		Name     string           `json:"name"`
		StatesNS map[string]int64 `json:"states_ns"`
	}
	var w, s struct {
		AppCPUNS int64 `json:"app_cpu_ns"`
		Threads  []th  `json:"threads"`
		Profiles map[string]struct {
			Samples int64 `json:"samples"`
		} `json:"profiles"`
		Config struct {
			Threads *string  `json:"threads"`
			Args    []string `json:"args"`
		} `json:"config"`
	}
	require.NoError(t, json.Unmarshal([]byte(whole), &w))
	require.NoError(t, json.Unmarshal([]byte(out), &s))
	assert.Nil(t, w.Config.Threads)
	require.NotNil(t, s.Config.Threads)
	assert.Equal(t, "worker-0,worker-1", *s.Config.Threads)
	var two int64
	for _, x := range s.Threads {
		if x.Name == "worker-0" || x.Name == "worker-1" {
			two += x.StatesNS["running"]
		}
	}
	assert.Equal(t, two, s.AppCPUNS, "the application CPU is the two workers'")
	assert.Equal(t, two, s.Profiles["truth"].Samples)
	assert.Less(t, s.AppCPUNS, w.AppCPUNS/2)
	assert.Less(t, s.Profiles["async"].Samples, w.Profiles["async"].Samples/2)

	code, again, errOut := runMain(append(args, "--threads", "worker-0,worker-1")...)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, out, again, "same seed, same output")
	code, replay, errOut := runMain(append(s.Config.Args[:len(s.Config.Args):len(s.Config.Args)], "--format", "json")...)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, out, replay, "config.args reproduce the run, --threads included")
}

func TestRunThreadsRefused(t *testing.T) {
	code, _, errOut := runMain("run", "--workload", "lusearch", "--duration", "10ms", "--threads", "nobody")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `--threads "nobody" matches none of the application threads: main, worker-0, worker-1`)
	for _, bad := range []string{"", "[x", "a,,b"} {
		code, _, errOut = runMain("run", "--workload", "lusearch", "--duration", "10ms", "--threads", bad)
		assert.Equal(t, 2, code, bad)
		assert.Contains(t, errOut, "--threads", bad)
	}
	code, _, errOut = runMain("run", "--workload", "lusearch", "--duration", "10ms", "--threads", "main", "--samplers", "komorium")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--threads: sampler komorium counts every thread's bytecodes and cannot be restricted to some threads")
}

func TestSweepGridSetsThreads(t *testing.T) {
	grid := writeGrid(t, `run:
  workload: lusearch
  duration: 20ms
  samplers: truth,async
grid:
  threads: ["worker-*", "worker-0"]
`)
	dir := filepath.Join(t.TempDir(), "o")
	code, _, stderr := sweepMain(t, "sweep", grid, "--out", dir)
	require.Equal(t, 0, code, stderr)
	recs, err := sweep.ReadResults(filepath.Join(dir, sweep.ResultsFile))
	require.NoError(t, err)
	require.Len(t, recs, 2)
	assert.NotEqual(t, recs[0].Key, recs[1].Key)
	rows := readCSV(t, filepath.Join(dir, "runs.csv"))
	got := map[string]bool{}
	for _, r := range rows {
		got[r["threads"]] = true
	}
	assert.Equal(t, map[string]bool{"worker-*": true, "worker-0": true}, got)
}

// A --skip past the program's end is bad input (exit 2, naming the
// flag and where the program ended), not a crash.
func TestRunSkipPastTheProgramsEnd(t *testing.T) {
	short := filepath.Join(t.TempDir(), "short.yaml")
	require.NoError(t, os.WriteFile(short, []byte(`name: short
methods:
  - {class: A, name: main, body: [{loop: {trips: 10, body: [{work: {cycles: 100000, bytecodes: 10}}]}}]}
threads: [{name: main, entry: A.main}]
`), 0o644))
	code, _, errOut := runMain("run", "--workload", short, "--duration", "1s", "--skip", "500ms", "--samplers", "safepoint,jfr")
	assert.Equal(t, 2, code, errOut)
	assert.Contains(t, errOut, "--skip 500ms: the program ended at")
	assert.NotContains(t, errOut, "panic")
}
