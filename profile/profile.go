// Package profile holds what a profiler saw — weighted stack samples and
// weighted call edges — and the views, metrics and exports built on it.
//
// The package is a leaf: it knows nothing about the simulator, so ground
// truth and every sampler share one representation and one set of metrics.
package profile

// Function is one source method as profiles name it.
type Function struct {
	// Name is the display name, "Class.method", with the signature appended
	// ("Class.method(I)V") only when the program overloads the name.
	Name      string `json:"name"`
	Class     string `json:"class"`
	Method    string `json:"method"`
	Signature string `json:"signature,omitempty"`
	// File is the source file the method is attributed to ("HotCold.java").
	File string `json:"file,omitempty"`
}

// Frame is one source-level frame of a stack: a function and a line in it.
// Line 0 means "the method as a whole" (no position information).
type Frame struct {
	Func int32 `json:"func"` // index into Profile.Functions
	Line int32 `json:"line,omitempty"`
	// Inlined reports that the JIT compiled this frame into its caller's
	// physical frame; pprof export groups such frames into one Location.
	Inlined bool `json:"inlined,omitempty"`
}

// Context is one calling context: a frame and the context that called it.
// Profile.Contexts holds a profile's contexts as a tree; a context's stack
// is the frames on its path from the root, root first.
type Context struct {
	// Parent is the calling context, an index into Profile.Contexts below
	// this context's own; -1 for the root.
	Parent int32
	// Depth is the number of frames of the context's stack: 0 for the
	// root, its parent's plus one otherwise.
	Depth int32
	// Frame is the stack's leaf frame (the zero Frame for the root).
	Frame Frame
}

// Root is the index in Profile.Contexts of the root context, the empty
// stack.
const Root = 0

// Sample is a stack seen Count times with a total Weight (nanoseconds of
// CPU time, or bytecodes for bytecode-counting samplers; see Profile.Unit).
type Sample struct {
	// Context is the sample's stack: an index into Profile.Contexts. Read
	// the stack with Profile.Stack, Profile.Leaf and Profile.Depth.
	Context int32 `json:"-"`
	// Thread is the thread the sample was taken on: 0 if unknown, else 1
	// plus an index into Profile.Threads. Read its name with
	// Profile.ThreadName.
	Thread int32 `json:"-"`
	Count  int64 `json:"count"`
	Weight int64 `json:"weight"`
}

// Edge is a call edge of a dynamic call graph: the caller, the call site
// (the caller's line), the callee, and how often the profiler saw it.
type Edge struct {
	Caller int   `json:"caller"` // index into Profile.Functions
	Site   int   `json:"site"`   // line of the call in the caller
	Callee int   `json:"callee"` // index into Profile.Functions
	Weight int64 `json:"weight"`
}

// Profile is a sampler's (or the ground truth's) complete output.
//
// Its samples' stacks are paths of one tree of calling contexts
// (Contexts), so samples that share a caller share its frames: memory
// follows the distinct contexts, not the samples times their depth. As
// NewBuilder's Build and ReadJSON make it, Contexts holds exactly the
// prefixes of the samples' stacks, in the canonical order of Build (the
// order of the stacks compared frame by frame, so a context's
// descendants follow it); every context's parent precedes it in any
// valid profile. JSON (WriteJSON, MarshalJSON) writes each sample with
// its whole stack.
type Profile struct {
	// Source names the producer: "truth", "safepoint", "tprof", ...
	Source string `json:"source"`
	// Unit is what Sample.Weight counts: "nanoseconds" or "bytecodes".
	Unit string `json:"unit"`
	// PeriodNanos is the nominal sampling interval, 0 for exact profiles.
	PeriodNanos int64      `json:"period_nanos,omitempty"`
	Functions   []Function `json:"functions"`
	// Contexts is the calling-context tree: Contexts[Root] is the root.
	Contexts []Context `json:"-"`
	// Threads names the threads samples were taken on, each once, in
	// the order of their names as Build makes it (Sample.Thread indexes
	// it from 1).
	Threads []string `json:"-"`
	Samples []Sample `json:"samples"`
	Edges   []Edge   `json:"edges,omitempty"`
}

// ThreadName is the name of the thread sample i was taken on ("" if
// unknown).
func (p *Profile) ThreadName(i int) string { return p.threadName(p.Samples[i].Thread) }

// threadName is the name a Sample.Thread stands for.
func (p *Profile) threadName(t int32) string {
	if t > 0 {
		return p.Threads[t-1]
	}
	return ""
}

// ContextStack returns context c's stack, root first, in buf's storage
// when it is large enough.
func (p *Profile) ContextStack(c int32, buf []Frame) []Frame {
	d := int(p.Contexts[c].Depth)
	if cap(buf) < d {
		buf = make([]Frame, d)
	}
	buf = buf[:d]
	for k := d - 1; k >= 0; k-- {
		ctx := &p.Contexts[c]
		buf[k] = ctx.Frame
		c = ctx.Parent
	}
	return buf
}

// Stack returns sample i's stack, root first (Stack[0] is the thread's
// entry method, the last frame the leaf; pprof's order is the reverse),
// in buf's storage when it is large enough.
func (p *Profile) Stack(i int, buf []Frame) []Frame {
	return p.ContextStack(p.Samples[i].Context, buf)
}

// Depth is the number of frames of sample i's stack.
func (p *Profile) Depth(i int) int { return int(p.Contexts[p.Samples[i].Context].Depth) }

// Leaf is sample i's leaf frame; false if its stack is empty.
func (p *Profile) Leaf(i int) (Frame, bool) {
	c := &p.Contexts[p.Samples[i].Context]
	return c.Frame, c.Depth > 0
}

// SameSamples reports whether a and b hold the same samples in the same
// order: counts, weights, threads and stacks (frame by frame, function
// indices compared), whatever their context tables.
func SameSamples(a, b *Profile) bool {
	if len(a.Samples) != len(b.Samples) {
		return false
	}
	// same[c] is 1 + a context of b whose stack equals a's context c's,
	// once one is found (0: none yet).
	same := make([]int32, len(a.Contexts))
	eq := func(ca, cb int32) bool {
		if a.Contexts[ca].Depth != b.Contexts[cb].Depth {
			return false
		}
		for ca != Root && same[ca] != cb+1 {
			x, y := &a.Contexts[ca], &b.Contexts[cb]
			if x.Frame != y.Frame {
				return false
			}
			ca, cb = x.Parent, y.Parent
		}
		return true
	}
	for i := range a.Samples {
		x, y := &a.Samples[i], &b.Samples[i]
		if x.Count != y.Count || x.Weight != y.Weight || a.ThreadName(i) != b.ThreadName(i) || !eq(x.Context, y.Context) {
			return false
		}
		for ca, cb := x.Context, y.Context; ca != Root && same[ca] != cb+1; ca, cb = a.Contexts[ca].Parent, b.Contexts[cb].Parent {
			same[ca] = cb + 1
		}
	}
	return true
}
