package sim

import "fmt"

// ThreadStats is the ground truth about one thread.
type ThreadStats struct {
	Name   string
	Daemon bool
	// Service threads are the VM's own; their CPU is not application CPU.
	Service bool
	// Start is when the thread was created; End when it finished (0 if it
	// was still alive at the end of the run).
	Start, End Time
	// States is the time spent in each ThreadState; States[Running] is the
	// thread's CPU time.
	States     [numStates]Time
	Statements int64
	AllocBytes int64
	// Unprofiled: Config.ProfileThreads leaves the thread out of the
	// truth (and of AppCPU).
	Unprofiled bool
	// Uncaught reports an exception that ended the thread; StackOverflow a
	// call beyond Config.MaxStackDepth.
	Uncaught, StackOverflow bool
}

// CPU is the thread's CPU time.
func (s *ThreadStats) CPU() Time { return s.States[Running] }

// Result is everything a finished run knows.
type Result struct {
	Image *Image
	Seed  uint64
	// End is when the run stopped: the configured duration, or when the
	// last non-daemon thread finished.
	End Time
	// From is where the run's counts start (Result.Since): 0, or the
	// start of the profiled window.
	From    Time
	Truth   *Truth
	Threads []ThreadStats
	// Statements is how many source statements the threads executed.
	Statements int64
	// Overhead is CPU time the VM spent on context switches.
	Overhead Time
	// Incidents lists what went wrong in the program (stack overflows,
	// deadlocks), in the order it happened. Never silently dropped.
	Incidents []string
}

// AppCPU is the CPU time of the profiled application threads (all of
// them without Config.ProfileThreads): by the ground-truth invariant, it
// equals Truth.SelfTotal().
func (r *Result) AppCPU() Time {
	var s Time
	for i := range r.Threads {
		if !r.Threads[i].Service && !r.Threads[i].Unprofiled {
			s += r.Threads[i].CPU()
		}
	}
	return s
}

// VMCPU is the CPU time of the VM's service threads (VM thread, compiler,
// profiler agents).
func (r *Result) VMCPU() Time {
	var s Time
	for i := range r.Threads {
		if r.Threads[i].Service {
			s += r.Threads[i].CPU()
		}
	}
	return s
}

// Result summarises the run so far (call after Run for the final one).
func (vm *VM) Result() *Result {
	r := &Result{Image: vm.img, Seed: vm.cfg.Seed, End: vm.now, Truth: vm.truth,
		Overhead: vm.overhead, Incidents: append([]string(nil), vm.incidents...)}
	if vm.unlisted > 0 {
		r.Incidents = append(r.Incidents, fmt.Sprintf("%d more incidents not listed (a run lists the first %d)", vm.unlisted, maxIncidents))
	}
	if vm.done {
		r.End = vm.end
	}
	for _, t := range vm.threads {
		st := ThreadStats{Name: t.Name, Daemon: t.Daemon, Service: t.service != nil, Start: t.start, End: t.end,
			States: t.stateTime, Statements: t.stmts, AllocBytes: t.allocBytes,
			Unprofiled: t.unprofiled, Uncaught: t.uncaught, StackOverflow: t.overflow}
		r.Statements += t.stmts
		r.Threads = append(r.Threads, st)
	}
	return r
}

// Statements is how many source statements all threads have executed so
// far; cheap enough to call between RunUntil steps.
func (vm *VM) Statements() int64 {
	var n int64
	for _, t := range vm.threads {
		n += t.stmts
	}
	return n
}
