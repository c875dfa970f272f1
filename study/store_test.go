package study

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sweep"
	"github.com/profsim/profsim/workloads"
)

// TestStoreEveryExperimentReadsFromIt runs every experiment, on the
// stand-ins and, where it has them, the models, from an empty read-only
// store: each must ask the store for its first batch of runs — whose
// values must be storable — and stop there with ErrIncomplete, having run
// nothing.
func TestStoreEveryExperimentReadsFromIt(t *testing.T) {
	freshRuns(t)
	dir := t.TempDir()
	_, err := OpenStore(dir)
	require.NoError(t, err)
	for _, e := range Experiments() {
		for _, models := range []bool{false, true} {
			if models && !e.Models {
				continue
			}
			st, err := OpenStoreReadOnly(dir)
			require.NoError(t, err)
			o := DefaultOptions()
			o.Models, o.Store = models, st
			start := time.Now()
			_, err = e.Run(o)
			if !assert.Truef(t, errors.Is(err, ErrIncomplete), "%s (models %v): want ErrIncomplete, got %v", e.Name, models, err) {
				continue
			}
			made, _, missing := st.Counts()
			require.Zerof(t, made, "%s (models %v) made runs with a read-only store", e.Name, models)
			require.Positivef(t, missing, "%s (models %v)", e.Name, models)
			t.Logf("%s (models %v): %d runs missing, %v", e.Name, models, missing, time.Since(start).Round(time.Millisecond))
		}
	}
}

// forgetAllRuns empties the process's run cache, as a new process starts.
func forgetAllRuns() {
	runs.mu.Lock()
	defer runs.mu.Unlock()
	runs.m = map[any]*cached{}
}

// freshRuns gives the test an empty run cache and gives the other tests
// theirs back at its end (the claim tests share runs through it).
func freshRuns(t *testing.T) {
	runs.mu.Lock()
	saved := runs.m
	runs.m = map[any]*cached{}
	runs.mu.Unlock()
	t.Cleanup(func() {
		runs.mu.Lock()
		defer runs.mu.Unlock()
		runs.m = saved
	})
}

// writeResult runs e with o in a fresh process's cache and returns its
// files (Result.Write) by name.
func writeResult(t *testing.T, e Experiment, o Options) map[string][]byte {
	t.Helper()
	forgetAllRuns()
	r, err := e.Run(o)
	require.NoError(t, err, e.Name)
	dir := t.TempDir()
	require.NoError(t, r.Write(dir, e.Name))
	files := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, f := range entries {
		b, err := os.ReadFile(filepath.Join(dir, f.Name()))
		require.NoError(t, err)
		files[f.Name()] = b
	}
	return files
}

// storeRoundTrip are experiments whose runs hold each kind of stored
// value: profiles (m1), a sampler's costs and measures (h7), maps of
// weights (m3), a partial-walk summary (w1) and plain numbers (b7).
var storeRoundTrip = []string{"m1-listing1", "h7-frames-decoded", "m3-disagreement", "w1-partial-walks", "b7-overhead"}

// TestStoreRoundTrip: an experiment rendered from a store alone
// (read-only, in a fresh cache) writes the files it wrote when it made
// the runs, byte for byte.
func TestStoreRoundTrip(t *testing.T) {
	freshRuns(t)
	names := storeRoundTrip
	if testing.Short() {
		names = []string{"m1-listing1", "w1-partial-walks"} // profiles, and a run summary
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) { testStoreRoundTrip(t, name) })
	}
}

func testStoreRoundTrip(t *testing.T, name string) {
	e, ok := Lookup(name)
	require.True(t, ok, name)
	dir := t.TempDir()
	st, err := OpenStore(dir)
	require.NoError(t, err)
	o := DefaultOptions()
	o.Store = st
	want := writeResult(t, e, o)
	made, loaded, missing := st.Counts()
	require.Positive(t, made)
	require.Zero(t, loaded+missing)

	ro, err := OpenStoreReadOnly(dir)
	require.NoError(t, err)
	o.Store = ro
	assert.Equal(t, want, writeResult(t, e, o), "from the store")
	made, loaded, missing = ro.Counts()
	assert.Equal(t, made, 0)
	assert.Zero(t, missing)
	assert.Positive(t, loaded)
}

// TestStoreShards: the shards of one experiment, one after the other
// into one directory, as the machines of a cluster would: the first makes
// its part and reports the rest missing; each next one makes its own,
// and the last, reading the others', finishes the experiment with the
// files one process writes. A run's shard is its key's hash, which holds
// the build's identity, so the test takes the fewest shards whose first
// holds some of the runs and not all: with two, a build whose hashes put
// every run in one shard would test nothing.
func TestStoreShards(t *testing.T) {
	freshRuns(t)
	e, ok := Lookup("w1-partial-walks")
	require.True(t, ok)
	want := writeResult(t, e, DefaultOptions())

	o := DefaultOptions()
	var dir string
	n, made1, missing1 := 2, 0, 0
	for ; n <= maxShardsTried; n++ {
		dir = t.TempDir()
		st, err := OpenStore(dir)
		require.NoError(t, err)
		st.SetShard(sweep.Shard{I: 1, N: n})
		o.Store = st
		forgetAllRuns()
		_, err = e.Run(o)
		made, loaded, missing := st.Counts()
		require.Zero(t, loaded)
		if made > 0 && missing > 0 {
			require.ErrorIs(t, err, ErrIncomplete)
			made1, missing1 = made, missing
			break
		}
	}
	require.LessOrEqual(t, n, maxShardsTried, "no shard count up to %d splits the runs", maxShardsTried)

	made := made1
	for i := 2; i <= n; i++ {
		st, err := OpenStore(dir)
		require.NoError(t, err)
		st.SetShard(sweep.Shard{I: i, N: n})
		o.Store = st
		if i < n {
			forgetAllRuns()
			if _, err := e.Run(o); err != nil {
				require.ErrorIs(t, err, ErrIncomplete)
			}
			m, _, _ := st.Counts()
			made += m
			continue
		}
		assert.Equal(t, want, writeResult(t, e, o))
		m, loaded, missing := st.Counts()
		made += m
		assert.Equal(t, made1+missing1, m+loaded, "the last shard makes its part and reads the others'")
		assert.Zero(t, missing)
	}
	assert.Equal(t, made1+missing1, made, "each run made once, by its shard")
}

// maxShardsTried bounds TestStoreShards' search for a shard count whose
// first shard holds some of its runs and not all (with k runs, two
// shards fail to with probability 2^(1−k)).
const maxShardsTried = 16

func TestStoreRefusesAnotherBuild(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, writeStoreManifest(dir, StoreManifest{Build: "0123456789abcdef", Workloads: workloads.ContentHash()}))
	for _, open := range []func(string) (*Store, error){OpenStore, OpenStoreReadOnly} {
		_, err := open(dir)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "holds runs of build 0123456789abcdef")
		assert.Contains(t, err.Error(), "must not mix")
	}
	_, err := OpenStoreReadOnly(t.TempDir())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is not a study store")
}

func TestKeyText(t *testing.T) {
	type inner struct {
		F float64
		S string
	}
	type key struct {
		N  int
		in inner
		A  [2]uint8
	}
	a, err := keyText(key{N: 1, in: inner{F: 0.1, S: "x y"}, A: [2]uint8{3, 4}})
	require.NoError(t, err)
	assert.Equal(t, `study.key{N:1 in:{F:0x3fb999999999999a S:"x y"} A:[3 4]}`, a)
	c, err := keyText(key{N: 1, in: inner{F: math.Nextafter(0.1, 1), S: "x y"}, A: [2]uint8{3, 4}})
	require.NoError(t, err)
	assert.NotEqual(t, a, c, "floats one bit apart are different runs")

	type withPointer struct{ P *int }
	_, err = keyText(withPointer{new(int)})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no value outside this process")
}

func TestCheckStorable(t *testing.T) {
	type ok struct {
		A map[string][]float64
		P *profile.Profile
		M map[samplers.Measure]float64
	}
	require.NoError(t, checkStorable(reflect.TypeFor[*ok]()))
	type hidden struct {
		A int
		b float64
	}
	err := checkStorable(reflect.TypeOf([]hidden{{A: 1, b: 2}}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "field b is unexported")
	type iface struct{ V any }
	require.Error(t, checkStorable(reflect.TypeFor[iface]()))
}

// TestStoreRefusesADamagedRun: a stored run that does not decode, or
// holds another key's run, is an error naming its file, not a run made
// again or a wrong value read.
func TestStoreRefusesADamagedRun(t *testing.T) {
	freshRuns(t)
	dir := t.TempDir()
	st, err := OpenStore(dir)
	require.NoError(t, err)
	k := testKey{"damaged", 1}
	_, err = runAll(Options{Store: st}, []testKey{k})
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(dir, "runs", "*.gob"))
	require.NoError(t, err)
	require.Len(t, files, 1)

	good, err := os.ReadFile(files[0])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(files[0], good[:len(good)/2], 0o644))
	forgetAllRuns()
	_, err = runAll(Options{Store: st}, []testKey{k})
	require.Error(t, err)
	assert.Contains(t, err.Error(), files[0])

	// Another key's run under this key's name.
	other := testKey{"other", 2}
	forgetAllRuns()
	_, err = runAll(Options{Store: st}, []testKey{other})
	require.NoError(t, err)
	all, err := filepath.Glob(filepath.Join(dir, "runs", "*.gob"))
	require.NoError(t, err)
	for _, f := range all {
		if f != files[0] {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(files[0], b, 0o644))
		}
	}
	forgetAllRuns()
	_, err = runAll(Options{Store: st}, []testKey{k})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "holds run")
}
