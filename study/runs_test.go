package study

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// made counts testKey runs by value.
var made sync.Map // int → *atomic.Int64

// testKey is a run whose result is its value squared; value < 0 fails.
type testKey struct {
	scope string // keeps the tests' keys apart in the shared cache
	value int
}

func (k testKey) run() (int, error) {
	c, _ := made.LoadOrStore(k, new(atomic.Int64))
	c.(*atomic.Int64).Add(1)
	if k.value < 0 {
		return 0, errors.New("negative")
	}
	return k.value * k.value, nil
}

func timesMade(k testKey) int64 {
	c, ok := made.Load(k)
	if !ok {
		return 0
	}
	return c.(*atomic.Int64).Load()
}

func TestRunAllMakesEachRunOnceInKeyOrder(t *testing.T) {
	keys := []testKey{{"order", 3}, {"order", 1}, {"order", 3}, {"order", 2}}
	var c Counter
	got, err := runAll(Options{Runs: &c}, keys)
	require.NoError(t, err)
	assert.Equal(t, []int{9, 1, 9, 4}, got)
	again, err := runAll(Options{Runs: &c}, keys[1:])
	require.NoError(t, err)
	assert.Equal(t, []int{1, 9, 4}, again)
	for _, k := range keys {
		assert.Equal(t, int64(1), timesMade(k), "%v is made once, then read from the cache", k)
	}
	done, total := c.Counts()
	assert.Equal(t, 7, total, "every run asked for is counted")
	assert.Equal(t, 7, done, "cached runs count as done")
}

func TestRunAllSharesARunBetweenConcurrentCallers(t *testing.T) {
	keys := []testKey{{"concurrent", 1}, {"concurrent", 2}, {"concurrent", 3}}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			got, err := runAll(Options{}, keys)
			assert.NoError(t, err)
			assert.Equal(t, []int{1, 4, 9}, got)
		})
	}
	wg.Wait()
	for _, k := range keys {
		assert.Equal(t, int64(1), timesMade(k), "%v", k)
	}
}

func TestRunAllDoesNotKeepAFailedRun(t *testing.T) {
	bad := testKey{"failed", -1}
	_, err := runAll(Options{}, []testKey{{"failed", 5}, bad})
	require.Error(t, err)
	assert.ErrorContains(t, err, "negative")
	assert.ErrorContains(t, err, "value:-1", "the error names the run's key")
	_, err = runAll(Options{}, []testKey{bad})
	require.Error(t, err)
	assert.Equal(t, int64(2), timesMade(bad), "a failed run is made again when asked for again")
}

// forgetRuns drops every cached run whose key is a K, so that the next
// runAll of such keys makes them again (a determinism test compares two
// makings, not a making and its cached copy).
func forgetRuns[K comparable]() {
	runs.mu.Lock()
	defer runs.mu.Unlock()
	for k := range runs.m {
		if _, ok := k.(K); ok {
			delete(runs.m, k)
		}
	}
}

func TestForgetRunsMakesThemAgain(t *testing.T) {
	k := testKey{"forget", 7}
	_, err := runAll(Options{}, []testKey{k})
	require.NoError(t, err)
	forgetRuns[testKey]()
	_, err = runAll(Options{}, []testKey{k})
	require.NoError(t, err)
	assert.Equal(t, int64(2), timesMade(k))
}

// gateKey's run fails at once, or waits for gate.
type gateKey struct {
	gate chan struct{}
	fail bool
}

func (k gateKey) run() (int, error) {
	if k.fail {
		return 0, errors.New("the failing run")
	}
	<-k.gate
	return 1, nil
}

func TestRunAllReportsTheFailedRunNotOneLeftUnmade(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	gate := make(chan struct{})
	defer close(gate)
	// The first run is in flight, abandoned when the second fails.
	_, err := runAll(Options{}, []gateKey{{gate: gate}, {fail: true}})
	require.Error(t, err)
	assert.ErrorContains(t, err, "the failing run")
	assert.NotErrorIs(t, err, errNotRun)
}
