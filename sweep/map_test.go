package sweep

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMapReturnsResultsInKeyOrderAtAnyJobs(t *testing.T) {
	keys := []int{5, 3, 8, 1, 9, 2, 7}
	f := func(_ context.Context, k int) (string, error) {
		time.Sleep(time.Duration(10-k) * time.Millisecond) // finish out of order
		return fmt.Sprint(k * k), nil
	}
	want := []string{"25", "9", "64", "1", "81", "4", "49"}
	for _, jobs := range []int{1, 2, 7, 20} {
		var last Progress
		got, err := Map(context.Background(), keys, Options{Jobs: jobs, Progress: func(p Progress) { last = p }}, f)
		require.NoError(t, err, "jobs %d", jobs)
		assert.Equal(t, want, got, "jobs %d", jobs)
		assert.Equal(t, len(keys), last.Done, "jobs %d: progress counts every run", jobs)
		assert.Equal(t, len(keys), last.Total, "jobs %d", jobs)
	}
}

func TestMapStopsAtTheFirstError(t *testing.T) {
	var ran atomic.Int64
	keys := make([]int, 100)
	for i := range keys {
		keys[i] = i
	}
	boom := errors.New("run 3: boom")
	_, err := Map(context.Background(), keys, Options{Jobs: 1}, func(_ context.Context, k int) (int, error) {
		ran.Add(1)
		if k == 3 {
			return 0, boom
		}
		return k, nil
	})
	assert.ErrorIs(t, err, boom)
	assert.LessOrEqual(t, ran.Load(), int64(5), "no run is handed out after the error (one may be in flight)")
}

func TestMapStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	block := make(chan struct{})
	defer close(block)
	started := make(chan struct{}, 10)
	go func() {
		<-started
		cancel()
	}()
	_, err := Map(ctx, []int{1, 2, 3}, Options{Jobs: 1}, func(ctx context.Context, k int) (int, error) {
		started <- struct{}{}
		select {
		case <-block:
		case <-ctx.Done():
		}
		return k, ctx.Err()
	})
	assert.ErrorIs(t, err, context.Canceled)
}

func TestMapRejectsNoWorkers(t *testing.T) {
	_, err := Map(context.Background(), []int{1}, Options{}, func(context.Context, int) (int, error) { return 0, nil })
	assert.ErrorContains(t, err, "jobs 0 must be ≥ 1")
}
