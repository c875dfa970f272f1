package safepoint

import (
	"math/rand/v2"
	"testing"

	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// three spinners whose loops poll every 1001, 2001 and 5001 ns (work and
// the back-edge poll; no JIT, so every back-edge polls). After 100 000
// the next polls are slow's at 100 020, mid's at 100 050 and fast's at
// 100 100.
const three = `
name: three
methods:
  - class: S
    name: fast
    body: [{loop: {trips: 100000, body: [{work: {cycles: 1000, bytecodes: 100}}]}}]
  - class: S
    name: mid
    body: [{loop: {trips: 50000, body: [{work: {cycles: 2000, bytecodes: 200}}]}}]
  - class: S
    name: slow
    body: [{loop: {trips: 20000, body: [{work: {cycles: 5000, bytecodes: 500}}]}}]
threads: [{name: fast, entry: S.fast}, {name: mid, entry: S.mid}, {name: slow, entry: S.slow}]
`

// Thread IDs in three and mixed.
const (
	fastID sim.ThreadID = 0
	midID  sim.ThreadID = 1
	slowID sim.ThreadID = 2
)

// mixed has two runnable threads (fast and slow as in three) and two
// waiting ones: nat in native code for its first millisecond and sleeper
// asleep for its first millisecond.
const mixed = `
name: mixed
methods:
  - class: S
    name: fast
    body: [{loop: {trips: 100000, body: [{work: {cycles: 1000, bytecodes: 100}}]}}]
  - class: S
    name: slow
    body: [{loop: {trips: 20000, body: [{work: {cycles: 5000, bytecodes: 500}}]}}]
  - class: N
    name: nat
    body: [{native: {cycles: 1000000}}]
  - class: Z
    name: sleeper
    body: [{block: {kind: sleep, duration: 1ms}}]
threads: [{name: fast, entry: S.fast}, {name: nat, entry: N.nat}, {name: slow, entry: S.slow}, {name: sleeper, entry: Z.sleeper}]
`

// Thread IDs in mixed besides fastID and slowID.
const (
	natID     sim.ThreadID = 1
	sleeperID sim.ThreadID = 3
)

// sampleOp is a partial-safepoint operation whose self-walk costs walk on
// the sampled thread and whose walk of a waiting thread costs vmWalk on
// the VM thread; it records whom it sampled and what the coordinator
// reported when it was done.
type sampleOp struct {
	walk, vmWalk sim.Time
	c            *Coordinator
	self, waited []sim.ThreadID
	// At Done: the coordinator's Sampled and Stopped, and the time.
	sampled, stopped []sim.ThreadID
	done             sim.Time
	dones            int
}

func (o *sampleOp) SelfSample(_ sim.Agent, t sim.ThreadID) sim.Time {
	o.self = append(o.self, t)
	return o.walk
}

func (o *sampleOp) SampleWaiting(_ sim.Agent, t sim.ThreadID) sim.Time {
	o.waited = append(o.waited, t)
	return o.vmWalk
}

func (o *sampleOp) Done(_ sim.Agent, at sim.Time) {
	o.sampled, o.stopped, o.done = o.c.Sampled(), o.c.Stopped(), at
	o.dones++
}

// partialRun is one partial safepoint requested at 100 µs of a 400 µs run.
type partialRun struct {
	res *sim.Result
	c   *Coordinator
	rec Record
	id  RequestID
}

// runPartial runs src with one partial safepoint under cfg, choosing
// waiting threads with a PCG seeded by seed, and returns its record.
func runPartial(t *testing.T, src string, cfg PartialConfig, seed uint64, o *sampleOp) partialRun {
	t.Helper()
	return runPartialStep(t, src, cfg, seed, o, sim.DefaultConfig().MaxStep)
}

// runPartialStep is runPartial with the VM's Config.MaxStep.
func runPartialStep(t *testing.T, src string, cfg PartialConfig, seed uint64, o *sampleOp, maxStep sim.Time) partialRun {
	t.Helper()
	vm, _ := newVMWith(t, src, 400*us, func(c *sim.Config) { c.MaxStep = maxStep })
	c, err := New(vm, DefaultConfig())
	require.NoError(t, err)
	o.c = c
	var r partialRun
	vm.ScheduleTimer(vm.AddTimer(timerFunc(func() {
		r.id = c.RequestPartial("sample:test", cfg, rand.New(rand.NewPCG(seed, 0)), o)
	})), 100_000, 0)
	r.res, r.c = vm.Run(), c
	require.Len(t, c.Records(), 1)
	r.rec = c.Records()[0]
	return r
}

// pauses maps each paused thread to its pause.
func pauses(r Record) map[sim.ThreadID]Pause {
	m := map[sim.ThreadID]Pause{}
	for _, p := range r.Pauses {
		m[p.Thread] = p
	}
	return m
}

func TestPartialTicketsGoToTheFirstKThreadsToPoll(t *testing.T) {
	const walk = 5 * us
	o := &sampleOp{walk: walk}
	r := runPartial(t, three, PartialConfig{K: 2}, 1, o)
	rec := r.rec
	assert.Equal(t, r.id, rec.ID)
	assert.Equal(t, "sample:test", rec.Reason)
	assert.Equal(t, []sim.ThreadID{slowID, midID}, o.self, "slow (100 020) and mid (100 050) take the two tickets")
	assert.Equal(t, []sim.ThreadID{slowID, midID}, o.sampled, "Sampled: in arrival order")
	assert.Equal(t, []sim.ThreadID{midID, slowID}, o.stopped, "Stopped: in thread order")
	assert.Empty(t, o.waited)
	assert.Equal(t, sim.Time(100_000), rec.Started)
	assert.Equal(t, sim.Time(100_050), rec.Arrived, "the last ticket is taken")
	assert.Equal(t, rec.Arrived, rec.Safe)
	assert.Equal(t, sim.Time(100_050)+walk, rec.End, "mid, the last sampled, has walked its stack")
	assert.Equal(t, rec.End, o.done)
	assert.Equal(t, 1, o.dones)
	ps := pauses(rec)
	require.Len(t, ps, 2)
	assert.Equal(t, sim.Time(100_020), ps[slowID].Stopped)
	assert.Equal(t, sim.Time(100_050), ps[midID].Stopped)
	for _, p := range ps {
		assert.Equal(t, rec.End, p.Resumed, "thread %d waits for every sample", p.Thread)
	}
	// The sampled threads spend their walk stalled and wait parked for
	// the others; fast, past the last ticket, is not touched.
	th := r.res.Threads
	assert.Equal(t, walk, th[slowID].States[sim.Stalled])
	assert.Equal(t, walk, th[midID].States[sim.Stalled])
	assert.Equal(t, rec.End-100_020-walk, th[slowID].States[sim.Parked])
	assert.Zero(t, th[midID].States[sim.Parked], "mid parks when its walk ends, as the safepoint ends")
	assert.Zero(t, th[fastID].States[sim.Stalled]+th[fastID].States[sim.Parked])
	assert.Zero(t, r.res.Threads[r.c.VMThread()].States[sim.Running], "no waiting thread: the VM thread has nothing to do")
	assert.Equal(t, r.res.AppCPU(), r.res.Truth.SelfTotal(), "the walks are not application CPU")
}

func TestPartialKBeyondTheRunnableThreadsWaitsForEach(t *testing.T) {
	o := &sampleOp{walk: 5 * us}
	rec := runPartial(t, three, PartialConfig{K: 5}, 1, o).rec
	assert.Equal(t, []sim.ThreadID{slowID, midID, fastID}, o.self, "three runnable threads: three tickets")
	assert.Equal(t, sim.Time(100_100), rec.Safe, "fast's poll takes the last")
	assert.Equal(t, sim.Time(100_100)+5*us, rec.End)
	assert.Len(t, rec.Pauses, 3)
}

func TestPartialCandidateThatBlocksGivesUpItsTicket(t *testing.T) {
	// quitter works until 100 010 and then sleeps: a safe transition
	// before its next poll. Its ticket is not waited for; slow takes the
	// other at 100 020.
	src := `
name: quitter
methods:
  - class: Q
    name: quit
    body: [{work: {cycles: 100010, bytecodes: 100}}, {block: {kind: sleep, duration: 1ms}}]
  - class: S
    name: slow
    body: [{loop: {trips: 20000, body: [{work: {cycles: 5000, bytecodes: 500}}]}}]
threads: [{name: quitter, entry: Q.quit}, {name: slow, entry: S.slow}]
`
	o := &sampleOp{walk: 5 * us}
	rec := runPartial(t, src, PartialConfig{K: 2}, 1, o).rec
	assert.Equal(t, []sim.ThreadID{1}, o.self, "only slow is sampled")
	assert.Equal(t, sim.Time(100_020), rec.Safe, "the safepoint does not wait for the sleeping quitter")
	require.Len(t, rec.Pauses, 1)
	assert.Equal(t, sim.ThreadID(1), rec.Pauses[0].Thread)
}

func TestPartialWaitingThreadsShareKInProportion(t *testing.T) {
	// mixed: 2 runnable (fast, slow) and 2 waiting threads (nat in native
	// code, sleeper): K = 2 gives one ticket and one waiting thread, which
	// the VM thread walks.
	const walk, vmWalk = 5 * us, 3 * us
	chosen := map[sim.ThreadID]int{}
	for seed := uint64(1); seed <= 20; seed++ {
		o := &sampleOp{walk: walk, vmWalk: vmWalk}
		r := runPartial(t, mixed, PartialConfig{K: 2, IncludeWaiting: true}, seed, o)
		assert.Equal(t, []sim.ThreadID{slowID}, o.self, "seed %d: one ticket, taken by slow at 100 020", seed)
		assert.Equal(t, sim.Time(100_020), r.rec.Safe, "seed %d", seed)
		require.Len(t, o.waited, 1, "seed %d", seed)
		chosen[o.waited[0]]++
		assert.Equal(t, vmWalk, r.res.Threads[r.c.VMThread()].States[sim.Running], "seed %d: the VM thread walks it", seed)
		assert.Len(t, r.rec.Pauses, 1, "seed %d: waiting threads are not paused", seed)
	}
	assert.Equal(t, 20, chosen[natID]+chosen[sleeperID], "the waiting thread is nat or sleeper")
	assert.Positive(t, chosen[natID], "chosen at random: nat sometimes")
	assert.Positive(t, chosen[sleeperID], "chosen at random: sleeper sometimes")
}

func TestPartialHofersExampleOneOfFourSamplesIsAWaitingThread(t *testing.T) {
	// Hofer et al.: 4 samples, 15 runnable and 6 waiting threads → 3
	// runnable and 1 waiting.
	src := `
name: hofer-example
methods:
  - class: S
    name: spin
    body: [{loop: {trips: 100000, body: [{work: {cycles: 1000, bytecodes: 100}}]}}]
  - class: Z
    name: sleeper
    body: [{block: {kind: sleep, duration: 1ms}}]
threads: [{name: sleeper, entry: Z.sleeper, count: 6}, {name: spin, entry: S.spin, count: 15}]
`
	o := &sampleOp{walk: us, vmWalk: us}
	rec := runPartial(t, src, PartialConfig{K: 4, IncludeWaiting: true}, 1, o).rec
	assert.Len(t, o.self, 3)
	assert.Len(t, rec.Pauses, 3)
	require.Len(t, o.waited, 1)
	assert.Less(t, o.waited[0], sim.ThreadID(6), "a sleeper (they start first and fall asleep at once)")
}

func TestPartialThreadInNativeCodeIsNotACandidate(t *testing.T) {
	// Without IncludeWaiting only runnable threads in Java code are
	// armed: nat, in native code, is neither sampled nor waited for, and
	// the tickets go to slow (100 020) and fast (100 100).
	o := &sampleOp{walk: 5 * us, vmWalk: 3 * us}
	r := runPartial(t, mixed, PartialConfig{K: 2}, 1, o)
	assert.Equal(t, []sim.ThreadID{slowID, fastID}, o.self)
	assert.Empty(t, o.waited)
	assert.Equal(t, sim.Time(100_100), r.rec.Safe)
	assert.Zero(t, r.res.Threads[natID].States[sim.Parked]+r.res.Threads[natID].States[sim.Stalled])
}

// partialMaxStep is the sim's MaxStep for TestPartialEndsWhenBothSelfWalks
// AndTheVMThreadAreDone: below slow's 20 ns from the start to its ticket.
// With the default 100 µs the VM thread runs its whole job in the round
// that starts the safepoint, before slow's ticket schedules the timer for
// the end of its self-walk; the job's end, then past the round's horizon,
// is handled before that earlier timer (the divergence from exact horizon
// splitting that docs/MODEL.md describes), and the safepoint ends
// without waiting for the VM thread.
const partialMaxStep = 10 * sim.Nanosecond

func TestPartialEndsWhenBothSelfWalksAndTheVMThreadAreDone(t *testing.T) {
	// mixed, K = 2 with waiting threads: slow takes the ticket at 100 020
	// and walks until 100 020 + walk; the VM thread walks a waiting thread
	// from 100 000 until 100 000 + vmWalk. Whichever finishes last ends the
	// safepoint, and slow stays parked until then. Rounds of at most
	// partialMaxStep keep the VM thread's job end in time order with the
	// timer that slow's ticket schedules.
	for _, tc := range []struct {
		name         string
		walk, vmWalk sim.Time
		end          sim.Time
	}{
		{"the VM thread finishes last", 5 * us, 20 * us, 120_000},
		{"the self-walk finishes last", 5 * us, 2 * us, 105_020},
		{"both at once", 5 * us, 5*us + 20, 105_020},
	} {
		o := &sampleOp{walk: tc.walk, vmWalk: tc.vmWalk}
		rec := runPartialStep(t, mixed, PartialConfig{K: 2, IncludeWaiting: true}, 1, o, partialMaxStep).rec
		assert.Equal(t, tc.end, rec.End, tc.name)
		assert.Equal(t, tc.end, o.done, tc.name)
		assert.Equal(t, 1, o.dones, "%s: Done once", tc.name)
		require.Len(t, rec.Pauses, 1, tc.name)
		assert.Equal(t, Pause{Thread: slowID, Stopped: 100_020, Resumed: tc.end}, rec.Pauses[0], tc.name)
	}
}

func TestPartialCostlessSamplesWithoutStoppingAnyone(t *testing.T) {
	o := &sampleOp{walk: 5 * us, vmWalk: 3 * us}
	r := runPartial(t, mixed, PartialConfig{K: 2, IncludeWaiting: true, Costless: true}, 1, o)
	assert.Equal(t, []sim.ThreadID{slowID}, o.self, "slow still samples itself at its poll")
	assert.Len(t, o.waited, 1, "a waiting thread is still sampled")
	assert.Empty(t, r.rec.Pauses)
	assert.Equal(t, sim.Time(100_020), r.rec.Safe)
	assert.Equal(t, r.rec.Safe, r.rec.End, "nothing to wait for")
	for _, th := range r.res.Threads {
		assert.Zero(t, th.States[sim.Stalled]+th.States[sim.Parked], th.Name)
	}
	assert.Zero(t, r.res.Threads[r.c.VMThread()].States[sim.Running], "the VM thread is not charged")
}

func TestPartialWithNoRunnableThreadIsSafeAtOnce(t *testing.T) {
	src := `
name: sleepers
methods:
  - class: Z
    name: sleeper
    body: [{block: {kind: sleep, duration: 1ms}}]
threads: [{name: sleeper, entry: Z.sleeper, count: 2}]
`
	o := &sampleOp{walk: 5 * us, vmWalk: 3 * us}
	rec := runPartial(t, src, PartialConfig{K: 2}, 1, o).rec
	assert.Equal(t, rec.Started, rec.Safe, "no ticket to wait for")
	assert.Equal(t, rec.Started, rec.End)
	assert.Empty(t, o.self)
	assert.Empty(t, o.waited)

	o = &sampleOp{walk: 5 * us, vmWalk: 3 * us}
	rec = runPartial(t, src, PartialConfig{K: 2, IncludeWaiting: true}, 1, o).rec
	assert.ElementsMatch(t, []sim.ThreadID{0, 1}, o.waited, "K = 2 waiting threads")
	assert.Equal(t, rec.Started, rec.Safe)
	assert.Equal(t, rec.Started+2*o.vmWalk, rec.End, "the VM thread walks both")
	assert.Empty(t, rec.Pauses)
}

func TestSampledIsNilOutsideAPartialSafepoint(t *testing.T) {
	vm, c := setup(t, spinners)
	assert.Nil(t, c.Sampled(), "no safepoint")
	var inGlobal []sim.ThreadID
	vm.ScheduleTimer(vm.AddTimer(timerFunc(func() {
		c.Request("test", &opFunc{run: func() { inGlobal = c.Sampled() }})
	})), 100_000, 0)
	vm.Run()
	require.Len(t, c.Records(), 1)
	assert.Nil(t, inGlobal, "a global safepoint samples nobody")
}

// opFunc is an Operation costing nothing that calls run.
type opFunc struct{ run func() }

func (o *opFunc) Run(sim.Agent, sim.Time) sim.Time { o.run(); return 0 }
func (o *opFunc) Done(sim.Agent, sim.Time)         {}
