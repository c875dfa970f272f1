package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/profsim/profsim/sweep"
)

// BenchmarkSweepOverhead measures what the sweep engine adds to the runs
// themselves — planning (flag parsing, config resolution, hashing),
// scheduling, writing and syncing each record, the manifest and the
// tables — for ten 100 ms-simulated runs of a stand-in with three
// profilers, at --jobs 1. overhead_% is the sweep's wall time less the
// runs' own (each record's wall_ns: the run and its JSON result), per
// the runs' own: measured within one sweep, so that machine load moves
// both alike.
//
//	go test ./cmd/profsim -run '^$' -bench SweepOverhead -benchtime 10x
func BenchmarkSweepOverhead(b *testing.B) {
	dir := b.TempDir()
	grid := filepath.Join(dir, "grid.yaml")
	if err := os.WriteFile(grid, []byte("run: {workload: lusearch, duration: 100ms, sampler: [truth, async, safepoint]}\ngrid: {seed: 1..10}\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var total, runs time.Duration
	n := 0
	for b.Loop() {
		n++
		out := filepath.Join(dir, fmt.Sprint("out", n))
		t0 := time.Now()
		plan, err := planSweep(grid)
		if err != nil {
			b.Fatal(err)
		}
		if err := plan.execute(ctx, func() os.Signal { return nil }, sweepOptions{out: out, jobs: 1}, io.Discard); err != nil {
			b.Fatal(err)
		}
		total += time.Since(t0)
		recs, err := sweep.ReadResults(filepath.Join(out, sweep.ResultsFile))
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range recs {
			runs += time.Duration(r.WallNS)
		}
	}
	b.ReportMetric(100*float64(total-runs)/float64(runs), "overhead_%")
	b.ReportMetric(float64(runs.Nanoseconds())/float64(n*10), "ns/run")
}
