package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkSweepOverhead measures what the sweep engine adds to the runs
// themselves — planning (flag parsing, config resolution, hashing),
// scheduling, writing and syncing each record, the manifest and the
// tables — for forty 100 ms-simulated runs of a stand-in with three
// profilers, at --jobs 1. overhead_% compares the process's CPU time
// (user + system) for the sweep with that for the same runs made
// directly (each run and its JSON result, as `profsim run --format json`
// makes them): CPU time, unlike wall time, does not move with the
// machine's other load, and the two are compared by their minimum over
// the iterations, which is robust to what moves anyway (caches, GC
// pacing).
//
//	go test ./cmd/profsim -run '^$' -bench SweepOverhead -benchtime 3x
func BenchmarkSweepOverhead(b *testing.B) {
	dir := b.TempDir()
	grid := filepath.Join(dir, "grid.yaml")
	if err := os.WriteFile(grid, []byte("run: {workload: lusearch, duration: 100ms, sampler: [truth, async, safepoint]}\ngrid: {seed: 1..40}\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	sweeps, runs := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	n := 0
	for b.Loop() {
		n++
		plan, err := planSweep(grid)
		if err != nil {
			b.Fatal(err)
		}
		c0 := cpuTime(b)
		for _, pr := range plan.runs {
			if _, err := pr.run(ctx); err != nil {
				b.Fatal(err)
			}
		}
		c1 := cpuTime(b)
		plan, err = planSweep(grid)
		if err != nil {
			b.Fatal(err)
		}
		err = plan.execute(ctx, func() os.Signal { return nil }, sweepOptions{out: filepath.Join(dir, fmt.Sprint("out", n)), jobs: 1}, io.Discard)
		if err != nil {
			b.Fatal(err)
		}
		c2 := cpuTime(b)
		runs, sweeps = min(runs, c1-c0), min(sweeps, c2-c1)
	}
	b.ReportMetric(100*float64(sweeps-runs)/float64(runs), "overhead_%")
	b.ReportMetric(float64(runs.Nanoseconds())/40, "cpu-ns/run")
}

// cpuTime is the process's user plus system CPU time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
