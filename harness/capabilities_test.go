package harness

import (
	"testing"

	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/workloads"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A capability the configuration asks of a sampler that lacks it is an
// error naming the sampler and the capability.
func TestRunRejectsMissingCapabilities(t *testing.T) {
	p, err := workloads.Get("hotcold")
	require.NoError(t, err)
	cfg := MustPresetConfig("hotspot6")
	cfg.Samplers, cfg.InlineFrom = []string{"tprof"}, "tprof"
	_, err = Run(p, cfg)
	assert.EqualError(t, err, "inline_from: sampler tprof is not a call-graph source (not a samplers.CallGraphSource; those registered: cbs, jikes-timer)")

	cfg = MustPresetConfig("hotspot6")
	cfg.Samplers = []string{"jikes-timer:base"}
	_, err = Run(p, cfg)
	assert.ErrorContains(t, err, "sampler jikes-timer:base samples at prologue/epilogue yield points")
	cfg.JIT.Flavour, cfg.NoJIT = jit.Jikes, true
	_, err = Run(p, cfg)
	assert.ErrorContains(t, err, "sampler jikes-timer:base samples at prologue/epilogue yield points", "no JIT: base code has no prologue yield points")
}
