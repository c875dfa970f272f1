package sim

// TruthMark is the ground truth's counts at one moment of a run
// (Truth.Mark): what Truth.Subtract takes away so that the truth counts
// only what happened since (harness.Config.ProfileFrom, profsim run
// --skip).
type TruthMark struct {
	// cells are the self time and bytecodes of the line cells that
	// existed, indices 0 … len(cells)-1 (gaps between chunks included,
	// zero).
	cells []lineCell
	// calls and allocBytes are the nodes' that existed, by node index.
	calls, allocBytes    []int64
	edges                []int64
	exceptions, uncaught int64
}

// Mark copies the truth's counts now. Call it where every running
// thread's charges are up to date (a timer: VM.AddTimer); it costs a
// copy of the line cells and a node's calls and allocation each, once.
func (t *Truth) Mark() *TruthMark {
	t.readable()
	m := &TruthMark{cells: make([]lineCell, t.cellEnd), calls: make([]int64, t.count),
		allocBytes: make([]int64, t.count), edges: append([]int64(nil), t.edgeCounts...),
		exceptions: t.Exceptions, uncaught: t.Uncaught}
	for i := range m.cells {
		m.cells[i] = *t.cell(int32(i))
	}
	for i := range m.calls {
		n := t.node(int32(i))
		m.calls[i], m.allocBytes[i] = n.calls, n.allocBytes
	}
	return m
}

// Subtract takes m, a mark of this truth made earlier in the same run,
// away from every count: afterwards the truth is what happened between
// the mark and now (contexts first entered before the mark stay in the
// tree, with what they did since). A bytecode count that saturated
// (BytecodeCap) stays saturated. Call it once the run is over: the JIT
// reads the edge counts while the run goes on.
func (t *Truth) Subtract(m *TruthMark) {
	t.readable()
	for i := range m.cells {
		c := t.cell(int32(i))
		c.self -= m.cells[i].self
		if c.bytecodes < BytecodeCap {
			c.bytecodes -= m.cells[i].bytecodes
		}
	}
	for i := range m.calls {
		n := t.node(int32(i))
		n.calls -= m.calls[i]
		n.allocBytes -= m.allocBytes[i]
	}
	for i := range m.edges {
		t.edgeCounts[i] -= m.edges[i]
	}
	t.Exceptions -= m.exceptions
	t.Uncaught -= m.uncaught
}

// Counts is a run's counts at one moment (VM.MarkCounts), which ResultSince
// takes away at its end.
type Counts struct {
	at         Time
	truth      *TruthMark
	threads    []ThreadStats
	statements int64
	overhead   Time
}

// MarkCounts copies the run's counts now: the truth's (Truth.Mark) and each
// thread's time per state (the current state's time so far included),
// statements and allocation. Call it from a timer, where every running
// thread's charges are up to date.
func (vm *VM) MarkCounts() *Counts {
	m := &Counts{at: vm.now, truth: vm.truth.Mark(), overhead: vm.overhead}
	for _, t := range vm.threads {
		st := ThreadStats{States: t.stateTime, Statements: t.stmts, AllocBytes: t.allocBytes}
		// A running thread's clock says how far its CPU time is charged
		// (VM.ThreadCPU); any other state has lasted until now.
		until := vm.now
		if t.state == Running {
			until = t.clock
		}
		if until > t.stateSince {
			st.States[t.state] += until - t.stateSince
		}
		m.statements += t.stmts
		m.threads = append(m.threads, st)
	}
	return m
}

// ResultSince is Result less m, counts of this run marked earlier: the truth (which it
// changes in place: Truth.Subtract), each thread's time per state,
// statements and allocation, the run's statements and context-switch
// overhead count from m on, and Result.From is m's time. Threads keep
// their start and end times; a thread created since m has nothing taken
// away. Call it once, when the run is over (the JIT reads the truth's
// edge counts while the run goes on).
func (vm *VM) ResultSince(m *Counts) *Result {
	vm.truth.Subtract(m.truth)
	r := vm.Result()
	r.From = m.at
	r.Statements -= m.statements
	r.Overhead -= m.overhead
	for i := range m.threads {
		th, b := &r.Threads[i], &m.threads[i]
		for s := range th.States {
			th.States[s] -= b.States[s]
		}
		th.Statements -= b.Statements
		th.AllocBytes -= b.AllocBytes
	}
	return r
}
