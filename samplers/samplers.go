// Package samplers holds the simulated profilers, one file each, and a
// registry by name. A sampler attaches to a run through a sim.Agent (sim's
// View and Controller roles: hooks, timers, stacks, states) and the
// safepoint package — it has no way to reach the ground truth or executor
// internals — and, when the run ends, returns what it saw as a
// profile.Profile plus what it cost.
package samplers

import (
	"fmt"
	"sort"
	"strings"

	"github.com/profsim/profsim/internal/nearest"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/safepoint"
	"github.com/profsim/profsim/sim"
)

// Ranges of the samplers' keys beyond what overflow alone would allow
// (their tags say them; TestSamplerKeyRanges holds the tags to these).
const (
	// MinInterval is the shortest sampling interval, period or retrieve
	// interval a key takes: 1 µs. Each tick is a timer event and, for
	// the safepoint family, a global safepoint, so a run's cost grows as
	// 1/interval while no real profiler's timer fires faster (Linux
	// hrtimers deliver signals every few µs at best; the papers sample
	// every 0.1 to 20 ms). Measured on avrora (2 s simulated, 4 CPUs),
	// wall time of profsim run: 0.43 s with no sampler; async 0.65 s at
	// 1 µs, 1.4 s at 10 ns, 10.4 s at 1 ns; safepoint 0.65 s at 1 µs,
	// 25 s at 1 ns; pcct 0.91 s at 1 µs, 3.1 s at 1 ns.
	MinInterval = sim.Microsecond
	// MaxJitter bounds a timer's mean lateness: 1 hour. A tick's lateness
	// is an exponential draw times the mean, and a draw of 10⁶ means
	// (probability e^−10⁶) still fits in int64 ns below it. The measured
	// jitters are 10 to 375 µs (jitter.go).
	MaxJitter = 3600 * sim.Second
	// MaxPerItemCost bounds a cost per frame or per thread walked: 1 s,
	// 10⁴ times the measured ones (150 ns a frame, 1.1 µs a thread). Times
	// 2³¹ threads, or the frames of any stack that fits in memory, plus a
	// base cost of at most sim.MaxTime, it stays within int64.
	MaxPerItemCost = sim.Second
)

// Mode is how a sampler is attached.
type Mode uint8

// Modes.
const (
	// Passive samplers observe the run and cost nothing: several can watch
	// one execution, which no real JVM allows.
	Passive Mode = iota
	// Costed: each sampler's threads, CPU, pauses and allocation are
	// applied to the run (and so its observer effect); several costed
	// samplers perturb each other, as profilers run together do.
	Costed
)

func (m Mode) String() string {
	if m == Costed {
		return "costed"
	}
	return "passive"
}

// Env is what a sampler attaches to.
type Env struct {
	// VM is the run as an agent sees it (sim.VM.Agent).
	VM   sim.Agent
	Mode Mode
	// Safepoints runs global safepoints (costed mode).
	Safepoints *safepoint.Coordinator
	// GC, when set, is charged the agent's allocation (costed mode).
	GC *safepoint.GC
	// Seed is the run's master seed; samplers derive their own streams.
	Seed uint64
	// Trace, when not nil, receives every sample's story (trace.go).
	Trace *Trace
	// Window, when > 0, also splits each sampler's samples by the time
	// they were taken into consecutive windows [s+i·Window,
	// s+(i+1)·Window) from s, when the sampler attached (Result.Windows):
	// the per-iteration profiles of Hofer et al.'s
	// stability analysis. Samplers that aggregate without time (pcct,
	// hotmethods, cbs, jikes-timer) refuse it at Attach.
	Window sim.Time
}

// checkWindow is Attach's refusal for samplers that cannot split their
// profile by time.
func checkWindow(env *Env, name string) error {
	if env.Window > 0 {
		return fmt.Errorf("sampler %s: window: its profile is aggregated without sample times and cannot be split into windows", name)
	}
	return nil
}

// Sampler is one profiler attached to one run.
type Sampler interface {
	// Name is the registry name ("tprof").
	Name() string
	// Attach registers hooks and timers; call it before the run.
	Attach(env *Env) error
	// Result is what the sampler saw, valid after the run.
	Result() *Result
}

// Costs is what a sampler cost the run and how it sampled.
type Costs struct {
	// AgentCPU is CPU time of the profiler's own threads (agent, VM thread
	// work done for it).
	AgentCPU sim.Time `json:"agent_cpu_ns"`
	// Stall is time application threads spent in the profiler's handlers
	// on their own CPU (signal handlers, self-walks).
	Stall sim.Time `json:"stall_ns"`
	// Pauses is the time application threads were stopped at safepoints
	// the profiler requested.
	Pauses sim.Time `json:"pause_ns"`
	// Requested counts sample requests (timer ticks); Taken counts the
	// thread samples recorded.
	Requested int64 `json:"requested"`
	Taken     int64 `json:"taken"`
	// Undecipherable counts thread samples whose top compiled frame had no
	// debug record at or after its position (ResolveDebugInfo): async
	// records them as the compiled method at bci 0, jfr does not record
	// them (they are not in Taken).
	Undecipherable int64 `json:"undecipherable,omitempty"`
	// Biased counts samples a JDK 25 JFR sampler (jfr-coop, jfr-cputime)
	// flags biased (compute_top_frame in jfrThreadSampling.cpp); Returned
	// those whose sampled frame had returned by the poll, walked from the
	// frame then at its depth; Lost the requests jfr-cputime dropped on a
	// full queue (jdk.CPUTimeSamplesLost).
	Biased   int64 `json:"biased,omitempty"`
	Returned int64 `json:"returned,omitempty"`
	Lost     int64 `json:"lost,omitempty"`
	// Ticks are the request times; SampleTimes when each thread sample was
	// actually taken (for interval autocorrelation).
	Ticks       []int64 `json:"-"`
	SampleTimes []int64 `json:"-"`
	// Latencies are, for safepoint-based samplers in costed mode, the time
	// from each request reaching the VM until the samples were taken (the
	// threads safe and walked): Hofer et al.'s sampling latency.
	Latencies []int64 `json:"-"`
	// Measures holds sampler-specific measurements, documented by each
	// sampler and by its Measure (e.g. pcct's FramesExaminedPerSample);
	// "extra" in JSON, keyed by the measures' names.
	Measures map[Measure]float64 `json:"extra,omitempty"`
}

// Result is a sampler's output.
type Result struct {
	Profile *profile.Profile
	Costs   Costs
	// Windows are the profiles of consecutive windows of Env.Window (nil
	// without), up to the last window with a sample; their samples add up
	// to Profile's.
	Windows []*profile.Profile
}

// Info describes a registered sampler.
type Info struct {
	Name        string
	Description string
	// Config returns a pointer to a fresh copy of the sampler's default
	// configuration; its tagged fields (package param) are the sampler's
	// keys. A config with a Validate() error method is validated after
	// the keys' own ranges.
	Config func() any
	// Build creates the sampler reported under label from a configuration
	// that Config returned (possibly modified).
	Build func(label string, cfg any) Sampler
	// Sources overrides a key's src tag for this sampler (the variants of
	// the safepoint family share a config type, not their defaults'
	// provenance).
	Sources map[string]string
}

var registry = map[string]Info{}

// Register adds a sampler to the registry; names are unique.
func Register(i Info) {
	if _, dup := registry[i.Name]; dup {
		panic("samplers: duplicate " + i.Name)
	}
	if i.Config == nil || i.Build == nil {
		panic("samplers: " + i.Name + " registered without Config or Build")
	}
	registry[i.Name] = i
}

// List returns the registered samplers sorted by name.
func List() []Info {
	out := make([]Info, 0, len(registry))
	for _, i := range registry {
		out = append(out, i)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}

// Lookup returns the registered sampler name.
func Lookup(name string) (Info, error) {
	i, ok := registry[name]
	if !ok {
		names := make([]string, 0, len(registry))
		for _, x := range List() {
			names = append(names, x.Name)
		}
		if s := nearest.Name(name, names); s != "" {
			return Info{}, fmt.Errorf("unknown sampler %q; did you mean %q? (known: %s)", name, s, strings.Join(names, ", "))
		}
		return Info{}, fmt.Errorf("unknown sampler %q (known: %s)", name, strings.Join(names, ", "))
	}
	return i, nil
}

// New creates a registered sampler with its default configuration,
// reported under its name.
func New(name string) (Sampler, error) {
	i, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	return i.Build(name, i.Config()), nil
}

// recorder builds a sampler's profile from VM stacks.
type recorder struct {
	vm     sim.Agent
	b      *profile.Builder
	fn     []int // method → function index
	buf    []sim.StackFrame
	stack  []profile.Frame
	costs  Costs
	source string
	period sim.Time
	// window > 0 splits the samples by time into wins (Env.Window), from
	// start, when the sampler attached.
	window sim.Time
	start  sim.Time
	wins   []*profile.Builder
	// trace, when tracing (Env.Trace), gets each sample's story; reqs
	// are the outstanding requests by thread.
	trace *Trace
	reqs  []traceRequest
	// late is how late the current tick fired after its grid point
	// (TraceRecord.LateNS); 0 for samplers without a grid.
	late sim.Time
}

func newRecorder(env *Env, source string, period sim.Time) *recorder {
	b := profile.NewBuilder(source, "nanoseconds", int64(period))
	return &recorder{vm: env.VM, b: b, fn: Functions(b, env.VM.Image()), source: source, period: period, window: env.Window, start: env.VM.Now(), trace: env.Trace}
}

// DistinctFunctions reports whether no two methods share a function in
// fn (Functions' result): then a profile can be built in the Builder's
// canonical order directly, without merging samples.
func DistinctFunctions(fn []int) bool {
	seen := make(map[int]bool, len(fn))
	for _, f := range fn {
		if seen[f] {
			return false
		}
		seen[f] = true
	}
	return true
}

// Functions adds img's methods to b's function table in method order and
// returns each method's function index: the functions every profile of a
// run starts with, the truth's (harness.TruthProfile) included.
func Functions(b *profile.Builder, img *sim.Image) []int {
	idx := make([]int, len(img.Methods))
	for i, m := range img.Methods {
		idx[i] = b.Func(profile.Function{Name: img.Names[i], Class: m.Class, Method: m.Name,
			Signature: m.Signature, File: m.Class + ".java"})
	}
	return idx
}

// add records one sample taken now, of weight period, with frames (root
// first), unless the run does not profile the thread (sim.View.Profiled:
// a global safepoint stops every thread, and the samplers that walk the
// stopped ones leave the others out here).
func (r *recorder) add(frames []profile.Frame, thread sim.ThreadID, weight sim.Time) {
	if !r.vm.Profiled(thread) {
		return
	}
	r.sample(frames, r.vm.ThreadName(thread), 1, weight, r.vm.Now())
	r.costs.Taken++
	r.costs.SampleTimes = append(r.costs.SampleTimes, int64(r.vm.Now()))
}

// sample adds count samples taken at time at to the profile and to at's
// window, without touching the costs.
func (r *recorder) sample(frames []profile.Frame, thread string, count int64, weight, at sim.Time) {
	r.b.AddSample(frames, count, int64(weight), thread)
	if r.window <= 0 {
		return
	}
	i := int((at - r.start) / r.window)
	for len(r.wins) <= i {
		r.wins = append(r.wins, profile.NewBuilder(r.source, "nanoseconds", int64(r.period)))
	}
	w := r.wins[i]
	// Frames index the whole profile's functions: keep the same table
	// (samplers may intern functions of their own, e.g. tprof's bucket).
	all := r.b.Functions()
	for n := len(w.Functions()); n < len(all); n++ {
		w.Func(all[n])
	}
	w.AddSample(frames, count, int64(weight), thread)
}

// exact converts a VM stack to profile frames, keeping at most depth
// frames nearest the leaf (depth ≤ 0: all).
func (r *recorder) exact(stack []sim.StackFrame, depth int) []profile.Frame {
	r.stack = r.stack[:0]
	if depth > 0 && len(stack) > depth {
		stack = stack[len(stack)-depth:]
	}
	for _, f := range stack {
		r.stack = append(r.stack, profile.Frame{Func: int32(r.fn[f.Method]), Line: int32(f.Line), Inlined: f.Inlined})
	}
	return r.stack
}

func (r *recorder) result() *Result {
	res := &Result{Profile: r.b.Build(), Costs: r.costs}
	for _, w := range r.wins {
		res.Windows = append(res.Windows, w.Build())
	}
	return res
}

// appThreads lists the profiled application threads (sim.View.Profiled:
// all of them unless the run restricts its profiles to some, as
// async-profiler's thread filter does) in a state, in ID order.
func appThreads(vm sim.Agent, states ...sim.ThreadState) []sim.ThreadID {
	var out []sim.ThreadID
	for id := sim.ThreadID(0); int(id) < vm.NumThreads(); id++ {
		if !vm.Profiled(id) {
			continue
		}
		s := vm.State(id)
		for _, want := range states {
			if s == want {
				out = append(out, id)
				break
			}
		}
	}
	return out
}
