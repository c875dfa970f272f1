// Package safepoint implements the VM's safepoints on top of sim's hooks.
// A Coordinator queues requests and runs one safepoint at a time, in
// request order; each kind of safepoint is a protocol in its own file that
// decides whom it stops and when it is over. A global safepoint
// (global.go) brings every application thread to a poll (or a safe
// state), runs an operation on the VM thread, and resumes everyone;
// allocation-driven GC uses it. A partial safepoint (partial.go, Hofer et
// al.) stops only the first threads to reach a poll and has them sample
// themselves. Every safepoint leaves a Record of its time to safepoint and
// every thread's pause. Config adds what HotSpot's global protocol costs
// beyond the operation (detection latency, begin/end overhead). The
// package does not know which profiler uses it.
package safepoint

import (
	"fmt"
	"sort"

	"github.com/profsim/profsim/sim"
)

// Operation is what runs while the world is stopped.
type Operation interface {
	// Run is called at the moment every application thread is safe (their
	// positions are frozen; read them with VM.Stack) and returns the VM
	// thread's CPU cost for the operation.
	Run(vm sim.Agent, at sim.Time) sim.Time
	// Done is called when the VM thread has spent that time, before the
	// threads resume.
	Done(vm sim.Agent, at sim.Time)
}

// Pause is one thread's stop in one safepoint.
type Pause struct {
	Thread sim.ThreadID
	// Stopped is when it reached its poll and parked; Resumed when it was
	// let go. Threads already blocked are safe without pausing.
	Stopped, Resumed sim.Time
}

// RequestID is the handle of one request (Request, RequestPartial): the
// Record of that safepoint carries it, so a requester finds its records
// by handle. A Coordinator numbers its requests 1, 2, … in request order;
// 0 is no request.
type RequestID uint64

// Record is one safepoint.
type Record struct {
	// ID is the handle its request returned.
	ID RequestID
	// Reason is the requester's label, for display.
	Reason string
	// Requested is when it was asked for, Started when the protocol began
	// (later if another safepoint was in progress); Arrived when the last
	// armed thread became safe (Started if none was running); Safe when
	// the VM thread saw it (Config.SyncRecheck: at its next re-check).
	// Started → Safe is the time to safepoint (TTSP); Safe → End is the
	// operation on the VM thread with Config.OperationOverhead.
	Requested, Started, Arrived, Safe, End sim.Time
	Pauses                                 []Pause
}

// TTSP is the time from the start of the protocol until the VM thread saw
// every thread safe (HotSpot's "Reaching safepoint").
func (r *Record) TTSP() sim.Time { return r.Safe - r.Started }

// Latency is the time from the request until the VM thread saw every
// thread safe (the moment a sampling operation takes its samples).
func (r *Record) Latency() sim.Time { return r.Safe - r.Requested }

// protocol is one kind of safepoint. The Coordinator runs one safepoint at
// a time and hands every event of the running one to its kind, with the
// session that holds its record. A kind arms, stops and waits through the
// session's helpers and ends the safepoint with session.end, which undoes
// what the helpers did. A kind value serves one request.
type protocol interface {
	// begin starts the safepoint: the kind looks at the threads and arms
	// the polls of those it waits for (session.arm).
	begin(s *session)
	// poll is an armed thread reaching its poll or making a safe
	// transition (leaving native code); the action parks it or lets it
	// continue.
	poll(s *session, id sim.ThreadID) sim.Action
	// timer is the session's timer (session.wakeAt) firing.
	timer(s *session)
	// jobDone is the VM thread finishing the job the kind submitted
	// (session.submit).
	jobDone(s *session)
	// finish is the kind's last step, called by session.end before the
	// stopped threads resume: the operation's Done.
	finish(s *session)
}

// Coordinator runs safepoints one at a time, in request order.
type Coordinator struct {
	cfg      Config
	vm       sim.Agent
	vmThread sim.ThreadID
	hook     sim.HandlerID
	timer    sim.TimerID
	lastID   RequestID
	queue    []request
	cur      *session
	records  []Record
}

type request struct {
	id     RequestID
	reason string
	kind   protocol
	at     sim.Time
}

// session is the safepoint in progress: its kind, its record and what the
// kind did through it (armed polls, parked threads, the hold on waking
// threads), which end undoes.
type session struct {
	c     *Coordinator
	kind  protocol
	rec   Record
	armed []sim.ThreadID
	hold  bool
}

// New creates the VM thread and the coordinator, with cfg's costs for
// global safepoints. Call before the run.
func New(vm sim.Agent, cfg Config) (*Coordinator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &Coordinator{vm: vm, cfg: cfg}
	id, err := vm.AddHookHandler(c)
	if err != nil {
		return nil, err
	}
	c.hook = id
	c.timer = vm.AddTimer(c)
	c.vmThread = vm.NewServiceThread("VM Thread", c)
	return c, nil
}

// VMThread is the thread that runs safepoint operations.
func (c *Coordinator) VMThread() sim.ThreadID { return c.vmThread }

// Records lists the finished safepoints.
func (c *Coordinator) Records() []Record { return c.records }

// Stopped lists, in thread order, the threads the current safepoint
// stopped at a poll (valid inside Operation.Run and Done).
func (c *Coordinator) Stopped() []sim.ThreadID {
	if c.cur == nil {
		return nil
	}
	out := make([]sim.ThreadID, 0, len(c.cur.rec.Pauses))
	for _, p := range c.cur.rec.Pauses {
		out = append(out, p.Thread)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Busy reports whether a safepoint is requested or in progress.
func (c *Coordinator) Busy() bool { return c.cur != nil }

// enqueue queues a request for a safepoint of kind k, starting it at once
// if none is in progress, and returns its handle. Each kind's Request
// method calls it.
func (c *Coordinator) enqueue(reason string, k protocol) RequestID {
	c.lastID++
	id := c.lastID
	c.queue = append(c.queue, request{id: id, reason: reason, kind: k, at: c.vm.Now()})
	if c.cur == nil {
		c.begin()
	}
	return id
}

// begin starts the first queued request.
func (c *Coordinator) begin() {
	r := c.queue[0]
	c.queue = c.queue[1:]
	s := &session{c: c, kind: r.kind}
	s.rec = Record{ID: r.id, Reason: r.reason, Requested: r.at, Started: c.vm.Now()}
	c.cur = s
	s.kind.begin(s)
}

// OnHook is the poll hook: the current safepoint's kind handles a thread
// that reached its poll or made a safe transition.
func (c *Coordinator) OnHook(vm sim.Agent, id sim.ThreadID, h sim.Hook) sim.Action {
	s := c.cur
	if s == nil || h != sim.HookPoll {
		return sim.Continue
	}
	return s.kind.poll(s, id)
}

// OnTimer hands the current safepoint's timer to its kind; the argument
// is the request's ID, so a timer outlasting its safepoint does nothing.
func (c *Coordinator) OnTimer(vm sim.Agent, at sim.Time, arg int64) {
	s := c.cur
	if s == nil || RequestID(arg) != s.rec.ID {
		return
	}
	s.kind.timer(s)
}

// OnJobDone hands the end of the VM thread's job to the current
// safepoint's kind.
func (c *Coordinator) OnJobDone(vm sim.Agent, _ sim.ThreadID, _ int64) {
	s := c.cur
	s.kind.jobDone(s)
}

// arm arms thread id's poll for this safepoint.
func (s *session) arm(id sim.ThreadID) {
	s.c.vm.Arm(s.c.hook, id, sim.HookPoll)
	s.armed = append(s.armed, id)
}

// disarm disarms every poll the session armed.
func (s *session) disarm() {
	for _, id := range s.armed {
		s.c.vm.Disarm(s.c.hook, id, sim.HookPoll)
	}
	s.armed = nil
}

// stop records that thread id stops now; the kind parks it (sim.Park)
// and end resumes it.
func (s *session) stop(id sim.ThreadID) {
	s.rec.Pauses = append(s.rec.Pauses, Pause{Thread: id, Stopped: s.c.vm.Now()})
}

// holdWaking holds every thread that would start running (waking,
// returning from native code) until end.
func (s *session) holdWaking() {
	s.c.vm.SetHold(true)
	s.hold = true
}

// wakeAt schedules the session's timer (protocol.timer) at at.
func (s *session) wakeAt(at sim.Time) {
	s.c.vm.ScheduleTimer(s.c.timer, at, int64(s.rec.ID))
}

// submit puts cost on the VM thread (protocol.jobDone when it is spent).
func (s *session) submit(cost sim.Time) {
	s.c.vm.SubmitJob(s.c.vmThread, cost, 0)
}

// end finishes the safepoint: the kind's finish, then every armed poll
// disarmed, the stopped threads resumed in the order they stopped (so
// that run-queue order is deterministic), held threads released; the
// record is kept and the next request starts.
func (s *session) end() {
	c, vm := s.c, s.c.vm
	s.kind.finish(s)
	s.rec.End = vm.Now()
	s.disarm()
	for i := range s.rec.Pauses {
		p := &s.rec.Pauses[i]
		p.Resumed = vm.Now()
		if vm.State(p.Thread) == sim.Parked {
			vm.Unpark(p.Thread)
		}
	}
	if s.hold {
		vm.SetHold(false)
		vm.ReleaseHeld()
	}
	c.records = append(c.records, s.rec)
	c.cur = nil
	if len(c.queue) > 0 {
		c.begin()
	}
}

// Summary aggregates the records: count, mean and max TTSP, total pause.
type Summary struct {
	Count                 int
	MeanTTSP, MaxTTSP     sim.Time
	TotalPause, TotalTTSP sim.Time
}

// Summarize aggregates c's records.
func (c *Coordinator) Summarize() Summary { return c.SummarizeFrom(0) }

// SummarizeFrom is Summarize of the safepoints requested at or after
// from (a profiled window's: harness.Config.ProfileFrom).
func (c *Coordinator) SummarizeFrom(from sim.Time) Summary {
	var s Summary
	for i := range c.records {
		r := &c.records[i]
		if r.Requested < from {
			continue
		}
		s.Count++
		s.TotalTTSP += r.TTSP()
		s.MaxTTSP = max(s.MaxTTSP, r.TTSP())
		for _, p := range r.Pauses {
			s.TotalPause += p.Resumed - p.Stopped
		}
	}
	if s.Count > 0 {
		s.MeanTTSP = s.TotalTTSP / sim.Time(s.Count)
	}
	return s
}

func (s Summary) String() string {
	return fmt.Sprintf("%d safepoints, TTSP mean %v max %v, total pause %v", s.Count, s.MeanTTSP, s.MaxTTSP, s.TotalPause)
}
