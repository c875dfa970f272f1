package safepoint

import (
	"testing"

	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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

// nativeAndSlow has a thread in native code from its start until 105 µs
// (then spinning in Java code, polling every 1001 ns) and slow from
// spinners.
const nativeAndSlow = `
name: native-and-slow
methods:
  - class: N
    name: nat
    body: [{native: {cycles: 105000}}, {loop: {trips: 100000, body: [{work: {cycles: 1000, bytecodes: 100}}]}}]
  - class: S
    name: slow
    body: [{loop: {trips: 20000, body: [{work: {cycles: 5000, bytecodes: 500}}]}}]
threads: [{name: nat, entry: N.nat}, {name: slow, entry: S.slow}]
`

func TestGlobalThreadInNativeCodeIsSafeButMayNotComeBack(t *testing.T) {
	// Requested at 100 000: nat is in native code until 105 000, slow
	// polls at 100 020. Seen at once, the operation runs from 100 020 to
	// 110 020, and nat, back from native code at 105 000 during it, parks
	// at the transition until the end. With a 30 µs re-check the VM thread
	// sees the world safe at 130 000; nat, back meanwhile, parks the same
	// way and is among the threads the operation sees stopped.
	for _, tc := range []struct {
		name       string
		cfg        Config
		safe       sim.Time
		stopped    []sim.ThreadID
		natStopped sim.Time
	}{
		{"seen at once: nat is not waited for, parks when it comes back during the operation", DefaultConfig(), 100_020, []sim.ThreadID{1}, 105_000},
		{"seen at a re-check: nat comes back first and parks", Config{SyncRecheck: 30 * us}, 130_000, []sim.ThreadID{0, 1}, 105_000},
	} {
		r, o := oneSafepoint(t, nativeAndSlow, tc.cfg, 100_000, 10*us, 400*us)
		assert.Equal(t, sim.Time(100_020), r.Arrived, "%s: only slow is waited for", tc.name)
		assert.Equal(t, tc.safe, r.Safe, tc.name)
		assert.Equal(t, tc.stopped, o.stopped, tc.name)
		for _, p := range r.Pauses {
			if p.Thread == 0 {
				assert.Equal(t, tc.natStopped, p.Stopped, tc.name)
			}
			assert.Equal(t, r.End, p.Resumed, tc.name)
		}
	}
}

func TestGlobalRequestReturnsTheHandleItsRecordCarries(t *testing.T) {
	vm, c := setup(t, spinners)
	o := &op{cost: 10 * us, coord: c}
	var id RequestID
	vm.ScheduleTimer(vm.AddTimer(timerFunc(func() { id = c.Request("sample:x", o) })), 100_000, 0)
	vm.Run()
	require.Len(t, c.Records(), 1)
	assert.Equal(t, RequestID(1), id, "the first request")
	assert.Equal(t, id, c.Records()[0].ID)
	assert.Equal(t, "sample:x", c.Records()[0].Reason, "the reason is kept for display")
}

// timerFunc runs f when its timer fires.
type timerFunc func()

func (f timerFunc) OnTimer(sim.Agent, sim.Time, int64) { f() }
