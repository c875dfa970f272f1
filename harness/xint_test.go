package harness

import (
	"slices"
	"testing"

	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hotcoldShares runs hotcold under hotspot17 and flags with the safepoint
// sampler (passive) and returns its and the truth's method shares, by name.
func hotcoldShares(t *testing.T, flags string) (overlap, hotSampled, coldTruth float64) {
	t.Helper()
	p, err := workloads.Get("hotcold")
	require.NoError(t, err)
	cfg := MustPresetConfig("hotspot17")
	require.NoError(t, ApplyJVMFlags(&cfg, flags))
	cfg.Sim.Duration = 500 * sim.Millisecond
	cfg.Samplers = []string{"safepoint"}
	out, err := Run(p, cfg)
	require.NoError(t, err)
	truth, sp := out.Profiles["truth"], out.Profiles["safepoint"]
	share := func(pr *profile.Profile, name string) float64 {
		m := pr.MethodWeights()
		var total float64
		for _, v := range m {
			total += v
		}
		return m[name] / total
	}
	return profile.OverlapMethods(truth, sp), share(sp, "HotCold.hot"), share(truth, "HotCold.cold")
}

// xintColdShareSlack is what the safepoint sampler under -Xint may lose
// beyond HotCold.cold's own share of the time: interpreted, the first poll
// after a request is hot's return poll (in hot, before its frame is popped)
// unless the request falls in the 1 ns between that poll and cold's
// back-edge poll, so the sampler sees hot for all of cold's own time and
// the overlap is 1 − cold's true share; the slack covers the sampling noise
// of 50 samples at a share of a few per cent (one sample is 0.02).
const xintColdShareSlack = 0.02

// TestSafepointSamplerUnderXint: on Mytkowicz's hotcold, whose hot leaf
// C2 compiles without a poll, a safepoint-biased sampler puts nearly every
// sample in cold (overlap with the truth a few per cent). Interpreted
// (-Xint) hot has its return poll in itself, so the sampler is close to the
// truth at method level: off only by cold's own share, which it gives hot.
func TestSafepointSamplerUnderXint(t *testing.T) {
	compiled, _, _ := hotcoldShares(t, "")
	overlap, hot, cold := hotcoldShares(t, "-Xint")
	t.Logf("overlap with the truth: compiled %.3f, -Xint %.3f (hot sampled %.3f, cold's true share %.3f)", compiled, overlap, hot, cold)
	assert.Less(t, compiled, 0.1, "compiled: the poll-free hot loop's samples land in cold")
	assert.GreaterOrEqual(t, overlap, 1-cold-xintColdShareSlack, "-Xint: off by at most cold's own share")
	assert.Greater(t, hot, 1-cold-xintColdShareSlack, "-Xint: hot gets its own share and cold's")
}

// bcpProgram runs, interpreted, a loop without calls (B.loop) and one with
// a call in the middle (B.withCall), alternately; each method's statements
// are on lines 1, 2, 3, ... in order.
const bcpProgram = `
name: bcp
methods:
  - class: B
    name: main
    body: [{loop: {trips: 1000000000, body: [{call: {method: B.loop}}, {call: {method: B.withCall}}]}}]
  - class: B
    name: loop
    body:
      - work: {cycles: 10, bytecodes: 4}
      - loop: {trips: 200, body: [{work: {cycles: 300, bytecodes: 20}}, {work: {cycles: 300, bytecodes: 20}}, {work: {cycles: 300, bytecodes: 20}}]}
  - class: B
    name: withCall
    body:
      - work: {cycles: 10, bytecodes: 4}
      - loop: {trips: 200, body: [{work: {cycles: 300, bytecodes: 20}}, {call: {method: B.f}}, {work: {cycles: 300, bytecodes: 20}}]}
  - {class: B, name: f, body: [{work: {cycles: 20, bytecodes: 4}}]}
threads: [{name: main, entry: B.main}]
`

// TestInterpretedTopFrameIsAtTheSavedBCP: AsyncGetCallTrace and JFR place
// an interpreted top frame at the bytecode pointer saved in the frame,
// which the template interpreter stores at entry, at invokes and at VM
// calls only. On OpenJDK 17 -Xint with JFR (tools/interpreter, bcp.sh)
// every sample of a call-free loop was at bci 0 and every sample of a loop
// with a call at the invoke; the exact positions spread over the bodies.
func TestInterpretedTopFrameIsAtTheSavedBCP(t *testing.T) {
	p, err := program.Parse([]byte(bcpProgram), program.YAML)
	require.NoError(t, err)
	cfg := MustPresetConfig("hotspot17")
	require.NoError(t, ApplyJVMFlags(&cfg, "-Xint"))
	cfg.Sim.Duration = 2 * sim.Second
	cfg.Samplers = []string{"async", "async:exact,oracle=true", "jfr"}
	out, err := Run(p, cfg)
	require.NoError(t, err)
	lines := func(name, method string) map[int]float64 {
		m := map[int]float64{}
		for _, l := range out.Profiles[name].Lines() {
			if l.Method == method {
				m[l.Line] += l.SelfShare
			}
		}
		return m
	}
	// The statements: loop's entry work is line 1 and its body lines 3-5
	// (the loop is line 2); withCall's call is line 4.
	for _, s := range []string{"async", "jfr"} {
		loop, call := lines(s, "B.loop"), lines(s, "B.withCall")
		t.Logf("%s: B.loop %v, B.withCall %v", s, loop, call)
		require.Len(t, loop, 1, "%s: one line in B.loop", s)
		assert.Positive(t, loop[1], "%s: B.loop at its entry, bci 0", s)
		require.Len(t, call, 1, "%s: one line in B.withCall", s)
		assert.Positive(t, call[4], "%s: B.withCall at its invoke", s)
	}
	exactLoop, exactCall := lines("async:exact", "B.loop"), lines("async:exact", "B.withCall")
	t.Logf("exact: B.loop %v, B.withCall %v", exactLoop, exactCall)
	// Exact positions are where the time goes: B.loop's three body lines
	// and B.withCall's two work lines, and at most a rare sample in a
	// method's 10-cycle entry work (line 1: one in 12 000 of its time).
	for _, c := range []struct {
		got  map[int]float64
		body []int
	}{{exactLoop, []int{3, 4, 5}}, {exactCall, []int{3, 5}}} {
		for _, l := range c.body {
			assert.Positive(t, c.got[l], "exact positions: line %d", l)
		}
		for l := range c.got {
			assert.True(t, l == 1 || slices.Contains(c.body, l), "exact positions: line %d is no work line", l)
		}
	}
}
