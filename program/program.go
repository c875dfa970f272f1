// Package program is profsim's intermediate representation: the methods,
// statements and threads of a simulated Java-like program, its validation and
// its YAML/JSON decoding.
//
// A program is data. It knows nothing about time, threads on CPUs or
// profilers: the sim package executes it and the jit package decides how it
// is compiled. docs/WORKLOADS.md documents the file format.
package program

import (
	"fmt"
	"strings"
)

// Program is a complete simulated application.
type Program struct {
	// Name identifies the program in outputs ("hotcold").
	Name string `json:"name" yaml:"name"`
	// Description is a one-line summary shown by `profsim workloads`.
	Description string   `json:"description,omitempty" yaml:"description,omitempty"`
	Methods     []Method `json:"methods" yaml:"methods"`
	Threads     []Thread `json:"threads" yaml:"threads"`
	// CompileCommands are HotSpot compile commands that come with the
	// program, as a -XX:CompileCommandFile does: each what follows
	// -XX:CompileCommand= ("dontinline,Class::method") or a line of such a
	// file ("exclude Class method"), read by ParseCompileCommand. The jit
	// package applies them after its configuration's.
	CompileCommands []string `json:"compile_commands,omitempty" yaml:"compile_commands,omitempty"`
	// valid: Validate found the program valid (see Validate).
	valid bool
}

// Method is one source method. Class, Name and Signature identify it, so
// overloads (same class and name, different signature) are distinct methods.
type Method struct {
	Class     string `json:"class" yaml:"class"`
	Name      string `json:"name" yaml:"name"`
	Signature string `json:"signature,omitempty" yaml:"signature,omitempty"`
	// RecursionLimit bounds how many frames of this method one thread may
	// have active at once. A call that would exceed it is skipped, which
	// models the recursion's base case. Every cycle in the call graph must
	// pass through a method with a limit, or validation rejects the program.
	RecursionLimit int `json:"recursion_limit,omitempty" yaml:"recursion_limit,omitempty"`
	// Compiled says the method ran compiled code when the program's
	// recording began (profsim import sets it from the recording's frame
	// types): the HotSpot-mode JIT installs a compiled version before the
	// run starts instead of the interpreter's, as a JVM well past its
	// warm-up has, and compiles it again, with the call-site profile, when
	// its counters pass the thresholds (docs/WORKLOADS.md).
	Compiled bool `json:"compiled,omitempty" yaml:"compiled,omitempty"`
	// Traps says the method's C2 code has uncommon traps: an array access's
	// range check, a loaded reference's null check, a division's zero
	// check, a branch its profile never saw taken. C2 places each trap's
	// call, with its PcDesc, out of line after the method's return, so a
	// position anywhere in the method's own body resolves through debug
	// information to the method itself (jit's placeDebugInfo,
	// samplers.ResolveDebugInfo); a method without them (arithmetic on
	// locals and statics) has no PcDesc past its last safepoint or call.
	Traps bool   `json:"traps,omitempty" yaml:"traps,omitempty"`
	Body  []Stmt `json:"body" yaml:"body"`
}

// FullName is "Class.name", the name profiles show when it is unambiguous.
func (m *Method) FullName() string { return m.Class + "." + m.Name }

// Key is "Class.name" followed by the signature: unique within a program.
func (m *Method) Key() string { return m.Class + "." + m.Name + m.Signature }

// Thread describes Count identical application threads started at Start
// nanoseconds, each running Entry to completion.
type Thread struct {
	// Name is the thread's name; with Count > 1 the threads are named
	// "name-0", "name-1", ...
	Name  string `json:"name" yaml:"name"`
	Entry string `json:"entry" yaml:"entry"`
	// Count is how many, in [1, MaxCount]; the decoders set 1 when a file
	// omits it.
	Count int `json:"count,omitempty" yaml:"count,omitempty"`
	// Start is when the threads become runnable: nanoseconds or a Go
	// duration string ("5ms").
	Start Duration `json:"start,omitempty" yaml:"start,omitempty"`
	// Daemon threads do not keep the program alive: the run ends when every
	// non-daemon thread has finished.
	Daemon bool `json:"daemon,omitempty" yaml:"daemon,omitempty"`
}

// Stmt is one statement. Exactly one field is set; the field's name is the
// statement's kind in YAML and JSON ("work:", "call:", ...).
type Stmt struct {
	Work        *Work        `json:"work,omitempty" yaml:"work,omitempty"`
	Call        *Call        `json:"call,omitempty" yaml:"call,omitempty"`
	VirtualCall *VirtualCall `json:"virtual_call,omitempty" yaml:"virtual_call,omitempty"`
	Loop        *Loop        `json:"loop,omitempty" yaml:"loop,omitempty"`
	Branch      *Branch      `json:"branch,omitempty" yaml:"branch,omitempty"`
	Alloc       *Alloc       `json:"alloc,omitempty" yaml:"alloc,omitempty"`
	Block       *Block       `json:"block,omitempty" yaml:"block,omitempty"`
	Native      *Native      `json:"native,omitempty" yaml:"native,omitempty"`
	Stub        *Stub        `json:"stub,omitempty" yaml:"stub,omitempty"`
	Spawn       *Spawn       `json:"spawn,omitempty" yaml:"spawn,omitempty"`
	Throw       *Throw       `json:"throw,omitempty" yaml:"throw,omitempty"`
}

// Kind is the name of the statement's kind, or "" if none is set.
func (s *Stmt) Kind() string {
	k, _ := s.kinds()
	return k
}

// kinds returns the first set kind and how many are set.
func (s *Stmt) kinds() (string, int) {
	first, n := "", 0
	set := func(ok bool, name string) {
		if ok {
			if n == 0 {
				first = name
			}
			n++
		}
	}
	set(s.Work != nil, "work")
	set(s.Call != nil, "call")
	set(s.VirtualCall != nil, "virtual_call")
	set(s.Loop != nil, "loop")
	set(s.Branch != nil, "branch")
	set(s.Alloc != nil, "alloc")
	set(s.Block != nil, "block")
	set(s.Native != nil, "native")
	set(s.Stub != nil, "stub")
	set(s.Spawn != nil, "spawn")
	set(s.Throw != nil, "throw")
	return first, n
}

// Work is straight-line bytecode with no calls: one basic block.
type Work struct {
	// Cycles is the cost in compiled code (1 cycle = 1 ns at the default
	// clock); must be > 0. Interpreted code costs more (sim.CostModel).
	Cycles int64 `json:"cycles" yaml:"cycles"`
	// Bytecodes is how many bytecode instructions the block stands for; ≥ 0.
	Bytecodes int64 `json:"bytecodes" yaml:"bytecodes"`
}

// Call is a static (non-virtual) call.
type Call struct {
	Method string `json:"method" yaml:"method"`
	// Throws, when set, is the exception the caller throws once the call
	// (the exception's constructor) returns: a model's throw (Thrown).
	Throws *Thrown `json:"throws,omitempty" yaml:"throws,omitempty"`
	// Inline, when set, is the optimizing JIT's inlining decision at this
	// call site, as a recording saw it made (an imported model's): true
	// inlines the callee here whatever its size and the site's frequency,
	// false never does. Recursion, the inlining depth and the size of the
	// whole compilation still bound it, as they bound a compile command.
	// Absent, the JIT decides (after the compile commands).
	Inline *bool `json:"inline,omitempty" yaml:"inline,omitempty"`
	// EveryTrip marks a call that the real program's code makes on every
	// trip of its innermost enclosing loop going round again, or, outside
	// loops, on every call of its method that returns — whatever
	// probability the model gives it (an imported model's: the call sits
	// in code every such trip or path runs, classfile.LoopPaths and
	// Body.OnEveryPath). A HotSpot JIT drops a loop's back-edge poll while
	// such a call in it remains a call, or is inlined and makes such a
	// call itself: the call is a safepoint on every trip (C2's
	// IdealLoopTree::check_safepts).
	EveryTrip bool `json:"every_trip,omitempty" yaml:"every_trip,omitempty"`
}

// Thrown is an exception a model imported from a recording throws after
// the call that constructed it, caught Depth (≥ 1) frames up, standing for
// Times (> 0) exceptions a call on average. The model keeps the flow its
// recording was fitted to: the frames the exception would unwind go on as
// the samples have them, and the throw costs nothing of its own (its time
// is in the samples). What it does to compiled code is simulated: while
// catch deoptimization is on (sim.VM.SetCatchDeopt, a JVMTI agent holding
// exception events) the compiled frames the exception would enter from a
// callee deoptimize, and the frame that would catch it goes on
// interpreted until it returns.
type Thrown struct {
	Depth int     `json:"depth" yaml:"depth"`
	Times float64 `json:"times" yaml:"times"`
}

// VirtualCall dispatches to one of several receivers, drawn per call with
// the given relative weights.
type VirtualCall struct {
	Receivers map[string]float64 `json:"receivers" yaml:"receivers"`
	// Inline gives receivers the JIT's inlining decision at this site, as
	// Call.Inline does: true inlines that receiver here (behind its type
	// check) whatever its share of the site's calls, false never does. A
	// receiver it does not name is the JIT's to decide.
	Inline map[string]bool `json:"inline,omitempty" yaml:"inline,omitempty"`
	// ByCaller gives the receivers' weights by the method that called
	// this one (its frame's caller, inlined or not), each a map of the
	// site's receivers to weights ≥ 0 (a receiver left out: 0): a site
	// whose receiver depends on who called its method. Any other caller,
	// and a thread's entry frame, draw from Receivers.
	ByCaller map[string]map[string]float64 `json:"by_caller,omitempty" yaml:"by_caller,omitempty"`
	// ByDepth gives the receivers' weights by the method's depth, as
	// Branch.ByDepth gives a probability; a caller ByCaller names comes
	// first.
	ByDepth []map[string]float64 `json:"by_depth,omitempty" yaml:"by_depth,omitempty"`
	// EveryTrip is Call.EveryTrip: the site is a safepoint on every trip
	// of its loop while a receiver's call remains.
	EveryTrip bool `json:"every_trip,omitempty" yaml:"every_trip,omitempty"`
}

// Loop repeats Body Trips times, Trips drawn once per loop entry.
type Loop struct {
	// Trips must be bounded: a constant or a uniform range of integers.
	Trips *Dist  `json:"trips" yaml:"trips"`
	Body  []Stmt `json:"body" yaml:"body"`
	// Uncounted marks a loop a HotSpot JIT does not treat as counted
	// (its exit test is not an int induction variable against a limit:
	// walking a list, a tree, a while (true)): its back edge keeps its
	// safepoint poll once compiled. Every other loop is counted.
	Uncounted bool `json:"uncounted,omitempty" yaml:"uncounted,omitempty"`
	// RuntimeBound marks a counted loop whose start or limit is computed
	// at run time (i < n, i < a.length, i = offset): a HotSpot JIT sees
	// no bound on its trips, whatever constant Trips gives (the mean an
	// import fitted), and strip-mines it. Without it a constant Trips
	// stands for literals the JIT sees (for (i = 0; i < 100; i++)), and
	// a short loop loses its poll.
	RuntimeBound bool `json:"runtime_bound,omitempty" yaml:"runtime_bound,omitempty"`
}

// Branch runs Then with the given probability, otherwise Else.
type Branch struct {
	Probability float64 `json:"probability" yaml:"probability"`
	// ByCaller gives the probability by the method that called this one
	// (its frame's caller, inlined or not): a method whose path depends
	// on who called it, as one fitted to a recording's calling contexts
	// does. A caller it does not name, and a thread's entry frame, take
	// Probability.
	ByCaller map[string]float64 `json:"by_caller,omitempty" yaml:"by_caller,omitempty"`
	// ByDepth gives the probability by how many frames of this method
	// the thread's stack holds, this one included: ByDepth[d-1] at depth
	// d, the last entry deeper: a recursion that behaves otherwise at
	// each depth. The method needs a recursion_limit (the simulator
	// counts the frames of such methods alone). A caller ByCaller names
	// comes first.
	ByDepth []float64 `json:"by_depth,omitempty" yaml:"by_depth,omitempty"`
	Then    []Stmt    `json:"then,omitempty" yaml:"then,omitempty"`
	Else    []Stmt    `json:"else,omitempty" yaml:"else,omitempty"`
}

// Alloc allocates Bytes (> 0) on the heap.
type Alloc struct {
	Bytes int64 `json:"bytes" yaml:"bytes"`
}

// Block kinds.
const (
	BlockIO    = "io"    // blocking I/O for Duration
	BlockSleep = "sleep" // Thread.sleep for Duration
	BlockLock  = "lock"  // synchronized (Lock) { Body }
)

// Block takes the thread off its CPU: I/O or sleep for Duration, or a
// synchronized region on the monitor named Lock, whose Body runs while the
// monitor is held (contended monitors queue their waiters FIFO).
type Block struct {
	Kind     string `json:"kind" yaml:"kind"`
	Duration *Dist  `json:"duration,omitempty" yaml:"duration,omitempty"`
	Lock     string `json:"lock,omitempty" yaml:"lock,omitempty"`
	Body     []Stmt `json:"body,omitempty" yaml:"body,omitempty"`
}

// Native runs Cycles (> 0) of native code: no bytecodes, no polls.
type Native struct {
	Cycles int64 `json:"cycles" yaml:"cycles"`
}

// Stub runs Cycles (> 0) in one of the VM's stubs that compiled code calls
// without leaving Java (StubRoutines: arraycopy, Math.pow and the other
// intrinsics HotSpot compiles to a call, stubRoutines.hpp): the thread
// stays _thread_in_Java, the stub has no poll and no debug information,
// and its time is the calling method's. Name says which stub (optional,
// for listings). JFR's execution sampler cannot walk a thread whose pc is
// in a stub (JfrGetCallTrace::find_top_frame gives up at a stub frame),
// so a recording has none of that time (docs/MODEL.md).
type Stub struct {
	Cycles int64  `json:"cycles" yaml:"cycles"`
	Name   string `json:"name,omitempty" yaml:"name,omitempty"`
}

// Spawn starts Count new threads running Entry, like Thread.start(): in
// [1, MaxCount], 1 when a file omits it. With Join the spawning thread then
// waits until all of them have finished.
type Spawn struct {
	Name   string `json:"name" yaml:"name"`
	Entry  string `json:"entry" yaml:"entry"`
	Count  int    `json:"count,omitempty" yaml:"count,omitempty"`
	Daemon bool   `json:"daemon,omitempty" yaml:"daemon,omitempty"`
	Join   bool   `json:"join,omitempty" yaml:"join,omitempty"`
}

// Throw raises an exception caught Depth frames up: 0 catches it in the
// current method (the rest of the enclosing statement list is skipped, like
// a try block around it); d ≥ 1 unwinds d frames and resumes the d-th caller
// after its call. An exception that unwinds past the thread's entry method
// ends the thread (recorded, not hidden).
type Throw struct {
	Depth int `json:"depth" yaml:"depth"`
}

// Walk calls f on every statement of body and of the bodies nested in
// it — loop bodies, both arms of a branch, a lock block's body — in source
// order, a statement before the statements inside it. f may change the
// statement it is given.
func Walk(body []Stmt, f func(*Stmt)) {
	for i := range body {
		s := &body[i]
		f(s)
		switch {
		case s.Loop != nil:
			Walk(s.Loop.Body, f)
		case s.Branch != nil:
			Walk(s.Branch.Then, f)
			Walk(s.Branch.Else, f)
		case s.Block != nil:
			Walk(s.Block.Body, f)
		}
	}
}

// ParseMethodRef splits a reference "Class.name" or "Class.name(sig)" into
// its name part and signature ("" when absent).
func ParseMethodRef(ref string) (name, sig string) {
	if i := strings.IndexByte(ref, '('); i >= 0 {
		return ref[:i], ref[i:]
	}
	return ref, ""
}

// Resolver maps method references to method indices.
type Resolver struct {
	byKey  map[string]int   // "Class.name(sig)"
	byName map[string][]int // "Class.name" → overloads
}

// NewResolver indexes p's methods. Duplicate keys are left for Validate to
// report; the first one wins here.
func NewResolver(p *Program) *Resolver {
	r := &Resolver{byKey: map[string]int{}, byName: map[string][]int{}}
	for i := range p.Methods {
		m := &p.Methods[i]
		if _, dup := r.byKey[m.Key()]; !dup {
			r.byKey[m.Key()] = i
		}
		r.byName[m.FullName()] = append(r.byName[m.FullName()], i)
	}
	return r
}

// Resolve finds the method a reference names. "Class.name" must be
// unambiguous; overloads need the signature.
func (r *Resolver) Resolve(ref string) (int, error) {
	name, sig := ParseMethodRef(ref)
	if sig != "" {
		if i, ok := r.byKey[name+sig]; ok {
			return i, nil
		}
		return -1, fmt.Errorf("unknown method %q", ref)
	}
	switch c := r.byName[name]; len(c) {
	case 0:
		return -1, fmt.Errorf("unknown method %q", ref)
	case 1:
		return c[0], nil
	default:
		return -1, fmt.Errorf("ambiguous method %q: %d overloads, add the signature", ref, len(c))
	}
}

// Overloaded reports whether more than one method shares m's "Class.name".
func (r *Resolver) Overloaded(m *Method) bool { return len(r.byName[m.FullName()]) > 1 }

// DisplayName is the name profiles show, as Java shows a method:
// "pkg.Class.name", with the JVM descriptor appended when the name is
// overloaded ("pkg.Class.name(Ljava/lang/String;I)V").
func (r *Resolver) DisplayName(m *Method) string {
	if r.Overloaded(m) {
		return m.Key()
	}
	return m.FullName()
}
