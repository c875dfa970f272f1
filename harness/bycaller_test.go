package harness

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/sim"
)

// byCaller's A.m calls A.x when A.viaA called it and A.y when A.viaB did
// (a branch's by_caller), and A.v dispatches to them the same way (a
// virtual call's by_caller), whichever is compiled or inlined where;
// A.main's own branch names a caller but has none, so it takes its
// probability.
const byCaller = `
name: bycaller
methods:
  - class: A
    name: main
    body:
      - loop:
          trips: 1000000
          body:
            - branch: {probability: 1, by_caller: {A.viaA: 0}, then: [{call: {method: A.viaA}}]}
            - call: {method: A.viaB}
  - {class: A, name: viaA, body: [{work: {cycles: 20, bytecodes: 4}}, {call: {method: A.m}}, {call: {method: A.v}}]}
  - {class: A, name: viaB, body: [{work: {cycles: 20, bytecodes: 4}}, {call: {method: A.m}}, {call: {method: A.v}}]}
  - class: A
    name: v
    body:
      - virtual_call: {receivers: {A.x: 1, A.y: 1}, by_caller: {A.viaA: {A.x: 1}, A.viaB: {A.x: 0, A.y: 2}}}
  - class: A
    name: m
    body:
      - branch: {probability: 0.5, by_caller: {A.viaA: 1, A.viaB: 0}, then: [{call: {method: A.x}}], else: [{call: {method: A.y}}]}
  - {class: A, name: x, body: [{work: {cycles: 300, bytecodes: 30}}]}
  - {class: A, name: y, body: [{work: {cycles: 300, bytecodes: 30}}]}
threads: [{name: main, entry: A.main}]
`

// stackWeight is p's self weight at the stack of the named frames, root
// first. A name that is none of p's functions fails the test, so that a
// mistyped frame cannot make a zero weight pass.
func stackWeight(t *testing.T, p *profile.Profile, frames ...string) int64 {
	t.Helper()
	for _, name := range frames {
		if !slices.ContainsFunc(p.Functions, func(f profile.Function) bool { return f.Name == name }) {
			t.Fatalf("no function %q in the profile", name)
		}
	}
	var w int64
	var buf []profile.Frame
	for i, s := range p.Samples {
		buf = p.Stack(i, buf)
		if slices.EqualFunc(buf, frames, func(f profile.Frame, name string) bool { return p.Functions[f.Func].Name == name }) {
			w += s.Weight
		}
	}
	return w
}

func TestByCaller(t *testing.T) {
	for _, vm := range []string{"hotspot17", "hotspot6"} {
		cfg := MustPresetConfig(vm)
		cfg.Sim.Duration = 200 * sim.Millisecond
		rig, err := Build(parse(t, byCaller), cfg)
		require.NoError(t, err)
		require.NoError(t, rig.Run())
		// The JIT has inlined A.m into both callers by now: the caller a
		// branch or a dispatch reads is the frame's, inlined or not.
		for _, caller := range []string{"A.viaA", "A.viaB"} {
			c := rig.VM().Code(int32(slices.Index(rig.Image().Names, caller)))
			require.True(t, slices.ContainsFunc(c.Inline, func(v []*sim.Code) bool { return len(v) > 0 }), "%s %s inlines A.m", vm, caller)
		}
		out, err := rig.Collect()
		require.NoError(t, err)
		p := out.Profiles["truth"]
		assert.Positive(t, stackWeight(t, p, "A.main", "A.viaA", "A.m", "A.x"), vm)
		assert.Positive(t, stackWeight(t, p, "A.main", "A.viaB", "A.m", "A.y"), vm)
		assert.Zero(t, stackWeight(t, p, "A.main", "A.viaA", "A.m", "A.y"), vm)
		assert.Zero(t, stackWeight(t, p, "A.main", "A.viaB", "A.m", "A.x"), vm)
		assert.Positive(t, stackWeight(t, p, "A.main", "A.viaA", "A.v", "A.x"), vm)
		assert.Positive(t, stackWeight(t, p, "A.main", "A.viaB", "A.v", "A.y"), vm)
		assert.Zero(t, stackWeight(t, p, "A.main", "A.viaA", "A.v", "A.y"), vm)
		assert.Zero(t, stackWeight(t, p, "A.main", "A.viaB", "A.v", "A.x"), vm)
	}
}

// byDepth's A.r recurses at depths 1 and 2 and not at 3 (a branch's
// by_depth), and dispatches to A.x at depth 1 and A.y deeper (a virtual
// call's by_depth, its last entry for every depth past it).
const byDepth = `
name: bydepth
methods:
  - {class: A, name: main, body: [{loop: {trips: 1000000, body: [{call: {method: A.r}}]}}]}
  - class: A
    name: r
    recursion_limit: 6
    body:
      - work: {cycles: 10, bytecodes: 2}
      - branch: {probability: 1, by_depth: [1, 1, 0], then: [{call: {method: A.r}}]}
      - virtual_call: {receivers: {A.x: 1, A.y: 1}, by_depth: [{A.x: 1}, {A.y: 1}]}
  - {class: A, name: x, body: [{work: {cycles: 300, bytecodes: 30}}]}
  - {class: A, name: y, body: [{work: {cycles: 300, bytecodes: 30}}]}
threads: [{name: main, entry: A.main}]
`

func TestByDepth(t *testing.T) {
	for _, vm := range []string{"hotspot17", "hotspot6"} {
		cfg := MustPresetConfig(vm)
		cfg.Sim.Duration = 100 * sim.Millisecond
		out, err := Run(parse(t, byDepth), cfg)
		require.NoError(t, err)
		p := out.Profiles["truth"]
		assert.Positive(t, stackWeight(t, p, "A.main", "A.r", "A.x"), vm)
		assert.Positive(t, stackWeight(t, p, "A.main", "A.r", "A.r", "A.y"), vm)
		assert.Positive(t, stackWeight(t, p, "A.main", "A.r", "A.r", "A.r", "A.y"), vm)
		assert.Zero(t, stackWeight(t, p, "A.main", "A.r", "A.y"), vm)
		assert.Zero(t, stackWeight(t, p, "A.main", "A.r", "A.r", "A.x"), vm)
		assert.Zero(t, stackWeight(t, p, "A.main", "A.r", "A.r", "A.r", "A.r"), vm)
	}
}
