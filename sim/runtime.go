package sim

import (
	"fmt"
	"math"
)

// This file holds the VM-runtime extension points the jit and safepoint
// packages build on: compile counters, service threads (VM thread,
// compiler thread, profiler agents), holding wake-ups during a safepoint,
// stalling a thread on its CPU, allocation (TLAB) hand-out, and on-stack
// replacement.

// CounterKind says which JIT counter fired.
type CounterKind uint8

// Counters kept by Counting (interpreted) code.
const (
	InvocationCounter CounterKind = iota // calls into the method
	BackedgeCounter                      // taken back-edges in the method's loops
)

// CounterHandler is told, in global time order, when a method's counter
// reaches the trigger set for it. The thread that made it reach the
// trigger is stopped there and continues after the call.
type CounterHandler interface {
	OnCounter(vm Agent, t ThreadID, method int32, k CounterKind)
}

// SetCounterHandler registers the JIT.
func (c *jitCounters) SetCounterHandler(h CounterHandler) { c.counters = h }

// SetTrigger makes counter k of method fire when it reaches n; n ≤ the
// current count (or math.MaxInt64) disarms it.
func (c *jitCounters) SetTrigger(method int32, k CounterKind, n int64) {
	if n <= c.Counter(method, k) {
		n = math.MaxInt64
	}
	if k == InvocationCounter {
		c.invocationTrigger[method] = n
	} else {
		c.backedgeTrigger[method] = n
	}
}

// Counter returns counter k of method.
func (c *jitCounters) Counter(method int32, k CounterKind) int64 {
	if k == InvocationCounter {
		return c.invocations[method]
	}
	return c.backedges[method]
}

// Code returns the version new activations of method run.
func (vm *VM) Code(method int32) *Code { return vm.code[method] }

// EdgeCount returns how often static call edge i (Image.Edges) has run so
// far: the VM's call-site profile, which inlining decisions read.
func (vm *VM) EdgeCount(i int) int64 {
	if vm.unprofiled != nil {
		return vm.truth.edgeCounts[i] + vm.unprofiled.edgeCounts[i]
	}
	return vm.truth.edgeCounts[i]
}

// ReplaceCode installs c and moves every running, non-inlined activation of
// c's method that runs a different version onto it: on-stack replacement.
// Versions of one method share their instruction layout, so pc and loop
// counters carry over unchanged.
func (vm *VM) ReplaceCode(c *Code) {
	vm.Install(c)
	for _, t := range vm.threads {
		for i := range t.frames {
			f := &t.frames[i]
			if f.code.Method == c.Method && f.flags&fInlined == 0 && f.code != c {
				f.code = c
			}
		}
	}
}

// ThreadObserver is told when an application thread is created (before
// it runs), so that per-thread instrumentation can start with it.
type ThreadObserver interface {
	OnThreadStart(vm Agent, t ThreadID)
}

// AddThreadObserver registers o; it is also told about the threads that
// exist already.
func (vm *VM) AddThreadObserver(o ThreadObserver) {
	vm.observers = append(vm.observers, o)
	for _, t := range vm.threads {
		if t.service == nil {
			o.OnThreadStart(vm.agent, t.ID)
		}
	}
}

// ThreadEndObserver is told when an application thread ends (JVMTI's
// ThreadEnd): its last frame has returned (or an exception or overflow
// emptied its stack) and it is still on its CPU. An agent that keeps
// per-thread data must collect it now; returning Park holds the thread
// until Unpark (the callback waits, e.g. for a safepoint), and it
// terminates when it runs again — until then its joiner waits too.
type ThreadEndObserver interface {
	OnThreadEnd(vm Agent, t ThreadID) Action
}

// AddThreadEndObserver registers o.
func (r *registry) AddThreadEndObserver(o ThreadEndObserver) {
	r.endObservers = append(r.endObservers, o)
}

// Service is the Go side of a service thread: it is told when each job
// the thread ran has finished (at the thread's time, VM.Now()).
type Service interface {
	OnJobDone(vm Agent, t ThreadID, tag int64)
}

// JobStarter is a Service whose deferred jobs (SubmitDeferredJob) learn
// their cost only when the thread starts them: a compiler that reads the
// call-site profile when it begins a compilation, not when it was queued.
type JobStarter interface {
	Service
	OnJobStart(vm Agent, t ThreadID, tag int64) Time
}

type serviceJob struct {
	cost     Time
	tag      int64
	deferred bool
}

// startJob returns the cost of t's head job, asking the service for a
// deferred one's now.
func (vm *VM) startJob(t *Thread) int64 {
	job := &t.jobs[0]
	if job.deferred {
		job.cost = t.service.(JobStarter).OnJobStart(vm.agent, t.ID, job.tag)
		mustNonNegative("job cost", job.cost)
		job.deferred = false
	}
	return int64(job.cost)
}

// NewServiceThread creates a VM-internal daemon thread — the VM thread
// that runs safepoint operations, a compiler thread, a profiler's agent
// thread. It competes for CPUs like any thread, but its CPU time is VM
// time, outside the application's CCT, and safepoints never stop it.
func (vm *VM) NewServiceThread(name string, s Service) ThreadID {
	if s == nil {
		panic("sim: nil service")
	}
	t := vm.newThread(name, -1, true, vm.now)
	t.service = s
	t.truth = vm.truth // the root's cell only: a service frame never charges
	t.frames = append(t.frames, frame{code: serviceCode, cells: vm.truth.cell(0)})
	t.setState(Blocked, vm.now) // idle until it has a job
	return t.ID
}

var serviceCode = &Code{Method: -1, Instrs: []Instr{{Op: OpService}}}

// SubmitJob queues a job costing cost ns of CPU on service thread id; the
// thread runs its jobs in order and calls OnJobDone after each.
func (vm *VM) SubmitJob(id ThreadID, cost Time, tag int64) {
	t := vm.thread(id)
	if t.service == nil {
		panic(fmt.Sprintf("sim: SubmitJob on application thread %s", t.Name))
	}
	mustNonNegative("job cost", cost)
	vm.queueJob(t, serviceJob{cost: cost, tag: tag})
}

// SubmitDeferredJob queues a job on service thread id whose cost the
// service (a JobStarter) decides when the thread starts it.
func (vm *VM) SubmitDeferredJob(id ThreadID, tag int64) {
	t := vm.thread(id)
	if _, ok := t.service.(JobStarter); !ok {
		panic(fmt.Sprintf("sim: SubmitDeferredJob on %s, whose service is not a JobStarter", t.Name))
	}
	vm.queueJob(t, serviceJob{tag: tag, deferred: true})
}

func (vm *VM) queueJob(t *Thread, job serviceJob) {
	t.jobs = append(t.jobs, job)
	if len(t.jobs) == 1 && t.state == Blocked {
		t.jobLeft = vm.startJob(t)
		at := vm.now
		if t.clock > at {
			at = t.clock
		}
		vm.makeRunnable(t, at)
	}
}

// serviceJobDone finishes the current job and starts the next, or idles.
func (vm *VM) serviceJobDone(t *Thread) {
	job := t.jobs[0]
	copy(t.jobs, t.jobs[1:])
	t.jobs = t.jobs[:len(t.jobs)-1]
	t.service.OnJobDone(vm.agent, t.ID, job.tag)
	if len(t.jobs) > 0 {
		t.jobLeft = vm.startJob(t)
		return
	}
	if t.state == Running {
		vm.offCPU(t, Blocked)
	}
}

// AllocHandler hands out TLABs: it is called, in global time order, when a
// thread's allocation does not fit its thread-local allocation buffer. A
// GC policy requests a collection from here; Park stops the allocating
// thread (it resumes by Unpark, then performs its allocation).
type AllocHandler interface {
	OnTLAB(vm Agent, t ThreadID, bytes int64) Action
}

// SetAllocHandler enables TLAB accounting with TLABs of tlab bytes. Call
// it before Run.
func (vm *VM) SetAllocHandler(h AllocHandler, tlab int64) {
	if tlab <= 0 {
		panic(fmt.Sprintf("sim: TLAB size %d", tlab))
	}
	vm.allocs, vm.tlabSize = h, tlab
	for _, t := range vm.threads {
		t.tlabLeft = 0
	}
}

// SetHold starts or stops holding wake-ups: while on, an application thread
// that would become runnable (I/O done, monitor handed over, spawned,
// started) is parked instead, as a thread that comes back into the VM
// during a safepoint blocks until it ends. Service threads are never held.
func (s *services) SetHold(on bool) { s.hold = on }

// ReleaseHeld makes every held thread runnable now.
func (vm *VM) ReleaseHeld() {
	held := vm.held
	vm.held = nil
	for _, id := range held {
		t := vm.threads[id]
		t.heldByHold = false
		if t.state == Parked {
			vm.makeRunnable(t, vm.now)
		}
	}
}

// Stall keeps running thread id busy on its CPU for d without running its
// code — a signal handler, a profiler's stack walk on the thread — which
// is accounted as state Stalled, not as application CPU.
func (vm *VM) Stall(id ThreadID, d Time) {
	t := vm.thread(id)
	if t.state != Running {
		panic(fmt.Sprintf("sim: Stall of thread %s in state %v", t.Name, t.state))
	}
	mustNonNegative("stall", d)
	t.setState(Stalled, t.clock)
	t.clock += d
	t.setState(Running, t.clock)
}
