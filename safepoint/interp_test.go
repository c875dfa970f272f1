package safepoint

import (
	"testing"

	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// straightLine is tools/interpreter's "block" case: a method that is one
// long straight-line basic block (2000 bytecodes, no branch, no call),
// called in a loop.
const straightLine = `
name: straight-line
methods:
  - class: B
    name: main
    body: [{loop: {trips: 100000, body: [{call: {method: B.block}}]}}]
  - class: B
    name: block
    body: [{work: {cycles: 10000, bytecodes: 2000}}]
threads: [{name: main, entry: B.main}]
`

// where records the stopped thread's top frame when the operation runs.
type where struct {
	op
	method string
	line   int32
}

func (w *where) Run(vm sim.Agent, at sim.Time) sim.Time {
	st := vm.Stack(0, nil)
	top := st[len(st)-1]
	w.method, w.line = vm.Image().Names[top.Method], top.Line
	return w.op.Run(vm, at)
}

// ttspPhases is how many request times the test spreads over one call of
// B.block.
const ttspPhases = 20

// ttspMeanTolerance bounds |mean TTSP / block's cost − 1/2|: requests at
// ttspPhases evenly spread phases of a block whose only poll is its end see
// a time to safepoint uniform over [0, cost] — mean 1/2 up to the
// discretization of ±1/(2·ttspPhases) and the call and poll costs (a few
// ns of a ≥ 10 µs block).
const ttspMeanTolerance = 1.0/(2*ttspPhases) + 0.01

// TestInterpretedCodeReachesASafepointAtItsNextPoll: HotSpot 17 brings an
// interpreted thread to a global safepoint at its next poll, as compiled
// code — a taken branch or a return — not at its next bytecode:
// SafepointSynchronize::arm_safepoint (runtime/safepoint.cpp) arms each
// thread's polling word and does not switch the interpreter's dispatch
// table. In a straight-line block the time to safepoint is the rest of the
// block, not one bytecode's time (cost/bytecodes = 50 ns interpreted); the
// interpreted thread is seen in the callee at its return line (the poll
// before remove_activation), the compiled one in the caller at the call
// (the return poll after the pop). OpenJDK 17.0.15 with -Xint stopped
// tools/interpreter's worker at the return line of its straight-line
// method in 10 of 10 safepoints.
func TestInterpretedCodeReachesASafepointAtItsNextPoll(t *testing.T) {
	for _, tc := range []struct {
		name         string
		tweak        func(*jit.Config)
		blockCost    sim.Time // one call of B.block, call and polls included
		method       string
		line         int32
		bytecodeTime sim.Time
	}{
		{"interpreted", func(c *jit.Config) { c.InterpretOnly = true }, 100_000, "B.block", 2, 50},
		{"compiled", func(c *jit.Config) { c.Tiered = false }, 10_000, "B.main", 2, 5},
	} {
		var sum, most sim.Time
		for i := 0; i < ttspPhases; i++ {
			// Requests 1 ms in, at phases 0, 1/20, … of a block.
			req := sim.Millisecond + sim.Time(i)*tc.blockCost/ttspPhases
			vm, c := setupFor(t, straightLine, req+2*tc.blockCost)
			jc := jit.DefaultConfig()
			tc.tweak(&jc)
			_, err := jit.Attach(vm, jc)
			require.NoError(t, err)
			w := &where{op: op{cost: 0, coord: c}}
			vm.ScheduleTimer(vm.AddTimer(&whereRequester{c: c, w: w}), req, 0)
			vm.Run()
			recs := c.Records()
			require.NotEmpty(t, recs, tc.name)
			r := recs[len(recs)-1]
			assert.Equal(t, tc.method, w.method, "%s phase %d", tc.name, i)
			assert.Equal(t, tc.line, w.line, "%s phase %d", tc.name, i)
			assert.LessOrEqual(t, r.TTSP(), tc.blockCost+10, "%s phase %d: at most one block", tc.name, i)
			sum += r.TTSP()
			most = max(most, r.TTSP())
		}
		mean := float64(sum) / ttspPhases / float64(tc.blockCost)
		t.Logf("%s: mean TTSP %.3f of the block (%v), max %v", tc.name, mean, tc.blockCost, most)
		assert.InDelta(t, 0.5, mean, ttspMeanTolerance, "%s: mean TTSP / block", tc.name)
		assert.Greater(t, most, 10*tc.bytecodeTime, "%s: not stopped at the next bytecode", tc.name)
	}
}

// whereRequester asks for a safepoint whose operation records the stack.
type whereRequester struct {
	c *Coordinator
	w *where
}

func (r *whereRequester) OnTimer(vm sim.Agent, at sim.Time, _ int64) { r.c.Request("test", r.w) }
