package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEverySubcommandHelp asks every subcommand for its help both ways:
// each exits 0 with its usage on stdout and nothing on stderr, as
// `profsim run --help` and `profsim sweep --help` do.
func TestEverySubcommandHelp(t *testing.T) {
	for _, tc := range []struct {
		cmd  []string
		want string // in the first line of stdout
	}{
		{[]string{"run"}, "profsim run"},
		{[]string{"init"}, "profsim init"},
		{[]string{"timeline"}, "profsim timeline"},
		{[]string{"report"}, "profsim report"},
		{[]string{"workloads"}, "profsim workloads"},
		{[]string{"samplers"}, "profsim samplers"},
		{[]string{"study"}, "profsim study"},
		{[]string{"sweep"}, "Usage:"},
		{[]string{"sweep", "merge"}, "Usage:"},
		{[]string{"sweep", "status"}, "Usage:"},
		{[]string{"import"}, "profsim import"},
	} {
		for _, h := range []string{"-h", "--help"} {
			name := strings.Join(tc.cmd, " ") + " " + h
			code, out, errOut := runMain(append(append([]string{}, tc.cmd...), h)...)
			assert.Equal(t, 0, code, name)
			assert.Empty(t, errOut, name)
			first, _, _ := strings.Cut(out, "\n")
			assert.Contains(t, first, tc.want, name)
		}
	}
	// timeline and report take the run flags too: their help shows them.
	for _, cmd := range []string{"timeline", "report"} {
		_, out, _ := runMain(cmd, "--help")
		assert.Contains(t, out, "Run flags (as 'profsim run'):", cmd)
		assert.Contains(t, out, "-workload", cmd)
	}
	// A run flag's value that happens to read -h is not a request for help.
	code, _, errOut := runMain("timeline", "--workload", "-h", "--window", "1ms")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--out FILE.svg is required")
}
