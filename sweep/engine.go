package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Job is a point made ready to run: its key, its resolved config and the
// run itself.
type Job struct {
	Point Point
	// Key names the run: a hash of Config. Equal keys, equal runs.
	Key string
	// Config is the run's full resolved configuration (JSON).
	Config json.RawMessage
	// Run performs the run and returns its result (JSON). It should return
	// soon after ctx is cancelled; a Run that does not is abandoned (see
	// Execute).
	Run func(ctx context.Context) (json.RawMessage, error)
	// Err, if set, is why the point cannot run (an invalid workload file,
	// say): it is recorded as a failed run without running.
	Err error
	// Plan, if set, makes the job ready when it is dispatched, on a
	// worker: it returns the job with Config and Run (or Err) filled in,
	// so that a long job list holds points and keys rather than every
	// run's resolved config. An error is recorded as the run's failure.
	Plan func() (Job, error)
	// Compact says Config and Run's results are encoding/json's own
	// output (json.Marshal of a value): valid and compact by
	// construction, so Store.Append writes them as they are instead of
	// scanning them again (a result of tens of KiB is a few per cent of a
	// short run's cost). Leave it false for JSON from elsewhere.
	Compact bool
}

// Status of a finished run.
const (
	StatusOK     = "ok"
	StatusFailed = "failed"
)

// Record is one finished run, as results.jsonl stores it: self-contained,
// so a table can be built from records alone.
type Record struct {
	Key    string          `json:"key"`
	Point  int             `json:"point"`
	Coords Coords          `json:"coords"`
	Config json.RawMessage `json:"config,omitempty"`
	Status string          `json:"status"`
	Error  string          `json:"error,omitempty"`
	// WallNS is the run's wall-clock time; the only field that differs
	// between two runs of one key.
	WallNS int64           `json:"wall_ns"`
	Result json.RawMessage `json:"result,omitempty"`

	// compact: Config and Result are compact, valid JSON (Job.Compact).
	compact bool
}

// Coords are a point's coordinates, written as a JSON object in axis
// order.
type Coords []Coord

// MarshalJSON writes {"name": "value", ...} in order; a list value is a
// JSON array.
func (c Coords) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, x := range c {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(x.Name)
		b.Write(k)
		b.WriteByte(':')
		var v []byte
		if len(x.Value) == 1 {
			v, _ = json.Marshal(x.Value[0])
		} else {
			v, _ = json.Marshal([]string(x.Value))
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes, keeping the order.
func (c *Coords) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("coords: want an object")
	}
	*c = nil
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		name, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		var v Value
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			v = Value{s}
		} else if err := json.Unmarshal(raw, (*[]string)(&v)); err != nil {
			return fmt.Errorf("coords[%q]: want a string or a list of strings", name)
		}
		*c = append(*c, Coord{Name: name, Value: v})
	}
	_, err = dec.Token()
	return err
}

// Options control Execute.
type Options struct {
	// Jobs is how many runs go at once (≥ 1).
	Jobs int
	// FailFast stops handing out runs after the first failure.
	FailFast bool
	// Progress, if set, is called after each finished run, from the
	// goroutine that calls emit.
	Progress func(Progress)
	// Now is the clock (time.Now if nil); tests fix it so records compare.
	Now func() time.Time
}

// clock checks Jobs and returns the clock (Now, time.Now if nil) and the
// time Execute or Map starts.
func (opts Options) clock() (now func() time.Time, start time.Time, err error) {
	if opts.Jobs < 1 {
		return nil, time.Time{}, fmt.Errorf("sweep: jobs %d must be ≥ 1", opts.Jobs)
	}
	now = opts.Now
	if now == nil {
		now = time.Now
	}
	return now, now(), nil
}

// Progress is a sweep's state after a run finishes.
type Progress struct {
	Done, Failed, Total int
	Elapsed             time.Duration
}

// ETA estimates the time left from the mean time per finished run.
func (p Progress) ETA() time.Duration {
	if p.Done == 0 {
		return 0
	}
	return time.Duration(float64(p.Elapsed) / float64(p.Done) * float64(p.Total-p.Done))
}

// Line is the progress as one plain line (for logs).
func (p Progress) Line() string {
	s := fmt.Sprintf("%d/%d runs done", p.Done, p.Total)
	if p.Failed > 0 {
		s += fmt.Sprintf(", %d failed", p.Failed)
	}
	s += ", elapsed " + p.Elapsed.Round(time.Second).String()
	if p.Done < p.Total && p.Done > 0 {
		s += ", ETA " + p.ETA().Round(time.Second).String()
	}
	return s
}

// Summary is what Execute did.
type Summary struct {
	Ran, Failed int
	// Interrupted: ctx was cancelled (or FailFast stopped) before every
	// job ran.
	Interrupted bool
}

// Execute runs jobs on opts.Jobs workers, in job order, and calls emit
// with each finished run's record, one at a time from the calling
// goroutine (so emit may write a file without locking). Records arrive in
// completion order; anything built from them in point order does not
// depend on Jobs.
//
// A failed run (Job.Err or an error from Run) is a record with status
// failed; Execute goes on unless opts.FailFast. An error from emit stops
// Execute and is returned.
//
// When ctx is cancelled, no further job starts and Execute returns at
// once with Summary.Interrupted: runs in flight are abandoned and their
// records never emitted (a Run that ignores ctx finishes in the
// background, its result dropped). A record is emitted whole or not at
// all.
func Execute(ctx context.Context, jobs []Job, opts Options, emit func(Record) error) (Summary, error) {
	var sum Summary
	now, start, err := opts.clock()
	if err != nil {
		return sum, err
	}
	var emitErr error
	finished, interrupted := dispatch(ctx, len(jobs), opts.Jobs,
		func(ctx context.Context, i int) Record { return runOne(ctx, jobs[i], now) },
		func(_ int, rec Record) bool {
			sum.Ran++
			if rec.Status != StatusOK {
				sum.Failed++
			}
			if emitErr = emit(rec); emitErr != nil {
				return false
			}
			if opts.Progress != nil {
				opts.Progress(Progress{Done: sum.Ran, Failed: sum.Failed, Total: len(jobs), Elapsed: now().Sub(start)})
			}
			return rec.Status == StatusOK || !opts.FailFast
		})
	if emitErr != nil {
		return sum, emitErr
	}
	sum.Interrupted = interrupted || finished < len(jobs)
	return sum, nil
}

// Map runs f for every key on opts.Jobs workers, handing keys out in
// order, and returns the results in key order: a result does not depend on
// Jobs or on the order runs finish in. opts.Progress, if set, is called
// after each finished run; FailFast is implied (the first error stops
// handing out keys and is returned, wrapped with nothing: f should name
// its run). When ctx is cancelled, Map returns ctx's error at once and
// abandons the runs in flight.
//
// Map is the engine's Go API for in-process sweeps whose results are Go
// values: the study's experiments run on it.
func Map[K, R any](ctx context.Context, keys []K, opts Options, f func(context.Context, K) (R, error)) ([]R, error) {
	now, start, err := opts.clock()
	if err != nil {
		return nil, err
	}
	type result struct {
		r   R
		err error
	}
	out := make([]R, len(keys))
	done := 0
	finished, _ := dispatch(ctx, len(keys), opts.Jobs,
		func(ctx context.Context, i int) result {
			r, err := f(ctx, keys[i])
			return result{r, err}
		},
		func(i int, v result) bool {
			if v.err != nil {
				err = v.err
				return false
			}
			out[i] = v.r
			done++
			if opts.Progress != nil {
				opts.Progress(Progress{Done: done, Total: len(keys), Elapsed: now().Sub(start)})
			}
			return true
		})
	if err != nil {
		return nil, err
	}
	if finished < len(keys) {
		if e := ctx.Err(); e != nil {
			return nil, e
		}
		return nil, fmt.Errorf("sweep: %d of %d runs did not finish", len(keys)-finished, len(keys))
	}
	return out, nil
}

// dispatch runs work for every index in [0, n) on at most workers
// goroutines, handing indexes out in order, and calls done with each
// finished one, one at a time from the calling goroutine, in completion
// order. It returns how many finished when every index has, when done
// returns false, or when ctx is cancelled (interrupted); work still in
// flight then is abandoned: its ctx is cancelled and its value dropped.
func dispatch[T any](ctx context.Context, n, workers int, work func(context.Context, int) T, done func(int, T) bool) (finished int, interrupted bool) {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	type item struct {
		i int
		v T
	}
	next := make(chan int)
	results := make(chan item)
	for range min(workers, max(n, 1)) {
		go func() {
			for i := range next {
				v := work(ctx, i)
				select {
				case results <- item{i, v}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(next)
		for i := range n {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	for finished < n {
		select {
		case it := <-results:
			finished++
			if !done(it.i, it.v) {
				return finished, false
			}
		case <-ctx.Done():
			return finished, true
		}
	}
	return finished, false
}

func runOne(ctx context.Context, j Job, now func() time.Time) (rec Record) {
	if j.Plan != nil {
		p, err := j.Plan()
		if err != nil {
			return Record{Key: j.Key, Point: j.Point.Index, Coords: j.Point.Coords, Status: StatusFailed, Error: oneLine(err), compact: j.Compact}
		}
		j.Config, j.Run, j.Err = p.Config, p.Run, p.Err
	}
	rec = Record{Key: j.Key, Point: j.Point.Index, Coords: j.Point.Coords, Config: j.Config, Status: StatusOK, compact: j.Compact}
	if j.Err != nil {
		rec.Status, rec.Error = StatusFailed, oneLine(j.Err)
		return rec
	}
	t0 := now()
	defer func() {
		rec.WallNS = int64(now().Sub(t0))
		if r := recover(); r != nil {
			rec.Status, rec.Error, rec.Result = StatusFailed, oneLine(fmt.Errorf("panic: %v", r)), nil
		}
	}()
	res, err := j.Run(ctx)
	if err != nil {
		rec.Status, rec.Error = StatusFailed, oneLine(err)
		return rec
	}
	rec.Result = res
	return rec
}

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }

// Shard selects a deterministic 1/N of a grid's points: those whose index
// is I−1 modulo N. The zero Shard is the whole grid.
type Shard struct{ I, N int }

// Contains reports whether point index i belongs to the shard.
func (s Shard) Contains(i int) bool { return s.N <= 1 || i%s.N == s.I-1 }

func (s Shard) String() string {
	if s.N <= 1 {
		return "1/1"
	}
	return fmt.Sprintf("%d/%d", s.I, s.N)
}

// ParseShard reads "I/N" (1 ≤ I ≤ N) or "auto" (ShardFromEnv with count,
// 0 when not given).
func ParseShard(s string, count int, getenv func(string) string) (Shard, error) {
	if s == "auto" {
		return ShardFromEnv(count, getenv)
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("--shard %q: want I/N (e.g. 2/8) or auto", s)
	}
	if n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("--shard %q: want 1 ≤ I ≤ N", s)
	}
	return Shard{I: i, N: n}, nil
}

// ShardFromEnv reads the shard from a job array's environment: a Slurm
// array's SLURM_ARRAY_TASK_ID, its task index (ID − MIN) / STEP counted
// from SLURM_ARRAY_TASK_MIN (0 if unset) in steps of
// SLURM_ARRAY_TASK_STEP (1 if unset; --array=0-10:5 has tasks 0, 5 and
// 10), of SLURM_ARRAY_TASK_COUNT tasks (else (MAX − MIN) / STEP + 1 from
// SLURM_ARRAY_TASK_MAX); or a Kubernetes Indexed Job's
// JOB_COMPLETION_INDEX (from 0) with the count from count or
// PROFSIM_SHARD_COUNT. count, if > 0, overrides the environment's count.
func ShardFromEnv(count int, getenv func(string) string) (Shard, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	num := func(name string) (int, bool, error) {
		v := getenv(name)
		if v == "" {
			return 0, false, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, true, fmt.Errorf("--shard auto: %s=%q is not an integer", name, v)
		}
		return n, true, nil
	}
	var idx, n int
	if id, ok, err := num("SLURM_ARRAY_TASK_ID"); err != nil {
		return Shard{}, err
	} else if ok {
		var lo, hi, step, c int
		var hiOK, stepOK, cOK bool
		for _, v := range []struct {
			name string
			n    *int
			ok   *bool
		}{{"SLURM_ARRAY_TASK_MIN", &lo, nil}, {"SLURM_ARRAY_TASK_MAX", &hi, &hiOK}, {"SLURM_ARRAY_TASK_STEP", &step, &stepOK}, {"SLURM_ARRAY_TASK_COUNT", &c, &cOK}} {
			x, ok, err := num(v.name)
			if err != nil {
				return Shard{}, err
			}
			*v.n = x
			if v.ok != nil {
				*v.ok = ok
			}
		}
		if !stepOK {
			step = 1
		}
		switch {
		case step < 1:
			return Shard{}, fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_STEP=%d must be ≥ 1", step)
		case id < lo || (id-lo)%step != 0:
			return Shard{}, fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_ID=%d is not a task of the array SLURM_ARRAY_TASK_MIN=%d + k × SLURM_ARRAY_TASK_STEP=%d (an array given as a list, not a range a-b:s, has no shard numbering: use --shard I/N)", id, lo, step)
		case hiOK && (hi < lo || id > hi):
			return Shard{}, fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_ID=%d is not in SLURM_ARRAY_TASK_MIN=%d .. SLURM_ARRAY_TASK_MAX=%d", id, lo, hi)
		}
		idx = (id - lo) / step
		switch {
		case cOK:
			n = c
			if hiOK && (hi-lo)/step+1 != c {
				return Shard{}, fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_COUNT=%d, but SLURM_ARRAY_TASK_MIN=%d .. SLURM_ARRAY_TASK_MAX=%d in steps of SLURM_ARRAY_TASK_STEP=%d is %d tasks (an array given as a list has no shard numbering: use --shard I/N)", c, lo, hi, step, (hi-lo)/step+1)
			}
		case hiOK:
			n = (hi-lo)/step + 1
		case count <= 0:
			return Shard{}, fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX is (give --shard-count)")
		}
	} else if id, ok, err := num("JOB_COMPLETION_INDEX"); err != nil {
		return Shard{}, err
	} else if ok {
		c, _, err := num("PROFSIM_SHARD_COUNT")
		if err != nil {
			return Shard{}, err
		}
		idx, n = id, c
	} else {
		return Shard{}, fmt.Errorf("--shard auto: neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set")
	}
	if count > 0 {
		n = count
	}
	if n < 1 {
		return Shard{}, fmt.Errorf("--shard auto: no shard count (set SLURM_ARRAY_TASK_COUNT or PROFSIM_SHARD_COUNT, or give --shard-count)")
	}
	if idx < 0 || idx >= n {
		return Shard{}, fmt.Errorf("--shard auto: task index %d not in 0..%d", idx, n-1)
	}
	return Shard{I: idx + 1, N: n}, nil
}
