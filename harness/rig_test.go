package harness

import (
	"testing"

	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Rig stepped in slices is the run Run gives: the same statements,
// profiles, costs and compilations.
func TestRigSteppedIsRun(t *testing.T) {
	p, err := workloads.Get("hotcold")
	require.NoError(t, err)
	cfg := MustPresetConfig("hotspot6")
	cfg.Sim.Duration = 30 * sim.Millisecond
	cfg.Mode = samplers.Costed
	cfg.Samplers = []string{"jvmti", "async"}
	whole, err := Run(p, cfg)
	require.NoError(t, err)
	require.Positive(t, whole.Costs["jvmti"].Taken)

	rig, err := Build(p, cfg)
	require.NoError(t, err)
	require.NotNil(t, rig.JIT())
	require.NotNil(t, rig.Sampler("jvmti"))
	assert.Nil(t, rig.Sampler("tprof"))
	var last sim.Time
	for at := sim.Time(0); rig.RunUntil(at); at += 7 * sim.Millisecond {
		assert.LessOrEqual(t, last, rig.VM().Now())
		last = rig.VM().Now()
		_, err := rig.Collect()
		assert.ErrorContains(t, err, "harness: the run is not over", "at %v", at)
	}
	require.NoError(t, rig.Err())
	out, err := rig.Collect()
	require.NoError(t, err)
	again, err := rig.Collect()
	require.NoError(t, err)
	assert.Same(t, out, again, "collecting again")

	assert.Equal(t, whole.Names, out.Names)
	assert.Equal(t, whole.Result.End, out.Result.End)
	assert.Equal(t, whole.Result.Statements, out.Result.Statements)
	assert.Equal(t, whole.JIT.Events(), out.JIT.Events())
	for _, n := range whole.Names {
		assert.Equal(t, whole.Profiles[n].ContextWeights(), out.Profiles[n].ContextWeights(), n)
	}
	for _, n := range cfg.Samplers {
		assert.Equal(t, whole.Costs[n], out.Costs[n], n)
	}
}

// Config.Validate finds what is wrong with a configuration without a
// program, and Build reports the same.
func TestValidateBeforeBuilding(t *testing.T) {
	p, err := workloads.Get("hotcold")
	require.NoError(t, err)
	for _, c := range []struct {
		tweak func(*Config)
		want  string
	}{
		{func(c *Config) { c.Samplers = []string{"nope"} }, `unknown sampler "nope"`},
		{func(c *Config) { c.Samplers = []string{"tprof,nokey=1"} }, "sampler tprof: "},
		{func(c *Config) { c.Samplers = []string{"tprof:a", "tprof:a"} }, `samplers: "tprof:a" listed twice`},
		{func(c *Config) { c.Samplers = []string{"jikes-timer"} }, "sampler jikes-timer samples at prologue/epilogue yield points"},
		{func(c *Config) { c.Sim.CPUs = 0 }, "cpus: 0"},
		{func(c *Config) { c.Sim.Cost.PollCycles = -1 }, "cost.poll_cycles: -1"},
		{func(c *Config) { c.JIT.CompileThreshold = 0 }, "jit.compile_threshold: 0 must be ≥ 1"},
		{func(c *Config) { c.GC.TLABBytes = c.GC.EdenBytes + 1 }, "gc.tlab_bytes: "},
		{func(c *Config) { c.Safepoint.SyncRecheck = -1 }, "safepoint.sync_recheck: "},
		{func(c *Config) { c.Window = -1 }, "window: -1ns must be ≥ 0"},
		{func(c *Config) { c.InlineFrom = "async" }, `inline_from: "async" is not an attached call-graph sampler`},
		{func(c *Config) { c.Samplers, c.InlineFrom = []string{"async"}, "async" }, "inline_from: sampler async is not a call-graph source"},
		{func(c *Config) { c.InlineFrom, c.NoJIT = "exact", true }, `inline_from: "exact" needs the JIT`},
		{func(c *Config) { c.WarmUp = -1 }, "warm_up: -1ns must be ≥ 0"},
		{func(c *Config) { c.RecompileAt = -1 }, "recompile_at: -1ns must be ≥ 0"},
		{func(c *Config) { c.RecompileAt, c.NoJIT = sim.Millisecond, true }, "recompile_at: needs the JIT"},
	} {
		cfg := MustPresetConfig("hotspot6")
		gc := *cfg.GC
		cfg.GC = &gc
		c.tweak(&cfg)
		err := cfg.Validate()
		if assert.ErrorContains(t, err, c.want) {
			_, berr := Build(p, cfg)
			assert.Equal(t, err, berr, c.want)
		}
	}
	cfg := MustPresetConfig("hotspot6")
	cfg.Samplers = []string{"async", "jvmti:fast,interval=1ms"}
	assert.NoError(t, cfg.Validate())
}
