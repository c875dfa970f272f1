package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/profsim/profsim/report"
	"github.com/profsim/profsim/sweep"
)

// BenchmarkSweepOverhead measures what the sweep engine adds to the runs
// themselves — planning (flag parsing, config resolution, hashing),
// scheduling, rendering each run's table rows, writing and syncing each
// record, the manifest and the tables — for forty 100 ms-simulated runs
// of a stand-in with three profilers, at --jobs 1. It measures the two
// apart, in CPU time (user + system), which unlike wall time does not
// move with the machine's other load:
//
//   - the runs: each point's run and its JSON result, as `profsim run
//     --format json` makes them;
//   - the engine: the whole sweep — planning, executing, the tables —
//     with each run replaced by its result from the first part (the
//     rows rendered again, as a real run renders them), repeated
//     engineRepeats times to rise above the clock's resolution.
//
// overhead_% is the engine's CPU per point over a run's, each the minimum
// over the iterations (robust to what moves anyway: caches, GC pacing).
// Comparing a whole sweep with the runs alone instead subtracts two
// numbers 20 times larger than their difference, which on a shared
// 2-core machine moved it between -0.4 % and 11.8 % from one invocation
// to the next.
//
//	go test ./sweep/runs -run '^$' -bench SweepOverhead -benchtime 3x
func BenchmarkSweepOverhead(b *testing.B) {
	const points, engineRepeats = 40, 5
	dir := b.TempDir()
	grid := filepath.Join(dir, "grid.yaml")
	if err := os.WriteFile(grid, []byte(fmt.Sprintf("run: {workload: lusearch, duration: 100ms, sampler: [truth, async, safepoint]}\ngrid: {seed: 1..%d}\n", points)), 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	engine, runs := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	reports := map[string]*report.Report{}
	raws := map[string]json.RawMessage{}
	n := 0
	for b.Loop() {
		plan, err := New(grid, sweep.Shard{})
		if err != nil {
			b.Fatal(err)
		}
		c0 := cpuTime(b)
		for _, j := range plan.jobs {
			_, pr, err := plan.replan(j)
			if err != nil {
				b.Fatal(err)
			}
			rep, err := pr.report(ctx)
			if err != nil {
				b.Fatal(err)
			}
			raw, err := json.Marshal(rep)
			if err != nil {
				b.Fatal(err)
			}
			key := pr.key
			reports[key], raws[key] = rep, raw
		}
		c1 := cpuTime(b)
		for range engineRepeats {
			n++
			plan, err := New(grid, sweep.Shard{})
			if err != nil {
				b.Fatal(err)
			}
			stub := func(pr *plannedRun, _ context.Context) (json.RawMessage, error) {
				key := pr.key
				if err := pr.cacheRows(reports[key]); err != nil {
					return nil, err
				}
				return raws[key], nil
			}
			_, err = plan.Execute(ctx, Options{Out: filepath.Join(dir, fmt.Sprint("out", n)), Jobs: 1, run: stub})
			if err != nil {
				b.Fatal(err)
			}
		}
		c2 := cpuTime(b)
		runs, engine = min(runs, c1-c0), min(engine, (c2-c1)/engineRepeats)
	}
	b.ReportMetric(100*float64(engine)/float64(runs), "overhead_%")
	b.ReportMetric(float64(runs.Nanoseconds())/points, "cpu-ns/run")
	b.ReportMetric(float64(engine.Nanoseconds())/points, "engine-cpu-ns/point")
}

// cpuTime is the process's user plus system CPU time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
