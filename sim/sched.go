package sim

// The scheduler: which thread runs on which CPU. Runnable threads take the
// lowest-numbered idle CPU or queue FIFO; a running thread keeps its CPU for
// a time slice; a woken service thread preempts the application thread that
// has run longest (Linux CFS's wake-up preemption).

// makeRunnable puts t on the lowest-numbered idle CPU, or at the tail of the
// run queue.
func (vm *VM) makeRunnable(t *Thread, at Time) {
	if vm.hold && t.service == nil {
		t.setState(Parked, at)
		t.heldByHold = true
		vm.held = append(vm.held, t.ID)
		return
	}
	t.setState(Runnable, at)
	for i := range vm.cpus {
		if vm.cpus[i].thread < 0 {
			vm.dispatch(int32(i), t, at)
			return
		}
	}
	vm.runq.push(t.ID)
	if t.service != nil {
		// A VM service thread (VM thread, compiler, profiler agent) wakes
		// from a sleep; the OS's fair scheduler runs a woken sleeper almost
		// at once rather than after a whole time slice of every runnable
		// thread (Linux CFS's wake-up preemption). Without this an agent
		// behind CPU-bound threads waits up to a slice per wake-up.
		// It takes a CPU one MaxStep later: no thread can have run past
		// that yet, so the preemption happens at the same instant however
		// the run was split into rounds — passive observers, whose hooks
		// and timers split it differently, cannot move it.
		vm.q.push(event{at: max(at, vm.now) + vm.preemptDelay(), kind: evPreempt, a: int32(t.ID)})
	}
}

// preemptDelay is how long after waking a service thread takes a CPU:
// the furthest any thread can have run ahead of the present.
func (vm *VM) preemptDelay() Time {
	if vm.cfg.MaxStep > 0 {
		return vm.cfg.MaxStep
	}
	return vm.cfg.TimeSlice // without MaxStep threads run up to a slice ahead
}

// preempt gives a busy CPU to service thread s, still waiting in the run
// queue: the application thread that has been on its CPU longest goes to
// the front of the run queue, at its own time. If every CPU runs a service
// thread it tries again later rather than leave s behind application
// threads that keep being put back ahead of it.
func (vm *VM) preempt(s *Thread) {
	if s.state != Runnable {
		return // it got a CPU meanwhile
	}
	victim := -1
	for i := range vm.cpus {
		id := vm.cpus[i].thread
		if id < 0 {
			return // cannot happen: a free CPU takes the run queue's head
		}
		t := vm.threads[id]
		if t.service == nil && t.stop == 0 && (victim < 0 || vm.cpus[i].since < vm.cpus[victim].since) {
			victim = i
		}
	}
	if victim < 0 {
		// Only service threads run (or the others are mid-stop): try
		// again when one may have finished.
		vm.q.push(event{at: vm.now + vm.preemptDelay(), kind: evPreempt, a: int32(s.ID)})
		return
	}
	vm.runq.moveToFront(s.ID)
	t := vm.threads[vm.cpus[victim].thread]
	vm.offCPU(t, Runnable) // dispatches s, the run queue's head
	vm.runq.pushFront(t.ID)
}

// dispatch starts t on CPU c at time at, after the context switch.
func (vm *VM) dispatch(c int32, t *Thread, at Time) {
	cp := &vm.cpus[c]
	cp.thread = t.ID
	cp.gen++
	t.cpu = c
	// A thread made runnable at a later instant than at — by a thread
	// whose indivisible cost (a throw or a monitor exit releasing a
	// monitor) ran past the present — starts after that instant: it runs
	// no code before its state says it could.
	if t.state == Runnable && t.stateSince > at {
		at = t.stateSince
	}
	start := at + vm.cfg.ContextSwitch
	vm.overhead += vm.cfg.ContextSwitch
	if t.clock < start {
		t.clock = start
	}
	cp.since = t.clock
	t.setState(Running, t.clock)
	vm.q.push(event{at: t.clock + vm.cfg.TimeSlice, kind: evSlice, a: c, b: cp.gen})
}

// offCPU takes a running t off its CPU into state s at its own time and
// gives the CPU to the next runnable thread.
func (vm *VM) offCPU(t *Thread, s ThreadState) {
	c := t.cpu
	t.setState(s, t.clock)
	t.cpu = -1
	vm.cpus[c].thread = -1
	vm.cpus[c].gen++
	vm.dispatchNext(c, t.clock)
	if s != Runnable && t.hooks&stopPoll != 0 {
		// Blocking, parking and exiting are safe transitions: a thread
		// someone waits for at its next poll is as good as there.
		t.pollKind = PollTransition
		vm.fireHooks(t, stopPoll)
	}
}

func (vm *VM) dispatchNext(c int32, at Time) {
	if vm.runq.len() == 0 {
		return
	}
	vm.dispatch(c, vm.threads[vm.runq.pop()], at)
}
