package safepoint

import "github.com/profsim/profsim/sim"

// global is a stop-the-world safepoint: every application thread in Java
// code runs to its next poll and parks, threads in native code or waiting
// are safe but may not come back, and once the VM thread sees every thread
// safe it runs the operation; everyone resumes when it is done. The
// Coordinator's Config gives the protocol's costs (HotSpot 17's
// SafepointSynchronize::begin, synchronize_threads and end,
// runtime/safepoint.cpp).
type global struct {
	op      Operation
	waiting map[sim.ThreadID]bool // armed threads not yet safe
	// recheck: some armed thread was running when the protocol began, so
	// the VM thread sees the world safe at a re-check (Config).
	recheck bool
	// detecting: every thread is safe and the re-check that sees it is
	// the session's timer.
	detecting bool
	running   bool // the operation is on the VM thread
}

// Request asks for a global safepoint now, running op once every thread is
// safe; it starts when the previous safepoint (if any) has finished. The
// record of that safepoint carries the returned handle.
func (c *Coordinator) Request(reason string, op Operation) RequestID {
	if op == nil {
		panic("safepoint: nil operation")
	}
	return c.enqueue(reason, &global{op: op, waiting: map[sim.ThreadID]bool{}})
}

func (g *global) begin(s *session) {
	vm := s.c.vm
	s.holdWaking()
	for _, t := range vm.Threads() {
		if t.Service {
			continue
		}
		switch t.State {
		case sim.Running, sim.Runnable:
			// In Java code: it must run to its next poll. A thread in
			// native code is safe already but must not come back.
			s.arm(t.ID)
			if !(t.State == sim.Running && vm.InNative(t.ID)) {
				g.waiting[t.ID] = true
			}
		}
	}
	g.recheck = len(g.waiting) > 0
	g.maybeSafe(s)
}

// poll parks a running thread at its poll until the safepoint ends and
// counts any armed thread as safe.
func (g *global) poll(s *session, id sim.ThreadID) sim.Action {
	delete(g.waiting, id)
	action := sim.Continue
	// A running thread at its poll parks until the safepoint ends, also
	// while the operation runs: a thread coming back from native code
	// then blocks at the transition (ThreadStateTransition::
	// transition_from_native checks the poll, runtime/
	// interfaceSupport.inline.hpp) and does not run Java code during it.
	if s.c.vm.State(id) == sim.Running {
		s.stop(id)
		action = sim.Park
	}
	g.maybeSafe(s)
	return action
}

// maybeSafe notes the last arrival and, once the VM thread sees it (at
// once, or at its next re-check: Config.detectAt), runs the operation.
func (g *global) maybeSafe(s *session) {
	if len(g.waiting) > 0 || g.running || g.detecting {
		return
	}
	now := s.c.vm.Now()
	s.rec.Arrived = now
	if g.recheck {
		if at := s.c.cfg.detectAt(s.rec.Started, now); at > now {
			// Threads parked so far stay parked; those that come back
			// from native code or wake meanwhile park at their hooks.
			g.detecting = true
			s.wakeAt(at)
			return
		}
	}
	g.run(s)
}

// run runs the operation at Safe and puts its cost, with the protocol's
// overhead, on the VM thread.
func (g *global) run(s *session) {
	g.running = true
	s.rec.Safe = s.c.vm.Now()
	cost := g.op.Run(s.c.vm, s.rec.Safe)
	s.submit(cost + s.c.cfg.OperationOverhead)
}

// timer is the VM thread's re-check that finds every thread safe.
func (g *global) timer(s *session) {
	if g.detecting {
		g.detecting = false
		g.run(s)
	}
}

// jobDone: the operation is over; the world resumes.
func (g *global) jobDone(s *session) { s.end() }

func (g *global) finish(s *session) { g.op.Done(s.c.vm, s.c.vm.Now()) }
