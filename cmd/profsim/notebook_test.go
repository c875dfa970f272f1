package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pythonWithPlots is a Python interpreter that imports pandas and
// matplotlib, or "" when there is none: the PATH's python3, then the
// system's (Debian's python3-pandas and python3-matplotlib install there,
// where a pyenv shim on PATH would not see them).
func pythonWithPlots() string {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-c", "import pandas, matplotlib").Run() == nil {
			return py
		}
	}
	return ""
}

// docs/notebooks/plot_sweep.py, the plotting starter docs/SWEEPS.md
// points to, reads a sweep's runs.csv and draws its three figures; it
// refuses a directory without runs.csv and an --x that is not an axis
// with exit status 2. Skipped without Python, pandas and matplotlib.
func TestPlotSweepStarter(t *testing.T) {
	py := pythonWithPlots()
	if py == "" {
		t.Skip("no python3 with pandas and matplotlib")
	}
	script := filepath.Join("..", "..", "docs", "notebooks", "plot_sweep.py")
	grid := writeGrid(t, "run: {duration: 20ms, sampler: [truth, safepoint, async], mode: costed}\ngrid: {workload: [hotcold, callpair], safepoint.interval: [1ms, 10ms], seed: 1..2}\n")
	dir := filepath.Join(t.TempDir(), "o")
	code, _, stderr := sweepMain(t, "sweep", grid, "--out", dir, "--jobs", "2")
	require.Equal(t, 0, code, stderr)

	var out, errOut bytes.Buffer
	cmd := exec.Command(py, script, dir)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	require.NoError(t, cmd.Run(), errOut.String())
	for _, f := range []string{"fig-overlap.png", "fig-top.png", "fig-cost.png"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err, f)
		assert.True(t, bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")), "%s is a PNG", f)
	}
	// The printed table: a row per (workload, interval, profile).
	for _, s := range []string{"hotcold", "callpair", "1000000", "10000000", "safepoint", "async"} {
		assert.Contains(t, out.String(), s)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{t.TempDir()}, "runs.csv: no such file"},
		{[]string{dir, "--x", "cpus"}, "--x cpus: not an axis of the grid (axes: workload, safepoint.interval)"},
	} {
		cmd := exec.Command(py, append([]string{script}, c.args...)...)
		var e bytes.Buffer
		cmd.Stderr = &e
		err := cmd.Run()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "%v", c.args)
		assert.Equal(t, 2, ee.ExitCode(), "%v", c.args)
		assert.Contains(t, e.String(), c.want)
	}
}
