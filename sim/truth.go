package sim

import (
	"fmt"
	"unsafe"
)

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
// are stored in chunks (Truth.node) and linked parent → first child → next
// sibling, siblings in the order they were created (beyond the first
// wideAfter, each new one right after the wideAfter-th), so entering a
// known context costs a short scan (of at most wideAfter siblings, then an
// index) and no allocation, and usually one probe: the caller's frame
// remembers the child its last call entered, and the next call of a
// method that calls in the same order as before enters its next sibling.
type cctNode struct {
	method      int32
	parent      int32
	firstChild  int32
	nextSibling int32
	// The context's self time (CPU ns spent in its own code) and
	// bytecodes are kept per source line: Truth.cell(lineBase+line) for
	// line 0 … lines-1.
	lineBase   int32
	lines      int32
	calls      int64
	allocBytes int64
}

// The recorder's storage grows in fixed-size chunks, never by copying what
// it holds: a run's contexts keep appearing for seconds on the
// context-rich stand-ins, and a slice that grows by append copies its
// whole contents at every growth (1.25× at a time once large: javac's 300
// ms spent 40 % of RunUntil in those copies). A chunk is an array of
// 1<<nodeBits nodes or 1<<cellBits line cells, so finding an element is a
// shift, a mask and one bounds check (of the chunk table). A node's cells
// are consecutive indices: in one chunk, or, for a method with more lines
// than a chunk holds, in whole chunks of their own.
const (
	nodeBits = 10 // 40 KiB a chunk
	nodeMask = 1<<nodeBits - 1
	cellBits = 12 // 64 KiB a chunk
	cellMask = 1<<cellBits - 1
)

// Truth is the ground-truth recorder: always on, exact to the nanosecond
// and to the source line.
type Truth struct {
	// nodes holds the CCT's nodes, node i at nodes[i>>nodeBits][i&nodeMask]
	// (see node); count is how many there are.
	nodes []*[1 << nodeBits]cctNode
	count int32
	// cells holds the self time and bytecodes per (node, line), one cell
	// per line of the node's method (Instr.Line indexes it directly),
	// allocated when the node is created: memory grows with the calling
	// contexts, never with the run's length. Cell i is
	// cells[i>>cellBits][i&cellMask] (see cell); cellEnd is the next free
	// index. Frames keep a pointer to their node's first cell, so a
	// charge is one add at frame.cell(Instr.Line) and a Work statement
	// touches one 16-byte cell.
	cells      []*[1 << cellBits]lineCell
	cellEnd    int32
	lineCount  []int32 // per method: slots a node of that method needs
	edgeCounts []int64 // per Image.Edges
	// Exceptions counts throws; Uncaught counts those that ended a thread.
	Exceptions, Uncaught int64
	// Deoptimizations counts the compiled frames exceptions deoptimized
	// (VM.SetCatchDeopt).
	Deoptimizations int64
	// wide indexes the children of the nodes in indexed, those with more
	// than wideAfter children, by (parent, method).
	wide    map[[2]int32]int32
	indexed map[int32]bool
	// perMethod, when not nil, makes the recorder keep one context per
	// method, a child of the root: perMethod[m] is method m's (node 0
	// until it runs). See VM.TruthPerMethod. Release leaves it empty and
	// not nil.
	perMethod []methodContext
	// released: Release has freed the calling contexts.
	released bool
}

// Release frees the recorder's calling contexts — its nodes, line cells
// and child index, nearly all of its memory — once the run is over and
// nothing will read them again (harness.Config.ReleaseTruth: the truth
// profile holds what the run's readers need). Afterwards PerMethod,
// EdgeCount and the exception counts still answer; reading a context
// (NodeCount, Node, Nodes, NodeLink, NodeLines, LineSelf, Path) or a
// total (SelfTotal, BytecodeTotal) panics.
func (t *Truth) Release() {
	t.nodes, t.cells, t.wide, t.indexed = nil, nil, nil, nil
	if t.perMethod != nil {
		t.perMethod = []methodContext{}
	}
	t.released = true
}

// readable panics if Release has freed the calling contexts.
func (t *Truth) readable() {
	if t.released {
		panic("sim: the truth's calling contexts were released (Truth.Release)")
	}
}

// methodContext is a method's one context in the truth per method: its
// node, and that node and its first line cell as VM.call needs them,
// without the chunk tables.
type methodContext struct {
	node  int32
	nd    *cctNode
	cells *lineCell
}

// setMethodContext makes node c method m's context in the truth per method.
func (t *Truth) setMethodContext(m, c int32) {
	nd := t.node(c)
	t.perMethod[m] = methodContext{node: c, nd: nd, cells: t.cell(nd.lineBase)}
}

// newTruth prepares the recorder for a program whose call edges and lines
// per method (highest Instr.Line + 1) are given.
func newTruth(edges int, lineCount []int32) *Truth {
	t := &Truth{edgeCounts: make([]int64, edges), lineCount: lineCount}
	t.nodes = append(t.nodes, new([1 << nodeBits]cctNode))
	t.nodes[0][0] = cctNode{method: -1, parent: -1, firstChild: -1, nextSibling: -1, lines: 1}
	t.count = 1
	// The root's cell: service frames point here and never charge.
	t.cells = append(t.cells, new([1 << cellBits]lineCell))
	t.cellEnd = 1
	return t
}

// node returns node i.
func (t *Truth) node(i int32) *cctNode { return &t.nodes[i>>nodeBits][i&nodeMask] }

// cell returns line cell i (a node's lineBase plus a line); from a node's
// first cell a frame reaches its others (frame.cell).
func (t *Truth) cell(i int32) *lineCell { return &t.cells[i>>cellBits][i&cellMask] }

// cell returns the frame's line cell for line, an Instr.Line of the
// frame's code: lineAt of its node's first cell.
func (f *frame) cell(line int32) *lineCell { return lineAt(f.cells, line) }

// lineAt returns the cell of line, an Instr.Line of a code version of the
// node's method, from cells, the node's first line cell:
// Truth.cell(lineBase+line), found without the chunk table. A node's
// cells are consecutive in one allocation (a chunk, or the chunks of a
// node with more lines than a chunk holds, allocated together by
// newCells) that never moves, and every line of a code version is below
// its method's line count (Truth.checkLines), so the cell is inside that
// allocation.
func lineAt(cells *lineCell, line int32) *lineCell {
	return (*lineCell)(unsafe.Add(unsafe.Pointer(cells), uintptr(line)*unsafe.Sizeof(lineCell{})))
}

// lineCell is one (node, line)'s share of the truth.
type lineCell struct {
	self      int64 // CPU ns
	bytecodes int64
}

// sums is node i's self time and bytecodes: its lines' sums.
func (t *Truth) sums(i int32) (self, bytecodes int64) {
	n := t.node(i)
	for l := range n.lines {
		c := t.cell(n.lineBase + l)
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
// after is a child of parent (0: none) whose next sibling is tried first:
// the child that the caller's frame entered last (frame.lastChild).
// VM.call runs the tree's cases inline (the probe, the scan of the first
// wideAfter children, then wideChild or newChild): a change to this
// lookup's order or to where a child is linked is a change there too.
func (t *Truth) child(parent, method, after int32) int32 {
	if t.perMethod != nil {
		if c := t.perMethod[method].node; c > 0 {
			return c
		}
		c := t.newChild(0, method, -1)
		t.setMethodContext(method, c)
		return c
	}
	if after > 0 {
		if c := t.node(after).nextSibling; c >= 0 && t.node(c).method == method {
			return c
		}
	}
	n := 0
	last := int32(-1)
	for c := t.node(parent).firstChild; c >= 0; {
		nd := t.node(c)
		if nd.method == method {
			return c
		}
		if n++; n == wideAfter {
			return t.wideChild(parent, method, c)
		}
		last, c = c, nd.nextSibling
	}
	return t.newChild(parent, method, last)
}

// known returns the node for method under parent if it exists and is
// among parent's first wideAfter children, else -1. Unlike child it never
// creates a node or an index entry.
func (t *Truth) known(parent, method int32) int32 {
	if t.perMethod != nil {
		if c := t.perMethod[method].node; c > 0 {
			return c
		}
		return -1
	}
	n := 0
	for c := t.node(parent).firstChild; c >= 0 && n < wideAfter; {
		nd := t.node(c)
		if nd.method == method {
			return c
		}
		n++
		c = nd.nextSibling
	}
	return -1
}

// wideChild is child for a parent with more than wideAfter children: it
// indexes them all the first time, then finds and adds children by the
// index. A new child goes right after edge, the wideAfter-th, so that the
// first wideAfter children (those known finds) stay the same.
func (t *Truth) wideChild(parent, method, edge int32) int32 {
	if t.wide == nil {
		t.wide, t.indexed = map[[2]int32]int32{}, map[int32]bool{}
	}
	if !t.indexed[parent] {
		t.indexed[parent] = true
		for c := t.node(parent).firstChild; c >= 0; c = t.node(c).nextSibling {
			t.wide[[2]int32{parent, t.node(c).method}] = c
		}
	}
	if c, ok := t.wide[[2]int32{parent, method}]; ok {
		return c
	}
	c := t.newChild(parent, method, edge)
	t.wide[[2]int32{parent, method}] = c
	return c
}

// newChild creates the node for method under parent, linked right after
// its sibling prev, or first when prev is -1.
func (t *Truth) newChild(parent, method, prev int32) int32 {
	id := t.count
	n := t.lineCount[method]
	base := t.newCells(n)
	if id&nodeMask == 0 {
		t.nodes = append(t.nodes, new([1 << nodeBits]cctNode))
	}
	next := &t.node(parent).firstChild
	if prev >= 0 {
		next = &t.node(prev).nextSibling
	}
	*t.node(id) = cctNode{method: method, parent: parent, firstChild: -1, nextSibling: *next,
		lineBase: base, lines: n}
	*next = id
	t.count++
	return id
}

// newCells reserves n zeroed line cells, consecutive indices in one chunk
// or (more than a chunk holds) in whole chunks of their own, allocated as
// one array so that frame.cell reaches them all from the first, and
// returns the first one's index.
func (t *Truth) newCells(n int32) int32 {
	if t.cellEnd&cellMask+n > 1<<cellBits || t.cellEnd>>cellBits == int32(len(t.cells)) {
		// The rest of this chunk is too short (or it is full): the next.
		t.cellEnd = int32(len(t.cells)) << cellBits
	}
	base := t.cellEnd
	t.cellEnd += n
	if k := (t.cellEnd+cellMask)>>cellBits - int32(len(t.cells)); k > 1 {
		all := make([]lineCell, k<<cellBits)
		for i := range k {
			t.cells = append(t.cells, (*[1 << cellBits]lineCell)(all[i<<cellBits:]))
		}
	} else if k == 1 {
		t.cells = append(t.cells, new([1 << cellBits]lineCell))
	}
	return base
}

// PerMethod reports whether the recorder keeps one context per method
// (VM.TruthPerMethod) rather than the calling-context tree.
func (t *Truth) PerMethod() bool { return t.perMethod != nil }

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
	t.readable()
	out := make([]CCTNode, t.count)
	for i := range out {
		out[i] = t.Node(int32(i))
	}
	return out
}

// NodeCount is the number of nodes of the exact CCT, the root included.
func (t *Truth) NodeCount() int {
	t.readable()
	return int(t.count)
}

// Node returns node i of the exact CCT (0 ≤ i < NodeCount); a parent
// precedes its children.
func (t *Truth) Node(i int32) CCTNode {
	t.readable()
	n := t.node(i)
	self, bc := t.sums(i)
	return CCTNode{ID: i, Parent: n.parent, Method: n.method, Self: Time(self),
		Bytecodes: bc, Calls: n.calls, AllocBytes: n.allocBytes}
}

// NodeLink returns node i's parent and method (-1 and -1 for the root):
// Node's Parent and Method without summing the node's lines.
func (t *Truth) NodeLink(i int32) (parent, method int32) {
	t.readable()
	n := t.node(i)
	return n.parent, n.method
}

// NodeLines is the number of line slots of node i: its method's highest
// Instr.Line + 1 (slot 0 is never charged; the root has one empty slot).
func (t *Truth) NodeLines(i int32) int {
	t.readable()
	return int(t.node(i).lines)
}

// LineSelf is node i's self time at source line (Instr.Line) of its
// method, 0 ≤ line < NodeLines(i): the ns charged there in that calling
// context.
func (t *Truth) LineSelf(i int32, line int) Time {
	t.readable()
	n := t.node(i)
	if line < 0 || line >= int(n.lines) {
		panic(fmt.Sprintf("sim: line %d of a node with %d line slots", line, n.lines))
	}
	return Time(t.cell(n.lineBase + int32(line)).self)
}

// LineSelves appends node i's self time at each of its line slots, LineSelf
// of lines 0 … NodeLines(i)-1 in order, to buf and returns it: a node's
// lines read at once, its cells in a row.
func (t *Truth) LineSelves(i int32, buf []int64) []int64 {
	t.readable()
	n := t.node(i)
	cells := t.cell(n.lineBase)
	for l := range n.lines {
		buf = append(buf, lineAt(cells, l).self)
	}
	return buf
}

// SelfTotal is the CCT's self time summed over all nodes.
func (t *Truth) SelfTotal() Time {
	t.readable()
	var s int64
	for _, chunk := range t.cells {
		for _, c := range chunk {
			s += c.self
		}
	}
	return Time(s)
}

// BytecodeTotal is the number of bytecodes executed by all threads.
func (t *Truth) BytecodeTotal() int64 {
	t.readable()
	var s int64
	for _, chunk := range t.cells {
		for _, c := range chunk {
			s = satAdd(s, c.bytecodes)
		}
	}
	return s
}

// EdgeCount returns how often static call edge i (Image.Edges) executed.
func (t *Truth) EdgeCount(i int) int64 { return t.edgeCounts[i] }

// Path appends node's calling context to buf: the methods from the
// thread's entry method (a child of the root) down to node's own; nothing
// for the root.
func (t *Truth) Path(node int32, buf []int32) []int32 {
	t.readable()
	start := len(buf)
	for n := node; n > 0; n = t.node(n).parent {
		buf = append(buf, t.node(n).method)
	}
	for i, j := start, len(buf)-1; i < j; i, j = i+1, j-1 {
		buf[i], buf[j] = buf[j], buf[i]
	}
	return buf
}
