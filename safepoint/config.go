package safepoint

import (
	"fmt"

	"github.com/profsim/profsim/sim"
)

// Config is what a global safepoint costs beyond its operation, as
// HotSpot 17 pays it (runtime/safepoint.cpp). Its fields are param keys
// (safepoint.KEY); the zero Config adds nothing: the VM thread sees the
// last thread arrive at once and spends only the operation's cost.
// Partial safepoints (RequestPartial) keep their own protocol and ignore
// it.
//
// Detection. SafepointSynchronize::synchronize_threads, after
// arm_safepoint, examines every thread once; if some still run to their
// polls, it calls back_off and examines those again, until none runs.
// back_off sleeps os::naked_short_nanosleep(10 µs) while less than 1 ms
// (NANOSECS_PER_MILLISEC) has passed since the loop began, then
// os::naked_short_sleep(1 ms). So the VM thread re-checks at Started +
// SyncRecheck, + 2·SyncRecheck, … while the previous check came less
// than SyncEarlyPhase after Started, then every SyncRecheckLate, and the
// world is safe at the first re-check at or after the last thread's
// arrival (Safe); if no armed thread was running at the start, Safe =
// Started. SafepointTracing::synchronized then stamps the end of
// "Reaching safepoint", so Record.TTSP includes that detection latency.
// The two periods are separate keys because a real sleep lasts longer
// than asked (timer slack, wake-up): they are the effective periods, the
// 1 ms switch is HotSpot's constant.
//
// Overhead. VMThread::inner_execute (runtime/vmThread.cpp) runs
// SafepointSynchronize::begin (Threads_lock, arm_safepoint, then
// do_cleanup_tasks once synchronized), the operation, and
// SafepointSynchronize::end (disarm_safepoint: restart every thread's
// state, release Threads_lock, disarm the wait barrier). OperationOverhead
// is that CPU, added to the operation's job on the VM thread: every
// stopped thread's pause and Record's Safe → End lengthen by it. HotSpot
// spends the arming part before the threads are synchronized (inside
// "Reaching safepoint"); the model spends all of it after Safe, so pauses
// are exact and TTSP leaves that part out.
type Config struct {
	// SyncRecheck is the VM thread's re-check period while threads run to
	// their polls, during the first SyncEarlyPhase; 0: it sees every
	// arrival at once.
	SyncRecheck sim.Time `key:"sync_recheck" check:"0..max" doc:"VM thread's re-check period while threads run to their polls, during the first 1 ms (0: it sees the last arrival at once); TTSP includes the wait for the next re-check" src:"0 (off; the reproductions' value); --vm hotspot17: 100 us, a 10 us timed wait measured by tools/calibrate (backoff_10us); HotSpot 17 back_off nanosleeps 10 us (runtime/safepoint.cpp SafepointSynchronize::synchronize_threads)"`
	// SyncRecheckLate is the re-check period once a re-check comes
	// SyncEarlyPhase or more after the start; 0: SyncRecheck. Needs
	// SyncRecheck > 0.
	SyncRecheckLate sim.Time `key:"sync_recheck_late" check:"0..max" doc:"re-check period after the first 1 ms of reaching a safepoint (0: sync_recheck); needs sync_recheck > 0" src:"0 (same as sync_recheck); --vm hotspot17: 1.1 ms, a 1 ms timed wait measured by tools/calibrate (backoff_1ms); HotSpot 17 back_off sleeps 1 ms past the first millisecond (runtime/safepoint.cpp)"`
	// OperationOverhead is the VM thread's CPU per global safepoint
	// beyond the operation: begin, cleanup and end.
	OperationOverhead sim.Time `key:"operation_overhead" check:"0..max" doc:"VM thread's CPU per global safepoint beyond its operation (arming, Threads_lock, cleanup, disarming, waking threads); lengthens every pause" src:"0 (off; the reproductions' value); --vm hotspot17: 53 us, measured by tools/calibrate (pause_beyond: a running thread's pause less Reaching and At safepoint); HotSpot 17 VMThread::inner_execute: SafepointSynchronize::begin and end around the operation"`
}

// SyncEarlyPhase is how long after the start of a safepoint the VM thread
// re-checks every SyncRecheck before switching to SyncRecheckLate:
// back_off's NANOSECS_PER_MILLISEC (runtime/safepoint.cpp).
const SyncEarlyPhase = sim.Millisecond

// DefaultConfig adds no cost: detection at the last arrival, no overhead.
func DefaultConfig() Config { return Config{} }

// Validate names the first invalid field.
func (c Config) Validate() error {
	for _, f := range []struct {
		name string
		t    sim.Time
	}{{"sync_recheck", c.SyncRecheck}, {"sync_recheck_late", c.SyncRecheckLate}, {"operation_overhead", c.OperationOverhead}} {
		switch {
		case f.t < 0:
			return fmt.Errorf("safepoint.%s: %v must be ≥ 0", f.name, f.t)
		case f.t > sim.MaxTime:
			return fmt.Errorf("safepoint.%s: %v is beyond the model's maximum time, 10^18 ns", f.name, f.t)
		}
	}
	if c.SyncRecheckLate > 0 && c.SyncRecheck == 0 {
		return fmt.Errorf("safepoint.sync_recheck_late: %v needs safepoint.sync_recheck > 0 (with 0 the VM thread sees every arrival at once)", c.SyncRecheckLate)
	}
	return nil
}

// detectAt is when the VM thread sees that every thread is safe, the last
// having arrived at arrival, in a safepoint that started at started with
// some thread still running: the first re-check at or after arrival. An
// arrival at the start itself (the thread that requested a collection,
// parking in the same instant) is seen by the examination at the start,
// as HotSpot's requester is blocked in VMThread::execute before the VM
// thread begins.
func (c Config) detectAt(started, arrival sim.Time) sim.Time {
	r := c.SyncRecheck
	if r == 0 {
		return arrival
	}
	late := c.SyncRecheckLate
	if late == 0 {
		late = r
	}
	d := arrival - started
	// Early re-checks at k·r for k = 1 … kEarly, kEarly·r being the first
	// at or past SyncEarlyPhase: back_off decides by the time of the
	// re-check it follows.
	kEarly := ceilDiv(SyncEarlyPhase, r)
	if early := kEarly * r; d > early {
		return started + early + ceilDiv(d-early, late)*late
	}
	return started + ceilDiv(d, r)*r
}

// ceilDiv is ⌈a/b⌉ for a ≥ 0, b > 0.
func ceilDiv(a, b sim.Time) sim.Time { return (a + b - 1) / b }
