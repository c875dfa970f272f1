package samplers_test

import (
	"testing"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func jikes(c *harness.Config) {
	c.JIT.Flavour = jit.Jikes
	c.JIT.Inline = false
}

func edgeCount(p *profile.Profile, caller, callee string) int64 {
	var n int64
	for _, e := range p.Edges {
		if p.Functions[e.Caller].Name == caller && p.Functions[e.Callee].Name == callee {
			n += e.Weight
		}
	}
	return n
}

// A1's mechanism: the timer flag is taken at call_1's prologue, the first
// yield point after M's long loop body; CBS with a stride spreads samples
// over both calls.
func TestJikesTimerAndCBSOnCallPair(t *testing.T) {
	out := run(t, "callpair", func(c *harness.Config) {
		jikes(c)
		c.Samplers = []string{"jikes-timer", "cbs"}
		c.Sim.Duration = 2 * sim.Second
	})
	jt, cbs := out.Profiles["jikes-timer"], out.Profiles["cbs"]
	c1, c2 := edgeCount(jt, "CallPair.M", "CallPair.call_1"), edgeCount(jt, "CallPair.M", "CallPair.call_2")
	t.Logf("jikes-timer: call_1 %d, call_2 %d; cbs: call_1 %d, call_2 %d", c1, c2,
		edgeCount(cbs, "CallPair.M", "CallPair.call_1"), edgeCount(cbs, "CallPair.M", "CallPair.call_2"))
	assert.Greater(t, c1, 10*max(c2, 1), "timer-based: call_1 far more than call_2")
	b1, b2 := edgeCount(cbs, "CallPair.M", "CallPair.call_1"), edgeCount(cbs, "CallPair.M", "CallPair.call_2")
	assert.InDelta(t, 1, float64(b1)/float64(b2), 0.1, "CBS: about equal")
	assert.Greater(t, profile.OverlapEdges(out.Profiles["truth"], cbs), 0.9)
	assert.Less(t, profile.OverlapEdges(out.Profiles["truth"], jt), 0.6)
}

// CBS with STRIDE 1, SAMPLES 1 is the base mechanism.
func TestCBSStride1Samples1IsJikesTimer(t *testing.T) {
	for _, w := range []string{"callpair", "abcuv", "deepcall"} {
		out := run(t, w, func(c *harness.Config) {
			jikes(c)
			// The same mechanism ticks the same: pinned to one exact
			// clock (each sampler's jitter has its own stream).
			c.Samplers = []string{"jikes-timer,jitter=0", "cbs,jitter=0,stride=1,samples=1"}
		})
		jt, cbs := out.Profiles["jikes-timer"], out.Profiles["cbs"]
		require.NotEmpty(t, jt.Edges, w)
		assert.Equal(t, jt.Edges, cbs.Edges, w)
	}
}

func TestEdgeSamplersNeedJikes(t *testing.T) {
	p := mustParse(t, "name: x\nmethods: [{class: A, name: a, body: [{work: {cycles: 1, bytecodes: 1}}]}]\nthreads: [{name: m, entry: A.a}]\n")
	cfg := harness.MustPresetConfig("hotspot6")
	cfg.Samplers = []string{"cbs"}
	_, err := harness.Run(p, cfg)
	assert.ErrorContains(t, err, "--vm jikes")
}

func mustParse(t *testing.T, src string) *program.Program {
	p, err := program.Parse([]byte(src), program.YAML)
	require.NoError(t, err)
	return p
}

// W1's mechanism: marker bits make a sample walk only the frames pushed
// since the last one, and the tree is exactly the one full walks build.
func TestPCCTMarkerBitsEqualFullWalks(t *testing.T) {
	// Two PCCT samplers watch the same execution: one with marker bits,
	// one walking every frame ("hotmethods" is reconfigured as the full
	// walker so both can be attached).
	for _, w := range []string{"deepcall", "abcuv", "sqsum"} {
		out := run(t, w, func(c *harness.Config) {
			// Equal trees need equal sample times: both on one exact
			// clock (each sampler's jitter has its own stream).
			c.Samplers = []string{"pcct,jitter=0", "hotmethods,jitter=0,hot_methods=false,full_walk=true"}
		})
		marked, full := out.Profiles["pcct"], out.Profiles["hotmethods"]
		full.Source = marked.Source
		assert.Equal(t, marked.Samples, full.Samples, w)
		em := out.Costs["pcct"].Measures[samplers.FramesExaminedPerSample]
		ef := out.Costs["hotmethods"].Measures[samplers.FramesExaminedPerSample]
		t.Logf("%s: frames examined per sample %.1f with marker bits, %.1f full walks", w, em, ef)
		assert.LessOrEqual(t, em, ef, w)
	}
}

// A loop whose deep frames stay put: each sample walks only the new top.
func TestPCCTWalksOnlyNewFrames(t *testing.T) {
	src := `
name: stable
methods:
  - {class: S, name: main, body: [{call: {method: S.a}}]}
  - {class: S, name: a, body: [{call: {method: S.b}}]}
  - {class: S, name: b, body: [{call: {method: S.c}}]}
  - {class: S, name: c, body: [{call: {method: S.d}}]}
  - {class: S, name: d, body: [{loop: {trips: 100000, body: [{work: {cycles: 500, bytecodes: 50}}, {call: {method: S.leaf}}]}}]}
  - {class: S, name: leaf, body: [{work: {cycles: 500, bytecodes: 50}}]}
threads: [{name: main, entry: S.main}]
`
	cfg := harness.MustPresetConfig("hotspot6")
	cfg.Sim.Duration = 90 * sim.Millisecond
	cfg.Samplers = []string{"pcct"}
	out, err := harness.Run(mustParse(t, src), cfg)
	require.NoError(t, err)
	ex := out.Costs["pcct"].Measures
	// Depth 6 or 7; after the first sample only d (marked) and maybe leaf.
	assert.Less(t, ex[samplers.FramesExaminedPerSample], 2.5)
	assert.Equal(t, 6.0, ex[samplers.PCCTNodes])
}

// W4's mechanism: a depth limit attaches deep sequences at the wrong place.
func TestPCCTDepthLimitMisattaches(t *testing.T) {
	out := run(t, "deepcall", func(c *harness.Config) {
		c.Samplers = []string{"pcct,depth_limit=8"}
	})
	ex := out.Costs["pcct"].Measures
	assert.Positive(t, ex[samplers.DepthLimitedSamples])
	// Misattached paths start below the root's real child, Deep.main.
	p := out.Profiles["pcct"]
	bad := 0
	for i := range p.Samples {
		if p.Functions[p.Stack(i, nil)[0].Func].Name != "Deep.main" {
			bad++
		}
	}
	assert.Positive(t, bad)
}

func TestHotMethodsIsTheTopOfThePCCT(t *testing.T) {
	// The top of the same walks: both on one exact clock (each sampler's
	// jitter has its own stream).
	out := run(t, "abcuv", func(c *harness.Config) { c.Samplers = []string{"pcct,jitter=0", "hotmethods,jitter=0"} })
	assert.Equal(t, out.Profiles["pcct"].MethodWeights(), out.Profiles["hotmethods"].MethodWeights())
	assert.Equal(t, 1.0, out.Costs["hotmethods"].Measures[samplers.FramesExaminedPerSample])
}

// JFR samples at most MaxThreads running threads per period, round-robin.
func TestJFRThreadCap(t *testing.T) {
	src := `
name: eight
methods:
  - {class: W, name: run, body: [{loop: {trips: 1000000, body: [{work: {cycles: 1000, bytecodes: 100}}]}}]}
threads: [{name: w, entry: W.run, count: 8}]
`
	cfg := harness.MustPresetConfig("hotspot6")
	cfg.Sim.CPUs = 8
	cfg.Sim.Duration = 400 * sim.Millisecond
	// The workers' counted loop has no PcDesc without DebugNonSafepoints,
	// and JFR drops such samples (TestDebugInfoUndecipherableFrame).
	cfg.JIT.DebugNonSafepoints = true
	cfg.Samplers = []string{"jfr"}
	out, err := harness.Run(mustParse(t, src), cfg)
	require.NoError(t, err)
	c := out.Costs["jfr"]
	assert.Equal(t, int64(19), c.Requested, "ticks at 20, 40, … 380 ms")
	assert.Equal(t, int64(5*19), c.Taken, "5 of 8 running threads per period")
	perThread := map[string]int64{}
	for i, s := range out.Profiles["jfr"].Samples {
		perThread[out.Profiles["jfr"].ThreadName(i)] += s.Count
	}
	require.Len(t, perThread, 8)
	for th, n := range perThread {
		assert.InDelta(t, 95.0/8, float64(n), 1, th) // round-robin: 11 or 12 each
	}
}

// The ablation of X2: restarting every round at the first running thread
// samples the same five of eight threads forever.
func TestJFRRestartEachRoundStarvesLaterThreads(t *testing.T) {
	src := `
name: eight
methods:
  - {class: W, name: run, body: [{loop: {trips: 1000000, body: [{work: {cycles: 1000, bytecodes: 100}}]}}]}
threads: [{name: w, entry: W.run, count: 8}]
`
	cfg := harness.MustPresetConfig("hotspot6")
	cfg.Sim.CPUs = 8
	cfg.Sim.Duration = 400 * sim.Millisecond
	cfg.JIT.DebugNonSafepoints = true // as TestJFRThreadCap
	cfg.Samplers = []string{"jfr:restart,restart_each_round=true"}
	out, err := harness.Run(mustParse(t, src), cfg)
	require.NoError(t, err)
	perThread := map[string]int64{}
	for i, s := range out.Profiles["jfr:restart"].Samples {
		perThread[out.Profiles["jfr:restart"].ThreadName(i)] += s.Count
	}
	assert.Equal(t, map[string]int64{"w-0": 19, "w-1": 19, "w-2": 19, "w-3": 19, "w-4": 19}, perThread)
}
