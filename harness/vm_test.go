package harness

import (
	"testing"

	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/safepoint"
	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// roundTrip sets every key of src's Values on dst and returns the error.
func roundTrip(t *testing.T, src, dst any) {
	t.Helper()
	for _, kv := range param.Values(src) {
		require.NoError(t, param.Set(dst, kv.Key, kv.Value), kv.Key)
	}
}

func TestVMConfigKeysCheckAndRoundTrip(t *testing.T) {
	d := DefaultConfig()
	require.NoError(t, param.Check(&d.JIT))
	require.NoError(t, param.Check(&d.Sim))
	require.NoError(t, param.Check(&d.Sim.Cost))
	require.NoError(t, param.Check(d.GC))

	assert.Equal(t, []string{"tiered", "compile_threshold", "backedge_threshold", "inline", "max_inline_size",
		"freq_inline_size", "hot_call_count", "max_inline_level", "receiver_dominance", "strip_mining_iter",
		"debug_non_safepoints", "compile_nanos_per_bytecode", "hot_edge_share", "profile_overrides_static"}, param.Names(&d.JIT))
	assert.Equal(t, []string{"time_slice", "context_switch", "max_stack_depth", "max_step",
		"cost.interp_factor", "cost.call_cycles", "cost.poll_cycles", "cost.alloc_cycles", "cost.throw_cycles",
		"cost.unwind_cycles", "cost.monitor_cycles", "cost.speed_percent"}, param.Names(&d.Sim),
		"seed, cpus and duration are flags of their own")
	assert.Equal(t, []string{"eden_bytes", "tlab_bytes", "pause_base", "pause_per_mb"}, param.Names(d.GC))
	for _, ks := range [][]param.Key{param.Keys(&d.JIT), param.Keys(&d.Sim), param.Keys(d.GC)} {
		for _, k := range ks {
			assert.NotEmpty(t, k.Doc, k.Name)
			assert.NotEmpty(t, k.Source, k.Name)
		}
	}

	// Non-default values in every field, so a key that does not reach its
	// field shows.
	j := d.JIT
	j.Flavour = jit.Jikes
	j.Tiered, j.Inline, j.DebugNonSafepoints, j.ProfileOverridesStatic = false, false, true, true
	j.CompileThreshold, j.BackedgeThreshold, j.MaxInlineSize, j.FreqInlineSize = 11, 12, 13, 14
	j.HotCallCount, j.MaxInlineLevel, j.StripMiningIter, j.CompileNanosPerBytecode = 15, 16, 17, 18
	j.ReceiverDominance, j.HotEdgeShare = 0.375, 0.125
	gotJ := jit.Config{Flavour: jit.Jikes}
	roundTrip(t, &j, &gotJ)
	assert.Equal(t, j, gotJ)

	s := d.Sim
	s.TimeSlice, s.ContextSwitch, s.MaxStackDepth, s.MaxStep = 3*sim.Millisecond, 1500, 77, 250*sim.Microsecond
	s.Cost = sim.CostModel{InterpFactor: 3, CallCycles: 5, PollCycles: 6, AllocCycles: 7, ThrowCycles: 8, UnwindCycles: 9, MonitorCycles: 10, SpeedPercent: 250}
	gotS := sim.Config{Seed: s.Seed, CPUs: s.CPUs, Duration: s.Duration}
	roundTrip(t, &s, &gotS)
	assert.Equal(t, s, gotS)
	c := s.Cost
	var gotC sim.CostModel
	roundTrip(t, &c, &gotC)
	assert.Equal(t, c, gotC)

	g := safepoint.GCConfig{EdenBytes: 1 << 20, TLABBytes: 4096, PauseBase: 3 * sim.Microsecond, PausePerMB: 1500}
	var gotG safepoint.GCConfig
	roundTrip(t, &g, &gotG)
	assert.Equal(t, g, gotG)

	assert.EqualError(t, param.Set(&gotS, "cost.speed_percent", "0"), "cost.speed_percent: 0 must be > 0")
	assert.EqualError(t, param.Set(&gotJ, "strip_mining_iter", "-1"), "strip_mining_iter: -1 must be ≥ 0")
}
