package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// starter costs each deferred job 1 ms and logs when each starts and ends.
type starter struct{ started, done []Time }

func (s *starter) OnJobStart(vm *VM, _ ThreadID, _ int64) Time {
	s.started = append(s.started, vm.Now())
	return Millisecond
}

func (s *starter) OnJobDone(vm *VM, _ ThreadID, _ int64) { s.done = append(s.done, vm.Now()) }

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

func (z *zeroJobs) OnTimer(vm *VM, _ Time, _ int64) {
	vm.SubmitJob(z.svc, 0, 0)
	vm.SubmitJob(z.svc, 0, 1)
}

func (z *zeroJobs) OnJobDone(vm *VM, _ ThreadID, _ int64) { z.done = append(z.done, vm.Now()) }

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
