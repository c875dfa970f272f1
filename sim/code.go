package sim

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/profsim/profsim/program"
)

// Op is an instruction of the flattened code the executor runs.
type Op uint8

// Instruction set. Each source statement becomes one instruction, except
// loops (Enter … Back), branches (Branch … Jump …) and lock blocks
// (MonitorEnter … MonitorExit); every method ends with Return.
const (
	OpWork         Op = iota // Cost ns, Bytecodes
	OpNative                 // Cost ns, no bytecodes, no polls
	OpCall                   // A: callee method, B: call-edge id
	OpVirtualCall            // A: vtable index, B: first call-edge id (+ receiver index), C: receivers
	OpLoopEnter              // A: counter slot, B: trips dist index, C: pc after the loop
	OpLoopBack               // A: counter slot, B: body start pc (a back-edge)
	OpBranch                 // A: else pc; Cycles: threshold (Bytecodes: 1 = always); B: 1 + its thresholds by caller, 0 for none
	OpJump                   // A: target pc
	OpAlloc                  // Cycles: bytes, Cost: allocation cost ns
	OpBlock                  // A: duration dist index, B: block kind
	OpMonitorEnter           // A: lock id
	OpMonitorExit            // A: lock id
	OpSpawn                  // A: spawn spec index
	OpThrow                  // A: depth, B: pc ending the enclosing statement list
	OpReturn                 // end of method
	OpService                // a service thread's current job (no CCT attribution)
	OpCount                  // instrumentation: Bytecodes to count down, Cycles of its own cost, C: code size; FlagCheck checks the counter
	OpThrown                 // a model's throw after the call before it (program.Thrown), A: index into Image.thrown; no cost, no statement
	OpStub                   // Cost ns in a VM stub (program.Stub): no bytecodes, no polls, the same cost in every tier
)

var opNames = [...]string{"work", "native", "call", "virtual_call", "loop_enter", "loop_back",
	"branch", "jump", "alloc", "block", "monitor_enter", "monitor_exit", "spawn", "throw", "return", "service", "count", "thrown", "stub"}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", o)
}

// Instruction flags.
const (
	// FlagPoll marks a poll site (yield point) on LoopBack and Return: the
	// place where a thread can stop for a safepoint.
	FlagPoll uint8 = 1 << iota
	// FlagPureLoop marks a LoopEnter whose body is only Work: the executor
	// fast-forwards whole iterations arithmetically.
	FlagPureLoop
	// FlagCheck marks an OpCount that runs a granularity check: the
	// bytecode-counter hook fires there when the counter is ≤ 0.
	FlagCheck
	// FlagCallLoop marks a LoopEnter whose body is only Work and static
	// calls: the executor fast-forwards whole iterations when every callee
	// runs straight-line code (fastForwardCalls checks the body again, so
	// a version that rewrites the body may keep the flag; instrumentation's
	// OpCounts, in the body or a callee, are fast-forwarded too).
	FlagCallLoop
	// FlagUncounted marks a LoopEnter whose loop is not a counted loop
	// (program.Loop.Uncounted): a HotSpot JIT keeps its back-edge poll.
	FlagUncounted
	// FlagRuntimeBound marks a LoopEnter whose counted loop is bounded
	// at run time (program.Loop.RuntimeBound): a HotSpot JIT does not
	// read its constant trip count as a literal bound.
	FlagRuntimeBound
	// FlagEveryTrip marks a Call or VirtualCall that every trip of its
	// innermost loop going round again makes in the real program
	// (program.Call.EveryTrip): a HotSpot JIT drops the loop's back-edge
	// poll while the call is not inlined.
	FlagEveryTrip
)

// A LoopBack without FlagPoll whose C (StripLength) is N > 0 is
// strip-mined: it polls after every N iterations counted from the loop's
// entry, and once more when the loop exits (after the last, partial
// strip), the way HotSpot's loop strip mining keeps counted loops
// preemptible (see stripPoll).

// Block kinds in Instr.B of OpBlock.
const (
	blockIO int32 = iota
	blockSleep
)

// Instr is one instruction. The meaning of A, B, C, Cycles and Bytecodes
// depends on Op (see the Op list); the accessors in instr.go name them per
// opcode (BranchElse, LoopBackTarget, StripLength, …) and NewBranch and
// NewCount build the instructions whose encoding is not plain.
type Instr struct {
	Op    Op
	Flags uint8
	// Line is the statement's ordinal in its method, counted from 1 in
	// source order: the "line number" profiles show and debug info uses.
	Line    int32
	A, B, C int32
	// IterStmts is how many statements one iteration executes (a pure
	// loop's OpLoopEnter, as IterCost). Here, in what would be padding,
	// it keeps an instruction at 64 bytes.
	IterStmts int32
	// Cycles is the statement's source cost (Work, Native) or its size
	// (Alloc bytes, Branch threshold); Cost is what this code version
	// charges in ns, after the cost model (tier, CPU speed) is applied.
	Cycles    int64
	Cost      int64
	Bytecodes int64
	// IterCost and IterBytecodes are a pure loop's cost per iteration,
	// back-edge included (OpLoopEnter with FlagPureLoop only).
	IterCost, IterBytecodes int64
}

// Tier is a code version's compilation tier.
type Tier uint8

// Tiers. The jit package moves methods between them; without it every
// method runs compiled.
const (
	Compiled Tier = iota
	Interpreted
)

func (t Tier) String() string {
	if t == Interpreted {
		return "interpreted"
	}
	return "compiled"
}

// Code is one executable version of a method: its instructions with the
// costs and poll sites of one tier. The jit package builds new versions
// (other tiers, inlined callees, other poll placements) and installs them:
// VM.Install for new activations (running frames keep their version),
// VM.ReplaceCode for on-stack replacement as well.
//
// What a call reads of its callee's version (VM.call, VM.runLeaf,
// VM.runStraight: the flags, Instrs, LoopSlots and the leaf summary but
// its allocation) is in its first 64 bytes, and a Code is 128 bytes, so
// that those are one cache line: on the context-rich stand-ins a callee's
// version has often left the cache since its last call.
type Code struct {
	Method int32
	// LoopSlots is the deepest loop nesting: the loop counters a frame needs.
	LoopSlots int32
	Tier      Tier
	// PollEntry adds a yield point in the prologue (Jikes-like flavour,
	// its interpreted tier included; HotSpot's interpreter has none).
	PollEntry bool
	// EpiloguePoll places the return poll in the callee, before its frame
	// is popped (Jikes-like epilogue yield point, interpreter); otherwise
	// the return poll runs after the pop and the thread is seen in the
	// caller at the call site (HotSpot compiled code).
	EpiloguePoll bool
	// Counting code keeps the VM's invocation and back-edge counters (the
	// interpreter's profiling, which drives compilation).
	Counting bool
	// Instrumented code counts bytecodes with OpCount instructions (per
	// basic block, Komorium-style) instead of per Work statement.
	Instrumented bool
	// Traps marks compiled code with out-of-line uncommon traps
	// (program.Method.Traps, set by jit's placeDebugInfo): past the last
	// marked statement of its body there is still a PcDesc, the first trap
	// call's after the return, which names the method's last statement.
	Traps  bool
	Instrs []Instr
	// leaf is set by UpdateLoopCosts when the version is a leaf VM.call
	// may run in one step (see leafRun).
	leaf leafRun
	// Inline, when non-nil, is parallel to Instrs: the versions a call at
	// that pc runs inlined (no call cost, no return poll). A static call has
	// at most one; a virtual call inlines a receiver only when the drawn
	// receiver is one of them (a guarded inline). Nil: no inlining.
	Inline [][]*Code
	// Debug, when non-nil, is parallel to Instrs and marks the statements
	// whose machine code ends in a PcDesc (jit's placeDebugInfo says which).
	// A record's scope chain is its path in the inlining tree: the
	// statement, its code version's call site in the caller, and so on up
	// to the compiled root. A sampler resolving an exact position through
	// debug information (samplers.ResolveDebugInfo) moves to the first
	// marked statement at or after it in code order, inlined bodies laid
	// out at their call sites. Nil means every statement is recorded
	// (DebugNonSafepoints, interpreted code).
	Debug []bool
	// Size is the bytecode size the JIT compiled for this version,
	// inlined callees included (0 for the base version).
	Size int64
}

// leafRun summarizes a code version of Work, Alloc and pure loops, then
// its Return: a call that nothing can stop before its end runs it in one
// step, without a frame or a dispatch per statement (VM.runLeaf).
// UpdateLoopCosts sets it from the instructions as they are then, as it
// sets the pure loops' IterCost; first and n tell a copy whose Instrs were
// replaced since, which is not summarized.
type leafRun struct {
	first *Instr // &Instrs[0]; nil: not a leaf run in one step
	// cost is the Work and Alloc statements' cost in ns (saturating), the
	// loops' iterations not included.
	cost     int64
	n        int32 // len(Instrs)
	loops    bool  // it has pure loops: their trips are the image's
	straight bool  // Work alone: VM.runStraight runs it inlined
	// allocBytes is what the Allocs take from the TLAB (read by
	// VM.runLeaf alone: past Code's first cache line).
	allocBytes int64
}

// summarizeLeaf returns c's leafRun: set when c is Work, Alloc and pure
// loops (a body of Work with no poll at its back-edge, not strip-mined,
// costing more than 0 an iteration), then a Return.
func summarizeLeaf(c *Code) leafRun {
	n := len(c.Instrs)
	if n == 0 || c.Instrs[n-1].Op != OpReturn {
		return leafRun{}
	}
	var lf leafRun
	for pc := 0; pc < n-1; pc++ {
		in := &c.Instrs[pc]
		switch in.Op {
		case OpWork, OpStub:
			lf.cost = addCost(lf.cost, in.Cost)
		case OpAlloc:
			lf.cost = addCost(lf.cost, in.Cost)
			lf.allocBytes = satAdd(lf.allocBytes, in.AllocBytes())
			if lf.allocBytes == math.MaxInt64 {
				return leafRun{}
			}
		case OpLoopEnter:
			bpc := int(in.LoopBackPC())
			if in.Flags&FlagPureLoop == 0 || in.IterCost <= 0 || bpc >= n-1 {
				return leafRun{}
			}
			back := &c.Instrs[bpc]
			if back.Op != OpLoopBack || back.Flags&FlagPoll != 0 || back.StripLength() != 0 || int(back.LoopBackTarget()) != pc+1 {
				return leafRun{}
			}
			for b := pc + 1; b < bpc; b++ {
				if c.Instrs[b].Op != OpWork {
					return leafRun{}
				}
			}
			lf.loops = true
			pc = bpc
		default:
			return leafRun{}
		}
	}
	if n > math.MaxInt32 {
		return leafRun{}
	}
	lf.first, lf.n = &c.Instrs[0], int32(n)
	lf.straight = !lf.loops && lf.allocBytes == 0
	for pc := 0; pc < n-1; pc++ {
		lf.straight = lf.straight && c.Instrs[pc].Op == OpWork
	}
	return lf
}

// inlined returns the version a call to callee at pc runs inlined, or nil.
func (c *Code) inlined(pc int32, callee int32) *Code {
	if c.Inline == nil {
		return nil
	}
	for _, v := range c.Inline[pc] {
		if v.Method == callee {
			return v
		}
	}
	return nil
}

// CostModel turns source cycles into simulated nanoseconds. The jit package
// varies it per tier; the CPU speed scales everything (Binder's "results
// independent of processor speed" needs a way to change it).
type CostModel struct {
	// InterpFactor multiplies Work costs in interpreted code (≥ 1).
	InterpFactor int64 `key:"interp_factor" check:"1..1000" doc:"interpreted code runs Work this many times slower" src:"10 (the reproductions' value, unmeasured); --vm hotspot17: 8, measured by tools/calibrate (OpenJDK 17's -Xint over C2 on four loop kernels, geometric mean)"`
	// CallCycles is the cost of a non-inlined call, charged to the caller.
	CallCycles int64 `key:"call_cycles" check:"0..1_000_000_000" unit:"cycles" doc:"cost of a non-inlined call, charged to the caller" src:"our choice (a direct call and frame set-up)"`
	// PollCycles is the cost of one executed poll (yield point).
	PollCycles int64 `key:"poll_cycles" check:"0..1_000_000_000" unit:"cycles" doc:"cost of one executed poll (yield point)" src:"our choice (HotSpot's poll: one load of the polling page)"`
	// AllocCycles is the cost of one allocation (a TLAB bump).
	AllocCycles int64 `key:"alloc_cycles" check:"0..1_000_000_000" unit:"cycles" doc:"cost of one allocation (a TLAB bump and header set-up)" src:"our choice"`
	// ThrowCycles is the cost of raising an exception, plus
	// UnwindCycles per frame unwound.
	ThrowCycles int64 `key:"throw_cycles" check:"0..1_000_000_000" unit:"cycles" doc:"cost of raising an exception" src:"our choice (stack-trace filling dominates)"`
	// UnwindCycles is the cost per frame an exception unwinds.
	UnwindCycles int64 `key:"unwind_cycles" check:"0..1_000_000_000" unit:"cycles" doc:"cost per frame an exception unwinds" src:"our choice"`
	// MonitorCycles is the cost of an uncontended monitor enter or exit.
	MonitorCycles int64 `key:"monitor_cycles" check:"0..1_000_000_000" unit:"cycles" doc:"cost of an uncontended monitor enter or exit" src:"our choice (a CAS)"`
	// SpeedPercent is the simulated CPU speed relative to 1 GHz (100 =
	// 1 cycle per ns); > 0. As a setting it must divide
	// SpeedPercentBase, where every cost converts to ns exactly.
	SpeedPercent int64 `key:"speed_percent" check:"divides:100" unit:"%" doc:"CPU speed relative to 1 GHz (100: one cycle per ns); a divisor of 100, where every cycle count converts to whole ns exactly" src:"our choice"`
}

// DefaultCostModel is the cost model profsim runs with unless told
// otherwise. The magnitudes are those of a modern JIT-compiled JVM: a call
// a few ns, a poll a fraction of one, interpretation ~10× slower.
func DefaultCostModel() CostModel {
	return CostModel{
		InterpFactor:  10,
		CallCycles:    4,
		PollCycles:    1,
		AllocCycles:   20,
		ThrowCycles:   1000,
		UnwindCycles:  100,
		MonitorCycles: 20,
		SpeedPercent:  100,
	}
}

// Validate reports a cost model that would make time stand still or run
// backwards.
func (c CostModel) Validate() error {
	switch {
	case c.InterpFactor < 1:
		return fmt.Errorf("cost.interp_factor: %d must be ≥ 1", c.InterpFactor)
	case c.SpeedPercent <= 0:
		return fmt.Errorf("cost.speed_percent: %d must be > 0", c.SpeedPercent)
	case c.InterpFactor > MaxInterpFactor:
		return fmt.Errorf("cost.interp_factor: %d must be ≤ %d", c.InterpFactor, MaxInterpFactor)
	}
	for _, f := range []struct {
		name   string
		cycles int64
	}{{"call_cycles", c.CallCycles}, {"poll_cycles", c.PollCycles}, {"alloc_cycles", c.AllocCycles},
		{"throw_cycles", c.ThrowCycles}, {"unwind_cycles", c.UnwindCycles}, {"monitor_cycles", c.MonitorCycles}} {
		if f.cycles < 0 || f.cycles > MaxCostCycles {
			return fmt.Errorf("cost.%s: %d must be in [0, 10^9]", f.name, f.cycles)
		}
	}
	return nil
}

// Nanos converts cycles to ns at the model's CPU speed, rounding up so that
// no positive cost becomes free.
func (c CostModel) Nanos(cycles int64) int64 {
	if c.SpeedPercent == SpeedPercentBase || cycles == 0 {
		return cycles
	}
	return (cycles*SpeedPercentBase + c.SpeedPercent - 1) / c.SpeedPercent
}

// spawnSpec is a resolved program.Spawn.
type spawnSpec struct {
	name   string
	entry  int32
	count  int
	daemon bool
	join   bool
}

// vtable is a virtual call site's receivers with cumulative weights.
type vtable struct {
	methods []int32
	cum     []float64 // cumulative weights; last = total
	// cond: byCaller or byDepth is set, so a draw asks who called.
	cond bool
	// byCaller are the cumulative weights where the frame's caller runs
	// a method the site names (program.VirtualCall.ByCaller), by caller;
	// byDepth those by the depth of the frame's method ([d-1] at depth d,
	// the last deeper; program.VirtualCall.ByDepth).
	byCaller []callerWeights
	byDepth  [][]float64
}

// callerWeights are a virtual call's cumulative receiver weights where
// its frame's caller runs method caller.
type callerWeights struct {
	caller int32
	cum    []float64
}

// drawFrom is the cumulative weights a call of vt draws from when its
// frame's caller runs method caller (-1: none) and its method has depth
// frames on the stack (0: not counted).
func (vt *vtable) drawFrom(caller, depth int32) []float64 {
	for i := range vt.byCaller {
		if c := &vt.byCaller[i]; c.caller == caller {
			return c.cum
		} else if c.caller > caller {
			break
		}
	}
	if n := int32(len(vt.byDepth)); n > 0 && depth > 0 {
		return vt.byDepth[min(depth, n)-1]
	}
	return vt.cum
}

// CallEdge is a static call edge: caller method, call site line, callee.
type CallEdge struct {
	Caller, Callee int32
	Line           int32
	// Inline is the site's inlining decision for this callee
	// (program.Call.Inline, program.VirtualCall.Inline).
	Inline SiteInline
}

// SiteInline is a call site's inlining decision for one callee.
type SiteInline int8

const (
	InlineByJIT  SiteInline = iota // the JIT decides
	InlineAlways                   // inline here whatever the callee's size and the site's frequency
	InlineNever                    // never inline here
)

// siteInline is the SiteInline of an optional decision.
func siteInline(b *bool) SiteInline {
	switch {
	case b == nil:
		return InlineByJIT
	case *b:
		return InlineAlways
	default:
		return InlineNever
	}
}

// Image is a program prepared for execution: resolved references, interned
// names, call edges and the base code version of every method.
type Image struct {
	Prog    *program.Program
	Names   []string // display name per method
	Methods []*program.Method
	// Base is each method's code as first installed (compiled tier,
	// HotSpot-like polls at returns and back-edges, no inlining).
	Base    []*Code
	Edges   []CallEdge
	Locks   []string
	dists   []*program.Dist
	vtables []vtable
	spawns  []spawnSpec
	thrown  []program.Thrown // OpThrown's operands
	// conds holds the OpBranch thresholds by caller and by depth
	// (program.Branch.ByCaller, ByDepth): an OpBranch whose B is k > 0
	// reads conds[k-1].
	conds     []branchConds
	limits    []int32 // recursion limit per method, 0 = none
	entries   []int32 // entry method per program thread spec
	lockIndex map[string]int32

	// limitSlot numbers the methods with a recursion limit (-1: none),
	// indexing a thread's active-frame counts; limited is their number.
	limitSlot []int32
	limited   int
}

// lineCounts is, per method, the line slots the ground truth keeps for
// one of its calling contexts: the base code's highest line + 1 (other
// versions keep the base's lines; VM.Install checks).
func (img *Image) lineCounts() []int32 {
	out := make([]int32, len(img.Base))
	for i, c := range img.Base {
		out[i] = methodLines(c)
	}
	return out
}

// Receivers returns the methods the virtual call in can dispatch to, in
// call-edge order (edge in.ReceiverEdge(i) is receiver i's).
func (img *Image) Receivers(in *Instr) []int32 { return img.vtables[in.vtable()].methods }

// LoopTrips returns the trip-count distribution of the loop the OpLoopEnter
// in starts.
func (img *Image) LoopTrips(in *Instr) *program.Dist { return img.dists[in.tripsDist()] }

// LiteralTrips returns the trip count a compiler sees in the loop the
// OpLoopEnter in starts: its constant trip count, unless the loop is
// bounded at run time (FlagRuntimeBound) or its trips are drawn; ok is
// false where it sees none.
func (img *Image) LiteralTrips(in *Instr) (n int64, ok bool) {
	d := img.LoopTrips(in)
	if d.Kind != program.Constant || in.Flags&FlagRuntimeBound != 0 {
		return 0, false
	}
	return d.A, true
}

// NewImage resolves and flattens a program, validating it unless Validate
// already found it valid.
func NewImage(p *program.Program, cost CostModel) (*Image, error) {
	if err := p.EnsureValid(); err != nil {
		return nil, err
	}
	if err := cost.Validate(); err != nil {
		return nil, err
	}
	res := program.NewResolver(p)
	img := &Image{Prog: p, lockIndex: map[string]int32{}}
	for i := range p.Methods {
		m := &p.Methods[i]
		img.Methods = append(img.Methods, m)
		img.Names = append(img.Names, res.DisplayName(m))
		img.limits = append(img.limits, int32(m.RecursionLimit))
		slot := int32(-1)
		if m.RecursionLimit > 0 {
			slot = int32(img.limited)
			img.limited++
		}
		img.limitSlot = append(img.limitSlot, slot)
	}
	fl := &flattener{img: img, res: res, cost: cost}
	for i := range p.Methods {
		fl.methodID, fl.line, fl.depth = int32(i), 0, 0
		c, err := fl.method(&p.Methods[i])
		if err != nil {
			return nil, fmt.Errorf("methods[%d]: %w", i, err)
		}
		img.Base = append(img.Base, c)
	}
	for i := range p.Threads {
		e, err := res.Resolve(p.Threads[i].Entry)
		if err != nil {
			return nil, fmt.Errorf("threads[%d].entry: %w", i, err)
		}
		img.entries = append(img.entries, int32(e))
	}
	return img, nil
}

// Recost returns a copy of c whose costs follow model m and tier t: what a
// JIT does when it (re)compiles a method.
func Recost(c *Code, m CostModel, t Tier) *Code {
	n := *c
	n.Tier = t
	n.Instrs = append([]Instr(nil), c.Instrs...)
	factor := int64(1)
	if t == Interpreted {
		factor = m.InterpFactor
	}
	for i := range n.Instrs {
		in := &n.Instrs[i]
		switch in.Op {
		case OpWork:
			in.Cost = m.Nanos(in.Cycles * factor)
		case OpNative, OpStub:
			in.Cost = m.Nanos(in.Cycles)
		case OpAlloc:
			in.Cost = m.Nanos(m.AllocCycles)
		case OpCount:
			in.Cost = m.Nanos(in.Cycles * factor)
		}
	}
	UpdateLoopCosts(&n, m)
	return &n
}

// UpdateLoopCosts recomputes the per-iteration cost of pure loops, which
// fast-forwarding charges: call it after changing a version's polls.
func UpdateLoopCosts(c *Code, m CostModel) {
	for i := range c.Instrs {
		if c.Instrs[i].Op == OpLoopEnter && c.Instrs[i].Flags&FlagPureLoop != 0 {
			setIterCost(c, i, m)
		}
	}
	c.leaf = summarizeLeaf(c)
}

// setIterCost precomputes a pure loop's per-iteration cost.
func setIterCost(c *Code, enter int, m CostModel) {
	in := &c.Instrs[enter]
	back := &c.Instrs[in.LoopBackPC()]
	var cost, bc int64
	for pc := enter + 1; pc < int(in.LoopBackPC()); pc++ {
		cost = satAdd(cost, c.Instrs[pc].Cost) // a body of huge statements: never fast-forwarded
		bc += c.Instrs[pc].Bytecodes
	}
	if back.Flags&FlagPoll != 0 {
		cost = satAdd(cost, m.Nanos(m.PollCycles))
	}
	in.IterCost, in.IterBytecodes, in.IterStmts = cost, bc, in.LoopBackPC()-int32(enter)-1
}

type flattener struct {
	img      *Image
	res      *program.Resolver
	methodID int32
	cost     CostModel
	code     *Code
	line     int32
	depth    int32
	// scratch is the instructions' buffer, reused from method to method:
	// Recost copies a method's to their exact size.
	scratch []Instr
}

func (f *flattener) emit(in Instr) int32 {
	f.code.Instrs = append(f.code.Instrs, in)
	return int32(len(f.code.Instrs) - 1)
}

func (f *flattener) pc() int32 { return int32(len(f.code.Instrs)) }

// branchThreshold is an OpBranch's threshold as NewBranch makes it.
type branchThreshold struct {
	always    bool
	threshold int64
}

func newBranchThreshold(p float64) branchThreshold {
	in := NewBranch(0, p, 0)
	return branchThreshold{always: in.BranchAlways(), threshold: in.BranchThreshold()}
}

// callerBranch is an OpBranch's threshold where its frame's caller runs
// method caller.
type callerBranch struct {
	caller int32
	branchThreshold
}

// branchConds are an OpBranch's thresholds by caller, ordered by caller,
// and by the depth of its method ([d-1] at depth d, the last deeper).
type branchConds struct {
	callers []callerBranch
	depths  []branchThreshold
}

// branchConds resolves a branch's probabilities by caller and by depth.
func (f *flattener) branchConds(b *program.Branch) (branchConds, error) {
	var out branchConds
	for ref, p := range b.ByCaller {
		i, err := f.res.Resolve(ref)
		if err != nil {
			return out, err
		}
		out.callers = append(out.callers, callerBranch{caller: int32(i), branchThreshold: newBranchThreshold(p)})
	}
	slices.SortFunc(out.callers, func(a, b callerBranch) int { return cmp.Compare(a.caller, b.caller) })
	for _, p := range b.ByDepth {
		out.depths = append(out.depths, newBranchThreshold(p))
	}
	return out, nil
}

// method flattens m into the flattener's scratch buffer, which the next
// method reuses: the Code it returns must own its instructions, as
// Recost's copy does (never return f.code itself).
func (f *flattener) method(m *program.Method) (*Code, error) {
	f.code = &Code{Method: f.methodID, Tier: Compiled, Instrs: f.scratch[:0]}
	defer func() { f.scratch = f.code.Instrs }()
	var throws []int32
	if err := f.list(m.Body, &throws); err != nil {
		return nil, err
	}
	ret := f.emit(Instr{Op: OpReturn, Flags: FlagPoll, Line: f.line + 1})
	f.patchThrows(throws, ret)
	return Recost(f.code, f.cost, Compiled), nil
}

func (f *flattener) patchThrows(throws []int32, end int32) {
	for _, pc := range throws {
		f.code.Instrs[pc].SetTarget(end)
	}
}

// list flattens a statement list; throws collects depth-0 throws whose
// "end of the enclosing list" the caller patches.
func (f *flattener) list(body []program.Stmt, throws *[]int32) error {
	for i := range body {
		if err := f.stmt(&body[i], throws); err != nil {
			return err
		}
	}
	return nil
}

func (f *flattener) callee(ref string) (int32, error) {
	i, err := f.res.Resolve(ref)
	return int32(i), err
}

func (f *flattener) edge(callee int32, line int32, inline SiteInline) int32 {
	f.img.Edges = append(f.img.Edges, CallEdge{Caller: f.methodID, Callee: callee, Line: line, Inline: inline})
	return int32(len(f.img.Edges) - 1)
}

func (f *flattener) stmt(s *program.Stmt, throws *[]int32) error {
	f.line++
	line := f.line
	switch {
	case s.Work != nil:
		f.emit(Instr{Op: OpWork, Line: line, Cycles: s.Work.Cycles, Bytecodes: s.Work.Bytecodes})
	case s.Native != nil:
		f.emit(Instr{Op: OpNative, Line: line, Cycles: s.Native.Cycles})
	case s.Stub != nil:
		f.emit(Instr{Op: OpStub, Line: line, Cycles: s.Stub.Cycles})
	case s.Call != nil:
		c, err := f.callee(s.Call.Method)
		if err != nil {
			return err
		}
		in := Instr{Op: OpCall, Line: line, A: c, B: f.edge(c, line, siteInline(s.Call.Inline))}
		if s.Call.EveryTrip {
			in.Flags |= FlagEveryTrip
		}
		f.emit(in)
		if s.Call.Throws != nil {
			f.img.thrown = append(f.img.thrown, *s.Call.Throws)
			f.emit(Instr{Op: OpThrown, Line: line, A: int32(len(f.img.thrown) - 1)})
		}
	case s.VirtualCall != nil:
		vt := vtable{}
		total := 0.0
		first := int32(-1)
		for _, ref := range s.VirtualCall.SortedReceivers() {
			c, err := f.callee(ref)
			if err != nil {
				return err
			}
			total += s.VirtualCall.Receivers[ref]
			vt.methods = append(vt.methods, c)
			vt.cum = append(vt.cum, total)
			var decided *bool
			if b, ok := s.VirtualCall.Inline[ref]; ok {
				decided = &b
			}
			if e := f.edge(c, line, siteInline(decided)); first < 0 {
				first = e
			}
		}
		for _, caller := range slices.Sorted(maps.Keys(s.VirtualCall.ByCaller)) {
			c, err := f.res.Resolve(caller)
			if err != nil {
				return err
			}
			ws := s.VirtualCall.ByCaller[caller]
			cw := callerWeights{caller: int32(c)}
			sum := 0.0
			for _, ref := range s.VirtualCall.SortedReceivers() {
				sum += ws[ref]
				cw.cum = append(cw.cum, sum)
			}
			vt.byCaller = append(vt.byCaller, cw)
		}
		slices.SortFunc(vt.byCaller, func(a, b callerWeights) int { return cmp.Compare(a.caller, b.caller) })
		for _, ws := range s.VirtualCall.ByDepth {
			var cum []float64
			sum := 0.0
			for _, ref := range s.VirtualCall.SortedReceivers() {
				sum += ws[ref]
				cum = append(cum, sum)
			}
			vt.byDepth = append(vt.byDepth, cum)
		}
		vt.cond = vt.byCaller != nil || vt.byDepth != nil
		f.img.vtables = append(f.img.vtables, vt)
		in := Instr{Op: OpVirtualCall, Line: line, A: int32(len(f.img.vtables) - 1), B: first, C: int32(len(vt.methods))}
		if s.VirtualCall.EveryTrip {
			in.Flags |= FlagEveryTrip
		}
		f.emit(in)
	case s.Loop != nil:
		f.img.dists = append(f.img.dists, s.Loop.Trips)
		slot := f.depth
		f.depth++
		if f.depth > f.code.LoopSlots {
			f.code.LoopSlots = f.depth
		}
		enter := f.emit(Instr{Op: OpLoopEnter, Line: line, A: slot, B: int32(len(f.img.dists) - 1)})
		if s.Loop.Uncounted {
			f.code.Instrs[enter].Flags |= FlagUncounted
		}
		if s.Loop.RuntimeBound {
			f.code.Instrs[enter].Flags |= FlagRuntimeBound
		}
		var inner []int32
		if err := f.list(s.Loop.Body, &inner); err != nil {
			return err
		}
		f.depth--
		back := f.emit(Instr{Op: OpLoopBack, Flags: FlagPoll, Line: line, A: slot, B: enter + 1})
		f.patchThrows(inner, back)
		f.code.Instrs[enter].SetTarget(back + 1)
		pure, calls := true, true
		for pc := enter + 1; pc < back; pc++ {
			switch f.code.Instrs[pc].Op {
			case OpWork:
			case OpCall, OpThrown:
				pure = false
			default:
				pure, calls = false, false
			}
		}
		if pure {
			f.code.Instrs[enter].Flags |= FlagPureLoop
		} else if calls {
			f.code.Instrs[enter].Flags |= FlagCallLoop
		}
	case s.Branch != nil:
		br := f.emit(NewBranch(line, s.Branch.Probability, 0)) // its else pc is set below
		if len(s.Branch.ByCaller)+len(s.Branch.ByDepth) > 0 {
			c, err := f.branchConds(s.Branch)
			if err != nil {
				return err
			}
			f.img.conds = append(f.img.conds, c)
			f.code.Instrs[br].B = int32(len(f.img.conds))
		}
		var inner []int32
		if err := f.list(s.Branch.Then, &inner); err != nil {
			return err
		}
		jmp := f.emit(Instr{Op: OpJump, Line: line})
		f.patchThrows(inner, jmp)
		f.code.Instrs[br].SetTarget(jmp + 1)
		inner = inner[:0]
		if err := f.list(s.Branch.Else, &inner); err != nil {
			return err
		}
		end := f.pc()
		f.code.Instrs[jmp].SetTarget(end)
		// A depth-0 throw in the else list skips to the end of the branch;
		// "end" may be the next statement, which is exactly right.
		f.patchThrows(inner, end)
	case s.Alloc != nil:
		f.emit(Instr{Op: OpAlloc, Line: line, Cycles: s.Alloc.Bytes})
	case s.Block != nil:
		b := s.Block
		if b.Kind == program.BlockLock {
			id, ok := f.img.lockIndex[b.Lock]
			if !ok {
				id = int32(len(f.img.Locks))
				f.img.lockIndex[b.Lock] = id
				f.img.Locks = append(f.img.Locks, b.Lock)
			}
			f.emit(Instr{Op: OpMonitorEnter, Line: line, A: id})
			var inner []int32
			if err := f.list(b.Body, &inner); err != nil {
				return err
			}
			exit := f.emit(Instr{Op: OpMonitorExit, Line: line, A: id})
			f.patchThrows(inner, exit)
			break
		}
		kind := blockIO
		if b.Kind == program.BlockSleep {
			kind = blockSleep
		}
		f.img.dists = append(f.img.dists, b.Duration)
		f.emit(Instr{Op: OpBlock, Line: line, A: int32(len(f.img.dists) - 1), B: kind})
	case s.Spawn != nil:
		c, err := f.callee(s.Spawn.Entry)
		if err != nil {
			return err
		}
		n := s.Spawn.Count
		if n == 0 {
			n = 1
		}
		f.img.spawns = append(f.img.spawns, spawnSpec{name: s.Spawn.Name, entry: c, count: n, daemon: s.Spawn.Daemon, join: s.Spawn.Join})
		f.emit(Instr{Op: OpSpawn, Line: line, A: int32(len(f.img.spawns) - 1)})
	case s.Throw != nil:
		pc := f.emit(Instr{Op: OpThrow, Line: line, A: int32(s.Throw.Depth)})
		if s.Throw.Depth == 0 {
			*throws = append(*throws, pc)
		}
	default:
		return fmt.Errorf("line %d: empty statement", line)
	}
	return nil
}
