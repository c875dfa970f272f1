// Package importer builds a profsim workload — a program.Program — that
// models a real Java application from two sources: a JFR recording of it
// (the JSON of `jfr print --json`, read by jfrjson) and its class files
// (read by classfile). The recording gives where the time went: each
// method's self time by bytecode index and the calling contexts. The class
// files give the structure a profile cannot: each method's bytecode size,
// its loops and the bytecode positions of its calls, which decide where a
// JIT puts its polls and so how a safepoint-biased profiler misleads.
//
// Import fits call frequencies, loop trip counts and the cycles of work
// blocks so that the model's expected self time per method — and per
// bytecode region — equals the recording's. docs/IMPORT.md says what is
// inferred and what a recording cannot tell.
package importer

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/profsim/profsim/classfile"
	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/jfrjson"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/program"
)

// DefaultFitVM is the VM preset a model is fitted for unless
// Options.FitVM says otherwise: hotspot6, the papers' VM, on which the
// studies run the models (docs/IMPORT.md, "Refinement").
const DefaultFitVM = "hotspot6"

// Options tune an import. The zero value gives the defaults.
type Options struct {
	// Name is the program's name (default "imported").
	Name string
	// Period is the CPU time one execution sample stands for; 0 estimates
	// it from the sample times (EstimatePeriod).
	Period time.Duration
	// NanosPerByte is the assumed cost of one byte of bytecode executed
	// once, in ns of compiled code (default DefaultNanosPerByte). It sets
	// how often methods are called: a recording shows time, not calls.
	NanosPerByte float64
	// Refine runs the model this many times and after each run rescales
	// every method's work to the recording's self time less the fixed
	// costs (calls, polls, interpretation) the run charged to it.
	Refine int
	// FitVM names the VM preset the refinement runs use (harness
	// PresetConfig): the model is fitted for it. "" is DefaultFitVM.
	FitVM string
	// KeepRecorderThreads models the JDK Flight Recorder's own threads
	// (IsRecorderThread) too; by default their samples are left out.
	KeepRecorderThreads bool
	// ThrowWalkFixed and ThrowWalkPerFrame are the cost (ns) of the stack
	// walk a throwable's construction makes in the VM: fixed, and per
	// frame walked (default DefaultThrowWalkFixed, DefaultThrowWalkPerFrame;
	// docs/IMPORT.md, "Exceptions"). IgnoreThrows leaves the recording's
	// jdk.JavaExceptionThrow events out of the model.
	ThrowWalkFixed, ThrowWalkPerFrame float64
	IgnoreThrows                      bool
	// IgnoreSiteInlining leaves out the call sites' inlining decisions
	// (program.Call.Inline), leaving them to the model's JIT.
	IgnoreSiteInlining bool
	// IgnoreCallers fits each call site's frequency over all its method's
	// callers alone, leaving out the probabilities by caller
	// (program.Branch.ByCaller).
	IgnoreCallers bool
	// IgnoreLoopBounds leaves every counted loop unmarked
	// (program.Loop.RuntimeBound): the model's JIT then reads each
	// loop's fitted constant trips as a literal bound.
	IgnoreLoopBounds bool
	// IgnoreLoopPaths plans every loop's trips from the cost of its code
	// alone (fitRegions), not from the samples on the paths that go round
	// again (pathTrips).
	IgnoreLoopPaths bool
	// IgnoreEveryTripCalls leaves unmarked the call sites every trip of
	// their loop going round again passes in the class file, which the
	// import otherwise marks (program.Call.EveryTrip) so that the model's
	// JIT drops such a loop's back-edge poll while the call is not
	// inlined, as C2 does.
	IgnoreEveryTripCalls bool
}

// recorderThreads are the names JDK 17 gives the Flight Recorder's own
// Java threads: jdk.jfr.internal.PlatformRecorder starts "JFR Periodic
// Tasks", "JFR Recording Scheduler" (its timer) and "JFR Shutdown Hook";
// SecuritySupport starts "JFR Recorder Thread". The sampler itself ("JFR
// Thread Sampler") is a VM thread that JFR never samples.
var recorderThreads = map[string]bool{
	"JFR Periodic Tasks":      true,
	"JFR Recording Scheduler": true,
	"JFR Shutdown Hook":       true,
	"JFR Recorder Thread":     true,
}

// recorderStreamPrefix starts the names of the threads JDK 17's
// jdk.jfr.internal.consumer.AbstractEventStream starts for an event
// stream: the prefix and a counter ("JFR Event Stream 1").
const recorderStreamPrefix = "JFR Event Stream "

// IsRecorderThread reports whether a thread of that name is one of the
// JDK Flight Recorder's own threads: the recorder's work, not the
// application's. Names are compared exactly (recorderThreads), so an
// application thread named "JFR something else" is kept.
func IsRecorderThread(name string) bool {
	return recorderThreads[name] || strings.HasPrefix(name, recorderStreamPrefix)
}

// DefaultNanosPerByte is one cycle per byte of bytecode, the scale of
// profsim's built-in workloads (hotcold.yaml: 100 cycles for hot()'s 50
// bytes). C2 runs Listing 1's hot() at 0.14 ns per byte on this machine;
// a slower scale keeps the model's call rate, and so its simulation cost
// and the share of fixed per-call costs, moderate (docs/IMPORT.md).
const DefaultNanosPerByte = 1.0

// TickGap separates JFR's sampling ticks: samples closer than this to the
// previous one belong to the same tick (the sampler thread walks up to
// five threads per tick, each in tens of µs, and its period is at least
// 1 ms plus its oversleep: docs/MODEL.md, JFRJitter).
const TickGap = 300 * time.Microsecond

// PrintDepth is how many frames `jfr print` keeps of each stack unless
// given --stack-depth (JDK 17: "Number of frames in stack traces, by
// default 5"). Import refuses a recording whose stacks all look cut there.
const PrintDepth = 5

// SyntheticClass is the class of the entry methods made for threads whose
// samples have more than one root method.
const SyntheticClass = "jfr.thread"

// Model is an imported program with what it was fitted to.
type Model struct {
	Program *program.Program
	// Recorded is the recording's profile with the model's names: one
	// sample per distinct (thread, stack), weight Period per JFR sample,
	// leaf line the model statement that holds the sample's bytecode index.
	Recorded *profile.Profile
	Report   Report
}

// Report summarizes an import.
type Report struct {
	Samples int // execution samples used
	// Truncated samples lost their root frames (the recording's stack
	// depth was too small) and are not used.
	Truncated int
	Empty     int // samples with no frames
	Threads   int
	Period    time.Duration // per sample
	Span      time.Duration // first to last sample
	Methods   int
	// NoClassFile lists the methods modelled from the samples alone: their
	// class was not on the classpath, or had no such method.
	NoClassFile []string
	// Mismatched counts caller frames whose bytecode index is not an invoke
	// instruction in the class file (a different version of the class).
	Mismatched int
	// InferredLoops counts call sites that needed more calls per
	// execution of their code than its loops allow: each got a loop of its
	// own (a limit of the fit, not the program's structure).
	InferredLoops int
	// Loops counts the class files' loops the model holds, by how a
	// HotSpot JIT polls in them.
	Loops LoopKinds
	// Refinement is the method overlap of the model's truth with the
	// recording in each refinement run (before that run's rescaling).
	Refinement []float64
	// FitVM is the VM preset the refinement runs used (Options.FitVM).
	FitVM        string
	Compilations int // jdk.Compilation events seen
	Inlinings    int // jdk.CompilerInlining events seen
	// SitesInlined and SitesCalled count the call sites given C2's
	// decision for a callee it inlined at some sites and called at others
	// (program.Call.Inline): inline here, and never inline here.
	SitesInlined, SitesCalled int
	// CallerSites counts the call sites whose branch has probabilities by
	// caller (program.Branch.ByCaller), and CallerProbabilities those
	// probabilities.
	CallerSites, CallerProbabilities int
	// CallerVirtualSites counts the virtual call sites whose receivers
	// are mixed by caller (program.VirtualCall.ByCaller), and
	// CallerMixes those mixes.
	CallerVirtualSites, CallerMixes int
	// CallerUnplaced counts the call sites with callers through which
	// they need more calls than their method's executions there: their
	// probabilities by caller scaled to keep their calls, their receivers
	// left with one mix over all callers.
	CallerUnplaced int
	// DepthSites and DepthVirtualSites count the call sites of recursive
	// methods given probabilities and receiver mixes by depth
	// (program.Branch.ByDepth, program.VirtualCall.ByDepth), and
	// DepthUnplaced those scaled as CallerUnplaced's are.
	DepthSites, DepthVirtualSites, DepthUnplaced int
	// FrameTypes counts frames by type (Interpreted, JIT compiled, Inlined,
	// Native) over the samples used, native method samples included.
	FrameTypes map[jfrjson.FrameType]int
	// PeriodFrom says where Period comes from: Options.Period, the sample
	// times, or DefaultPeriod when the times cannot tell (Ticks < 2).
	PeriodFrom PeriodSource
	// Ticks counts the sampling ticks: samples less than TickGap apart
	// are one.
	Ticks int
	// NativeSamples counts the jdk.NativeMethodSample events of the
	// model's threads (those with execution samples): each stands for
	// Period of the native method on top (a native statement's time).
	// NativeOther counts those of other threads (NativeOtherThreads),
	// which are not in the model; NativeUnusable the truncated or empty
	// ones.
	NativeSamples, NativeOther, NativeUnusable int
	NativeOtherThreads                         []string
	// NativeModelled is how many samples of Period the model's native
	// samples became: each stands for one Tick of JFR's sampler (weigh).
	NativeModelled int
	// CPULoad is each thread's CPU use as the recording's
	// jdk.ThreadCPULoad events give it, threads in order of their first
	// event, the recorder's own left out unless kept; HWThreads the
	// recording machine's hardware threads (jdk.CPUInformation), 0 when
	// the recording has none.
	CPULoad   []ThreadCPULoad
	HWThreads int64
	// Tick is the period of JFR's sampler thread (TickPeriod) when the
	// weights were set by it: a native method sample stands for a Tick, an
	// execution sample (Period) for the rest of its thread's time. Zero
	// when every sample stands for Period.
	Tick time.Duration
	// NativeOnly counts the samples with no Java frame (every frame
	// Native): modelled as native code.
	NativeOnly int
	// Dropped lists the threads none of whose samples could be used
	// (every stack empty or truncated): they are not in the model.
	Dropped []string
	// Recorder lists the Flight Recorder's own threads that were sampled
	// (IsRecorderThread), in first-seen order, and RecorderSamples counts
	// their samples: left out of the model unless
	// Options.KeepRecorderThreads.
	Recorder        []string
	RecorderSamples int
	// Throws is what the recording's jdk.JavaExceptionThrow events became:
	// Throws.Samples samples of the native Throwable.fillInStackTrace(int)
	// (docs/IMPORT.md, "Exceptions").
	Throws ThrowReport
	// Deepest is the most frames of one stack in the model (a synthetic
	// entry's included).
	Deepest int
	// Warnings say, one sentence each, where the model is less than the
	// recording: a guessed period, dropped threads, stacks deeper than
	// the simulator's. `profsim import` prints them on stderr.
	Warnings []string
}

// LoopKinds counts a model's loops from the class files: Uncounted loops
// (program.Loop.Uncounted: a poll on every back edge), counted loops
// bounded at run time (program.Loop.RuntimeBound: strip-mined, a poll
// at least at their exit) and counted loops with literal bounds, whose
// constant trips the JIT reads as their bound. FromPaths counts the
// loops, of any kind, whose trips the samples of their paths counted
// (docs/IMPORT.md, "Loop trips").
type LoopKinds struct {
	Uncounted, RuntimeBound, Literal int
	FromPaths                        int
	// EveryTripCalls counts the call sites marked program.Call.EveryTrip
	// (none with Options.IgnoreEveryTripCalls).
	EveryTripCalls int
}

// PeriodSource is where a Report's Period comes from.
type PeriodSource uint8

const (
	PeriodGiven     PeriodSource = iota // Options.Period
	PeriodEstimated                     // EstimatePeriod over two or more ticks
	PeriodDefault                       // DefaultPeriod: one tick tells nothing
)

func (s PeriodSource) String() string {
	switch s {
	case PeriodGiven:
		return "given"
	case PeriodEstimated:
		return "estimated"
	case PeriodDefault:
		return "default"
	}
	return fmt.Sprintf("PeriodSource(%d)", uint8(s))
}

// DefaultPeriod is the time per sample of a recording whose samples all
// fall in one sampling tick (one sample, or several threads sampled at
// one instant), where the times cannot tell it: JDK 17's profile.jfc
// samples every 10 ms (default.jfc every 20 ms).
const DefaultPeriod = 10 * time.Millisecond

// MinPeriod is the least time one sample may stand for. The model's
// segments are whole cycles (1 ns at the simulator's clock) and a call
// costs 4 of them: below a microsecond per sample the fixed costs would
// be the model.
const MinPeriod = time.Microsecond

// MaxRecorded bounds the time a model plays out: the recording's span
// and its CPU time (samples × period), each. RunToEnd runs a model for
// twenty times that, and at the simulator's 0.3–2 s of CPU per simulated
// second (docs/IMPORT.md) a 30-day recording would take years to
// refine; it also keeps every duration far inside sim.Time's 292 years.
const MaxRecorded = 30 * 24 * time.Hour

// Import reads a recording's JSON from r, the class files from cp (nil:
// none) and builds the model.
func Import(r io.Reader, cp *classfile.Classpath, opt Options) (*Model, error) {
	return ImportContext(context.Background(), r, cp, opt)
}

// ImportContext is Import that stops, with ctx's error, once ctx is done:
// between events of the recording and within each refinement run.
func ImportContext(ctx context.Context, r io.Reader, cp *classfile.Classpath, opt Options) (*Model, error) {
	if opt.Name == "" {
		opt.Name = "imported"
	}
	if opt.NanosPerByte == 0 {
		opt.NanosPerByte = DefaultNanosPerByte
	}
	if !(opt.NanosPerByte > 0) || math.IsInf(opt.NanosPerByte, 0) {
		return nil, fmt.Errorf("nanos per byte: %v must be > 0", opt.NanosPerByte)
	}
	if opt.Refine < 0 {
		return nil, fmt.Errorf("refine: %d must be ≥ 0", opt.Refine)
	}
	if opt.Period < 0 {
		return nil, fmt.Errorf("period: %v must be ≥ 0", opt.Period)
	}
	if opt.ThrowWalkFixed == 0 {
		opt.ThrowWalkFixed = DefaultThrowWalkFixed
	}
	if opt.ThrowWalkPerFrame == 0 {
		opt.ThrowWalkPerFrame = DefaultThrowWalkPerFrame
	}
	if !(opt.ThrowWalkFixed > 0) || math.IsInf(opt.ThrowWalkFixed, 0) {
		return nil, fmt.Errorf("throw walk fixed cost: %v ns must be > 0", opt.ThrowWalkFixed)
	}
	if !(opt.ThrowWalkPerFrame > 0) || math.IsInf(opt.ThrowWalkPerFrame, 0) {
		return nil, fmt.Errorf("throw walk cost per frame: %v ns must be > 0", opt.ThrowWalkPerFrame)
	}
	rec, err := aggregate(ctx, r, opt.KeepRecorderThreads)
	if err != nil {
		return nil, err
	}
	if rec.samples >= 20 && rec.maxFrames == PrintDepth && rec.atPrintDepth*5 >= rec.samples {
		return nil, fmt.Errorf("no stack has more than %d frames and %d of %d have exactly %d: jfr print cuts stacks at %d frames unless given --stack-depth; print the recording again with --stack-depth 2048",
			PrintDepth, rec.atPrintDepth, rec.samples, PrintDepth, PrintDepth)
	}
	if rec.samples == 0 {
		recorder := ""
		if rec.recorderSamples > 0 {
			recorder = fmt.Sprintf(", %d of the recorder's own threads (%s: --keep-recorder-threads models them)", rec.recorderSamples, strings.Join(rec.recorder, ", "))
		}
		return nil, fmt.Errorf("the recording has no usable execution samples (jdk.ExecutionSample): %d truncated, %d with no frames%s", rec.truncated, rec.empty, recorder)
	}
	if opt.Period != 0 && opt.Period < MinPeriod {
		return nil, fmt.Errorf("period: %v is below %v: a model's work is whole cycles of 1 ns and a call costs 4", opt.Period, MinPeriod)
	}
	if opt.FitVM == "" {
		opt.FitVM = DefaultFitVM
	}
	cfg, err := harness.PresetConfig(opt.FitVM)
	if err != nil {
		return nil, fmt.Errorf("fit VM: %w", err)
	}
	b := &builder{rec: rec, cp: cp, opt: opt}
	rp := &b.report
	*rp = Report{FitVM: opt.FitVM, Samples: rec.samples, Truncated: rec.truncated, Empty: rec.empty, Threads: len(rec.threads),
		Compilations: rec.compilations, Inlinings: rec.inlinings, FrameTypes: rec.frameTypes,
		Ticks: Ticks(rec.times), NativeOnly: rec.nativeOnly,
		NativeUnusable: rec.native.truncated + rec.native.empty, Dropped: rec.dropped(),
		Recorder: rec.recorder, RecorderSamples: rec.recorderSamples,
		Span: time.Duration(rec.times[len(rec.times)-1] - rec.times[0]), HWThreads: rec.hwThreads}
	for _, n := range rec.cpuOrder {
		l := *rec.cpuLoad[n]
		l.Load /= float64(l.Events)
		rp.CPULoad = append(rp.CPULoad, l)
	}
	switch {
	case opt.Period != 0:
		rp.Period, rp.PeriodFrom = opt.Period, PeriodGiven
	case rp.Ticks < 2:
		rp.Period, rp.PeriodFrom = DefaultPeriod, PeriodDefault
		rp.warnf("all %d samples fall in one sampling tick (%v from first to last): the time per sample cannot be estimated, so each stands for %v (JFR's profile setting); give the period with --period",
			rec.samples, rp.Span, DefaultPeriod)
	default:
		rp.Period, rp.PeriodFrom = EstimatePeriod(rec.times), PeriodEstimated
	}
	if rp.Span > MaxRecorded {
		return nil, fmt.Errorf("the samples span %v (from %s to %s), more than the %v a model may play out",
			rp.Span, time.Unix(0, rec.times[0]).UTC().Format(time.RFC3339Nano), time.Unix(0, rec.times[len(rec.times)-1]).UTC().Format(time.RFC3339Nano), MaxRecorded)
	}
	if n := rp.Samples + rec.native.count; float64(rp.Period)*float64(n) > float64(MaxRecorded) {
		return nil, fmt.Errorf("%d samples of %v each are %.0f h of CPU, more than the %v a model may play out", n, rp.Period, float64(rp.Period)*float64(n)/float64(time.Hour), MaxRecorded)
	}
	// The weights: a native method sample stands for one tick of JFR's
	// sampler, an execution sample for the rest of its thread's time
	// (weigh, docs/IMPORT.md "Native code and failed samples").
	tick := float64(rp.Period)
	if rp.PeriodFrom == PeriodEstimated {
		tick = float64(TickPeriod(rec.times))
	}
	var throwNs map[int]float64
	if !opt.IgnoreThrows {
		if throwNs, err = rec.throwTime(cp, opt.ThrowWalkFixed, opt.ThrowWalkPerFrame); err != nil {
			return nil, err
		}
		if t := rec.throws.report; t.Time > float64(MaxRecorded) {
			return nil, fmt.Errorf("%d throwables' stack walks are %.0f h of CPU, more than the %v a model may play out", t.Used, t.Time/float64(time.Hour), MaxRecorded)
		}
	}
	if rp.PeriodFrom == PeriodEstimated {
		if p, ok := rec.weigh(tick, throwNs); ok {
			rp.Period, rp.Tick = time.Duration(p), time.Duration(tick)
		}
	}
	if rp.Tick == 0 {
		tick = float64(rp.Period)
	}
	b.period = float64(rp.Period)
	rec.addNative(tick / b.period)
	rp.NativeSamples, rp.NativeModelled, rp.NativeOther, rp.NativeOtherThreads = rec.nativeUsed, rec.nativeModelled, rec.nativeOther, rec.nativeOtherThreads
	if !opt.IgnoreThrows {
		rp.Throws = rec.addThrows(b.period)
		if rp.Throws.UnknownClasses > 0 {
			rp.warnf("%d throwables have a class (or superclass) not on the classpath: their stack walk is modelled as Throwable's, though the class may override fillInStackTrace", rp.Throws.UnknownClasses)
		}
	} else {
		rp.Throws = ThrowReport{Events: rec.throws.events}
	}
	rp.Deepest = rec.maxFrames
	if rec.nativeOnly > 0 {
		rp.warnf("%d of %d samples have no Java frame (every frame Native): modelled as native code", rec.nativeOnly, rec.samples)
	}
	if rec.nativeThreads > 1 {
		rp.warnf("%d threads have native method samples: JFR takes one native sample per tick (MAX_NR_OF_NATIVE_SAMPLES, jfrThreadSampler.cpp), so where threads were in native code at once each sample stands for more than the %v modelled", rec.nativeThreads, rp.Period)
	}
	if rp.NativeOther > 0 {
		rp.warnf("%d native method samples of %d threads without execution samples (%s) are not in the model: a thread seen only in native code may be waiting there", rp.NativeOther, len(rp.NativeOtherThreads), strings.Join(rp.NativeOtherThreads, ", "))
	}
	for _, th := range rp.Dropped {
		rp.warnf("thread %q: none of its samples has a usable stack (all empty or truncated): it is not in the model", th)
	}
	if err := b.build(); err != nil {
		return nil, err
	}
	if rp.Deepest > cfg.Sim.MaxStackDepth {
		rp.warnf("the deepest stack has %d frames, more than the simulator's max_stack_depth %d: a model thread that calls that deep ends in a stack overflow",
			rp.Deepest, cfg.Sim.MaxStackDepth)
	}
	for i := 0; i < opt.Refine; i++ {
		o, err := b.refine(ctx, cfg)
		if err != nil {
			return nil, err
		}
		rp.Refinement = append(rp.Refinement, o)
	}
	b.report.Methods = len(b.methods)
	return &Model{Program: b.prog, Recorded: b.recorded(), Report: b.report}, nil
}

// EstimatePeriod is the CPU time one sample stands for: the time from the
// first sampling tick to the last over the ticks between them (samples
// less than TickGap apart are one tick). It is the sampling period plus
// the sampler's mean lateness when every sampled thread runs Java code
// throughout; threads that block or run native code are simply not
// sampled, which this estimate does not need to know. times are sorted
// Unix nanoseconds.
// With fewer than two ticks the times tell nothing: DefaultPeriod.
func EstimatePeriod(times []int64) time.Duration {
	if Ticks(times) < 2 {
		return DefaultPeriod
	}
	ticks, last := 1, times[0] // last: the first sample of the last tick
	for i := 1; i < len(times); i++ {
		if times[i]-times[i-1] >= int64(TickGap) {
			ticks++
			last = times[i]
		}
	}
	return time.Duration((last - times[0]) / int64(ticks-1))
}

// Ticks counts the sampling ticks of sorted sample times: a sample less
// than TickGap after the previous one is of the same tick.
func Ticks(times []int64) int {
	if len(times) == 0 {
		return 0
	}
	ticks := 1
	for i := 1; i < len(times); i++ {
		if times[i]-times[i-1] >= int64(TickGap) {
			ticks++
		}
	}
	return ticks
}

// warnf adds a warning.
func (r *Report) warnf(format string, args ...any) {
	r.Warnings = append(r.Warnings, fmt.Sprintf(format, args...))
}

// ThreadCPULoad is one thread's CPU use over a recording.
type ThreadCPULoad struct {
	Thread string
	Events int
	// Load is the mean of its events' user + system shares of the
	// machine's CPU (every hardware thread's): a thread busy on one CPU
	// of two has 0.5.
	Load float64
}

// OnCPU is the share of its time the thread spent on a CPU: Load times
// the hardware threads (0 when they are unknown, hw 0), at most 1. It
// takes JFR's active processor count to be the hardware threads (no CPU
// affinity or container limit), and overstates the share of a thread that
// was often nearly idle: a period with under 1 ms of its CPU sends no
// event (jfrjson.ThreadCPULoad), so Load averages the busier periods.
func (l ThreadCPULoad) OnCPU(hw int64) float64 { return math.Min(l.Load*float64(hw), 1) }

// recording is the aggregate of a recording's samples.
type recording struct {
	methods  map[jfrjson.Method]int // → index in meths
	meths    []*methodData
	threads  []*threadData
	byThread map[threadKey]int
	stacks   map[string]*stackData
	order    []string // stack keys in first-seen order
	times    []int64  // sample times, sorted at the end

	samples, truncated, empty int
	nativeOnly                int // samples whose every frame is Native
	// cpuLoad sums each thread's jdk.ThreadCPULoad events (cpuOrder: in
	// order of the first); hwThreads is jdk.CPUInformation's.
	cpuLoad   map[string]*ThreadCPULoad
	cpuOrder  []string
	hwThreads int64
	// unusable counts, per thread, the samples that were empty or
	// truncated; names keeps those threads' names in first-seen order.
	unusable                map[threadKey]int
	unusableOrder           []threadKey
	maxFrames, atPrintDepth int // the deepest stack; stacks of exactly PrintDepth frames
	compilations, inlinings int
	frameTypes              map[jfrjson.FrameType]int

	// native holds the jdk.NativeMethodSample events until the stream
	// has told which threads have execution samples (addNative).
	native nativeSamples
	// throws holds the jdk.JavaExceptionThrow events until the period is
	// known (addThrows).
	throws throwSamples
	// nativeUsed counts the native samples added to the model's threads;
	// nativeOther those of threads without execution samples, by thread
	// in first-seen order; nativeThreads the model threads with native
	// samples.
	nativeUsed, nativeOther int
	nativeOtherThreads      []string
	// nativeModelled is how many execution samples' worth the used native
	// samples became (addNative).
	nativeModelled int
	nativeThreads  int

	// recorder names the recorder's threads whose samples were left out
	// (first-seen order); recorderSamples counts those samples.
	recorder        []string
	recorderSamples int

	// sample's buffers.
	key    []byte
	frames []frameRef
	depth  map[int]int
}

// nativeSamples aggregates native method samples by thread and stack.
type nativeSamples struct {
	stacks map[string]*nativeStack
	order  []string
	// times are every native sample's time, of any thread: each is a
	// tick of JFR's sampler thread (EstimatePeriod).
	times            []int64
	truncated, empty int
	count            int // the usable ones
	key              strings.Builder
	// spans holds each thread's first and last usable native sample.
	spans map[threadKey]*[2]int64
}

type nativeStack struct {
	s     *jfrjson.Sample // the first sample of the stack, Time the earliest
	count int
}

// add aggregates one native method sample.
func (ns *nativeSamples) add(s *jfrjson.Sample) {
	ns.times = append(ns.times, s.Time.UnixNano())
	if s.Truncated || len(s.Frames) == 0 {
		if s.Truncated {
			ns.truncated++
		} else {
			ns.empty++
		}
		return
	}
	k := &ns.key
	stackKey(k, s.Thread, "", s.Frames)
	ns.count++
	at, tk := s.Time.UnixNano(), threadKey{s.Thread.Name, threadID(s.Thread)}
	if sp, ok := ns.spans[tk]; ok {
		sp[0], sp[1] = min(sp[0], at), max(sp[1], at)
	} else {
		ns.spans[tk] = &[2]int64{at, at}
	}
	st, ok := ns.stacks[k.String()]
	if !ok {
		st = &nativeStack{s: s}
		ns.stacks[k.String()] = st
		ns.order = append(ns.order, k.String())
	}
	if s.Time.Before(st.s.Time) {
		st.s.Time = s.Time
	}
	st.count++
}

// stackKey writes into k a key for a stack of thread (and, for a
// throwable, its class): equal keys, equal stacks.
func stackKey(k *strings.Builder, t jfrjson.Thread, class string, frames []jfrjson.Frame) {
	k.Reset()
	fmt.Fprintf(k, "%q %d", t.Name, threadID(t))
	if class != "" {
		fmt.Fprintf(k, " %q", class)
	}
	for _, f := range frames {
		fmt.Fprintf(k, ";%q.%q%q@%d:%s", f.Method.Class, f.Method.Name, f.Method.Descriptor, f.BCI, f.Type)
	}
}

// rounder turns fractional sample counts into whole ones, rounding their
// running total, so that the whole counts add up to the fractions' total
// to within one.
type rounder struct {
	total   float64
	emitted int
}

// add adds x and returns the whole samples it brings (0 or more).
func (r *rounder) add(x float64) int {
	r.total += x
	n := int(math.Round(r.total)) - r.emitted
	if n <= 0 {
		return 0
	}
	r.emitted += n
	return n
}

// addNative adds the native samples of threads that have execution
// samples — the model's threads — to the aggregate: a native method's
// samples become its self time, as execution samples are a Java method's,
// each native sample weighing scale execution samples (weigh), rounded
// over all stacks together. The native samples of other threads (idle in
// native code, or native all along: JFR cannot tell running from waiting
// there) are counted, not modelled.
func (rec *recording) addNative(scale float64) {
	ns := &rec.native
	with := map[int]bool{}
	other := map[string]bool{}
	var r rounder
	for _, k := range ns.order {
		st := ns.stacks[k]
		ti, ok := rec.byThread[threadKey{st.s.Thread.Name, threadID(st.s.Thread)}]
		if !ok {
			rec.nativeOther += st.count
			if !other[st.s.Thread.Name] {
				other[st.s.Thread.Name] = true
				rec.nativeOtherThreads = append(rec.nativeOtherThreads, st.s.Thread.Name)
			}
			continue
		}
		with[ti] = true
		rec.nativeUsed += st.count
		if n := r.add(float64(st.count) * scale); n > 0 {
			rec.sample(st.s, n)
		}
	}
	rec.nativeModelled = r.emitted
	rec.nativeThreads = len(with)
	ns.stacks, ns.order = nil, nil
}

type threadKey struct {
	name string
	id   int64
}

type threadData struct {
	name    string
	samples int
	first   int64 // Unix ns of the first sample
	last    int64 // and of the last
	roots   map[int]int
	order   []int // roots in first-seen order
}

// methodData is what the samples say about one method.
type methodData struct {
	m jfrjson.Method
	// self: samples with the method as leaf, by bytecode index.
	self map[int]int
	// sites: inclusive samples below each call site, by (bci, callee),
	// counted once per occurrence of the edge on a stack.
	sites map[siteKey]int
	// roots: samples with the method as a thread's root frame.
	roots    int
	maxDepth int // most frames of this method on one stack
	native   bool
	// compiled and interpreted count the method's frames whose type is
	// JIT compiled or Inlined (running in compiled code), and
	// Interpreted.
	compiled, interpreted int
	// inlined and called count the method's frames below a compiled
	// caller frame (JIT compiled or Inlined) that were Inlined into it,
	// and that were not (a real call from compiled code).
	inlined, called int
	// byCaller counts the method's frames, and each call site's inclusive
	// samples (as sites), by the method of the frame below (its caller; a
	// thread's root frame has none); byDepth the same by the method's
	// depth, how many frames of it the stack holds up to this one.
	byCaller, byDepth partCounts
	// siteInlining counts, per call site and callee, the callee's frames
	// below this method's compiled frames (JIT compiled or Inlined) that
	// were not Inlined into it ([0]) and that were ([1]).
	siteInlining map[siteKey][2]int
}

// partCounts counts a method's frames by a part of its calls (a caller,
// a depth), and each of its call sites' inclusive samples in each part.
type partCounts struct {
	incl  map[int]int
	sites map[siteKey]map[int]int
}

// add counts n samples of a frame in part, below its call at site (nil
// for the leaf).
func (pc *partCounts) add(part int, site *siteKey, n int) {
	if pc.incl == nil {
		pc.incl, pc.sites = map[int]int{}, map[siteKey]map[int]int{}
	}
	pc.incl[part] += n
	if site != nil {
		if pc.sites[*site] == nil {
			pc.sites[*site] = map[int]int{}
		}
		pc.sites[*site][part] += n
	}
}

type siteKey struct {
	bci    int
	callee int
}

type stackData struct {
	thread int
	frames []frameRef // root first
	count  int
}

type frameRef struct {
	method, bci int
}

func aggregate(ctx context.Context, r io.Reader, keepRecorder bool) (*recording, error) {
	rec := &recording{methods: map[jfrjson.Method]int{}, byThread: map[threadKey]int{}, stacks: map[string]*stackData{},
		frameTypes: map[jfrjson.FrameType]int{}, unusable: map[threadKey]int{}}
	rec.depth = map[int]int{}
	rec.native.stacks = map[string]*nativeStack{}
	rec.native.spans = map[threadKey]*[2]int64{}
	rec.throws.stacks = map[string]*throwStack{}
	rec.throws.sites = map[throwSite]map[int]int{}
	rec.cpuLoad = map[string]*ThreadCPULoad{}
	recorder := map[string]bool{}
	err := jfrjson.Read(r, func(e *jfrjson.Event) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		switch {
		case e.CPUInfo != nil:
			rec.hwThreads = e.CPUInfo.HWThreads
		case e.CPULoad != nil:
			n := e.CPULoad.Thread.Name
			if !keepRecorder && IsRecorderThread(n) {
				return nil
			}
			l := rec.cpuLoad[n]
			if l == nil {
				l = &ThreadCPULoad{Thread: n}
				rec.cpuLoad[n] = l
				rec.cpuOrder = append(rec.cpuOrder, n)
			}
			l.Events++
			l.Load += e.CPULoad.User + e.CPULoad.System
		case e.Compilation != nil:
			rec.compilations++
		case e.Inlining != nil:
			rec.inlinings++
		case e.Throw != nil:
			if !keepRecorder && IsRecorderThread(e.Throw.Thread.Name) {
				rec.throws.events += max(e.Throw.Count, 1)
				rec.throws.recorder += max(e.Throw.Count, 1)
				return nil
			}
			rec.throws.add(e.Throw)
		case e.NativeSample != nil:
			if s := e.NativeSample; !keepRecorder && IsRecorderThread(s.Thread.Name) {
				rec.native.times = append(rec.native.times, s.Time.UnixNano())
				rec.recorderSamples++
				return nil
			}
			rec.native.add(e.NativeSample)
		case e.Sample != nil:
			s := e.Sample
			if !keepRecorder && IsRecorderThread(s.Thread.Name) {
				// Its tick still counts (EstimatePeriod): the sampler
				// walked this thread in it.
				rec.times = append(rec.times, s.Time.UnixNano())
				rec.recorderSamples++
				if !recorder[s.Thread.Name] {
					recorder[s.Thread.Name] = true
					rec.recorder = append(rec.recorder, s.Thread.Name)
				}
				return nil
			}
			if s.Truncated || len(s.Frames) == 0 {
				if s.Truncated {
					rec.truncated++
				} else {
					rec.empty++
				}
				k := threadKey{s.Thread.Name, threadID(s.Thread)}
				if rec.unusable[k] == 0 {
					rec.unusableOrder = append(rec.unusableOrder, k)
				}
				rec.unusable[k]++
				return nil
			}
			rec.samples++
			rec.times = append(rec.times, s.Time.UnixNano())
			if rec.sample(s, 1) == len(s.Frames) {
				rec.nativeOnly++
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	rec.times = append(rec.times, rec.native.times...)
	rec.native.times = nil
	sort.Slice(rec.times, func(i, j int) bool { return rec.times[i] < rec.times[j] })
	return rec, nil
}

// sample adds n samples of stack s to the aggregate (s has frames and is
// not truncated) and returns how many of its frames are Native.
func (rec *recording) sample(s *jfrjson.Sample, n int) int {
	rec.maxFrames = max(rec.maxFrames, len(s.Frames))
	if len(s.Frames) == PrintDepth {
		rec.atPrintDepth += n
	}
	th := rec.thread(s.Thread, s.Time.UnixNano())
	th.samples += n
	frames := rec.frames[:0]
	native := 0
	for i := len(s.Frames) - 1; i >= 0; i-- {
		f := &s.Frames[i]
		rec.frameTypes[f.Type] += n
		mi := rec.method(f.Method)
		switch f.Type {
		case jfrjson.Native:
			rec.meths[mi].native = true
			native++
		case jfrjson.JITCompiled, jfrjson.Inlined:
			rec.meths[mi].compiled += n
		case jfrjson.Interpreted:
			rec.meths[mi].interpreted += n
		}
		frames = append(frames, frameRef{method: mi, bci: max(f.BCI, 0)})
	}
	rec.frames = frames
	for i := 0; i+1 < len(s.Frames); i++ { // s.Frames[i+1] calls s.Frames[i]
		callee, caller := &s.Frames[i], &s.Frames[i+1]
		if caller.Type != jfrjson.JITCompiled && caller.Type != jfrjson.Inlined {
			continue
		}
		calleeRef, callerRef := frames[len(frames)-1-i], frames[len(frames)-2-i]
		md := rec.meths[calleeRef.method]
		inlined := 0
		switch callee.Type {
		case jfrjson.Inlined:
			md.inlined += n
			inlined = 1
		case jfrjson.JITCompiled, jfrjson.Interpreted:
			md.called += n
		default:
			continue
		}
		cd := rec.meths[callerRef.method]
		if cd.siteInlining == nil {
			cd.siteInlining = map[siteKey][2]int{}
		}
		k := siteKey{bci: callerRef.bci, callee: calleeRef.method}
		c := cd.siteInlining[k]
		c[inlined] += n
		cd.siteInlining[k] = c
	}
	root := frames[0].method
	rec.meths[root].roots += n
	if _, ok := th.roots[root]; !ok {
		th.order = append(th.order, root)
	}
	th.roots[root] += n
	clear(rec.depth)
	for i, f := range frames {
		rec.depth[f.method]++
		md := rec.meths[f.method]
		md.maxDepth = max(md.maxDepth, rec.depth[f.method])
		var site *siteKey
		if i+1 < len(frames) {
			site = &siteKey{bci: f.bci, callee: frames[i+1].method}
		}
		md.byDepth.add(rec.depth[f.method], site, n)
		if i > 0 {
			md.byCaller.add(frames[i-1].method, site, n)
		}
		if i+1 < len(frames) {
			md.sites[siteKey{bci: f.bci, callee: frames[i+1].method}] += n
		} else {
			md.self[f.bci] += n
		}
	}
	ti := rec.byThread[threadKey{s.Thread.Name, threadID(s.Thread)}]
	key := fmt.Appendf(rec.key[:0], "%d", ti)
	for _, f := range frames {
		key = fmt.Appendf(key, ";%d@%d", f.method, f.bci)
	}
	rec.key = key
	sd, ok := rec.stacks[string(key)]
	if !ok {
		sd = &stackData{thread: ti, frames: append([]frameRef(nil), frames...)}
		rec.stacks[string(key)] = sd
		rec.order = append(rec.order, string(key))
	}
	sd.count += n
	return native
}

// dropped lists the threads with samples none of which was usable.
func (rec *recording) dropped() []string {
	var out []string
	for _, k := range rec.unusableOrder {
		if _, ok := rec.byThread[k]; !ok {
			out = append(out, k.name)
		}
	}
	return out
}

func threadID(t jfrjson.Thread) int64 {
	if t.IsJava {
		return t.JavaID
	}
	return -t.OSID - 1
}

func (rec *recording) thread(t jfrjson.Thread, at int64) *threadData {
	k := threadKey{t.Name, threadID(t)}
	if i, ok := rec.byThread[k]; ok {
		th := rec.threads[i]
		th.first = min(th.first, at)
		th.last = max(th.last, at)
		return th
	}
	rec.byThread[k] = len(rec.threads)
	th := &threadData{name: t.Name, first: at, last: at, roots: map[int]int{}}
	rec.threads = append(rec.threads, th)
	return th
}

func (rec *recording) method(m jfrjson.Method) int {
	m.Hidden = false // the same method, whatever the frame says
	if i, ok := rec.methods[m]; ok {
		return i
	}
	rec.methods[m] = len(rec.meths)
	rec.meths = append(rec.meths, &methodData{m: m, self: map[int]int{}, sites: map[siteKey]int{}})
	return len(rec.meths) - 1
}

// className is a JFR class name in the model's form: '.' separators.
func className(c string) string { return strings.ReplaceAll(c, "/", ".") }

// safeIdent replaces what a workload name may not contain (whitespace,
// ; | ( ) and, in method names, '.') with '_'.
func safeIdent(s string, dots bool) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == ';' || r == '|' || r == '(' || r == ')':
			return '_'
		case r == '.' && !dots:
			return '_'
		}
		return r
	}, s)
}
