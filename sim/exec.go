package sim

import "fmt"

// advance runs thread t from its clock towards horizon and returns why it
// stopped: the horizon, an instruction that touches shared state (left
// unexecuted for the VM to perform in global time order), the end of the
// thread, or an armed hook. It is the hot loop: no allocation except when a
// stack or the CCT grows, no event-queue traffic.
func (vm *VM) advance(t *Thread, horizon Time) uint8 {
	clock := t.clock
	tr := vm.truth
	for {
		if clock >= horizon {
			t.clock = clock
			return stopHorizon
		}
		f := &t.frames[len(t.frames)-1]
		in := &f.code.Instrs[f.pc]
		switch in.Op {
		case OpWork, OpNative:
			cost := f.workLeft
			if cost == 0 {
				cost = in.Cost
				t.stmts++
				if in.Op == OpWork {
					tr.nodes[f.node].bytecodes += in.Bytecodes
					if t.hooks&stopBytecodes != 0 {
						if t.counter -= in.Bytecodes; t.counter <= 0 {
							f.workLeft = cost // entered: do not count it again
							t.clock = clock
							return stopBytecodes
						}
					}
				}
			}
			if budget := int64(horizon - clock); cost > budget {
				f.workLeft = cost - budget
				tr.nodes[f.node].self += budget
				t.clock = horizon
				return stopHorizon
			}
			f.workLeft = 0
			tr.nodes[f.node].self += cost
			clock += Time(cost)
			f.pc++

		case OpCall:
			if f.flags&fReturned != 0 {
				f.flags &^= fReturned
				f.pc++
				continue
			}
			t.stmts++
			var inl *Code
			if f.code.Inline != nil {
				inl = f.code.Inline[f.pc]
			}
			if r := vm.call(t, in.A, in.B, inl, &clock); r != 0 {
				t.clock = clock
				return r
			}

		case OpVirtualCall:
			if f.flags&fReturned != 0 {
				f.flags &^= fReturned
				f.pc++
				continue
			}
			t.stmts++
			vt := &vm.img.vtables[in.A]
			r, u := 0, t.rng.Float64()*vt.cum[len(vt.cum)-1]
			for r < len(vt.cum)-1 && u >= vt.cum[r] {
				r++
			}
			callee := vt.methods[r]
			var inl *Code
			if f.code.Inline != nil && f.code.Inline[f.pc] != nil && f.code.Inline[f.pc].Method == callee {
				inl = f.code.Inline[f.pc]
			}
			if s := vm.call(t, callee, in.B+int32(r), inl, &clock); s != 0 {
				t.clock = clock
				return s
			}

		case OpLoopEnter:
			t.stmts++
			n := vm.img.dists[in.B].Sample(t.rng)
			if n == 0 {
				f.pc = in.C
				continue
			}
			t.loops[f.loopBase+in.A] = n
			f.pc++
			if in.Flags&FlagPureLoop != 0 {
				vm.fastForward(t, f, in, &clock, horizon)
			}

		case OpLoopBack:
			if t.resumePoll {
				t.resumePoll = false // stopped at this poll; take the back-edge now
			} else {
				ctr := &t.loops[f.loopBase+in.A]
				if *ctr--; *ctr <= 0 {
					f.pc++
					continue
				}
				if in.Flags&FlagPoll != 0 {
					tr.nodes[f.node].self += vm.pollNanos
					clock += Time(vm.pollNanos)
					if t.hooks&stopPoll != 0 {
						t.resumePoll = true
						t.clock = clock
						return stopPoll
					}
				}
			}
			f.pc = in.B
			if enter := &f.code.Instrs[in.B-1]; enter.Flags&FlagPureLoop != 0 {
				vm.fastForward(t, f, enter, &clock, horizon)
			}

		case OpBranch:
			t.stmts++
			if in.Bytecodes == 1 || t.rng.Int64() < in.Cycles {
				f.pc++
			} else {
				f.pc = in.A
			}

		case OpJump:
			f.pc = in.A

		case OpAlloc:
			t.stmts++
			n := &tr.nodes[f.node]
			n.self += in.Cost
			n.allocBytes += in.Cycles
			t.allocBytes += in.Cycles
			clock += Time(in.Cost)
			f.pc++

		case OpThrow:
			if in.A > 0 && len(t.held) > 0 {
				t.clock = clock // monitors to release: shared state
				return stopInteract
			}
			t.stmts++
			t.clock = clock
			if vm.throw(t, int(in.A)) {
				return stopExit
			}
			clock = t.clock

		case OpReturn:
			// pop, inlined: this is the hottest path after Work.
			last := len(t.frames) - 1
			flags, retHandlers := f.flags, f.retHandlers
			t.active[f.code.Method]--
			t.loops = t.loops[:f.loopBase]
			t.frames = t.frames[:last]
			if last == 0 {
				t.clock = clock
				return stopExit
			}
			caller := &t.frames[last-1]
			caller.flags |= fReturned
			var stop uint8
			if flags&fInlined == 0 && in.Flags&FlagPoll != 0 {
				tr.nodes[caller.node].self += vm.pollNanos
				clock += Time(vm.pollNanos)
				stop = t.hooks & stopPoll
			}
			if flags&fReturnHook != 0 {
				t.returned |= retHandlers
				stop |= stopReturn
			}
			if stop != 0 {
				t.clock = clock
				return stop
			}

		case OpBlock, OpMonitorEnter, OpMonitorExit, OpSpawn:
			t.clock = clock
			return stopInteract

		default:
			panic(fmt.Sprintf("sim: unknown instruction %v", in.Op))
		}
	}
}

// call enters callee from t's top frame: edge is the static call edge, inl
// the code to run inlined (nil for a real call). It returns the hook stops
// that fired, or stopExit on stack overflow.
func (vm *VM) call(t *Thread, callee, edge int32, inl *Code, clock *Time) uint8 {
	caller := &t.frames[len(t.frames)-1]
	if lim := vm.img.limits[callee]; lim > 0 && t.active[callee] >= lim {
		caller.pc++ // the recursion's base case: the call is not made
		return 0
	}
	if len(t.frames) >= vm.cfg.MaxStackDepth {
		t.overflow = true
		vm.incident(fmt.Sprintf("thread %s: stack overflow at depth %d calling %s; thread ended",
			t.Name, len(t.frames), vm.img.Names[callee]))
		for len(t.frames) > 0 {
			vm.pop(t)
		}
		return stopExit
	}
	tr := vm.truth
	tr.edgeCounts[edge]++
	code, flags := inl, fInlined
	if inl == nil {
		code, flags = vm.code[callee], 0
		tr.nodes[caller.node].self += vm.callNanos
		*clock += Time(vm.callNanos)
	}
	node := tr.child(caller.node, callee)
	tr.nodes[node].calls++
	base := int32(len(t.loops))
	for i := int32(0); i < code.LoopSlots; i++ {
		t.loops = append(t.loops, 0)
	}
	t.frames = append(t.frames, frame{code: code, node: node, loopBase: base, flags: flags})
	t.active[callee]++
	var stop uint8
	if code.PollEntry && inl == nil {
		tr.nodes[node].self += vm.pollNanos
		*clock += Time(vm.pollNanos)
		stop = t.hooks & stopPoll
	}
	return stop | t.hooks&stopEntry
}

// fastForward runs whole iterations of a pure-Work loop arithmetically: as
// many as fit before the horizon, never the last one (its exit is not a
// back-edge) and never past an armed hook. The rest runs statement by
// statement, so the horizon still splits the loop exactly.
func (vm *VM) fastForward(t *Thread, f *frame, enter *Instr, clock *Time, horizon Time) {
	if f.workLeft != 0 {
		return
	}
	ctr := &t.loops[f.loopBase+enter.A]
	k := *ctr - 1
	if k <= 0 || enter.IterCost <= 0 {
		return
	}
	if m := int64(horizon-*clock) / enter.IterCost; m < k {
		k = m
	}
	if t.hooks&stopPoll != 0 && f.code.Instrs[enter.C-1].Flags&FlagPoll != 0 {
		return // the first back-edge must stop
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
	n := &vm.truth.nodes[f.node]
	n.self += k * enter.IterCost
	n.bytecodes += k * enter.IterBytecodes
	t.stmts += k * int64(enter.IterStmts)
	if t.hooks&stopBytecodes != 0 {
		t.counter -= k * enter.IterBytecodes
	}
	*clock += Time(k * enter.IterCost)
}
