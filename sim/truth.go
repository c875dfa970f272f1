package sim

import "github.com/profsim/profsim/profile"

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
// so entering a known context costs a short scan and no allocation.
type cctNode struct {
	method      int32
	parent      int32
	firstChild  int32
	nextSibling int32
	self        int64 // CPU ns spent in this context's own code
	bytecodes   int64
	calls       int64
	allocBytes  int64
}

// Truth is the ground-truth recorder: always on, exact to the nanosecond.
type Truth struct {
	nodes      []cctNode
	edgeCounts []int64 // per Image.Edges
	// Exceptions counts throws; Uncaught counts those that ended a thread.
	Exceptions, Uncaught int64
}

func newTruth(edges int) *Truth {
	t := &Truth{edgeCounts: make([]int64, edges)}
	t.nodes = append(t.nodes, cctNode{method: -1, parent: -1, firstChild: -1, nextSibling: -1})
	return t
}

// child returns the node for method under parent, creating it once.
func (t *Truth) child(parent, method int32) int32 {
	for c := t.nodes[parent].firstChild; c >= 0; c = t.nodes[c].nextSibling {
		if t.nodes[c].method == method {
			return c
		}
	}
	id := int32(len(t.nodes))
	t.nodes = append(t.nodes, cctNode{method: method, parent: parent, firstChild: -1, nextSibling: t.nodes[parent].firstChild})
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
	for i, n := range t.nodes {
		out[i] = CCTNode{ID: int32(i), Parent: n.parent, Method: n.method, Self: Time(n.self),
			Bytecodes: n.bytecodes, Calls: n.calls, AllocBytes: n.allocBytes}
	}
	return out
}

// SelfTotal is the CCT's self time summed over all nodes.
func (t *Truth) SelfTotal() Time {
	var s int64
	for _, n := range t.nodes {
		s += n.self
	}
	return Time(s)
}

// BytecodeTotal is the number of bytecodes executed by all threads.
func (t *Truth) BytecodeTotal() int64 {
	var s int64
	for _, n := range t.nodes {
		s += n.bytecodes
	}
	return s
}

// EdgeCount returns how often static call edge i (Image.Edges) executed.
func (t *Truth) EdgeCount(i int) int64 { return t.edgeCounts[i] }

// path appends node's calling context, root first, to buf.
func (t *Truth) path(node int32, buf []int32) []int32 {
	start := len(buf)
	for n := node; n > 0; n = t.nodes[n].parent {
		buf = append(buf, t.nodes[n].method)
	}
	for i, j := start, len(buf)-1; i < j; i, j = i+1, j-1 {
		buf[i], buf[j] = buf[j], buf[i]
	}
	return buf
}

// Functions builds the profile function table for an image: one entry per
// method, index = method index.
func (img *Image) Functions(b *profile.Builder) []int {
	idx := make([]int, len(img.Methods))
	for i, m := range img.Methods {
		idx[i] = b.Func(profile.Function{Name: img.Names[i], Class: m.Class, Method: m.Name,
			Signature: m.Signature, File: m.Class + ".java"})
	}
	return idx
}

// BytecodeProfile returns the exact bytecode profile: every CCT node with
// executed bytecodes becomes one sample weighted by them (Binder's perfect
// profile, to which bytecode-counting samplers are compared).
func (t *Truth) BytecodeProfile(img *Image) *profile.Profile {
	b := profile.NewBuilder("truth-bytecodes", "bytecodes", 0)
	fn := img.Functions(b)
	var buf []int32
	var stack []profile.Frame
	for i := range t.nodes {
		n := &t.nodes[i]
		if n.bytecodes == 0 {
			continue
		}
		buf = t.path(int32(i), buf[:0])
		stack = stack[:0]
		for _, m := range buf {
			stack = append(stack, profile.Frame{Func: fn[m]})
		}
		b.AddSample(stack, n.bytecodes, n.bytecodes, "")
	}
	return b.Build()
}

// Profile returns the ground truth as a profile: every CCT node with self
// time becomes one sample (Count = Weight = its ns: the limit of a sampler
// with a 1 ns period), plus every executed call edge with its exact count.
func (t *Truth) Profile(img *Image) *profile.Profile {
	b := profile.NewBuilder("truth", "nanoseconds", 0)
	fn := img.Functions(b)
	var buf []int32
	var stack []profile.Frame
	for i := range t.nodes {
		n := &t.nodes[i]
		if n.self == 0 {
			continue
		}
		buf = t.path(int32(i), buf[:0])
		stack = stack[:0]
		for _, m := range buf {
			stack = append(stack, profile.Frame{Func: fn[m]})
		}
		b.AddSample(stack, n.self, n.self, "")
	}
	for i := range img.Edges {
		if c := t.edgeCounts[i]; c > 0 {
			e := img.Edges[i]
			b.AddEdge(fn[e.Caller], int(e.Line), fn[e.Callee], c)
		}
	}
	return b.Build()
}
