package harness

import (
	"math"
	"testing"

	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 14, class 2: a setting beyond its range is an error naming it, not
// a silent truncation (a strip-mining interval of 2³² + 100 ran as 100).
func TestRunRejectsSettingsBeyondTheirRange(t *testing.T) {
	p, err := workloads.Get("hotcold")
	require.NoError(t, err)
	cases := []struct {
		name  string
		tweak func(*Config)
		want  string
	}{
		{"strip mining 2^32+100", func(c *Config) { c.JIT.StripMiningIter = 4294967396 }, "jit.strip_mining_iter: 4294967396 is beyond HotSpot's -XX:LoopStripMiningIter range [0, 4294967295]"},
		{"strip mining int64 max", func(c *Config) { c.JIT.StripMiningIter = math.MaxInt64 }, "jit.strip_mining_iter: 9223372036854775807"},
		{"window", func(c *Config) { c.Window = math.MaxInt64 }, "window: "},
		{"warm-up", func(c *Config) { c.WarmUp = sim.MaxTime + 1 }, "warm_up: "},
		{"recompile", func(c *Config) { c.RecompileAt = math.MaxInt64 }, "recompile_at: "},
		{"duration", func(c *Config) { c.Sim.Duration = math.MaxInt64 }, "duration: "},
		{"poll cycles", func(c *Config) { c.Sim.Cost.PollCycles = math.MaxInt64 }, "cost.poll_cycles: 9223372036854775807 must be in [0, 10^9]"},
	}
	for _, c := range cases {
		cfg := MustPresetConfig("hotspot6")
		c.tweak(&cfg)
		_, err := Run(p, cfg)
		if assert.Error(t, err, c.name) {
			assert.Contains(t, err.Error(), c.want, c.name)
		}
	}
	cfg := MustPresetConfig("hotspot6")
	cfg.JIT.StripMiningIter = 4294967295 // HotSpot's largest: runs
	cfg.Sim.Duration = sim.Millisecond
	_, err = Run(p, cfg)
	assert.NoError(t, err)
}

// A program is validated once per run: a validated one is not checked
// again, one built in Go is checked by the run.
func TestRunValidatesUnvalidatedPrograms(t *testing.T) {
	p := &program.Program{Name: "x", Methods: []program.Method{{Class: "A", Name: "main",
		Body: []program.Stmt{{Work: &program.Work{Cycles: program.MaxCycles + 1}}}}},
		Threads: []program.Thread{{Name: "main", Entry: "A.main", Count: 1}}}
	_, err := Run(p, MustPresetConfig("hotspot6"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "methods[0].body[0].work.cycles: 1000000000001 is not in [1, 10^12]")
}

// PlanSamplers gives, before anything is built, the profiles' names and
// the resolved samplers the run's Outcome has, and refuses every sampler
// list Build refuses, with Validate's error.
func TestPlanSamplersIsWhatTheRunAttaches(t *testing.T) {
	p, err := workloads.Get("hotcold")
	require.NoError(t, err)
	extra := func(name string) samplers.Sampler {
		s, err := samplers.New(name)
		require.NoError(t, err)
		return s
	}
	for _, c := range []struct {
		name    string
		tweak   func(*Config)
		names   []string // nil: refused
		ids     []string // the resolved samplers' IDs
		refusal string
	}{
		{"default", func(*Config) {}, []string{"truth"}, nil, ""},
		{"truth first", func(c *Config) { c.Samplers = []string{"async", "jvmti:fast,interval=1ms"} },
			[]string{"truth", "async", "jvmti:fast"}, []string{"async", "jvmti:fast"}, ""},
		{"truth where listed", func(c *Config) { c.Samplers = []string{"async", "truth", "tprof"} },
			[]string{"async", "truth", "tprof"}, []string{"async", "tprof"}, ""},
		{"no truth profile", func(c *Config) { c.Samplers, c.NoTruthProfile = []string{"tprof"}, true },
			[]string{"tprof"}, []string{"tprof"}, ""},
		{"extra last", func(c *Config) { c.Samplers, c.Extra = []string{"async"}, []samplers.Sampler{extra("tprof")} },
			[]string{"truth", "async", "tprof"}, []string{"async"}, ""},
		{"cbs on jikes", func(c *Config) { require.NoError(t, ApplyPreset(c, "jikes")); c.Samplers = []string{"cbs"} },
			[]string{"truth", "cbs"}, []string{"cbs"}, ""},
		{"unknown", func(c *Config) { c.Samplers = []string{"nope"} }, nil, nil,
			`unknown sampler "nope"`},
		{"bad key", func(c *Config) { c.Samplers = []string{"tprof,nokey=1"} }, nil, nil,
			`sampler tprof: unknown key "nokey"`},
		{"twice", func(c *Config) { c.Samplers = []string{"async", "async"} }, nil, nil,
			`samplers: "async" listed twice (give each instance its own label: NAME:LABEL)`},
		{"truth twice", func(c *Config) { c.Samplers = []string{"truth", "truth"} }, nil, nil,
			`samplers: "truth" listed twice (give each instance its own label: NAME:LABEL)`},
		{"truth with keys", func(c *Config) { c.Samplers, c.NoTruthProfile = []string{"truth,x=1"}, true }, nil, nil,
			`samplers: truth takes no label or keys ("truth,x=1")`},
		{"truth labelled", func(c *Config) { c.Samplers = []string{"truth:x"} }, nil, nil,
			`samplers: truth takes no label or keys ("truth:x")`},
		{"truth without its profile", func(c *Config) { c.Samplers, c.NoTruthProfile = []string{"truth"}, true }, nil, nil,
			`samplers: "truth" is listed but no_truth_profile is set`},
		{"extra twice", func(c *Config) { c.Samplers, c.Extra = []string{"tprof"}, []samplers.Sampler{extra("tprof")} }, nil, nil,
			`samplers: "tprof" listed twice`},
		{"cbs on hotspot", func(c *Config) { c.Samplers = []string{"cbs"} }, nil, nil,
			"sampler cbs samples at prologue/epilogue yield points, which only Jikes-like code has: run with the jikes flavour (--vm jikes)"},
		{"cbs without the JIT", func(c *Config) {
			require.NoError(t, ApplyPreset(c, "jikes"))
			c.Samplers, c.NoJIT = []string{"cbs"}, true
		}, nil, nil, "sampler cbs samples at prologue/epilogue yield points"},
	} {
		cfg := MustPresetConfig("hotspot6")
		cfg.Sim.Duration = sim.Millisecond
		c.tweak(&cfg)
		names, resolved, err := cfg.PlanSamplers()
		if c.names == nil {
			if assert.Error(t, err, c.name) {
				assert.Contains(t, err.Error(), c.refusal, c.name)
				assert.Equal(t, cfg.Validate(), err, c.name)
			}
			continue
		}
		require.NoError(t, err, c.name)
		assert.Equal(t, c.names, names, c.name)
		var ids []string
		for _, r := range resolved {
			ids = append(ids, r.ID)
		}
		assert.Equal(t, c.ids, ids, c.name)
		out, err := Run(p, cfg)
		require.NoError(t, err, c.name)
		assert.Equal(t, out.Names, names, c.name)
		require.Len(t, out.Samplers, len(resolved), c.name)
		for i, r := range resolved {
			assert.Equal(t, out.Samplers[i].ID, r.ID, c.name)
			assert.Equal(t, out.Samplers[i].Params, r.Params, c.name)
		}
	}
}
