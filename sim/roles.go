package sim

// Roles: what each consumer of a run may touch, as interfaces. The VM
// implements all of them; code outside the run's owner (package harness)
// receives only the role it needs, so that the compiler, not a convention,
// keeps the ground truth (VM.Truth, the truth's counts) away from
// profilers.
//
//	View        read the run as a profiler agent can: time, threads, stacks,
//	            states, CPU times, the kind of poll a thread stopped at.
//	Controller  act on the run: hooks, timers, park/unpark, stalls, service
//	            threads and their jobs, safepoint holds, TLAB handling,
//	            thread observers.
//	CodeManager the JIT's side: installed code, its replacement, counters
//	            and their triggers, call-edge counts.
//
// Agent (View and Controller) is what samplers, the safepoint coordinator
// and the GC get, and what every handler (HookHandler, TimerHandler,
// Service, ...) is called with; CompilerHost adds CodeManager for package
// jit. VM.Agent returns an Agent that is not a *VM, so that a type
// assertion cannot reach the rest.

// View is the read-only view of a run that a profiler agent may have.
type View interface {
	// Now is the VM's time.
	Now() Time
	// Image is the loaded program; Config the VM's configuration.
	Image() *Image
	Config() Config
	// NumThreads counts the threads created so far (ids 0..n-1); Threads
	// describes them.
	NumThreads() int
	Threads() []ThreadInfo
	ThreadName(id ThreadID) string
	// IsService reports whether id is a service thread (VM, compiler,
	// agent), not an application thread.
	IsService(id ThreadID) bool
	// Profiled reports whether id is an application thread the run
	// profiles (Config.ProfileThreads): samplers sample only those.
	Profiled(id ThreadID) bool
	State(id ThreadID) ThreadState
	// InNative reports whether id's top frame is a native method.
	InNative(id ThreadID) bool
	// InStub reports whether id is inside a VM stub its compiled code
	// called (program.Stub): in Java, with no Java frame at its pc.
	InStub(id ThreadID) bool
	// InBlockingIO reports whether id is blocked in I/O: in native code
	// off its CPU, RUNNABLE to JVMTI.
	InBlockingIO(id ThreadID) bool
	// ThreadCPU is id's CPU time so far.
	ThreadCPU(id ThreadID) Time
	// PollKindOf is the kind of poll id last stopped at (HookPoll).
	PollKindOf(id ThreadID) PollKind
	// Stack appends id's frames, root first, to buf: its exact position.
	Stack(id ThreadID, buf []StackFrame) []StackFrame
	// StackTop appends id's top n frames, root first, to buf, and
	// returns the number of frames its whole stack holds.
	StackTop(id ThreadID, n int, buf []StackFrame) ([]StackFrame, int)
	// BytecodeCounter is id's HookBytecodes counter.
	BytecodeCounter(id ThreadID) int64
	// StackID identifies id's stack of methods without copying it, for
	// a sampler that keeps a table of the stacks it has seen: two stacks
	// with the same StackID (≥ 0) hold the same methods, frame by frame,
	// on any thread of the run. It is 2·n + u, n the top frame's
	// StackFrame.Node and u 1 on a thread the run does not profile (whose
	// contexts are another tree's), else 0; the stack's prefix that ends
	// at frame f has the ID 2·f.Node + u. -1 when the run cannot tell (a
	// truth per method, VM.TruthPerMethod) or the thread has no Java frame.
	StackID(id ThreadID) int64
}

// Controller is what a mechanism built outside sim may do to a run.
type Controller interface {
	AddHookHandler(h HookHandler) (HandlerID, error)
	Arm(h HandlerID, id ThreadID, k Hook)
	Disarm(h HandlerID, id ThreadID, k Hook)
	ArmReturn(h HandlerID, id ThreadID, depth int)
	DisarmReturn(h HandlerID, id ThreadID, depth int)
	ReturnArmed(h HandlerID, id ThreadID, depth int) bool
	Mark(h HandlerID, id ThreadID, depth int)
	Marked(h HandlerID, id ThreadID, depth int) bool
	SetBytecodeCounter(h HandlerID, id ThreadID, n int64)

	AddTimer(h TimerHandler) TimerID
	ScheduleTimer(id TimerID, at Time, arg int64)

	Unpark(id ThreadID)
	Stall(id ThreadID, d Time)
	SetHold(on bool)
	ReleaseHeld()

	NewServiceThread(name string, s Service) ThreadID
	SubmitJob(id ThreadID, cost Time, tag int64)
	SubmitDeferredJob(id ThreadID, tag int64)

	SetAllocHandler(h AllocHandler, tlab int64)
	AddThreadObserver(o ThreadObserver)
	AddThreadEndObserver(o ThreadEndObserver)
}

// CodeManager is the JIT's access to the run's code and counters.
type CodeManager interface {
	// Code is method's installed code.
	Code(method int32) *Code
	// ReplaceCode installs c and moves the method's running activations
	// onto it (on-stack replacement).
	ReplaceCode(c *Code)
	// SetInterpreted gives the method's interpreted version, which a
	// deoptimized frame goes on in, without installing it.
	SetInterpreted(c *Code)
	SetCounterHandler(h CounterHandler)
	SetTrigger(method int32, k CounterKind, n int64)
	Counter(method int32, k CounterKind) int64
	// EdgeCount is how often static call edge i (Image.Edges) was taken:
	// the interpreter's and tiered code's call-site profile.
	EdgeCount(i int) int64
}

// Agent is a profiler agent's or an outside mechanism's access to a run.
type Agent interface {
	View
	Controller
}

// CompilerHost is the JIT's access to a run.
type CompilerHost interface {
	Agent
	CodeManager
}

// agentView is the VM seen as an Agent. Its method set is exactly Agent's
// (promoted from the two interface fields), and it is not a *VM, so a type
// assertion on an Agent cannot reach the truth.
type agentView struct {
	View
	Controller
}

// Agent returns the run's Agent role; every handler is called with it.
func (vm *VM) Agent() Agent { return vm.agent }

// The VM plays every role.
var (
	_ Agent        = (*VM)(nil)
	_ CompilerHost = (*VM)(nil)
)
