package harness

import (
	"math"
	"testing"

	"github.com/profsim/profsim/program"
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
		cfg := DefaultConfig()
		c.tweak(&cfg)
		_, err := Run(p, cfg)
		if assert.Error(t, err, c.name) {
			assert.Contains(t, err.Error(), c.want, c.name)
		}
	}
	cfg := DefaultConfig()
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
	_, err := Run(p, DefaultConfig())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "methods[0].body[0].work.cycles: 1000000000001 is not in [1, 10^12]")
}
