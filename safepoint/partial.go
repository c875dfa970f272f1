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
	SelfSample(vm sim.Agent, t sim.ThreadID) sim.Time
	// SampleWaiting runs on the VM thread for a chosen waiting thread and
	// returns the VM thread's cost.
	SampleWaiting(vm sim.Agent, t sim.ThreadID) sim.Time
	// Done is called when every sample is in, before the sampled threads
	// resume.
	Done(vm sim.Agent, at sim.Time)
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

// partial is Hofer et al.'s partial safepoint with self-sampling: the first
// runnable threads to reach a poll take a ticket, walk their own stacks and
// park until every sample is in, while the VM thread walks the waiting
// threads chosen.
type partial struct {
	cfg        PartialConfig
	op         PartialOp
	rng        *rand.Rand
	tickets    int
	candidates map[sim.ThreadID]bool // armed runnable threads not yet arrived
	sampled    []sim.ThreadID        // threads that took a ticket, in order
	waiting    []sim.ThreadID        // waiting threads chosen for the VM thread
	released   bool                  // the last ticket is taken: the others go on
	vmBusy     bool                  // the VM thread is walking the waiting threads
	lastDone   sim.Time              // when the slowest sampled thread finishes its walk
	selfDone   bool                  // every sampled thread has finished
}

// RequestPartial asks for a partial safepoint: the first K' runnable
// threads to reach a poll take a ticket, sample themselves and park until
// all samples are in; the safepoint ends for everybody else as soon as the
// last ticket is taken, so threads that arrive later are unaffected. A
// runnable thread that blocks before reaching a poll can no longer be
// sampled, and the number of tickets shrinks rather than waiting forever.
// It keeps its own protocol (Hofer et al.'s): the Coordinator's Config —
// re-check latency, begin/end overhead — applies to global safepoints
// only. The record of that safepoint carries the returned handle.
func (c *Coordinator) RequestPartial(reason string, cfg PartialConfig, rng *rand.Rand, op PartialOp) RequestID {
	return c.enqueue(reason, &partial{cfg: cfg, op: op, rng: rng})
}

// begin chooses K' runnable threads (by arrival) and K − K' waiting ones
// (at random), arms every runnable thread's poll and gives the waiting
// ones to the VM thread.
func (p *partial) begin(s *session) {
	vm := s.c.vm
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
	kR, kW := p.cfg.K, 0
	if p.cfg.IncludeWaiting && len(runnable)+len(waiting) > 0 {
		// Hofer's example: 4 samples, 15 runnable and 6 waiting threads →
		// 3 runnable and 1 waiting.
		kW = int(float64(p.cfg.K)*float64(len(waiting))/float64(len(runnable)+len(waiting)) + 0.5)
		kW = min(kW, len(waiting))
		kR = p.cfg.K - kW
	}
	kR = min(kR, len(runnable))
	p.tickets = kR
	p.candidates = map[sim.ThreadID]bool{}
	for _, id := range runnable {
		s.arm(id)
		p.candidates[id] = true
	}
	if kW > 0 {
		perm := p.rng.Perm(len(waiting))
		for _, i := range perm[:kW] {
			p.waiting = append(p.waiting, waiting[i])
		}
		var cost sim.Time
		for _, id := range p.waiting {
			cost += p.op.SampleWaiting(vm, id)
		}
		if !p.cfg.Costless {
			p.vmBusy = true
			s.submit(cost)
		}
	}
	p.progress(s)
}

// poll gives a ticket to a runnable thread that reached its poll while
// tickets are left: it walks its own stack on its CPU and parks.
func (p *partial) poll(s *session, id sim.ThreadID) sim.Action {
	vm := s.c.vm
	if !p.candidates[id] {
		return sim.Continue
	}
	delete(p.candidates, id)
	action := sim.Continue
	if vm.State(id) == sim.Running && p.tickets > 0 {
		p.tickets--
		p.sampled = append(p.sampled, id)
		cost := p.op.SelfSample(vm, id)
		if !p.cfg.Costless {
			s.stop(id)
			vm.Stall(id, cost)
			p.lastDone = max(p.lastDone, vm.Now()+cost)
			action = sim.Park
		}
	}
	if len(p.candidates) < p.tickets {
		p.tickets = len(p.candidates) // the rest blocked: don't wait for them
	}
	p.progress(s)
	return action
}

// progress ends the safepoint for the others once the last ticket is
// taken; the sampled threads stay parked until they have walked their
// stacks.
func (p *partial) progress(s *session) {
	if p.tickets > 0 || p.released {
		return
	}
	p.released = true
	s.rec.Arrived = s.c.vm.Now()
	s.rec.Safe = s.rec.Arrived
	s.disarm()
	p.candidates = map[sim.ThreadID]bool{}
	// The VM thread waits until every sampled thread has walked its
	// stack; a timer stands for that wake-up (and lets the last thread
	// park first).
	s.wakeAt(max(p.lastDone, s.c.vm.Now()))
}

// timer: every sampled thread has finished its self-walk; the safepoint
// ends unless the VM thread is still walking waiting threads.
func (p *partial) timer(s *session) {
	p.selfDone = true
	if !p.vmBusy {
		s.end()
	}
}

// jobDone: the VM thread has walked the waiting threads; the safepoint
// ends if the self-walks are done too.
func (p *partial) jobDone(s *session) {
	p.vmBusy = false
	if p.selfDone {
		s.end()
	}
}

func (p *partial) finish(s *session) { p.op.Done(s.c.vm, s.c.vm.Now()) }

// Sampled lists the threads that took a ticket in the current partial
// safepoint, in arrival order (nil outside one).
func (c *Coordinator) Sampled() []sim.ThreadID {
	if c.cur == nil {
		return nil
	}
	p, ok := c.cur.kind.(*partial)
	if !ok {
		return nil
	}
	return append([]sim.ThreadID(nil), p.sampled...)
}
