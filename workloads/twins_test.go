package workloads

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each fidelity twin (tools/fidelity) is a built-in workload by name,
// listed by Twins, named as its file, and not in Names.
func TestTwinsAreBuiltins(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("fidelity", "*.yaml"))
	require.NoError(t, err)
	var want []string
	for _, f := range files {
		want = append(want, strings.TrimSuffix(filepath.Base(f), ".yaml"))
	}
	sort.Strings(want) // by name: "fid-hotcold" before "fid-hotcold-noinline"
	assert.Equal(t, []string{"fid-blockhalf", "fid-calledges", "fid-deeprec", "fid-hotcold", "fid-hotcold-noinline", "fid-oversub", "fid-returnpoll", "fid-stubcopy", "fid-stubcopy-inline"}, want)
	assert.Equal(t, want, Twins())
	for _, n := range Twins() {
		assert.True(t, IsBuiltin(n), n)
		assert.NotContains(t, Names(), n)
		p, err := Get(n)
		require.NoError(t, err, n)
		assert.Equal(t, n, p.Name)
	}
	assert.False(t, IsBuiltin("fidelity/fid-hotcold"))
	_, err = Get("fidelity/fid-hotcold")
	assert.Error(t, err, "a path is not a built-in name")
}

// The studies' programs are built-ins named by their files, with a
// description, apart from Names.
func TestExperimentsAreBuiltins(t *testing.T) {
	assert.Equal(t, []string{"x2-staggered", "x4-pending", "x5-native"}, Experiments())
	for _, n := range Experiments() {
		assert.True(t, IsBuiltin(n), n)
		assert.NotContains(t, Names(), n)
		p, err := Get(n)
		require.NoError(t, err, n)
		assert.Equal(t, n, p.Name)
		assert.NotEmpty(t, p.Description, n)
	}
	assert.False(t, IsBuiltin("experiments/x4-pending"))
}
