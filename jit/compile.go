package jit

import (
	"fmt"
	"math"

	"github.com/profsim/profsim/sim"
)

// MethodSize is a method's size in bytecodes as the inliner sees it: its
// basic blocks' bytecodes plus a few bytes per call, branch, loop and
// runtime operation (the javac encodings' typical sizes).
func MethodSize(c *sim.Code) int64 {
	var n int64
	for _, in := range c.Instrs {
		switch in.Op {
		case sim.OpWork:
			n += in.Bytecodes
		case sim.OpCall, sim.OpVirtualCall, sim.OpNative, sim.OpBlock, sim.OpSpawn, sim.OpAlloc, sim.OpStub:
			n += 3
		case sim.OpLoopEnter, sim.OpBranch, sim.OpLoopBack:
			n += 3
		case sim.OpMonitorEnter, sim.OpMonitorExit, sim.OpThrow, sim.OpReturn:
			n++
		case sim.OpCount:
			n += int64(in.CountCodeSize()) // instrumentation code (Instrumentation.CountBytes, CheckBytes)
		}
	}
	return n
}

// compile builds the compiled version of method m with its inlining tree,
// from the call-site profile gathered so far.
func (j *JIT) compile(m int32) *sim.Code {
	return j.compileNode(m, []int32{m}, false)
}

// DesiredMethodLimit bounds the bytecodes of a HotSpot compilation's
// inlining tree: C2's InlineTree::try_to_inline (opto/bytecodeInfo.cpp,
// OpenJDK 17) refuses a callee ("size > DesiredMethodLimit") when the
// caller's count_inline_bcs() — the caller's own bytecodes plus those of
// every callee inlined below it so far — plus the callee's size reaches
// DesiredMethodLimit, with ClipInlining on. Both are HotSpot's defaults
// (runtime/globals.hpp: ClipInlining true, product; DesiredMethodLimit
// 8000, a develop flag that product builds cannot change). Without it one
// compilation of a method with many hot call sites grew to 64857
// bytecodes on the antlr-real model, 1.4 s of C2's time at
// compile_nanos_per_bytecode 21000, and the methods queued behind it were
// never compiled. Accessors, which C2 inlines before this check, are not
// told apart: the model has no accessor methods. The Jikes flavour keeps
// its own inliner without this bound.
const DesiredMethodLimit = 8000

// compileNode compiles method m as the root (inlined false) or as an
// inlined callee at the end of path.
func (j *JIT) compileNode(m int32, path []int32, inlined bool) *sim.Code {
	base := j.img.Base[m]
	if p := j.cfg.UnitProbes; p != nil && !inlined {
		// A compiled unit's root: its probes, after inlining (Attach
		// refused a base that InsertProbes refuses).
		probed, err := InsertProbes(base, *p)
		if err != nil {
			panic(fmt.Sprintf("jit: unit probes of %s: %v", j.img.Names[m], err))
		}
		base = probed
	}
	c := sim.Recost(base, j.vm.Config().Cost, sim.Compiled)
	c.Size = j.sizes[m]
	if j.cfg.Flavour == Jikes {
		c.PollEntry, c.EpiloguePoll = true, true
	}
	if j.cfg.Inline && len(path) <= j.cfg.MaxInlineLevel {
		for pc := range c.Instrs {
			in := &c.Instrs[pc]
			var targets []int32
			switch in.Op {
			case sim.OpCall:
				if j.shouldInline(in.Callee(), path, int(in.CallEdge())) {
					targets = append(targets, in.Callee())
				}
			case sim.OpVirtualCall:
				targets = j.virtualTargets(in, path)
			}
			for _, callee := range targets {
				if j.cfg.Flavour == HotSpot && c.Size+j.sizes[callee] >= DesiredMethodLimit {
					continue // C2: "size > DesiredMethodLimit"
				}
				if c.Inline == nil {
					c.Inline = make([][]*sim.Code, len(c.Instrs))
				}
				child := j.compileNode(callee, append(append([]int32(nil), path...), callee), true)
				c.Inline[pc] = append(c.Inline[pc], child)
				c.Size += child.Size
			}
		}
	}
	j.placePolls(c)
	sim.UpdateLoopCosts(c, j.vm.Config().Cost)
	j.placeDebugInfo(c)
	return c
}

// MaxTrivialSize is C2's MaxTrivialSize (opto/c2_globals.hpp, 6 in
// HotSpot 17 and 25): InlineTree::should_not_inline raises no
// frequency-based objection (MinCallRatio) to a callee this small.
const MaxTrivialSize = 6

// siteFreq is how many times call edge e ran per invocation of caller, the
// method whose code holds the site: C2's freq = call_site_count /
// invoke_count (opto/bytecodeInfo.cpp), the invocation count at least 1 (a
// thread's entry method is not counted on entry, and HotSpot asserts it is
// not 0).
func (j *JIT) siteFreq(caller int32, e int) float64 {
	inv := max(j.vm.Counter(caller, sim.InvocationCounter), 1)
	return float64(j.vm.EdgeCount(e)) / float64(inv)
}

// sizeLimit is the largest callee the inliner accepts at call edge e of
// method caller. With the VM's exact call-site counts it is HotSpot's
// rule: FreqInlineSize at a hot site, MaxInlineSize elsewhere; a site is
// hot when it ran ≥ HotCallCount times (HotSpot 17) or, with
// HotCallRatio > 0, ≥ HotCallRatio times per invocation of caller
// (HotSpot 25). With a
// sampled profile (SetProfile) it is Arnold & Grove's: the threshold grows
// linearly with the edge's share of the profile's weight, reaching
// FreqInlineSize at HotEdgeShare; the static MaxInlineSize still applies
// unless ProfileOverridesStatic, in which case an edge the profile never saw
// is not inlined at all (J9's dynamic heuristics).
func (j *JIT) sizeLimit(caller int32, e int) int64 {
	if j.profile == nil {
		hot := j.vm.EdgeCount(e) >= j.cfg.HotCallCount
		if j.cfg.HotCallRatio > 0 {
			hot = j.siteFreq(caller, e) >= j.cfg.HotCallRatio
		}
		if hot {
			return j.cfg.FreqInlineSize
		}
		return j.cfg.MaxInlineSize
	}
	var dynamic int64
	if total := j.profile.TotalWeight(); total > 0 {
		share := j.profile.EdgeWeight(e) / total
		if j.cfg.HotEdgeShare == 0 || share >= j.cfg.HotEdgeShare {
			dynamic = j.cfg.FreqInlineSize
		} else {
			dynamic = int64(float64(j.cfg.FreqInlineSize) * share / j.cfg.HotEdgeShare)
		}
	}
	if j.cfg.ProfileOverridesStatic {
		return dynamic
	}
	return max(dynamic, j.cfg.MaxInlineSize)
}

// edgeWeight is edge e's weight in the profile the inliner reads.
func (j *JIT) edgeWeight(e int) float64 {
	if j.profile != nil {
		return j.profile.EdgeWeight(e)
	}
	return float64(j.vm.EdgeCount(e))
}

// shouldInline accepts a callee at call edge e of the method at the end of
// path no larger than sizeLimit, on a path that holds it at most
// MaxRecursiveInlineLevel times already, and with MinCallRatio
// > 0 not at a low-frequency site. The site's own decision
// (sim.CallEdge.Inline: what a recording saw C2 decide there) comes
// first, then the compile commands, as in C2's
// InlineTree::should_inline and should_not_inline (opto/bytecodeInfo.cpp):
// a callee the inline command matches is inlined whatever its size
// ("force inline by CompileCommand"), even if dontinline or exclude also
// match it; otherwise one that dontinline or exclude matches is not
// ("disallowed by CompileCommand"). Recursion and MaxInlineLevel (checked
// by the caller) still bound forced inlining, as
// InlineTree::try_to_inline checks them after the filters.
func (j *JIT) shouldInline(callee int32, path []int32, e int) bool {
	level := 0
	for _, p := range path {
		if p == callee {
			level++
		}
	}
	if level > j.cfg.MaxRecursiveInlineLevel {
		return false // "recursive inlining is too deep"
	}
	switch {
	case j.img.Edges[e].Inline == sim.InlineAlways:
		return true
	case j.img.Edges[e].Inline == sim.InlineNever:
		return false
	case j.oracle.forceInline[callee]:
		return true
	case j.oracle.dontInline[callee] || j.oracle.exclude[callee]:
		return false
	}
	caller := path[len(path)-1]
	if j.sizes[callee] > j.sizeLimit(caller, e) {
		return false // "too big", "hot method too big"
	}
	// "low call site frequency": counts are used only with an interpreter
	// (not -Xcomp) and are the VM's own, not a sampled profile's.
	return j.cfg.MinCallRatio == 0 || !j.cfg.Tiered || j.profile != nil ||
		j.sizes[callee] <= MaxTrivialSize || j.siteFreq(caller, e) >= j.cfg.MinCallRatio
}

// virtualTargets picks the receivers a virtual call site inlines: the
// dominant one, or both of a bimorphic site, and those the site's own
// decisions name (sim.CallEdge.Inline), whatever their share.
func (j *JIT) virtualTargets(in *sim.Instr, path []int32) []int32 {
	methods := j.img.Receivers(in)
	var total float64
	counts := make([]float64, len(methods))
	seen := 0
	for r := range methods {
		counts[r] = j.edgeWeight(int(in.ReceiverEdge(int32(r))))
		total += counts[r]
		if counts[r] > 0 {
			seen++
		}
	}
	var out []int32
	for r, m := range methods {
		e := int(in.ReceiverEdge(int32(r)))
		switch j.img.Edges[e].Inline {
		case sim.InlineAlways:
			if j.shouldInline(m, path, e) {
				out = append(out, m)
			}
			continue
		case sim.InlineNever:
			continue
		}
		if total == 0 {
			continue
		}
		share := counts[r] / total
		if counts[r] > 0 && (share >= j.cfg.ReceiverDominance || seen == 2) && j.shouldInline(m, path, e) {
			out = append(out, m)
		}
	}
	return out
}

// placePolls removes the back-edge poll of counted loops (HotSpot): loops
// not marked uncounted (program.Loop.Uncounted: C2 counts only a loop
// whose exit test steps an int induction variable, PhaseIdealLoop::
// is_counted_loop) that are innermost and contain no call left after
// inlining, no allocation and no runtime call.
// With counted-loop safepoints such a loop is strip mined (stripLength).
func (j *JIT) placePolls(c *sim.Code) {
	for pc := range c.Instrs {
		in := &c.Instrs[pc]
		switch in.Op {
		case sim.OpReturn:
			in.Flags |= sim.FlagPoll
		case sim.OpLoopEnter:
			back := &c.Instrs[in.LoopBackPC()]
			back.Flags |= sim.FlagPoll
			back.SetStripLength(0)
			if j.cfg.Flavour == HotSpot && callsEveryTrip(c, int32(pc)+1, in.LoopBackPC()) {
				back.Flags &^= sim.FlagPoll
				continue
			}
			if j.cfg.Flavour == HotSpot && in.Flags&sim.FlagUncounted == 0 && counted(c, int32(pc)+1, in.LoopBackPC()) {
				back.Flags &^= sim.FlagPoll
				u := j.cfg.LoopUnroll
				if bodySize(c, int32(pc)+1, in.LoopBackPC()) > j.cfg.LoopUnrollMaxBody {
					u = 1
				}
				back.SetStripLength(j.stripLength(in, u))
			}
		}
	}
}

// stripLength is the N of a counted loop's strip-mined back-edge (see
// sim.Instr: a poll after every N iterations and one at the loop's exit),
// or 0 for no poll, as C2 decides it in HotSpot 17's opto/loopnode.cpp.
// PhaseIdealLoop::is_counted_loop strip-mines only with
// LoopStripMiningIter > 1; with 1 the SafePoint stays in the loop body
// (a poll every iteration, the last included: N = 1) and with 0
// (-XX:-UseCountedLoopSafepoints) it is removed. When loop optimizations
// are over, OuterStripMinedLoopNode::adjust_strip_mined_loop bounds each
// run of the inner loop by LoopStripMiningIter iterations of the loop as
// compiled, stride included: after unrolling by U (LoopUnroll) that is
// LoopStripMiningIter × U source iterations. It reads the range of the
// induction variable's type, iter_estimate = hi − lo: a loop that cannot
// run more than LoopStripMiningIterShortLoop × U iterations
// (LoopStripMiningIterShortLoop = LoopStripMiningIter/10, set by
// CompilerConfig::ergo_initialize in compiler/compilerDefinitions.cpp)
// loses its outer loop and SafePoint; one that cannot run more than one
// strip keeps only the SafePoint after the loop (one poll, at its exit);
// and when LoopStripMiningIter × U does not fit in an int, every loop
// loses both. The range is known only for a bound the compiler sees: a
// constant trip count stands for a literal bound (for (i = 0; i < 100;
// i++): i in [0, 99]) unless the loop is marked bounded at run time
// (program.Loop.RuntimeBound, sim.Image.LiteralTrips); any other
// distribution, and a marked loop, for a bound computed at run time (i <
// n, i < a.length), whose range is the whole int.
func (j *JIT) stripLength(enter *sim.Instr, u int64) int32 {
	n := j.cfg.StripMiningIter
	switch {
	case n == 0:
		return 0
	case n == 1:
		return 1
	case n > math.MaxInt32/u:
		return 0
	}
	strip := n * u
	if trips, ok := j.img.LiteralTrips(enter); ok && trips > 0 {
		switch est := trips - 1; {
		case est <= n/10*u:
			return 0
		case est <= strip:
			return int32(min(max(strip, trips), math.MaxInt32)) // one strip: the exit poll only
		}
	}
	return int32(strip)
}

// bodySize is the bytecodes of the loop body [from, to) as MethodSize
// counts them, inlined callees included, with the loop's own test and
// back-branch (the loop statement's 3 + 3).
func bodySize(c *sim.Code, from, to int32) int64 {
	n := int64(6)
	for pc := from; pc < to; pc++ {
		in := &c.Instrs[pc]
		switch in.Op {
		case sim.OpWork:
			n += in.Bytecodes
		case sim.OpCall, sim.OpVirtualCall:
			n += 3
			if c.Inline != nil {
				for _, v := range c.Inline[pc] {
					n += v.Size
				}
			}
		case sim.OpNative, sim.OpBlock, sim.OpSpawn, sim.OpAlloc, sim.OpLoopEnter, sim.OpBranch, sim.OpLoopBack, sim.OpStub:
			n += 3
		case sim.OpMonitorEnter, sim.OpMonitorExit, sim.OpThrow, sim.OpReturn:
			n++
		case sim.OpCount:
			n += int64(in.CountCodeSize())
		}
	}
	return n
}

// callsEveryTrip reports whether the loop body [from, to) holds, outside
// its nested loops, a call marked as made on every trip going round
// (sim.FlagEveryTrip) that this compilation leaves a call: a static call
// not inlined, or a virtual one with a receiver not inlined. Such a loop
// has a safepoint on every trip, and C2 removes the loop's own
// (IdealLoopTree::check_safepts, opto/loopnode.cpp: a call on the
// idom path from the back edge to the head, "no need for a safept").
//
// An every-trip call that is inlined counts when the callee's inlined code
// makes such a call outside its loops, on every path (program.Call's
// EveryTrip outside loops): that call is on every trip too; a virtual
// site's, when every receiver's inlined version does.
func callsEveryTrip(c *sim.Code, from, to int32) bool {
	for pc := from; pc < to; pc++ {
		in := &c.Instrs[pc]
		switch in.Op {
		case sim.OpLoopEnter:
			pc = in.LoopBackPC() // a nested loop's calls are not on every trip
		case sim.OpCall, sim.OpVirtualCall:
			if in.Flags&sim.FlagEveryTrip == 0 {
				continue
			}
			if c.Inline == nil || len(c.Inline[pc]) == 0 || in.Op == sim.OpVirtualCall && !allReceiversInlined(c, pc) {
				return true
			}
			all := true
			for _, v := range c.Inline[pc] {
				all = all && callsEveryTrip(v, 0, int32(len(v.Instrs)))
			}
			if all {
				return true
			}
		}
	}
	return false
}

// counted reports whether the code in [from, to) — a loop body — calls
// nothing that is not inlined, allocates nothing, enters no runtime and
// contains no loop, inlined callees included.
func counted(c *sim.Code, from, to int32) bool {
	for pc := from; pc < to; pc++ {
		switch c.Instrs[pc].Op {
		case sim.OpCall, sim.OpVirtualCall:
			if c.Inline == nil || len(c.Inline[pc]) == 0 {
				return false
			}
			if c.Instrs[pc].Op == sim.OpVirtualCall && !allReceiversInlined(c, pc) {
				return false // the guard's fallback is a real call
			}
			for _, v := range c.Inline[pc] {
				if !counted(v, 0, int32(len(v.Instrs))) {
					return false
				}
			}
		case sim.OpLoopEnter, sim.OpAlloc, sim.OpBlock, sim.OpMonitorEnter, sim.OpMonitorExit,
			sim.OpSpawn, sim.OpThrow, sim.OpNative:
			return false
		case sim.OpCount:
			if c.Instrs[pc].Flags&sim.FlagCheck != 0 {
				return false // the check may call the profiling agent
			}
		}
	}
	return true
}

// allReceiversInlined is true when every receiver the virtual call at pc
// can dispatch to has an inlined version: no fallback call remains.
func allReceiversInlined(c *sim.Code, pc int32) bool {
	// The instruction's receivers are not reachable from here without the
	// image; a guarded inline of fewer receivers than the site has keeps
	// its fallback call. Code records the inlined set only, so we compare
	// counts with the site's receiver count (Instr.ReceiverCount).
	return int32(len(c.Inline[pc])) >= c.Instrs[pc].ReceiverCount()
}

// placeDebugInfo marks the statements whose machine code C2 ends with a
// PcDesc when DebugNonSafepoints is off: the places where
// PhaseOutput::fill_buffer (opto/output.cpp) calls Process_OopMap_Node, a
// MachSafePointNode — a safepoint poll — or a call that is not a leaf
// runtime call (fill_buffer clears is_mcall for a MachCallLeaf). Each such
// PcDesc carries the whole JVMState chain, so a statement inside an inlined
// body has its record with its inlined scopes, as any other. Per statement:
//
//   - LoopBack: its back-edge poll, or the poll of a strip-mined counted
//     loop (the SafePoint PhaseIdealLoop::is_counted_loop clones onto the
//     inner loop's exit, opto/loopnode.cpp); a counted loop without a poll
//     has none.
//   - Return: none. The return poll is emitted by MachEpilogNode::emit
//     (cpu/x86/x86_64.ad) after the frame is popped, with a poll_return
//     relocation and no PcDesc: a thread stopped there is in its caller, at
//     the call site (as the executor has it). An inlined return is a jump.
//   - Call: a call left after inlining (CallStaticJava: the PcDesc at its
//     return address); an inlined call has none.
//   - VirtualCall: a call left (not inlined, or a receiver outside the
//     inlined ones: the fallback virtual call), or, with every receiver of a
//     site of several inlined, the type guard's uncommon trap
//     (Compile::call_generator, CallGenerator::for_predicted_call and
//     for_uncommon_trap, opto/doCall.cpp, callGenerator.cpp: a call to the
//     uncommon-trap blob with the site's JVMState). A site with one
//     receiver is devirtualized by class-hierarchy analysis: no guard.
//   - Alloc: none in line. The allocation's slow path, a call to
//     OptoRuntime's new_instance_Java or new_array_Java with a PcDesc
//     (PhaseMacroExpand::expand_allocate_common, opto/macro.cpp), is an
//     uncommon block laid out after the return, in the allocations' order
//     and before the uncommon traps (tools/debuginfo, modes alloc and
//     allocTrap): samplers.ResolveDebugInfo reaches it from past the last
//     record in line.
//   - MonitorEnter: the slow path's complete_monitor_locking_Java call
//     (PhaseMacroExpand::expand_lock_node). MonitorExit's slow path is the
//     leaf call complete_monitor_unlocking_C (expand_unlock_node's
//     make_slow_call with a leaf name): no record.
//   - Native, Block, Spawn, Throw: calls into native code or the runtime
//     (a JNI call, blocking I/O or sleep, Thread.start, the exception's
//     constructor and OptoRuntime's rethrow stub).
//   - Count with FlagCheck: the instrumentation's call to the agent.
//   - Work, Branch, Jump, LoopEnter, MonitorExit, a Count without a check:
//     none. A run of field updates has no PcDesc: static and this-relative
//     accesses need no null check, and an implicit null check is an entry
//     of the implicit exception table, not a PcDesc (fill_buffer's
//     inct_starts); its handler's uncommon trap is out of line.
//
// The method's entry has no PcDesc (C2 emits no safepoint in the prolog),
// nor has its return poll (above). The monitor's slow path sits at its
// statement here, where C2's block layout may move it to the end of the
// code, as it moves the allocations'. The
// uncommon traps of a method's own checks (program.Method.Traps: range,
// null and zero checks, untaken branches) are out of line after its
// return, each a call to the UncommonTrapBlob with a PcDesc: sim.Code.Traps
// marks them. Seen on OpenJDK 17 (-XX:CompileCommand=print,HotCold::hot,
// tools/debuginfo): HotCold.hot's C2 code has six PcDescs, all trap calls
// after its ret, the first the iaload's range check at line 12; DebugInfo's
// arithmetic hot(long) has none. With
// DebugNonSafepoints every statement has a record (Debug nil):
// fill_buffer's NonSafepointEmitter::observe_instruction adds one at the end
// of each instruction whose JVMState changes.
func (j *JIT) placeDebugInfo(c *sim.Code) {
	c.Traps = j.img.Methods[c.Method].Traps
	if j.cfg.DebugNonSafepoints {
		c.Debug = nil
		return
	}
	c.Debug = make([]bool, len(c.Instrs))
	for pc := range c.Instrs {
		in := &c.Instrs[pc]
		switch in.Op {
		case sim.OpLoopBack:
			c.Debug[pc] = in.Flags&sim.FlagPoll != 0 || in.StripLength() > 0
		case sim.OpCall:
			c.Debug[pc] = c.Inline == nil || len(c.Inline[pc]) == 0
		case sim.OpVirtualCall:
			c.Debug[pc] = c.Inline == nil || !allReceiversInlined(c, int32(pc)) || in.ReceiverCount() > 1
		case sim.OpMonitorEnter, sim.OpNative, sim.OpBlock, sim.OpSpawn, sim.OpThrow:
			c.Debug[pc] = true
		case sim.OpCount:
			c.Debug[pc] = in.Flags&sim.FlagCheck != 0
		}
	}
}
