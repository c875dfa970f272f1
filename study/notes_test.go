package study

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every notes/NAME.md belongs to a registered experiment and gives it
// one-line notes, a paragraph each; an experiment without one panics.
// That each table prints its notes unchanged is the table goldens' job.
func TestDiscussionNotes(t *testing.T) {
	files, err := fs.Glob(notes, "notes/*.md")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(f, "notes/"), ".md")
		_, ok := Lookup(name)
		assert.True(t, ok, "%s: no experiment %s", f, name)
		ps := discussion(name)
		require.NotEmpty(t, ps, f)
		for _, p := range ps {
			assert.NotEmpty(t, p, f)
			assert.NotContains(t, p, "\n", f)
			assert.Equal(t, strings.TrimSpace(p), p, f)
		}
	}
	assert.Panics(t, func() { discussion("no-such-experiment") })
}
