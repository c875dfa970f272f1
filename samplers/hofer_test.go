package samplers_test

import (
	"fmt"
	"testing"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Incremental stack tracing builds the same stacks as walking them: on
// the same (unperturbed) execution ISPS and SPS see the same contexts.
func TestISPSStacksEqualSPSStacks(t *testing.T) {
	for _, w := range []string{"abcuv", "deepcall", "sqsum", "hotcold"} {
		get := func(s string) map[string]float64 {
			out := run(t, w, func(c *harness.Config) {
				// The identity holds for equal tick times: each sampler
				// draws its jitter from its own stream, so both are pinned
				// to a perfect grid.
				c.Samplers = []string{s + ",jitter=0"}
				c.JIT.StripMiningIter = 1000
			})
			require.Positive(t, out.Costs[s].Taken, "%s %s", w, s)
			return out.Profiles[s].ContextWeights()
		}
		assert.Equal(t, get("sps"), get("isps"), w)
	}
}

const stable = `
name: stable
methods:
  - {class: S, name: main, body: [{call: {method: S.a}}]}
  - {class: S, name: a, body: [{call: {method: S.b}}]}
  - {class: S, name: b, body: [{call: {method: S.c}}]}
  - {class: S, name: c, body: [{call: {method: S.d}}]}
  - {class: S, name: d, body: [{call: {method: S.e}}]}
  - {class: S, name: e, body: [{loop: {trips: 100000000, body: [{work: {cycles: 500, bytecodes: 50}}, {call: {method: S.leaf}}]}}]}
  - {class: S, name: leaf, body: [{loop: {trips: 10, body: [{work: {cycles: 50, bytecodes: 5}}, {alloc: {bytes: 8}}]}}]}
threads: [{name: main, entry: S.main}]
`

// H7's mechanism: with a stable stack, ISPS decodes a frame or two per
// sample where SPS walks the whole stack every time.
func TestISPSDecodesEachFrameOnce(t *testing.T) {
	decoded := map[string]float64{}
	for _, s := range []string{"sps", "isps"} {
		cfg := harness.MustPresetConfig("hotspot6")
		cfg.Sim.Duration = 500 * sim.Millisecond
		cfg.Samplers = []string{s}
		out, err := harness.Run(mustParse(t, stable), cfg)
		require.NoError(t, err)
		decoded[s] = out.Costs[s].Measures[samplers.FramesDecodedPerSample]
	}
	t.Logf("frames decoded per sample: sps %.2f, isps %.2f (stack depth 7)", decoded["sps"], decoded["isps"])
	assert.GreaterOrEqual(t, decoded["sps"], 6.0)
	assert.Less(t, decoded["isps"], 2.5)
}

const eight = `
name: eight
methods:
  - {class: W, name: run, body: [{loop: {trips: 1000000, body: [{work: {cycles: 1000, bytecodes: 100}}, {alloc: {bytes: 16}}]}}]}
threads: [{name: w, entry: W.run, count: 8}]
`

// SPS pauses only the k threads it samples; JVMTI pauses every thread.
func TestSPSPausesOnlyKThreads(t *testing.T) {
	pauses := func(s string) (perSafepoint []int, out *harness.Outcome) {
		cfg := harness.MustPresetConfig("hotspot6")
		cfg.Sim.CPUs = 8
		cfg.Sim.Duration = 200 * sim.Millisecond
		spec := s
		if s != "jvmti" {
			spec += ",k=2" // the Hofer samplers' k; jvmti pauses every thread
		}
		cfg.Samplers, cfg.Mode = []string{spec}, samplers.Costed
		cfg.GC = nil
		out, err := harness.Run(mustParse(t, eight), cfg)
		require.NoError(t, err)
		for _, r := range out.Safepoints.Records() {
			perSafepoint = append(perSafepoint, len(r.Pauses))
		}
		return perSafepoint, out
	}
	sps, out := pauses("sps")
	require.NotEmpty(t, sps)
	for _, n := range sps {
		assert.Equal(t, 2, n)
	}
	assert.Equal(t, int64(2*len(sps)), out.Costs["sps"].Taken)
	jv, _ := pauses("jvmti")
	require.NotEmpty(t, jv)
	for _, n := range jv {
		assert.Equal(t, 8, n)
	}
	assert.NotEmpty(t, out.Costs["sps"].Latencies)
}

// With waiting threads included, K is divided in proportion (Hofer's
// example: 4 samples, 15 runnable and 6 waiting threads → 3 + 1).
func TestSPSIncludesWaitingThreadsInProportion(t *testing.T) {
	src := `
name: mixed
methods:
  - {class: M, name: spin, body: [{loop: {trips: 1000000, body: [{work: {cycles: 1000, bytecodes: 100}}, {alloc: {bytes: 16}}]}}]}
  - {class: M, name: wait, body: [{block: {kind: sleep, duration: 10s}}]}
threads:
  - {name: r, entry: M.spin, count: 15}
  - {name: w, entry: M.wait, count: 6}
`
	cfg := harness.MustPresetConfig("hotspot6")
	cfg.Sim.CPUs = 16
	cfg.Sim.Duration = 105 * sim.Millisecond
	cfg.Samplers = []string{"sps,k=4,include_waiting=true"}
	out, err := harness.Run(mustParse(t, src), cfg)
	require.NoError(t, err)
	byKind := map[byte]int64{}
	sps := out.Profiles["sps"]
	for i, s := range sps.Samples {
		byKind[sps.ThreadName(i)[0]] += s.Count
	}
	assert.Equal(t, int64(3*10), byKind['r'], "3 runnable per request")
	assert.Equal(t, int64(1*10), byKind['w'], "1 waiting per request")
	// Every stack here is one frame deep, waiting ones included.
	assert.Equal(t, 1.0, out.Costs["sps"].Measures[samplers.FramesDecodedPerSample])
}

// ISPS keeps complete stacks by default and honours a depth limit when
// given one, like SPS.
func TestISPSDepthLimit(t *testing.T) {
	deepest := func(depth int) int {
		out := run(t, "deepcall", func(c *harness.Config) {
			c.Sim.Duration = 100 * sim.Millisecond
			c.Samplers = []string{fmt.Sprintf("isps,interval=1ms,depth=%d", depth)}
		})
		d := 0
		for i := range out.Profiles["isps"].Samples {
			d = max(d, out.Profiles["isps"].Depth(i))
		}
		return d
	}
	assert.Greater(t, deepest(0), 30)
	assert.Equal(t, 5, deepest(5))
}
