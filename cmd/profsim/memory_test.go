package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/profsim/profsim/harness"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
)

// TestProgramHashIsOfTheJSON: programHash, which hashes a method at a
// time, is the SHA-256 of the program's whole canonical JSON, for every
// built-in workload and for names that look like the methods key.
func TestProgramHashIsOfTheJSON(t *testing.T) {
	var progs []*program.Program
	for _, name := range append(workloads.Names(), workloads.Models()...) {
		p, err := workloads.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		progs = append(progs, p)
	}
	odd := *progs[0]
	odd.Name = `x","methods":[],"y":"`
	odd.Description = `"methods":[]`
	one := *progs[0]
	one.Methods = one.Methods[:1]
	none := *progs[0]
	none.Methods = nil
	progs = append(progs, &odd, &one, &none)
	for _, p := range progs {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if got, want := harness.ProgramHash(p), hex.EncodeToString(sum[:]); got != want {
			t.Errorf("%s: programHash %s, SHA-256 of its JSON %s", p.Name, got, want)
		}
	}
}

// A workload file whose program would not fit --max-memory is refused
// before it is read, naming the file, the estimate and the limit: here
// 80 MiB of NUL bytes (a sparse file), which, read, would be a YAML
// syntax error.
func TestWorkloadOverMemoryRefusedBeforeRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.yaml")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(80<<20))
	require.NoError(t, f.Close())
	code, _, errOut := runMain("run", "--workload", path, "--max-input-size", "1GiB", "--max-memory", "1GiB")
	assert.Equal(t, 2, code)
	want := fmt.Sprintf("workload %s: its program would take an estimated 1200MiB of memory (%d bytes for each of the file's 80MiB), over --max-memory 1GiB (raise it with --max-memory SIZE)",
		path, sim.WorkloadBytesPerByte)
	assert.Contains(t, errOut, want)

	// Within the limit, the file is read (and its NULs refused).
	code, _, errOut = runMain("run", "--workload", path, "--max-input-size", "1GiB", "--max-memory", "2GiB")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "YAML syntax")
}

// A sweep point whose workload is over its --max-memory fails without
// the file being read, as its run would; the other points run.
func TestSweepPointOverMemoryFailsBeforeRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "huge.yaml")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(80<<20))
	require.NoError(t, f.Close())
	grid := filepath.Join(dir, "grid.yaml")
	require.NoError(t, os.WriteFile(grid, []byte("run: {duration: 2ms, max-input-size: 1GiB, max-memory: 1GiB}\ngrid: {workload: [hotcold, huge.yaml]}\n"), 0o644))
	out := filepath.Join(dir, "out")
	code, _, errOut := runMain("sweep", grid, "--out", out)
	assert.Equal(t, 1, code, errOut)
	rows := readCSV(t, filepath.Join(out, "runs.csv"))
	var failed []string
	for _, r := range rows {
		if r["status"] == "failed" {
			failed = append(failed, r["error"])
		}
	}
	require.Len(t, failed, 1)
	assert.Contains(t, failed[0], "its program would take an estimated 1200MiB of memory")
}
