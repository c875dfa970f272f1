package jit

import (
	"fmt"
	"testing"

	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// weights is a sampled call graph: weights by static edge and a total that
// may include edges not listed (the rest of the program).
type weights struct {
	w     map[int]float64
	total float64
}

func (p weights) EdgeWeight(e int) float64 { return p.w[e] }
func (p weights) TotalWeight() float64     { return p.total }

// edge returns the static call edge from caller to callee.
func edge(t *testing.T, vm *sim.VM, caller, callee string) int {
	t.Helper()
	from, to := method(t, vm, caller), method(t, vm, callee)
	for i, e := range vm.Image().Edges {
		if e.Caller == from && e.Callee == to {
			return i
		}
	}
	t.Fatalf("no edge %s → %s", caller, callee)
	return -1
}

// sitePC returns the pc of the first instruction with op in c.
func sitePC(t *testing.T, c *sim.Code, op sim.Op) int {
	t.Helper()
	for pc, in := range c.Instrs {
		if in.Op == op {
			return pc
		}
	}
	t.Fatalf("no %v", op)
	return -1
}

// inlinedNames lists the methods inlined at pc of c.
func inlinedNames(vm *sim.VM, c *sim.Code, pc int) []string {
	var out []string
	if c.Inline != nil {
		for _, v := range c.Inline[pc] {
			out = append(out, vm.Image().Names[v.Method])
		}
	}
	return out
}

// virtual has a loop around one virtual call site with three receivers:
// a and b small, c an allocation (never counted), big beyond every limit
// reached through its own site.
const virtual = `
name: virtual
methods:
  - class: V
    name: main
    body:
      - loop:
          trips: 1000
          body: [{virtual_call: {receivers: {V.a: 1, V.b: 1, V.c: 1}}}]
      - loop:
          trips: 1000
          body: [{virtual_call: {receivers: {V.a: 1, V.big: 1, V.b: 1}}}]
  - {class: V, name: a, body: [{work: {cycles: 10, bytecodes: 4}}]}
  - {class: V, name: b, body: [{work: {cycles: 10, bytecodes: 4}}]}
  - {class: V, name: c, body: [{alloc: {bytes: 16}}]}
  - {class: V, name: big, body: [{work: {cycles: 4000, bytecodes: 400}}]}
threads: [{name: main, entry: V.main}]
`

// TestReceiverDominance: a virtual call site inlines, with a guard, a
// receiver whose share of the site's calls reaches ReceiverDominance; a
// share just below inlines nothing. Shares come from the profile.
func TestReceiverDominance(t *testing.T) {
	// HotSpot's TypeProfileMajorReceiverPercent: 90 %.
	const dominance = 0.9
	require.Equal(t, dominance, DefaultConfig().ReceiverDominance)
	vm, j := setup(t, parse(t, virtual), nil)
	mainM := method(t, vm, "V.main")
	ea, eb, ec := edge(t, vm, "V.main", "V.a"), edge(t, vm, "V.main", "V.b"), edge(t, vm, "V.main", "V.c")
	for _, c := range []struct {
		name    string
		a, b, c float64
		dom     float64
		want    []string
	}{
		{"a at the dominance", 900, 50, 50, dominance, []string{"V.a"}},
		{"a just below it", 899, 51, 50, dominance, nil},
		{"b at the dominance", 50, 900, 50, dominance, []string{"V.b"}},
		{"even shares", 1, 1, 1, dominance, nil},
		{"a lower dominance", 500, 300, 200, 0.5, []string{"V.a"}},
		{"just above a's share", 500, 300, 200, 0.501, nil},
		{"dominance 1: a monomorphic profile", 1000, 0, 0, 1, []string{"V.a"}},
	} {
		j.cfg.ReceiverDominance = c.dom
		j.SetProfile(weights{map[int]float64{ea: c.a, eb: c.b, ec: c.c}, c.a + c.b + c.c})
		code := j.compile(mainM)
		assert.Equal(t, c.want, inlinedNames(vm, code, sitePC(t, code, sim.OpVirtualCall)), c.name)
	}
}

// TestBimorphicSite: a site that saw exactly two receivers inlines both,
// whatever their shares; with a third receiver never seen the guard's
// fallback call stays.
func TestBimorphicSite(t *testing.T) {
	vm, j := setup(t, parse(t, virtual), nil)
	mainM := method(t, vm, "V.main")
	ea, eb, ec := edge(t, vm, "V.main", "V.a"), edge(t, vm, "V.main", "V.b"), edge(t, vm, "V.main", "V.c")
	j.SetProfile(weights{map[int]float64{ea: 999, eb: 1}, 1000})
	code := j.compile(mainM)
	pc := sitePC(t, code, sim.OpVirtualCall)
	assert.Equal(t, []string{"V.a", "V.b"}, inlinedNames(vm, code, pc), "b at 0.1 % inlined beside a")
	// c can still be called: the loop is not counted and keeps its poll,
	// and the fallback call has its PcDesc.
	assert.NotZero(t, loopBack(t, code).Flags&sim.FlagPoll)
	assert.True(t, code.Debug[pc])

	j.SetProfile(weights{map[int]float64{ea: 600, eb: 300, ec: 100}, 1000})
	code = j.compile(mainM)
	assert.Empty(t, inlinedNames(vm, code, pc), "three receivers seen: not bimorphic, none dominant")
}

// TestGuardedInlineAndCountedLoops: a virtual call all of whose receivers
// are inlined leaves no call in the loop, so the loop is counted (HotSpot
// removes its poll) — unless an inlined receiver allocates. A site of one
// receiver needs no guard (class-hierarchy analysis) and so has no PcDesc;
// one of two inlined keeps the guard's uncommon trap, which has one.
func TestGuardedInlineAndCountedLoops(t *testing.T) {
	src := func(receivers string) string {
		return fmt.Sprintf(`
name: guarded
methods:
  - {class: G, name: main, body: [{loop: {trips: 1000, body: [{virtual_call: {receivers: {%s}}}]}}]}
  - {class: G, name: a, body: [{work: {cycles: 10, bytecodes: 4}}]}
  - {class: G, name: b, body: [{work: {cycles: 10, bytecodes: 4}}]}
  - {class: G, name: c, body: [{alloc: {bytes: 16}}]}
threads: [{name: main, entry: G.main}]
`, receivers)
	}
	for _, c := range []struct {
		receivers string
		inlined   []string
		poll      bool // the back-edge keeps its poll
		debug     bool // the site has a PcDesc
	}{
		{"G.a: 1", []string{"G.a"}, false, false},
		{"G.a: 1, G.b: 1", []string{"G.a", "G.b"}, false, true},
		{"G.a: 1, G.c: 1", []string{"G.a", "G.c"}, true, true},
		{"G.c: 1", []string{"G.c"}, true, false},
	} {
		vm, j := setup(t, parse(t, src(c.receivers)), nil)
		mainM := method(t, vm, "G.main")
		w := weights{map[int]float64{}, 0}
		for i, e := range vm.Image().Edges {
			if e.Caller == mainM {
				w.w[i] = 100
				w.total += 100
			}
		}
		j.SetProfile(w)
		code := j.compile(mainM)
		pc := sitePC(t, code, sim.OpVirtualCall)
		assert.Equal(t, c.inlined, inlinedNames(vm, code, pc), c.receivers)
		assert.Equal(t, c.poll, loopBack(t, code).Flags&sim.FlagPoll != 0, "%s: back-edge poll", c.receivers)
		assert.Equal(t, c.debug, code.Debug[pc], "%s: PcDesc at the site", c.receivers)
	}
}

// TestDominantReceiverTooBig: a dominant receiver is inlined only within
// the size limit of its own call edge.
func TestDominantReceiverTooBig(t *testing.T) {
	vm, j := setup(t, parse(t, virtual), nil)
	mainM := method(t, vm, "V.main")
	require.Greater(t, MethodSize(vm.Image().Base[method(t, vm, "V.big")]), DefaultConfig().FreqInlineSize)
	var second int
	for pc, in := range vm.Code(mainM).Instrs {
		if in.Op == sim.OpVirtualCall {
			second = pc
		}
	}
	// The second site's edges to a and big.
	ea, ebig := -1, -1
	for i, e := range vm.Image().Edges {
		if e.Caller == mainM && e.Line == vm.Code(mainM).Instrs[second].Line {
			switch vm.Image().Names[e.Callee] {
			case "V.a":
				ea = i
			case "V.big":
				ebig = i
			}
		}
	}
	require.True(t, ea >= 0 && ebig >= 0)
	j.SetProfile(weights{map[int]float64{ebig: 1000}, 1000})
	assert.Empty(t, inlinedNames(vm, j.compile(mainM), second), "big: dominant, hot, too big")
	j.SetProfile(weights{map[int]float64{ea: 1000}, 1000})
	assert.Equal(t, []string{"V.a"}, inlinedNames(vm, j.compile(mainM), second))
}

// TestVirtualSitesFromExactCounts: without a sampled profile the shares
// are the VM's own receiver counts at the time of compilation: none before
// the site ran, then the dominant receiver of a 98:1:1 site and nothing of
// an even one. The draws are seeded: the counts are the same every run.
func TestVirtualSitesFromExactCounts(t *testing.T) {
	src := `
name: counts
methods:
  - class: E
    name: main
    body:
      - loop: {trips: 1000, body: [{virtual_call: {receivers: {E.a: 98, E.b: 1, E.c: 1}}}]}
      - loop: {trips: 1000, body: [{virtual_call: {receivers: {E.a: 1, E.b: 1, E.c: 1}}}]}
  - {class: E, name: a, body: [{work: {cycles: 10, bytecodes: 4}}]}
  - {class: E, name: b, body: [{work: {cycles: 10, bytecodes: 4}}]}
  - {class: E, name: c, body: [{work: {cycles: 10, bytecodes: 4}}]}
threads: [{name: main, entry: E.main}]
`
	vm, j := setup(t, parse(t, src), nil)
	mainM := method(t, vm, "E.main")
	var sites []int
	for pc, in := range vm.Code(mainM).Instrs {
		if in.Op == sim.OpVirtualCall {
			sites = append(sites, pc)
		}
	}
	require.Len(t, sites, 2)
	code := vm.Code(mainM)
	assert.Empty(t, inlinedNames(vm, code, sites[0]), "compiled before any call: no receiver seen")
	vm.Run()
	var a, all int64
	for i, e := range vm.Image().Edges {
		if e.Line == vm.Code(mainM).Instrs[sites[0]].Line {
			all += vm.EdgeCount(i)
			if e.Callee == method(t, vm, "E.a") {
				a += vm.EdgeCount(i)
			}
		}
	}
	require.Equal(t, int64(1000), all)
	require.GreaterOrEqual(t, float64(a)/float64(all), DefaultConfig().ReceiverDominance, "the seeded draws give a its majority")
	code = j.compile(mainM)
	assert.Equal(t, []string{"E.a"}, inlinedNames(vm, code, sites[0]))
	assert.Empty(t, inlinedNames(vm, code, sites[1]))
}

// twoCalls calls a callee of exactly FreqInlineSize bytecodes (324 + the
// return) and one of 10, each once.
const twoCalls = `
name: edges
methods:
  - {class: H, name: main, body: [{call: {method: H.large}}, {call: {method: H.small}}]}
  - {class: H, name: large, body: [{work: {cycles: 1000, bytecodes: 324}}]}
  - {class: H, name: small, body: [{work: {cycles: 20, bytecodes: 10}}]}
threads: [{name: main, entry: H.main}]
`

// TestHotEdgeShare: with a sampled call graph an edge is hot — and may
// inline up to FreqInlineSize — from HotEdgeShare of the profile's weight
// on; just below, the limit falls short of it.
func TestHotEdgeShare(t *testing.T) {
	// Arnold & Grove's 1 %.
	const hot = 0.01
	require.Equal(t, hot, DefaultConfig().HotEdgeShare)
	vm, j := setup(t, parse(t, twoCalls), nil)
	mainM := method(t, vm, "H.main")
	large := edge(t, vm, "H.main", "H.large")
	require.Equal(t, DefaultConfig().FreqInlineSize, MethodSize(vm.Image().Base[method(t, vm, "H.large")]))
	for _, c := range []struct {
		name   string
		weight float64
		want   bool
	}{
		{"1 in 100: at the share", 1, true},
		{"a little more", 2, true},
		{"0.999 in 100: just below", 0.999, false},
		{"unseen", 0, false},
	} {
		j.SetProfile(weights{map[int]float64{large: c.weight}, 100})
		code := j.compile(mainM)
		assert.Equal(t, c.want, len(inlinedNames(vm, code, 0)) == 1, c.name)
	}
	// A HotEdgeShare of 0 makes every edge hot.
	j.cfg.HotEdgeShare = 0
	j.SetProfile(weights{map[int]float64{large: 0}, 100})
	assert.Equal(t, []string{"H.large"}, inlinedNames(vm, j.compile(mainM), 0))
}

// TestProfileOverridesStatic: with a sampled call graph a small callee on
// an edge the profile never saw is inlined by MaxInlineSize alone, unless
// the profile's limit replaces it (J9).
func TestProfileOverridesStatic(t *testing.T) {
	vm, j := setup(t, parse(t, twoCalls), nil)
	mainM := method(t, vm, "H.main")
	large := edge(t, vm, "H.main", "H.large")
	for _, overrides := range []bool{false, true} {
		j.cfg.ProfileOverridesStatic = overrides
		j.SetProfile(weights{map[int]float64{large: 50}, 100})
		code := j.compile(mainM)
		assert.Equal(t, []string{"H.large"}, inlinedNames(vm, code, 0), "overrides %v: hot edge", overrides)
		assert.Equal(t, !overrides, len(inlinedNames(vm, code, 1)) == 1, "overrides %v: unseen small callee", overrides)
	}
}

// TestVirtualSiteRecursion: a receiver that is the method being compiled
// is inlined into itself MaxRecursiveInlineLevel times however dominant —
// with 1, C2's default, once and not into that copy again; with 0, the
// presets', never.
func TestVirtualSiteRecursion(t *testing.T) {
	src := `
name: rec
methods:
  - class: W
    name: main
    recursion_limit: 3
    body: [{branch: {probability: 0.5, then: [{virtual_call: {receivers: {W.main: 1, W.a: 1, W.b: 1}}}]}}]
  - {class: W, name: a, body: [{work: {cycles: 10, bytecodes: 4}}]}
  - {class: W, name: b, body: [{work: {cycles: 10, bytecodes: 4}}]}
threads: [{name: main, entry: W.main}]
`
	vm, j := setup(t, parse(t, src), func(c *Config) { c.MaxRecursiveInlineLevel = 1 })
	mainM := method(t, vm, "W.main")
	self := edge(t, vm, "W.main", "W.main")
	j.SetProfile(weights{map[int]float64{self: 1000}, 1000})
	code := j.compile(mainM)
	pc := sitePC(t, code, sim.OpVirtualCall)
	require.Equal(t, []string{"W.main"}, inlinedNames(vm, code, pc))
	assert.Empty(t, inlinedNames(vm, code.Inline[pc][0], pc), "the inlined copy does not inline itself again")
	j.cfg.MaxRecursiveInlineLevel = 0
	assert.Empty(t, inlinedNames(vm, j.compile(mainM), pc))
}
