package safepoint

import (
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

func (o *op) Run(vm *sim.VM, at sim.Time) sim.Time {
	o.ran = at
	o.stopped = o.coord.Stopped()
	return o.cost
}
func (o *op) Done(vm *sim.VM, at sim.Time) { o.done = at }

// requester asks for a safepoint from a timer.
type requester struct {
	c  *Coordinator
	op *op
}

func (r *requester) OnTimer(vm *sim.VM, at sim.Time, _ int64) { r.c.Request("test", r.op) }

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

func TestTimeToSafepointIsTheSlowestThreadsNextPoll(t *testing.T) {
	vm, c := setup(t, spinners)
	o := &op{cost: 100 * sim.Microsecond, coord: c}
	vm.ScheduleTimer(vm.AddTimer(&requester{c: c, op: o}), 100_000, 0)
	res := vm.Run()
	recs := c.Records()
	require.Len(t, recs, 1)
	r := recs[0]
	// fast polls at k·1001: next after 100 000 is 100 100; slow at k·5001:
	// next is 100 020. The sleeper (blocked until 150 µs) does not count.
	assert.Equal(t, sim.Time(100_000), r.Requested)
	assert.Equal(t, sim.Time(100_100), r.Safe)
	assert.Equal(t, sim.Time(100), r.TTSP())
	assert.Equal(t, []sim.ThreadID{0, 1}, o.stopped)
	require.Len(t, r.Pauses, 2)
	byThread := map[sim.ThreadID]Pause{}
	for _, p := range r.Pauses {
		byThread[p.Thread] = p
	}
	assert.Equal(t, sim.Time(100_020), byThread[1].Stopped, "slow parks at its own poll and waits")
	assert.Equal(t, sim.Time(100_100), byThread[0].Stopped)
	// The operation runs on the VM thread once everyone is safe.
	assert.Equal(t, r.Safe, o.ran)
	assert.Equal(t, r.Safe+o.cost, r.End)
	assert.Equal(t, r.End, byThread[0].Resumed)
	// The sleeper woke at 150 µs, during the operation: it was held
	// (parked) until the end instead of running.
	sleeper := res.Threads[2]
	assert.Equal(t, r.End-150_000, sleeper.States[sim.Parked])
	// The safepoint cost no application CPU: the invariant holds.
	assert.Equal(t, res.AppCPU(), res.Truth.SelfTotal())
	// Pauses: fast 100 µs, slow 100 µs + the 80 ns it waited for fast.
	assert.Equal(t, "1 safepoints, TTSP mean 100ns max 100ns, total pause 200.08µs", c.Summarize().String())
}

func TestBlockedThreadsDoNotDelayTheSafepoint(t *testing.T) {
	src := `
name: blocked
methods:
  - class: B
    name: io
    body: [{block: {kind: io, duration: 1ms}}]
threads: [{name: a, entry: B.io}, {name: b, entry: B.io}]
`
	vm, c := setup(t, src)
	o := &op{cost: 10 * sim.Microsecond, coord: c}
	vm.ScheduleTimer(vm.AddTimer(&requester{c: c, op: o}), 50_000, 0)
	vm.Run()
	require.Len(t, c.Records(), 1)
	assert.Zero(t, c.Records()[0].TTSP(), "every thread is blocked: safe at once")
	assert.Empty(t, c.Records()[0].Pauses)
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

func (m *multi) OnTimer(vm *sim.VM, at sim.Time, _ int64) {
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
