package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const example = `
name: interval-vs-bias
run:
  duration: 500ms
  sampler: [truth, safepoint, "async:exact,interval=10ms"]
grid:
  workload: [hotcold, callpair, lusearch]
  safepoint.interval: [1ms, 3ms, 10ms]
  seed: 1..3
zip:
  cpus: [1, 2]
  mode: [passive, costed]
`

func TestParseExample(t *testing.T) {
	g, err := Parse("grid.yaml", []byte(example))
	require.NoError(t, err)
	assert.Equal(t, "interval-vs-bias", g.Name)
	require.Len(t, g.Run, 2)
	assert.Equal(t, Value{"truth", "safepoint", "async:exact,interval=10ms"}, g.Run[1].Value)
	assert.Equal(t, []string{"workload", "safepoint.interval", "seed", "cpus", "mode"}, g.AxisNames())
	assert.Equal(t, 3*3*3*2, g.Size())

	// The last axis varies fastest; zipped axes move together.
	p0, p1, plast := g.Point(0), g.Point(1), g.Point(g.Size()-1)
	assert.Equal(t, []Coord{{"workload", Value{"hotcold"}}, {"safepoint.interval", Value{"1ms"}}, {"seed", Value{"1"}}, {"cpus", Value{"1"}}, {"mode", Value{"passive"}}}, p0.Coords)
	assert.Equal(t, []Coord{{"workload", Value{"hotcold"}}, {"safepoint.interval", Value{"1ms"}}, {"seed", Value{"1"}}, {"cpus", Value{"2"}}, {"mode", Value{"costed"}}}, p1.Coords)
	assert.Equal(t, Value{"lusearch"}, plast.Coords[0].Value)
	assert.Equal(t, Value{"3"}, plast.Coords[2].Value)
	assert.Equal(t, `grid["seed"][2]`, plast.Settings[4].Path)
	assert.Equal(t, `grid["seed"]`, plast.Settings[4].NamePath)

	// Every point is distinct, and Points is Point in order.
	seen := map[string]bool{}
	for i, p := range g.Points() {
		assert.Equal(t, i, p.Index)
		k := fmt.Sprint(p.Coords)
		assert.False(t, seen[k], "point %d repeats %s", i, k)
		seen[k] = true
	}
}

func TestPointReplacesRunSetting(t *testing.T) {
	g, err := Parse("g", []byte("run: {seed: 7, duration: 1s}\ngrid: {seed: [1, 2], cpus: [4]}\n"))
	require.NoError(t, err)
	p := g.Point(1)
	var names []string
	for _, s := range p.Settings {
		names = append(names, s.Name+"="+s.Value.String())
	}
	assert.Equal(t, []string{"seed=2", "duration=1s", "cpus=4"}, names)
}

func TestParseErrorsNamePathAndLine(t *testing.T) {
	for _, c := range []struct{ grid, want string }{
		{"gird: {seed: [1]}", `g:1: gird: unknown section (did you mean "grid"?)`},
		{"grid: {seed: 3..1}", `g:1: grid["seed"]: range "3..1": 3 > 1`},
		{"grid: {seed: 1..x}", `g:1: grid["seed"]: range "1..x": want integers a..b`},
		{"grid: {seed: 1..100000000}", `more than 1000000 levels`},
		{"grid: {seed: 5}", `grid["seed"]: want a list of levels or a range a..b, not the single value "5"`},
		{"grid: {seed: []}", `grid["seed"]: no levels`},
		{"grid:\n  seed: [1]\n  seed: [2]\n", `g:3: grid["seed"]: given twice`},
		{"grid: {seed: [[1, [2]]]}", `grid["seed"][0][1]: want a single value`},
		{"run: {seed: [1, 2]}\nrun: {}", `g:2: run: given twice`},
		{"zip: {a: [1, 2], b: [1]}", `g:1: zip["b"]: 1 levels, but "a" has 2`},
		{"zip: [{a: [1]}, {}]", `zip[1]: an empty zip group`},
		{"grid: {a: [1]}\nzip: {a: [2]}", `zip["a"]: axis "a" is also grid["a"]`},
		{"grid: {a: 1..1000, b: 1..1000, c: 1..1000}", `1000000000 points, more than the 10000000`},
		{"- a\n- b", `a grid file is a mapping`},
		{"", `empty grid file`},
		{"grid: {a: [1]}\n---\ngrid: {b: [2]}\n", `g:2: a second YAML document`},
		{"grid: {seed: [1, ~]}", `grid["seed"][1]: empty value`},
	} {
		_, err := Parse("g", []byte(c.grid))
		if assert.Error(t, err, c.grid) {
			assert.Contains(t, err.Error(), c.want, c.grid)
		}
	}
}

// fakeJobs are n jobs whose result is their point index; fail lists the
// points that fail.
func fakeJobs(n int, fail ...int) []Job {
	var jobs []Job
	for i := range n {
		jobs = append(jobs, Job{
			Point: Point{Index: i, Coords: []Coord{{"seed", Value{fmt.Sprint(i)}}}},
			Key:   fmt.Sprintf("k%03d", i), Config: json.RawMessage(fmt.Sprintf(`{"seed":%d}`, i)),
			Run: func(ctx context.Context) (json.RawMessage, error) {
				if slices.Contains(fail, i) {
					return nil, errors.New("bad\nworkload")
				}
				return json.RawMessage(fmt.Sprintf(`{"x":%d}`, i*i)), nil
			},
		})
	}
	return jobs
}

var fixedNow = func() time.Time { return time.Unix(0, 0) }

func TestExecuteIsIndependentOfJobs(t *testing.T) {
	var want []Record
	for _, jobs := range []int{1, 2, 7} {
		var got []Record
		sum, err := Execute(context.Background(), fakeJobs(40, 3, 17), Options{Jobs: jobs, Now: fixedNow}, func(r Record) error {
			got = append(got, r)
			return nil
		})
		require.NoError(t, err)
		assert.Equal(t, Summary{Ran: 40, Failed: 2}, sum)
		slices.SortFunc(got, func(a, b Record) int { return a.Point - b.Point })
		if want == nil {
			want = got
			continue
		}
		assert.Equal(t, want, got, "jobs=%d", jobs)
	}
	assert.Equal(t, StatusFailed, want[3].Status)
	assert.Equal(t, "bad workload", want[3].Error, "an error is one line")
	assert.Equal(t, `{"x":4}`, string(want[2].Result))
}

func TestExecuteRecordsJobErrAndPanics(t *testing.T) {
	jobs := fakeJobs(3)
	jobs[0].Err = errors.New("no such file")
	jobs[0].Run = nil
	jobs[1].Run = func(context.Context) (json.RawMessage, error) { panic("boom") }
	var got []Record
	sum, err := Execute(context.Background(), jobs, Options{Jobs: 1, Now: fixedNow}, func(r Record) error { got = append(got, r); return nil })
	require.NoError(t, err)
	assert.Equal(t, 2, sum.Failed)
	assert.Equal(t, "no such file", got[0].Error)
	assert.Equal(t, "panic: boom", got[1].Error)
	assert.Equal(t, StatusOK, got[2].Status)
}

func TestExecuteFailFast(t *testing.T) {
	var n int
	sum, err := Execute(context.Background(), fakeJobs(50, 4), Options{Jobs: 1, FailFast: true}, func(Record) error { n++; return nil })
	require.NoError(t, err)
	assert.True(t, sum.Interrupted)
	assert.Equal(t, 5, n, "runs 0..4, stopped at the failure")
}

func TestExecuteStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	jobs := fakeJobs(100)
	var started atomic.Int64
	for i := range jobs {
		run := jobs[i].Run
		jobs[i].Run = func(ctx context.Context) (json.RawMessage, error) {
			started.Add(1)
			return run(ctx)
		}
	}
	var n int
	sum, err := Execute(ctx, jobs, Options{Jobs: 2}, func(Record) error {
		n++
		if n == 10 {
			cancel()
		}
		return nil
	})
	require.NoError(t, err)
	assert.True(t, sum.Interrupted)
	assert.Equal(t, 10, n, "nothing is emitted after the cancellation")
	assert.Less(t, started.Load(), int64(100), "no run starts after the cancellation but those already handed out")
}

func TestExecuteEmitErrorStops(t *testing.T) {
	_, err := Execute(context.Background(), fakeJobs(10), Options{Jobs: 2}, func(Record) error { return errors.New("disk full") })
	assert.EqualError(t, err, "disk full")
	_, err = Execute(context.Background(), nil, Options{Jobs: 0}, nil)
	assert.Error(t, err)
}

func TestStoreResumesAndRepairsATruncatedLine(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenStore(dir)
	require.NoError(t, err)
	for _, j := range fakeJobs(3) {
		res, _ := j.Run(context.Background())
		require.NoError(t, s.Append(Record{Key: j.Key, Point: j.Point.Index, Coords: j.Point.Coords, Status: StatusOK, Result: res}))
	}
	require.NoError(t, s.Append(Record{Key: "k009", Point: 9, Status: StatusFailed, Error: "x"}))
	assert.Error(t, s.Append(Record{Key: "bad", Status: StatusOK, Result: json.RawMessage(`{"x":`)}), "a result that is not JSON is not stored")
	require.NoError(t, s.Close())

	// A sweep killed while writing: half a line at the end.
	path := filepath.Join(dir, ResultsFile)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"key":"k003","point":3,"coords":{"se`)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	s, err = OpenStore(dir)
	require.NoError(t, err)
	assert.Equal(t, len(`{"key":"k003","point":3,"coords":{"se`), s.Repaired)
	assert.True(t, s.Done("k000"))
	assert.True(t, s.Done("k002"))
	assert.False(t, s.Done("k003"), "the truncated run is redone")
	assert.False(t, s.Done("k009"), "a failed run is redone")
	require.NoError(t, s.Append(Record{Key: "k003", Point: 3, Status: StatusOK}))
	require.NoError(t, s.Close())
	recs, err := ReadResults(path)
	require.NoError(t, err)
	require.Len(t, recs, 5)
	assert.Equal(t, "k003", recs[4].Key)
	assert.Equal(t, Coords{{"seed", Value{"1"}}}, recs[1].Coords, "coords round-trip in order")

	// A damaged line before the last is never silently dropped.
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	lines[1] = "garbage\n"
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644))
	_, err = OpenStore(dir)
	assert.ErrorContains(t, err, "results.jsonl:2: a corrupt record")
}

func TestCollectPrefersSuccessAndReportsMissing(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenStore(dir)
	require.NoError(t, err)
	for _, r := range []Record{
		{Key: "b", Status: StatusFailed, Error: "first"}, {Key: "a", Status: StatusOK, Result: json.RawMessage(`1`)},
		{Key: "b", Status: StatusOK, Result: json.RawMessage(`2`)}, {Key: "a", Status: StatusFailed}, {Key: "zz", Status: StatusOK},
		{Key: "c", Status: StatusFailed, Error: "one"}, {Key: "c", Status: StatusFailed, Error: "two"},
	} {
		require.NoError(t, s.Append(r))
	}
	require.NoError(t, s.Close())
	m := &Manifest{Points: []ManifestPoint{{Point: 0, Key: "a"}, {Point: 1, Key: "b"}, {Point: 2, Key: "d"}, {Point: 3, Key: "a"}, {Point: 4, Key: "c"}}}
	for _, ix := range []*Index{s.Index(), must(ReadIndex(filepath.Join(dir, ResultsFile)))} {
		got, missing := Collect(m, ix)
		assert.Equal(t, []int{2}, missing)
		require.Len(t, got, 4)
		assert.Equal(t, StatusOK, got[0].Status, "a success is not undone by a later failure")
		assert.Equal(t, StatusOK, got[1].Status)
		assert.Equal(t, 3, got[2].Point, "points of equal config share the run")
		assert.Equal(t, StatusFailed, got[3].Status)
		r, err := ix.Record("a")
		require.NoError(t, err)
		assert.Equal(t, `1`, string(r.Result))
		r, err = ix.Record("c")
		require.NoError(t, err)
		assert.Equal(t, "two", r.Error, "the last failure")
		assert.Equal(t, []string{"a", "b", "c", "zz"}, ix.Keys())
	}
}

func must[T any](x T, err error) T {
	if err != nil {
		panic(err)
	}
	return x
}

func TestShards(t *testing.T) {
	var all []int
	for i := 1; i <= 3; i++ {
		s, err := ParseShard(fmt.Sprintf("%d/3", i), 0, nil)
		require.NoError(t, err)
		for p := range 10 {
			if s.Contains(p) {
				all = append(all, p)
			}
		}
	}
	slices.Sort(all)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, all, "shards partition the points")

	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	s, err := ParseShard("auto", 0, env(map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "4"}))
	require.NoError(t, err)
	assert.Equal(t, Shard{I: 3, N: 4}, s)
	s, err = ParseShard("auto", 5, env(map[string]string{"JOB_COMPLETION_INDEX": "0"}))
	require.NoError(t, err)
	assert.Equal(t, Shard{I: 1, N: 5}, s)
	s, err = ParseShard("auto", 0, env(map[string]string{"JOB_COMPLETION_INDEX": "4", "PROFSIM_SHARD_COUNT": "5"}))
	require.NoError(t, err)
	assert.Equal(t, Shard{I: 5, N: 5}, s)

	for _, c := range []struct {
		text string
		env  map[string]string
		want string
	}{
		{"0/3", nil, "want 1 ≤ I ≤ N"},
		{"4/3", nil, "want 1 ≤ I ≤ N"},
		{"a/b", nil, "want I/N"},
		{"auto", map[string]string{}, "neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX"},
		{"auto", map[string]string{"JOB_COMPLETION_INDEX": "2"}, "no shard count"},
		{"auto", map[string]string{"JOB_COMPLETION_INDEX": "7", "PROFSIM_SHARD_COUNT": "5"}, "task index 7 not in 0..4"},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "x"}, `SLURM_ARRAY_TASK_ID="x" is not an integer`},
	} {
		_, err := ParseShard(c.text, 0, env(c.env))
		if assert.Error(t, err, c.text) {
			assert.Contains(t, err.Error(), c.want)
		}
	}
}

func TestWriteAtomicLeavesNoPartFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.csv")
	require.NoError(t, WriteFileAtomic(path, []byte("old")))
	err := WriteAtomic(path, func(w io.Writer) error {
		w.Write([]byte("half"))
		return errors.New("interrupted")
	})
	assert.Error(t, err)
	b, _ := os.ReadFile(path)
	assert.Equal(t, "old", string(b), "a failed write leaves the old file")
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 1, "and no temporary file")
}

func TestProgressLine(t *testing.T) {
	p := Progress{Done: 10, Failed: 1, Total: 40, Elapsed: 20 * time.Second}
	assert.Equal(t, 60*time.Second, p.ETA())
	assert.Equal(t, "10/40 runs done, 1 failed, elapsed 20s, ETA 1m0s", p.Line())
}

// FuzzParse feeds arbitrary grid files to Parse: an error or a grid whose
// every point expands, never a panic or a hang.
func FuzzParse(f *testing.F) {
	f.Add([]byte(example))
	for _, s := range []string{
		"grid: {seed: 1..9223372036854775807}", "grid: {seed: -9223372036854775808..9223372036854775807}",
		"grid: {a: 1..2147483648}", "grid: {a: [1e308, 2]}", "zip: [{a: [1, 2], b: [3, 4]}, {c: 1..3}]",
		"run: {sampler: [a, b]}\ngrid: {x: [[1, 2], [3]]}", "grid: {a: &x [1]\n  b: *x}", "grid: {a: 1..1000, b: 1..1000, c: 1..11}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := Parse("f.yaml", data)
		if err != nil {
			return
		}
		if len(g.Digest()) != 64 {
			t.Fatalf("digest %q", g.Digest())
		}
		n := g.Size()
		if n < 1 || n > MaxPoints {
			t.Fatalf("a parsed grid of %d points", n)
		}
		for _, i := range []int{0, n / 2, n - 1} {
			p := g.Point(i)
			if len(p.Coords) != len(g.AxisNames()) {
				t.Fatalf("point %d has %d coords for %d axes", i, len(p.Coords), len(g.AxisNames()))
			}
		}
	})
}

// --shard auto under a Slurm array with a step: --array=0-10:5 has tasks
// 0, 5 and 10, the shards 1/3, 2/3 and 3/3.
func TestShardFromSlurmArrayWithAStep(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	slurm := func(id, min, max, step, count string) map[string]string {
		m := map[string]string{"SLURM_ARRAY_TASK_ID": id, "SLURM_ARRAY_TASK_MIN": min, "SLURM_ARRAY_TASK_MAX": max,
			"SLURM_ARRAY_TASK_STEP": step, "SLURM_ARRAY_TASK_COUNT": count}
		for k, v := range m {
			if v == "" {
				delete(m, k)
			}
		}
		return m
	}
	for _, c := range []struct {
		env  map[string]string
		want Shard
	}{
		{slurm("0", "0", "10", "5", "3"), Shard{1, 3}},
		{slurm("5", "0", "10", "5", "3"), Shard{2, 3}},
		{slurm("10", "0", "10", "5", "3"), Shard{3, 3}},
		{slurm("10", "0", "10", "5", ""), Shard{3, 3}}, // the count from MAX
		{slurm("7", "1", "9", "3", "3"), Shard{3, 3}},  // --array=1-9:3
		{slurm("9", "1", "", "4", "3"), Shard{3, 3}},   // no MAX
		{slurm("4", "2", "8", "", "7"), Shard{3, 7}},   // no STEP: 1
		{slurm("6", "0", "10", "3", ""), Shard{3, 4}},  // 0-10:3 is 0, 3, 6, 9
		{slurm("9", "0", "9", "3", "4"), Shard{4, 4}},  // Slurm's MAX the last task
		{slurm("9", "0", "10", "3", "4"), Shard{4, 4}}, // or the range's end
	} {
		s, err := ParseShard("auto", 0, env(c.env))
		if assert.NoError(t, err, "%v", c.env) {
			assert.Equal(t, c.want, s, "%v", c.env)
		}
	}
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{slurm("6", "0", "10", "5", "3"), "SLURM_ARRAY_TASK_ID=6 is not a task of the array SLURM_ARRAY_TASK_MIN=0 + k × SLURM_ARRAY_TASK_STEP=5"},
		{slurm("1", "2", "10", "1", "9"), "SLURM_ARRAY_TASK_ID=1 is not a task of the array SLURM_ARRAY_TASK_MIN=2"},
		{slurm("15", "0", "10", "5", "3"), "SLURM_ARRAY_TASK_ID=15 is not in SLURM_ARRAY_TASK_MIN=0 .. SLURM_ARRAY_TASK_MAX=10"},
		{slurm("5", "0", "10", "0", "3"), "SLURM_ARRAY_TASK_STEP=0 must be ≥ 1"},
		{slurm("5", "0", "10", "x", "3"), `SLURM_ARRAY_TASK_STEP="x" is not an integer`},
		{slurm("3", "1", "7", "1", "3"), "SLURM_ARRAY_TASK_COUNT=3, but SLURM_ARRAY_TASK_MIN=1 .. SLURM_ARRAY_TASK_MAX=7"}, // --array=1,3,7
		{slurm("5", "0", "", "5", ""), "neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX"},
	} {
		_, err := ParseShard("auto", 0, env(c.env))
		if assert.Error(t, err, "%v", c.env) {
			assert.Contains(t, err.Error(), c.want)
		}
	}
}

// A job's Plan runs when the job is dispatched and gives its config and
// run; a Plan error is the run's failure.
func TestExecutePlansJobsWhenDispatched(t *testing.T) {
	var planned atomic.Int32
	jobs := []Job{
		{Point: Point{Index: 0}, Key: "a", Plan: func() (Job, error) {
			planned.Add(1)
			return Job{Config: json.RawMessage(`{"c":1}`), Run: func(context.Context) (json.RawMessage, error) { return json.RawMessage(`{"r":1}`), nil }}, nil
		}},
		{Point: Point{Index: 1}, Key: "b", Plan: func() (Job, error) { return Job{}, errors.New("no plan") }},
		{Point: Point{Index: 2}, Key: "c", Plan: func() (Job, error) { return Job{Err: errors.New("no workload")}, nil }},
	}
	assert.Equal(t, int32(0), planned.Load())
	var recs []Record
	_, err := Execute(context.Background(), jobs, Options{Jobs: 1}, func(r Record) error { recs = append(recs, r); return nil })
	require.NoError(t, err)
	slices.SortFunc(recs, func(a, b Record) int { return a.Point - b.Point })
	require.Len(t, recs, 3)
	assert.Equal(t, int32(1), planned.Load())
	assert.Equal(t, Record{Key: "a", Point: 0, Config: json.RawMessage(`{"c":1}`), Status: StatusOK, WallNS: recs[0].WallNS, Result: json.RawMessage(`{"r":1}`)}, recs[0])
	assert.Equal(t, Record{Key: "b", Point: 1, Status: StatusFailed, Error: "no plan"}, recs[1])
	assert.Equal(t, Record{Key: "c", Point: 2, Status: StatusFailed, Error: "no workload"}, recs[2])
}
