package sim

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/profsim/profsim/program"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 14, classes 1 and 2 at the simulator: values at the edges of their
// documented ranges (program/limits.go, sim/arith.go) run without a panic
// and without a wrapped total, under the most extreme configuration the
// validation allows.
func TestExtremeValuesRunExactly(t *testing.T) {
	const maxCycles, maxTrips, maxNanos, maxBytes = program.MaxCycles, program.MaxTrips, program.MaxNanos, program.MaxAllocBytes
	prog := func(body string) string {
		return "name: x\nmethods:\n  - class: A\n    name: main\n    body:\n" + body +
			"  - {class: A, name: f, body: [{call: {method: A.g}}]}\n" +
			"  - {class: A, name: g, body: [{work: {cycles: 1, bytecodes: 1}}]}\n" +
			"threads: [{name: main, entry: A.main, count: 4}]\n"
	}
	extreme := func(c *Config) {
		c.Duration = min(MaxTime, MaxCPUTime/Time(c.CPUs)) // the longest run
		c.MaxStep = 0                                      // threads run to the next event
		c.TimeSlice = MaxTime
		c.Cost.InterpFactor = MaxInterpFactor
		c.Cost.SpeedPercent = 1
		c.Cost.PollCycles = MaxCostCycles
		c.Cost.UnwindCycles = MaxCostCycles
		c.Cost.ThrowCycles = MaxCostCycles
	}
	// dense: pure loops fast-forward as far as the run allows, iterations
	// of 2 ns (work and back-edge poll).
	dense := func(c *Config) {
		c.Duration = min(MaxTime, MaxCPUTime/Time(c.CPUs))
		c.MaxStep = 0
		c.TimeSlice = MaxTime
	}
	cases := []struct {
		name  string
		body  string
		tweak func(*Config)
		check func(t *testing.T, r *Result)
	}{
		{"sleep of the maximum time", fmt.Sprintf("      - block: {kind: sleep, duration: %d}\n      - work: {cycles: 1, bytecodes: 1}\n", int64(maxNanos)), nil, nil},
		{"exponential sleeps of the maximum mean", fmt.Sprintf("      - loop: {trips: 50, body: [{block: {kind: io, duration: {exponential: %d}}}]}\n", int64(maxNanos)), nil, nil},
		{"normal sleeps of the maximum mean", fmt.Sprintf("      - loop: {trips: 50, body: [{block: {kind: io, duration: {normal: [%d, %d]}}}]}\n", int64(maxNanos), int64(maxNanos)), nil, nil},
		{"throw of the maximum depth", "      - call: {method: A.f}\n      - throw: {depth: 2147483647}\n", extreme, nil},
		{"the largest work in the longest loop", fmt.Sprintf("      - loop: {trips: %d, body: [{work: {cycles: %d, bytecodes: 65535}}]}\n", int64(maxTrips), int64(maxCycles)), extreme, nil},
		{"the densest pure loop", fmt.Sprintf("      - loop: {trips: %d, body: [{work: {cycles: 1, bytecodes: 65535}}]}\n", int64(maxTrips)), dense,
			func(t *testing.T, r *Result) {
				// 4 threads × 10¹⁵ iterations × 65535 bytecodes: beyond
				// int64. Fast-forwarding saturates at the cap; the last
				// iterations, run statement by statement, add theirs.
				total := r.Truth.BytecodeTotal()
				assert.GreaterOrEqual(t, total, int64(BytecodeCap), "saturated")
				assert.LessOrEqual(t, total, int64(BytecodeCap+4*65535), "saturated")
				assert.Equal(t, Time(4*2*maxTrips-4), r.AppCPU(), "10¹⁵ iterations of 2 ns, less the last back-edge, per thread")
			}},
		{"many huge works in a loop", fmt.Sprintf("      - loop: {trips: %d, body: [%s]}\n", int64(maxTrips),
			strings.TrimSuffix(strings.Repeat(fmt.Sprintf("{work: {cycles: %d, bytecodes: 1}}, ", int64(maxCycles)), 200), ", ")), extreme, nil},
		{"the largest allocations", fmt.Sprintf("      - loop: {trips: 1000000, body: [{alloc: {bytes: %d}}]}\n", int64(maxBytes)), func(c *Config) {
			c.Cost.AllocCycles = 0 // as many allocations as the wall clock allows
		}, nil},
		{"receiver weights near the float maximum", "      - loop: {trips: 1000, body: [{virtual_call: {receivers: {A.f: 1e307, A.g: 1e307}}}]}\n", nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := program.Parse([]byte(prog(c.body)), program.YAML)
			require.NoError(t, err)
			vm := newVM(t, p, func(cfg *Config) {
				cfg.Duration = 10 * Second
				if c.tweak != nil {
					c.tweak(cfg)
				}
			})
			for i := 0; i < 1000 && vm.RunUntil(vm.Now()+MaxTime/100); i++ {
			}
			r := vm.Result()
			assert.Equal(t, r.AppCPU(), r.Truth.SelfTotal(), "self time = application CPU")
			if c.check != nil {
				c.check(t, r)
			}
			assert.GreaterOrEqual(t, r.End, Time(0))
			for _, n := range r.Truth.Nodes() {
				require.GreaterOrEqual(t, n.Self, Time(0), "node %d", n.ID)
				require.GreaterOrEqual(t, n.Bytecodes, int64(0), "node %d", n.ID)
				require.GreaterOrEqual(t, n.AllocBytes, int64(0), "node %d", n.ID)
			}
			for _, th := range r.Threads {
				require.GreaterOrEqual(t, th.AllocBytes, int64(0), th.Name)
				for s, d := range th.States {
					require.GreaterOrEqual(t, d, Time(0), "%s %v", th.Name, ThreadState(s))
				}
			}
		})
	}
}

// Allocation totals saturate instead of wrapping, and every allocation
// that does not fit the TLAB goes to the allocation handler (issue 14: 100
// allocations of 2⁶³−1 bytes triggered one GC and wrapped).
func TestAllocationTotalsSaturate(t *testing.T) {
	src := fmt.Sprintf("name: x\nmethods:\n  - {class: A, name: main, body: [{loop: {trips: 1000, body: [{alloc: {bytes: %d}}]}}]}\nthreads: [{name: main, entry: A.main}]\n",
		int64(program.MaxAllocBytes))
	p, err := program.Parse([]byte(src), program.YAML)
	require.NoError(t, err)
	vm := newVM(t, p, nil)
	h := &countingAllocs{}
	vm.SetAllocHandler(h, 1<<20)
	vm.threads[0].allocBytes = math.MaxInt64 - 10*program.MaxAllocBytes // as after a long run
	r := vm.Run()
	assert.Equal(t, int64(1000), h.calls, "every allocation is larger than a TLAB: each refills")
	assert.Equal(t, int64(math.MaxInt64), r.Threads[0].AllocBytes, "saturated")
	assert.Equal(t, int64(1000*program.MaxAllocBytes), r.Truth.Nodes()[1].AllocBytes)
}

type countingAllocs struct{ calls int64 }

func (c *countingAllocs) OnTLAB(Agent, ThreadID, int64) Action { c.calls++; return Continue }

// The configuration's times and costs have ranges too.
func TestConfigBounds(t *testing.T) {
	cases := []struct {
		name  string
		tweak func(*Config)
		want  string
	}{
		{"duration beyond the maximum time", func(c *Config) { c.Duration = MaxTime + 1 }, "duration: "},
		{"duration int64 max", func(c *Config) { c.Duration = math.MaxInt64 }, "beyond the model's maximum time"},
		{"CPU time", func(c *Config) { c.CPUs = 8; c.Duration = MaxTime }, "on 8 CPUs is beyond the model's maximum CPU time"},
		{"time slice", func(c *Config) { c.TimeSlice = math.MaxInt64 }, "time_slice: "},
		{"context switch", func(c *Config) { c.ContextSwitch = MaxTime + 1 }, "context_switch: "},
		{"max step", func(c *Config) { c.MaxStep = math.MaxInt64 }, "max_step: "},
		{"interpreter factor", func(c *Config) { c.Cost.InterpFactor = MaxInterpFactor + 1 }, "cost.interp_factor: 1001 must be ≤ 1000"},
		{"poll cycles", func(c *Config) { c.Cost.PollCycles = math.MaxInt64 }, "cost.poll_cycles: 9223372036854775807 must be in [0, 10^9]"},
		{"unwind cycles", func(c *Config) { c.Cost.UnwindCycles = -1 }, "cost.unwind_cycles: -1 must be in [0, 10^9]"},
	}
	for _, c := range cases {
		cfg := DefaultConfig()
		c.tweak(&cfg)
		err := cfg.Validate()
		if assert.Error(t, err, c.name) {
			assert.Contains(t, err.Error(), c.want, c.name)
		}
	}
	cfg := DefaultConfig()
	cfg.Duration = MaxTime
	cfg.MaxStep, cfg.TimeSlice, cfg.ContextSwitch = MaxTime, MaxTime, MaxTime
	cfg.Cost.InterpFactor, cfg.Cost.PollCycles = MaxInterpFactor, MaxCostCycles
	assert.NoError(t, cfg.Validate(), "the bounds are inclusive")
}

// A strip-mined loop polling at every iteration with the costliest poll
// the cost model allows: the polls' cost, iterations × poll, stays within
// int64 when fast-forwarding.
func TestStripMinedPollsAtTheLimits(t *testing.T) {
	src := fmt.Sprintf("name: x\nmethods:\n  - {class: A, name: main, body: [{loop: {trips: %d, body: [{work: {cycles: 1, bytecodes: 1}}]}}]}\nthreads: [{name: main, entry: A.main}]\n",
		int64(program.MaxTrips))
	p, err := program.Parse([]byte(src), program.YAML)
	require.NoError(t, err)
	var cost CostModel
	vm := newVM(t, p, func(c *Config) {
		// Rounds of 1000 s: a fast-forward of up to 10¹² iterations, whose
		// 10¹² polls would cost 10²¹ ns.
		c.Duration, c.MaxStep, c.TimeSlice = 10000*Second, 1000*Second, MaxTime
		c.Cost.PollCycles = MaxCostCycles
		cost = c.Cost
	})
	strip := Recost(vm.Code(0), cost, Compiled)
	for i := range strip.Instrs {
		if in := &strip.Instrs[i]; in.Op == OpLoopBack {
			in.Flags &^= FlagPoll
			in.C = 1 // a poll after every iteration, as a JIT's strip mining would place it
		}
	}
	UpdateLoopCosts(strip, cost)
	vm.ReplaceCode(strip)
	start := time.Now()
	r := vm.Run()
	// With the products overflowing, fast-forwarding searched for its
	// iteration count for 40 s of wall time; bounded, it takes
	// milliseconds.
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Equal(t, r.AppCPU(), r.Truth.SelfTotal(), "self time = application CPU")
	assert.Equal(t, 10000*Second, r.End, "the loop outlasts the run")
	assert.InDelta(t, float64(10000*Second), float64(r.Threads[0].CPU()), 2e9, "it ran all along, a poll past the end at most")
}

// Loops whose bodies cost nothing stop the run with an error naming the
// loop, instead of iterating forever at one instant (issue 14: such a run
// hung, deaf to SIGINT).
func TestZeroTimeLoopsStopTheRun(t *testing.T) {
	cases := []struct {
		name, body, path string
		tweak            func(*Config)
	}{
		{"branches only", "      - work: {cycles: 5, bytecodes: 1}\n      - loop: {trips: 1000000000000000, body: [{branch: {probability: 0.5}}]}\n",
			"methods[0].body[1].loop", nil},
		{"an empty inner loop", "      - loop: {trips: 1000000000000000, body: [{loop: {trips: 0, body: [{work: {cycles: 1, bytecodes: 1}}]}}]}\n",
			"methods[0].body[0].loop", nil},
		{"zero-length sleeps", "      - loop: {trips: 1000000000000000, body: [{block: {kind: sleep, duration: 0}}]}\n",
			"methods[0].body[0].loop", func(c *Config) { c.ContextSwitch = 0 }},
		{"free monitors", "      - loop: {trips: 1000000000000000, body: [{block: {kind: lock, lock: L, body: []}}]}\n",
			"methods[0].body[0].loop", func(c *Config) { c.Cost.MonitorCycles, c.Cost.PollCycles = 0, 0 }},
		// Polls are the loop's overhead: a poll per iteration advances
		// time by 10⁹ iterations a second, which would take minutes.
		{"branches only, polled", "      - loop: {trips: 1000000000000000, body: [{branch: {probability: 0.5}}]}\n",
			"methods[0].body[0].loop", func(c *Config) { c.Cost.PollCycles = DefaultConfig().Cost.PollCycles }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := "name: x\nmethods:\n  - class: A\n    name: main\n    body:\n" + c.body + "threads: [{name: main, entry: A.main}]\n"
			p, err := program.Parse([]byte(src), program.YAML)
			require.NoError(t, err)
			vm := newVM(t, p, func(cfg *Config) {
				cfg.Cost.PollCycles = 0 // a back-edge that costs nothing
				if c.tweak != nil {
					c.tweak(cfg)
				}
			})
			vm.Run()
			var zt *ZeroTimeLoopError
			require.ErrorAs(t, vm.Err(), &zt)
			assert.Equal(t, c.path, zt.Path)
			assert.Equal(t, "main", zt.Thread)
			assert.Contains(t, zt.Error(), c.path+": the loop in A.main iterated 1000000 times without simulated time advancing")
		})
	}
	// A loop whose iterations cost time is never stopped, however many.
	p, err := program.Parse([]byte("name: x\nmethods:\n  - {class: A, name: main, body: [{loop: {trips: 1000000000000000, body: [{native: {cycles: 1}}]}}]}\nthreads: [{name: main, entry: A.main}]\n"), program.YAML)
	require.NoError(t, err)
	vm := newVM(t, p, func(c *Config) { c.Duration = 30 * Millisecond })
	vm.Run()
	assert.NoError(t, vm.Err(), "3·10⁷ iterations of 1 ns")
}
