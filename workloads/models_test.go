package workloads

import (
	"os"
	"path/filepath"
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
