package harness

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
)

// Config.Census records, every period, the application threads running:
// on x2-staggered's 10 CPUs all ten threads at first and fewer as they
// end, one list per tick from the window's start; the run's profiles are
// those of the run without it (the census only reads); a negative
// period is an error naming the field.
func TestCensus(t *testing.T) {
	p, err := workloads.Get("x2-staggered")
	require.NoError(t, err)
	cfg := DefaultConfig()
	cfg.Sim.CPUs, cfg.Sim.Duration = 10, 1500*sim.Millisecond
	cfg.Samplers = []string{"truth", "jfr"}
	plain, err := Run(p, cfg)
	require.NoError(t, err)
	assert.Nil(t, plain.Census)

	cfg.Census = 20 * sim.Millisecond
	out, err := Run(p, cfg)
	require.NoError(t, err)
	require.Len(t, out.Census, int(out.Result.End/cfg.Census))
	assert.Equal(t, []string{"s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9"}, out.Census[0])
	last := out.Census[len(out.Census)-1]
	assert.Less(t, len(last), 10, "threads end one after another")
	for _, n := range []string{"truth", "jfr"} {
		assert.Equal(t, plain.Profiles[n], out.Profiles[n], n)
	}

	cfg.ProfileFrom = 1 * sim.Second
	from, err := Run(p, cfg)
	require.NoError(t, err)
	assert.Len(t, from.Census, int(from.Result.End/cfg.Census)-int(cfg.ProfileFrom/cfg.Census), "ticks from the window's start on")
	assert.Equal(t, out.Census[len(out.Census)-len(from.Census):], from.Census, "the same threads at the same ticks")

	cfg.ProfileFrom, cfg.Census = 0, -1
	assert.ErrorContains(t, cfg.Validate(), "census: -1ns must be ≥ 0")
}
