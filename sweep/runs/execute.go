package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/report"
	"github.com/profsim/profsim/sweep"
)

// run performs a planned run and returns its report as JSON (without the
// config, which the record carries).
func (pr *plannedRun) run(ctx context.Context) (json.RawMessage, error) {
	rep, err := pr.report(ctx)
	if err != nil {
		return nil, err
	}
	if pr.cache != nil {
		if err := pr.cacheRows(rep); err != nil {
			return nil, err
		}
	}
	return json.Marshal(rep)
}

// cacheRows renders rep's table rows into the sweep's row cache.
func (pr *plannedRun) cacheRows(rep *report.Report) error {
	rr, err := report.SweepRows(rep)
	if err != nil {
		return err
	}
	pr.cache.put(pr.key, rr)
	return nil
}

// report makes the run, keeps its profiles if asked, and returns its
// result as `profsim run --format json` prints it.
func (pr *plannedRun) report(ctx context.Context) (*report.Report, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, hash, err := pr.spec.Load()
	if err != nil {
		return nil, err
	}
	// The key holds the content planned; a file edited since would put
	// another program's results under it.
	if hash != pr.config.Workload.SHA256 {
		return nil, fmt.Errorf("workload %s changed since the sweep planned its runs (SHA-256 %.16s…, planned %.16s…); run the sweep again to plan it anew", pr.spec.Workload, hash, pr.config.Workload.SHA256)
	}
	// As in profsim run, nothing after Collect reads the recorder: the
	// record and the kept files read the truth profile.
	cfg := pr.cfg
	cfg.ReleaseTruth = true
	out, err := harness.Run(p, cfg)
	if err != nil {
		return nil, err
	}
	got := pr.spec.Describe(pr.cfg, out.Names, out.Samplers, pr.config.Workload)
	if got.Key() != pr.key {
		return nil, fmt.Errorf("profsim: internal error: the run's config differs from the planned one")
	}
	if pr.keep != nil {
		for _, name := range out.Names {
			if err := pr.keep(pr.keepDir, name, out.Profiles[name]); err != nil {
				return nil, err
			}
		}
	}
	return report.New(p.Name, pr.cfg, out), nil
}

// Options are how Execute runs a plan.
type Options struct {
	// Out is the output directory (created; one that has results
	// resumes).
	Out string
	// Jobs is how many runs are made at once (≥ 1).
	Jobs int
	// FailFast stops at the first failed run.
	FailFast bool
	// AllowMixedBuilds resumes a directory of another build's results.
	AllowMixedBuilds bool
	// KeepProfile, if set, writes each run's profile named id into dir,
	// OUT/profiles/KEY/; nil: no profiles are kept.
	KeepProfile func(dir, id string, p *profile.Profile) error
	// Progress, if set, is called once the runs to make are known, todo
	// of them; it returns the function Execute calls as they progress and
	// the one it calls when they are over.
	Progress func(todo int) (update func(sweep.Progress), finish func())
	// Log, if set, gets notes on the directory (a repaired results file).
	Log io.Writer
	// Summary, if set, gets the per-cell summary table (summary.csv is
	// written either way).
	Summary io.Writer
	// Stored, if set, is called after each record is stored.
	Stored func(sweep.Record)

	// now fixes the clock (tests); nil: time.Now.
	now func() time.Time
	// run, if set, replaces each point's run (benchmarks: the engine
	// alone); nil: plannedRun.run.
	run func(pr *plannedRun, ctx context.Context) (json.RawMessage, error)
}

// Result is what Execute did.
type Result struct {
	// Shard is the plan's shard; InShard its points of the grid's Size.
	Shard         sweep.Shard
	InShard, Size int
	// Ran is how many runs were made now, Skipped how many points were
	// done before (or are the same run as an earlier point), Failed how
	// many of the shard's points have a failed run.
	Ran, Skipped, Failed int
	// Stopped is true when FailFast stopped the sweep at a failed run.
	Stopped bool
}

// InterruptedError is a sweep whose context was cancelled: Ran of Todo
// runs were made, their records are in Results; running it again
// resumes.
type InterruptedError struct {
	Ran, Todo int
	Results   string
}

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("interrupted after %d of %d runs; they are in %s", e.Ran, e.Todo, e.Results)
}

// Execute runs the plan's points of the shard not yet done in o.Out,
// then writes the tables and the summary. Failed runs are no error: the
// Result counts them.
func (plan *Plan) Execute(ctx context.Context, o Options) (*Result, error) {
	lock, err := sweep.LockDir(o.Out, "profsim sweep")
	if err != nil {
		return nil, lockError("sweep", err)
	}
	defer lock.Unlock()
	store, err := sweep.OpenStore(o.Out)
	if err != nil {
		return nil, inputf("sweep: %v", err)
	}
	defer store.Close()
	if store.Repaired > 0 && o.Log != nil {
		fmt.Fprintf(o.Log, "profsim sweep: discarded a truncated last line of %s (%d bytes); its run is redone\n", filepath.Join(o.Out, sweep.ResultsFile), store.Repaired)
	}
	if err := checkBuild(o.Out, store.Index(), plan.manifest.Build, o.AllowMixedBuilds); err != nil {
		return nil, err
	}
	if err := sweep.WriteManifest(o.Out, plan.manifest); err != nil {
		return nil, err
	}
	cache := newRowCache(rowCacheBudget)
	var todo []sweep.Job
	res := &Result{Shard: plan.shard, InShard: len(plan.jobs), Size: plan.manifest.Size}
	queued := map[string]bool{}
	for _, j := range plan.jobs {
		if store.Done(j.Key) || queued[j.Key] {
			res.Skipped++ // done before, or the same run as an earlier point
			continue
		}
		queued[j.Key] = true
		j.Plan = func() (sweep.Job, error) {
			job, pr, err := plan.replan(j)
			if err != nil {
				return job, err
			}
			if o.KeepProfile != nil {
				pr.keep, pr.keepDir = o.KeepProfile, filepath.Join(o.Out, "profiles", j.Key)
			}
			pr.cache = cache
			if job.Err == nil {
				job.Run = pr.run
				if o.run != nil {
					job.Run = func(ctx context.Context) (json.RawMessage, error) { return o.run(pr, ctx) }
				}
			}
			return job, nil
		}
		todo = append(todo, j)
	}
	update, finish := func(sweep.Progress) {}, func() {}
	if o.Progress != nil {
		update, finish = o.Progress(len(todo))
	}
	emit := store.Append
	if o.Stored != nil {
		emit = func(r sweep.Record) error {
			if err := store.Append(r); err != nil {
				return err
			}
			o.Stored(r)
			return nil
		}
	}
	sum, err := sweep.Execute(ctx, todo, sweep.Options{Jobs: o.Jobs, FailFast: o.FailFast, Progress: update, Now: o.now}, emit)
	finish()
	if serr := store.Sync(); err == nil {
		err = serr // every record on disk before the tables (or the exit)
	}
	if err != nil {
		return nil, err
	}
	res.Ran = sum.Ran
	if sum.Interrupted && ctx.Err() != nil {
		return res, &InterruptedError{Ran: sum.Ran, Todo: len(todo), Results: filepath.Join(o.Out, sweep.ResultsFile)}
	}
	got, _ := sweep.Collect(plan.manifest, store.Index())
	if err := writeTables(o.Out, plan.manifest, got, store.Index(), cache); err != nil {
		return nil, err
	}
	if err := writeSummary(o.Out, plan.manifest, o.Summary); err != nil {
		return nil, err
	}
	for _, l := range got {
		if l.Status != sweep.StatusOK {
			res.Failed++
		}
	}
	res.Stopped = sum.Interrupted // --fail-fast
	return res, nil
}

// lockError is the error of a command that could not lock its output
// directory: another sweep holds it (named), or the directory cannot be
// made.
func lockError(cmd string, err error) error {
	var le *sweep.LockedError
	if errors.As(err, &le) {
		return inputf("%s: %v", cmd, err)
	}
	return inputf("%s: --out: %v", cmd, err)
}
