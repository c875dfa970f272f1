package safepoint

import (
	"math/rand/v2"
	"testing"

	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two spinning threads whose loops poll every 1001 ns and 5001 ns (work +
// the back-edge poll; no JIT, so every back-edge polls), and a sleeper.
const spinners = `
name: spinners
methods:
  - class: S
    name: fast
    body: [{loop: {trips: 100000, body: [{work: {cycles: 1000, bytecodes: 100}}]}}]
  - class: S
    name: slow
    body: [{loop: {trips: 20000, body: [{work: {cycles: 5000, bytecodes: 500}}]}}]
  - class: S
    name: sleeper
    body:
      - block: {kind: sleep, duration: 150us}
      - work: {cycles: 1000, bytecodes: 100}
threads:
  - {name: fast, entry: S.fast}
  - {name: slow, entry: S.slow}
  - {name: sleeper, entry: S.sleeper}
`

// op is a safepoint operation with a fixed VM-thread cost.
type op struct {
	cost      sim.Time
	ran, done sim.Time
	stopped   []sim.ThreadID
	coord     *Coordinator
}

func (o *op) Run(vm sim.Agent, at sim.Time) sim.Time {
	o.ran = at
	o.stopped = o.coord.Stopped()
	return o.cost
}
func (o *op) Done(vm sim.Agent, at sim.Time) { o.done = at }

// requester asks for a safepoint from a timer.
type requester struct {
	c  *Coordinator
	op *op
}

func (r *requester) OnTimer(vm sim.Agent, at sim.Time, _ int64) { r.c.Request("test", r.op) }

func setup(t *testing.T, src string) (*sim.VM, *Coordinator) {
	return setupFor(t, src, 400*sim.Microsecond)
}

func setupFor(t *testing.T, src string, d sim.Time) (*sim.VM, *Coordinator) {
	return setupWith(t, src, d, DefaultConfig())
}

// setupWith is setupFor with the protocol's costs cfg.
func setupWith(t *testing.T, src string, d sim.Time, cfg Config) (*sim.VM, *Coordinator) {
	t.Helper()
	vm, _ := newVM(t, src, d)
	c, err := New(vm, cfg)
	require.NoError(t, err)
	return vm, c
}

func TestSafepointsQueue(t *testing.T) {
	vm, c := setup(t, spinners)
	o1 := &op{cost: 10 * sim.Microsecond, coord: c}
	o2 := &op{cost: 10 * sim.Microsecond, coord: c}
	tm := vm.AddTimer(&multi{c: c, ops: []*op{o1, o2}})
	vm.ScheduleTimer(tm, 100_000, 0)
	vm.Run()
	recs := c.Records()
	require.Len(t, recs, 2)
	assert.Equal(t, recs[0].Requested, recs[1].Requested, "both asked at once")
	assert.Equal(t, recs[0].End, recs[1].Started, "the second starts when the first ends")
	assert.Equal(t, recs[1].Safe-recs[1].Requested, recs[1].Latency())
	assert.GreaterOrEqual(t, o2.ran, o1.done)
}

type multi struct {
	c   *Coordinator
	ops []*op
}

func (m *multi) OnTimer(vm sim.Agent, at sim.Time, _ int64) {
	for _, o := range m.ops {
		m.c.Request("test", o)
	}
}

func TestGCPausesAllocatingThreads(t *testing.T) {
	src := `
name: alloc
methods:
  - class: A
    name: run
    body: [{loop: {trips: 200000, body: [{work: {cycles: 50, bytecodes: 10}}, {alloc: {bytes: 1024}}]}}]
threads: [{name: t, entry: A.run, count: 2}]
`
	vm, c := setupFor(t, src, 600*sim.Microsecond)
	g, err := AttachGC(vm, c, GCConfig{EdenBytes: 8 << 20, TLABBytes: 64 << 10, PauseBase: 50 * sim.Microsecond, PausePerMB: 10 * sim.Microsecond})
	require.NoError(t, err)
	res := vm.Run()
	// 2 threads × 1 KiB per 71 ns fill the 8 MiB eden in ≈ 290 µs; the
	// collection then pauses both for 130 µs; one eden's worth remains.
	assert.Equal(t, 1, g.Collections)
	require.Len(t, c.Records(), 1)
	r := c.Records()[0]
	assert.Equal(t, "gc", r.Reason)
	assert.Equal(t, sim.Time(50_000+8*10_000), r.End-r.Safe)
	assert.Equal(t, res.AppCPU(), res.Truth.SelfTotal())
	for _, th := range res.Threads[:2] {
		assert.Positive(t, th.States[sim.Parked], th.Name)
	}
	_, err = AttachGC(vm, c, GCConfig{EdenBytes: 0, TLABBytes: 1})
	assert.ErrorContains(t, err, "gc.eden_bytes")
}

func TestRequestsOfEveryKindQueueAndReturnTheirHandles(t *testing.T) {
	// Three requests at 100 µs: global, partial, global. Each starts when
	// the previous one ends, and each record carries its request's handle.
	vm, c := setup(t, spinners)
	var ids []RequestID
	vm.ScheduleTimer(vm.AddTimer(timerFunc(func() {
		ids = append(ids, c.Request("gc", &op{cost: 10 * us, coord: c}))
		ids = append(ids, c.RequestPartial("sample:sps", PartialConfig{K: 1}, rand.New(rand.NewPCG(1, 2)), selfOp{walk: 5 * us}))
		ids = append(ids, c.Request("retrieve:isps", &op{cost: 10 * us, coord: c}))
		assert.True(t, c.Busy())
	})), 100_000, 0)
	assert.False(t, c.Busy())
	vm.Run()
	assert.Equal(t, []RequestID{1, 2, 3}, ids, "numbered in request order")
	recs := c.Records()
	require.Len(t, recs, 3)
	for i, r := range recs {
		assert.Equal(t, ids[i], r.ID, "record %d", i)
		assert.Equal(t, sim.Time(100_000), r.Requested, "record %d", i)
		if i > 0 {
			assert.Equal(t, recs[i-1].End, r.Started, "record %d starts when the previous one ends", i)
		}
	}
	assert.Equal(t, []string{"gc", "sample:sps", "retrieve:isps"}, []string{recs[0].Reason, recs[1].Reason, recs[2].Reason})
	assert.Len(t, recs[0].Pauses, 2, "global: both spinners")
	assert.Len(t, recs[1].Pauses, 1, "partial: one ticket")
	assert.False(t, c.Busy())
}

// staleTimerOp fires the coordinator's timer with another request's ID
// while its thread samples itself.
type staleTimerOp struct {
	selfOp
	c *Coordinator
}

func (s staleTimerOp) SelfSample(vm sim.Agent, id sim.ThreadID) sim.Time {
	s.c.OnTimer(vm, vm.Now(), int64(s.c.cur.rec.ID)+1)
	return s.selfOp.SelfSample(vm, id)
}

func TestTimerOfAnotherRequestIsIgnored(t *testing.T) {
	// A partial safepoint ends at its timer; one carrying another
	// request's ID must not end it. K = 2 on spinners: slow at 100 020,
	// fast at 100 100, each walking 5 µs.
	vm, c := setup(t, spinners)
	o := staleTimerOp{selfOp: selfOp{walk: 5 * us}, c: c}
	vm.ScheduleTimer(vm.AddTimer(timerFunc(func() {
		c.RequestPartial("test", PartialConfig{K: 2}, rand.New(rand.NewPCG(1, 2)), o)
	})), 100_000, 0)
	vm.Run()
	require.Len(t, c.Records(), 1)
	r := c.Records()[0]
	assert.Len(t, r.Pauses, 2)
	assert.Equal(t, sim.Time(100_100)+5*us, r.End)
}
