package main

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTimelineWritesSVGAndPNG(t *testing.T) {
	dir := t.TempDir()
	svg, pn := filepath.Join(dir, "t.svg"), filepath.Join(dir, "t.png")
	code, out, errOut := runMain("timeline", "--workload", "hotcold", "--duration", "30ms",
		"--sampler", "safepoint,interval=1ms", "--from", "20ms", "--window=5ms", "--polls", "--out", svg, "--png", pn)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "wrote the timeline of hotcold from 20ms to 25ms (1 threads")
	b, err := os.ReadFile(svg)
	require.NoError(t, err)
	assert.Contains(t, string(b), "<svg")
	fh, err := os.Open(pn)
	require.NoError(t, err)
	defer fh.Close()
	_, err = png.Decode(fh)
	require.NoError(t, err)
}

func TestTimelineRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "t.svg")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--window", "5ms"}, "--out FILE.svg is required"},
		{[]string{"--out", out}, "--window is required"},
		{[]string{"--out", out, "--window", "0s"}, "want a duration > 0"},
		{[]string{"--out", out, "--window", "5ms", "--from", "-1ms"}, "want a duration ≥ 0"},
		{[]string{"--out", out, "--window", "5ms", "--from", "40ms"}, "not inside the run's 0 to 30ms"},
		{[]string{"--out", out, "--window", "5ms", "--format", "json"}, "--format is a run flag about printing"},
		{[]string{"--out", out, "--window", "5ms", "--window", "6ms"}, "--window given twice"},
		{[]string{"--out", out, "--window"}, "--window needs a value"},
		{[]string{"--out", out, "--window", "5ms", "--polls=maybe"}, "want true or false"},
		{[]string{"--out", filepath.Join(dir, "no", "t.svg"), "--window", "5ms"}, "t.svg"},
	} {
		args := append([]string{"timeline", "--workload", "hotcold", "--duration", "30ms"}, c.args...)
		code, _, errOut := runMain(args...)
		assert.Equal(t, 2, code, "%v: %s", c.args, errOut)
		assert.Contains(t, errOut, c.want, "%v", c.args)
		assert.False(t, strings.Contains(errOut, "panic"))
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing written")
}
