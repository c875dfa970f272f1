package sim

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/profsim/profsim/program"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A program that only sleeps reaches any simulated time in a few
// scheduling rounds: with every CPU idle, time jumps to the next event
// rather than stepping by MaxStep (10 000 s of sleep were 10⁸ rounds).
func TestSleepAdvancesByEvents(t *testing.T) {
	src := `
name: sleeper
methods:
  - class: A
    name: main
    body:
      - loop:
          trips: 3
          body:
            - block: {kind: sleep, duration: 10000s}
            - work: {cycles: 1000, bytecodes: 1}
threads: [{name: main, entry: A.main}]
`
	// maxRounds: each sleep costs a round to block, one to wake and one to
	// run the work; a few more start and end the run.
	const maxRounds = 3*3 + 8
	vm := newVM(t, parse(t, src), func(c *Config) { c.Duration = MaxTime })
	r := vm.Run()
	require.Empty(t, r.Incidents)
	assert.Greater(t, r.End, 30000*Second, "the thread slept three times 10 000 s")
	assert.LessOrEqual(t, vm.rounds, int64(maxRounds), "scheduling rounds")

	// Up to the configured duration when the sleep outlasts it.
	vm = newVM(t, parse(t, src), func(c *Config) { c.Duration = 15000 * Second })
	r = vm.Run()
	assert.Equal(t, 15000*Second, r.End)
	assert.LessOrEqual(t, vm.rounds, int64(maxRounds), "scheduling rounds")
}

// limitErr runs p under limits and returns the error that stopped it.
func limitErr(t *testing.T, src string, l Limits, tweak func(*Config)) (*VM, *LimitError) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Duration = 1000 * Second
	cfg.Limits = l
	if tweak != nil {
		tweak(&cfg)
	}
	img, err := NewImage(parse(t, src), cfg.Cost)
	require.NoError(t, err)
	vm, err := New(img, cfg)
	if err == nil {
		vm.Run()
		err = vm.Err()
	}
	var le *LimitError
	require.ErrorAs(t, err, &le)
	return vm, le
}

// spawnTree is a program whose thread at level i spawns fan threads of
// level i+1: fan^levels threads in all.
func spawnTree(levels, fan int, join bool) string {
	src := "name: tree\nmethods:\n"
	for i := 0; i < levels; i++ {
		src += fmt.Sprintf("  - {class: T, name: m%d, body: [{spawn: {name: t%d, entry: T.m%d, count: %d, join: %v}}, {work: {cycles: 100000, bytecodes: 1}}]}\n", i, i, i+1, fan, join)
	}
	src += fmt.Sprintf("  - {class: T, name: m%d, body: [{work: {cycles: 100000, bytecodes: 1}}]}\n", levels)
	return src + "threads: [{name: main, entry: T.m0}]\n"
}

// The thread limit counts the program's threads before any is created,
// and spawned ones as they are spawned: the run stops at the spawn that
// would exceed it, in simulated time.
func TestThreadLimit(t *testing.T) {
	many := `
name: many
methods: [{class: A, name: main, body: [{work: {cycles: 1000, bytecodes: 1}}]}]
threads: [{name: main, entry: A.main, count: 2000000000}]
`
	vm, le := limitErr(t, many, DefaultLimits(), nil)
	assert.Nil(t, vm, "no VM, so no two billion threads")
	assert.Equal(t, "threads", le.Limit)
	assert.Equal(t, int64(2000000000), le.Value)
	assert.Equal(t, int64(DefaultLimits().MaxThreads), le.Max)
	assert.Zero(t, le.At)

	// A spawn storm: 10^9 threads in nine levels; 1000 allowed.
	vm, le = limitErr(t, spawnTree(9, 10, false), Limits{MaxThreads: 1000}, nil)
	assert.Equal(t, "threads", le.Limit)
	assert.Equal(t, int64(1000), le.Max)
	assert.Greater(t, le.Value, int64(1000))
	assert.LessOrEqual(t, le.Value, int64(1000+10), "stopped at the first spawn over the limit")
	assert.Positive(t, le.At)
	assert.Contains(t, le.Detail, "spawning 10 × T.m")
	assert.Equal(t, int(le.Value)-10, vm.appThreads, "threads created: none of the refused spawn")

	// Exactly at the limit is allowed: 1 + 10 + 100 threads.
	src := spawnTree(2, 10, true)
	cfg := DefaultConfig()
	cfg.Limits.MaxThreads = 111
	img, err := NewImage(parse(t, src), cfg.Cost)
	require.NoError(t, err)
	vm, err = New(img, cfg)
	require.NoError(t, err)
	r := vm.Run()
	require.NoError(t, vm.Err())
	assert.Len(t, r.Threads, 111)
}

// spawnChain is issue 14's 40 000-deep spawn chain: each thread spawns
// the next and joins it, so all of them are alive at once.
func spawnChain(n int) *program.Program {
	p := &program.Program{Name: "chain", Threads: []program.Thread{{Name: "main", Entry: "C.m0", Count: 1}}}
	for i := 0; i < n; i++ {
		body := []program.Stmt{{Work: &program.Work{Cycles: 10, Bytecodes: 1}}}
		if i < n-1 {
			body = []program.Stmt{{Spawn: &program.Spawn{Name: fmt.Sprintf("t%d", i), Entry: fmt.Sprintf("C.m%d", i+1), Count: 1, Join: true}}}
		}
		p.Methods = append(p.Methods, program.Method{Class: "C", Name: fmt.Sprintf("m%d", i), Body: body})
	}
	return p
}

// The 40 000-deep chain runs to its end within the default limits, each
// thread costing the same whatever the program's size (no per-method
// array: 40 000 threads of 40 000 counters were 6.4 GB); a thread limit
// stops it at the spawn that passes it.
func TestSpawnChain(t *testing.T) {
	const n = 40000
	cfg := DefaultConfig()
	img, err := NewImage(spawnChain(n), cfg.Cost)
	require.NoError(t, err)
	vm, err := New(img, cfg)
	require.NoError(t, err)
	r := vm.Run()
	require.NoError(t, vm.Err())
	require.Empty(t, r.Incidents)
	assert.Len(t, r.Threads, n)
	assert.Equal(t, int64(threadBytes), vm.foot.ThreadBytes, "no recursion limits: nothing per method")
	assert.Zero(t, vm.foot.Frames, "finished threads keep no stack")

	cfg.Limits.MaxThreads = 1000
	vm, err = New(img, cfg)
	require.NoError(t, err)
	vm.Run()
	var le *LimitError
	require.ErrorAs(t, vm.Err(), &le)
	assert.Equal(t, "threads", le.Limit)
	assert.Equal(t, int64(1001), le.Value)
	assert.Equal(t, "thread t998-0 spawning 1 × C.m1000", le.Detail)
}

// Recursion through virtual calls with three receivers makes a new
// calling context at nearly every call (3^depth of them); the memory
// limit stops it as soon as the estimate passes the limit.
func TestMemoryLimitStopsContextExplosion(t *testing.T) {
	src := `
name: virt
methods:
  - {class: A, name: f, recursion_limit: 12, body: [{work: {cycles: 10, bytecodes: 1}}, {virtual_call: {receivers: {A.f: 1, B.f: 1, C.f: 1}}}]}
  - {class: B, name: f, recursion_limit: 12, body: [{virtual_call: {receivers: {A.f: 1, B.f: 1, C.f: 1}}}]}
  - {class: C, name: f, recursion_limit: 12, body: [{virtual_call: {receivers: {A.f: 1, B.f: 1, C.f: 1}}}]}
  - {class: M, name: main, body: [{loop: {trips: 100000000, body: [{call: {method: A.f}}]}}]}
threads: [{name: main, entry: M.main}]
`
	const max = 32 << 20
	vm, le := limitErr(t, src, Limits{MaxMemory: max}, nil)
	assert.Equal(t, "memory", le.Limit)
	assert.Equal(t, int64(max), le.Max)
	assert.Greater(t, le.Value, int64(max))
	// One more context (2 lines, its truth-profile context and sample)
	// is all it passed the limit by.
	assert.LessOrEqual(t, le.Value, int64(max+contextBytes+2*lineBytes+profileContextBytes+sampleBytes))
	assert.Equal(t, vm.foot.Bytes(), le.Value)
	assert.Contains(t, le.Detail, "calling contexts")
	assert.Positive(t, le.At)
	assert.Equal(t, int64(3*activeBytes), vm.foot.ThreadBytes-threadBytes, "three methods with a recursion limit")

	// Whatever the limit, the run stops at the first context that takes
	// the estimate past it, though newContext computes the estimate only
	// once the headroom left by the last computation is used up. A
	// context costs at most price (its method's line slots).
	price := int64(contextBytes + int(slices.Max(vm.truth.lineCount))*lineBytes + profileContextBytes + sampleBytes)
	for _, m := range []int64{1 << 20, 5<<20 + 1, 5<<20 + price/2, 9<<20 + 3, 17 << 20} {
		vm, le := limitErr(t, src, Limits{MaxMemory: m}, nil)
		assert.Greater(t, le.Value, m, "limit %d", m)
		assert.LessOrEqual(t, le.Value-price, m, "limit %d: stopped a context late", m)
		assert.Equal(t, vm.foot.Bytes(), le.Value, "limit %d", m)
	}

	// The same run without a truth profile holds less per context and
	// gets further.
	cfg := DefaultConfig()
	cfg.Duration, cfg.Limits = 1000*Second, Limits{MaxMemory: max}
	img, err := NewImage(parse(t, src), cfg.Cost)
	require.NoError(t, err)
	bare, err := New(img, cfg)
	require.NoError(t, err)
	bare.NoTruthProfile()
	bare.Run()
	var le2 *LimitError
	require.ErrorAs(t, bare.Err(), &le2)
	assert.Greater(t, le2.At, le.At)
	assert.Zero(t, bare.foot.Samples)
}

// Deep stacks count: a thread recursing 4000 frames deep, many times
// over.
func TestMemoryLimitCountsStacks(t *testing.T) {
	src := `
name: deep
methods:
  - {class: A, name: f, recursion_limit: 4000, body: [{work: {cycles: 10, bytecodes: 1}}, {call: {method: A.f}}]}
threads: [{name: main, entry: A.f, count: 50}]
`
	// 50 threads, each on its own CPU, × 4000 frames: 19 MB of stacks
	// alone (frameBytes each), the recorder's 4000 contexts and the truth
	// profile's 8000 samples under 1.5 MB.
	_, le := limitErr(t, src, Limits{MaxMemory: 8 << 20}, func(c *Config) { c.MaxStackDepth, c.CPUs = 5000, 50 })
	assert.Equal(t, "memory", le.Limit)
	assert.Contains(t, le.Detail, "frames on their stacks")
}

// The truth profile is checked as it will be built: one sample per
// (context, line) with self time (its size against harness.TruthProfile's:
// harness's TestTruthProfileFootprint). A.g has lines enough that the
// built profile's samples cost more than the run's estimate (a sample per
// context and the stack's two frames).
func TestCheckProfile(t *testing.T) {
	src := `
name: lines
methods:
  - {class: A, name: main, body: [{work: {cycles: 100, bytecodes: 1}}, {call: {method: A.g}}, {work: {cycles: 100, bytecodes: 1}}]}
  - {class: A, name: g, body: [{work: {cycles: 100, bytecodes: 1}}, {work: {cycles: 100, bytecodes: 1}}, {work: {cycles: 100, bytecodes: 1}}, {work: {cycles: 100, bytecodes: 1}}]}
threads: [{name: main, entry: A.main}]
`
	vm := newVM(t, parse(t, src), nil)
	r := vm.Run()
	require.NoError(t, vm.Err())
	f := vm.Footprint()
	samples, frames := lineSamples(r.Truth)
	assert.Equal(t, samples, f.Samples)
	assert.Equal(t, frames, f.StackFrames)
	assert.Equal(t, int64(2), f.Contexts)
	require.NoError(t, vm.CheckProfile())

	cfg := DefaultConfig()
	cfg.Limits.MaxMemory = f.Bytes() - 1
	img, err := NewImage(parse(t, src), cfg.Cost)
	require.NoError(t, err)
	vm, err = New(img, cfg)
	require.NoError(t, err)
	vm.Run()
	require.NoError(t, vm.Err(), "one sample per context so far: under the limit")
	var le *LimitError
	require.ErrorAs(t, vm.CheckProfile(), &le)
	assert.Equal(t, f.Bytes(), le.Value)
	// CheckFootprint checks the footprint it is given, Footprint's.
	var le2 *LimitError
	require.ErrorAs(t, vm.CheckFootprint(vm.Footprint()), &le2)
	assert.Equal(t, *le, *le2)
	require.NoError(t, vm.CheckFootprint(Footprint{}))
}

func TestCPULimit(t *testing.T) {
	for _, n := range []int{0, MaxCPUs + 1, 100_000_000, 2_000_000_000} {
		c := DefaultConfig()
		c.CPUs = n
		assert.ErrorContains(t, c.Validate(), "cpus", n)
	}
	c := DefaultConfig()
	c.CPUs = MaxCPUs
	assert.NoError(t, c.Validate())
	for _, l := range []Limits{{MaxThreads: -1}, {MaxMemory: -1}, {MaxThreads: math.MaxInt32}} {
		c := DefaultConfig()
		c.Limits = l
		assert.Error(t, c.Validate(), "%+v", l)
	}
}

// Every uncaught exception is an incident; beyond maxIncidents they are
// counted, not listed.
func TestIncidentsAreBounded(t *testing.T) {
	src := `
name: throwers
methods:
  - {class: A, name: main, body: [{spawn: {name: w, entry: A.fail, count: 250, join: true}}]}
  - {class: A, name: fail, body: [{work: {cycles: 10, bytecodes: 1}}, {throw: {depth: 3}}]}
threads: [{name: main, entry: A.main}]
`
	r := newVM(t, parse(t, src), nil).Run()
	require.Len(t, r.Incidents, maxIncidents+1)
	assert.Contains(t, r.Incidents[0], "uncaught exception thrown in A.fail")
	assert.Contains(t, r.Incidents[0], "thread w-")
	assert.Equal(t, "150 more incidents not listed (a run lists the first 100)", r.Incidents[maxIncidents])
	assert.Equal(t, int64(250), r.Truth.Uncaught)
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0B", 100: "100B", 1024: "1KiB", 12 << 30: "12GiB", 1536 << 20: "1536MiB", 12<<30 + 1: "12.0GiB", 10241: "10.0KiB"} {
		assert.Equal(t, want, FormatBytes(n), n)
	}
}

func TestRunQueue(t *testing.T) {
	var q runQueue
	var want []ThreadID
	for i := 0; i < 5000; i++ {
		q.push(ThreadID(i))
		want = append(want, ThreadID(i))
		if i%3 == 0 {
			assert.Equal(t, want[0], q.pop())
			want = want[1:]
		}
	}
	q.moveToFront(4000)
	want = append([]ThreadID{4000}, slices.DeleteFunc(want, func(id ThreadID) bool { return id == 4000 })...)
	q.pushFront(-7)
	want = append([]ThreadID{-7}, want...)
	require.Equal(t, len(want), q.len())
	for q.len() > 0 {
		assert.Equal(t, want[0], q.pop())
		want = want[1:]
		assert.LessOrEqual(t, cap(q.ids), 2*4096+2048, "the queue reuses its space")
	}
	q.pushFront(3)
	q.push(4)
	assert.Equal(t, ThreadID(3), q.pop())
	assert.Equal(t, ThreadID(4), q.pop())
}

// A method with 10⁵ callees: each call finds its context through the
// index, not by scanning every sibling (that was 24 s for one pass).
func TestWideFanOut(t *testing.T) {
	const n = 100000
	p := &program.Program{Name: "wide", Threads: []program.Thread{{Name: "main", Entry: "W.main", Count: 1}}}
	var calls []program.Stmt
	for i := 0; i < n; i++ {
		p.Methods = append(p.Methods, program.Method{Class: "W", Name: fmt.Sprintf("m%d", i), Body: []program.Stmt{{Work: &program.Work{Cycles: 10, Bytecodes: 1}}}})
		calls = append(calls, program.Stmt{Call: &program.Call{Method: fmt.Sprintf("W.m%d", i)}})
	}
	loop := program.Stmt{Loop: &program.Loop{Trips: program.Const(2), Body: calls}}
	p.Methods = append(p.Methods, program.Method{Class: "W", Name: "main", Body: []program.Stmt{loop}})
	vm := newVM(t, p, func(c *Config) { c.Duration = 1000 * Second })
	r := vm.Run()
	require.NoError(t, vm.Err())
	nodes := r.Truth.Nodes()
	require.Len(t, nodes, n+2, "the root, main and one context per callee")
	for _, nd := range nodes[2:] {
		assert.Equal(t, int64(2), nd.Calls)
	}
	assert.Len(t, r.Truth.indexed, 1, "main's children are indexed")
	assert.Len(t, r.Truth.wide, n)
}
