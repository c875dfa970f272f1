package samplers_test

import (
	"strings"
	"testing"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The cases where HotSpot's rule — the first PcDesc at or after the pc,
// with its inlined scopes (pc_desc_near(pc + 1), forte.cpp and
// jfrCallTrace.cpp) — and the nearest preceding record disagree. Each has
// a twin in tools/debuginfo/DebugInfo.java, whose JFR samples on OpenJDK 17
// land where these tests expect (tools/debuginfo/README.md).

// shareTolerance bounds |async's share − the truth's share| of a top
// frame: 1000 samples (1 ms for 1 s) give a binomial standard error of at
// most 1.6 points, so 5 points is over three of them.
const shareTolerance = 0.05

// leaf is a sample's top frame, with how deep it is.
type leaf struct {
	Method  string
	Line    int
	Inlined bool
	Depth   int
}

// leafShares is each top frame's share of p's sample counts.
func leafShares(p *profile.Profile) map[leaf]float64 {
	out := map[leaf]float64{}
	total := float64(p.TotalCount())
	for i, s := range p.Samples {
		f, _ := p.Leaf(i)
		out[leaf{p.Functions[f.Func].Name, int(f.Line), f.Inlined, p.Depth(i)}] += float64(s.Count) / total
	}
	return out
}

// truthLineShare is the truth's share of the time spent at (method, line)
// as the top frame, by line self time.
func truthLineShare(out *harness.Outcome, method string, line int) float64 {
	var at, total float64
	for i, s := range out.Profiles["truth"].Samples {
		f, _ := out.Profiles["truth"].Leaf(i)
		total += float64(s.Weight)
		if out.Profiles["truth"].Functions[f.Func].Name == method && int(f.Line) == line {
			at += float64(s.Weight)
		}
	}
	return at / total
}

// runDebugInfo runs src compiled at start-up (no interpreter phase) with
// async and jfr at 1 ms, resolving through debug information.
func runDebugInfo(t *testing.T, src string, tweak func(*harness.Config)) *harness.Outcome {
	t.Helper()
	p, err := program.Parse([]byte(src), program.YAML)
	require.NoError(t, err)
	cfg := harness.MustPresetConfig("hotspot6")
	cfg.Sim.Duration = sim.Second
	cfg.JIT.Tiered = false
	cfg.Samplers = []string{"async,interval=1ms", "jfr,period=1ms"}
	if tweak != nil {
		tweak(&cfg)
	}
	out, err := harness.Run(p, cfg)
	require.NoError(t, err)
	return out
}

// A poll-free leaf inlined into a strip-mined counted loop: its samples
// resolve to the loop's strip poll, after the call in code order — the
// loop's line, hot() gone (the preceding rule gives cold()'s entry). With
// DebugNonSafepoints every statement has a record: hot() at its line.
const leafInLoop = `
name: leafloop
methods:
  - class: D
    name: main
    body: [{loop: {trips: 1000000000, body: [{call: {method: D.cold}}]}}]
  - class: D
    name: cold
    body:
      - work: {cycles: 10, bytecodes: 4}
      - loop: {trips: 100000, body: [{call: {method: D.hot}}]}
  - class: D
    name: hot
    body: [{work: {cycles: 50, bytecodes: 20}}]
threads: [{name: main, entry: D.main}]
compile_commands: ["dontinline,D::cold"]
`

func TestDebugInfoPollFreeLeafInlinedInALoop(t *testing.T) {
	strip := func(c *harness.Config) { c.JIT.StripMiningIter = 1000 }
	out := runDebugInfo(t, leafInLoop, strip)
	hot := truthLineShare(out, "D.hot", 1)
	require.Greater(t, hot, 0.9, "the leaf is the program's time")
	got := leafShares(out.Profiles["async"])
	assert.InDelta(t, hot, got[leaf{"D.cold", 2, false, 2}], shareTolerance, "cold() at its loop (line 2)")
	assert.Zero(t, got[leaf{"D.cold", 1, false, 2}], "cold()'s entry: the nearest preceding position has no PcDesc")
	assert.Zero(t, got[leaf{"D.hot", 1, true, 3}])
	dns := runDebugInfo(t, leafInLoop, func(c *harness.Config) { strip(c); c.JIT.DebugNonSafepoints = true })
	assert.InDelta(t, hot, leafShares(dns.Profiles["async"])[leaf{"D.hot", 1, true, 3}], shareTolerance)
}

// A long run of field updates (Work) in an inlined callee before a call
// that is not inlined: the samples resolve to the call's record, whose
// scope chain keeps the inlined fields() frame — the preceding rule drops
// it (fields() has no record before its Work) and names main()'s loop.
const fieldsThenCall = `
name: fields
methods:
  - class: D
    name: main
    body: [{loop: {trips: 1000000000, body: [{call: {method: D.fields}}]}}]
  - class: D
    name: fields
    body:
      - work: {cycles: 400, bytecodes: 30}
      - call: {method: D.callee}
  - class: D
    name: callee
    body: [{work: {cycles: 4, bytecodes: 2}}]
threads: [{name: main, entry: D.main}]
compile_commands: ["dontinline,D::callee"]
`

func TestDebugInfoLongWorkBeforeACall(t *testing.T) {
	out := runDebugInfo(t, fieldsThenCall, nil)
	work := truthLineShare(out, "D.fields", 1)
	require.Greater(t, work, 0.9)
	for _, s := range []string{"async", "jfr"} {
		got := leafShares(out.Profiles[s])
		assert.InDelta(t, work+truthLineShare(out, "D.fields", 2), got[leaf{"D.fields", 2, true, 2}], shareTolerance,
			"%s: fields() kept, at its call (line 2)", s)
		assert.InDelta(t, truthLineShare(out, "D.main", 1), got[leaf{"D.main", 1, false, 1}], shareTolerance,
			"%s: main()'s loop, the preceding rule's answer, only for its own time", s)
		// callee() is a poll-free method compiled on its own: no PcDesc.
		c := out.Costs[s]
		assert.InDelta(t, truthLineShare(out, "D.callee", 1), float64(c.Undecipherable)/float64(c.Requested), shareTolerance, s)
	}
}

// A counted loop between two calls that are not inlined. Without its poll
// (hotspot6: no counted-loop safepoints) a sample in the loop resolves to
// the call after the loop (line 4); with strip mining, to the loop's poll
// (line 2). The preceding rule gives the call before the loop (line 1)
// both times.
const countedLoop = `
name: counted
methods:
  - class: D
    name: main
    body: [{loop: {trips: 1000000000, body: [{call: {method: D.counted}}]}}]
  - class: D
    name: counted
    body:
      - call: {method: D.callee}
      - loop: {trips: 100000, body: [{work: {cycles: 10, bytecodes: 8}}]}
      - call: {method: D.callee}
  - class: D
    name: callee
    body: [{work: {cycles: 4, bytecodes: 2}}]
threads: [{name: main, entry: D.main}]
compile_commands: ["dontinline,D::callee", "dontinline,D::counted"]
`

func TestDebugInfoCountedLoopWithAndWithoutItsPoll(t *testing.T) {
	for _, c := range []struct {
		name  string
		strip int64
		line  int
	}{{"no poll", 0, 4}, {"strip mined", 1000, 2}} {
		out := runDebugInfo(t, countedLoop, func(cfg *harness.Config) { cfg.JIT.StripMiningIter = c.strip })
		body := truthLineShare(out, "D.counted", 3)
		require.Greater(t, body, 0.9, c.name)
		for _, s := range []string{"async", "jfr"} {
			got := leafShares(out.Profiles[s])
			assert.InDelta(t, body, got[leaf{"D.counted", c.line, false, 2}], shareTolerance, "%s, %s", c.name, s)
			assert.Zero(t, got[leaf{"D.counted", 1, false, 2}], "%s, %s: the preceding rule's line", c.name, s)
		}
	}
}

// A poll-free leaf compiled on its own has no PcDesc at all: its samples
// are undecipherable. AsyncGetCallTrace records the method at bci 0; JFR
// drops them and samples nothing else in their place (one thread).
const standaloneLeaf = `
name: standalone
methods:
  - class: D
    name: main
    body: [{loop: {trips: 1000000000, body: [{call: {method: D.hot}}]}}]
  - class: D
    name: hot
    body: [{work: {cycles: 50, bytecodes: 20}}, {work: {cycles: 50, bytecodes: 20}}]
threads: [{name: main, entry: D.main}]
compile_commands: ["dontinline,D::hot"]
`

func TestDebugInfoUndecipherableFrame(t *testing.T) {
	out := runDebugInfo(t, standaloneLeaf, nil)
	hot := truthLineShare(out, "D.hot", 1) + truthLineShare(out, "D.hot", 2)
	require.Greater(t, hot, 0.9)
	async, jfr := out.Costs["async"], out.Costs["jfr"]
	assert.InDelta(t, hot, float64(async.Undecipherable)/float64(async.Taken), shareTolerance)
	assert.InDelta(t, hot, leafShares(out.Profiles["async"])[leaf{"D.hot", 1, false, 2}], shareTolerance,
		"async: hot() at bci 0 (line 1) for both of its lines")
	assert.Zero(t, leafShares(out.Profiles["async"])[leaf{"D.hot", 2, false, 2}])
	assert.Positive(t, jfr.Undecipherable)
	assert.Zero(t, leafShares(out.Profiles["jfr"])[leaf{"D.hot", 1, false, 2}]+leafShares(out.Profiles["jfr"])[leaf{"D.hot", 2, false, 2}],
		"jfr: no sample of hot()")
	assert.Equal(t, jfr.Requested, jfr.Taken+jfr.Undecipherable, "one running thread: each round samples it or fails")
}

// The same leaf with uncommon traps of its own (HotCold.hot's range, zero
// and unstable-if checks): C2 places the trap calls, with their PcDescs,
// after the return, so every position in hot()'s body resolves to hot()
// at the line the first trap names, its last (tools/debuginfo, mode
// hotcold: on OpenJDK 17 with -XX:-Inline, JFR charges 90-92 % of the
// samples to hot() at line 12, the rest to cold()'s loop).
func TestDebugInfoStandaloneLeafWithTraps(t *testing.T) {
	out := runDebugInfo(t, strings.Replace(standaloneLeaf, "name: hot\n", "name: hot\n    traps: true\n", 1), nil)
	hot := truthLineShare(out, "D.hot", 1) + truthLineShare(out, "D.hot", 2)
	require.Greater(t, hot, 0.9)
	for _, name := range []string{"async", "jfr"} {
		assert.Zero(t, out.Costs[name].Undecipherable, name)
		shares := leafShares(out.Profiles[name])
		assert.InDelta(t, hot, shares[leaf{"D.hot", 2, false, 2}], shareTolerance, "%s: hot() at its last line", name)
		assert.Zero(t, shares[leaf{"D.hot", 1, false, 2}], name)
	}
}

// Allocations between the code and its call: C2 lays their slow paths,
// each a call with a PcDesc, out of line after the return, in the
// allocations' order and before the uncommon traps. A position before the
// call resolves to the call (line 5), as without the allocations; one
// past the call, the last record in line, to the first allocation (line
// 2), not to the trap's line (tools/debuginfo, modes alloc and allocTrap:
// on OpenJDK 17 every JFR sample past the call is at the first
// allocation's line, none at an allocation's line from before it).
const allocations = `
name: alloc
methods:
  - class: D
    name: main
    body: [{loop: {trips: 1000000000, body: [{call: {method: D.two}}]}}]
  - class: D
    name: two
    traps: true
    body:
      - work: {cycles: 40, bytecodes: 20}
      - alloc: {bytes: 24}
      - work: {cycles: 20, bytecodes: 10}
      - alloc: {bytes: 32}
      - call: {method: D.callee}
      - work: {cycles: 40, bytecodes: 20}
  - class: D
    name: callee
    body: [{work: {cycles: 4, bytecodes: 2}}]
threads: [{name: main, entry: D.main}]
compile_commands: ["dontinline,D::callee", "dontinline,D::two"]
`

func TestDebugInfoAllocationsOutOfLine(t *testing.T) {
	out := runDebugInfo(t, allocations, nil)
	before := 0.0
	for line := 1; line <= 5; line++ {
		before += truthLineShare(out, "D.two", line)
	}
	after := truthLineShare(out, "D.two", 6)
	require.Greater(t, before+after, 0.8)
	require.Greater(t, after, 0.2)
	for _, name := range []string{"async", "jfr"} {
		shares := leafShares(out.Profiles[name])
		assert.InDelta(t, before, shares[leaf{"D.two", 5, false, 2}], shareTolerance, "%s: up to the call, at the call", name)
		assert.InDelta(t, after, shares[leaf{"D.two", 2, false, 2}], shareTolerance, "%s: past the call, at the first allocation", name)
		for _, line := range []int{1, 3, 4, 6} {
			assert.Zero(t, shares[leaf{"D.two", line, false, 2}], "%s: line %d", name, line)
		}
	}
}

// ResolveDebugInfo on hand-built code: the record may be in a later
// inlined callee (a deeper stack), past the end of the inlined body in a
// caller (a shallower one), after the other inlined receivers of a virtual
// call, or absent.
func TestResolveDebugInfoScopes(t *testing.T) {
	work := sim.Instr{Op: sim.OpWork}
	// leafA: Work, Work (no record). leafB: Work, Call (record at 2).
	leafA := &sim.Code{Method: 3, Instrs: []sim.Instr{{Op: sim.OpWork, Line: 1}, {Op: sim.OpWork, Line: 2}, {Op: sim.OpReturn, Line: 3}}, Debug: []bool{false, false, false}}
	leafB := &sim.Code{Method: 4, Instrs: []sim.Instr{{Op: sim.OpWork, Line: 1}, {Op: sim.OpCall, Line: 2}, {Op: sim.OpReturn, Line: 3}}, Debug: []bool{false, true, false}}
	// mid inlines leafA at pc 1 and, at the virtual call at pc 2, both
	// leafA and leafB; pc 3 is a record (a native call).
	mid := &sim.Code{Method: 2, Instrs: []sim.Instr{work, {Op: sim.OpCall, Line: 2}, {Op: sim.OpVirtualCall, Line: 3, C: 2}, {Op: sim.OpNative, Line: 4}, {Op: sim.OpReturn, Line: 5}},
		Debug: []bool{false, false, true, true, false}, Inline: [][]*sim.Code{nil, {leafA}, {leafA, leafB}, nil, nil}}
	mid.Instrs[0].Line = 1
	root := &sim.Code{Method: 1, Instrs: []sim.Instr{{Op: sim.OpCall, Line: 1}, {Op: sim.OpWork, Line: 2}, {Op: sim.OpReturn, Line: 3}},
		Debug: []bool{false, false, false}, Inline: [][]*sim.Code{{mid}, nil, nil}}
	caller := sim.StackFrame{Method: 0, Line: 7, Code: &sim.Code{Method: 0, Instrs: make([]sim.Instr, 8)}, PC: 6}
	type frame struct {
		Method, Line int32
		Inlined      bool
	}
	frames := func(st []sim.StackFrame) []frame {
		var out []frame
		for _, f := range st {
			out = append(out, frame{f.Method, f.Line, f.Inlined})
		}
		return out
	}
	at := func(c *sim.Code, pc int32, inlined bool) sim.StackFrame {
		return sim.StackFrame{Method: c.Method, Line: c.Instrs[pc].Line, Inlined: inlined, Code: c, PC: pc}
	}
	for _, c := range []struct {
		name  string
		stack []sim.StackFrame
		want  []frame
		ok    bool
	}{
		{"in leafA at the static call: past its end, on to the virtual call's first inlined receiver, leafA again (no record), then leafB's call",
			[]sim.StackFrame{caller, at(root, 0, false), at(mid, 1, true), at(leafA, 0, true)},
			[]frame{{0, 7, false}, {1, 1, false}, {2, 3, true}, {4, 2, true}}, true},
		{"in mid's Work: the record is in an inlined callee two statements on",
			[]sim.StackFrame{caller, at(root, 0, false), at(mid, 0, true)},
			[]frame{{0, 7, false}, {1, 1, false}, {2, 3, true}, {4, 2, true}}, true},
		{"in leafB past its call: the virtual call's own record (its guard's trap)",
			[]sim.StackFrame{caller, at(root, 0, false), at(mid, 2, true), at(leafB, 2, true)},
			[]frame{{0, 7, false}, {1, 1, false}, {2, 3, true}}, true},
		{"in leafA as the first receiver: leafB comes next",
			[]sim.StackFrame{caller, at(root, 0, false), at(mid, 2, true), at(leafA, 1, true)},
			[]frame{{0, 7, false}, {1, 1, false}, {2, 3, true}, {4, 2, true}}, true},
		{"in root's Work after the inlined mid: no record left, the compiled method at bci 0",
			[]sim.StackFrame{caller, at(root, 1, false)},
			[]frame{{0, 7, false}, {1, 1, false}}, false},
	} {
		got, ok := samplers.ResolveDebugInfo(c.stack, nil)
		assert.Equal(t, c.ok, ok, c.name)
		assert.Equal(t, c.want, frames(got), c.name)
	}
	// Every position recorded (DebugNonSafepoints): exact.
	exact := &sim.Code{Method: 5, Instrs: []sim.Instr{work, work}}
	got, ok := samplers.ResolveDebugInfo([]sim.StackFrame{caller, at(exact, 1, false)}, nil)
	assert.True(t, ok)
	assert.Equal(t, []frame{{0, 7, false}, {5, 0, false}}, frames(got))
}
