package harness

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parseSpec parses `profsim run`'s run-description flags into a Spec.
func parseSpec(t *testing.T, args ...string) (Spec, error) {
	t.Helper()
	s := DefaultSpec()
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	b := s.Bind(fs)
	if err := fs.Parse(args); err != nil {
		return s, err
	}
	return s, b.Finish()
}

// describe runs s and returns its Description and outcome.
func describe(t *testing.T, s Spec) (*Description, *Outcome) {
	t.Helper()
	p, err := workloads.Get(s.Workload)
	require.NoError(t, err)
	hash := ProgramHash(p)
	require.NoError(t, s.Intervene(p))
	cfg, err := s.Config()
	require.NoError(t, err)
	out, err := Run(p, cfg)
	require.NoError(t, err)
	return s.Describe(cfg, out.Names, out.Samplers, WorkloadInfo{Name: p.Name, Ref: s.Workload, SHA256: hash}), out
}

// A Spec's Args, parsed back, describe the same run: same Key, same
// profiles, whatever shorthands, JVM flags and settings the first Spec
// was given them by.
func TestSpecArgsReproduceTheRun(t *testing.T) {
	s, err := parseSpec(t, "--workload", "hotcold", "--duration", "40ms", "--seed", "7", "--vm", "hotspot6",
		"--inline=false", "--jvm-flags", "-XX:MaxInlineSize=20", "--set", "sim.time_slice=2ms",
		"--samplers", "async,safepoint", "--sampler", "jfr:fast,period=1ms", "--inject", "HotCold.hot:3", "--skip", "5ms",
		"--slowdown", "HotCold.cold:2-2:1.5", "--slowdown", "*:2")
	require.NoError(t, err)
	d, out := describe(t, s)
	assert.Equal(t, []string{"HotCold.cold:2-2:1.5", "*:2"}, d.Slowdowns)
	require.Equal(t, "run", d.Args[0])
	again, err := parseSpec(t, d.Args[1:]...)
	require.NoError(t, err)
	d2, out2 := describe(t, again)
	assert.Equal(t, d.Key(), d2.Key(), "the replayed run has the same key")
	assert.Equal(t, d.Args, d2.Args)
	assert.Equal(t, "false", d2.Settings["jit.inline"], "a shorthand resolved into its setting")
	assert.Equal(t, "20", d2.Settings["jit.max_inline_size"], "a JVM flag resolved into its setting")
	require.Equal(t, out.Names, out2.Names)
	for _, name := range out.Names {
		assert.Equal(t, out.Profiles[name].Samples, out2.Profiles[name].Samples, "profile %s", name)
	}
}

// Equal runs asked for in different words share a Key; any setting
// that changes the run changes it.
func TestSpecKeyIsTheResolvedRun(t *testing.T) {
	key := func(args ...string) string {
		s, err := parseSpec(t, append([]string{"--workload", "hotcold"}, args...)...)
		require.NoError(t, err)
		cfg, err := s.Config()
		require.NoError(t, err)
		names, resolved, err := cfg.PlanSamplers()
		require.NoError(t, err)
		return s.Describe(cfg, names, resolved, WorkloadInfo{Name: "HotCold", Ref: s.Workload, SHA256: "x"}).Key()
	}
	base := key("--samplers", "async")
	assert.Equal(t, base, key("--samplers", "async", "--inline=true"), "--inline=true is the preset's")
	assert.Equal(t, base, key("--sampler", "async", "--set", "jit.inline=true"))
	assert.Equal(t, key("--inline=false", "--samplers", "async"), key("--jvm-flags", "-XX:-Inline", "--samplers", "async"),
		"a shorthand and its JVM flag")
	for _, other := range [][]string{
		{"--samplers", "async", "--seed", "2"},
		{"--samplers", "async", "--inline=false"},
		{"--samplers", "async", "--cpus", "2"},
		{"--sampler", "async,interval=1ms"},
		{"--samplers", "async", "--truth", "methods"},
		{"--samplers", "async", "--slowdown", "*:1"},
		{"--samplers", "async", "--slowdown", "*:2"},
	} {
		assert.NotEqual(t, base, key(other...), "%v", other)
	}
}

// Check names the flag at fault.
func TestSpecCheckNamesTheFlag(t *testing.T) {
	for _, c := range []struct {
		edit func(*Spec)
		want string
	}{
		{func(s *Spec) { s.Workload = "" }, "--workload is required"},
		{func(s *Spec) { s.Duration = 0 }, "--duration 0s must be > 0"},
		{func(s *Spec) { s.Skip = s.Duration }, "--skip"},
		{func(s *Spec) { s.CPUs = 0 }, "--cpus 0 must be in [1, 1024]"},
		{func(s *Spec) { s.Truth = "all" }, `--truth "all"`},
		{func(s *Spec) { s.Samplers = []string{"async", "async"} }, `"async" listed twice`},
		{func(s *Spec) { s.Samplers = []string{"asink"} }, "--sampler"},
		{func(s *Spec) { s.Mode, s.Samplers = samplers.Costed, []string{"truth"} }, "--mode costed needs a sampler"},
		{func(s *Spec) { s.BaselineOnly, s.Sets = true, []param.KV{{Key: "jit.inline", Value: "false"}} }, "--set jit.inline configures the optimizing JIT, which --baseline-only turns off"},
		{func(s *Spec) { s.Injections = []string{"hot"} }, "--inject"},
		{func(s *Spec) { s.SlowDowns = []string{"HotCold.hot:0.5"} }, `--slowdown "HotCold.hot:0.5": factor must be a finite number ≥ 1`},
		{func(s *Spec) { s.SlowDowns = []string{"*:1-2:2"} }, "--slowdown \"*:1-2:2\": a line range needs one method"},
	} {
		s := DefaultSpec()
		s.Workload = "hotcold"
		c.edit(&s)
		err := s.Check()
		if assert.Error(t, err, c.want) {
			assert.Contains(t, err.Error(), c.want)
		}
	}
	s := DefaultSpec()
	s.Workload = "hotcold"
	assert.NoError(t, s.Check())
}

// DefaultSpec is `profsim run --workload W`: the hotspot17 preset.
func TestDefaultSpecIsHotSpot17(t *testing.T) {
	s := DefaultSpec()
	s.Workload, s.Duration = "hotcold", 10*time.Millisecond
	cfg, err := s.Config()
	require.NoError(t, err)
	want := MustPresetConfig("hotspot17")
	assert.Equal(t, want.JIT, cfg.JIT)
	assert.Equal(t, want.Safepoint, cfg.Safepoint)
	assert.Equal(t, []string{"truth"}, func() []string { sp, _ := parseSpec(t, "--workload", "hotcold"); return sp.Samplers }())
}

// DefaultConfig is DefaultSpec's run, field for field: one default VM
// (hotspot17) for the library and the command line.
func TestDefaultConfigIsDefaultSpecs(t *testing.T) {
	cfg, err := DefaultSpec().Config()
	require.NoError(t, err)
	assert.Equal(t, cfg, DefaultConfig())
	assert.Equal(t, MustPresetConfig(DefaultVM), DefaultConfig())
	assert.EqualValues(t, 1000, DefaultConfig().JIT.StripMiningIter, "hotspot17 strip-mines counted loops")
}

// A preset name from input gets an error naming the valid ones; a name
// in the code that is none is a programming error.
func TestPresetConfigRefusesAnUnknownName(t *testing.T) {
	_, err := PresetConfig("hotspot8")
	assert.EqualError(t, err, `unknown VM preset "hotspot8"; did you mean "hotspot6"? (valid: hotspot17, hotspot25, hotspot6, jikes, j9)`)
	assert.Panics(t, func() { MustPresetConfig("hotspot8") })
}

// --inline-from and --recompile-at reach the run, its Description and
// its Args.
func TestSpecInlineFromAndRecompileAt(t *testing.T) {
	s, err := parseSpec(t, "--workload", "callpair", "--vm", "jikes", "--duration", "60ms",
		"--samplers", "cbs", "--inline-from", "cbs", "--recompile-at", "30ms")
	require.NoError(t, err)
	cfg, err := s.Config()
	require.NoError(t, err)
	assert.Equal(t, "cbs", cfg.InlineFrom)
	assert.Equal(t, 30*sim.Millisecond, cfg.RecompileAt)
	d, _ := describe(t, s)
	assert.Equal(t, "cbs", d.InlineFrom)
	assert.Equal(t, "30ms", d.RecompileAt)
	again, err := parseSpec(t, d.Args[1:]...)
	require.NoError(t, err)
	d2, _ := describe(t, again)
	assert.Equal(t, d.Key(), d2.Key())
	plain, err := parseSpec(t, "--workload", "callpair", "--vm", "jikes", "--duration", "60ms", "--samplers", "cbs")
	require.NoError(t, err)
	d3, _ := describe(t, plain)
	assert.NotEqual(t, d.Key(), d3.Key(), "profile-directed inlining is another run")
	assert.NotContains(t, d3.Args, "--inline-from")

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--samplers", "async", "--inline-from", "async"}, "--inline-from sampler async is not a call-graph source (not a samplers.CallGraphSource; those registered: cbs, jikes-timer)"},
		{[]string{"--samplers", "async", "--inline-from", "cbs"}, `--inline-from "cbs" is not an attached call-graph sampler (want none, exact or one of the run's samplers: async)`},
		{[]string{"--samplers", "cbs", "--inline-from", "cbs", "--skip", "5ms"}, "--skip: the JIT's inlining reads sampler cbs (--inline-from), which would start only at 5ms"},
		{[]string{"--recompile-at", "60ms"}, "--recompile-at 60ms must be ≥ 0 and before --duration 60ms"},
		{[]string{"--vm", "hotspot17", "--baseline-only", "--inline-from", "exact"}, "--inline-from configures the optimizing JIT"},
	} {
		_, err := parseSpec(t, append([]string{"--workload", "callpair", "--vm", "jikes", "--duration", "60ms"}, c.args...)...)
		if assert.Error(t, err, "%v", c.args) {
			assert.Contains(t, err.Error(), c.want)
		}
	}
}

// Load reads the Spec's workload within its limits; what the user can fix
// is an InputError, naming the workload and the problem.
func TestSpecLoad(t *testing.T) {
	s := DefaultSpec()
	s.Workload, s.Injections = "hotcold", []string{"HotCold.hot:3"}
	p, hash, err := s.Load()
	require.NoError(t, err)
	plain, err := workloads.Get("hotcold")
	require.NoError(t, err)
	assert.Equal(t, ProgramHash(plain), hash, "the hash is the program's before the interventions")
	assert.NotEqual(t, ProgramHash(p), hash, "the injection applied")

	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	require.NoError(t, os.WriteFile(big, make([]byte, 2048), 0o644))
	for _, c := range []struct {
		edit func(*Spec)
		want string
	}{
		{func(s *Spec) { s.Workload = "hotcld" }, `unknown workload "hotcld": did you mean "hotcold"?`},
		{func(s *Spec) { s.Workload = dir }, "not a regular file (a directory)"},
		{func(s *Spec) { s.Workload, s.MaxInput = big, 1024 }, "over the input limit of 1KiB (raise it with --max-input-size SIZE)"},
		{func(s *Spec) { s.Workload, s.MaxMemory = big, 1024 }, "over --max-memory 1KiB"},
		{func(s *Spec) { s.Injections = []string{"HotCold.nothere:3"} }, "nothere"},
		{func(s *Spec) { s.SlowDowns = []string{"HotCold.hot:2-3:2"} }, "--slowdown HotCold.hot:2-3:2: HotCold.hot has lines 1-1"},
		{func(s *Spec) { s.SlowDowns = []string{"HotCold.main:2"} }, "--slowdown HotCold.main:2: no work or native statement to slow in HotCold.main"},
	} {
		s := DefaultSpec()
		s.Workload = "hotcold"
		c.edit(&s)
		_, _, err := s.Load()
		var ie *InputError
		if assert.ErrorAs(t, err, &ie, c.want) {
			assert.Contains(t, err.Error(), c.want)
		}
	}
}

// --iterations regenerates a stand-in, --loop-scale scales a program's
// entry loops; both are in the Description and replayed by its Args, and
// refused where they cannot apply.
func TestSpecIterationsAndLoopScale(t *testing.T) {
	s, err := parseSpec(t, "--workload", "antlr", "--iterations", "40", "--duration", "1s")
	require.NoError(t, err)
	p, hash, err := s.Load()
	require.NoError(t, err)
	plain, err := workloads.Get("antlr")
	require.NoError(t, err)
	assert.Equal(t, ProgramHash(plain), hash, "the hash is the workload's as read")
	assert.NotEqual(t, ProgramHash(plain), ProgramHash(p), "regenerated with 40 iterations")
	cfg, err := s.Config()
	require.NoError(t, err)
	out, err := Run(p, cfg)
	require.NoError(t, err)
	assert.Less(t, out.Result.End, cfg.Sim.Duration, "40 units of work end within a second")
	d := s.Describe(cfg, out.Names, out.Samplers, WorkloadInfo{Name: p.Name, Ref: s.Workload, SHA256: hash})
	assert.Equal(t, 40, d.Iterations)
	assert.Contains(t, strings.Join(d.Args, " "), "--iterations 40")

	m, err := parseSpec(t, "--workload", "hsqldb-real", "--loop-scale", "0.5")
	require.NoError(t, err)
	half, _, err := m.Load()
	require.NoError(t, err)
	full, err := workloads.Get("hsqldb-real")
	require.NoError(t, err)
	assert.NotEqual(t, ProgramHash(full), ProgramHash(half), "the entry loop runs half its trips")
	d2 := m.Describe(cfg, nil, nil, WorkloadInfo{Ref: m.Workload, SHA256: "x"})
	assert.Contains(t, strings.Join(d2.Args, " "), "--loop-scale 0.5")

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--workload", "hotcold", "--iterations", "5"}, "--iterations: hotcold is not a generated stand-in"},
		{[]string{"--workload", "antlr", "--iterations", "-1"}, "--iterations -1 must be ≥ 0"},
		{[]string{"--workload", "antlr", "--loop-scale", "-2"}, "--loop-scale -2 must be a finite number ≥ 0"},
	} {
		s, err := parseSpec(t, c.args...)
		if err == nil {
			_, _, err = s.Load()
		}
		if assert.Error(t, err, "%v", c.args) {
			assert.Contains(t, err.Error(), c.want)
		}
	}
}
