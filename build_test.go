package profsim

import (
	"crypto/sha256"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every Go file a profsim binary can be built from is in the identity: a
// package added at a depth the embed patterns miss would let two builds
// of different code share their run keys.
func TestBuildIDCoversEverySource(t *testing.T) {
	var onDisk []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "tools", "testdata", ".git", "out":
				return filepath.SkipDir
			}
			if strings.HasPrefix(d.Name(), ".") && path != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			onDisk = append(onDisk, filepath.ToSlash(path))
		}
		return nil
	})
	require.NoError(t, err)
	embedded := SourceFiles()
	for _, f := range onDisk {
		assert.Contains(t, embedded, f, "%s is not in the build identity: widen the go:embed patterns of build.go", f)
	}
	assert.Contains(t, embedded, "go.sum")
	assert.Contains(t, embedded, "sim/exec.go")
	assert.Contains(t, embedded, "cmd/profsim/main.go")
	for _, f := range embedded {
		assert.False(t, strings.HasSuffix(f, "_test.go"), "%s: tests do not make results", f)
	}
}

func TestBuildIDIsStableAndShort(t *testing.T) {
	id := BuildID()
	assert.Len(t, id, 16)
	assert.Equal(t, id, BuildID())
}

// One changed byte of one source, or a source added, changes the
// digest; a test file does not.
func TestHashSourcesSeesEveryByte(t *testing.T) {
	digest := func(m fstest.MapFS) string {
		h := sha256.New()
		require.NoError(t, hashSources(h, m))
		return string(h.Sum(nil))
	}
	base := fstest.MapFS{
		"sim/a.go": {Data: []byte("package sim\n\nconst x = 1\n")},
		"go.mod":   {Data: []byte("module m\n")},
	}
	changed := fstest.MapFS{
		"sim/a.go": {Data: []byte("package sim\n\nconst x = 2\n")},
		"go.mod":   {Data: []byte("module m\n")},
	}
	added := fstest.MapFS{
		"sim/a.go": base["sim/a.go"], "go.mod": base["go.mod"],
		"sim/b.go": {Data: []byte("package sim\n")},
	}
	// A file's bytes moved to its neighbour: the lengths tell them apart.
	moved := fstest.MapFS{
		"sim/a.go": {Data: []byte("package sim\n\nconst x = 1")},
		"sim/b.go": {Data: []byte("\n")},
		"go.mod":   base["go.mod"],
	}
	withTest := fstest.MapFS{
		"sim/a.go": base["sim/a.go"], "go.mod": base["go.mod"],
		"sim/a_test.go": {Data: []byte("package sim\n")},
	}
	assert.NotEqual(t, digest(base), digest(changed))
	assert.NotEqual(t, digest(base), digest(added))
	assert.NotEqual(t, digest(added), digest(moved))
	assert.Equal(t, digest(base), digest(withTest))
}
