// Package timeline records what each application thread runs over a window
// of a run, with the samples, safepoints and compilations in it, and draws
// it as thread lanes (SVG or PNG) readable on a projector.
package timeline

import (
	"fmt"

	"github.com/profsim/profsim/sim"
)

// Segment is a stretch of a lane: the thread in State, running Method (its
// leaf) when Running.
type Segment struct {
	From, To sim.Time
	State    sim.ThreadState
	Method   string
}

// Lane is one application thread's segments, in time order, and the polls
// it executed in the window.
type Lane struct {
	Thread   string
	Segments []Segment
	Polls    []Poll
}

// Poll is a yield point the thread executed: a back-edge, a return, a
// prologue or epilogue, the end of a native call.
type Poll struct {
	At   sim.Time
	Kind sim.PollKind
}

// Sample is one thread sample: requested at Requested while the thread was
// in TrueMethod, taken at Taken by Mechanism, charged to Charged.
type Sample struct {
	Sampler, Thread     string
	Requested, Taken    sim.Time
	TrueMethod, Charged string
	Mechanism           string
}

// Safepoint is a global safepoint: requested, every thread safe (the end of
// the time to safepoint), resumed; Arrivals are when each thread that was
// running reached its poll and stopped, by thread name.
type Safepoint struct {
	Reason               string
	Requested, Safe, End sim.Time
	Arrivals             []Arrival
}

// Arrival is a thread stopping at a safepoint's poll.
type Arrival struct {
	Thread  string
	Stopped sim.Time
}

// Compile is a compilation: queued when a counter fired, installed at Done.
type Compile struct {
	Method       string
	Queued, Done sim.Time
}

// Timeline is what happened in [From, To).
type Timeline struct {
	Workload   string
	From, To   sim.Time
	Lanes      []Lane
	Samplers   []string
	Samples    []Sample
	Safepoints []Safepoint
	Compiles   []Compile
}

// Recorder builds the lanes: every Step in [from, to) it reads each
// application thread's state and leaf method. It observes through the
// View only; its timer splits the run's rounds as any passive sampler's
// does.
type Recorder struct {
	from, to, step sim.Time
	timer          sim.TimerID
	hook           sim.HandlerID
	polls          bool
	ctl            sim.Controller
	lanes          []Lane
	byThread       map[sim.ThreadID]int
	buf            []sim.StackFrame
}

// MaxSteps bounds the readings per thread: window / step.
const MaxSteps = 100_000

// NewRecorder checks the window and step.
func NewRecorder(from, to, step sim.Time) (*Recorder, error) {
	switch {
	case from < 0:
		return nil, fmt.Errorf("timeline: from: %v is negative", from)
	case to <= from:
		return nil, fmt.Errorf("timeline: window: must be > 0 (from %v to %v)", from, to)
	case step <= 0:
		return nil, fmt.Errorf("timeline: step: %v must be > 0", step)
	case (to-from)/step > MaxSteps:
		return nil, fmt.Errorf("timeline: step: %v over a window of %v is %d readings, more than %d", step, to-from, (to-from)/step, MaxSteps)
	}
	return &Recorder{from: from, to: to, step: step, byThread: map[sim.ThreadID]int{}}, nil
}

// Attach schedules the readings on the run. With polls, it also arms a
// poll hook on every running thread in the window and records each poll
// executed (a stop per poll: slower, and one more passive observer).
func (r *Recorder) Attach(c sim.Controller, polls bool) error {
	r.ctl, r.polls = c, polls
	r.timer = c.AddTimer(r)
	c.ScheduleTimer(r.timer, r.from, 0)
	if polls {
		h, err := c.AddHookHandler(r)
		if err != nil {
			return fmt.Errorf("timeline: %w", err)
		}
		r.hook = h
	}
	return nil
}

// OnHook records a poll and re-arms for the next one while in the window.
func (r *Recorder) OnHook(vm sim.Agent, id sim.ThreadID, _ sim.Hook) sim.Action {
	now := vm.Now()
	if now >= r.to {
		return sim.Continue
	}
	if k := vm.PollKindOf(id); k != sim.PollTransition {
		l := r.lane(vm, id)
		l.Polls = append(l.Polls, Poll{At: now, Kind: k})
	}
	if vm.State(id) == sim.Running {
		r.ctl.Arm(r.hook, id, sim.HookPoll)
	}
	return sim.Continue
}

// lane is thread id's lane, created when first seen.
func (r *Recorder) lane(vm sim.Agent, id sim.ThreadID) *Lane {
	li, ok := r.byThread[id]
	if !ok {
		li = len(r.lanes)
		r.byThread[id] = li
		r.lanes = append(r.lanes, Lane{Thread: vm.ThreadName(id)})
	}
	return &r.lanes[li]
}

// OnTimer reads every application thread.
func (r *Recorder) OnTimer(vm sim.Agent, at sim.Time, _ int64) {
	for id := sim.ThreadID(0); int(id) < vm.NumThreads(); id++ {
		if vm.IsService(id) {
			continue
		}
		st := vm.State(id)
		if st == sim.NotStarted || st == sim.Terminated {
			continue
		}
		method := ""
		if r.buf = vm.Stack(id, r.buf[:0]); len(r.buf) > 0 {
			method = vm.Image().Names[r.buf[len(r.buf)-1].Method]
		}
		l := r.lane(vm, id)
		if r.polls && st == sim.Running {
			// Arming is idempotent: a thread armed since its last poll
			// stays armed once.
			r.ctl.Arm(r.hook, id, sim.HookPoll)
		}
		end := min(at+r.step, r.to)
		if n := len(l.Segments); n > 0 && l.Segments[n-1].To == at && l.Segments[n-1].State == st && l.Segments[n-1].Method == method {
			l.Segments[n-1].To = end
		} else {
			l.Segments = append(l.Segments, Segment{From: at, To: end, State: st, Method: method})
		}
	}
	if next := at + r.step; next < r.to {
		vm.ScheduleTimer(r.timer, next, 0)
	}
}

// Lanes are the recorded lanes, in the order threads were first seen.
func (r *Recorder) Lanes() []Lane { return r.lanes }
