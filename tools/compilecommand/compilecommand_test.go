// Package compilecommand checks profsim's -XX:CompileCommand model against
// the installed JVM: CompileCommands.java and its twin commands.yaml run
// under the same options, and C2's inlining and exclusion decisions
// (-XX:+PrintInlining, -XX:+PrintCompilation) must equal the model's. The
// test skips without java and javac, and under -short.
package compilecommand

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decisions are what one run decided for the two call sites in work and
// whether small was excluded from compilation.
type decisions struct {
	SmallInlined, BigInlined, SmallExcluded bool
}

// cases are the options both VMs run with (the real JVM also gets
// -XX:-TieredCompilation -Xbatch: C2 alone, compiling synchronously).
var cases = []string{
	"",
	"-XX:CompileCommand=dontinline,CompileCommands::small",
	"-XX:CompileCommand=inline,CompileCommands::big",
	"-XX:CompileCommand=exclude,CompileCommands::small",
	"-XX:CompileCommand=dontinline,CompileCommands::small -XX:CompileCommand=inline,CompileCommands::small",
	"-XX:CompileCommand=inline,CompileCommands::small -XX:CompileCommand=dontinline,CompileCommands::small",
	"-XX:CompileCommand=exclude,CompileCommands::small -XX:CompileCommand=inline,CompileCommands::small",
	"-XX:CompileCommand=dontinline,CompileCommands.* -XX:CompileCommand=dontinline,CompileCommands::small,false",
	"-XX:-Inline -XX:CompileCommand=inline,CompileCommands::big",
	"-XX:CompileCommand=dontinline,*Commands.sm*",
	"-XX:CompileCommand=dontinline,CompileCommands.small(I)",
	"-XX:CompileCommand=dontinline,CompileCommands.small(J)",
	"-XX:CompileCommand=dontinline,CompileCommands,small",
}

var verdict = regexp.MustCompile(`@ (\d+) +CompileCommands::(small|big) \(\d+ bytes\) +(.*)$`)

// hotspot runs the Java twin and reads C2's decisions for work's call
// sites (every compilation of work must agree).
func hotspot(t *testing.T, classes, flags string) decisions {
	args := append([]string{"-XX:-TieredCompilation", "-Xbatch", "-XX:+UnlockDiagnosticVMOptions",
		"-XX:+PrintCompilation", "-XX:+PrintInlining"}, strings.Fields(flags)...)
	out, err := exec.Command("java", append(args, "-cp", classes, "CompileCommands")...).CombinedOutput()
	require.NoError(t, err, "%s\n%s", flags, out)
	var d decisions
	seen := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "### Excluding compile: static CompileCommands::small") {
			d.SmallExcluded = true
		}
		m := verdict.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		msg := strings.TrimSpace(m[3])
		if prev, ok := seen[m[2]]; ok {
			require.Equal(t, prev, msg, "%s: every compilation of work decides %s alike", flags, m[2])
		}
		seen[m[2]] = msg
		inlined := strings.HasPrefix(msg, "inline") || strings.HasPrefix(msg, "force inline")
		if m[2] == "small" {
			d.SmallInlined = inlined
		} else {
			d.BigInlined = inlined
		}
	}
	require.Len(t, seen, 2, "%s: C2 compiled work and printed both call sites\n%s", flags, out)
	t.Logf("HotSpot %-100q small: %-32s big: %s", flags, seen["small"], seen["big"])
	return d
}

// model runs commands.yaml under the hotspot17 preset and the same options.
func model(t *testing.T, p *program.Program, flags string) decisions {
	cfg := harness.MustPresetConfig("hotspot17")
	require.NoError(t, harness.ApplyJVMFlags(&cfg, flags))
	cfg.Sim.Duration = 100 * sim.Millisecond
	cfg.GC = nil
	out, err := harness.Run(p, cfg)
	require.NoError(t, err, flags)
	work, ok := out.JIT.Method("CompileCommands.work")
	require.True(t, ok)
	small, _ := out.JIT.Method("CompileCommands.small")
	c := out.JIT.CompiledCode(work)
	require.NotNil(t, c, "%s: work is compiled", flags)
	var d decisions
	for pc, in := range c.Instrs {
		if in.Op != sim.OpCall || c.Inline == nil || len(c.Inline[pc]) == 0 {
			continue
		}
		if in.A == small {
			d.SmallInlined = true
		} else {
			d.BigInlined = true
		}
	}
	d.SmallExcluded = strings.Contains(out.JIT.Explain(), "CompileCommands.small: excluded by CompileCommand")
	return d
}

func TestCompileCommandsMatchHotSpot(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the JVM")
	}
	for _, tool := range []string{"java", "javac"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: this test compares the model with a real JVM", tool)
		}
	}
	classes := t.TempDir()
	out, err := exec.Command("javac", "-d", classes, "CompileCommands.java").CombinedOutput()
	require.NoError(t, err, "%s", out)
	src, err := os.ReadFile(filepath.Join(".", "commands.yaml"))
	require.NoError(t, err)
	p, err := program.Parse(src, program.YAML)
	require.NoError(t, err)
	for _, flags := range cases {
		assert.Equal(t, hotspot(t, classes, flags), model(t, p, flags), flags)
	}
}
