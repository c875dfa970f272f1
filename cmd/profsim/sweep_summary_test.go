package main

import (
	"github.com/profsim/profsim/sweep/runs"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/study"
)

// A sweep ends with its summary: per cell of the grid without its seed
// axis and profile, the runs and overlap_vs_truth's mean and 95 % CI over
// the seeds, in summary.csv and on stdout; the numbers are runs.csv's.
func TestSweepSummary(t *testing.T) {
	grid := writeGrid(t, "run: {duration: 20ms, sampler: [truth, safepoint, async]}\ngrid: {workload: [hotcold, callpair], seed: 1..3}\n")
	dir := filepath.Join(t.TempDir(), "o")
	code, stdout, stderr := sweepMain(t, "sweep", grid, "--out", dir, "--jobs", "2")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "overlap with the truth (%), mean ± 95 % CI over seeds, per cell and profile:")
	rows := readCSV(t, filepath.Join(dir, "runs.csv"))
	sum := readCSV(t, filepath.Join(dir, runs.SummaryFile))
	require.Len(t, sum, 4, "2 workloads × 2 profiles (the truth is the reference, not a row)")
	for _, s := range sum {
		var xs []float64
		for _, r := range rows {
			if r["workload"] == s["workload"] && r["profile"] == s["profile"] {
				x, err := strconv.ParseFloat(r["overlap_vs_truth"], 64)
				require.NoError(t, err)
				xs = append(xs, x)
			}
		}
		require.Len(t, xs, 3)
		mean, ci := study.MeanCI(xs)
		assert.Equal(t, "3", s["runs"])
		assert.Equal(t, "0", s["failed"])
		got, err := strconv.ParseFloat(s["overlap_vs_truth_mean"], 64)
		require.NoError(t, err)
		assert.InDelta(t, mean, got, 1e-12, "%v", s)
		gotCI, err := strconv.ParseFloat(s["overlap_vs_truth_ci95"], 64)
		require.NoError(t, err)
		assert.InDelta(t, ci, gotCI, 1e-9, "%v", s)
		assert.Contains(t, stdout, s["workload"])
	}
	// The same grid at one job writes the same summary, byte for byte.
	dir1 := filepath.Join(t.TempDir(), "o")
	code, _, stderr = sweepMain(t, "sweep", grid, "--out", dir1, "--jobs", "1")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, tables(t, dir)[runs.SummaryFile], tables(t, dir1)[runs.SummaryFile])
}
