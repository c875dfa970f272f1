package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/program"
)

// TestInitTemplateRuns: `profsim init NAME` writes NAME.yaml, which
// `profsim run` runs as it is, in compiled code (no interpreted note).
func TestInitTemplateRuns(t *testing.T) {
	t.Chdir(t.TempDir())
	code, out, errOut := runMain("init", "my-lab")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "my-lab.yaml")
	assert.Contains(t, out, "profsim run --workload my-lab.yaml")
	src, err := os.ReadFile("my-lab.yaml")
	require.NoError(t, err)
	text := string(src)
	for _, want := range []string{"name: my-lab", "class: MyLab", "- loop:", "- call:", "threads:", "join: true", "CompileThreshold"} {
		assert.Contains(t, text, want)
	}
	code, out, errOut = runMain("run", "--workload", "my-lab.yaml", "--duration", "300ms", "--samplers", "truth,safepoint")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "workload my-lab")
	assert.Contains(t, out, "MyLab.step")
	assert.Contains(t, out, "MyLab.main:3 → MyLab.step")
	assert.NotContains(t, out, "note:", "the template runs compiled code and spawns nothing")

	// The statements shown in comments are valid once uncommented.
	un := strings.ReplaceAll(text, "      #   - ", "      - ")
	require.NotEqual(t, text, un)
	p, err := program.Parse([]byte(un), program.YAML)
	require.NoError(t, err)
	assert.Len(t, p.Methods[1].Body, 6)
}

func TestInitRefusesToOverwrite(t *testing.T) {
	t.Chdir(t.TempDir())
	require.NoError(t, os.WriteFile("lab.yaml", []byte("mine"), 0o644))
	code, out, errOut := runMain("init", "lab")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "lab.yaml exists")
	got, err := os.ReadFile("lab.yaml")
	require.NoError(t, err)
	assert.Equal(t, "mine", string(got), "untouched")
}

func TestInitBadNames(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "NAME is required"},
		{[]string{""}, "NAME is empty"},
		{[]string{"a", "b"}, `unexpected argument "b"`},
		{[]string{"lab.yaml"}, "without the extension (profsim init lab writes lab.yaml)"},
		{[]string{"../lab"}, "must start with a letter"},
		{[]string{"9lives"}, "must start with a letter"},
		{[]string{"dir/lab"}, `contains '/'`},
		{[]string{"my lab"}, `contains ' '`},
		{[]string{"a;b"}, `contains ';'`},
		{[]string{strings.Repeat("a", maxInitName+1)}, "over 64"},
	} {
		code, out, errOut := runMain(append([]string{"init"}, c.args...)...)
		assert.Equal(t, 2, code, "%q", c.args)
		assert.Empty(t, out, "%q", c.args)
		assert.Contains(t, errOut, c.want, "%q", c.args)
	}
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	assert.Empty(t, entries, "no file written")
	code, out, _ := runMain("init", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "Usage: profsim init NAME")
}
