package runs

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/sweep"
)

// writeGrid writes a grid file into a fresh directory and returns its path.
func writeGrid(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "grid.yaml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
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

// planAllocBudget bounds what planning a one-point shard of a 10⁶-point
// grid allocates: planning point 0 (for the manifest's first_key), the
// ends of the range and the shard's point took 1.9 MB when measured; the
// old planner, which resolved the whole grid first, allocated over 12 GB.
const planAllocBudget = 16 << 20

// A shard plans its own points only: a one-point shard of a 10⁶-point grid
// plans in bounded memory, and its manifest lists that point alone.
func TestPlansOnlyItsShard(t *testing.T) {
	grid := writeGrid(t, "run: {workload: hotcold, duration: 5ms, sampler: [truth]}\ngrid: {seed: 1..1000000}\n")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	plan, err := New(grid, sweep.Shard{I: 777778, N: 1000000})
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("planning allocated %.1f MB", float64(alloc)/1e6)
	assert.Less(t, alloc, uint64(planAllocBudget))
	require.Len(t, plan.jobs, 1)
	assert.Equal(t, 777777, plan.jobs[0].Point.Index)
	assert.Equal(t, sweep.Coords{{Name: "seed", Value: sweep.Value{"777778"}}}, sweep.Coords(plan.jobs[0].Point.Coords))
	require.Len(t, plan.manifest.Points, 1)
	assert.Equal(t, plan.jobs[0].Key, plan.manifest.Points[0].Key)
	assert.Equal(t, 1000000, plan.manifest.Size)
}

// planBytesPerPoint bounds what a plan keeps per point: its index,
// coordinates and key, and its manifest entry (0.30 KB measured for a
// one-axis grid); a resolved run with its config, which the plan held
// for every point before, is 13.7 KB.
const planBytesPerPoint = 1024

// A plan keeps each point's key and coordinates, not its resolved run,
// which is planned again when the point is dispatched.
func TestPlanHoldsNoResolvedRuns(t *testing.T) {
	const points = 2000
	grid := writeGrid(t, fmt.Sprintf("run: {workload: hotcold, duration: 5ms, sampler: [truth, safepoint, async]}\ngrid: {seed: 1..%d}\n", points))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	plan, err := New(grid, sweep.Shard{})
	require.NoError(t, err)
	runtime.GC()
	runtime.ReadMemStats(&after)
	perPoint := float64(after.HeapAlloc-before.HeapAlloc) / points
	t.Logf("the plan keeps %.0f bytes per point", perPoint)
	assert.Less(t, perPoint, float64(planBytesPerPoint))
	require.Len(t, plan.jobs, points)
	j := plan.jobs[points-1]
	assert.Nil(t, j.Config)
	job, pr, err := plan.replan(j)
	require.NoError(t, err)
	assert.Equal(t, j.Key, job.Key)
	assert.Equal(t, j.Key, pr.key)
	assert.Contains(t, string(job.Config), `"seed":2000`)
	runtime.KeepAlive(plan)
}

// A workload file edited after the sweep planned its points (its key
// holds the planned content's hash) fails those points' runs rather
// than recording the new content's results under the old content's key.
func TestRefusesAWorkloadEditedAfterPlanning(t *testing.T) {
	dir := t.TempDir()
	threads, err := os.ReadFile("testdata/threads.yaml")
	require.NoError(t, err)
	w := filepath.Join(dir, "w.yaml")
	require.NoError(t, os.WriteFile(w, threads, 0o644))
	grid := filepath.Join(dir, "g.yaml")
	require.NoError(t, os.WriteFile(grid, []byte("run: {workload: w.yaml, duration: 5ms, sampler: [truth]}\ngrid: {seed: 1..2}\n"), 0o644))
	plan, err := New(grid, sweep.Shard{})
	require.NoError(t, err)
	edited := strings.Replace(string(threads), "cycles: 20000", "cycles: 20001", 1)
	require.NotEqual(t, string(threads), edited)
	require.NoError(t, os.WriteFile(w, []byte(edited), 0o644))
	out := filepath.Join(dir, "out")
	res, err := plan.Execute(context.Background(), Options{Out: out, Jobs: 1})
	require.NoError(t, err)
	assert.Equal(t, 2, res.Failed)
	runs := readCSV(t, filepath.Join(out, "runs.csv"))
	require.Len(t, runs, 2)
	for _, r := range runs {
		assert.Equal(t, "failed", r["status"])
		assert.Contains(t, r["error"], w+" changed since the sweep planned its runs")
	}
}

// Bad input is an *InputError naming the grid file and the setting: a
// misspelt setting, a value a flag refuses, a misspelt workload.
func TestBadGridIsInputError(t *testing.T) {
	for _, c := range []struct{ grid, want string }{
		{"run: {workload: hotcold, durration: 5ms}\n", `run["durration"]: unknown setting`},
		{"run: {workload: hotcold, duration: 5}\n", "a duration needs a unit"},
		{"run: {workload: hotcld}\n", `unknown workload "hotcld": did you mean "hotcold"?`},
	} {
		grid := writeGrid(t, c.grid)
		_, err := New(grid, sweep.Shard{})
		var ie *InputError
		require.ErrorAs(t, err, &ie, c.grid)
		assert.Contains(t, err.Error(), grid, c.grid)
		assert.Contains(t, err.Error(), c.want, c.grid)
	}
	_, err := New(filepath.Join(t.TempDir(), "none.yaml"), sweep.Shard{})
	var ie *InputError
	assert.ErrorAs(t, err, &ie, "a grid file that is not there")
}

// A cancelled sweep is an *InterruptedError counting the runs made and
// writes no tables; executed again, it resumes and finishes.
func TestCancelledIsInterruptedError(t *testing.T) {
	grid := writeGrid(t, "run: {workload: hotcold, duration: 5ms, sampler: [truth]}\ngrid: {seed: 1..4}\n")
	plan, err := New(grid, sweep.Shard{})
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(context.Background())
	_, err = plan.Execute(ctx, Options{Out: out, Jobs: 1, Stored: func(sweep.Record) { cancel() }})
	var ie *InterruptedError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, InterruptedError{Ran: 1, Todo: 4, Results: filepath.Join(out, sweep.ResultsFile)}, *ie)
	_, err = os.Stat(filepath.Join(out, "runs.csv"))
	assert.True(t, errors.Is(err, os.ErrNotExist), "no tables from an interrupted sweep")
	res, err := plan.Execute(context.Background(), Options{Out: out, Jobs: 1})
	require.NoError(t, err)
	assert.Equal(t, Result{Shard: sweep.Shard{}, InShard: 4, Size: 4, Ran: 3, Skipped: 1}, *res)
	assert.Len(t, readCSV(t, filepath.Join(out, "runs.csv")), 4)
}

// Shards merge to the whole; a merge missing a shard is an
// *IncompleteError and writes nothing; Status counts a shard's points.
func TestMergeAndStatus(t *testing.T) {
	grid := writeGrid(t, "run: {workload: hotcold, duration: 5ms, sampler: [truth]}\ngrid: {seed: 1..3}\n")
	root := t.TempDir()
	var dirs []string
	for i := 1; i <= 2; i++ {
		plan, err := New(grid, sweep.Shard{I: i, N: 2})
		require.NoError(t, err)
		dir := filepath.Join(root, fmt.Sprint("s", i))
		res, err := plan.Execute(context.Background(), Options{Out: dir, Jobs: 1})
		require.NoError(t, err)
		assert.Equal(t, 3-i, res.Ran)
		dirs = append(dirs, dir)
	}
	st, err := Status(dirs[0])
	require.NoError(t, err)
	assert.Equal(t, 3, st.GridSize)
	assert.Equal(t, "1/2", st.Shard)
	assert.Equal(t, 2, st.InShard)
	assert.Equal(t, 2, st.Done)
	assert.Empty(t, st.Missing)

	out := filepath.Join(root, "merged")
	_, err = Merge(dirs[:1], out, false, nil)
	var inc *IncompleteError
	require.ErrorAs(t, err, &inc)
	assert.Contains(t, err.Error(), "1 of 3 points missing: 1")
	_, serr := os.Stat(filepath.Join(out, sweep.ResultsFile))
	assert.True(t, errors.Is(serr, os.ErrNotExist), "nothing written")

	n, err := Merge(dirs, out, false, nil)
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	runs := readCSV(t, filepath.Join(out, "runs.csv"))
	require.Len(t, runs, 3)
	for i, r := range runs {
		assert.Equal(t, fmt.Sprint(i), r["point"])
		assert.Equal(t, sweep.StatusOK, r["status"])
	}

	_, err = Merge(dirs, dirs[0], false, nil)
	var ie *InputError
	require.ErrorAs(t, err, &ie)
	assert.Contains(t, err.Error(), "is also an input")
}
