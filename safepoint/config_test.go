package safepoint

import (
	"math/rand/v2"
	"testing"

	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// us is a microsecond, for the tables below.
const us = sim.Microsecond

func TestDetectAtIsTheFirstRecheckAtOrAfterTheLastArrival(t *testing.T) {
	const started = 7 * sim.Millisecond // any start: the schedule is relative to it
	cases := []struct {
		name          string
		recheck, late sim.Time
		arrival, want sim.Time // after started
	}{
		{"no re-check: the last arrival", 0, 0, 25 * us, 25 * us},
		{"between re-checks: the next one", 10 * us, 0, 25 * us, 30 * us},
		{"on a re-check: that one", 10 * us, 0, 30 * us, 30 * us},
		{"arrival at the start (the requester parking): the start", 10 * us, 0, 0, 0},
		{"just past 1 ms, late = recheck", 10 * us, 0, 1250 * us, 1250 * us},
		// back_off: 10 µs naps until the 1 ms re-check, 1 ms naps after.
		{"the last early re-check is at 1 ms", 10 * us, sim.Millisecond, 995 * us, 1000 * us},
		{"past 1 ms: 1 ms steps", 10 * us, sim.Millisecond, 1250 * us, 2000 * us},
		{"past 1 ms: 1 ms steps, later", 10 * us, sim.Millisecond, 3001 * us, 4000 * us},
		// back_off decides by the time of the re-check it follows: after
		// the one at 900 µs (< 1 ms) comes one at 1200 µs, then 2200 µs.
		{"early period not dividing 1 ms: one more early step", 300 * us, sim.Millisecond, 1100 * us, 1200 * us},
		{"early period not dividing 1 ms: then late steps", 300 * us, sim.Millisecond, 1250 * us, 2200 * us},
		{"early period past 1 ms: late from the first re-check", 3 * sim.Millisecond, sim.Millisecond, 3500 * us, 4000 * us},
	}
	for _, c := range cases {
		cfg := Config{SyncRecheck: c.recheck, SyncRecheckLate: c.late}
		assert.Equal(t, started+c.want, cfg.detectAt(started, started+c.arrival), c.name)
	}
}

// poller has one thread whose loop polls every 50 001 ns (50 000 cycles
// of work and the back-edge poll; no JIT, so every back-edge polls):
// polls at k·50 001.
const poller = `
name: poller
methods:
  - class: P
    name: run
    body: [{loop: {trips: 1000000, body: [{work: {cycles: 50000, bytecodes: 100}}]}}]
threads: [{name: p, entry: P.run}]
`

// slowPoller polls every 1 500 001 ns.
const slowPoller = `
name: slow-poller
methods:
  - class: P
    name: run
    body: [{loop: {trips: 1000000, body: [{work: {cycles: 1500000, bytecodes: 100}}]}}]
threads: [{name: p, entry: P.run}]
`

// oneSafepoint runs src under cfg with one safepoint requested at at, its
// operation costing cost, and returns its record.
func oneSafepoint(t *testing.T, src string, cfg Config, at, cost, d sim.Time) (Record, *op) {
	t.Helper()
	vm, c := setupWith(t, src, d, cfg)
	o := &op{cost: cost, coord: c}
	vm.ScheduleTimer(vm.AddTimer(&requester{c: c, op: o}), at, 0)
	vm.Run()
	require.Len(t, c.Records(), 1)
	return c.Records()[0], o
}

func TestSyncRecheckDelaysSafeToTheNextRecheck(t *testing.T) {
	// Requested at 75 002: the thread's next poll is 100 002, 25 µs later.
	const at, cost = 75_002, 20 * us
	old, _ := oneSafepoint(t, poller, DefaultConfig(), at, cost, 400*us)
	require.Equal(t, sim.Time(at), old.Started)
	require.Equal(t, 25*us, old.Arrived-old.Started, "the thread arrives 25 µs after the start")
	assert.Equal(t, old.Arrived, old.Safe, "without re-checks the VM thread sees the arrival at once")

	r, o := oneSafepoint(t, poller, Config{SyncRecheck: 10 * us}, at, cost, 400*us)
	assert.Equal(t, old.Arrived, r.Arrived, "the thread reaches its poll when it did")
	assert.Equal(t, 30*us, r.TTSP(), "seen at the third re-check, 30 µs after the start")
	assert.Equal(t, r.Safe, o.ran, "the operation runs when the VM thread sees everyone safe")
	assert.Equal(t, r.Safe+cost, r.End)
	require.Len(t, r.Pauses, 1)
	assert.Equal(t, r.Arrived, r.Pauses[0].Stopped, "the thread parks at its poll")
	assert.Equal(t, r.End, r.Pauses[0].Resumed)
	assert.Equal(t, (old.Pauses[0].Resumed-old.Pauses[0].Stopped)+5*us, r.Pauses[0].Resumed-r.Pauses[0].Stopped,
		"its pause grows by the 5 µs until the re-check")
}

func TestSyncRecheckParkedThreadsWaitForTheRecheck(t *testing.T) {
	// spinners: requested at 100 000, slow arrives at 100 020 and fast at
	// 100 100; with a 30 µs re-check the VM thread sees them at 130 000.
	vm, c := setupWith(t, spinners, 400*us, Config{SyncRecheck: 30 * us})
	o := &op{cost: 10 * us, coord: c}
	vm.ScheduleTimer(vm.AddTimer(&requester{c: c, op: o}), 100_000, 0)
	vm.Run()
	require.Len(t, c.Records(), 1)
	r := c.Records()[0]
	assert.Equal(t, sim.Time(100_100), r.Arrived)
	assert.Equal(t, sim.Time(130_000), r.Safe)
	assert.Equal(t, []sim.ThreadID{0, 1}, o.stopped, "both stay parked until the re-check")
	for _, p := range r.Pauses {
		assert.Equal(t, sim.Time(140_000), p.Resumed, "thread %d", p.Thread)
	}
}

func TestSyncRecheckOnAnArrivalIsThatArrival(t *testing.T) {
	// spinners again: the last arrival, 100 ns after the start, falls on
	// the first 100 ns re-check.
	vm, c := setupWith(t, spinners, 400*us, Config{SyncRecheck: 100})
	o := &op{cost: 10 * us, coord: c}
	vm.ScheduleTimer(vm.AddTimer(&requester{c: c, op: o}), 100_000, 0)
	vm.Run()
	require.Len(t, c.Records(), 1)
	assert.Equal(t, sim.Time(100_100), c.Records()[0].Safe)
}

func TestSyncRecheckPastOneMillisecondStepsByTheLatePeriod(t *testing.T) {
	// slowPoller polls at 1 500 001 and 3 000 002; requested at 250 001
	// it arrives 1.25 ms after the start.
	const at, cost = 250_001, 20 * us
	cfg := Config{SyncRecheck: 10 * us, SyncRecheckLate: sim.Millisecond}
	r, _ := oneSafepoint(t, slowPoller, cfg, at, cost, 5*sim.Millisecond)
	require.Equal(t, 1250*us, r.Arrived-r.Started)
	assert.Equal(t, 2*sim.Millisecond, r.TTSP(), "10 µs re-checks up to 1 ms, then the one at 2 ms")

	cfg.SyncRecheckLate = 0 // the same period throughout
	r, _ = oneSafepoint(t, slowPoller, cfg, at, cost, 5*sim.Millisecond)
	assert.Equal(t, 1250*us, r.TTSP(), "a 10 µs re-check falls on 1.25 ms")
}

func TestSyncRecheckEveryThreadSafeAtTheStart(t *testing.T) {
	// Both threads are blocked when the safepoint starts: no re-check.
	src := `
name: blocked
methods:
  - class: B
    name: io
    body: [{block: {kind: io, duration: 1ms}}]
threads: [{name: a, entry: B.io}, {name: b, entry: B.io}]
`
	r, o := oneSafepoint(t, src, Config{SyncRecheck: 10 * us, SyncRecheckLate: sim.Millisecond}, 50_000, 10*us, 400*us)
	assert.Equal(t, r.Started, r.Safe, "safe at the examination that starts the protocol")
	assert.Equal(t, r.Started, r.Arrived)
	assert.Equal(t, r.Started, o.ran)
}

func TestOperationOverheadLengthensEveryPause(t *testing.T) {
	const overhead = 40 * us
	run := func(cfg Config) Record {
		vm, c := setupWith(t, spinners, 400*us, cfg)
		o := &op{cost: 10 * us, coord: c}
		vm.ScheduleTimer(vm.AddTimer(&requester{c: c, op: o}), 100_000, 0)
		vm.Run()
		require.Len(t, c.Records(), 1)
		r := c.Records()[0]
		assert.Equal(t, r.End, o.done, "Done follows the overhead")
		return r
	}
	old := run(DefaultConfig())
	r := run(Config{OperationOverhead: overhead})
	assert.Equal(t, old.Safe, r.Safe, "the overhead does not delay reaching the safepoint")
	assert.Equal(t, old.End-old.Safe+overhead, r.End-r.Safe)
	require.Len(t, r.Pauses, len(old.Pauses))
	require.Len(t, r.Pauses, 2)
	for i := range r.Pauses {
		assert.Equal(t, old.Pauses[i].Thread, r.Pauses[i].Thread)
		assert.Equal(t, old.Pauses[i].Stopped, r.Pauses[i].Stopped)
		assert.Equal(t, old.Pauses[i].Resumed-old.Pauses[i].Stopped+overhead, r.Pauses[i].Resumed-r.Pauses[i].Stopped, "thread %d", r.Pauses[i].Thread)
	}
}

// selfOp is a partial-safepoint operation with a fixed self-walk cost.
type selfOp struct{ walk sim.Time }

func (s selfOp) SelfSample(sim.Agent, sim.ThreadID) sim.Time    { return s.walk }
func (s selfOp) SampleWaiting(sim.Agent, sim.ThreadID) sim.Time { return s.walk }
func (s selfOp) Done(sim.Agent, sim.Time)                       {}

// partialRequester asks for a partial safepoint from a timer.
type partialRequester struct{ c *Coordinator }

func (r partialRequester) OnTimer(vm sim.Agent, at sim.Time, _ int64) {
	r.c.RequestPartial("test", PartialConfig{K: 1}, rand.New(rand.NewPCG(1, 2)), selfOp{walk: 5 * us})
}

func TestConfigLeavesPartialSafepointsAlone(t *testing.T) {
	run := func(cfg Config) Record {
		vm, c := setupWith(t, spinners, 400*us, cfg)
		vm.ScheduleTimer(vm.AddTimer(partialRequester{c}), 100_000, 0)
		vm.Run()
		require.Len(t, c.Records(), 1)
		return c.Records()[0]
	}
	old := run(DefaultConfig())
	require.Len(t, old.Pauses, 1, "one ticket, one self-sampled thread")
	assert.Equal(t, old, run(Config{SyncRecheck: 30 * us, SyncRecheckLate: sim.Millisecond, OperationOverhead: 40 * us}))
}

func TestConfigValidate(t *testing.T) {
	require.NoError(t, DefaultConfig().Validate())
	assert.Equal(t, Config{}, DefaultConfig(), "every cost is off by default")
	require.NoError(t, Config{SyncRecheck: 10 * us, SyncRecheckLate: sim.Millisecond, OperationOverhead: us}.Validate())
	cases := []struct {
		cfg  Config
		want string
	}{
		{Config{SyncRecheck: -1}, "safepoint.sync_recheck: -1ns must be ≥ 0"},
		{Config{SyncRecheck: 10 * us, SyncRecheckLate: -1}, "safepoint.sync_recheck_late: -1ns must be ≥ 0"},
		{Config{OperationOverhead: -us}, "safepoint.operation_overhead: -1µs must be ≥ 0"},
		{Config{OperationOverhead: sim.MaxTime + 1}, "safepoint.operation_overhead: 277777h46m40.000000001s is beyond the model's maximum time"},
		{Config{SyncRecheckLate: sim.Millisecond}, "safepoint.sync_recheck_late: 1ms needs safepoint.sync_recheck > 0"},
	}
	for _, c := range cases {
		assert.ErrorContains(t, c.cfg.Validate(), c.want)
		vm, _ := newVM(t, poller, 100*us)
		_, err := New(vm, c.cfg)
		assert.ErrorContains(t, err, c.want, "New refuses it")
	}
}

func TestConfigKeys(t *testing.T) {
	// The keys --set takes (safepoint.KEY) and their ranges.
	var names []string
	for _, k := range param.Keys(&Config{}) {
		names = append(names, k.Name)
		assert.Equal(t, param.Duration, k.Kind, k.Name)
		assert.Equal(t, "0..max", k.Check, k.Name, "at most sim.MaxTime")
		assert.NotEmpty(t, k.Doc, k.Name)
		assert.NotEmpty(t, k.Source, k.Name)
	}
	assert.Equal(t, []string{"sync_recheck", "sync_recheck_late", "operation_overhead"}, names)
}

// newVM builds a VM for src without a coordinator.
func newVM(t *testing.T, src string, d sim.Time) (*sim.VM, *sim.Image) {
	t.Helper()
	return newVMWith(t, src, d, nil)
}

// newVMWith is newVM with tweak applied to the VM's configuration.
func newVMWith(t *testing.T, src string, d sim.Time, tweak func(*sim.Config)) (*sim.VM, *sim.Image) {
	t.Helper()
	p, err := program.Parse([]byte(src), program.YAML)
	require.NoError(t, err)
	cfg := sim.DefaultConfig()
	cfg.ContextSwitch = 0
	cfg.Duration = d
	if tweak != nil {
		tweak(&cfg)
	}
	img, err := sim.NewImage(p, cfg.Cost)
	require.NoError(t, err)
	vm, err := sim.New(img, cfg)
	require.NoError(t, err)
	return vm, img
}

func TestSyncRecheckRequesterParkingAtTheStartIsSafeAtTheStart(t *testing.T) {
	// One allocating thread: it requests the collection and parks in the
	// same instant, as HotSpot's requester blocks in VMThread::execute
	// before the VM thread begins; no re-check is needed.
	src := `
name: alloc
methods:
  - class: A
    name: run
    body: [{loop: {trips: 200000, body: [{work: {cycles: 50, bytecodes: 10}}, {alloc: {bytes: 1024}}]}}]
threads: [{name: t, entry: A.run}]
`
	vm, c := setupWith(t, src, 600*us, Config{SyncRecheck: 10 * us})
	_, err := AttachGC(vm, c, GCConfig{EdenBytes: 4 << 20, TLABBytes: 64 << 10, PauseBase: 50 * us})
	require.NoError(t, err)
	vm.Run()
	require.NotEmpty(t, c.Records())
	for i, r := range c.Records() {
		assert.Equal(t, r.Started, r.Safe, "collection %d", i)
	}
}
