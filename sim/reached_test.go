package sim

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReachedFromAnotherGoroutine: a progress display reads Reached while
// the run goes on in one call; what it reads never goes back, stays within
// the run, gets past the start, and the run is the one it is without a
// reader (go test -race checks the reads).
func TestReachedFromAnotherGoroutine(t *testing.T) {
	result := func(watch bool) (Result, []Time) {
		vm := newVM(t, builtin(t, "tmt"), func(c *Config) { c.Duration = 200 * Millisecond })
		var seen []Time
		var wg sync.WaitGroup
		stop := make(chan struct{})
		if watch {
			wg.Go(func() {
				tick := time.NewTicker(100 * time.Microsecond)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
						seen = append(seen, vm.Reached())
					}
				}
			})
		}
		res := vm.Run()
		close(stop)
		wg.Wait()
		seen = append(seen, vm.Reached())
		return *res, seen
	}
	plain, _ := result(false)
	watched, seen := result(true)
	assert.Equal(t, plain, watched, "reading Reached changed the run")
	require.NotEmpty(t, seen)
	for i := 1; i < len(seen); i++ {
		require.GreaterOrEqual(t, seen[i], seen[i-1], "Reached went back")
	}
	assert.Greater(t, seen[len(seen)-1], Time(0), "Reached never moved")
	assert.LessOrEqual(t, seen[len(seen)-1], 200*Millisecond)
}
