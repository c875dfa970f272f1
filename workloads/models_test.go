package workloads

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/program"
)

// The imported models load and validate; each names itself as its file.
func TestModelsLoad(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("models", "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		p, err := program.Load(f)
		require.NoError(t, err, f)
		assert.Equal(t, filepath.Base(f), p.Name+".yaml")
		assert.NotEmpty(t, p.Methods, f)
		st, err := os.Stat(f)
		require.NoError(t, err)
		assert.Less(t, st.Size(), int64(maxModelBytes), "%s: keep models small enough to review", f)
	}
}

// maxModelBytes: a model of a few hundred methods is a few hundred KB
// (antlr-real: 553 methods, 300 KB); a model far beyond that belongs in a
// release artifact, not the repository.
const maxModelBytes = 2 << 20

// Each model is a built-in workload by name, listed by Models, and not in
// Names (which tests and studies iterate).
func TestModelsAreBuiltins(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("models", "*.yaml"))
	require.NoError(t, err)
	var want []string
	for _, f := range files {
		want = append(want, strings.TrimSuffix(filepath.Base(f), ".yaml"))
	}
	assert.Equal(t, want, Models())
	for _, m := range Models() {
		assert.True(t, IsBuiltin(m), m)
		assert.NotContains(t, Names(), m)
		p, err := Get(m)
		require.NoError(t, err, m)
		assert.Equal(t, m, p.Name)
	}
	_, err = Get("models/xalan-real")
	assert.Error(t, err, "a path is not a built-in name")
}
