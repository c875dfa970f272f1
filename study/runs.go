package study

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/profsim/profsim/sweep"
)

// runKey names one run an experiment makes: a comparable value that
// determines the run completely — the stand-in, the seed's value, the
// duration and every setting the run reads — so that equal keys are equal
// runs, whichever experiment asks and with whichever options. The key
// type's run method makes the run, so one key type cannot stand for two
// different runs.
type runKey[R any] interface {
	comparable
	run() (R, error)
}

// cached is one run in the cache: done is closed when v and err are set.
type cached struct {
	done chan struct{}
	once sync.Once
	v    any
	err  error
}

// runs is the study's one memoizing cache: every run any experiment has
// made in this process, by key. Experiments reading the same runs (B1–B6
// the Binder grid, H1–H4 Hofer's techniques, M3 and M4 the disagreement
// runs, …) share them, and a run asked for by two callers at once is made
// once. A failed run is not kept.
var runs = struct {
	mu sync.Mutex
	m  map[any]*cached
}{m: map[any]*cached{}}

// errNotRun marks runs left unmade when another run of their batch
// failed.
var errNotRun = errors.New("not run: another run failed")

// runAll makes every key's run, or reads it from the cache, and returns
// the results in key order. The missing runs go on the sweep engine
// (sweep.Map), GOMAXPROCS at a time; each is deterministic on its own, so
// a result never depends on the order runs finish in. o.Runs, if set,
// counts them.
func runAll[K runKey[R], R any](o Options, keys []K) ([]R, error) {
	entries := make([]*cached, len(keys))
	owned := make([]bool, len(keys))
	var todo []K
	byKey := map[K]*cached{}
	runs.mu.Lock()
	for i, k := range keys {
		if c, ok := runs.m[k]; ok {
			entries[i] = c
			continue
		}
		c := &cached{done: make(chan struct{})}
		runs.m[k] = c
		entries[i], owned[i], byKey[k] = c, true, c
		todo = append(todo, k)
	}
	runs.mu.Unlock()
	o.Runs.ask(len(keys))

	// finish settles a run once: a run abandoned after another failed
	// may still return, and is then dropped.
	finish := func(k K, v any, err error) {
		c := byKey[k]
		c.once.Do(func() {
			c.v, c.err = v, err
			close(c.done)
			if err != nil {
				runs.mu.Lock()
				delete(runs.m, k)
				runs.mu.Unlock()
			}
		})
	}
	if o.Store != nil {
		if err := checkStorable(reflect.TypeFor[R]()); err != nil {
			for _, k := range todo {
				finish(k, nil, errNotRun)
			}
			return nil, fmt.Errorf("study store: %w", err)
		}
	}
	var missing atomic.Int64
	_, err := sweep.Map(context.Background(), todo, sweep.Options{Jobs: runtime.GOMAXPROCS(0)}, func(_ context.Context, k K) (struct{}, error) {
		var v R
		var err error
		if o.Store != nil {
			v, err = storeRun(o.Store, k)
		} else {
			v, err = k.run()
		}
		if errors.Is(err, errMissing) {
			// Another process's run: the others of the batch go on.
			missing.Add(1)
			finish(k, nil, err)
			return struct{}{}, nil
		}
		if err != nil {
			err = fmt.Errorf("run %+v: %w", k, err)
		}
		finish(k, v, err)
		o.Runs.finish(1)
		return struct{}{}, err
	})
	if err != nil {
		// Release the waiters of runs never handed out or abandoned,
		// and report the run that failed, not one left unmade.
		for _, k := range todo {
			finish(k, nil, errNotRun)
		}
		return nil, err
	}
	if n := missing.Load(); n > 0 {
		return nil, fmt.Errorf("%w: %d of a batch of %d", ErrIncomplete, n, len(keys))
	}
	out := make([]R, len(keys))
	for i, c := range entries {
		<-c.done
		if !owned[i] {
			o.Runs.finish(1)
		}
		if c.err != nil {
			return nil, c.err
		}
		out[i] = c.v.(R)
	}
	return out, nil
}

// Counter counts an experiment's runs as they go: Total those asked for,
// Done those made or found in the cache. Options.Runs takes one; a nil
// *Counter counts nothing.
type Counter struct {
	mu          sync.Mutex
	done, total int
	// OnChange, if set, is called after every change, with the lock
	// held: it must not call the Counter back.
	OnChange func(done, total int)
}

func (c *Counter) ask(n int)    { c.add(0, n) }
func (c *Counter) finish(n int) { c.add(n, 0) }

func (c *Counter) add(done, total int) {
	if c == nil || done == 0 && total == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done += done
	c.total += total
	if c.OnChange != nil {
		c.OnChange(c.done, c.total)
	}
}

// Counts returns the runs done and asked for so far.
func (c *Counter) Counts() (done, total int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.done, c.total
}

// seedRunner is an execution setting run once per seed: its runs are the
// setting and the seed.
type seedRunner[R any] interface {
	comparable
	runSeed(seed uint64) (R, error)
}

// seedKey is one (setting, seed) run of runBySeed.
type seedKey[B seedRunner[R], R any] struct {
	bench B
	seed  uint64
}

func (k seedKey[B, R]) run() (R, error) { return k.bench.runSeed(k.seed) }

// runBySeed makes every bench's run at every seed of o (runAll: cached,
// on the sweep engine) and returns them by bench, then seed.
func runBySeed[B seedRunner[R], R any](o Options, benches []B) ([][]R, error) {
	var keys []seedKey[B, R]
	for _, b := range benches {
		for _, seed := range o.Seeds {
			keys = append(keys, seedKey[B, R]{b, seed})
		}
	}
	rs, err := runAll(o, keys)
	if err != nil {
		return nil, err
	}
	out := make([][]R, len(benches))
	for i, r := range rs {
		out[i/len(o.Seeds)] = append(out[i/len(o.Seeds)], r)
	}
	return out, nil
}

// statOf, maxOf and minOf are f's stat, largest and smallest value over
// runs (one per seed).
func statOf[R any](runs []R, f func(R) float64) stat {
	xs := make([]float64, 0, len(runs))
	for _, r := range runs {
		xs = append(xs, f(r))
	}
	return newStat(xs)
}

func maxOf[R any](runs []R, f func(R) float64) float64 {
	m := math.Inf(-1)
	for _, r := range runs {
		m = math.Max(m, f(r))
	}
	return m
}

func minOf[R any](runs []R, f func(R) float64) float64 {
	m := math.Inf(1)
	for _, r := range runs {
		m = math.Min(m, f(r))
	}
	return m
}
