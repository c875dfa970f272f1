package sim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"sync/atomic"

	"github.com/profsim/profsim/program"
)

// Config is one run's configuration. Times are simulated nanoseconds.
type Config struct {
	// Seed is the master seed; every random stream derives from it.
	Seed uint64
	// CPUs is the number of simulated processors (≥ 1).
	CPUs int
	// Duration bounds the run: it ends then, or earlier when every
	// non-daemon thread has finished. > 0.
	Duration Time
	// Seed, CPUs and Duration are command-line flags of their own; the
	// fields below are param keys (sim.KEY).

	// TimeSlice is the scheduler quantum: a running thread is preempted
	// after it when others wait in the run queue. > 0; as a setting at
	// least MinTimeSlice.
	TimeSlice Time `key:"time_slice" check:"100us..max" doc:"scheduler quantum: a running thread is preempted after it when others wait" src:"our choice (Linux CFS's few-ms slices)"`
	// ContextSwitch is the CPU time a dispatch costs before the thread runs
	// (charged as VM overhead, not to the thread). ≥ 0.
	ContextSwitch Time `key:"context_switch" check:"0..max" doc:"CPU time a dispatch costs before the thread runs (VM overhead)" src:"our choice (a Linux context switch: a few µs)"`
	// MaxStackDepth is the frame count at which a call overflows the stack
	// and ends the thread (recorded as an incident). ≥ 1.
	MaxStackDepth int `key:"max_stack_depth" check:">=1" unit:"frames" doc:"frame count at which a call overflows the stack and ends the thread" src:"our choice (HotSpot's 1 MB -Xss holds a few thousand frames)"`
	// MaxStep bounds how far threads run ahead between scheduling rounds
	// (0: up to the next event). Results do not depend on it, except that
	// a global effect a thread triggers (a GC) reaches threads at most
	// MaxStep late. ≥ 0; as a setting 0 or at least MinMaxStep.
	MaxStep Time `key:"max_step" check:"0|1us..max" doc:"how far threads run ahead between scheduling rounds (0: to the next event); a GC reaches threads at most this late" src:"our choice"`
	// Cost is the cost model of the base (compiled) code (keys cost.KEY).
	Cost CostModel `key:"cost"`
	// Limits bound the run's threads and memory. They are not settings
	// of the model: a run within them does not depend on them.
	Limits Limits
	// ProfileThreads, when not "", restricts the ground truth to the
	// application threads whose names match it (MatchThreads: shell
	// patterns, comma-separated), as async-profiler's thread filter or
	// JFR's per-thread views restrict a profile: the others run as
	// before, but charge a recorder of their own that no profile reads
	// (the JIT's counts still add both: the run is the one without it),
	// and Result.AppCPU leaves them out. Samplers sample only the
	// profiled threads (View.Profiled). harness.Build refuses a pattern
	// that matches none of the program's threads and Collect one that
	// matched none of the run's (profsim run --threads).
	ProfileThreads string
}

// DefaultConfig is what `profsim run` uses unless told otherwise.
func DefaultConfig() Config {
	return Config{
		Seed:          1,
		CPUs:          4,
		Duration:      2 * Second,
		TimeSlice:     10 * Millisecond,
		ContextSwitch: 5 * Microsecond,
		MaxStackDepth: 4096,
		MaxStep:       100 * Microsecond,
		Cost:          DefaultCostModel(),
		Limits:        DefaultLimits(),
	}
}

// Validate names the first invalid field.
func (c Config) Validate() error {
	switch {
	case c.CPUs < 1 || c.CPUs > MaxCPUs:
		return fmt.Errorf("cpus: %d must be in [1, %d]", c.CPUs, MaxCPUs)
	case c.Duration <= 0:
		return fmt.Errorf("duration: %v must be > 0", c.Duration)
	case c.TimeSlice <= 0:
		return fmt.Errorf("time_slice: %v must be > 0", c.TimeSlice)
	case c.ContextSwitch < 0:
		return fmt.Errorf("context_switch: %v must be ≥ 0", c.ContextSwitch)
	case c.MaxStackDepth < 1:
		return fmt.Errorf("max_stack_depth: %d must be ≥ 1", c.MaxStackDepth)
	case c.ProfileThreads != "" && CheckThreadPattern(c.ProfileThreads) != nil:
		return fmt.Errorf("profile_threads: %v", CheckThreadPattern(c.ProfileThreads))
	case c.MaxStep < 0:
		return fmt.Errorf("max_step: %v must be ≥ 0", c.MaxStep)
	}
	if err := c.Limits.Validate(); err != nil {
		return err
	}
	if err := c.checkTimes(); err != nil {
		return err
	}
	return c.Cost.Validate()
}

// ThreadID identifies a thread within one run, in creation order.
type ThreadID int32

// frameFlags is a frame's set of flags. A new flag is a constant here and
// its name in frameFlagNames. Three of the eight bits are free, and the
// padding after frame.flags leaves room to widen it to 32 bits without
// growing frame (TestFrameSize).
type frameFlags uint8

// Frame flags.
const (
	fInlined     frameFlags = 1 << iota // runs inside its caller's physical frame
	fReturned                           // the call at pc has returned; step past it
	fReturnHook                         // a handler wants to know when this frame returns
	fPollPending                        // the returned call's return poll is still to run
	fLimited                            // its method has a recursion limit: counted in Thread.active
	fDeoptDebt                          // owes deoptimizations (Thread.deoptDebts), paid when its call returns
)

// frameFlagNames names the frame flags, bit i's at index i.
var frameFlagNames = [...]string{"inlined", "returned", "return-hook", "poll-pending", "limited"}

// String lists the flags, "inlined|returned"; "none" for no flag. It is
// for debugging: nothing parses it.
func (f frameFlags) String() string { return bitNames(uint64(f), frameFlagNames[:], "flag") }

// frame is one source-level activation.
type frame struct {
	code *Code
	// cells is the node's first line cell, Truth.cell(lineBase): charges
	// go to cell(Instr.Line), one indexed add (see cell).
	cells    *lineCell
	node     int32 // exact CCT node
	pc       int32
	loopBase int32 // this frame's loop counters start here in Thread.loops
	flags    frameFlags
	// marks is the set of handlers that marked this frame (Whaley's marker
	// bit); a new activation starts unmarked.
	marks uint32
	// lastChild is the CCT node this activation's last call entered (0:
	// none yet; the root is nobody's child). Truth.child tries its next
	// sibling first: siblings are linked in the order they were created,
	// which is the order of the calls that first reached them, and a
	// method's calls tend to come in the same order every time.
	lastChild int32
	// workLeft is what remains of a Work or Native at pc that a horizon
	// split; > 0 also means its block entry was already counted.
	workLeft int64
	// stripLoop is the body start pc of the strip-mined loop running in
	// this frame (0: none; a strip-mined loop is innermost, so a frame runs
	// at most one), and stripFrom its iterations left when its strips
	// started (see stripPoll).
	stripLoop int32
	// bcp is the statement whose bytecode pointer an interpreted frame
	// has saved in its frame: its entry (0), then its last call or poll
	// into the VM (see StackFrame.BCP).
	bcp       int32
	stripFrom int64
}

type heldLock struct {
	lock  int32
	frame int32 // index of the frame that entered it
}

// Thread is one simulated thread. Its state is split by the part of the VM
// that owns it: the scheduler's (schedState), the executor's (execState),
// the stops and hooks between them (stopState), the runtime services'
// (serviceState), monitors and joins (syncState), and how it ended (fate).
type Thread struct {
	ID     ThreadID
	Name   string
	Daemon bool

	execState
	recState
	stopState
	schedState
	serviceState
	syncState
	fate
}

// execState is what the executor (exec.go) runs a thread on: its clock,
// stack, loop counters and where it is in a split call.
type execState struct {
	clock  Time // the thread's own time; ≥ the VM's when running
	frames []frame
	loops  []int64
	active []int32 // active frames per method with a recursion limit (Image.limitSlot)
	// peakFrames is the deepest the stack has been (Footprint.Frames).
	peakFrames int
	rng        *rand.Rand
	// pcg is rng's source: a branch draws rng.Int64()'s value from it
	// directly, without the interface call (a branch is one statement in
	// every few of a generated program).
	pcg *rand.PCG
	// retHandlers is, per frame with fReturnHook, the set of hook
	// handlers armed on its return: retHandlers[i] is frames[i]'s, and
	// holds nothing meaningful where that frame has no fReturnHook.
	retHandlers []uint32
	// callDebt is what remains to pay of a call a horizon split, and
	// pendingRecv the receiver a split virtual call had drawn.
	callDebt    int64
	pendingRecv int32
	// deoptCarry is the fraction of a deoptimization model throws
	// (OpThrown) have owed so far: their counts are exact over a run.
	// deoptDebts are the deoptimizations' time the frames marked
	// fDeoptDebt owe: each pays when the call it is in returns.
	deoptCarry float64
	deoptDebts []deoptDebt
	// zeroClock is the clock after the last back-edge, zeroIters how many
	// back-edges in a row followed a body that cost nothing, zeroFree
	// whether the body before a back-edge stopped at its poll did
	// (zeroTimeBackEdge).
	zeroClock Time
	zeroIters int64
	zeroFree  bool

	stmts      int64
	allocBytes int64
	tlabLeft   int64 // bytes left in the TLAB; a larger allocation refills it
}

// stopState is why the executor stopped a thread and which hooks may stop
// it next: what the executor hands to VM.handleStop.
type stopState struct {
	stop       stopSet // pending stop reasons, handled in global time order
	hooks      stopSet // hook kinds armed on this thread
	armed      [numHooks]uint32
	counter    int64    // bytecode counter (HookBytecodes)
	counterBy  int32    // handler owning the counter
	resumePoll bool     // the poll at pc was taken already
	pollKind   PollKind // the kind of the last poll the thread stopped at
	returned   uint32   // handlers whose return hook fired at this stop
	// counterMethod and counterKind say which JIT counter fired
	// (stopCounter).
	counterMethod int32
	counterKind   CounterKind
}

// recState is where a thread's execution is recorded: the ground truth
// (VM.truth), or, for a thread Config.ProfileThreads leaves out, the
// recorder no profile reads.
type recState struct {
	truth      *Truth
	unprofiled bool
}

// schedState is the scheduler's view of a thread: its state and the time
// in each, its life span and its CPU.
type schedState struct {
	state      ThreadState
	stateSince Time
	stateTime  [numStates]Time
	start, end Time
	cpu        int32
	wakeGen    int64
	// inIO: blocked in a Block of kind io, a native call waiting in the
	// kernel, which JVMTI reports RUNNABLE (InBlockingIO).
	inIO bool
}

// serviceState is a service thread's work (runtime.go) and whether a
// safepoint hold parked the thread.
type serviceState struct {
	// service threads run jobs for Go code (VM thread, compiler, agents).
	service    Service
	jobLeft    int64
	jobs       []serviceJob
	heldByHold bool // parked by SetHold, released by ReleaseHeld
}

// syncState is what a thread holds and waits for: monitors and joins.
type syncState struct {
	held        []heldLock
	parent      ThreadID // joining parent, or -1
	joinPending int
}

// fate is how a thread ended.
type fate struct {
	// ending is why the thread ends (an uncaught exception, a stack
	// overflow), an incident endThread records.
	ending   string
	uncaught bool
	overflow bool
	// endNotified: the ThreadEnd observers have been told.
	endNotified bool
}

// setState moves the thread to s at time at, accounting the time spent in
// the old state.
func (t *schedState) setState(s ThreadState, at Time) {
	if at > t.stateSince {
		t.stateTime[t.state] += at - t.stateSince
		t.stateSince = at
	}
	t.state = s
}

// State returns the thread's current state.
func (t *Thread) State() ThreadState { return t.state }

type cpu struct {
	thread ThreadID // -1 when idle
	gen    int64    // bumps on every dispatch; stale slice events carry an old one
	since  Time     // when its thread was dispatched
}

type monitor struct {
	owner   ThreadID
	count   int
	waiters []ThreadID // FIFO
}

// VM is one simulated Java-like virtual machine executing one program. It
// is single-threaded and deterministic: the same image, config and hooks
// give the same run.
//
// It owns three parts, each its own type: the scheduler (the clock, the
// event queue, CPUs and the run queue; dispatch and preemption in vm.go),
// the executor (exec.go: advance runs one thread's code over its
// execState, at the costs in execCosts), and the runtime services
// (runtime.go, hooks.go: JIT counters and triggers, TLABs, safepoint
// holds, handlers, timers and observers). The VM itself keeps the
// program, the installed code, the threads, monitors, the ground truth
// and the run's limits. Outside sim, each consumer sees only its role
// (roles.go).
type VM struct {
	cfg  Config
	img  *Image
	code []*Code // installed code per method
	// interpreted is each method's interpreted version, the last one
	// installed (nil until the JIT installs one): where a deoptimized
	// frame goes on (deoptCatch).
	interpreted []*Code
	truth       *Truth
	// unprofiled records the threads Config.ProfileThreads leaves out
	// (nil until one starts).
	unprofiled *Truth

	scheduler
	execCosts
	services

	threads []*Thread
	locks   []monitor

	liveNonDaemon int
	overhead      Time
	incidents     []string
	// unlisted counts the incidents beyond maxIncidents.
	unlisted int

	// appThreads counts the application threads created; foot is the
	// run's estimated memory; err is set when a limit stopped the run.
	appThreads int
	foot       Footprint
	// memHeadroom is how far the estimate may grow past foot's since
	// overMemory last computed it and still be under Limits.MaxMemory
	// (newContext); a change to foot that overMemory does not follow sets
	// it to 0.
	memHeadroom int64
	err         error
	// noTruthProfile: the truth profile is not counted (NoTruthProfile).
	noTruthProfile bool
	// ctx, when set, stops the run with its error once done.
	ctx     context.Context
	nameSeq map[string]int

	// agent is the VM as an Agent (roles.go), what handlers are called with.
	agent Agent
}

// scheduler is the VM's clock, event queue, CPUs and run queue.
type scheduler struct {
	q    eventQueue
	now  Time
	end  Time
	done bool
	cpus []cpu
	runq runQueue
	// rounds counts the scheduling rounds of RunUntil: the work a run did
	// besides executing statements.
	rounds int64
	// reached is the simulated time of the latest scheduling round whose
	// number is a multiple of reachedEvery, for Reached.
	reached atomic.Int64
	// stepAll turns off fastForwardCalls and runLeaf: tests compare it
	// with stepping.
	stepAll bool
	// loopLeaves is callLoopCost's scratch: the leaf calls of the body it
	// last accepted, in body order, which fastForwardCalls then charges.
	loopLeaves []leafCall
}

// execCosts are the executor's fixed costs in nanoseconds, from
// Config.Cost.
type execCosts struct {
	pollNanos, monitorNanos, throwNanos, unwindNanos, callNanos int64
	// catchDeoptNanos, when > 0, is what deoptimizing one compiled frame
	// an exception enters costs besides its scopes, catchDeoptScopeNanos
	// what each scope (interpreter frame) of it adds (SetCatchDeopt).
	catchDeoptNanos, catchDeoptScopeNanos int64
}

// services are the runtime's services to mechanisms outside sim.
type services struct {
	registry
	jitCounters

	allocs   AllocHandler
	tlabSize int64

	hold bool
	held []ThreadID
}

// registry holds the hook and timer handlers and thread observers.
type registry struct {
	handlers     []HookHandler
	timers       []TimerHandler
	observers    []ThreadObserver
	endObservers []ThreadEndObserver
}

// jitCounters are the JIT's invocation and back-edge counters per method,
// kept by Counting code, and their triggers.
type jitCounters struct {
	invocations, invocationTrigger []int64
	backedges, backedgeTrigger     []int64
	counters                       CounterHandler
}

// New prepares a run. Nothing executes until Run or RunUntil.
func New(img *Image, cfg Config) (*VM, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	vm := &VM{
		cfg:         cfg,
		img:         img,
		code:        append([]*Code(nil), img.Base...),
		interpreted: make([]*Code, len(img.Base)),
		truth:       newTruth(len(img.Edges), img.lineCounts()),
		scheduler:   scheduler{end: cfg.Duration, cpus: make([]cpu, cfg.CPUs)},
		locks:       make([]monitor, len(img.Locks)),
		nameSeq:     map[string]int{},
	}
	vm.agent = agentView{vm, vm}
	c := cfg.Cost
	vm.pollNanos, vm.monitorNanos = c.Nanos(c.PollCycles), c.Nanos(c.MonitorCycles)
	vm.throwNanos, vm.unwindNanos, vm.callNanos = c.Nanos(c.ThrowCycles), c.Nanos(c.UnwindCycles), c.Nanos(c.CallCycles)
	for i := range vm.cpus {
		vm.cpus[i].thread = -1
	}
	n := len(img.Methods)
	vm.invocations, vm.invocationTrigger = make([]int64, n), make([]int64, n)
	vm.backedges, vm.backedgeTrigger = make([]int64, n), make([]int64, n)
	for i := 0; i < n; i++ {
		vm.invocationTrigger[i], vm.backedgeTrigger[i] = math.MaxInt64, math.MaxInt64
	}
	for i := range vm.locks {
		vm.locks[i].owner = -1
	}
	vm.foot.ThreadBytes = vm.threadCost()
	for _, c := range img.Base {
		vm.foot.Instrs += int64(len(c.Instrs))
	}
	if vm.overMemory() {
		return nil, vm.err
	}
	var total int64
	for _, spec := range img.Prog.Threads {
		total += max(int64(spec.Count), 1)
	}
	if total > math.MaxInt32 || !vm.allowThreads(int(total), "the program's threads") {
		if vm.err == nil {
			vm.stopAt(&LimitError{Limit: "threads", Value: total, Max: int64(cfg.Limits.MaxThreads), Detail: "the program's threads"})
		}
		return nil, vm.err
	}
	for i, spec := range img.Prog.Threads {
		n := spec.Count
		if n == 0 {
			n = 1
		}
		for k := 0; k < n; k++ {
			name := spec.Name
			if n > 1 {
				name += "-" + strconv.Itoa(k)
			}
			t := vm.newThread(name, img.entries[i], spec.Daemon, Time(spec.Start))
			vm.q.push(event{at: Time(spec.Start), kind: evStart, a: int32(t.ID)})
			if vm.err != nil {
				return nil, vm.err
			}
		}
	}
	return vm, nil
}

func (vm *VM) newThread(name string, entry int32, daemon bool, at Time) *Thread {
	id := ThreadID(len(vm.threads))
	t := &Thread{ID: id, Name: name, Daemon: daemon,
		execState: execState{clock: at, tlabLeft: math.MaxInt64,
			active: make([]int32, vm.img.limited),
		},
		stopState:  stopState{counterBy: -1},
		schedState: schedState{state: NotStarted, stateSince: at, start: at, cpu: -1},
		syncState:  syncState{parent: -1},
	}
	t.pcg = streamSource(vm.cfg.Seed, "thread/"+strconv.Itoa(int(id)))
	t.rng = rand.New(t.pcg)
	if vm.allocs != nil {
		t.tlabLeft = 0 // the first allocation takes a TLAB
	}
	vm.threads = append(vm.threads, t)
	vm.foot.Threads++
	vm.memHeadroom = 0
	if !daemon {
		vm.liveNonDaemon++
	}
	if entry < 0 {
		return t // a service thread: the caller gives it its code
	}
	vm.appThreads++
	t.truth = vm.truth
	if vm.cfg.ProfileThreads != "" && !MatchThreads(vm.cfg.ProfileThreads, name) {
		t.truth, t.unprofiled = vm.unprofiledTruth(), true
	}
	defer func() {
		for _, o := range vm.observers {
			o.OnThreadStart(vm.agent, id)
		}
	}()
	// The entry frame: a call from the CCT root, no caller to charge.
	tr := t.truth
	n := tr.count
	node := tr.child(0, entry, 0)
	nd := tr.node(node)
	if tr.count > n {
		vm.newContext(nd.lines, 1)
	}
	nd.calls++
	code := vm.code[entry]
	t.frames = append(t.frames, frame{code: code, cells: tr.cell(nd.lineBase), node: node})
	t.loops = append(t.loops, make([]int64, code.LoopSlots)...)
	if s := vm.img.limitSlot[entry]; s >= 0 {
		t.active[s]++
		t.frames[0].flags |= fLimited
	}
	vm.deeper(t)
	return t
}

// Config returns the run's configuration.
func (vm *VM) Config() Config { return vm.cfg }

// Image returns the program being run.
func (vm *VM) Image() *Image { return vm.img }

// Now is the time of the event or interaction being processed.
func (vm *VM) Now() Time { return vm.now }

// Truth is the ground-truth recorder of this run.
func (vm *VM) Truth() *Truth { return vm.truth }

// Install makes c the code new activations of its method run. Frames
// already running keep their version (no on-stack replacement here).
func (vm *VM) Install(c *Code) {
	if c.Method < 0 || int(c.Method) >= len(vm.code) {
		panic(fmt.Sprintf("sim: Install for unknown method %d", c.Method))
	}
	vm.truth.checkLines(c)
	vm.code[c.Method] = c
	if c.Tier == Interpreted {
		vm.interpreted[c.Method] = c
	}
}

// SetInterpreted records c, an interpreted version of its method, as the
// code a deoptimized frame of the method goes on in (SetCatchDeopt),
// without installing it: a JIT that installs compiled code before the
// run gives its methods' interpreted versions so.
func (vm *VM) SetInterpreted(c *Code) {
	if c.Method < 0 || int(c.Method) >= len(vm.code) || c.Tier != Interpreted {
		panic(fmt.Sprintf("sim: SetInterpreted for method %d at tier %v", c.Method, c.Tier))
	}
	vm.interpreted[c.Method] = c
}

// reachedEvery is how many scheduling rounds pass between two updates of
// Reached: an atomic store a round would cost the run more than a
// progress display needs.
const reachedEvery = 1024

// Reached is about how far the run has got: the simulated time of a
// recent scheduling round. Unlike Now it may be called from another
// goroutine while the run goes on (a progress display); it reads one
// atomic value and changes nothing.
func (vm *VM) Reached() Time { return Time(vm.reached.Load()) }

// Done reports whether the run has ended.
func (vm *VM) Done() bool { return vm.done }

// Run executes the program to the end of the configured duration, or until
// every non-daemon thread has finished.
func (vm *VM) Run() *Result {
	vm.RunUntil(vm.end)
	return vm.Result()
}

// RunUntil executes until simulated time limit (or the end of the run),
// processing every event before limit. It returns false once the run is
// over. Stopping at a limit and continuing gives exactly the same run.
func (vm *VM) RunUntil(limit Time) bool {
	if limit > vm.end {
		limit = vm.end
	}
	for !vm.done {
		if vm.q.len() == 0 && !vm.anyRunning() {
			vm.halt()
			break
		}
		vm.rounds++
		if vm.rounds%reachedEvery == 0 {
			vm.reached.Store(int64(vm.now))
		}
		if vm.ctx != nil {
			select {
			case <-vm.ctx.Done():
				vm.err, vm.done = vm.ctx.Err(), true
				return false
			default:
			}
		}
		h, isEvent := limit, false
		if vm.q.len() > 0 && vm.q.peek().at < h {
			h, isEvent = vm.q.peek().at, true
		}
		// MaxStep bounds how far running threads get ahead of each other;
		// with every CPU idle nothing runs between events, and time
		// jumps to the next one however far it is.
		if vm.cfg.MaxStep > 0 && vm.now+vm.cfg.MaxStep < h && vm.anyRunning() {
			h, isEvent = vm.now+vm.cfg.MaxStep, false
		}
		// A service thread's job ends at a known time, and what it does
		// then (request a safepoint, install code) may concern every
		// thread: nobody runs past it.
		for i := range vm.cpus {
			if id := vm.cpus[i].thread; id >= 0 {
				if t := vm.threads[id]; t.service != nil {
					// A job already ended (stopped, waiting its turn
					// while an earlier stop is handled) still bounds the
					// others: it has not yet acted.
					end := t.clock
					if t.stop == 0 {
						end += Time(t.jobLeft)
					}
					if end < h {
						h, isEvent = end, false
					}
				}
			}
		}
		// Advance every running thread to the horizon or its next stop.
		// Between stops threads touch no shared state, so the order in
		// which CPUs are advanced cannot matter.
		for i := range vm.cpus {
			id := vm.cpus[i].thread
			if id < 0 {
				continue
			}
			t := vm.threads[id]
			if t.stop == 0 {
				if r := vm.advance(t, h); r != stopHorizon {
					t.stop = r
				}
			}
		}
		if vm.err != nil {
			return false // a limit stopped the run
		}
		// Handle the earliest stop; ties go to the lower thread ID.
		var first *Thread
		for i := range vm.cpus {
			id := vm.cpus[i].thread
			if id < 0 {
				continue
			}
			t := vm.threads[id]
			if t.stop != 0 && (first == nil || t.clock < first.clock || (t.clock == first.clock && t.ID < first.ID)) {
				first = t
			}
		}
		// An exit beyond the horizon (after a context switch or an
		// indivisible cost that carried the thread past h) waits until
		// the others have caught up with it: the last thread's exit does
		// not end the run before the others have run to that instant.
		// Other stops beyond h are handled at once, ahead of the CPUs
		// still at h (docs/MODEL.md: splitting then diverges).
		if first != nil && (first.clock <= h || first.stop&stopExit == 0) {
			vm.now = first.clock
			vm.handleStop(first)
			continue
		}
		if !isEvent {
			vm.now = h
			if h < limit {
				continue
			}
			if limit == vm.end {
				vm.finish(vm.end)
			}
			return !vm.done
		}
		e := vm.q.pop()
		vm.now = e.at
		vm.fire(e)
	}
	return false
}

// halt ends a run in which nothing can happen any more: no thread is
// running and no event is pending. That is normal when every thread has
// finished (a program of daemon threads only), and a deadlock otherwise.
func (vm *VM) halt() {
	for _, t := range vm.threads {
		if t.state != Terminated {
			vm.incident(fmt.Sprintf("at %v no thread can ever run again (thread %s is %v: deadlock); run ended", vm.now, t.Name, t.state))
			break
		}
	}
	vm.finish(vm.now)
}

func (vm *VM) anyRunning() bool {
	for i := range vm.cpus {
		if vm.cpus[i].thread >= 0 {
			return true
		}
	}
	return false
}

// maxIncidents is how many incidents a run lists; beyond it they are
// counted (a storm of failing threads would otherwise grow the list
// without bound).
const maxIncidents = 100

func (vm *VM) incident(s string) {
	if len(vm.incidents) < maxIncidents {
		vm.incidents = append(vm.incidents, s)
		return
	}
	vm.unlisted++
}

func (vm *VM) fire(e event) {
	switch e.kind {
	case evStart:
		vm.makeRunnable(vm.threads[e.a], e.at)
	case evWake:
		t := vm.threads[e.a]
		if t.state == Blocked && t.wakeGen == e.b {
			t.inIO = false
			vm.makeRunnable(t, e.at)
		}
	case evSlice:
		c := &vm.cpus[e.a]
		if c.gen != e.b || c.thread < 0 {
			return // the thread left the CPU since
		}
		if vm.runq.len() == 0 {
			vm.q.push(event{at: e.at + vm.cfg.TimeSlice, kind: evSlice, a: e.a, b: c.gen})
			return
		}
		t := vm.threads[c.thread]
		vm.runq.push(t.ID)
		vm.offCPU(t, Runnable)
	case evTimer:
		vm.timers[e.a].OnTimer(vm.agent, e.at, e.b)
	case evPreempt:
		vm.preempt(vm.threads[e.a])
	}
}

// finish ends the run at time at and closes every thread's accounting.
func (vm *VM) finish(at Time) {
	vm.done = true
	vm.end = at
	for _, t := range vm.threads {
		if t.state == Terminated || t.state == NotStarted {
			continue
		}
		until := at
		if t.state == Running && t.clock > until {
			until = t.clock // indivisible costs may carry a thread past the end
		}
		t.setState(t.state, until)
	}
}

// handleStop performs what made t stop, at t's time.
func (vm *VM) handleStop(t *Thread) {
	r := t.stop
	t.stop = 0
	switch {
	case r&stopExit != 0:
		vm.endThread(t)
	case r&stopInteract != 0:
		vm.interact(t)
	default:
		if r&stopCounter != 0 {
			if vm.counters != nil {
				vm.counters.OnCounter(vm.agent, t.ID, t.counterMethod, t.counterKind)
			}
			r &^= stopCounter
		}
		if r != 0 {
			vm.fireHooks(t, r)
		}
	}
}

// endThread tells the ThreadEnd observers that t's stack is empty, then retires
// it — unless an observer holds it, in which case it exits when it runs
// again.
func (vm *VM) endThread(t *Thread) {
	if t.ending != "" {
		// Recorded now, in global time order, not when the thread's
		// own run (between stops) got there.
		vm.incident(t.ending)
		t.ending = ""
	}
	if !t.endNotified && t.service == nil && len(vm.endObservers) > 0 {
		// JVMTI's ThreadEnd runs on the ending thread: a callback that
		// waits (for a safepoint) holds the thread, and its joiner.
		t.endNotified = true
		park := false
		for _, o := range vm.endObservers {
			if o.OnThreadEnd(vm.agent, t.ID) == Park {
				park = true
			}
		}
		if park && t.state == Running {
			vm.offCPU(t, Parked)
			return
		}
	}
	vm.exit(t)
}

// exit retires a thread whose stack is empty.
func (vm *VM) exit(t *Thread) {
	t.end = t.clock
	for len(t.held) > 0 { // only an uncaught exception leaves monitors held
		vm.release(t, t.held[len(t.held)-1].lock)
	}
	vm.offCPU(t, Terminated)
	// A finished thread keeps no stack.
	vm.foot.Frames -= int64(t.peakFrames)
	t.frames, t.loops, t.active, t.peakFrames = nil, nil, nil, 0
	if t.parent >= 0 {
		p := vm.threads[t.parent]
		if p.joinPending--; p.joinPending == 0 && p.state == JoinWait {
			vm.makeRunnable(p, t.clock)
		}
	}
	if !t.Daemon {
		if vm.liveNonDaemon--; vm.liveNonDaemon == 0 {
			vm.finish(t.clock)
		}
	}
}

// charge adds an indivisible cost to t's current context, at the line of
// the statement at its pc.
func (vm *VM) charge(t *Thread, ns int64) {
	f := &t.frames[len(t.frames)-1]
	f.cell(f.code.Instrs[f.pc].Line).self += ns
	t.clock += Time(ns)
}

// interact performs the shared-state instruction at t's pc.
func (vm *VM) interact(t *Thread) {
	f := &t.frames[len(t.frames)-1]
	in := &f.code.Instrs[f.pc]
	switch in.Op {
	case OpBlock:
		t.stmts++
		d := Time(vm.img.dists[in.blockDist()].Sample(t.rng))
		f.pc++
		t.wakeGen++
		t.inIO = in.B == blockIO
		vm.offCPU(t, Blocked)
		vm.q.push(event{at: t.clock + d, kind: evWake, a: int32(t.ID), b: t.wakeGen})
	case OpMonitorEnter:
		t.stmts++
		vm.charge(t, vm.monitorNanos)
		m := &vm.locks[in.Lock()]
		if m.owner < 0 || m.owner == t.ID {
			m.owner = t.ID
			m.count++
			t.held = append(t.held, heldLock{lock: in.Lock(), frame: int32(len(t.frames) - 1)})
			f.pc++
			return
		}
		m.waiters = append(m.waiters, t.ID)
		vm.offCPU(t, LockWait)
	case OpMonitorExit:
		vm.charge(t, vm.monitorNanos)
		vm.release(t, in.Lock())
		f.pc++
	case OpSpawn:
		t.stmts++
		sp := &vm.img.spawns[in.spawn()]
		if !vm.allowThreads(sp.count, fmt.Sprintf("thread %s spawning %d × %s", t.Name, sp.count, vm.img.Names[sp.entry])) {
			return
		}
		f.pc++
		for k := 0; k < sp.count; k++ {
			seq := vm.nameSeq[sp.name]
			vm.nameSeq[sp.name]++
			c := vm.newThread(sp.name+"-"+strconv.Itoa(seq), sp.entry, sp.daemon, t.clock)
			if sp.join {
				c.parent = t.ID
			}
			vm.makeRunnable(c, t.clock)
			if vm.err != nil {
				return
			}
		}
		if sp.join {
			t.joinPending += sp.count
			vm.offCPU(t, JoinWait)
		}
	case OpAlloc:
		// TLAB exhausted: take a new one from the shared heap, in global
		// time order, and let the allocation policy (GC) decide.
		t.tlabLeft = max(vm.tlabSize, in.AllocBytes())
		if vm.allocs == nil {
			t.tlabLeft = math.MaxInt64
		}
		if vm.allocs != nil && vm.allocs.OnTLAB(vm.agent, t.ID, t.tlabLeft) == Park && t.state == Running {
			vm.offCPU(t, Parked)
		}
	case OpService:
		vm.serviceJobDone(t)
	case OpThrow:
		t.stmts++
		if vm.throw(t, int(in.ThrowDepth())) {
			// Uncaught: the thread ends after the throw's cost, past the
			// present; its exit waits its turn like any stop.
			t.stop = stopExit
		}
	default:
		panic(fmt.Sprintf("sim: thread %d stopped for interaction at %v", t.ID, in.Op))
	}
}

// release exits monitor l once; the last exit hands it to the first waiter.
func (vm *VM) release(t *Thread, l int32) {
	m := &vm.locks[l]
	if m.owner != t.ID || len(t.held) == 0 || t.held[len(t.held)-1].lock != l {
		panic(fmt.Sprintf("sim: thread %d releases monitor %q it does not hold innermost", t.ID, vm.img.Locks[l]))
	}
	t.held = t.held[:len(t.held)-1]
	if m.count--; m.count > 0 {
		return
	}
	m.owner = -1
	if len(m.waiters) == 0 {
		return
	}
	w := vm.threads[m.waiters[0]]
	copy(m.waiters, m.waiters[1:])
	m.waiters = m.waiters[:len(m.waiters)-1]
	m.owner, m.count = w.ID, 1
	wf := &w.frames[len(w.frames)-1]
	w.held = append(w.held, heldLock{lock: l, frame: int32(len(w.frames) - 1)})
	wf.pc++
	vm.makeRunnable(w, t.clock)
}

// throw raises an exception caught depth frames up. It reports whether the
// exception was uncaught and the thread must end.
func (vm *VM) throw(t *Thread, depth int) bool {
	t.truth.Exceptions++
	vm.charge(t, vm.throwNanos+int64(min(depth, len(t.frames)))*vm.unwindNanos) // frames unwound
	f := &t.frames[len(t.frames)-1]
	if depth == 0 {
		f.pc = f.code.Instrs[f.pc].ThrowEnd()
		return false
	}
	keep := len(t.frames) - depth
	if keep < 0 {
		keep = 0
		t.ending = fmt.Sprintf("thread %s: uncaught exception thrown in %s at %v; thread ended",
			t.Name, vm.img.Names[f.code.Method], t.clock)
	}
	deopts, scopes := 0, 0
	if vm.catchDeoptNanos > 0 && keep > 0 {
		deopts, scopes = vm.catchDeopts(t, keep)
	}
	for len(t.held) > 0 && int(t.held[len(t.held)-1].frame) >= keep {
		vm.release(t, t.held[len(t.held)-1].lock)
	}
	for len(t.frames) > keep {
		vm.pop(t)
	}
	if keep == 0 {
		t.truth.Uncaught++
		t.uncaught = true
		return true
	}
	if deopts > 0 {
		vm.deoptCatcher(t, deopts, scopes)
	}
	top := &t.frames[keep-1]
	top.flags &^= fReturned | fPollPending
	top.pc++
	return false
}

// SetCatchDeopt makes every compiled frame an exception enters from a
// callee's frame deoptimize, at cost frame each plus scope for each of
// its scopes — the frame's method and the callees inlined into it at the
// call, each of which Deoptimization::unpack_frames makes an interpreter
// frame that the exception then unwinds: HotSpot does so while a JVMTI
// agent holds can_generate_exception_events (or frame-pop or method-exit
// events), whether or not it enables them (OptoRuntime::
// handle_exception_C_helper, opto/runtime.cpp: "Full-speed catching is not
// necessary here, since we're notifying the VM on every catch", then
// deoptimize_caller_frame). frame 0 turns it off. Call it before the run.
func (vm *VM) SetCatchDeopt(frame, scope Time) {
	vm.catchDeoptNanos, vm.catchDeoptScopeNanos = int64(frame), int64(scope)
}

// catchDeopts counts the deoptimizations of an exception that unwinds
// t's frames above keep and is caught by frame keep-1: the physical
// compiled frames it enters, from the thrower's caller's to the
// catcher's, and their scopes (each physical frame's frames, inlined ones
// included); an exception caught inside one physical frame's inlined
// scopes never leaves compiled code. Call it before the frames are
// unwound.
func (vm *VM) catchDeopts(t *Thread, keep int) (n, scopes int) {
	thrower, catcher := t.physical(len(t.frames)-1), t.physical(keep-1)
	for p := catcher; p < thrower; {
		start := p
		p++
		for p < len(t.frames) && t.frames[p].flags&fInlined != 0 {
			p++
		}
		if vm.compiledFrame(&t.frames[start]) {
			n++
			scopes += p - start
		}
	}
	return n, scopes
}

// deoptCost is what n deoptimized frames of scopes scopes in all cost.
func (vm *VM) deoptCost(n, scopes int64) int64 {
	return satAdd(satMul(n, vm.catchDeoptNanos), satMul(scopes, vm.catchDeoptScopeNanos))
}

// deoptCatcher, once an exception that deoptimized n frames of scopes
// scopes in all (catchDeopts) has unwound t to its catcher, charges the
// deoptimizations to the catcher's call and moves the catcher's physical
// frame to the interpreter until it returns (deoptPhysical).
func (vm *VM) deoptCatcher(t *Thread, n, scopes int) {
	t.truth.Deoptimizations += int64(n)
	vm.charge(t, vm.deoptCost(int64(n), int64(scopes)))
	vm.deoptPhysical(t, t.physical(len(t.frames)-1))
}

// deoptPhysical moves the physical frame that starts at frame p to the
// interpreter: it and the scopes inlined into it become interpreted
// frames at the same bytecode positions (compiled code keeps the base
// code's layout, sim.Recost), as Deoptimization::unpack_frames makes one
// interpreter frame per scope. Frames above it in other physical frames
// keep their code.
func (vm *VM) deoptPhysical(t *Thread, p int) {
	if !vm.compiledFrame(&t.frames[p]) {
		return
	}
	for i := p; i < len(t.frames) && (i == p || t.frames[i].flags&fInlined != 0); i++ {
		f := &t.frames[i]
		f.code = vm.interpreted[f.code.Method]
		f.flags &^= fInlined
		f.stripLoop, f.stripFrom = 0, 0
	}
}

// thrown performs a model's throw (OpThrown: program.Thrown, a throw the
// model does not unwind) at t's top frame while catch deoptimization is
// on: the compiled frames an exception caught Depth frames up would enter
// from a callee deoptimize (catchDeopts), Times of them a throw — the
// fraction carried over to the next throw, so that the count is exact
// over the run — and the catcher's physical frame goes on interpreted
// until it returns. The frames in between keep running as the model has
// them; the catcher pays the deoptimizations' time when the call it is in
// returns (fDeoptDebt), on top as the real catcher is while its frames
// deoptimize, so that the truth and every sampler see it there.
func (vm *VM) thrown(t *Thread, th *program.Thrown) {
	keep := len(t.frames) - th.Depth
	if keep <= 0 {
		return // nothing on this stack would catch it
	}
	n, scopes := vm.catchDeopts(t, keep)
	if n == 0 {
		return
	}
	t.deoptCarry += float64(n) * th.Times
	whole := math.Floor(t.deoptCarry)
	if whole < 1 {
		return
	}
	t.deoptCarry -= whole
	t.truth.Deoptimizations += int64(whole)
	vm.deoptPhysical(t, t.physical(keep-1))
	// The catcher pays when the exception would reach it: once its call
	// returns, with it on top, as the real catcher is while its frames
	// deoptimize.
	// whole deoptimizations of frames as deep as this throw's on average.
	ns := int64(math.MaxInt64)
	if f := math.Round(whole * float64(vm.deoptCost(int64(n), int64(scopes))) / float64(n)); f < math.MaxInt64 {
		ns = int64(f)
	}
	c := &t.frames[keep-1]
	if c.flags&fDeoptDebt != 0 {
		for i := len(t.deoptDebts) - 1; i >= 0; i-- {
			if d := &t.deoptDebts[i]; d.frame == int32(keep-1) {
				d.ns = satAdd(d.ns, ns)
				return
			}
		}
	}
	c.flags |= fDeoptDebt
	t.deoptDebts = append(t.deoptDebts, deoptDebt{frame: int32(keep - 1), ns: ns})
}

// deoptDebt is what frame owes for deoptimizations (Thread.deoptDebts).
type deoptDebt struct {
	frame int32
	ns    int64
}

// payDeopts charges f, the frame of t marked fDeoptDebt, at line as much
// of its deoptimizations' time as budget allows (ns) and returns it, the
// caller adding it to the clock; done is false when some is left, for a
// later return to the same call: like a Work statement, the time is split
// at a horizon, so a thread stops there as an exact sampler expects.
func (vm *VM) payDeopts(t *Thread, f *frame, line int32, budget int64) (paid int64, done bool) {
	i := int32(-1)
	for k := range t.frames {
		if &t.frames[k] == f {
			i = int32(k)
			break
		}
	}
	for k := len(t.deoptDebts) - 1; k >= 0; k-- {
		d := &t.deoptDebts[k]
		if d.frame != i {
			continue
		}
		paid = min(d.ns, max(budget, 0))
		f.cell(line).self += paid
		if d.ns -= paid; d.ns > 0 {
			return paid, false
		}
		t.deoptDebts = append(t.deoptDebts[:k], t.deoptDebts[k+1:]...)
		f.flags &^= fDeoptDebt
		return paid, true
	}
	panic(fmt.Sprintf("sim: thread %d frame %d marked as owing deoptimizations owes none", t.ID, i))
}

// physical is the index of the physical frame that holds frame i: i, or
// the nearest frame below it not inlined into its caller.
func (t *Thread) physical(i int) int {
	for i > 0 && t.frames[i].flags&fInlined != 0 {
		i--
	}
	return i
}

// compiledFrame reports whether f runs compiled code — a method's own or
// a callee's inlined into it — that can deoptimize: the method has an
// interpreted version to go on in (the JIT's; without a JIT every method
// runs compiled and none can).
func (vm *VM) compiledFrame(f *frame) bool {
	return f.code.Tier == Compiled && vm.interpreted[f.code.Method] != nil
}

// pop removes the top frame.
func (vm *VM) pop(t *Thread) {
	last := len(t.frames) - 1
	f := &t.frames[last]
	if s := vm.img.limitSlot[f.code.Method]; s >= 0 {
		t.active[s]--
	}
	if f.flags&fDeoptDebt != 0 {
		// Unwound before its call returned (a real exception, the
		// thread's end): it pays at its position as it goes.
		paid, _ := vm.payDeopts(t, f, f.code.Instrs[f.pc].Line, math.MaxInt64)
		t.clock += Time(paid)
	}
	t.loops = t.loops[:f.loopBase]
	t.frames = t.frames[:last]
}
