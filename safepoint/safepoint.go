// Package safepoint implements the VM's stop-the-world protocol on top of
// sim's hooks: a global safepoint brings every application thread to a
// poll (or a safe state), runs an operation on the VM thread, and resumes
// everyone; allocation-driven GC uses it. It records time-to-safepoint and
// every thread's pause. Config adds what HotSpot's protocol costs beyond
// the operation (detection latency, begin/end overhead). It does not know
// which profiler uses it.
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
	Run(vm *sim.VM, at sim.Time) sim.Time
	// Done is called when the VM thread has spent that time, before the
	// threads resume.
	Done(vm *sim.VM, at sim.Time)
}

// Pause is one thread's stop in one safepoint.
type Pause struct {
	Thread sim.ThreadID
	// Stopped is when it reached its poll and parked; Resumed when it was
	// let go. Threads already blocked are safe without pausing.
	Stopped, Resumed sim.Time
}

// Record is one safepoint.
type Record struct {
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

// Coordinator runs global safepoints one at a time, in request order.
type Coordinator struct {
	cfg      Config
	vm       *sim.VM
	vmThread sim.ThreadID
	hook     sim.HandlerID
	timer    sim.TimerID
	queue    []request
	cur      *active
	records  []Record
}

type request struct {
	reason  string
	op      Operation
	at      sim.Time
	partial *partialState // non-nil: a partial safepoint
}

type active struct {
	request
	rec     Record
	waiting map[sim.ThreadID]bool // armed threads not yet safe
	stopped map[sim.ThreadID]int  // parked by us → index in rec.Pauses
	armed   []sim.ThreadID
	// recheck: some armed thread was running when the protocol began, so
	// the VM thread sees the world safe at a re-check (Config).
	recheck bool
	// detecting: every thread is safe and the re-check that sees it is
	// scheduled (timerRecheck).
	detecting bool
	running   bool // the operation is on the VM thread
}

// The coordinator's timer arguments.
const (
	timerPartial int64 = iota // every sampled thread of a partial safepoint has walked its stack
	timerRecheck              // the VM thread's re-check that finds every thread safe
)

// New creates the VM thread and the coordinator, with cfg's costs for
// global safepoints. Call before the run.
func New(vm *sim.VM, cfg Config) (*Coordinator, error) {
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

// Request asks for a global safepoint now; it starts when the previous one
// (if any) has finished.
func (c *Coordinator) Request(reason string, op Operation) {
	if op == nil {
		panic("safepoint: nil operation")
	}
	c.queue = append(c.queue, request{reason: reason, op: op, at: c.vm.Now()})
	if c.cur == nil {
		c.begin()
	}
}

func (c *Coordinator) begin() {
	r := c.queue[0]
	c.queue = c.queue[1:]
	vm := c.vm
	a := &active{request: r, waiting: map[sim.ThreadID]bool{}, stopped: map[sim.ThreadID]int{}}
	a.rec = Record{Reason: r.reason, Requested: r.at, Started: vm.Now()}
	c.cur = a
	if r.partial != nil {
		c.beginPartial(a)
		return
	}
	vm.SetHold(true)
	for _, t := range vm.Threads() {
		if t.Service {
			continue
		}
		switch t.State {
		case sim.Running, sim.Runnable:
			// In Java code: it must run to its next poll. A thread in
			// native code is safe already but must not come back.
			vm.Arm(c.hook, t.ID, sim.HookPoll)
			a.armed = append(a.armed, t.ID)
			if !(t.State == sim.Running && vm.InNative(t.ID)) {
				a.waiting[t.ID] = true
			}
		}
	}
	a.recheck = len(a.waiting) > 0
	c.maybeSafe()
}

// OnHook is the poll hook: a thread reached its poll (park it) or made a
// safe transition (count it).
func (c *Coordinator) OnHook(vm *sim.VM, id sim.ThreadID, h sim.Hook) sim.Action {
	a := c.cur
	if a == nil || h != sim.HookPoll {
		return sim.Continue
	}
	if a.partial != nil {
		return c.partialHook(vm, id)
	}
	delete(a.waiting, id)
	action := sim.Continue
	if vm.State(id) == sim.Running && !a.running {
		a.stopped[id] = len(a.rec.Pauses)
		a.rec.Pauses = append(a.rec.Pauses, Pause{Thread: id, Stopped: vm.Now()})
		action = sim.Park
	}
	c.maybeSafe()
	return action
}

// maybeSafe notes the last arrival and, once the VM thread sees it (at
// once, or at its next re-check: Config.detectAt), runs the operation.
func (c *Coordinator) maybeSafe() {
	a := c.cur
	if len(a.waiting) > 0 || a.running || a.detecting {
		return
	}
	now := c.vm.Now()
	a.rec.Arrived = now
	if a.recheck {
		if at := c.cfg.detectAt(a.rec.Started, now); at > now {
			// Threads parked so far stay parked; those that come back
			// from native code or wake meanwhile park at their hooks.
			a.detecting = true
			c.vm.ScheduleTimer(c.timer, at, timerRecheck)
			return
		}
	}
	c.runOperation()
}

// runOperation runs the operation at Safe and puts its cost, with the
// protocol's overhead, on the VM thread.
func (c *Coordinator) runOperation() {
	a := c.cur
	a.running = true
	a.rec.Safe = c.vm.Now()
	cost := a.op.Run(c.vm, a.rec.Safe)
	c.vm.SubmitJob(c.vmThread, cost+c.cfg.OperationOverhead, 0)
}

// OnTimer: the end of a partial safepoint's self-walks (timerPartial), or
// the VM thread's re-check that finds every thread safe (timerRecheck).
func (c *Coordinator) OnTimer(vm *sim.VM, at sim.Time, arg int64) {
	a := c.cur
	if a == nil {
		return
	}
	switch {
	case arg == timerPartial && a.partial != nil:
		c.partialSelfDone()
	case arg == timerRecheck && a.partial == nil && a.detecting:
		a.detecting = false
		c.runOperation()
	}
}

// OnJobDone ends the operation and resumes the world.
func (c *Coordinator) OnJobDone(vm *sim.VM, _ sim.ThreadID, _ int64) {
	a := c.cur
	if a.partial != nil {
		a.partial.vmBusy = false
		if a.partial.selfDone {
			c.finishPartial()
		}
		return
	}
	a.op.Done(vm, vm.Now())
	a.rec.End = vm.Now()
	for _, id := range a.armed {
		vm.Disarm(c.hook, id, sim.HookPoll)
	}
	// Resume in the order threads stopped, so that run-queue order is
	// deterministic.
	for i := range a.rec.Pauses {
		p := &a.rec.Pauses[i]
		p.Resumed = vm.Now()
		if vm.State(p.Thread) == sim.Parked {
			vm.Unpark(p.Thread)
		}
	}
	vm.SetHold(false)
	vm.ReleaseHeld()
	c.records = append(c.records, a.rec)
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
func (c *Coordinator) Summarize() Summary {
	var s Summary
	for i := range c.records {
		r := &c.records[i]
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
