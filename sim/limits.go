package sim

import (
	"context"
	"fmt"
	"math"
)

// Limits bound what one run may hold, so that a hostile or mistaken
// program (a spawn storm, a recursion through virtual calls with a new
// calling context at every call, a million threads) stops with an error
// naming the limit instead of exhausting the machine's memory. They are
// checked as the run goes, in simulated-time order: the same program,
// seed and limits stop at the same point. A zero field is no limit.
type Limits struct {
	// MaxThreads bounds the application threads created over the run: the
	// program's threads and every spawned one (the VM's service threads
	// are not counted). ≥ 0.
	MaxThreads int
	// MaxMemory bounds the run's estimated memory in bytes (Footprint):
	// the exact calling-context tree with the truth profile built from
	// it, the threads and their stacks. ≥ 0.
	MaxMemory int64
}

// MaxCPUs is the most simulated CPUs a run may have. The scheduler visits
// every CPU in every round, so a run's cost grows with the count; the
// largest servers have a few hundred hardware threads.
const MaxCPUs = 1024

// MaxThreadsLimit is the largest MaxThreads: thread IDs are int32, and a
// run keeps a few VM service threads besides the application's.
const MaxThreadsLimit = math.MaxInt32 - 1024

// DefaultLimits are sized for a machine with 24 GiB of memory: a run's
// estimate stays within half of it (profsim run also sets Go's soft
// memory limit to MaxMemory, so the collector keeps the process near the
// estimate). 100 000 threads cost about 150 MiB; real Java programs run
// hundreds to a few thousand.
func DefaultLimits() Limits {
	return Limits{MaxThreads: 100_000, MaxMemory: 12 << 30}
}

// Validate names the first invalid field.
func (l Limits) Validate() error {
	switch {
	case l.MaxThreads < 0 || l.MaxThreads > MaxThreadsLimit:
		return fmt.Errorf("max_threads: %d must be in [0, %d]", l.MaxThreads, MaxThreadsLimit)
	case l.MaxMemory < 0:
		return fmt.Errorf("max_memory: %d must be ≥ 0", l.MaxMemory)
	}
	return nil
}

// LimitError stops a run that reached one of its Limits.
type LimitError struct {
	// Limit is "threads" (Limits.MaxThreads) or "memory" (Limits.MaxMemory).
	Limit string
	// Value is what the run would have reached; Max the limit.
	Value, Max int64
	// At is the simulated time the run stopped at.
	At Time
	// Detail says what was reached, in the model's terms.
	Detail string
}

func (e *LimitError) Error() string {
	switch e.Limit {
	case "memory":
		return fmt.Sprintf("memory limit: the run would hold %s (%s) at %v simulated, over the limit of %s",
			FormatBytes(e.Value), e.Detail, e.At, FormatBytes(e.Max))
	default:
		return fmt.Sprintf("thread limit: the run would create %d application threads (%s) at %v simulated, over the limit of %d",
			e.Value, e.Detail, e.At, e.Max)
	}
}

// FormatBytes writes n bytes in the largest binary unit that keeps a
// whole number, as --max-memory reads it ("8GiB", "1536MiB", "100B").
func FormatBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for n != 0 && n%1024 == 0 && i < len(units)-1 {
		n /= 1024
		i++
	}
	if i == 0 && n >= 10*1024 {
		// Not a whole number of KiB: say roughly how much.
		f, j := float64(n), 0
		for f >= 1024 && j < len(units)-1 {
			f /= 1024
			j++
		}
		return fmt.Sprintf("%.1f%s", f, units[j])
	}
	return fmt.Sprintf("%d%s", n, units[i])
}

// The footprint model: what one unit of the run costs in bytes of Go
// heap. The estimate covers what the run and the truth profile built from
// it keep live, not the samplers' profiles (nor the export of profiles to
// files, which profsim run estimates itself). The truth recorder keeps its
// nodes and line cells in fixed-size chunks (truth.go), and
// harness.TruthProfile allocates its context table and samples exactly
// (it counts them first), so each unit's price is its size plus a little
// rounding. Measured on the javac stand-in (hotspot17) for 1 s, 1.25 M
// contexts, 3.6 M truth samples and 4.2 M truth-profile contexts:
// estimated 422 MB before the truth profile is built; BenchmarkWorkloads'
// peak heap 346 MB (docs/PERFORMANCE.md). profsim run releases the
// recorder as it builds the truth profile (harness.Config.ReleaseTruth),
// so the two are never held at once and the estimate is above what it
// holds: its peak RSS with --samplers truth is 255 MB (GOGC=25, 512 MB
// when it kept the recorder).
const (
	// contextBytes: a calling context's node in the recorder, 40 bytes
	// in a chunk, and its share of the chunk table.
	contextBytes = 48
	// lineBytes: one line cell of a context (self time and bytecodes),
	// 16 bytes, and what a chunk's tail may leave unused when a node's
	// cells do not fit in it.
	lineBytes = 24
	// profileContextBytes: a context's line-0 context in the truth
	// profile's table (a profile.Context, 20 bytes) and
	// harness.TruthProfile's per-node scratch while it builds the table
	// (method, child-list and index tables: 17 bytes; before the table,
	// while it counts, also each node's parent and, in Collect, its
	// depth: 25 bytes).
	profileContextBytes = 44
	// sampleBytes: one sample of the truth profile (a context's line with
	// self time): a profile.Sample, 24 bytes, and its leaf context, 20.
	sampleBytes = 44
	// threadBytes: a thread (its state, random stream, name, statistics
	// and a row of the report), besides its stack.
	threadBytes = 1536
	// frameBytes: one frame of a thread's deepest stack so far (stacks
	// keep their capacity), its loop counters included.
	frameBytes = 96
	// activeBytes: a thread's count of active frames of one method with a
	// recursion limit.
	activeBytes = 4
	// instrBytes: one instruction of the program's base code and the
	// statement it comes from: the program.Stmt with its kind's struct
	// (100 bytes) and the image, the instruction in the base code and in
	// the JIT's interpreted copy with the methods' tables (171 bytes).
	// Measured live after harness.Build on workloads of 10⁶ statements
	// (1.01 M instructions) written three ways: 271, 256 and 271 bytes
	// with a 72-byte Instr, 16 less since it is 64.
	instrBytes = 280
	// fileByteBytes: what one byte of a workload file may cost once read
	// and built into a run, before its program is known: the file itself
	// while it is decoded and instrBytes per instruction. A statement
	// written one a line takes 38 bytes (7 bytes of memory a byte), the
	// densest measured, in flow lists, 23 (11 a byte, 13.6 at peak RSS
	// with the collector's slack); the densest possible about 20.
	fileByteBytes = 15
)

// WorkloadBytes is the estimated memory of a workload file of size bytes
// once read and built into a run (fileByteBytes a byte): profsim run
// refuses a file whose estimate is over Limits.MaxMemory before reading
// it.
func WorkloadBytes(size int64) int64 { return satMul(size, fileByteBytes) }

// WorkloadBytesPerByte is WorkloadBytes' price of one byte.
const WorkloadBytesPerByte = fileByteBytes

// Footprint is a run's estimated memory, by part (Limits.MaxMemory).
type Footprint struct {
	Contexts, Lines int64
	// ProfileContexts and Samples are the truth profile's: its context
	// table's line-0 contexts and its samples. StackFrames is the
	// frames its samples' stacks would hold if each were written out
	// whole (JSON, folded stacks): not priced, the table shares them.
	ProfileContexts, Samples, StackFrames int64
	Threads, Frames                       int64
	// ThreadBytes is what one thread costs besides its frames.
	ThreadBytes int64
	// Instrs is the instructions of the program's base code: the
	// program and its code, held from the start.
	Instrs int64
	// MarkBytes is the copy of the run's counts a profiled window keeps
	// (VM.MarkCounts) until the run is over.
	MarkBytes int64
}

// Bytes is the estimate.
func (f Footprint) Bytes() int64 {
	return satAdd(satMul(f.Contexts, contextBytes), satMul(f.Lines, lineBytes), satMul(f.ProfileContexts, profileContextBytes),
		satMul(f.Samples, sampleBytes), satMul(f.Threads, f.ThreadBytes), satMul(f.Frames, frameBytes),
		satMul(f.Instrs, instrBytes), f.MarkBytes)
}

func (f Footprint) String() string {
	s := fmt.Sprintf("%d calling contexts, %d samples in the truth profile, %d threads, %d frames on their stacks, a program of %d instructions",
		f.Contexts, f.Samples, f.Threads, f.Frames, f.Instrs)
	if f.MarkBytes > 0 {
		s += fmt.Sprintf(", %s of counts kept at the profiled window's start", FormatBytes(f.MarkBytes))
	}
	return s
}

func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

func satAdd(xs ...int64) int64 {
	var s int64
	for _, x := range xs {
		if s > math.MaxInt64-x {
			return math.MaxInt64
		}
		s += x
	}
	return s
}

// Err is why the run stopped early: a *LimitError, the error of the
// context given to SetContext, or nil.
func (vm *VM) Err() error { return vm.err }

// SetContext makes the run stop, with ctx's error (Err), once ctx is
// done: RunUntil looks at it once per scheduling round.
func (vm *VM) SetContext(ctx context.Context) { vm.ctx = ctx }

// stopAt ends the run at the present with err.
func (vm *VM) stopAt(err *LimitError) {
	err.At = vm.now
	vm.err = err
	vm.done = true
}

// threadCost is what one more thread adds to the footprint.
func (vm *VM) threadCost() int64 { return threadBytes + activeBytes*int64(vm.img.limited) }

// overMemory reports whether the footprint is over the limit, and if so
// stops the run.
func (vm *VM) overMemory() bool {
	if vm.cfg.Limits.MaxMemory == 0 {
		return false
	}
	if b := vm.foot.Bytes(); b <= vm.cfg.Limits.MaxMemory {
		vm.memHeadroom = vm.cfg.Limits.MaxMemory - b
		return false
	}
	vm.stopAt(&LimitError{Limit: "memory", Value: vm.foot.Bytes(), Max: vm.cfg.Limits.MaxMemory, Detail: vm.foot.String()})
	return true
}

// newContext accounts a calling context created at stack depth depth
// (the entry method's is 1) with lines line slots, expecting one sample
// of the truth profile from it. It reports whether the run must stop.
func (vm *VM) newContext(lines int32, depth int) bool {
	vm.foot.Contexts++
	vm.foot.Lines += int64(lines)
	price := contextBytes + int64(lines)*lineBytes
	if !vm.noTruthProfile {
		vm.foot.ProfileContexts++
		vm.foot.Samples++
		vm.foot.StackFrames += int64(depth)
		price += profileContextBytes + sampleBytes
	}
	// The estimate grew by at most price (less where a term saturates):
	// within the headroom the last check left, it is still under the
	// limit, and the estimate, its products and their divisions, need not
	// be made again (javac: 1.25 M contexts a simulated second).
	if price <= vm.memHeadroom {
		vm.memHeadroom -= price
		return false
	}
	return vm.overMemory()
}

// NoTruthProfile tells the footprint estimate that nobody will build the
// truth profile (harness.TruthProfile) of this run: its samples are not
// counted. Call it before Run.
func (vm *VM) NoTruthProfile() {
	vm.noTruthProfile = true
	vm.foot.ProfileContexts, vm.foot.Samples, vm.foot.StackFrames = 0, 0, 0
}

// TruthPerMethod makes the ground truth per method instead of per calling
// context: the recorder keeps one context per method, a child of the root,
// so a method's self time, bytecodes, allocations, calls and lines are
// summed over all its calling contexts. Those, the call edges' counts and
// every total are what the calling-context tree gives, and the run
// executes exactly as with it (the recorder is not part of the VM that
// threads, samplers and the JIT see); what needs the contexts is lost: the
// truth profile's stacks are one frame deep, so it holds no inclusive
// time. A call then finds its context by one index instead of a search of
// its caller's children, and the recorder's memory is bounded by the
// program's methods: context-rich programs run up to three times faster
// (docs/PERFORMANCE.md). Call it before Run; it fails once a context below
// the root exists.
func (vm *VM) TruthPerMethod() error {
	for _, t := range []*Truth{vm.truth, vm.unprofiled} {
		if t == nil || t.perMethod != nil {
			continue
		}
		for i := int32(1); i < t.count; i++ {
			if t.node(i).parent != 0 {
				return fmt.Errorf("sim: TruthPerMethod after the run has started")
			}
		}
	}
	for _, t := range []*Truth{vm.truth, vm.unprofiled} {
		if t == nil || t.perMethod != nil {
			continue
		}
		t.perMethod = make([]methodContext, len(t.lineCount))
		for i := int32(1); i < t.count; i++ {
			t.setMethodContext(t.node(i).method, i)
		}
	}
	return nil
}

// deeper accounts t's stack reaching a new depth. It reports whether the
// run must stop.
func (vm *VM) deeper(t *Thread) bool {
	vm.foot.Frames += int64(len(t.frames) - t.peakFrames)
	t.peakFrames = len(t.frames)
	return vm.overMemory()
}

// allowThreads checks that n more application threads fit the limits; if
// not, it stops the run and reports false.
func (vm *VM) allowThreads(n int, what string) bool {
	total := int64(vm.appThreads) + int64(n)
	if max := vm.cfg.Limits.MaxThreads; max > 0 && total > int64(max) {
		vm.stopAt(&LimitError{Limit: "threads", Value: total, Max: int64(max), Detail: what})
		return false
	}
	f := vm.foot
	f.Threads = satAdd(f.Threads, int64(n))
	if max := vm.cfg.Limits.MaxMemory; max > 0 && f.Bytes() > max {
		vm.stopAt(&LimitError{Limit: "memory", Value: f.Bytes(), Max: max, Detail: f.String() + "; " + what})
		return false
	}
	return true
}

// CheckProfile checks, before the truth profile is built from the
// finished run, that it fits Limits.MaxMemory: the estimate so far
// expected one sample per calling context, and the profile has one per
// (context, line) with self time.
func (vm *VM) CheckProfile() error {
	if vm.err != nil || vm.cfg.Limits.MaxMemory == 0 {
		return vm.err
	}
	return vm.CheckFootprint(vm.Footprint())
}

// CheckFootprint is CheckProfile for f, the run's footprint as Footprint
// or FootprintWith gives it after the run: a caller that holds it, or
// counts the truth profile itself (harness.Rig.Collect), checks it
// without another pass over every context's lines.
func (vm *VM) CheckFootprint(f Footprint) error {
	if vm.err != nil {
		return vm.err
	}
	if max := vm.cfg.Limits.MaxMemory; max > 0 && f.Bytes() > max {
		return &LimitError{Limit: "memory", Value: f.Bytes(), Max: max, At: vm.now, Detail: f.String()}
	}
	return nil
}

// Footprint is the run's estimated memory so far, the truth profile
// counted as harness.TruthProfile would build it now.
func (vm *VM) Footprint() Footprint {
	f := vm.foot
	if !vm.noTruthProfile {
		f.Samples, f.StackFrames = vm.truth.profileSize()
	}
	return f
}

// FootprintWith is Footprint with the truth profile's samples and their
// stacks' frames as the caller counted them (harness's Collect, in the
// pass that builds the profile): Footprint when they are what
// profileSize counts.
func (vm *VM) FootprintWith(samples, frames int64) Footprint {
	f := vm.foot
	if !vm.noTruthProfile {
		f.Samples, f.StackFrames = samples, frames
	}
	return f
}

// profileSize is how many samples harness.TruthProfile makes and how
// many frames their stacks hold.
func (t *Truth) profileSize() (samples, frames int64) {
	depth := make([]int32, t.count) // parents precede their children
	for i := int32(1); i < t.count; i++ {
		n := t.node(i)
		depth[i] = depth[n.parent] + 1
		for l := range n.lines {
			c := t.cell(n.lineBase + l)
			if c.self != 0 {
				samples++
				frames += int64(depth[i])
			}
		}
	}
	return samples, frames
}
