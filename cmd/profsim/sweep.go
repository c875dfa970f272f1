package main

// profsim sweep: a grid of `profsim run`s (package sweep/runs), results
// in DIR/results.jsonl, tidy tables in DIR/runs.csv and DIR/methods.csv.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/sweep"
	"github.com/profsim/profsim/sweep/runs"
)

// exitCodeError is an error with its own exit status (130 after SIGINT,
// 143 after SIGTERM, 1 when runs of a sweep failed).
type exitCodeError struct {
	code int
	err  error
}

func (e exitCodeError) Error() string { return e.err.Error() }
func (e exitCodeError) Unwrap() error { return e.err }

const sweepUsage = `Usage:
  profsim sweep GRID.yaml --out DIR [--jobs N] [--shard I/N|auto] [--shard-count N] [--keep-profiles] [--fail-fast] [--allow-mixed-builds]
  profsim sweep merge DIR... --out DIR [--allow-mixed-builds]
  profsim sweep status DIR

Runs every point of a parameter grid (docs/SWEEPS.md): results append to
DIR/results.jsonl as each run finishes; at the end DIR/runs.csv (one row per
run and profile) and DIR/methods.csv (one row per run, profile and method).
Running the same command again resumes: finished runs are skipped.
`

func cmdSweep(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "merge":
			return withCmd("sweep merge", sweepError(cmdSweepMerge(args[1:], stdout, stderr)))
		case "status":
			return withCmd("sweep status", sweepError(cmdSweepStatus(args[1:], stdout)))
		}
	}
	return withCmd("sweep", sweepError(sweepRun(args, stdout, stderr)))
}

// sweepError maps the errors of package runs to exit statuses: bad input
// 2, a merge missing points 1.
func sweepError(err error) error {
	var ie *runs.InputError
	var inc *runs.IncompleteError
	switch {
	case errors.As(err, &ie):
		return usageError{err}
	case errors.As(err, &inc):
		return exitCodeError{1, err}
	}
	return err
}

// withCmd puts the command's name in front of err's message unless it is
// there already, keeping err's exit status: every error of sweep, sweep
// merge and sweep status says which command it is from.
func withCmd(cmd string, err error) error {
	if err == nil || errors.Is(err, errHelp) || strings.HasPrefix(err.Error(), cmd+": ") {
		return err
	}
	return cmdError{cmd, err}
}

// cmdError is an error with its command's name.
type cmdError struct {
	cmd string
	err error
}

func (e cmdError) Error() string { return e.cmd + ": " + e.err.Error() }
func (e cmdError) Unwrap() error { return e.err }

// sweepRun is profsim sweep GRID.
func sweepRun(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "", "output directory (created; a sweep into a directory that has results resumes)")
	jobs := fs.Int("jobs", runtime.NumCPU(), "runs at once (each run is single-threaded)")
	shardText := fs.String("shard", "", "run only shard I/N of the points (by point index), or auto: from SLURM_ARRAY_TASK_ID/COUNT or JOB_COMPLETION_INDEX")
	shardCount := fs.Int("shard-count", 0, "with --shard auto: the number of shards (else SLURM_ARRAY_TASK_COUNT or PROFSIM_SHARD_COUNT)")
	keep := fs.Bool("keep-profiles", false, "also write each run's profiles (pprof and folded) to DIR/profiles/KEY/")
	failFast := fs.Bool("fail-fast", false, "stop at the first failed run")
	allowMixed := fs.Bool("allow-mixed-builds", false, "resume a directory whose results another build of profsim made: every point runs again with this build, beside them")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, sweepUsage+"\nFlags:\n")
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return errHelp
		}
		return usagef("sweep: %v", err)
	}
	switch {
	case len(pos) == 0:
		return usagef("sweep: no grid file (profsim sweep GRID.yaml --out DIR)")
	case len(pos) > 1:
		return usagef("sweep: one grid file, not %d (%s)", len(pos), strings.Join(pos, " "))
	case *out == "":
		return usagef("sweep: --out DIR is required")
	case *jobs < 1:
		return usagef("sweep: --jobs %d must be ≥ 1", *jobs)
	case *shardCount < 0:
		return usagef("sweep: --shard-count %d must be ≥ 0", *shardCount)
	case *shardCount > 0 && *shardText != "auto":
		return usagef("sweep: --shard-count is for --shard auto")
	}
	var shard sweep.Shard
	if *shardText != "" {
		if shard, err = sweep.ParseShard(*shardText, *shardCount, os.Getenv); err != nil {
			return usagef("sweep: %v", err)
		}
	}
	plan, err := runs.New(pos[0], shard)
	if err != nil {
		return err
	}
	ctx, sig, stop := signalContext()
	defer stop()
	o := runs.Options{Out: *out, Jobs: *jobs, FailFast: *failFast, AllowMixedBuilds: *allowMixed, Summary: stdout}
	if *keep {
		o.KeepProfile = func(dir, id string, p *profile.Profile) error { return writeFiles(dir, fileBase(id), p) }
	}
	return executeSweep(ctx, sig, plan, o, stderr)
}

// executeSweep executes plan with a progress display on stderr, says
// what it did, and returns the sweep's exit status: 1 if runs failed,
// 130 or 143 if sig stopped it.
func executeSweep(ctx context.Context, sig func() os.Signal, plan *runs.Plan, o runs.Options, stderr io.Writer) error {
	o.Log = stderr
	o.Progress = func(todo int) (func(sweep.Progress), func()) {
		prog := newProgress(stderr, todo)
		return prog.update, prog.finish
	}
	res, err := plan.Execute(ctx, o)
	var ie *runs.InterruptedError
	if errors.As(err, &ie) {
		s := sig()
		name := "cancelled"
		if s != nil {
			name = strings.ToUpper(s.String())
			if s == os.Interrupt {
				name = "SIGINT"
			} else if s == syscall.SIGTERM {
				name = "SIGTERM"
			}
		}
		return interrupted(s, "interrupted (%s) after %d of %d runs; they are in %s: run the same command to resume", name, ie.Ran, ie.Todo, ie.Results)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "profsim sweep: %d points (shard %s of %d): %d run now, %d already done; %d failed; tables in %s\n",
		res.InShard, res.Shard, res.Size, res.Ran, res.Skipped, res.Failed, o.Out)
	switch {
	case res.Stopped: // --fail-fast
		return exitCodeError{1, fmt.Errorf("stopped at the first failed run (--fail-fast); see %s", filepath.Join(o.Out, "runs.csv"))}
	case res.Failed > 0:
		return exitCodeError{1, fmt.Errorf("%d of %d runs failed; see the status and error columns of %s", res.Failed, res.InShard, filepath.Join(o.Out, "runs.csv"))}
	}
	return nil
}

// parseInterleaved parses flags that may come before or after positional
// arguments (profsim sweep GRID --out DIR).
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// signalContext is cancelled by SIGINT or SIGTERM; sig reports which.
func signalContext() (ctx context.Context, sig func() os.Signal, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	var mu sync.Mutex
	var got os.Signal
	go func() {
		select {
		case s := <-ch:
			mu.Lock()
			got = s
			mu.Unlock()
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() os.Signal {
			mu.Lock()
			defer mu.Unlock()
			return got
		}, func() {
			signal.Stop(ch)
			cancel()
		}
}

// interrupted is the error of a command stopped by a signal: exit status
// 128 + the signal's number, as a shell reports it.
func interrupted(s os.Signal, format string, args ...any) error {
	code := 130
	if s == syscall.SIGTERM {
		code = 143
	}
	return exitCodeError{code, fmt.Errorf(format, args...)}
}
