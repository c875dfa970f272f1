package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStudyStoreFlagErrors(t *testing.T) {
	empty := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "1/2"}, "--shard needs --store DIR"},
		{[]string{"--from", empty, "--store", empty}, "does not combine with --store or --shard"},
		{[]string{"--from", empty}, "is not a study store"},
		{[]string{"--store", empty, "--shard", "3/2"}, "want 1 ≤ I ≤ N"},
		{[]string{"--store", empty, "--shard", "1/2", "--shard-count", "2"}, "with --shard auto"},
	} {
		code, out, errOut := runMain(append([]string{"study", "m1-listing1"}, c.args...)...)
		assert.Equal(t, 2, code, "%v: %s", c.args, errOut)
		assert.Empty(t, out)
		assert.Contains(t, errOut, c.want, c.args)
	}
}

// TestStudyShardsAndFrom runs an experiment in two shards into one store,
// each as its own process (the study's run cache lives as long as one),
// then renders it --from the store: the files are those of one process
// that made every run.
func TestStudyShardsAndFrom(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	study := func(args ...string) (string, error) {
		out, err := exec.Command(bin, append([]string{"study", "m3-disagreement", "--seeds", "1"}, args...)...).CombinedOutput()
		return string(out), err
	}
	out, err := study("--store", store, "--shard", "1/2", "--out", filepath.Join(dir, "s1"))
	require.NoError(t, err, out)
	assert.Contains(t, out, "the other shards' runs are not all in "+store)
	assert.NoDirExists(t, filepath.Join(dir, "s1"), "an incomplete shard writes no tables")

	out, err = study("--from", store, "--out", filepath.Join(dir, "early"))
	require.Error(t, err, out)
	assert.Equal(t, 1, err.(*exec.ExitError).ExitCode())
	assert.Contains(t, out, "runs missing: make them with --store "+store)

	out, err = study("--store", store, "--shard", "2/2", "--out", filepath.Join(dir, "s2"))
	require.NoError(t, err, out)
	out, err = study("--from", store, "--out", filepath.Join(dir, "from"))
	require.NoError(t, err, out)
	assert.Contains(t, out, "0 runs made")
	out, err = study("--out", filepath.Join(dir, "one"))
	require.NoError(t, err, out)
	for _, name := range dirNames(t, filepath.Join(dir, "one")) {
		want, err := os.ReadFile(filepath.Join(dir, "one", name))
		require.NoError(t, err)
		for _, d := range []string{"s2", "from"} {
			got, err := os.ReadFile(filepath.Join(dir, d, name))
			require.NoError(t, err)
			assert.Equal(t, want, got, "%s/%s", d, name)
		}
	}
}
