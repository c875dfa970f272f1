package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// starter costs each deferred job 1 ms and logs when each starts and ends.
type starter struct{ started, done []Time }

func (s *starter) OnJobStart(vm Agent, _ ThreadID, _ int64) Time {
	s.started = append(s.started, vm.Now())
	return Millisecond
}

func (s *starter) OnJobDone(vm Agent, _ ThreadID, _ int64) { s.done = append(s.done, vm.Now()) }

// TestDeferredJobCostIsDecidedAtStart: a deferred job's cost is asked for
// when the service thread reaches it — at once on an idle thread, after
// the previous job otherwise — not when it was queued.
func TestDeferredJobCostIsDecidedAtStart(t *testing.T) {
	vm := newVM(t, builtin(t, "hotcold"), func(c *Config) { c.Duration = 10 * Millisecond; c.ContextSwitch = 0 })
	s := &starter{}
	id := vm.NewServiceThread("compiler", s)
	vm.SubmitDeferredJob(id, 1)
	vm.SubmitDeferredJob(id, 2)
	vm.SubmitJob(id, Millisecond/2, 3)
	vm.Run()
	assert.Equal(t, []Time{0, Millisecond}, s.started)
	assert.Equal(t, []Time{Millisecond, 2 * Millisecond, 2*Millisecond + Millisecond/2}, s.done)
}

// zeroJobs submits two zero-cost jobs when its timer fires and counts
// their completions.
type zeroJobs struct {
	svc  ThreadID
	done []Time
}

func (z *zeroJobs) OnTimer(vm Agent, _ Time, _ int64) {
	vm.SubmitJob(z.svc, 0, 0)
	vm.SubmitJob(z.svc, 0, 1)
}

func (z *zeroJobs) OnJobDone(vm Agent, _ ThreadID, _ int64) { z.done = append(z.done, vm.Now()) }

// A zero-cost job (a safepoint with no thread to walk submits one) ends
// as soon as the thread is dispatched; it once stalled the run forever.
func TestZeroCostJobCompletes(t *testing.T) {
	vm := newVM(t, builtin(t, "hotcold"), func(c *Config) { c.Duration = 10 * Millisecond; c.ContextSwitch = 0 })
	z := &zeroJobs{}
	z.svc = vm.NewServiceThread("svc", z)
	vm.ScheduleTimer(vm.AddTimer(z), Millisecond, 0)
	vm.Run()
	assert.Equal(t, []Time{Millisecond, Millisecond}, z.done)
}

// ticker is a service thread with a short job every millisecond (a
// sampler thread); late is another that wakes once (a compiler).
type ticker struct {
	svc, late ThreadID
	lateDone  Time
}

func (k *ticker) OnTimer(vm Agent, at Time, arg int64) {
	if arg == 1 {
		vm.SubmitJob(k.late, 100*Microsecond, 1)
		return
	}
	vm.SubmitJob(k.svc, 2*Microsecond, 0)
	vm.ScheduleTimer(vm.AddTimer(k), at+Millisecond, 0)
}

func (k *ticker) OnJobDone(vm Agent, _ ThreadID, tag int64) {
	if tag == 1 {
		k.lateDone = vm.Now()
	}
}

// A woken service thread gets a CPU within about a MaxStep even on one
// CPU busy with an application thread — also when its preemption falls
// while another service thread holds the CPU (it once waited for as long
// as the other kept preempting the application thread).
func TestServiceThreadIsNotStarved(t *testing.T) {
	vm := newVM(t, builtin(t, "hotcold"), func(c *Config) { c.Duration = 50 * Millisecond; c.CPUs = 1 })
	k := &ticker{}
	k.svc = vm.NewServiceThread("sampler", k)
	k.late = vm.NewServiceThread("compiler", k)
	tm := vm.AddTimer(k)
	vm.ScheduleTimer(tm, Millisecond, 0)
	// The sampler takes the CPU at 10.1 ms (its tick + MaxStep) for ≈ 7 µs;
	// the compiler's first preemption attempt, at 10.101 ms, finds it
	// there.
	vm.ScheduleTimer(tm, 10*Millisecond+Microsecond, 1)
	vm.Run()
	require.Positive(t, k.lateDone)
	assert.Less(t, k.lateDone, 11*Millisecond, "the compiler's job ran within a millisecond")
}
