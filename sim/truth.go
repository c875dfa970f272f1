package sim

import "fmt"

// ThreadState is what a thread is doing, for scheduling and for the
// ground-truth time-per-state accounting.
type ThreadState uint8

// Thread states.
const (
	NotStarted ThreadState = iota // not started yet
	Runnable                      // waiting in the run queue (or for a context switch)
	Running                       // on a CPU
	Blocked                       // in I/O or sleep
	LockWait                      // waiting for a monitor
	JoinWait                      // waiting for spawned threads
	Parked                        // stopped by a hook (safepoint, sampler)
	Stalled                       // on a CPU but running VM or profiler code for the thread
	Terminated                    // finished
	numStates
)

var stateNames = [...]string{"new", "runnable", "running", "blocked", "lock_wait", "join_wait", "parked", "stalled", "terminated"}

func (s ThreadState) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "state?"
}

// cctNode is one calling context of the exact calling context tree. Nodes
// are stored in one slice and linked parent → first child → next sibling,
// so entering a known context costs a short scan (of at most wideAfter
// siblings, then an index) and no allocation.
type cctNode struct {
	method      int32
	parent      int32
	firstChild  int32
	nextSibling int32
	// The context's self time (CPU ns spent in its own code) and
	// bytecodes are kept per source line: Truth.lineSelf[lineBase+line]
	// for line 0 … lines-1.
	lineBase   int32
	lines      int32
	calls      int64
	allocBytes int64
}

// Truth is the ground-truth recorder: always on, exact to the nanosecond
// and to the source line.
type Truth struct {
	nodes []cctNode
	// lineSelf is the self time and bytecodes per (node, line), one slot
	// per line of the node's method (Instr.Line indexes it directly),
	// allocated when the node is created: memory grows with the calling
	// contexts, never with the run's length. Frames keep their node's
	// lineBase, so a charge is one add at lineSelf[frame.lines+Instr.Line]
	// and a Work statement touches one 16-byte cell.
	lineSelf   []lineCell
	lineCount  []int32 // per method: slots a node of that method needs
	edgeCounts []int64 // per Image.Edges
	// Exceptions counts throws; Uncaught counts those that ended a thread.
	Exceptions, Uncaught int64
	// wide indexes the children of the nodes in indexed, those with more
	// than wideAfter children, by (parent, method).
	wide    map[[2]int32]int32
	indexed map[int32]bool
}

// newTruth prepares the recorder for a program whose call edges and lines
// per method (highest Instr.Line + 1) are given.
func newTruth(edges int, lineCount []int32) *Truth {
	t := &Truth{edgeCounts: make([]int64, edges), lineCount: lineCount}
	t.nodes = append(t.nodes, cctNode{method: -1, parent: -1, firstChild: -1, nextSibling: -1, lines: 1})
	t.lineSelf = append(t.lineSelf, lineCell{}) // the root's: service frames point here and never charge
	return t
}

// lineCell is one (node, line)'s share of the truth.
type lineCell struct {
	self      int64 // CPU ns
	bytecodes int64
}

// sums is node i's self time and bytecodes: its lines' sums.
func (t *Truth) sums(i int) (self, bytecodes int64) {
	n := &t.nodes[i]
	for _, c := range t.lineSelf[n.lineBase : n.lineBase+n.lines] {
		self += c.self
		bytecodes = satAdd(bytecodes, c.bytecodes) // counters saturate (BytecodeCap)
	}
	return self, bytecodes
}

// methodLines is the number of line slots code of method m needs: its
// highest Instr.Line + 1, inlined versions' own lines being their
// methods'.
func methodLines(c *Code) int32 {
	var n int32
	for i := range c.Instrs {
		if l := c.Instrs[i].Line; l >= n {
			n = l + 1
		}
	}
	return n
}

// checkLines panics if code c, or code inlined into it, has a line beyond
// what the truth allocates for its method: a charge there would land in
// another node's counters.
func (t *Truth) checkLines(c *Code) {
	if c.Method < 0 {
		return
	}
	if n := methodLines(c); n > t.lineCount[c.Method] {
		panic(fmt.Sprintf("sim: code for method %d has line %d beyond its %d lines", c.Method, n-1, t.lineCount[c.Method]-1))
	}
	for _, vs := range c.Inline {
		for _, v := range vs {
			t.checkLines(v)
		}
	}
}

// wideAfter is how many of a node's children child scans before it
// looks the rest up in an index: a method with 10⁵ callees (or the root,
// with one entry context per thread entry method) would otherwise make
// every call a scan of all of them.
const wideAfter = 16

// child returns the node for method under parent, creating it once.
func (t *Truth) child(parent, method int32) int32 {
	n := 0
	for c := t.nodes[parent].firstChild; c >= 0; c = t.nodes[c].nextSibling {
		if t.nodes[c].method == method {
			return c
		}
		if n++; n == wideAfter {
			return t.wideChild(parent, method)
		}
	}
	return t.newChild(parent, method)
}

// known returns the node for method under parent if it exists and is
// among parent's first wideAfter children, else -1. Unlike child it never
// creates a node or an index entry.
func (t *Truth) known(parent, method int32) int32 {
	n := 0
	for c := t.nodes[parent].firstChild; c >= 0 && n < wideAfter; c = t.nodes[c].nextSibling {
		if t.nodes[c].method == method {
			return c
		}
		n++
	}
	return -1
}

// wideChild is child for a parent with more than wideAfter children: it
// indexes them all the first time, then finds and adds children by the
// index.
func (t *Truth) wideChild(parent, method int32) int32 {
	if t.wide == nil {
		t.wide, t.indexed = map[[2]int32]int32{}, map[int32]bool{}
	}
	if !t.indexed[parent] {
		t.indexed[parent] = true
		for c := t.nodes[parent].firstChild; c >= 0; c = t.nodes[c].nextSibling {
			t.wide[[2]int32{parent, t.nodes[c].method}] = c
		}
	}
	if c, ok := t.wide[[2]int32{parent, method}]; ok {
		return c
	}
	c := t.newChild(parent, method)
	t.wide[[2]int32{parent, method}] = c
	return c
}

// newChild creates the node for method under parent.
func (t *Truth) newChild(parent, method int32) int32 {
	id := int32(len(t.nodes))
	base, n := int32(len(t.lineSelf)), t.lineCount[method]
	t.lineSelf = append(t.lineSelf, make([]lineCell, n)...)
	t.nodes = append(t.nodes, cctNode{method: method, parent: parent, firstChild: -1, nextSibling: t.nodes[parent].firstChild,
		lineBase: base, lines: n})
	t.nodes[parent].firstChild = id
	return id
}

// CCTNode is a read-only view of one node of the exact CCT.
type CCTNode struct {
	ID, Parent int32
	Method     int32 // -1 for the root
	Self       Time
	Bytecodes  int64
	Calls      int64
	AllocBytes int64
}

// Nodes returns the exact CCT in creation order; node 0 is the root, whose
// children are the threads' entry methods.
func (t *Truth) Nodes() []CCTNode {
	out := make([]CCTNode, len(t.nodes))
	for i := range t.nodes {
		out[i] = t.Node(int32(i))
	}
	return out
}

// NodeCount is the number of nodes of the exact CCT, the root included.
func (t *Truth) NodeCount() int { return len(t.nodes) }

// Node returns node i of the exact CCT (0 ≤ i < NodeCount); a parent
// precedes its children.
func (t *Truth) Node(i int32) CCTNode {
	n := &t.nodes[i]
	self, bc := t.sums(int(i))
	return CCTNode{ID: i, Parent: n.parent, Method: n.method, Self: Time(self),
		Bytecodes: bc, Calls: n.calls, AllocBytes: n.allocBytes}
}

// NodeLines is the number of line slots of node i: its method's highest
// Instr.Line + 1 (slot 0 is never charged; the root has one empty slot).
func (t *Truth) NodeLines(i int32) int { return int(t.nodes[i].lines) }

// LineSelf is node i's self time at source line (Instr.Line) of its
// method, 0 ≤ line < NodeLines(i): the ns charged there in that calling
// context.
func (t *Truth) LineSelf(i int32, line int) Time {
	n := &t.nodes[i]
	if line < 0 || line >= int(n.lines) {
		panic(fmt.Sprintf("sim: line %d of a node with %d line slots", line, n.lines))
	}
	return Time(t.lineSelf[int(n.lineBase)+line].self)
}

// SelfTotal is the CCT's self time summed over all nodes.
func (t *Truth) SelfTotal() Time {
	var s int64
	for _, c := range t.lineSelf {
		s += c.self
	}
	return Time(s)
}

// BytecodeTotal is the number of bytecodes executed by all threads.
func (t *Truth) BytecodeTotal() int64 {
	var s int64
	for _, c := range t.lineSelf {
		s = satAdd(s, c.bytecodes)
	}
	return s
}

// EdgeCount returns how often static call edge i (Image.Edges) executed.
func (t *Truth) EdgeCount(i int) int64 { return t.edgeCounts[i] }

// Path appends node's calling context to buf: the methods from the
// thread's entry method (a child of the root) down to node's own; nothing
// for the root.
func (t *Truth) Path(node int32, buf []int32) []int32 {
	start := len(buf)
	for n := node; n > 0; n = t.nodes[n].parent {
		buf = append(buf, t.nodes[n].method)
	}
	for i, j := start, len(buf)-1; i < j; i, j = i+1, j-1 {
		buf[i], buf[j] = buf[j], buf[i]
	}
	return buf
}
