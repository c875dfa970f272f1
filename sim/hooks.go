package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// Hook is a point in a thread's execution where a handler can stop it.
// Every hook is disarmed by default and then costs the executor one branch
// on a per-thread bit; armed hooks are one-shot (re-arm to keep them).
type Hook uint8

// Hooks a handler can arm.
const (
	// HookPoll stops the thread at its next executed poll site (yield
	// point): a back-edge or return poll, or a prologue poll in the
	// Jikes-like flavour. Safepoints are built on it.
	HookPoll Hook = iota
	// HookEntry stops the thread right after its next method entry.
	HookEntry
	// HookReturn stops the thread when a chosen frame returns, seen in the
	// caller at the call site (ArmReturn). Incremental stack tracing's
	// return interception is built on it.
	HookReturn
	// HookBytecodes stops the thread at the basic block whose bytecodes
	// bring its bytecode counter to zero or below (SetBytecodeCounter).
	HookBytecodes
	numHooks
)

var hookNames = [...]string{"poll", "entry", "return", "bytecodes"}

func (h Hook) String() string {
	if int(h) < len(hookNames) {
		return hookNames[h]
	}
	return fmt.Sprintf("Hook(%d)", h)
}

// PollKind says which kind of yield point a thread stopped at (HookPoll).
type PollKind uint8

// Poll kinds.
const (
	PollBackedge   PollKind = iota // a loop back-edge (or a strip-mined one)
	PollReturn                     // HotSpot's return poll, after the pop: the thread is in the caller
	PollPrologue                   // a method prologue (Jikes): the thread is in the callee
	PollEpilogue                   // a method epilogue (Jikes, interpreter): in the callee, before the pop
	PollNativeExit                 // the return from a native call
	PollTransition                 // not a poll: the thread blocked, parked or exited (a safe transition)
)

var pollKindNames = [...]string{"backedge", "return", "prologue", "epilogue", "native-exit", "transition"}

func (k PollKind) String() string {
	if int(k) < len(pollKindNames) {
		return pollKindNames[k]
	}
	return fmt.Sprintf("PollKind(%d)", k)
}

// PollKindOf tells, inside a HookPoll handler, which kind of poll thread
// id stopped at.
func (vm *VM) PollKindOf(id ThreadID) PollKind { return vm.thread(id).pollKind }

// stopSet is a set of reasons the executor stopped a thread (Thread.stop,
// handled by VM.handleStop), or of the hook stops armed on it
// (Thread.hooks). A new hook is its Hook constant and name, its stop bit
// and name here and in hookStops — all in this file — plus the place in
// the executor that returns the bit; handleStop passes every hook stop to
// fireHooks without a case of its own. A stop reason that is not a hook
// also needs its case in handleStop. Eight bits of the sixteen are taken;
// widening it costs nothing (Thread keeps its size, and advance returns it
// in a register).
type stopSet uint16

// Stop reasons.
const (
	stopHorizon   stopSet = 1 << iota // reached the horizon; nothing to do
	stopInteract                      // at an instruction that touches shared state
	stopExit                          // the thread's stack is empty
	stopPoll                          // HookPoll fired
	stopEntry                         // HookEntry fired
	stopReturn                        // HookReturn fired
	stopBytecodes                     // HookBytecodes fired
	stopCounter                       // a JIT counter reached its trigger
)

// stopNames names the stop reasons, bit i's at index i.
var stopNames = [...]string{"horizon", "interact", "exit", "poll", "entry", "return", "bytecodes", "counter"}

// String lists the set's reasons, "poll|entry"; "none" for the empty set.
// It is for debugging: nothing parses it.
func (s stopSet) String() string { return bitNames(uint64(s), stopNames[:], "stop") }

// bitNames lists the bits set in s by name (bit i's at names[i], prefix
// and i past them), joined by "|"; "none" for no bit.
func bitNames(s uint64, names []string, prefix string) string {
	if s == 0 {
		return "none"
	}
	var b strings.Builder
	for i := 0; s != 0; i, s = i+1, s>>1 {
		if s&1 == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('|')
		}
		if i < len(names) {
			b.WriteString(names[i])
		} else {
			b.WriteString(prefix + strconv.Itoa(i))
		}
	}
	return b.String()
}

var hookStops = [numHooks]stopSet{stopPoll, stopEntry, stopReturn, stopBytecodes}

// Action is a hook handler's decision about the stopped thread.
type Action uint8

// Actions. If any handler of a stop parks the thread, it parks.
const (
	Continue Action = iota // resume at once
	Park                   // take the thread off its CPU until Unpark
)

// HookHandler receives the hooks it armed. The thread is stopped exactly at
// the hook point; the handler may read its stack (VM.Stack), arm hooks and
// schedule timers. HookPoll also fires, with the thread no longer Running,
// when a poll-armed thread blocks, parks or exits — a safe transition, as
// in HotSpot — and then the returned Action is ignored.
type HookHandler interface {
	OnHook(vm Agent, t ThreadID, h Hook) Action
}

// TimerHandler receives timer events. When it runs, every running thread
// has reached the timer's time (indivisible costs may carry one slightly
// past it), so positions read with VM.Stack are exact.
type TimerHandler interface {
	OnTimer(vm Agent, at Time, arg int64)
}

// HandlerID identifies a registered hook handler.
type HandlerID int32

// TimerID identifies a registered timer handler.
type TimerID int32

// maxHandlers is the number of hook handlers one VM supports: one bit each.
const maxHandlers = 32

// AddHookHandler registers h and returns its ID for arming hooks.
func (r *registry) AddHookHandler(h HookHandler) (HandlerID, error) {
	if h == nil {
		return 0, fmt.Errorf("sim: nil hook handler")
	}
	if len(r.handlers) >= maxHandlers {
		return 0, fmt.Errorf("sim: at most %d hook handlers per run", maxHandlers)
	}
	r.handlers = append(r.handlers, h)
	return HandlerID(len(r.handlers) - 1), nil
}

// AddTimer registers h and returns its ID for scheduling.
func (r *registry) AddTimer(h TimerHandler) TimerID {
	if h == nil {
		panic("sim: nil timer handler")
	}
	r.timers = append(r.timers, h)
	return TimerID(len(r.timers) - 1)
}

// ScheduleTimer fires timer id at time at (≥ now) with arg.
func (vm *VM) ScheduleTimer(id TimerID, at Time, arg int64) {
	if at < vm.now {
		panic(fmt.Sprintf("sim: timer scheduled at %v, before now (%v)", at, vm.now))
	}
	if int(id) >= len(vm.timers) || id < 0 {
		panic(fmt.Sprintf("sim: unknown timer %d", id))
	}
	vm.q.push(event{at: at, kind: evTimer, a: int32(id), b: arg})
}

func (vm *VM) thread(id ThreadID) *Thread {
	if id < 0 || int(id) >= len(vm.threads) {
		panic(fmt.Sprintf("sim: unknown thread %d", id))
	}
	return vm.threads[id]
}

func (r *registry) checkHandler(h HandlerID) {
	if h < 0 || int(h) >= len(r.handlers) {
		panic(fmt.Sprintf("sim: unknown hook handler %d", h))
	}
}

// Arm arms hook k on thread id for handler h. HookReturn and
// HookBytecodes take an operand and are armed by ArmReturn and
// SetBytecodeCounter.
func (vm *VM) Arm(h HandlerID, id ThreadID, k Hook) {
	vm.checkHandler(h)
	if k == HookReturn || k == HookBytecodes || k >= numHooks {
		panic(fmt.Sprintf("sim: Arm(%v): use ArmReturn or SetBytecodeCounter", k))
	}
	t := vm.thread(id)
	t.armed[k] |= 1 << h
	t.hooks |= hookStops[k]
}

// Disarm removes handler h's arming of hook k on thread id.
func (vm *VM) Disarm(h HandlerID, id ThreadID, k Hook) {
	vm.checkHandler(h)
	t := vm.thread(id)
	t.armed[k] &^= 1 << h
	if t.armed[k] == 0 {
		t.hooks &^= hookStops[k]
	}
}

// ArmReturn asks for HookReturn when the frame at depth (0 = the thread's
// entry frame) of thread id returns normally. A frame unwound by an
// exception does not report: that is not a return.
func (vm *VM) ArmReturn(h HandlerID, id ThreadID, depth int) {
	vm.checkHandler(h)
	t := vm.thread(id)
	if depth < 0 || depth >= len(t.frames) {
		panic(fmt.Sprintf("sim: ArmReturn depth %d of a %d-frame stack", depth, len(t.frames)))
	}
	for len(t.retHandlers) < len(t.frames) {
		t.retHandlers = append(t.retHandlers, 0)
	}
	if f := &t.frames[depth]; f.flags&fReturnHook == 0 {
		f.flags |= fReturnHook
		t.retHandlers[depth] = 0 // a frame popped from here had its own
	}
	t.retHandlers[depth] |= 1 << h
}

// DisarmReturn removes handler h's return hook from the frame at depth of
// thread id (an incremental stack tracer un-patching a return address).
func (vm *VM) DisarmReturn(h HandlerID, id ThreadID, depth int) {
	vm.checkHandler(h)
	t := vm.thread(id)
	f := &t.frames[depth]
	if f.flags&fReturnHook == 0 {
		return
	}
	if t.retHandlers[depth] &^= 1 << h; t.retHandlers[depth] == 0 {
		f.flags &^= fReturnHook
	}
}

// ReturnArmed reports whether handler h's return hook is on the frame at
// depth of thread id.
func (vm *VM) ReturnArmed(h HandlerID, id ThreadID, depth int) bool {
	t := vm.thread(id)
	return t.frames[depth].flags&fReturnHook != 0 && t.retHandlers[depth]&(1<<h) != 0
}

// SetBytecodeCounter arms HookBytecodes on thread id: the thread stops at
// the basic block that brings the counter to ≤ 0. One handler owns a
// thread's counter at a time.
func (vm *VM) SetBytecodeCounter(h HandlerID, id ThreadID, n int64) {
	vm.checkHandler(h)
	t := vm.thread(id)
	if t.counterBy >= 0 && t.counterBy != int32(h) && t.hooks&stopBytecodes != 0 {
		panic(fmt.Sprintf("sim: bytecode counter of thread %d is owned by handler %d", id, t.counterBy))
	}
	t.counter, t.counterBy = n, int32(h)
	t.hooks |= stopBytecodes
}

// Mark sets handler h's marker bit on the frame at depth (0 = entry) of
// thread id. The bit lives as long as that activation: a frame pushed
// later at the same depth starts unmarked.
func (vm *VM) Mark(h HandlerID, id ThreadID, depth int) {
	vm.checkHandler(h)
	vm.thread(id).frames[depth].marks |= 1 << h
}

// Marked reports whether handler h marked the frame at depth of thread id.
func (vm *VM) Marked(h HandlerID, id ThreadID, depth int) bool {
	return vm.thread(id).frames[depth].marks&(1<<h) != 0
}

// BytecodeCounter returns thread id's counter (it goes negative by the
// overshoot of the block that fired the hook).
func (vm *VM) BytecodeCounter(id ThreadID) int64 { return vm.thread(id).counter }

// fireHooks calls, in hook order and handler order, every handler armed for
// the hooks that stopped t, then parks t if any of them asked.
func (vm *VM) fireHooks(t *Thread, r stopSet) {
	park := false
	for k := Hook(0); k < numHooks; k++ {
		if r&hookStops[k] == 0 {
			continue
		}
		var set uint32
		switch k {
		case HookReturn:
			set = t.returned
			t.returned = 0
		case HookBytecodes:
			set = 1 << t.counterBy
			t.hooks &^= stopBytecodes
		default:
			set = t.armed[k]
			t.armed[k] = 0
			t.hooks &^= hookStops[k]
			if k == HookPoll && len(t.frames) > 0 {
				// A poll that stops calls into the VM, which saves
				// the bytecode pointer (InterpreterMacroAssembler::
				// call_VM_base). A thread with no frames is exiting.
				f := &t.frames[len(t.frames)-1]
				f.bcp = f.pc
			}
		}
		for h := 0; set != 0; h++ {
			if set&(1<<h) == 0 {
				continue
			}
			set &^= 1 << h
			if vm.handlers[h].OnHook(vm.agent, t.ID, k) == Park {
				park = true
			}
		}
	}
	if park && t.state == Running {
		vm.offCPU(t, Parked)
	}
}

// Unpark makes a parked thread runnable at the current time.
func (vm *VM) Unpark(id ThreadID) {
	t := vm.thread(id)
	if t.state != Parked {
		panic(fmt.Sprintf("sim: Unpark of thread %d in state %v", id, t.state))
	}
	at := vm.now
	if t.clock > at {
		at = t.clock
	}
	vm.makeRunnable(t, at)
}

// StackFrame is one source-level frame as VM.Stack reports it.
type StackFrame struct {
	Method int32
	// Line is the statement the frame is at: for a caller, its call site.
	Line int32
	// Inlined frames share their caller's physical frame.
	Inlined bool
	Tier    Tier
	// Node is the frame's exact CCT node (for ground-truth comparisons).
	Node int32
	// Code and PC are the exact position: the version the frame runs and
	// the instruction it is at (for debug-information lookups).
	Code *Code
	PC   int32
	// BCP, for an interpreted frame, is the statement of the bytecode
	// pointer saved in the frame. HotSpot's template interpreter keeps the
	// live one in a register (r13 on x86_64) and stores it in the frame
	// at method entry, at an invoke (prepare_invoke's save_bcp) and when
	// it calls into the VM (InterpreterMacroAssembler::call_VM_base, as a
	// poll that stops does); AsyncGetCallTrace and JFR read the stored one
	// (forte.cpp is_decipherable_interpreted_frame, frame::
	// interpreter_frame_bcp). Below the top frame it is the call site, PC.
	BCP int32
}

// Stack appends thread id's frames, root first, to buf and returns it: the
// thread's exact position now. It does not allocate when buf has room.
func (vm *VM) Stack(id ThreadID, buf []StackFrame) []StackFrame {
	t := vm.thread(id)
	for i := range t.frames {
		f := &t.frames[i]
		if f.code.Method < 0 {
			continue // a service thread has no Java frames
		}
		buf = append(buf, f.stackFrame())
	}
	return buf
}

// stackFrame is f as a View shows it.
func (f *frame) stackFrame() StackFrame {
	return StackFrame{Method: f.code.Method, Line: f.code.Instrs[f.pc].Line,
		Inlined: f.flags&fInlined != 0, Tier: f.code.Tier, Node: f.node, Code: f.code, PC: f.pc, BCP: f.bcp}
}

// StackTop appends thread id's top n frames, root first, to buf and
// returns it with the number of frames the whole stack holds: Stack's
// last n frames and its length, without copying the rest.
func (vm *VM) StackTop(id ThreadID, n int, buf []StackFrame) ([]StackFrame, int) {
	t := vm.thread(id)
	depth := len(t.frames)
	if depth == 0 || t.frames[0].code.Method < 0 {
		return buf, 0 // a service thread has no Java frames
	}
	for i := max(depth-n, 0); i < depth; i++ {
		buf = append(buf, t.frames[i].stackFrame())
	}
	return buf, depth
}

// StackID identifies thread id's stack of methods (View.StackID): its
// top frame's calling context in the thread's truth, doubled, plus one
// on a thread the run does not profile (whose contexts are another
// tree's). A frame's context is its caller's child for its method, so a
// context is one stack of methods; with the truth per method it is not.
func (vm *VM) StackID(id ThreadID) int64 {
	t := vm.thread(id)
	if t.truth == nil || t.truth.perMethod != nil || len(t.frames) == 0 {
		return -1
	}
	f := &t.frames[len(t.frames)-1]
	if f.code.Method < 0 {
		return -1
	}
	k := int64(f.node) << 1
	if t.truth != vm.truth {
		k |= 1
	}
	return k
}

// InNative reports whether thread id is stopped inside a Native statement
// (a safepoint treats such a thread as safe).
func (vm *VM) InNative(id ThreadID) bool { return vm.inside(id, OpNative) }

// InStub reports whether thread id is stopped inside a Stub statement:
// in a VM stub called from compiled code (StubRoutines), still
// _thread_in_Java, with no Java frame at its pc.
func (vm *VM) InStub(id ThreadID) bool { return vm.inside(id, OpStub) }

// inside reports whether thread id is stopped partway through a statement
// of op at its top frame's pc (one a horizon split, with time left).
func (vm *VM) inside(id ThreadID, op Op) bool {
	t := vm.thread(id)
	if len(t.frames) == 0 {
		return false
	}
	f := &t.frames[len(t.frames)-1]
	return f.code.Instrs[f.pc].Op == op && f.workLeft > 0
}

// InBlockingIO reports whether thread id is blocked in I/O (a Block of
// kind io): in a native method waiting in the kernel, off its CPU. JVMTI
// reports such a thread RUNNABLE, as it does any thread in native code
// (java.lang.Thread.State RUNNABLE for _thread_in_native,
// JvmtiEnvBase::get_thread_state), and a safepoint counts it as safe.
func (vm *VM) InBlockingIO(id ThreadID) bool {
	t := vm.thread(id)
	return t.state == Blocked && t.inIO
}

// State returns thread id's current state.
func (vm *VM) State(id ThreadID) ThreadState { return vm.thread(id).state }

// ThreadCPU returns thread id's CPU time so far.
func (vm *VM) ThreadCPU(id ThreadID) Time {
	t := vm.thread(id)
	cpu := t.stateTime[Running]
	if t.state == Running && t.clock > t.stateSince {
		cpu += t.clock - t.stateSince
	}
	return cpu
}

// ThreadName returns thread id's name.
func (vm *VM) ThreadName(id ThreadID) string { return vm.thread(id).Name }

// NumThreads is how many threads have been created so far (IDs are
// 0 … NumThreads-1).
func (vm *VM) NumThreads() int { return len(vm.threads) }

// Profiled reports whether thread id is an application thread that
// Config.ProfileThreads selects (every application thread without it).
func (vm *VM) Profiled(id ThreadID) bool {
	t := vm.thread(id)
	return t.service == nil && !t.unprofiled
}

// IsService reports whether thread id is one of the VM's service threads.
func (vm *VM) IsService(id ThreadID) bool { return vm.thread(id).service != nil }

// ThreadInfo is a read-only summary of a thread.
type ThreadInfo struct {
	ID     ThreadID
	Name   string
	Daemon bool
	// Service threads are the VM's own (VM thread, compiler, agents).
	Service bool
	State   ThreadState
	Depth   int
}

// Threads lists every thread created so far, in creation order.
func (vm *VM) Threads() []ThreadInfo {
	out := make([]ThreadInfo, len(vm.threads))
	for i, t := range vm.threads {
		out[i] = ThreadInfo{ID: t.ID, Name: t.Name, Daemon: t.Daemon, Service: t.service != nil, State: t.state, Depth: len(t.frames)}
	}
	return out
}
