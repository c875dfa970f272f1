package jit

import (
	"fmt"
	"testing"

	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func parse(t *testing.T, src string) *program.Program {
	t.Helper()
	p, err := program.Parse([]byte(src), program.YAML)
	require.NoError(t, err)
	return p
}

// setup builds a VM with the JIT attached; tweak adjusts the JIT config.
func setup(t *testing.T, p *program.Program, tweak func(*Config)) (*sim.VM, *JIT) {
	t.Helper()
	cfg := sim.DefaultConfig()
	cfg.ContextSwitch = 0
	img, err := sim.NewImage(p, cfg.Cost)
	require.NoError(t, err)
	vm, err := sim.New(img, cfg)
	require.NoError(t, err)
	jc := DefaultConfig()
	jc.Tiered = false // compile at startup: decisions by size alone
	if tweak != nil {
		tweak(&jc)
	}
	j, err := Attach(vm, jc)
	require.NoError(t, err)
	return vm, j
}

// loopBack returns the back-edge instruction of the first loop of method m.
func loopBack(t *testing.T, c *sim.Code) sim.Instr {
	for _, in := range c.Instrs {
		if in.Op == sim.OpLoopBack {
			return in
		}
	}
	t.Fatal("no loop")
	return sim.Instr{}
}

const loops = `
name: loops
methods:
  - class: L
    name: main
    body:
      - call: {method: L.counted}
      - call: {method: L.calls}
      - call: {method: L.allocs}
      - call: {method: L.outer}
  - class: L
    name: counted
    body: [{loop: {trips: 1000, body: [{work: {cycles: 10, bytecodes: 4}}, {call: {method: L.leaf}}]}}]
  - class: L
    name: calls
    body: [{loop: {trips: 1000, body: [{work: {cycles: 10, bytecodes: 4}}, {call: {method: L.big}}]}}]
  - class: L
    name: allocs
    body: [{loop: {trips: 1000, body: [{work: {cycles: 10, bytecodes: 4}}, {alloc: {bytes: 16}}]}}]
  - class: L
    name: outer
    body: [{loop: {trips: 10, body: [{loop: {trips: 100, body: [{work: {cycles: 10, bytecodes: 4}}]}}]}}]
  - class: L
    name: leaf
    body: [{work: {cycles: 20, bytecodes: 10}}]
  - class: L
    name: big
    body: [{work: {cycles: 2000, bytecodes: 400}}]
threads: [{name: main, entry: L.main}]
`

func method(t *testing.T, vm *sim.VM, name string) int32 {
	for i, n := range vm.Image().Names {
		if n == name {
			return int32(i)
		}
	}
	t.Fatalf("no method %s", name)
	return -1
}

func TestCountedLoopLosesItsPoll(t *testing.T) {
	vm, _ := setup(t, parse(t, loops), nil)
	code := func(n string) *sim.Code { return vm.Code(method(t, vm, n)) }
	// leaf (10 bytecodes ≤ MaxInlineSize) is inlined: nothing is left in
	// the loop but work, so it is counted and its back-edge poll goes.
	assert.Len(t, code("L.counted").Inline[2], 1)
	assert.Zero(t, loopBack(t, code("L.counted")).Flags&sim.FlagPoll, "counted loop keeps no poll")
	// big (400 bytecodes > FreqInlineSize) stays a call: the poll stays.
	assert.NotZero(t, loopBack(t, code("L.calls")).Flags&sim.FlagPoll)
	// Allocation keeps the poll.
	assert.NotZero(t, loopBack(t, code("L.allocs")).Flags&sim.FlagPoll)
	// An outer loop is not innermost: it keeps its poll; the inner loses it.
	var outer []sim.Instr
	for _, in := range code("L.outer").Instrs {
		if in.Op == sim.OpLoopBack {
			outer = append(outer, in)
		}
	}
	require.Len(t, outer, 2)
	assert.Zero(t, outer[0].Flags&sim.FlagPoll, "inner loop")
	assert.NotZero(t, outer[1].Flags&sim.FlagPoll, "outer loop")

	// Without inlining the call remains and the loop keeps its poll.
	vm2, _ := setup(t, parse(t, loops), func(c *Config) { c.Inline = false })
	assert.NotZero(t, loopBack(t, vm2.Code(method(t, vm2, "L.counted"))).Flags&sim.FlagPoll)
	// Jikes keeps every back-edge yield point and adds prologues/epilogues.
	vm3, _ := setup(t, parse(t, loops), func(c *Config) { c.Flavour = Jikes })
	jc := vm3.Code(method(t, vm3, "L.counted"))
	assert.NotZero(t, loopBack(t, jc).Flags&sim.FlagPoll)
	assert.True(t, jc.PollEntry)
	assert.True(t, jc.EpiloguePoll)
}

// pollCounter re-arms the poll hook forever and logs where polls were.
type pollCounter struct {
	id    sim.HandlerID
	lines []int32
	times []sim.Time
}

func (p *pollCounter) OnHook(vm sim.Agent, t sim.ThreadID, h sim.Hook) sim.Action {
	if vm.State(t) == sim.Running {
		st := vm.Stack(t, nil)
		p.lines = append(p.lines, st[len(st)-1].Line)
		p.times = append(p.times, vm.Now())
		vm.Arm(p.id, t, sim.HookPoll)
	}
	return sim.Continue
}

func countPolls(t *testing.T, vm *sim.VM) *pollCounter {
	pc := &pollCounter{}
	id, err := vm.AddHookHandler(pc)
	require.NoError(t, err)
	pc.id = id
	vm.Arm(id, 0, sim.HookPoll)
	return pc
}

func TestStripMiningKeepsOnePollEveryN(t *testing.T) {
	src := `
name: strip
methods:
  - class: S
    name: main
    body: [{loop: {trips: 1000, body: [{work: {cycles: 10, bytecodes: 4}}]}}]
threads: [{name: main, entry: S.main}]
`
	vm, _ := setup(t, parse(t, src), func(c *Config) { c.StripMiningIter = 100 })
	back := loopBack(t, vm.Code(0))
	assert.Zero(t, back.Flags&sim.FlagPoll)
	assert.Equal(t, int32(100), back.C)
	pc := countPolls(t, vm)
	res := vm.Run()
	// Ten strips of 100 iterations, each ending in the outer loop's
	// SafePoint, the last one as the loop exits: every 100 iterations
	// (100 × 10 ns + the poll).
	require.Len(t, pc.times, 10)
	for i := 1; i < len(pc.times); i++ {
		assert.Equal(t, sim.Time(1001), pc.times[i]-pc.times[i-1])
	}
	// And the fast-forwarded loop (no hook armed) charges exactly the same.
	vm2, _ := setup(t, parse(t, src), func(c *Config) { c.StripMiningIter = 100 })
	res2 := vm2.Run()
	assert.Equal(t, sim.Time(1000*10+10), res2.AppCPU())
	assert.Equal(t, res.AppCPU(), res2.AppCPU())
}

// TestStripMinedLoopPollsAsC2 pins where a strip-mined counted loop polls,
// from cases where C2's rule (opto/loopnode.cpp: the outer strip-mined
// loop's SafePoint on the inner loop's exit, strips counted from the
// loop's entry and in iterations of the unrolled loop,
// OuterStripMinedLoopNode::adjust_strip_mined_loop's short and
// single-strip loops) and the rule it replaces — a poll whenever the
// source iterations left are a multiple of N, none at the exit — disagree.
func TestStripMinedLoopPollsAsC2(t *testing.T) {
	const iter, poll = 10, 1 // ns per iteration and per poll
	for _, c := range []struct {
		name          string
		trips         string
		strip, unroll int64
		// at: the iterations completed at each poll; old: where the
		// replaced rule polled.
		at, old []int64
	}{
		{"partial last strip polls at the exit", "{uniform: [1050, 1050]}", 100, 1,
			[]int64{100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1050},
			[]int64{50, 150, 250, 350, 450, 550, 650, 750, 850, 950}},
		{"one strip, bound known at run time", "{uniform: [50, 50]}", 1000, 1, []int64{50}, nil},
		{"bound ≤ LoopStripMiningIter: the SafePoint after the loop", "500", 1000, 1, []int64{500}, nil},
		{"bound = LoopStripMiningIter+1: still one strip", "1001", 1000, 1, []int64{1001}, []int64{1}},
		{"bound ≤ LoopStripMiningIterShortLoop: no SafePoint", "101", 1000, 1, nil, nil},
		{"LoopStripMiningIter=1: the SafePoint stays in the body", "5", 1, 1, []int64{1, 2, 3, 4, 5}, []int64{1, 2, 3, 4}},
		{"LoopStripMiningIter beyond int: no SafePoint", "{uniform: [3000, 3000]}", 1 << 32, 1, nil, nil},
		{"unrolled 8 times: strips of 8 × LoopStripMiningIter", "{uniform: [2000, 2000]}", 100, 8,
			[]int64{800, 1600, 2000}, []int64{100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200, 1300, 1400, 1500, 1600, 1700, 1800, 1900}},
		{"unrolled: one strip up to 8 × LoopStripMiningIter", "700", 100, 8, []int64{700}, []int64{100, 200, 300, 400, 500, 600}},
		{"unrolled: short up to 8 × LoopStripMiningIterShortLoop", "81", 100, 8, nil, nil},
		{"unrolled: LoopStripMiningIter × unroll beyond int", "{uniform: [3000, 3000]}", 1 << 30, 2, nil, nil},
		// A constant trip count the loop's bound does not show (an
		// imported loop's fitted mean): the whole int range, one strip.
		{"bound at run time, 101 trips: the SafePoint after the loop", "101, runtime_bound: true", 1000, 1, []int64{101}, nil},
		{"bound at run time, unrolled, 81 trips", "81, runtime_bound: true", 100, 8, []int64{81}, nil},
	} {
		src := `
name: strip
methods:
  - {class: S, name: main, body: [{loop: {trips: ` + c.trips + `, body: [{work: {cycles: 10, bytecodes: 4}}]}}]}
threads: [{name: main, entry: S.main}]
`
		vm, _ := setup(t, parse(t, src), func(cfg *Config) { cfg.StripMiningIter, cfg.LoopUnroll = c.strip, c.unroll })
		pc := countPolls(t, vm)
		res := vm.Run()
		var want []sim.Time
		for i, k := range c.at {
			want = append(want, sim.Time(k*iter+int64(i+1)*poll))
		}
		assert.Equal(t, want, pc.times, c.name)
		var old []sim.Time
		for i, k := range c.old {
			old = append(old, sim.Time(k*iter+int64(i+1)*poll))
		}
		if len(want) > 0 || len(old) > 0 {
			assert.NotEqual(t, old, pc.times, "%s: a case where the rules disagree", c.name)
		}
		vm2, _ := setup(t, parse(t, src), func(cfg *Config) { cfg.StripMiningIter, cfg.LoopUnroll = c.strip, c.unroll })
		assert.Equal(t, res.AppCPU(), vm2.Run().AppCPU(), "%s: the fast-forwarded loop charges the same", c.name)
	}
}

// TestOnlySmallLoopBodiesAreUnrolled: C2 unrolled loop bodies of up to
// 143 bytecodes and not those of 273 (tools/stripmining); the strip of a
// loop that is not unrolled is LoopStripMiningIter source iterations.
func TestOnlySmallLoopBodiesAreUnrolled(t *testing.T) {
	for _, c := range []struct {
		bytecodes int
		strip     int32
	}{{150, 800}, {194, 800}, {195, 100}, {300, 100}} {
		src := fmt.Sprintf(`
name: body
methods:
  - {class: S, name: main, body: [{loop: {trips: {uniform: [5000, 6000]}, body: [{work: {cycles: 10, bytecodes: %d}}]}}]}
threads: [{name: main, entry: S.main}]
`, c.bytecodes)
		vm, _ := setup(t, parse(t, src), func(cfg *Config) { cfg.StripMiningIter, cfg.LoopUnroll, cfg.LoopUnrollMaxBody = 100, 8, 200 })
		assert.Equal(t, c.strip, loopBack(t, vm.Code(0)).C, "body of %d bytecodes and the loop's 6", c.bytecodes)
	}
}

// TestStripsStartAtOSR: a loop that switches to compiled code while it
// runs (on-stack replacement) starts its strips at its next iteration, as
// C2's OSR entry enters the outer strip-mined loop there.
func TestStripsStartAtOSR(t *testing.T) {
	src := `
name: osr
methods:
  - {class: S, name: main, body: [{loop: {trips: 1000, body: [{work: {cycles: 10, bytecodes: 4}}]}}]}
threads: [{name: main, entry: S.main}]
`
	vm, j := setup(t, parse(t, src), func(c *Config) {
		c.Tiered = true
		c.BackedgeThreshold = 237
		c.CompileNanosPerBytecode = 0
		c.StripMiningIter = 100
	})
	pc := countPolls(t, vm)
	vm.Run()
	require.Len(t, j.Events(), 1)
	installed := j.Events()[0].Done
	var compiled []sim.Time
	for _, tm := range pc.times {
		if tm > installed {
			compiled = append(compiled, tm)
		}
	}
	// The interpreter polls at every back-edge until the compiled code is
	// installed, during the next iteration; that iteration's back-edge is
	// compiled and starts the strips: 100 compiled iterations (10 ns each,
	// plus the poll) each, the last one partial and ending at the exit.
	interpreted := len(pc.times) - len(compiled)
	left := int64(1000 - interpreted - 1)
	require.Greater(t, left, int64(100))
	require.Len(t, compiled, int((left+99)/100))
	for i := 1; i < len(compiled)-1; i++ {
		assert.Equal(t, sim.Time(100*10+1), compiled[i]-compiled[i-1])
	}
	last := compiled[len(compiled)-1] - compiled[len(compiled)-2]
	assert.Equal(t, sim.Time((left-1)%100+1)*10+1, last, "the partial last strip")
}

func TestInlinedCalleeHasNoReturnPoll(t *testing.T) {
	src := `
name: inl
methods:
  - class: I
    name: main
    body:
      - loop:
          trips: 100
          body:
            - alloc: {bytes: 8}              # keeps the back-edge poll
            - call: {method: I.leaf}
  - class: I
    name: leaf
    body: [{work: {cycles: 20, bytecodes: 10}}]
threads: [{name: main, entry: I.main}]
`
	count := func(inline bool) (returnPolls, backEdgePolls int) {
		vm, _ := setup(t, parse(t, src), func(c *Config) { c.Inline = inline })
		pc := countPolls(t, vm)
		vm.Run()
		for _, l := range pc.lines {
			switch l {
			case 3: // the call's line: a return poll seen at the call site
				returnPolls++
			case 1: // the loop's line: its back-edge
				backEdgePolls++
			}
		}
		return
	}
	r, b := count(false)
	assert.Equal(t, 100, r, "not inlined: leaf's return polls")
	assert.Equal(t, 99, b)
	r, b = count(true)
	assert.Zero(t, r, "inlined: leaf has no return poll")
	assert.Equal(t, 99, b)
}

func TestTieredCompilationAndOSR(t *testing.T) {
	p, err := workloads.Get("hotcold")
	require.NoError(t, err)
	cfg := sim.DefaultConfig()
	cfg.Duration = 30 * sim.Millisecond
	img, err := sim.NewImage(p, cfg.Cost)
	require.NoError(t, err)
	vm, err := sim.New(img, cfg)
	require.NoError(t, err)
	j, err := Attach(vm, DefaultConfig())
	require.NoError(t, err)
	hot, cold := method(t, vm, "HotCold.hot"), method(t, vm, "HotCold.cold")
	assert.Equal(t, sim.Interpreted, vm.Code(hot).Tier)
	vm.Run()
	ev := j.Events()
	require.Len(t, ev, 2)
	assert.Equal(t, hot, ev[0].Method)
	assert.Equal(t, "invocations", ev[0].Reason)
	assert.Equal(t, cold, ev[1].Method)
	assert.Equal(t, "backedges (OSR)", ev[1].Reason)
	for _, e := range ev {
		// The idle compiler thread is dispatched (a context switch), then
		// spends 2 µs per bytecode compiled.
		assert.Equal(t, cfg.ContextSwitch+sim.Time(e.Size*DefaultConfig().CompileNanosPerBytecode), e.Done-e.Queued, img.Names[e.Method])
	}
	assert.Equal(t, sim.Compiled, vm.Code(cold).Tier)
	// cold's running frame was replaced on the stack (OSR) and inlines hot.
	st := vm.Stack(0, nil)
	require.GreaterOrEqual(t, len(st), 2)
	assert.Equal(t, sim.Compiled, st[1].Tier)
	assert.Len(t, vm.Code(cold).Inline[2], 1)
	assert.Contains(t, j.Explain(), "HotCold.cold: backedges (OSR)")
}

func TestDebugInfoPlacement(t *testing.T) {
	vm, _ := setup(t, parse(t, loops), nil)
	c := vm.Code(method(t, vm, "L.calls"))
	// L.calls: LoopEnter, Work, Call big, LoopBack, Return.
	assert.Equal(t, []bool{false, false, true, true, false}, c.Debug, "call site, poll; no PcDesc at the entry or the return poll")
	vm2, _ := setup(t, parse(t, loops), func(c *Config) { c.DebugNonSafepoints = true })
	assert.Nil(t, vm2.Code(method(t, vm2, "L.calls")).Debug, "every position recorded")
}

func TestConfigValidation(t *testing.T) {
	bad := []func(*Config){
		func(c *Config) { c.CompileThreshold = 0 },
		func(c *Config) { c.StripMiningIter = -1 },
		func(c *Config) { c.LoopUnroll = 0 },
		func(c *Config) { c.ReceiverDominance = 1.5 },
		func(c *Config) { c.MaxInlineLevel = -1 },
	}
	for i, b := range bad {
		c := DefaultConfig()
		b(&c)
		assert.Error(t, c.Validate(), "case %d", i)
	}
	_, err := ParseFlavour("dalvik")
	assert.ErrorContains(t, err, `unknown VM flavour "dalvik"`)
}

// fixedProfile is a call graph with given weights by static edge.
type fixedProfile map[int]float64

func (p fixedProfile) EdgeWeight(e int) float64 { return p[e] }
func (p fixedProfile) TotalWeight() float64 {
	var s float64
	for _, w := range p {
		s += w
	}
	return s
}

// TestProfileDirectedSizeLimit: with a sampled profile the size limit
// grows linearly with the edge's share up to FreqInlineSize at
// HotEdgeShare; the static limit stays a floor unless the profile
// overrides it, and then an unseen edge inlines nothing.
func TestProfileDirectedSizeLimit(t *testing.T) {
	src := `
name: two
methods:
  - {class: T, name: main, body: [{call: {method: T.a}}, {call: {method: T.b}}]}
  - {class: T, name: a, body: [{work: {cycles: 20, bytecodes: 10}}]}
  - {class: T, name: b, body: [{work: {cycles: 20, bytecodes: 10}}]}
threads: [{name: main, entry: T.main}]
`
	vm, j := setup(t, parse(t, src), nil)
	require.Len(t, vm.Image().Edges, 2)
	for _, c := range []struct {
		name      string
		weights   fixedProfile
		overrides bool
		want      [2]int64
	}{
		{"no samples: static floor", fixedProfile{}, false, [2]int64{35, 35}},
		{"hot and half-hot", fixedProfile{0: 995, 1: 5}, false, [2]int64{325, 162}},
		{"cool edge keeps the static floor", fixedProfile{0: 999, 1: 1}, false, [2]int64{325, 35}},
		{"overrides: unseen edge inlines nothing", fixedProfile{0: 10}, true, [2]int64{325, 0}},
		{"overrides: no samples at all", fixedProfile{}, true, [2]int64{0, 0}},
	} {
		j.cfg.ProfileOverridesStatic = c.overrides
		j.SetProfile(c.weights)
		assert.Equal(t, c.want, [2]int64{j.sizeLimit(0, 0), j.sizeLimit(0, 1)}, c.name)
	}
	j.SetProfile(nil)
	assert.Equal(t, int64(35), j.sizeLimit(0, 0), "exact counts: HotSpot's rule (no calls yet)")
}

// TestRecompileAllUsesTheProfileNow: a recompilation decides inlining from
// the profile as it is when it is queued, and installs through the
// compiler thread like any compilation.
func TestRecompileAllUsesTheProfileNow(t *testing.T) {
	src := `
name: rec
methods:
  - {class: R, name: main, body: [{loop: {trips: 1000, body: [{call: {method: R.mid}}]}}]}
  - {class: R, name: mid, body: [{work: {cycles: 400, bytecodes: 100}}]}
threads: [{name: main, entry: R.main}]
`
	vm, j := setup(t, parse(t, src), func(c *Config) { c.ProfileOverridesStatic = true })
	main := method(t, vm, "R.main")
	assert.Nil(t, vm.Code(main).Inline, "100-bytecode callee, no profile: not inlined")
	j.SetProfile(fixedProfile{0: 50})
	assert.Equal(t, 2, j.RecompileAll())
	ev := j.Events()
	assert.Equal(t, "recompile", ev[len(ev)-1].Reason)
	assert.Nil(t, vm.Code(main).Inline, "not installed before the compiler thread is done")
	vm.Run()
	assert.Len(t, vm.Code(main).Inline[1], 1, "hot edge now inlined")
}
