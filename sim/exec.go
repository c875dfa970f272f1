package sim

import (
	"fmt"
	"math"

	"github.com/profsim/profsim/program"
)

// advance runs thread t from its clock towards horizon and returns why it
// stopped: the horizon, an instruction that touches shared state (left
// unexecuted for the VM to perform in global time order), the end of the
// thread, or an armed hook. It is the hot loop: no allocation except when a
// stack or the CCT grows, no event-queue traffic.
func (vm *VM) advance(t *Thread, horizon Time) stopSet {
	if len(t.frames) == 0 {
		return stopExit // held at its end by a ThreadEnd observer, now let go
	}
	clock := t.clock
	tr := t.truth
	// The top frame and its code stay in registers between statements;
	// they are reloaded where the stack changes (a call, a return, a
	// throw). Reloading them for every statement was a chain of four
	// dependent loads (BenchmarkExecutor deepcall: 14 % of the
	// executor's instructions).
	f := &t.frames[len(t.frames)-1]
	instrs := f.code.Instrs
	for {
		in := &instrs[f.pc]
		// A run of whole Work statements that nothing stops (the horizon
		// after each one's end, no bytecode counter armed, the first not
		// split before) runs here, ahead of the general dispatch: the
		// commonest statement takes one predicted branch, the spills of
		// the values the other statements keep across calls are past it,
		// and the pc and the statement count stay in registers until the
		// run ends (kept in the frame and the thread, each statement's
		// load waited for the previous one's store).
		if in.Op == OpWork && f.workLeft == 0 && t.hooks&stopBytecodes == 0 {
			pc, n := f.pc, int64(0)
			for {
				cost := in.Cost
				if clock >= horizon || cost > int64(horizon-clock) {
					break
				}
				c := f.cell(in.Line)
				c.bytecodes += in.Bytecodes
				c.self += cost
				clock += Time(cost)
				n++
				pc++
				if in = &instrs[pc]; in.Op != OpWork {
					break
				}
			}
			// in is instrs[pc]: the statement that ended the run goes
			// to the general dispatch.
			f.pc = pc
			t.stmts += n
		}
		if clock >= horizon && !vm.instantAtHorizon(t, f, in) {
			t.clock = clock
			return stopHorizon
		}
		switch in.Op {
		case OpWork, OpNative, OpStub:
			c := f.cell(in.Line)
			cost := f.workLeft
			if cost == 0 {
				cost = in.Cost
				t.stmts++
				if in.Op == OpWork {
					c.bytecodes += in.Bytecodes
					if t.hooks&stopBytecodes != 0 && !f.code.Instrumented {
						if t.counter -= in.Bytecodes; t.counter <= 0 {
							f.workLeft = cost // entered: do not count it again
							t.clock = clock
							return stopBytecodes
						}
					}
				}
			} else {
				f.workLeft = 0
			}
			if budget := int64(horizon - clock); cost > budget {
				f.workLeft = cost - budget
				c.self += budget
				t.clock = horizon
				return stopHorizon
			}
			c.self += cost
			clock += Time(cost)
			f.pc++
			if in.Op == OpNative && t.hooks&stopPoll != 0 {
				// Returning from native code checks for a pending
				// safepoint, like HotSpot's native-to-Java transition.
				t.clock = clock
				t.pollKind = PollNativeExit
				return stopPoll
			}

		case OpCall, OpVirtualCall:
			if f.flags&fReturned != 0 {
				// Back from the callee: its return poll, then any
				// deoptimization the frame owes, then on.
				if f.flags&fPollPending != 0 {
					f.flags &^= fPollPending
					f.cell(in.Line).self += vm.pollNanos
					clock += Time(vm.pollNanos)
					if t.hooks&stopPoll != 0 {
						t.clock = clock
						t.pollKind = PollReturn
						return stopPoll
					}
				}
				if f.flags&fDeoptDebt != 0 {
					paid, done := vm.payDeopts(t, f, in.Line, int64(horizon-clock))
					clock += Time(paid)
					if !done {
						t.clock = clock
						return stopHorizon
					}
				}
				f.flags &^= fReturned
				f.pc++
				continue
			}
			callee, edge := in.Callee(), in.CallEdge()
			if in.Op == OpVirtualCall {
				vt := &vm.img.vtables[in.vtable()]
				r := t.pendingRecv
				if t.callDebt == 0 {
					cum := vt.cum
					if vt.cond {
						caller, depth := vm.callerAndDepth(t)
						cum = vt.drawFrom(caller, depth)
					}
					// float64(Uint64<<11>>11) / 2^53 is rand.Rand.Float64's draw.
					u := float64(t.pcg.Uint64()<<11>>11) / (1 << 53) * cum[len(cum)-1]
					for r = 0; r < int32(len(cum))-1 && u >= cum[r]; r++ {
					}
					t.pendingRecv = r
				}
				callee, edge = vt.methods[r], in.ReceiverEdge(r)
			}
			if t.callDebt == 0 {
				t.stmts++
			}
			var s stopSet
			clock, s = vm.call(t, f, in.Line, callee, edge, f.code.inlined(f.pc, callee), clock, horizon)
			if s != 0 {
				t.clock = clock
				return s
			}
			f = &t.frames[len(t.frames)-1]
			instrs = f.code.Instrs

		case OpLoopEnter:
			t.stmts++
			n := vm.img.dists[in.tripsDist()].Sample(t.rng)
			if n == 0 {
				f.pc = in.LoopExit()
				continue
			}
			t.loops[f.loopBase+in.LoopSlot()] = n
			f.stripLoop = 0
			if f.code.Instrs[in.LoopBackPC()].StripLength() > 0 { // strip-mined: strips count from here
				f.stripLoop, f.stripFrom = f.pc+1, n
			}
			f.pc++
			if in.Flags&FlagPureLoop != 0 {
				now := clock
				vm.fastForward(t, f, in, &now, horizon)
				clock = now
			} else if in.Flags&FlagCallLoop != 0 {
				now := clock
				vm.fastForwardCalls(t, f, in, &now, horizon)
				clock = now
			}

		case OpLoopBack:
			ctr := &t.loops[f.loopBase+in.LoopSlot()]
			var free bool // the body since the last back-edge cost nothing
			if t.resumePoll {
				t.resumePoll = false // stopped at this poll; take the back-edge now
				free = t.zeroFree
				if *ctr <= 0 {
					f.pc++ // the strip-mined loop's exit poll: leave the loop
					continue
				}
			} else {
				if *ctr--; *ctr <= 0 && in.StripLength() == 0 {
					f.pc++
					continue
				}
				free = clock == t.zeroClock
				var stop stopSet
				if f.code.Counting && *ctr > 0 {
					m := f.code.Method
					if vm.backedges[m]++; vm.backedges[m] == vm.backedgeTrigger[m] {
						t.counterMethod, t.counterKind = m, BackedgeCounter
						stop = stopCounter
					}
				}
				if in.Flags&FlagPoll != 0 || (in.StripLength() > 0 && stripPoll(f, in, *ctr)) {
					f.cell(in.Line).self += vm.pollNanos
					clock += Time(vm.pollNanos)
					t.pollKind = PollBackedge
					stop |= t.hooks & stopPoll
				}
				if stop != 0 {
					t.resumePoll, t.zeroFree = true, free
					t.clock = clock
					return stop
				}
				if *ctr <= 0 {
					f.pc++
					continue
				}
			}
			if vm.zeroTimeBackEdge(t, f, in, free, clock) {
				t.clock = clock
				return stopHorizon // the run is over: a loop that costs nothing
			}
			f.pc = in.LoopBackTarget()
			if enter := &f.code.Instrs[in.LoopEnterPC()]; enter.Flags&FlagPureLoop != 0 {
				now := clock
				vm.fastForward(t, f, enter, &now, horizon)
				clock = now
			} else if enter.Flags&FlagCallLoop != 0 {
				now := clock
				vm.fastForwardCalls(t, f, enter, &now, horizon)
				clock = now
			}

		case OpBranch:
			t.stmts++
			if by := in.BranchConds(); by != 0 {
				if vm.condBranch(t, by, in) {
					f.pc++
				} else {
					f.pc = in.BranchElse()
				}
				continue
			}
			// int64(Uint64 &^ 1<<63) is rand.Rand.Int64's draw.
			if in.BranchAlways() || int64(t.pcg.Uint64()&^(1<<63)) < in.BranchThreshold() {
				f.pc++
			} else {
				f.pc = in.BranchElse()
			}

		case OpJump:
			f.pc = in.JumpTarget()

		case OpAlloc:
			if in.AllocBytes() > t.tlabLeft {
				t.clock = clock // a TLAB refill takes from the shared heap
				return stopInteract
			}
			t.stmts++
			f.cell(in.Line).self += in.Cost
			t.tlabLeft -= in.AllocBytes()
			// Byte totals grow with the run's wall time, not its
			// simulated time (allocation may cost 0 ns): they saturate.
			nd := tr.node(f.node)
			nd.allocBytes = satAdd(nd.allocBytes, in.AllocBytes())
			t.allocBytes = satAdd(t.allocBytes, in.AllocBytes())
			clock += Time(in.Cost)
			f.pc++

		case OpThrow:
			if in.ThrowDepth() > 0 && len(t.held) > 0 {
				t.clock = clock // monitors to release: shared state
				return stopInteract
			}
			t.stmts++
			t.clock = clock
			if vm.throw(t, int(in.ThrowDepth())) {
				return stopExit
			}
			clock = t.clock
			f = &t.frames[len(t.frames)-1]
			instrs = f.code.Instrs

		case OpReturn:
			if f.code.EpiloguePoll && in.Flags&FlagPoll != 0 && f.flags&fInlined == 0 {
				if t.resumePoll {
					t.resumePoll = false
				} else {
					f.cell(in.Line).self += vm.pollNanos
					clock += Time(vm.pollNanos)
					if t.hooks&stopPoll != 0 {
						t.resumePoll = true
						t.clock = clock
						t.pollKind = PollEpilogue
						return stopPoll
					}
				}
			}
			// pop, inlined: this is the hottest path after Work.
			last := len(t.frames) - 1
			flags, epilogue := f.flags, f.code.EpiloguePoll
			if flags&fLimited != 0 {
				t.active[vm.img.limitSlot[f.code.Method]]--
			}
			t.loops = t.loops[:f.loopBase]
			t.frames = t.frames[:last]
			if last == 0 {
				t.clock = clock
				return stopExit
			}
			caller := &t.frames[last-1]
			f, instrs = caller, caller.code.Instrs
			// HotSpot's return poll runs after the pop: the caller pays it
			// when it resumes at the call site.
			poll := flags&fInlined == 0 && in.Flags&FlagPoll != 0 && !epilogue
			if flags&fReturnHook == 0 && clock < horizon && (!poll || t.hooks&stopPoll == 0) && caller.flags&fDeoptDebt == 0 {
				// Nothing can stop the thread at the call site (a horizon,
				// the return hook, an armed poll) and the caller owes no
				// deoptimization: the call statement's end runs here, as
				// it would when dispatched again with fReturned, one
				// dispatch fewer a call.
				if poll {
					f.cell(instrs[f.pc].Line).self += vm.pollNanos
					clock += Time(vm.pollNanos)
				}
				f.pc++
				continue
			}
			caller.flags |= fReturned
			if poll {
				caller.flags |= fPollPending
			}
			if flags&fReturnHook != 0 {
				t.returned |= t.retHandlers[last]
				t.clock = clock
				return stopReturn
			}

		case OpCount:
			// Instrumentation: count the basic block down at its start,
			// then (FlagCheck) the granularity check.
			f.cell(in.Line).self += in.Cost
			clock += Time(in.Cost)
			f.pc++
			if t.hooks&stopBytecodes != 0 {
				if t.counter -= in.Bytecodes; in.Flags&FlagCheck != 0 && t.counter <= 0 {
					t.clock = clock
					return stopBytecodes
				}
			}

		case OpService:
			// A VM-internal thread's job: CPU time outside the CCT.
			budget := int64(horizon - clock)
			if t.jobLeft > budget {
				t.jobLeft -= budget
				t.clock = horizon
				return stopHorizon
			}
			clock += Time(t.jobLeft)
			t.jobLeft = 0
			t.clock = clock
			return stopInteract

		case OpThrown:
			if vm.catchDeoptNanos > 0 {
				t.clock = clock
				vm.thrown(t, &vm.img.thrown[in.A])
				clock = t.clock
			}
			f.pc++

		case OpBlock, OpMonitorEnter, OpMonitorExit, OpSpawn:
			t.clock = clock
			return stopInteract

		default:
			panic(fmt.Sprintf("sim: unknown instruction %v", in.Op))
		}
	}
}

// instantAtHorizon reports whether the instruction at pc takes no time
// and changes the method the thread is in — a return without a callee-side
// poll, a call that is inlined — so that it must run before a horizon: a
// sample at the horizon then sees the method whose code runs next, as the
// ground truth does.
func (vm *VM) instantAtHorizon(t *Thread, f *frame, in *Instr) bool {
	switch in.Op {
	case OpReturn:
		return !(f.code.EpiloguePoll && in.Flags&FlagPoll != 0 && f.flags&fInlined == 0) || t.resumePoll
	case OpCall:
		return f.flags&fReturned == 0 && t.callDebt == 0 && f.code.inlined(f.pc, in.Callee()) != nil
	case OpThrown:
		// Costless unless it deoptimizes: a sample at the horizon sees
		// the statement after it, as without it.
		return vm.catchDeoptNanos == 0
	case OpService:
		// A job with nothing left (a zero-cost job, e.g. a safepoint
		// operation with no thread to walk) ends at the horizon its end
		// set; stopping short of it would never advance time.
		return t.jobLeft == 0
	}
	return false
}

// call enters callee from t's top frame caller, whose call statement is
// at line: edge is the static call edge, inl the code to run inlined (nil
// for a real call). clock is the thread's clock at the call. It returns
// the clock after what the call ran, and the hook stops that fired, or
// stopExit on stack overflow. The clock goes in and out by value, in
// registers: through a pointer to advance's copy, each of its updates
// waited for the store before it.
func (vm *VM) call(t *Thread, caller *frame, line, callee, edge int32, inl *Code, clock, horizon Time) (Time, stopSet) {
	slot := vm.img.limitSlot[callee]
	if slot >= 0 && t.active[slot] >= vm.img.limits[callee] {
		caller.pc++ // the recursion's base case: the call is not made
		return clock, 0
	}
	caller.bcp = caller.pc // the invoke saves the bytecode pointer
	if len(t.frames) >= vm.cfg.MaxStackDepth {
		t.overflow = true
		t.ending = fmt.Sprintf("thread %s: stack overflow at depth %d calling %s; thread ended",
			t.Name, len(t.frames), vm.img.Names[callee])
		for len(t.frames) > 0 {
			vm.pop(t)
		}
		return clock, stopExit
	}
	tr := t.truth
	code, flags := inl, fInlined
	if inl == nil {
		callLine := caller.cell(line)
		// The call sequence runs in the caller; a horizon inside it stops
		// the thread there, so an exact sampler sees the caller.
		debt := t.callDebt
		if debt == 0 {
			debt = vm.callNanos
		}
		if budget := int64(horizon - clock); debt > budget {
			callLine.self += budget
			clock = horizon
			t.callDebt = debt - budget
			return clock, stopHorizon
		}
		callLine.self += debt
		clock += Time(debt)
		t.callDebt = 0
		code, flags = vm.code[callee], 0
	}
	tr.edgeCounts[edge]++
	var node int32
	var nd *cctNode
	var cells *lineCell
	if pm := tr.perMethod; pm == nil {
		// Truth.child, here for the tree's common cases: the sibling
		// after the caller's last child, then the parent's first
		// wideAfter children; beyond them the index, or a new child.
		node = -1
		if a := caller.lastChild; a > 0 {
			if c := tr.node(a).nextSibling; c >= 0 && tr.node(c).method == callee {
				node, nd = c, tr.node(c)
			}
		}
		if node < 0 {
			n, last := 0, int32(-1)
			for c := tr.node(caller.node).firstChild; c >= 0 && n < wideAfter; n++ {
				if x := tr.node(c); x.method == callee {
					node, nd = c, x
					break
				}
				last, c = c, tr.node(c).nextSibling
			}
			if node < 0 {
				count := tr.count
				if n == wideAfter {
					node = tr.wideChild(caller.node, callee, last)
				} else {
					node = tr.newChild(caller.node, callee, last)
				}
				nd = tr.node(node)
				if tr.count > count && vm.newContext(nd.lines, len(t.frames)+1) {
					caller.lastChild = node
					return clock, stopHorizon // a limit stopped the run
				}
			}
		}
		caller.lastChild = node
		cells = tr.cell(nd.lineBase)
	} else if mc := &pm[callee]; mc.node > 0 {
		// Truth.child's first case, the node and its cells at hand.
		node, nd, cells = mc.node, mc.nd, mc.cells
		caller.lastChild = node
	} else {
		n := tr.count
		node = tr.child(caller.node, callee, caller.lastChild)
		caller.lastChild = node
		nd = tr.node(node)
		if tr.count > n && vm.newContext(nd.lines, len(t.frames)+1) {
			return clock, stopHorizon // a limit stopped the run
		}
		cells = tr.cell(nd.lineBase)
	}
	nd.calls++
	if code.leaf.first != nil && slot < 0 {
		if inl != nil && code.leaf.straight {
			if now, ok := vm.runStraight(t, code, cells, clock, horizon); ok {
				caller.pc++
				return now, 0
			}
		} else if now, ok := vm.runLeaf(t, caller, line, code, inl == nil, nd, cells, clock, horizon); ok {
			caller.pc++
			return now, 0
		}
	}
	base := int32(len(t.loops))
	for i := int32(0); i < code.LoopSlots; i++ {
		t.loops = append(t.loops, 0)
	}
	// The new frame is written in place, field by field: a composite
	// literal appended is built on the stack with narrow stores and copied
	// with wide loads, which stall on store forwarding (BenchmarkExecutor
	// deepcall: this line was 14 % of the run).
	top := len(t.frames)
	if top < cap(t.frames) {
		t.frames = t.frames[:top+1]
	} else {
		t.frames = append(t.frames, frame{})
	}
	nf := &t.frames[top]
	*nf = frame{}
	nf.code, nf.cells, nf.node, nf.loopBase, nf.flags = code, cells, node, base, flags
	if slot >= 0 {
		t.active[slot]++
		nf.flags |= fLimited
	}
	if len(t.frames) > t.peakFrames && vm.deeper(t) {
		return clock, stopHorizon
	}
	var stop stopSet
	if code.Counting {
		if vm.invocations[callee]++; vm.invocations[callee] == vm.invocationTrigger[callee] {
			t.counterMethod, t.counterKind = callee, InvocationCounter
			stop = stopCounter
		}
	}
	if code.PollEntry && inl == nil {
		nf.cell(code.Instrs[0].Line).self += vm.pollNanos
		clock += Time(vm.pollNanos)
		t.pollKind = PollPrologue
		stop |= t.hooks & stopPoll
	}
	return clock, stop | t.hooks&stopEntry
}

// runLeaf runs the call of a leaf (Code.leaf) from frame caller, its
// call statement at line, in one step when nothing can stop or see the
// thread before the call's end: the callee's context (nd, its first line
// cell cells) entered and counted, the call sequence paid (real), its
// end strictly before the horizon, no entry or bytecode-counter hook
// armed, no poll hook where it polls, no JIT counter kept, the stack no
// deeper than it has been, its allocations within the TLAB, its loops'
// trips constant. It charges what stepping the callee's statements and
// its return would, in the same order, without the callee's frame, and
// returns the clock at the call's end and whether it ran; when it did
// not, nothing has changed. The caller steps past the call.
func (vm *VM) runLeaf(t *Thread, caller *frame, line int32, code *Code, real bool, nd *cctNode, cells *lineCell, clock, horizon Time) (Time, bool) {
	if code.Counting || len(t.frames) >= t.peakFrames || vm.stepAll || t.hooks&(stopEntry|stopBytecodes) != 0 || t.resumePoll {
		return clock, false // a JIT counter, the stack's peak, a hook could see it
	}
	lf := &code.leaf
	ins := code.Instrs
	if len(ins) != int(lf.n) || &ins[0] != lf.first || lf.allocBytes > t.tlabLeft {
		return clock, false // a copy whose instructions were replaced, or a TLAB refill
	}
	ret := &ins[len(ins)-1]
	cost := lf.cost
	if real {
		polls := code.PollEntry || ret.Flags&FlagPoll != 0
		if polls && t.hooks&stopPoll != 0 {
			return clock, false
		}
		if code.PollEntry {
			cost = addCost(cost, vm.pollNanos)
		}
		if ret.Flags&FlagPoll != 0 {
			cost = addCost(cost, vm.pollNanos)
		}
	}
	if lf.loops {
		for pc := range ins {
			if in := &ins[pc]; in.Op == OpLoopEnter {
				d := vm.img.dists[in.tripsDist()]
				if d.Kind != program.Constant {
					return clock, false // its draw decides the cost
				}
				if d.A > 1 && vm.pollNanos > 0 && d.A-1 > math.MaxInt64/2/vm.pollNanos {
					return clock, false // fastForward would stop short
				}
				if d.A > 0 {
					cost = addCost(cost, satMul(d.A, in.IterCost))
				}
			}
		}
	}
	if cost >= int64(horizon-clock) {
		return clock, false // a statement of it would start at the horizon or beyond
	}
	now := clock
	if real && code.PollEntry {
		lineAt(cells, ins[0].Line).self += vm.pollNanos
		now += Time(vm.pollNanos)
	}
	for pc := 0; pc < len(ins)-1; pc++ {
		in := &ins[pc]
		switch in.Op {
		case OpWork, OpStub: // a Stub has no bytecodes
			c := lineAt(cells, in.Line)
			t.stmts++
			c.bytecodes += in.Bytecodes
			c.self += in.Cost
			now += Time(in.Cost)
		case OpAlloc:
			t.stmts++
			lineAt(cells, in.Line).self += in.Cost
			t.tlabLeft -= in.AllocBytes()
			nd.allocBytes = satAdd(nd.allocBytes, in.AllocBytes())
			t.allocBytes = satAdd(t.allocBytes, in.AllocBytes())
			now += Time(in.Cost)
		case OpLoopEnter:
			t.stmts++
			n := vm.img.dists[in.tripsDist()].A
			bpc := int(in.LoopBackPC())
			if n <= 0 {
				pc = bpc // the loop's exit
				continue
			}
			body := ins[pc+1 : bpc]
			if k := n - 1; k > 0 { // fastForward's iterations: all but the last
				chargeIterations(cells, in, body, &ins[bpc], k)
				t.stmts += k * int64(in.IterStmts)
				now += Time(k * in.IterCost)
			}
			for i := range body { // the last, stepped
				c := lineAt(cells, body[i].Line)
				t.stmts++
				c.bytecodes += body[i].Bytecodes
				c.self += body[i].Cost
				now += Time(body[i].Cost)
			}
			pc = bpc
		}
	}
	if real && ret.Flags&FlagPoll != 0 {
		if code.EpiloguePoll {
			lineAt(cells, ret.Line).self += vm.pollNanos
		} else {
			caller.cell(line).self += vm.pollNanos // after the pop, at the call site
		}
		now += Time(vm.pollNanos)
	}
	return now, true
}

// runStraight is runLeaf for an inlined call of a leaf of Work alone
// (leafRun.straight): no call sequence, no poll, no allocation, no loop.
func (vm *VM) runStraight(t *Thread, code *Code, cells *lineCell, clock, horizon Time) (Time, bool) {
	if code.Counting || len(t.frames) >= t.peakFrames || vm.stepAll || t.hooks&(stopEntry|stopBytecodes) != 0 || t.resumePoll {
		return clock, false
	}
	lf := &code.leaf
	ins := code.Instrs
	if len(ins) != int(lf.n) || &ins[0] != lf.first || lf.cost >= int64(horizon-clock) {
		return clock, false
	}
	ins = ins[:len(ins)-1]
	for i := range ins {
		c := lineAt(cells, ins[i].Line)
		c.bytecodes += ins[i].Bytecodes
		c.self += ins[i].Cost
	}
	t.stmts += int64(len(ins))
	return clock + Time(lf.cost), true // their sum: it is below the horizon's distance
}

// stripPoll reports whether the strip-mined back-edge in, with ctr
// iterations left after this one, polls: after every N = in.StripLength()
// iterations counted from where the loop was entered, and when it exits.
// That is C2's outer strip-mined loop (HotSpot 17, opto/loopnode.cpp): in
// PhaseIdealLoop::is_counted_loop the loop's SafePoint is cloned onto the
// inner loop's exit projection, ahead of the OuterStripMinedLoopEnd test,
// and OuterStripMinedLoopNode::adjust_strip_mined_loop bounds each inner
// run by min(limit − iv, LoopStripMiningIter): every strip, the last and
// partial one included, leaves the inner loop through the SafePoint. A
// loop entered in another code version (on-stack replacement into
// compiled code) starts its strips at its next iteration, as C2's OSR
// entry does.
func stripPoll(f *frame, in *Instr, ctr int64) bool {
	if f.stripLoop != in.LoopBackTarget() {
		f.stripLoop, f.stripFrom = in.LoopBackTarget(), ctr
		return ctr <= 0
	}
	return ctr <= 0 || (f.stripFrom-ctr)%int64(in.StripLength()) == 0
}

// fastForward runs whole iterations of a pure-Work loop arithmetically: as
// many as fit before the horizon, never the last one (its exit is not a
// back-edge) and never past an armed hook. The rest runs statement by
// statement, so the horizon still splits the loop exactly.
func (vm *VM) fastForward(t *Thread, f *frame, enter *Instr, clock *Time, horizon Time) {
	if f.workLeft != 0 {
		return
	}
	ctr := &t.loops[f.loopBase+enter.LoopSlot()]
	k := *ctr - 1
	if k <= 0 || enter.IterCost <= 0 {
		return
	}
	if m := int64(horizon-*clock) / enter.IterCost; m < k {
		k = m
	}
	if vm.pollNanos > 0 && k > math.MaxInt64/2/vm.pollNanos {
		// Strip-mined polls cost at most k × pollNanos: keep that
		// product, added to the budget, within int64.
		k = math.MaxInt64 / 2 / vm.pollNanos
	}
	back := &f.code.Instrs[enter.LoopBackPC()]
	if t.hooks&stopPoll != 0 && (back.Flags&FlagPoll != 0 || back.StripLength() > 0) {
		return // the first poll must stop
	}
	if mth := f.code.Method; f.code.Counting && vm.backedgeTrigger[mth] > vm.backedges[mth] {
		if m := vm.backedgeTrigger[mth] - vm.backedges[mth] - 1; m < k {
			k = m // stop short of the back-edge that fires the counter
		}
	}
	var strip int64
	if back.StripLength() > 0 {
		if f.stripLoop != back.LoopBackTarget() {
			return // entered in another code version: stripPoll starts the strips
		}
		// Counter values c-1 … c-k are passed at the k back-edges (none is
		// the exit); those a multiple of N iterations after the strips'
		// start s poll: s-v for v in [c-k, c-1] is in [s-c+1, s-c+k].
		n := int64(back.StripLength())
		c, s := *ctr, f.stripFrom
		strip = (s-c+k)/n - (s-c)/n
		if extra := strip * vm.pollNanos; extra > 0 {
			// Shrink k until the polls fit in the budget too.
			for k > 0 && k*enter.IterCost+strip*vm.pollNanos > int64(horizon-*clock) {
				k = (int64(horizon-*clock) - strip*vm.pollNanos) / enter.IterCost
				if k < 0 {
					k = 0
				}
				strip = (s-c+k)/n - (s-c)/n
			}
		}
	}
	if t.hooks&stopBytecodes != 0 && enter.IterBytecodes > 0 {
		if m := (t.counter - 1) / enter.IterBytecodes; m < k {
			k = m
		}
	}
	if k <= 0 {
		return
	}
	*ctr -= k
	if f.code.Counting {
		vm.backedges[f.code.Method] += k
	}
	chargeIterations(f.cells, enter, f.code.Instrs[back.LoopBackTarget():enter.LoopBackPC()], back, k)
	f.cell(back.Line).self += strip * vm.pollNanos // the strip-mined polls
	t.stmts += k * int64(enter.IterStmts)
	if t.hooks&stopBytecodes != 0 {
		t.counter -= k * enter.IterBytecodes
	}
	*clock += Time(k*enter.IterCost + strip*vm.pollNanos)
}

// chargeIterations charges k iterations of the pure loop entered at enter
// (its body, its back-edge back) to the line cells from cells (lineAt),
// split by line exactly as running them statement by statement would:
// each body Work its own line, the back-edge (its poll) the loop's line.
// The statements, the clock and strip-mined polls are the caller's.
func chargeIterations(cells *lineCell, enter *Instr, body []Instr, back *Instr, k int64) {
	rest := enter.IterCost
	for i := range body {
		c := lineAt(cells, body[i].Line)
		c.self += k * body[i].Cost
		c.bytecodes = min(satAdd(c.bytecodes, satMul(k, body[i].Bytecodes)), BytecodeCap)
		rest -= body[i].Cost
	}
	lineAt(cells, back.Line).self += k * rest
}

// addCost adds two non-negative costs, saturating: a callee of huge
// statements is then never run in one step (its cost passes any horizon).
func addCost(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// leafCall is one call to a straight-line leaf: what stepping it would
// charge (the call sequence, the callee's Work, its polls), in a context
// the CCT already has.
type leafCall struct {
	code  *Code // the callee's code version that runs
	node  int32 // its context
	cost  int64 // ns, polls included
	stmts int64 // the callee's statements (the call's own is the caller's)
	// counted is what a call takes from the thread's bytecode counter
	// (SetBytecodeCounter): its OpCounts' bytecodes, and its Work's in
	// code that is not instrumented.
	counted int64
	polls   bool // a poll site runs: an armed poll hook would stop there
	inlined bool // the call runs code inlined (no call sequence, no return poll)
}

// leaf reports whether the call from frame f to callee (inl: its inlined
// version, nil for a real call) runs a straight-line leaf that stepping
// and charging at once give the same truth for: a code version of only
// Work and its Return, no recursion limit, not counting invocations, its
// context already in the CCT, the stack already this deep.
func (vm *VM) leaf(t *Thread, f *frame, callee int32, inl *Code) (lc leafCall, ok bool) {
	code := inl
	if inl == nil {
		code = vm.code[callee]
	}
	n := len(code.Instrs) - 1
	for i := range n {
		in := &code.Instrs[i]
		switch in.Op {
		case OpWork:
			lc.stmts++
			if !code.Instrumented {
				lc.counted += in.Bytecodes
			}
		case OpStub:
			lc.stmts++
		case OpCount: // instrumentation: not a statement
			lc.counted += in.Bytecodes
		default:
			return lc, false
		}
		lc.cost = addCost(lc.cost, in.Cost)
	}
	if code.Counting || code.Instrs[n].Op != OpReturn || vm.img.limitSlot[callee] >= 0 ||
		len(t.frames)+1 > t.peakFrames || len(t.frames) >= vm.cfg.MaxStackDepth {
		return lc, false
	}
	if lc.node = t.truth.known(f.node, callee); lc.node < 0 {
		return lc, false
	}
	if inl == nil {
		lc.cost = addCost(lc.cost, vm.callNanos)
		if code.PollEntry {
			lc.cost = addCost(lc.cost, vm.pollNanos)
			lc.polls = true
		}
		if code.Instrs[n].Flags&FlagPoll != 0 {
			// The return poll: in the callee's epilogue or, after the
			// pop, at the call site.
			lc.cost = addCost(lc.cost, vm.pollNanos)
			lc.polls = true
		}
	}
	lc.code, lc.inlined = code, inl != nil
	return lc, true
}

// chargeLeaf charges k calls lc made by call instruction in of frame f
// along call edge edge as stepping them would: the caller's call sequence
// and return poll (a real call), the callee's lines, the edge's and the
// context's call counts. The statements, the caller's pc and bcp and the
// clock are the caller's to advance.
func (vm *VM) chargeLeaf(tr *Truth, f *frame, in *Instr, edge int32, lc *leafCall, k int64) {
	c := f.cell(in.Line)
	code := lc.code
	real := !lc.inlined
	if real {
		c.self += k * vm.callNanos
	}
	tr.edgeCounts[edge] += k
	nd := tr.node(lc.node)
	nd.calls += k
	lines := nd.lineBase
	if real && code.PollEntry {
		tr.cell(lines + code.Instrs[0].Line).self += k * vm.pollNanos
	}
	n := len(code.Instrs) - 1
	for i := range n {
		w := &code.Instrs[i]
		cc := tr.cell(lines + w.Line)
		// Stepping adds without saturating; k additions of b wrap as k×b
		// does.
		cc.self += k * w.Cost
		if w.Op == OpWork { // an OpCount's bytecodes are its block's, counted by its Work
			cc.bytecodes += k * w.Bytecodes
		}
	}
	if ret := &code.Instrs[n]; real && ret.Flags&FlagPoll != 0 {
		if code.EpiloguePoll {
			tr.cell(lines + ret.Line).self += k * vm.pollNanos
		} else {
			c.self += k * vm.pollNanos
		}
	}
}

// callLoopIter is what one iteration of a call loop (FlagCallLoop) costs,
// as stepping would charge it.
type callLoopIter struct {
	cost    int64 // ns, the back-edge's poll included
	stmts   int64
	counted int64 // taken from the thread's bytecode counter (see leafCall)
	polls   bool  // a poll site runs: an armed poll hook would stop there
	last    int32 // the pc of the body's last call (the frame's bcp after it)
}

// callLoopCost returns one iteration of the call loop entered at enter in
// frame f, or ok false when it cannot be fast-forwarded: a body statement
// other than Work, instrumentation's OpCount or a static call, or a call
// that is not to a straight-line leaf (see leaf).
//
// The body's leaf calls, in order, are left in vm.loopLeaves.
func (vm *VM) callLoopCost(t *Thread, f *frame, enter *Instr) (it callLoopIter, ok bool) {
	back := &f.code.Instrs[enter.LoopBackPC()]
	calls := false
	vm.loopLeaves = vm.loopLeaves[:0]
	for pc := back.LoopBackTarget(); pc < enter.LoopBackPC(); pc++ {
		in := &f.code.Instrs[pc]
		switch in.Op {
		case OpWork:
			it.stmts++
			it.cost = addCost(it.cost, in.Cost)
			if !f.code.Instrumented {
				it.counted += in.Bytecodes
			}
			continue
		case OpStub:
			it.stmts++
			it.cost = addCost(it.cost, in.Cost)
			continue
		case OpCount: // instrumentation: not a statement
			it.cost = addCost(it.cost, in.Cost)
			it.counted += in.Bytecodes
			continue
		case OpThrown: // nothing unless it deoptimizes
			if vm.catchDeoptNanos == 0 {
				continue
			}
			return it, false
		case OpCall:
			it.stmts++
		default:
			return it, false
		}
		lc, ok := vm.leaf(t, f, in.Callee(), f.code.inlined(pc, in.Callee()))
		if !ok {
			return it, false
		}
		vm.loopLeaves = append(vm.loopLeaves, lc)
		it.cost = addCost(it.cost, lc.cost)
		it.polls = it.polls || lc.polls
		it.stmts += lc.stmts
		it.counted += lc.counted
		it.last, calls = pc, true
	}
	if !calls {
		return it, false // a version whose body has no call: fastForward's case
	}
	if back.Flags&FlagPoll != 0 {
		it.cost = addCost(it.cost, vm.pollNanos)
		it.polls = true
	}
	return it, true
}

// fastForwardCalls runs whole iterations of a call loop arithmetically, as
// fastForward does a pure loop's: as many as end strictly before the
// horizon (so that no statement of them starts at it, where stepping
// would stop), never the last one, never past an armed hook or a JIT
// counter's trigger. Each call's callee runs straight-line Work in a
// context the CCT already has, so an iteration's effects are sums: the
// lines' self time and bytecodes, the call edges' and contexts' call
// counts, the statements, the clock.
func (vm *VM) fastForwardCalls(t *Thread, f *frame, enter *Instr, clock *Time, horizon Time) {
	if f.workLeft != 0 || t.callDebt != 0 || t.hooks&stopEntry != 0 || vm.stepAll {
		return
	}
	ctr := &t.loops[f.loopBase+enter.LoopSlot()]
	k := *ctr - 1
	if k <= 0 {
		return
	}
	back := &f.code.Instrs[enter.LoopBackPC()]
	if back.StripLength() > 0 && f.stripLoop != back.LoopBackTarget() {
		return // entered in another code version: stripPoll starts the strips
	}
	it, ok := vm.callLoopCost(t, f, enter)
	if !ok || it.cost <= 0 || (t.hooks&stopPoll != 0 && (it.polls || back.StripLength() > 0)) {
		return
	}
	budget := int64(horizon-*clock) - 1
	if m := budget / it.cost; m < k {
		k = m
	}
	if vm.pollNanos > 0 && k > math.MaxInt64/2/vm.pollNanos {
		k = math.MaxInt64 / 2 / vm.pollNanos
	}
	if mth := f.code.Method; f.code.Counting && vm.backedgeTrigger[mth] > vm.backedges[mth] {
		if m := vm.backedgeTrigger[mth] - vm.backedges[mth] - 1; m < k {
			k = m // stop short of the back-edge that fires the counter
		}
	}
	if t.hooks&stopBytecodes != 0 && it.counted > 0 {
		// The counter stays positive through the k iterations, so no
		// check (an OpCount's, or a Work's in code not instrumented)
		// in them finds it exhausted.
		if m := (t.counter - 1) / it.counted; m < k {
			k = m
		}
	}
	var strip int64
	if back.StripLength() > 0 {
		// As in fastForward: the strip polls among the k back-edges.
		n := int64(back.StripLength())
		c, s := *ctr, f.stripFrom
		strip = (s-c+k)/n - (s-c)/n
		for k > 0 && strip > 0 && k*it.cost+strip*vm.pollNanos > budget {
			k = max((budget-strip*vm.pollNanos)/it.cost, 0)
			strip = (s-c+k)/n - (s-c)/n
		}
	}
	if k <= 0 {
		return
	}
	*ctr -= k
	if f.code.Counting {
		vm.backedges[f.code.Method] += k
	}
	leaves := vm.loopLeaves
	for pc := back.LoopBackTarget(); pc < enter.LoopBackPC(); pc++ {
		in := &f.code.Instrs[pc]
		switch in.Op {
		case OpWork, OpStub: // a Stub has no bytecodes
			c := f.cell(in.Line)
			c.self += k * in.Cost
			c.bytecodes += k * in.Bytecodes // as stepping adds, wrapping
			continue
		case OpCount:
			f.cell(in.Line).self += k * in.Cost
			continue
		case OpThrown:
			continue
		}
		vm.chargeLeaf(t.truth, f, in, in.CallEdge(), &leaves[0], k)
		leaves = leaves[1:]
	}
	var backPoll int64
	if back.Flags&FlagPoll != 0 {
		backPoll = vm.pollNanos
	}
	f.cell(back.Line).self += k*backPoll + strip*vm.pollNanos
	t.stmts += k * it.stmts
	if t.hooks&stopBytecodes != 0 {
		t.counter -= k * it.counted
	}
	f.bcp = it.last
	*clock += Time(k*it.cost + strip*vm.pollNanos)
	t.zeroClock, t.zeroIters = *clock, 0
}

// condBranch reports whether OpBranch in, whose thresholds by caller and
// depth are Image.conds[by-1], is taken: with the threshold where the
// frame's caller runs a method the branch names, else at its method's
// depth where the branch gives one, else the branch's own; one draw
// unless the threshold is always, as for any branch.
func (vm *VM) condBranch(t *Thread, by int32, in *Instr) bool {
	b := branchThreshold{always: in.BranchAlways(), threshold: in.BranchThreshold()}
	c := &vm.img.conds[by-1]
	caller, depth := vm.callerAndDepth(t)
	found := false
	for i := range c.callers {
		if cb := &c.callers[i]; cb.caller == caller {
			b, found = cb.branchThreshold, true
			break
		} else if cb.caller > caller {
			break
		}
	}
	if n := int32(len(c.depths)); !found && n > 0 && depth > 0 {
		b = c.depths[min(depth, n)-1]
	}
	// int64(Uint64 &^ 1<<63) is rand.Rand.Int64's draw.
	return b.always || int64(t.pcg.Uint64()&^(1<<63)) < b.threshold
}

// callerAndDepth is the method of the top frame's caller (-1 for a
// thread's entry frame) and how many frames of the top frame's method the
// stack holds (0 for a method without a recursion limit, whose frames are
// not counted).
func (vm *VM) callerAndDepth(t *Thread) (caller, depth int32) {
	caller = -1
	if n := len(t.frames); n > 1 {
		caller = t.frames[n-2].code.Method
	}
	if slot := vm.img.limitSlot[t.frames[len(t.frames)-1].code.Method]; slot >= 0 {
		depth = t.active[slot]
	}
	return caller, depth
}
