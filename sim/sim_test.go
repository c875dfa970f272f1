package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The ground-truth invariant: every ns an application thread spends running
// is attributed to exactly one CCT node.
func TestSelfTimeEqualsAppCPU(t *testing.T) {
	type tc struct {
		name string
		run  func(seed uint64) *Result
	}
	var cases []tc
	for _, w := range []string{"hotcold", "callpair", "sqsum", "abcuv", "deepcall"} {
		cases = append(cases, tc{w, func(seed uint64) *Result {
			return newVM(t, builtin(t, w), func(c *Config) { c.Seed = seed; c.Duration = 20 * Millisecond }).Run()
		}})
	}
	for g := uint64(0); g < 20; g++ {
		cases = append(cases, tc{fmt.Sprintf("random%d", g), func(seed uint64) *Result {
			return newVM(t, randomProgram(g, 10), func(c *Config) {
				c.Seed = seed
				c.CPUs = 1 + int(g%3)
				c.Duration = 30 * Millisecond
				c.TimeSlice = Millisecond
			}).Run()
		}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 5; seed++ {
				r := c.run(seed)
				require.Positive(t, r.AppCPU(), "seed %d ran nothing", seed)
				assert.Equal(t, r.AppCPU(), r.Truth.SelfTotal(), "seed %d: CCT self sum vs application CPU", seed)
			}
		})
	}
}

func TestHotColdTruth(t *testing.T) {
	r := newVM(t, builtin(t, "hotcold"), func(c *Config) { c.Duration = 50 * Millisecond }).Run()
	hot := slices.Index(r.Image.Names, "HotCold.hot")
	require.GreaterOrEqual(t, hot, 0)
	require.Positive(t, r.Truth.SelfTotal())
	assert.GreaterOrEqual(t, float64(selfOf(r.Truth.Nodes(), int32(hot)))/float64(r.Truth.SelfTotal()), 0.90)
	assert.Equal(t, 50*Millisecond, r.End)
}

// Same seed and configuration → identical ground truth; another seed →
// different draws.
func TestDeterminism(t *testing.T) {
	run := func(seed uint64) *Result {
		return newVM(t, randomProgram(7, 12), func(c *Config) { c.Seed = seed; c.Duration = 40 * Millisecond }).Run()
	}
	a, b := run(3), run(3)
	assert.Equal(t, a.Truth.Nodes(), b.Truth.Nodes())
	assert.Equal(t, a.Threads, b.Threads)
	assert.Equal(t, a.End, b.End)
	deep := func(seed uint64) []CCTNode {
		return newVM(t, builtin(t, "deepcall"), func(c *Config) { c.Seed = seed; c.Duration = 5 * Millisecond }).Run().Truth.Nodes()
	}
	assert.Equal(t, deep(3), deep(3))
	assert.NotEqual(t, deep(3), deep(4), "deepcall's branches draw from the seed")
}

// Stopping at arbitrary horizons (as timer events will force) must not
// change the execution: Work is split exactly, loops fast-forward exactly.
func TestHorizonSplittingIsExact(t *testing.T) {
	for _, w := range []string{"hotcold", "sqsum", "deepcall"} {
		for g := 0; g < 2; g++ {
			p := builtin(t, w)
			if g == 1 {
				p = randomProgram(uint64(len(w)), 10)
			}
			whole := newVM(t, p, func(c *Config) { c.Duration = 15 * Millisecond }).Run()
			vm := newVM(t, p, func(c *Config) { c.Duration = 15 * Millisecond })
			r := rand.New(rand.NewPCG(1, 2))
			for at := Time(0); vm.RunUntil(at); at += Time(1 + r.IntN(50000)) {
			}
			split := vm.Result()
			assert.Equal(t, whole.Truth.Nodes(), split.Truth.Nodes(), "%s/%d", w, g)
			assert.Equal(t, whole.Threads, split.Threads, "%s/%d", w, g)
		}
	}
}

func TestPureLoopFastForwardMatchesStepping(t *testing.T) {
	// The same loop, once pure (fast-forwarded) and once with an Alloc that
	// defeats fast-forwarding; costs are the same apart from the Alloc.
	src := `
name: ff
methods:
  - class: A
    name: main
    body:
      - loop:
          trips: 100000
          body:
            - work: {cycles: 7, bytecodes: 3}
            - work: {cycles: 5, bytecodes: 2}
threads: [{name: main, entry: A.main}]
`
	r := newVM(t, parse(t, src), nil).Run()
	// 100000 iterations × 12 cycles + 99999 back-edge polls × 1 cycle.
	assert.Equal(t, Time(100000*12+99999), r.AppCPU())
	assert.Equal(t, int64(100000*5), r.Truth.BytecodeTotal())
	assert.Equal(t, int64(1+100000*2), r.Statements)
}

func TestSleepAndBlockingIO(t *testing.T) {
	src := `
name: sleeper
methods:
  - class: A
    name: main
    body:
      - work: {cycles: 1000, bytecodes: 1}
      - block: {kind: sleep, duration: 1ms}
      - block: {kind: io, duration: {uniform: [2000, 2000]}}
      - work: {cycles: 1000, bytecodes: 1}
threads: [{name: main, entry: A.main}]
`
	r := newVM(t, parse(t, src), func(c *Config) { c.ContextSwitch = 100 }).Run()
	th := r.Threads[0]
	assert.Equal(t, Time(2000), th.CPU())
	assert.Equal(t, Millisecond+2000, th.States[Blocked])
	assert.Equal(t, Time(300), th.States[Runnable], "three dispatches, each a context switch")
	assert.Equal(t, Time(2000+300)+Millisecond+2000, r.End)
}

func TestMonitorFIFOHandoff(t *testing.T) {
	src := `
name: locks
methods:
  - class: A
    name: run
    body:
      - block:
          kind: lock
          lock: L
          body:
            - work: {cycles: 10000, bytecodes: 1}
threads:
  - {name: t0, entry: A.run}
  - {name: t1, entry: A.run, start: 100}
  - {name: t2, entry: A.run, start: 200}
`
	r := newVM(t, parse(t, src), func(c *Config) { c.ContextSwitch = 0; c.CPUs = 4 }).Run()
	// t0 holds L for its work plus the exit (10020 ns) after a 20 ns enter;
	// t1 and t2 paid their enter before queueing, so each needs 10020 ns
	// from its hand-off, in arrival order.
	const enter, held = Time(20), Time(10000 + 20)
	assert.Equal(t, enter+held, r.Threads[0].End)
	assert.Equal(t, enter+2*held, r.Threads[1].End)
	assert.Equal(t, enter+3*held, r.Threads[2].End)
	assert.Equal(t, enter+held-(100+enter), r.Threads[1].States[LockWait])
	assert.Equal(t, enter+2*held-(200+enter), r.Threads[2].States[LockWait])
}

func TestTimeSlicing(t *testing.T) {
	src := `
name: spin
methods:
  - class: A
    name: run
    body:
      - loop: {trips: 1000, body: [{work: {cycles: 10000, bytecodes: 5}}]}
threads: [{name: w, entry: A.run, count: 3}]
`
	r := newVM(t, parse(t, src), func(c *Config) { c.CPUs = 1; c.TimeSlice = Millisecond; c.ContextSwitch = 0 }).Run()
	for _, th := range r.Threads {
		assert.Equal(t, Time(1000*10000+999), th.CPU(), th.Name)
		assert.Greater(t, th.States[Runnable], 10*Millisecond, "%s waited its turn", th.Name)
	}
	// One CPU, no switch cost: the run takes exactly the sum of CPU times.
	assert.Equal(t, 3*Time(1000*10000+999), r.End)
}

func TestThrowSemantics(t *testing.T) {
	src := `
name: throws
methods:
  - class: A
    name: main
    body:
      - call: {method: A.f}
      - work: {cycles: 1, bytecodes: 1}
      - call: {method: A.boom}
      - work: {cycles: 999, bytecodes: 1}
  - class: A
    name: f
    body:
      - call: {method: A.g}
      - work: {cycles: 7, bytecodes: 1}       # skipped: g's throw unwinds f too
  - class: A
    name: g
    body:
      - throw: {depth: 2}
      - work: {cycles: 1000000, bytecodes: 1} # never runs
  - class: A
    name: boom
    body:
      - loop:
          trips: 5
          body:
            - throw: {depth: 0}                # a caught exception: next iteration
            - work: {cycles: 1000000, bytecodes: 1}
      - throw: {depth: 5}                      # uncaught: ends the thread
threads: [{name: main, entry: A.main}]
`
	r := newVM(t, parse(t, src), nil).Run()
	assert.Equal(t, int64(7), r.Truth.Exceptions)
	assert.Equal(t, int64(1), r.Truth.Uncaught)
	assert.True(t, r.Threads[0].Uncaught)
	c := DefaultCostModel()
	want := 2*c.CallCycles + 1 + // main→f→g, then main's work
		c.ThrowCycles + 2*c.UnwindCycles + // g's throw
		c.CallCycles + 5*c.ThrowCycles + 4*c.PollCycles + // boom's loop
		c.ThrowCycles + 2*c.UnwindCycles // uncaught: unwinds boom and main
	assert.Equal(t, Time(want), r.AppCPU())
}

func TestRecursionLimitIsTheBaseCase(t *testing.T) {
	r := newVM(t, builtin(t, "deepcall"), func(c *Config) { c.Duration = 5 * Millisecond }).Run()
	depth := map[int32]int{}
	maxDepth := 0
	for _, n := range r.Truth.Nodes() {
		if n.ID == 0 {
			continue
		}
		depth[n.ID] = depth[n.Parent] + 1
		if depth[n.ID] > maxDepth {
			maxDepth = depth[n.ID]
		}
	}
	// main + 60 descend frames + helper + leaf.
	assert.Equal(t, 63, maxDepth)
}

func TestSpawnJoin(t *testing.T) {
	src := `
name: forkjoin
methods:
  - class: A
    name: main
    body:
      - spawn: {name: w, entry: A.work, count: 3, join: true}
      - work: {cycles: 100, bytecodes: 1}
  - class: A
    name: work
    body: [{work: {cycles: 5000, bytecodes: 1}}]
threads: [{name: main, entry: A.main}]
`
	r := newVM(t, parse(t, src), func(c *Config) { c.ContextSwitch = 0 }).Run()
	require.Len(t, r.Threads, 4)
	assert.Equal(t, []string{"main", "w-0", "w-1", "w-2"}, []string{r.Threads[0].Name, r.Threads[1].Name, r.Threads[2].Name, r.Threads[3].Name})
	assert.Equal(t, Time(5000), r.Threads[0].States[JoinWait])
	assert.Equal(t, Time(5100), r.End)
}

func TestStackOverflowIsAnIncident(t *testing.T) {
	src := `
name: deep
methods:
  - class: A
    name: r
    recursion_limit: 100000
    body: [{work: {cycles: 1, bytecodes: 1}}, {call: {method: A.r}}]
threads: [{name: main, entry: A.r}]
`
	r := newVM(t, parse(t, src), func(c *Config) { c.MaxStackDepth = 50 }).Run()
	assert.True(t, r.Threads[0].StackOverflow)
	require.Len(t, r.Incidents, 1)
	assert.Contains(t, r.Incidents[0], "stack overflow at depth 50")
}

func TestDeadlockEndsTheRun(t *testing.T) {
	src := `
name: deadlock
methods:
  - class: A
    name: ab
    body:
      - block: {kind: lock, lock: a, body: [{work: {cycles: 1000, bytecodes: 1}}, {block: {kind: lock, lock: b}}]}
  - class: A
    name: ba
    body:
      - block: {kind: lock, lock: b, body: [{work: {cycles: 1000, bytecodes: 1}}, {block: {kind: lock, lock: a}}]}
threads: [{name: t0, entry: A.ab}, {name: t1, entry: A.ba}]
`
	r := newVM(t, parse(t, src), nil).Run()
	require.Len(t, r.Incidents, 1)
	assert.Contains(t, r.Incidents[0], "no thread can ever run again")
	assert.Less(t, r.End, Second)
}

func TestConfigValidation(t *testing.T) {
	for name, tweak := range map[string]func(*Config){
		"cpus":           func(c *Config) { c.CPUs = 0 },
		"duration":       func(c *Config) { c.Duration = -1 },
		"time_slice":     func(c *Config) { c.TimeSlice = 0 },
		"context_switch": func(c *Config) { c.ContextSwitch = -5 },
		"cost.speed":     func(c *Config) { c.Cost.SpeedPercent = 0 },
		"cost.interp":    func(c *Config) { c.Cost.InterpFactor = 0 },
	} {
		cfg := DefaultConfig()
		tweak(&cfg)
		err := cfg.Validate()
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), name[:4], name)
	}
}
