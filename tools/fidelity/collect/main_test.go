package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// eps bounds float comparison of shares computed from small integer
// counts (exact up to rounding).
const eps = 1e-9

func blockHalf(t *testing.T) Mode {
	m, ok := lookupMode("blockhalf")
	require.True(t, ok)
	return m
}

var (
	kMain    = Key{KeyThread, "main"}
	kSpinner = Key{KeyThread, "spinner"}
	kPause   = Key{KeyMethod, "BlockHalf.pause"}
	kCompute = Key{KeyMethod, "BlockHalf.compute"}
)

// async-profiler's collapsed stacks: the thread frame, annotations and
// hidden-class suffixes are read; C frames above the innermost frame of
// the program are charged to it; threads outside the program are left
// out.
func TestReadAsyncWall(t *testing.T) {
	r, err := ReadRun("testdata/runs/blockhalf/ap-wall/1", "meta")
	require.NoError(t, err)
	assert.Equal(t, "wall", r.Meta.Engine)
	assert.Equal(t, [3]float64{2.91, 2.04, 1.47}, r.Meta.LoadBefore)
	require.Len(t, r.Stacks, 5)
	assert.Equal(t, Stack{Thread: "spinner", Count: 100, Frames: []string{"java.lang.Thread.run", "BlockHalf$$Lambda.run", "BlockHalf.spin", "BlockHalf.compute"}}, r.Stacks[3])
	assert.Equal(t, "C2 CompilerThread0", r.Stacks[4].Thread)
	m := blockHalf(t)
	sc, err := scopeOfMode(m)
	require.NoError(t, err)
	sh := ShareOf(Reduce(r.Stacks, sc, m.Keys), m.Keys)
	assert.Equal(t, int64(200), sh.Total, "the compiler thread's 7 are not the program's")
	assert.InDelta(t, 50, sh.Of[kMain], eps)
	assert.InDelta(t, 50, sh.Of[kSpinner], eps)
	assert.InDelta(t, 25, sh.Of[kPause], eps, "Thread.sleep's frames and the C frames above are charged to pause()")
	assert.InDelta(t, 75, sh.Of[kCompute], eps)
}

// JFR's JSON: execution samples name sampledThread, CPU-time samples
// eventThread; frames come leaf first and are turned root first.
func TestReadJFRExecutionAndCPUTime(t *testing.T) {
	m := blockHalf(t)
	sc, err := scopeOfMode(m)
	require.NoError(t, err)
	for _, c := range []struct {
		dir               string
		total             int64
		main, spin, compu float64
		biased, lost      int64
	}{
		{"testdata/runs/blockhalf/jfr25-cpu/1", 4, 50, 50, 100, 1, 3},
		{"testdata/runs/blockhalf/jfr17/1", 3, 100 * 2.0 / 3, 100 * 1.0 / 3, 100, 0, 0},
	} {
		r, err := ReadRun(c.dir, "meta")
		require.NoError(t, err, c.dir)
		assert.Equal(t, c.biased, r.Biased, "%s: samples marked biased", c.dir)
		assert.Equal(t, c.lost, r.Lost, "%s: jdk.CPUTimeSamplesLost's lostSamples", c.dir)
		leaf := r.Stacks[0].Frames[len(r.Stacks[0].Frames)-1]
		assert.Equal(t, "BlockHalf.compute", leaf, c.dir)
		sh := ShareOf(Reduce(r.Stacks, sc, m.Keys), m.Keys)
		assert.Equal(t, c.total, sh.Total, c.dir)
		assert.InDelta(t, c.main, sh.Of[kMain], eps, c.dir)
		assert.InDelta(t, c.spin, sh.Of[kSpinner], eps, c.dir)
		assert.InDelta(t, c.compu, sh.Of[kCompute], eps, c.dir)
	}
}

// A stack's completeness: it holds the thread's entry method or not.
func TestCompleteStacks(t *testing.T) {
	m, ok := lookupMode("deeprec")
	require.True(t, ok)
	sc, err := scopeOfMode(m)
	require.NoError(t, err)
	stacks := []Stack{
		{Thread: "main", Count: 3, Frames: []string{"DeepRec.main", "DeepRec.recurse", "DeepRec.recurse"}},
		{Thread: "main", Count: 1, Frames: []string{"DeepRec.recurse", "DeepRec.recurse"}}, // truncated
	}
	sh := ShareOf(Reduce(stacks, sc, m.Keys), m.Keys)
	assert.InDelta(t, 75, sh.Of[Key{KeyComplete, "DeepRec.main"}], eps)
	assert.InDelta(t, 100, sh.Of[Key{KeyMethod, "DeepRec.recurse"}], eps)
}

// The table: real median [min–max] over the reps, the simulated side,
// |diff| and the 10-point verdict.
func TestRowsAndVerdict(t *testing.T) {
	r := Row{Real: []float64{25, 20, 40}, Sim: []float64{33, 30, 36}}
	assert.Equal(t, "25.0 [20.0–40.0]", r.RealText())
	d, ok := r.Diff()
	require.True(t, ok)
	assert.InDelta(t, 8, d, eps)
	assert.Equal(t, "yes", r.Within())
	r.Sim = []float64{36, 36}
	assert.Equal(t, "no", r.Within(), "11 points apart")
	r.Sim, r.SimNA = nil, "n/a (sampler x not built)"
	assert.Equal(t, "—", r.Within())
	assert.Equal(t, "n/a (sampler x not built)", r.SimText())
	assert.InDelta(t, 22.5, Median([]float64{25, 20}), eps)
	assert.True(t, math.IsNaN(Median(nil)))
}

// The real side end to end from the fixtures: two ap-wall reps give the
// median and range of each key; the CSV has one row per cell.
func TestTableFromFixtures(t *testing.T) {
	var md, stderr bytes.Buffer
	csvPath := filepath.Join(t.TempDir(), "t.csv")
	err := run(context.Background(), []string{"--out", "testdata/runs", "--no-sim", "--csv", csvPath}, &md, &stderr)
	require.NoError(t, err, stderr.String())
	out := md.String()
	assert.Contains(t, out, "| blockhalf | BlockHalf.pause | ap-wall | 22.5 [20.0–25.0] | 200 | n/a (--no-sim) | — | — | — |")
	assert.Contains(t, out, "| blockhalf | thread main | jfr17 | 66.7 [66.7–66.7] | 3 |")
	assert.Contains(t, out, "JDK 17.0.15+6-Debian-1deb12u1")
	assert.Contains(t, out, "JDK 25.0.3+9-LTS")
	assert.Contains(t, out, "tag v4.5")
	assert.Contains(t, out, "2.91–3.00")
	assert.NotContains(t, out, "| hotcold |", "only the modes with runs")
	data, err := os.ReadFile(csvPath)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	assert.Len(t, lines, 1+4*3, "4 keys of blockhalf × the 3 profilers with runs")
	assert.NotContains(t, out, "| ap-cpu |")
	assert.Contains(t, lines, "blockhalf,BlockHalf.pause,ap-wall,22.50,20.00,25.00,2,200.00,,,,0,,n/a (--no-sim),,—")
}

// A bad file is an error naming it, and exit status 2 (a usageError).
func TestBadFilesNameThemselves(t *testing.T) {
	for _, c := range []struct{ dir, file, want string }{
		{"testdata/bad/json", "blockhalf/jfr17/1/raw.json", "not jfr print --json output"},
		{"testdata/bad/collapsed", "blockhalf/ap-wall/1/raw.collapsed", "line 2: count \"tid=1];BlockHalf.main_[0];BlockHalf.compute_[j]\" is not a positive integer"},
		{"testdata/bad/meta", "blockhalf/ap-wall/1/meta", "no window_s= line"},
	} {
		var out, stderr bytes.Buffer
		err := run(context.Background(), []string{"--out", c.dir, "--no-sim"}, &out, &stderr)
		require.Error(t, err, c.dir)
		assert.Equal(t, 2, exitCode(err), c.dir)
		assert.Contains(t, err.Error(), filepath.Join(c.dir, c.file), c.dir)
		assert.Contains(t, err.Error(), c.want, c.dir)
	}
	var out, stderr bytes.Buffer
	err := run(context.Background(), []string{"--check", "testdata/bad/collapsed/blockhalf/ap-wall/1"}, &out, &stderr)
	var u usageError
	require.True(t, errors.As(err, &u))
	assert.Contains(t, err.Error(), "raw.collapsed: line 2")
	err = run(context.Background(), []string{"--out", "testdata/runs", "--seeds", "0"}, &out, &stderr)
	assert.Equal(t, 2, exitCode(err), "a flag out of range")
	assert.Equal(t, 1, exitCode(errors.New("a twin failed")))
	assert.Equal(t, 0, exitCode(nil))
	err = run(context.Background(), []string{"--out", "testdata/runs", "--spec", "jfr18=jfr"}, &out, &stderr)
	assert.Equal(t, 2, exitCode(err), "--spec for a profiler run.sh does not run")
	assert.Contains(t, err.Error(), `profiler "jfr18" is not one of`)
}

// --check prints the run's summary for run.sh's progress line.
func TestCheck(t *testing.T) {
	var out, stderr bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"--check", "testdata/runs/blockhalf/ap-wall/1"}, &out, &stderr))
	assert.Equal(t, "200 samples on the program's threads (5 stacks in all): BlockHalf.compute 75.0%, BlockHalf.pause 25.0%; threads main 50.0%, spinner 50.0%\n", out.String())
	out.Reset()
	require.NoError(t, run(context.Background(), []string{"--check", "testdata/runs/blockhalf/jfr25-cpu/1"}, &out, &stderr))
	assert.Equal(t, "4 samples on the program's threads (4 stacks in all): BlockHalf.compute 100.0%; threads main 50.0%, spinner 50.0%; JFR: 1 biased, 3 lost\n", out.String())
}

// The simulated side: a sampler that is not registered gives an n/a
// cell, not a failure; a built one gives a share per seed, and the twin
// run is deterministic.
func TestTwinsAndMissingSampler(t *testing.T) {
	m := blockHalf(t)
	profs := []Profiler{}
	for _, id := range []string{"jfr17-dns", "ap-wall"} {
		p, _ := lookupProfiler(id)
		profs = append(profs, p)
	}
	s := SimSettings{Warmup: 300 * time.Millisecond, Window: 500 * time.Millisecond, Seeds: 2, Jobs: 2, CPUs: 2,
		Specs: map[string]string{"ap-wall": "nosuch:ap-wall,interval=10ms"}}
	res, err := RunTwins(context.Background(), []Mode{m}, profs, s, func(string) {})
	require.NoError(t, err)
	assert.Equal(t, "n/a (sampler nosuch not built)", res.Cells["blockhalf"]["ap-wall"].NA)
	c := res.Cells["blockhalf"]["jfr17-dns"]
	require.Empty(t, c.NA)
	require.Len(t, c.Seeds, 2)
	for _, sh := range c.Seeds {
		assert.Greater(t, sh.Total, int64(50), "two running threads at 10 ms for 0.5 s")
		// JFR samples threads in Java code only: the sleeping main
		// gets no samples in pause(), a third of the CPU time in all.
		assert.InDelta(t, 0, sh.Of[kPause], eps)
		assert.InDelta(t, 100.0/3, sh.Of[kMain], 10)
	}
	again, err := RunTwins(context.Background(), []Mode{m}, profs, s, func(string) {})
	require.NoError(t, err)
	assert.Equal(t, c.Seeds, again.Cells["blockhalf"]["jfr17-dns"].Seeds)
	s.Specs = map[string]string{"ap-wall": "async:ap-wall,nosuchkey=1"}
	res, err = RunTwins(context.Background(), []Mode{m}, profs[1:], s, func(string) {})
	require.NoError(t, err)
	assert.Contains(t, res.Cells["blockhalf"]["ap-wall"].NA, "nosuchkey", "a built sampler's bad key is shown, not hidden")
}

// async-profiler's twins run on the preset of the JDK its runs used.
func TestAsyncTwinsFollowTheRunsJDK(t *testing.T) {
	ap, _ := lookupProfiler("ap-wall")
	jfr, _ := lookupProfiler("jfr17")
	run := func(v string) *Run { return &Run{Meta: Meta{Profiler: "ap-wall", JavaVersion: v}} }
	got := vmOfRuns([]Profiler{ap, jfr}, []*Run{run("17.0.15+6-Debian-1deb12u1"), run("17.0.15+6-Debian-1deb12u1")})
	assert.Equal(t, "hotspot17", got[0].VM)
	assert.Equal(t, "hotspot17", got[1].VM, "JFR's profilers keep theirs")
	got = vmOfRuns([]Profiler{ap}, []*Run{run("17.0.15+6-Debian-1deb12u1"), run("25.0.3+9-LTS")})
	assert.Equal(t, "hotspot25", got[0].VM, "runs on both JDKs: its own")
	assert.Equal(t, "hotspot25", ap.VM, "the table of profilers is not changed")
}

// The JDK 25 profilers' twins run on the hotspot25 preset itself, with no
// note; a preset that is not built still falls back to hotspot17 and the
// table says so.
func TestPlanGroupsUsesHotSpot25(t *testing.T) {
	var profs []Profiler
	for _, id := range []string{"jfr25", "jfr17", "ap-wall"} {
		p, ok := lookupProfiler(id)
		require.True(t, ok, id)
		profs = append(profs, p)
	}
	// async's engine key may not be built: play ap-wall as FIDELITY.md's run did.
	s := SimSettings{Specs: map[string]string{"ap-wall": "async:ap-wall,interval=10ms"}}
	groups, na, notes := planGroups(profs, s)
	assert.Empty(t, na)
	assert.Empty(t, notes, "every preset the cells name is built")
	var vms []string
	for _, g := range groups {
		vms = append(vms, fmt.Sprintf("%s dns=%v", g.VM, g.DNS))
	}
	assert.Equal(t, []string{"hotspot25 dns=false", "hotspot17 dns=false", "hotspot25 dns=true"}, vms)

	profs[0].VM = "hotspot99"
	groups, _, notes = planGroups(profs, s)
	assert.Equal(t, []string{"VM preset hotspot99 is not built: its twins ran on hotspot17"}, notes)
	assert.Equal(t, "hotspot17", groups[0].VM)
	assert.Equal(t, []string{"jfr25", "jfr17"}, []string{groups[0].Profs[0].ID, groups[0].Profs[1].ID})
}
