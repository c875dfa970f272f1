package jit

import (
	"math"
	"testing"

	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConfigValidateNamesTheField: each invalid setting is rejected with
// an error naming its key, and the boundary values are accepted.
func TestConfigValidateNamesTheField(t *testing.T) {
	for _, c := range []struct {
		set  func(*Config)
		want string
	}{
		{func(c *Config) { c.Flavour = Flavour(7) }, "jit.flavour: unknown flavour 7"},
		{func(c *Config) { c.CompileThreshold = 0 }, "jit.compile_threshold: 0 must be ≥ 1"},
		{func(c *Config) { c.BackedgeThreshold = 0 }, "jit.backedge_threshold: 0 must be ≥ 1"},
		{func(c *Config) { c.MaxInlineSize = -1 }, "jit.max_inline_size, freq_inline_size: must be ≥ 0"},
		{func(c *Config) { c.FreqInlineSize = -1 }, "jit.max_inline_size, freq_inline_size: must be ≥ 0"},
		{func(c *Config) { c.HotCallCount = -1 }, "jit.hot_call_count: -1 must be ≥ 0"},
		{func(c *Config) { c.MaxInlineLevel = -1 }, "jit.max_inline_level: -1 must be ≥ 0"},
		{func(c *Config) { c.ReceiverDominance = 0 }, "jit.receiver_dominance: 0 not in (0, 1]"},
		{func(c *Config) { c.ReceiverDominance = 1.01 }, "jit.receiver_dominance: 1.01 not in (0, 1]"},
		{func(c *Config) { c.ReceiverDominance = math.NaN() }, "jit.receiver_dominance: NaN not in (0, 1]"},
		{func(c *Config) { c.StripMiningIter = -1 }, "jit.strip_mining_iter: -1 must be ≥ 0"},
		{func(c *Config) { c.LoopUnroll = 0 }, "jit.loop_unroll: 0 must be ≥ 1"},
		{func(c *Config) { c.LoopUnrollMaxBody = -1 }, "jit.loop_unroll_max_body: -1 must be ≥ 0"},
		{func(c *Config) { c.HotEdgeShare = -0.01 }, "jit.hot_edge_share: -0.01 not in [0, 1]"},
		{func(c *Config) { c.HotEdgeShare = 1.5 }, "jit.hot_edge_share: 1.5 not in [0, 1]"},
		{func(c *Config) { c.HotEdgeShare = math.NaN() }, "jit.hot_edge_share: NaN not in [0, 1]"},
		{func(c *Config) { c.CompileNanosPerBytecode = -1 }, "jit.compile_nanos_per_bytecode: -1 must be in [0, 1000000]"},
		{func(c *Config) { c.CompileNanosPerBytecode = MaxCompileNanosPerBytecode + 1 }, "jit.compile_nanos_per_bytecode: 1000001 must be in [0, 1000000]"},
	} {
		cfg := DefaultConfig()
		c.set(&cfg)
		assert.EqualError(t, cfg.Validate(), c.want)
	}
	for name, set := range map[string]func(*Config){
		"defaults":                 func(*Config) {},
		"jikes":                    func(c *Config) { c.Flavour = Jikes },
		"thresholds of 1":          func(c *Config) { c.CompileThreshold, c.BackedgeThreshold = 1, 1 },
		"no inlining limits":       func(c *Config) { c.MaxInlineSize, c.FreqInlineSize, c.HotCallCount, c.MaxInlineLevel = 0, 0, 0, 0 },
		"receiver dominance 1":     func(c *Config) { c.ReceiverDominance = 1 },
		"hot edge share 0":         func(c *Config) { c.HotEdgeShare = 0 },
		"hot edge share 1":         func(c *Config) { c.HotEdgeShare = 1 },
		"free compilation":         func(c *Config) { c.CompileNanosPerBytecode = 0 },
		"unroll once, never":       func(c *Config) { c.LoopUnroll, c.LoopUnrollMaxBody = 1, 0 },
		"interpret only, tiered":   func(c *Config) { c.InterpretOnly, c.Tiered = true, true },
		"compile everything early": func(c *Config) { c.Tiered = false },
	} {
		cfg := DefaultConfig()
		set(&cfg)
		assert.NoError(t, cfg.Validate(), name)
	}
}

// TestAttachRejectsInvalidConfig: Attach validates first and installs
// nothing on error.
func TestAttachRejectsInvalidConfig(t *testing.T) {
	cfg := sim.DefaultConfig()
	img, err := sim.NewImage(parse(t, loops), cfg.Cost)
	require.NoError(t, err)
	vm, err := sim.New(img, cfg)
	require.NoError(t, err)
	jc := DefaultConfig()
	jc.LoopUnroll = 0
	j, err := Attach(vm, jc)
	assert.Nil(t, j)
	assert.EqualError(t, err, "jit.loop_unroll: 0 must be ≥ 1")
	for m := range img.Methods {
		assert.Same(t, img.Base[m], vm.Code(int32(m)), "%s: base code still installed", img.Names[m])
	}
}

// TestFlavourNames: the names --vm flavours are given by, both ways.
func TestFlavourNames(t *testing.T) {
	for _, f := range []Flavour{HotSpot, Jikes} {
		got, err := ParseFlavour(f.String())
		require.NoError(t, err)
		assert.Equal(t, f, got)
	}
	assert.Equal(t, "hotspot", HotSpot.String())
	assert.Equal(t, "jikes", Jikes.String())
	_, err := ParseFlavour("HotSpot")
	assert.EqualError(t, err, `unknown VM flavour "HotSpot" (want hotspot or jikes)`)
}

// TestCompilerThread: the JIT keeps the configuration it was attached
// with, and its compiler is a service thread whose CPU time is exactly
// CompileNanosPerBytecode for every bytecode it compiled.
func TestCompilerThread(t *testing.T) {
	const nanos = 3000
	vm, j := setup(t, parse(t, loops), func(c *Config) {
		c.Tiered = true
		c.CompileThreshold, c.BackedgeThreshold = 10, 10
		c.CompileNanosPerBytecode = nanos
	})
	assert.Equal(t, int64(nanos), j.Config().CompileNanosPerBytecode)
	assert.True(t, j.Config().Tiered)
	id := j.CompilerThread()
	assert.Equal(t, "C2 CompilerThread0", vm.ThreadName(id))
	res := vm.Run()
	var size int64
	for _, e := range j.Events() {
		require.NotZero(t, e.Done, "%s compiled before the end", vm.Image().Names[e.Method])
		size += e.Size
	}
	require.NotZero(t, size)
	st := res.Threads[id]
	assert.True(t, st.Service)
	assert.Equal(t, sim.Time(size*nanos), st.CPU())
	assert.Equal(t, st.CPU(), res.VMCPU(), "the compiler is the only service thread at work")
}

// The instrumentation's sizes and cycles are bounded however it is
// configured: an inserted size above 65535 would wrap an instruction's
// int32 code size, cycles above 10⁹ the cost model's arithmetic.
func TestInstrumentationValidateBounds(t *testing.T) {
	// The tags' bounds are the code size an instruction holds and the
	// cost model's largest cycle count.
	assert.NoError(t, Instrumentation{CountBytes: program.MaxBlockBytecodes, CheckBytes: program.MaxBlockBytecodes, CountCycles: sim.MaxCostCycles}.Validate())
	assert.EqualError(t, Instrumentation{CheckBytes: program.MaxBlockBytecodes + 1}.Validate(), "instrumentation: check_bytes: 65536 must be in [0, 65_535]")
	assert.EqualError(t, Instrumentation{CheckBytes: 1 << 32}.Validate(), "instrumentation: check_bytes: 4294967296 must be in [0, 65_535]")
	assert.EqualError(t, Instrumentation{ArgCycles: sim.MaxCostCycles + 1}.Validate(), "instrumentation: arg_cycles: 1000000001 must be in [0, 1_000_000_000]")
}
