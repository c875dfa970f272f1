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
	Func int `json:"func"` // index into Profile.Functions
	Line int `json:"line,omitempty"`
	// Inlined reports that the JIT compiled this frame into its caller's
	// physical frame; pprof export groups such frames into one Location.
	Inlined bool `json:"inlined,omitempty"`
}

// Sample is a stack seen Count times with a total Weight (nanoseconds of
// CPU time, or bytecodes for bytecode-counting samplers; see Profile.Unit).
type Sample struct {
	// Stack is root first: Stack[0] is the thread's entry method and the
	// last element is the leaf (pprof's order is the reverse).
	Stack  []Frame `json:"stack"`
	Count  int64   `json:"count"`
	Weight int64   `json:"weight"`
	// Thread names the thread the sample was taken on ("" if unknown).
	Thread string `json:"thread,omitempty"`
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
type Profile struct {
	// Source names the producer: "truth", "safepoint", "tprof", ...
	Source string `json:"source"`
	// Unit is what Sample.Weight counts: "nanoseconds" or "bytecodes".
	Unit string `json:"unit"`
	// PeriodNanos is the nominal sampling interval, 0 for exact profiles.
	PeriodNanos int64      `json:"period_nanos,omitempty"`
	Functions   []Function `json:"functions"`
	Samples     []Sample   `json:"samples"`
	Edges       []Edge     `json:"edges,omitempty"`
}
