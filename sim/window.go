package sim

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"unsafe"
)

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
	calls, allocBytes            []int64
	edges                        []int64
	exceptions, uncaught, deopts int64
}

// Mark copies the truth's counts now. Call it where every running
// thread's charges are up to date (a timer: VM.AddTimer); it costs a
// copy of the line cells and a node's calls and allocation each, once.
func (t *Truth) Mark() *TruthMark {
	t.readable()
	m := &TruthMark{cells: make([]lineCell, t.cellEnd), calls: make([]int64, t.count),
		allocBytes: make([]int64, t.count), edges: append([]int64(nil), t.edgeCounts...),
		exceptions: t.Exceptions, uncaught: t.Uncaught, deopts: t.Deoptimizations}
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
	t.Deoptimizations -= m.deopts
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
	vm.foot.MarkBytes = m.bytes()
	vm.overMemory()
	return m
}

// bytes is what m holds.
func (m *Counts) bytes() int64 {
	t := m.truth
	return int64(len(t.cells))*int64(unsafe.Sizeof(lineCell{})) + 8*int64(len(t.calls)+len(t.allocBytes)+len(t.edges)) +
		int64(len(m.threads))*int64(unsafe.Sizeof(ThreadStats{}))
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

// unprofiledTruth is the recorder of the threads Config.ProfileThreads
// leaves out, made when the first one starts: the truth's twin (per
// method if it is), which no profile reads; the JIT's call-edge counts
// (VM.EdgeCount) add its own, so that the run is the one without the
// filter.
func (vm *VM) unprofiledTruth() *Truth {
	if vm.unprofiled == nil {
		vm.unprofiled = newTruth(len(vm.img.Edges), vm.truth.lineCount)
		if vm.truth.perMethod != nil {
			vm.unprofiled.perMethod = make([]methodContext, len(vm.truth.lineCount))
		}
	}
	return vm.unprofiled
}

// MatchThreads reports whether a thread named name matches pattern, a
// comma-separated list of shell patterns (path.Match: * any run of
// characters, ? one, [a-z] a class): "worker-*,main".
func MatchThreads(pattern, name string) bool {
	for p := range strings.SplitSeq(pattern, ",") {
		if ok, err := path.Match(strings.TrimSpace(p), name); ok && err == nil {
			return true
		}
	}
	return false
}

// CheckThreadPattern reports a ProfileThreads pattern that is empty or
// not a list of valid shell patterns.
func CheckThreadPattern(pattern string) error {
	for p := range strings.SplitSeq(pattern, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			return fmt.Errorf("%q: an empty pattern", pattern)
		}
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("%q: %q is not a pattern (* any run of characters, ? one, [a-z] a class)", pattern, p)
		}
	}
	return nil
}

// namedThreads is how many of a thread spec's numbered threads
// ThreadNames lists before it gives the rest as a pattern: a count may
// be 2³¹ − 1.
const namedThreads = 64

// ThreadNames lists the names the program's application threads can
// have: its threads' (NAME, or NAME-0 … NAME-(n-1) for a count n > 1,
// beyond the first 64 as a pattern NAME-*), then, for each spawn
// statement, its threads' as a pattern NAME-*.
func (img *Image) ThreadNames() []string {
	var out []string
	for _, spec := range img.Prog.Threads {
		if spec.Count <= 1 {
			out = append(out, spec.Name)
			continue
		}
		for k := range min(spec.Count, namedThreads) {
			out = append(out, spec.Name+"-"+strconv.Itoa(k))
		}
		if spec.Count > namedThreads {
			out = append(out, spec.Name+"-*")
		}
	}
	seen := map[string]bool{}
	for _, sp := range img.spawns {
		if n := sp.name + "-*"; !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
