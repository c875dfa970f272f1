package report

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWrapNote(t *testing.T) {
	text := "note: " + strings.Repeat("word ", 60) + strings.Repeat("x", 120)
	got := wrapNote(text)
	lines := strings.Split(got, "\n")
	require.Greater(t, len(lines), 2)
	for i, l := range lines[:len(lines)-1] {
		assert.LessOrEqual(t, len(l), noteWidth, "line %d", i)
		if i > 0 {
			assert.True(t, strings.HasPrefix(l, "      word"), "line %d indented: %q", i, l)
		}
	}
	assert.Equal(t, "      "+strings.Repeat("x", 120), lines[len(lines)-1], "a word longer than a line stays whole")
	assert.Equal(t, strings.Fields(text), strings.Fields(got))
}
