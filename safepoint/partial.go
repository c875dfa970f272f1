package safepoint

import (
	"math/rand/v2"

	"github.com/profsim/profsim/sim"
)

// PartialOp is a sampling operation at a partial safepoint with
// self-sampling (Hofer et al. §3–4).
type PartialOp interface {
	// SelfSample runs on a thread that took a ticket at its poll: it walks
	// its own stack and returns the CPU time that takes on its own CPU.
	SelfSample(vm *sim.VM, t sim.ThreadID) sim.Time
	// SampleWaiting runs on the VM thread for a chosen waiting thread and
	// returns the VM thread's cost.
	SampleWaiting(vm *sim.VM, t sim.ThreadID) sim.Time
	// Done is called when every sample is in, before the sampled threads
	// resume.
	Done(vm *sim.VM, at sim.Time)
}

// PartialConfig chooses whom a partial safepoint samples.
type PartialConfig struct {
	// K is how many threads to sample (Hofer et al. use the number of
	// CPUs, so that ideally only running threads are affected).
	K int
	// IncludeWaiting also samples waiting and native threads, dividing K
	// between runnable and waiting threads in proportion to their numbers.
	IncludeWaiting bool
	// Costless samples without stopping or charging anyone (passive).
	Costless bool
}

type partialState struct {
	cfg        PartialConfig
	op         PartialOp
	rng        *rand.Rand
	tickets    int
	candidates map[sim.ThreadID]bool // armed runnable threads not yet arrived
	sampled    []sim.ThreadID        // threads that took a ticket, in order
	waiting    []sim.ThreadID        // waiting threads chosen for the VM thread
	vmBusy     bool
	lastDone   sim.Time // when the slowest sampled thread finishes its walk
	selfDone   bool     // every sampled thread has finished
}

// RequestPartial asks for a partial safepoint: the first K' runnable
// threads to reach a poll take a ticket, sample themselves and park until
// all samples are in; the safepoint ends for everybody else as soon as the
// last ticket is taken, so threads that arrive later are unaffected. A
// runnable thread that blocks before reaching a poll can no longer be
// sampled, and the number of tickets shrinks rather than waiting forever.
// It keeps its own protocol (Hofer et al.'s): the Coordinator's Config —
// re-check latency, begin/end overhead — applies to global safepoints
// only.
func (c *Coordinator) RequestPartial(reason string, cfg PartialConfig, rng *rand.Rand, op PartialOp) {
	c.queue = append(c.queue, request{reason: reason, at: c.vm.Now(), partial: &partialState{cfg: cfg, op: op, rng: rng}})
	if c.cur == nil {
		c.begin()
	}
}

func (c *Coordinator) beginPartial(a *active) {
	vm, ps := c.vm, a.partial
	var runnable, waiting []sim.ThreadID
	for _, t := range vm.Threads() {
		if t.Service {
			continue
		}
		switch {
		case (t.State == sim.Running && !vm.InNative(t.ID)) || t.State == sim.Runnable:
			runnable = append(runnable, t.ID)
		case t.State == sim.Running, t.State == sim.Blocked, t.State == sim.LockWait, t.State == sim.JoinWait:
			waiting = append(waiting, t.ID)
		}
	}
	kR, kW := ps.cfg.K, 0
	if ps.cfg.IncludeWaiting && len(runnable)+len(waiting) > 0 {
		// Hofer's example: 4 samples, 15 runnable and 6 waiting threads →
		// 3 runnable and 1 waiting.
		kW = int(float64(ps.cfg.K)*float64(len(waiting))/float64(len(runnable)+len(waiting)) + 0.5)
		kW = min(kW, len(waiting))
		kR = ps.cfg.K - kW
	}
	kR = min(kR, len(runnable))
	ps.tickets = kR
	ps.candidates = map[sim.ThreadID]bool{}
	for _, id := range runnable {
		vm.Arm(c.hook, id, sim.HookPoll)
		a.armed = append(a.armed, id)
		ps.candidates[id] = true
	}
	if kW > 0 {
		perm := ps.rng.Perm(len(waiting))
		for _, i := range perm[:kW] {
			ps.waiting = append(ps.waiting, waiting[i])
		}
		var cost sim.Time
		for _, id := range ps.waiting {
			cost += ps.op.SampleWaiting(vm, id)
		}
		if !ps.cfg.Costless {
			ps.vmBusy = true
			vm.SubmitJob(c.vmThread, cost, 0)
		}
	}
	c.partialProgress()
}

// partialHook handles a poll (or safe transition) during a partial
// safepoint.
func (c *Coordinator) partialHook(vm *sim.VM, id sim.ThreadID) sim.Action {
	a := c.cur
	ps := a.partial
	if !ps.candidates[id] {
		return sim.Continue
	}
	delete(ps.candidates, id)
	action := sim.Continue
	if vm.State(id) == sim.Running && ps.tickets > 0 {
		ps.tickets--
		ps.sampled = append(ps.sampled, id)
		cost := ps.op.SelfSample(vm, id)
		if !ps.cfg.Costless {
			a.rec.Pauses = append(a.rec.Pauses, Pause{Thread: id, Stopped: vm.Now()})
			vm.Stall(id, cost)
			ps.lastDone = max(ps.lastDone, vm.Now()+cost)
			action = sim.Park
		}
	}
	if len(ps.candidates) < ps.tickets {
		ps.tickets = len(ps.candidates) // the rest blocked: don't wait for them
	}
	c.partialProgress()
	return action
}

// partialProgress ends the safepoint for the others once the last ticket
// is taken, and finishes when the VM thread is done too.
func (c *Coordinator) partialProgress() {
	a := c.cur
	ps := a.partial
	if ps.tickets > 0 {
		return
	}
	if !a.running {
		a.running = true
		a.rec.Arrived = c.vm.Now()
		a.rec.Safe = a.rec.Arrived
		for _, id := range a.armed {
			c.vm.Disarm(c.hook, id, sim.HookPoll)
		}
		a.armed = nil
		ps.candidates = map[sim.ThreadID]bool{}
		// The VM thread waits until every sampled thread has walked its
		// stack; a timer stands for that wake-up (and lets the last
		// thread park first).
		c.vm.ScheduleTimer(c.timer, max(ps.lastDone, c.vm.Now()), timerPartial)
	}
}

// partialSelfDone: every sampled thread has finished its self-walk.
func (c *Coordinator) partialSelfDone() {
	c.cur.partial.selfDone = true
	if !c.cur.partial.vmBusy {
		c.finishPartial()
	}
}

func (c *Coordinator) finishPartial() {
	vm, a := c.vm, c.cur
	a.partial.op.Done(vm, vm.Now())
	a.rec.End = vm.Now()
	for i := range a.rec.Pauses {
		p := &a.rec.Pauses[i]
		p.Resumed = vm.Now()
		if vm.State(p.Thread) == sim.Parked {
			vm.Unpark(p.Thread)
		}
	}
	c.records = append(c.records, a.rec)
	c.cur = nil
	if len(c.queue) > 0 {
		c.begin()
	}
}

// Sampled lists the threads that took a ticket in the current partial
// safepoint, in arrival order.
func (c *Coordinator) Sampled() []sim.ThreadID {
	if c.cur == nil || c.cur.partial == nil {
		return nil
	}
	return append([]sim.ThreadID(nil), c.cur.partial.sampled...)
}
