package samplers_test

import (
	"fmt"
	"testing"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func komoriumSpec(tweak func(*samplers.KomoriumConfig)) string {
	c := samplers.DefaultKomoriumConfig()
	tweak(&c)
	return specOf("komorium", &c)
}

// B9's mechanism: with a constant granularity the samples are taken at the
// same program points whatever the CPU speed, the number of CPUs or the
// seed (the program runs to its end; sqsum draws no random numbers).
func TestKomoriumConstantGranularityIsReproducible(t *testing.T) {
	get := func(w string, d sim.Time, speed int64, seed uint64, cpus int) *harness.Outcome {
		return run(t, w, func(c *harness.Config) {
			c.Samplers = []string{"komorium,granularity=5000"}
			c.Sim.Duration = d
			c.Sim.Cost.SpeedPercent, c.Sim.Seed, c.Sim.CPUs = speed, seed, cpus
		})
	}
	base := get("sqsum", 10*sim.Second, 100, 1, 4)
	require.Positive(t, base.Costs["komorium"].Taken)
	for _, o := range []*harness.Outcome{get("sqsum", 10*sim.Second, 40, 1, 4), get("sqsum", 10*sim.Second, 250, 7, 1)} {
		assert.Equal(t, base.Profiles["komorium"].Samples, o.Profiles["komorium"].Samples)
	}
	// deepcall draws random numbers: the same seed repeats, another differs.
	a, b, c := get("deepcall", 60*sim.Millisecond, 100, 1, 4), get("deepcall", 60*sim.Millisecond, 100, 1, 4), get("deepcall", 60*sim.Millisecond, 100, 2, 4)
	assert.Equal(t, a.Profiles["komorium"].Samples, b.Profiles["komorium"].Samples)
	assert.NotEqual(t, a.Profiles["komorium"].Samples, c.Profiles["komorium"].Samples)
}

// Randomized granularity draws from each thread's own seeded stream: the
// same seed reproduces it, another changes it.
func TestKomoriumRandomizedGranularity(t *testing.T) {
	get := func(seed uint64) *harness.Outcome {
		return run(t, "sqsum", func(c *harness.Config) {
			c.Samplers, c.Sim.Seed, c.Sim.Duration = []string{"komorium,granularity=5000,random=100"}, seed, 40*sim.Millisecond
		})
	}
	a, b, c := get(1), get(1), get(2)
	assert.Equal(t, a.Profiles["komorium"], b.Profiles["komorium"])
	assert.NotEqual(t, a.Profiles["komorium"].Samples, c.Profiles["komorium"].Samples)
	// sqsum's iterations are 10 bytecodes, so a constant 5 000 always hits
	// the same point of the loop; randomization spreads the samples.
	constant := run(t, "sqsum", func(c *harness.Config) {
		c.Samplers, c.Sim.Duration = []string{"komorium,granularity=5000"}, 40*sim.Millisecond
	})
	assert.Len(t, constant.Profiles["komorium"].MethodWeights(), 2, "main and one loop position")
	assert.Greater(t, len(a.Profiles["komorium"].MethodWeights()), 2, "sq is sampled too")
}

// The approximate bytecode count misses the tail after each thread's last
// sample (δb < 0, growing with the granularity) and over-counts basic
// blocks that exceptions cut short.
func TestKomoriumBytecodeCountError(t *testing.T) {
	delta := func(w string, gran int64) float64 {
		out := run(t, w, func(c *harness.Config) {
			c.Samplers = []string{fmt.Sprintf("komorium,granularity=%d", gran)}
			c.Sim.Duration = 10 * sim.Second
		})
		exact := float64(out.Result.Truth.BytecodeTotal())
		return out.Costs["komorium"].Measures[samplers.ApproxTotalBytecodes]/exact - 1
	}
	small, large := delta("sqsum", 1000), delta("sqsum", 1000000)
	t.Logf("sqsum δb: granularity 1 000 %.2e, 1 000 000 %.2e", small, large)
	assert.Less(t, small, 0.0)
	assert.Less(t, large, small, "the unreported tail grows with the granularity")
	assert.Greater(t, large, -0.01)
	src := `
name: throwy
methods:
  - {class: T, name: main, body: [{loop: {trips: 200000, body: [{call: {method: T.mid}}]}}]}
  - class: T
    name: mid
    body:
      - work: {cycles: 20, bytecodes: 10}
      - call: {method: T.risky}
      - work: {cycles: 40, bytecodes: 30}   # counted with the block, skipped when risky throws
  - class: T
    name: risky
    body:
      - work: {cycles: 10, bytecodes: 5}
      - branch: {probability: 0.5, then: [{throw: {depth: 2}}]}   # caught in main
threads: [{name: main, entry: T.main}]
`
	cfg := harness.MustPresetConfig("hotspot6")
	cfg.Sim.Duration = 10 * sim.Second
	cfg.Samplers = []string{"komorium,granularity=1000"}
	out, err := harness.Run(mustParse(t, src), cfg)
	require.NoError(t, err)
	exact := float64(out.Result.Truth.BytecodeTotal())
	over := out.Costs["komorium"].Measures[samplers.ApproxTotalBytecodes]/exact - 1
	t.Logf("exception-heavy δb %.2e", over)
	assert.Greater(t, over, 0.0, "exceptions make Komorium over-count")
}

// Check placement (Binder §5.2, Figure 4): sqSum's first block needs no
// check; the loop head, the block with the call and the returning block do.
func TestKomoriumCheckPlacement(t *testing.T) {
	p, err := workloads.Get("sqsum")
	require.NoError(t, err)
	img, err := sim.NewImage(p, sim.DefaultCostModel())
	require.NoError(t, err)
	require.NoError(t, jit.Instrument(img, samplers.DefaultKomoriumConfig().Instrumentation, sim.DefaultCostModel()))
	var sqSum *sim.Code
	for i, n := range img.Names {
		if n == "Foo.sqSum" {
			sqSum = img.Base[i]
		}
	}
	var checks []bool
	var counts []int64
	for _, in := range sqSum.Instrs {
		if in.Op == sim.OpCount {
			checks = append(checks, in.Flags&sim.FlagCheck != 0)
			counts = append(counts, in.Bytecodes)
		}
	}
	// Blocks: entry (s = 0; i = 1), loop body with the call, after the loop.
	assert.Equal(t, []bool{false, true, true}, checks)
	assert.Equal(t, []int64{4, 6, 2}, counts)
	assert.True(t, sqSum.Instrumented)
}

// MaxPath splits long basic blocks so that no more than MaxPath bytecodes
// run unchecked; without it a 500-bytecode block is one sample point.
func TestKomoriumMaxPath(t *testing.T) {
	src := `
name: bigblock
methods:
  - {class: B, name: main, body: [{loop: {trips: 100000, body: [{call: {method: B.big}}]}}]}
  - {class: B, name: big, body: [{work: {cycles: 1000, bytecodes: 500}}]}
threads: [{name: main, entry: B.main}]
`
	count := func(maxPath int64) int {
		img, err := sim.NewImage(mustParse(t, src), sim.DefaultCostModel())
		require.NoError(t, err)
		in := samplers.DefaultKomoriumConfig().Instrumentation
		in.MaxPath = maxPath
		require.NoError(t, jit.Instrument(img, in, sim.DefaultCostModel()))
		n := 0
		var cycles int64
		for _, x := range img.Base[1].Instrs {
			if x.Op == sim.OpCount && x.Flags&sim.FlagCheck != 0 {
				n++
			}
			if x.Op == sim.OpWork {
				cycles += x.Cycles
				assert.LessOrEqual(t, x.Bytecodes, max(maxPath, 500))
			}
		}
		assert.Equal(t, int64(1000), cycles, "splitting keeps the block's cost")
		return n
	}
	// Ten pieces of 50: every second one checks (a check at a block's start
	// covers that block), so no unchecked path exceeds 50 bytecodes.
	assert.Equal(t, 5, count(50))
	assert.Equal(t, 1, count(0))
}

// The leaf-method optimisation and the cached path cut Komorium's costs.
func TestKomoriumOptimisations(t *testing.T) {
	cost := func(tweak func(*samplers.KomoriumConfig)) (sim.Time, float64) {
		out := run(t, "abcuv", func(c *harness.Config) {
			c.Samplers, c.Mode = []string{komoriumSpec(tweak)}, samplers.Costed
			c.Sim.Duration = 10 * sim.Second
		})
		return out.Result.End, out.Costs["komorium"].Measures[samplers.FramesWalkedPerSample]
	}
	both, walkedCached := cost(func(k *samplers.KomoriumConfig) { k.Granularity = 500 })
	noLeaf, _ := cost(func(k *samplers.KomoriumConfig) { k.Granularity, k.Instrumentation.LeafOpt = 500, false })
	noCache, walkedFull := cost(func(k *samplers.KomoriumConfig) { k.Granularity, k.CachedPath = 500, false })
	t.Logf("run time: both %v, no leaf opt %v, no cached path %v; frames walked %.2f vs %.2f", both, noLeaf, noCache, walkedCached, walkedFull)
	assert.Less(t, both, noLeaf)
	assert.Less(t, both, noCache)
	assert.Less(t, walkedCached, walkedFull)
}
