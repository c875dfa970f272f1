// Package jit decides how the simulated VM compiles a program: which tier
// each method runs in, what is inlined where, where the yield points
// (polls) are and which positions have debug information. It executes
// nothing: it builds sim.Code versions and installs them, driven by the
// VM's invocation and back-edge counters and by a compiler thread whose
// simulated CPU time delays every installation.
package jit

import (
	"fmt"
	"math"

	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/sim"
)

// Flavour is the VM whose yield-point placement is modelled.
type Flavour uint8

// Flavours.
const (
	// HotSpot polls at method returns (after the frame is popped) and loop
	// back-edges; counted loops lose their back-edge poll; inlined callees
	// have no return poll.
	HotSpot Flavour = iota
	// Jikes has yield points in every prologue, epilogue and back-edge
	// (Arnold & Grove's base system).
	Jikes
)

func (f Flavour) String() string {
	if f == Jikes {
		return "jikes"
	}
	return "hotspot"
}

// ParseFlavour reads "hotspot" or "jikes".
func ParseFlavour(s string) (Flavour, error) {
	switch s {
	case "hotspot":
		return HotSpot, nil
	case "jikes":
		return Jikes, nil
	}
	return 0, fmt.Errorf("unknown VM flavour %q (want hotspot or jikes)", s)
}

// Config is the JIT's policy. Sizes are in bytecodes (MethodSize). Every
// field but Flavour (a VM preset sets it) is a param key, set from the
// command line as jit.KEY; src names the HotSpot flag a default comes from.
type Config struct {
	Flavour Flavour
	// Tiered starts every method in the interpreter and compiles it when a
	// counter passes its threshold (HotSpot's mixed mode: one compiled
	// tier, C2, as with -XX:-TieredCompilation; HotSpot 17's C1 tier is not
	// modelled); false compiles everything up front (with only size-based
	// inlining, as no profile exists yet), which is closest to -Xcomp.
	Tiered bool `key:"tiered" doc:"interpret first, compile when a counter passes its threshold (false: compile every method up front, like -Xcomp)" src:"HotSpot mixed mode (default; -Xcomp is false)"`
	// InterpretOnly runs every method interpreted for the whole run and
	// compiles nothing (HotSpot's -Xint: Arguments::set_mode_flags(_int)
	// in runtime/arguments.cpp turns UseCompiler off). It needs Tiered:
	// interpreting everything and compiling everything up front exclude
	// each other.
	InterpretOnly bool `key:"interpret_only" doc:"interpret every method for the whole run, compile nothing (like -Xint; needs tiered=true)" src:"HotSpot -Xint (off: mixed mode)"`
	// CompileThreshold is the invocation count that queues a method for
	// compilation (HotSpot's CompileThreshold, 10000 for C2).
	CompileThreshold int64 `key:"compile_threshold" check:">=1" unit:"invocations" doc:"invocation count that queues a method for compilation" src:"HotSpot -XX:CompileThreshold (C2: 10000)"`
	// BackedgeThreshold is the back-edge count that queues a method for
	// on-stack replacement of its running loop (HotSpot derives it:
	// CompileThreshold × OnStackReplacePercentage / 100 = 14000).
	BackedgeThreshold int64 `key:"backedge_threshold" check:">=1" unit:"back-edges" doc:"back-edge count that queues a method for on-stack replacement" src:"HotSpot CompileThreshold × -XX:OnStackReplacePercentage (140) / 100 = 14000"`
	// Inline enables inlining.
	Inline bool `key:"inline" doc:"let the JIT inline" src:"HotSpot -XX:+Inline (true)"`
	// MaxInlineSize: callees this small are always inlined (35).
	MaxInlineSize int64 `key:"max_inline_size" check:">=0" unit:"bytecodes" doc:"callees this small are inlined at any call site" src:"HotSpot -XX:MaxInlineSize (35)"`
	// FreqInlineSize: callees up to this size are inlined at hot call
	// sites (325).
	FreqInlineSize int64 `key:"freq_inline_size" check:">=0" unit:"bytecodes" doc:"callees up to this size are inlined at hot call sites" src:"HotSpot -XX:FreqInlineSize (325 on x86-64)"`
	// HotCallCount: a call site that ran at least this often when the
	// caller is compiled is hot (HotSpot's InlineFrequencyCount, 100).
	HotCallCount int64 `key:"hot_call_count" check:">=0" unit:"calls" doc:"a call site that ran this often when its caller is compiled is hot (unless hot_call_ratio > 0)" src:"HotSpot 17 -XX:InlineFrequencyCount (100, diagnostic; gone by JDK 25)"`
	// HotCallRatio, when > 0, replaces HotCallCount's rule by HotSpot's
	// after JDK 17: a call site is hot when it ran at least this many
	// times per invocation of its caller (the caller's invocation
	// counter, at least 1), as InlineTree::should_inline
	// (opto/bytecodeInfo.cpp) computes freq = call_site_count /
	// invoke_count in double. 0 keeps JDK 17's count rule; JDK 17's own
	// ratio (InlineFrequencyRatio, an integer develop flag of 20) is not
	// modelled.
	HotCallRatio float64 `key:"hot_call_ratio" check:">=0" unit:"calls per caller invocation" doc:"when > 0, a call site that ran this many times per invocation of its caller is hot, and hot_call_count is not used" src:"0 (HotSpot 17's count rule); --vm hotspot25: 0.25, HotSpot 25 -XX:InlineFrequencyRatio (diagnostic; opto/bytecodeInfo.cpp InlineTree::should_inline)"`
	// MinCallRatio, when > 0, refuses to inline a callee larger than
	// MaxTrivialSize at a call site that ran fewer times than this per
	// invocation of its caller ("low call site frequency",
	// InlineTree::should_not_inline after JDK 17). HotSpot takes the
	// larger of MinInlineFrequencyRatio and 1 / Tier4MinInvocationThreshold
	// (1/600), i.e. MinInlineFrequencyRatio at the defaults. Compile
	// commands come first, and it does not apply with tiered=false (like
	// -Xcomp: "don't use counts") or with a sampled profile (SetProfile).
	MinCallRatio float64 `key:"min_call_ratio" check:">=0" unit:"calls per caller invocation" doc:"when > 0, a call site that ran fewer times than this per invocation of its caller does not inline callees larger than 6 bytecodes" src:"0 (HotSpot 17 has no such rule; its MinInliningThreshold=250 on the callee's invocations is not modelled); --vm hotspot25: 0.0085, HotSpot 25 -XX:MinInlineFrequencyRatio (diagnostic; opto/bytecodeInfo.cpp InlineTree::should_not_inline)"`
	// MaxInlineLevel bounds the depth of the inlining tree (9; HotSpot 14
	// and later: 15).
	MaxInlineLevel int `key:"max_inline_level" check:">=0" unit:"levels" doc:"depth bound of the inlining tree" src:"HotSpot -XX:MaxInlineLevel (9 until JDK 13, 15 since JDK 14)"`
	// MaxRecursiveInlineLevel is how many times a callee may already be on
	// the inlining path (the method being compiled and the callees inlined
	// into it down to the call site) for the JIT to inline it again: 0
	// inlines no recursive call, 1 one level of a recursion, as C2 does
	// by default (InlineTree::try_to_inline, opto/bytecodeInfo.cpp,
	// counts the callee among the caller and the caller's callers and
	// refuses above -XX:MaxRecursiveInlineLevel, "recursive inlining is
	// too deep"). Every preset keeps 0, the model's inliner before the
	// setting existed: C2's 1 moves ten study tables through deepcall's
	// recursion and no mean of the real-application validation by more
	// than half a point (docs/VALIDATION.md).
	MaxRecursiveInlineLevel int `key:"max_recursive_inline_level" check:">=0" unit:"levels" doc:"inline a callee at most this many times more into a path that holds it already (recursion); 0: no recursive call inlined" src:"0 in every preset; HotSpot's -XX:MaxRecursiveInlineLevel is 1 (opto/c2_globals.hpp): -XX:MaxRecursiveInlineLevel=1 or --set jit.max_recursive_inline_level=1 gives C2's rule"`
	// ReceiverDominance: a virtual call site is inlined, with a guard, for
	// a receiver seen at least this share of the time (0.9); a site that
	// saw exactly two receivers inlines both (bimorphic). Validate also
	// rejects 0.
	ReceiverDominance float64 `key:"receiver_dominance" check:"(0..1" doc:"share of a virtual call site's receivers above which it is inlined with a guard" src:"HotSpot -XX:TypeProfileMajorReceiverPercent (90)"`
	// StripMiningIter, when > 0, keeps one poll every N iterations in
	// counted loops (HotSpot's LoopStripMiningIter); 0 removes them
	// (-XX:-UseCountedLoopSafepoints).
	StripMiningIter int64 `key:"strip_mining_iter" check:">=0" unit:"iterations" doc:"keep one poll every N iterations of counted loops (0: none)" src:"HotSpot -XX:LoopStripMiningIter (0 in the papers' era; 1000 with G1 since JDK 10)"`
	// LoopUnroll is how many source iterations one iteration of a counted
	// loop's compiled code runs when its body is at most
	// LoopUnrollMaxBody bytecodes (inlined callees included; larger bodies
	// are not unrolled): C2 strip-mines the unrolled loop, so a strip is
	// StripMiningIter × LoopUnroll source iterations, and so are the
	// short-loop and one-strip bounds (stripLength). C2's factor comes from
	// IdealLoopTree::policy_unroll and its superword analysis
	// (opto/loopTransform.cpp); OpenJDK 17 on this kind of machine
	// (tools/stripmining) unrolled loops of long arithmetic or field
	// updates of 24 to 143 bytecodes 8 times with 64-byte vectors (4 times
	// with -XX:MaxVectorSize=32), int arithmetic 16 times, a loop with a
	// branch 4 times, bodies of 273 and 532 bytecodes not at all, and
	// nothing with -XX:LoopMaxUnroll=1.
	LoopUnroll        int64 `key:"loop_unroll" check:">=1" unit:"iterations" doc:"source iterations per compiled iteration of a counted loop with a small body (C2's unroll factor): a strip is strip_mining_iter × loop_unroll iterations" src:"OpenJDK 17 measured (tools/stripmining): 8 for long arithmetic and field updates with AVX-512 vectors, 16 for int, 4 with a branch; 1 here (the papers' HotSpot: no strip mining)"`
	LoopUnrollMaxBody int64 `key:"loop_unroll_max_body" check:">=0" unit:"bytecodes" doc:"counted loops with a larger body (inlined callees included) are not unrolled" src:"OpenJDK 17 measured (tools/stripmining): bodies of 143 bytecodes unrolled, 273 not"`
	// DebugNonSafepoints records debug information at every statement
	// boundary, not only at polls and call sites.
	DebugNonSafepoints bool `key:"debug_non_safepoints" doc:"record debug information at every statement, not only at polls and calls" src:"HotSpot -XX:+DebugNonSafepoints (false; diagnostic)"`
	// CompileNanosPerBytecode is the compiler thread's CPU time per
	// bytecode compiled, inlined callees included; at most
	// MaxCompileNanosPerBytecode.
	CompileNanosPerBytecode int64 `key:"compile_nanos_per_bytecode" check:"0..1_000_000" unit:"ns" doc:"compiler thread CPU time per bytecode compiled, inlined callees included" src:"2000 (the reproductions' value, unmeasured); --vm hotspot17: 21000, measured by tools/calibrate (OpenJDK 17 C2 compiler threads' CPU per bytecode, -XX:+CITime, javac as the workload)"`
	// HotEdgeShare: with a sampled call-graph profile (SetProfile), a call
	// edge carrying at least this share of the profile's total weight is
	// hot and may inline callees up to FreqInlineSize; cooler edges get a
	// proportionally smaller limit (Arnold & Grove: hot above 1 %, a
	// linear size threshold below).
	HotEdgeShare float64 `key:"hot_edge_share" check:"0..1" doc:"with a sampled call graph, the edge share above which a call edge is hot" src:"Arnold & Grove, CGO 2005 (1 %)"`
	// ProfileOverridesStatic: with a sampled profile, the profile's limit
	// replaces MaxInlineSize instead of adding to it, so a call site the
	// profile calls cold is not inlined (J9's dynamic heuristics, which
	// an inaccurate profile turns into a slow-down).
	ProfileOverridesStatic bool `key:"profile_overrides_static" doc:"with a sampled call graph, its size limit replaces max_inline_size (J9)" src:"Arnold & Grove, CGO 2005, Fig. 5 (J9: true; Jikes RVM: false)"`
	// CompileCommands are HotSpot's -XX:CompileCommand options
	// (dontinline, inline, exclude; see CompileCommands and
	// CompileCommand), applied in order: for each kind the last command
	// matching a method decides.
	CompileCommands CompileCommands `key:"compile_commands" doc:"HotSpot compile commands separated by spaces, each KIND,PATTERN: dontinline, inline or exclude, and Class::method or package/Class.method with * wildcards" src:"HotSpot -XX:CompileCommand (none)"`
	// UnitProbes, when set, are a profiler's entry and exit probes that
	// the compiler places after inlining, at the boundaries of each code
	// unit it compiles (Burchell & Marr's Bubo, MPLR'24): a compiled
	// root gets them, its inlined bodies and interpreted code do not,
	// and inlining decides by the sizes without them. The harness sets
	// it for such a sampler (samplers.UnitInstrumenter); not a key.
	UnitProbes *Probes
}

// EdgeProfile is a call-graph profile the inliner can read instead of the
// VM's exact call-site counts: a sampler's dynamic call graph, by static
// call edge (sim.Image.Edges).
type EdgeProfile interface {
	EdgeWeight(edge int) float64
	TotalWeight() float64
}

// SetProfile makes the inliner decide call-site hotness and receiver
// shares from p (profile-directed inlining driven by a sampler), from now
// on; nil goes back to exact counts.
func (j *JIT) SetProfile(p EdgeProfile) { j.profile = p }

// DefaultConfig is a HotSpot server VM of the papers' era with C2's
// thresholds and inlining limits, without loop strip mining.
func DefaultConfig() Config {
	return Config{
		Flavour:                 HotSpot,
		Tiered:                  true,
		CompileThreshold:        10000,
		BackedgeThreshold:       14000,
		Inline:                  true,
		MaxInlineSize:           35,
		FreqInlineSize:          325,
		HotCallCount:            100,
		MaxInlineLevel:          9,
		ReceiverDominance:       0.9,
		StripMiningIter:         0,
		LoopUnroll:              1,
		LoopUnrollMaxBody:       200,
		DebugNonSafepoints:      false,
		CompileNanosPerBytecode: 2000,
		HotEdgeShare:            0.01,
	}
}

// MaxCompileNanosPerBytecode bounds compile_nanos_per_bytecode: 1 ms, 48
// times the 21 µs tools/calibrate measured for OpenJDK 17's C2. A
// compilation costs its size × this in int64 ns, exact for every tree of
// up to 9.2 × 10¹² bytecodes, which no program that fits in memory has
// (program.MaxStatements is 2³⁰ statements, each inlined copy of a
// statement a few dozen bytes).
const MaxCompileNanosPerBytecode = 1_000_000

// Validate names the first invalid field.
func (c Config) Validate() error {
	switch {
	case c.Flavour != HotSpot && c.Flavour != Jikes:
		return fmt.Errorf("jit.flavour: unknown flavour %d", c.Flavour)
	case c.CompileThreshold < 1:
		return fmt.Errorf("jit.compile_threshold: %d must be ≥ 1", c.CompileThreshold)
	case c.BackedgeThreshold < 1:
		return fmt.Errorf("jit.backedge_threshold: %d must be ≥ 1", c.BackedgeThreshold)
	case c.MaxInlineSize < 0 || c.FreqInlineSize < 0:
		return fmt.Errorf("jit.max_inline_size, freq_inline_size: must be ≥ 0")
	case c.HotCallCount < 0:
		return fmt.Errorf("jit.hot_call_count: %d must be ≥ 0", c.HotCallCount)
	case !(c.HotCallRatio >= 0) || math.IsInf(c.HotCallRatio, 0):
		return fmt.Errorf("jit.hot_call_ratio: %v must be a finite number ≥ 0", c.HotCallRatio)
	case !(c.MinCallRatio >= 0) || math.IsInf(c.MinCallRatio, 0):
		return fmt.Errorf("jit.min_call_ratio: %v must be a finite number ≥ 0", c.MinCallRatio)
	case c.MaxInlineLevel < 0:
		return fmt.Errorf("jit.max_inline_level: %d must be ≥ 0", c.MaxInlineLevel)
	case c.MaxRecursiveInlineLevel < 0:
		return fmt.Errorf("jit.max_recursive_inline_level: %d must be ≥ 0", c.MaxRecursiveInlineLevel)
	case !(c.ReceiverDominance > 0 && c.ReceiverDominance <= 1):
		return fmt.Errorf("jit.receiver_dominance: %v not in (0, 1]", c.ReceiverDominance)
	case c.StripMiningIter < 0:
		return fmt.Errorf("jit.strip_mining_iter: %d must be ≥ 0", c.StripMiningIter)
	case c.LoopUnroll < 1:
		return fmt.Errorf("jit.loop_unroll: %d must be ≥ 1", c.LoopUnroll)
	case c.LoopUnrollMaxBody < 0:
		return fmt.Errorf("jit.loop_unroll_max_body: %d must be ≥ 0", c.LoopUnrollMaxBody)
	case !(c.HotEdgeShare >= 0 && c.HotEdgeShare <= 1):
		return fmt.Errorf("jit.hot_edge_share: %v not in [0, 1]", c.HotEdgeShare)
	case c.CompileNanosPerBytecode < 0 || c.CompileNanosPerBytecode > MaxCompileNanosPerBytecode:
		return fmt.Errorf("jit.compile_nanos_per_bytecode: %d must be in [0, %d]", c.CompileNanosPerBytecode, MaxCompileNanosPerBytecode)
	case c.InterpretOnly && !c.Tiered:
		return fmt.Errorf("jit.interpret_only=true and jit.tiered=false exclude each other: interpret every method (-Xint) or compile every method up front (-Xcomp)")
	}
	if _, err := ParseCompileCommands(c.CompileCommands); err != nil {
		return fmt.Errorf("jit.compile_commands: %w", err)
	}
	return nil
}

// Event is one compilation, for logs and --explain-jit.
type Event struct {
	Method  int32
	Reason  string   // "invocations", "backedges (OSR)", "startup", "recorded compiled" or "recompile"
	Queued  sim.Time // when the counter fired
	Started sim.Time // when the compiler began (and read the profile)
	Done    sim.Time // when the code was installed
	Size    int64    // bytecodes compiled, inlined callees included
	Inlined int      // inlined call sites in the tree
}

// reasonRecorded is Event.Reason of a method compiled before the run
// because the program marks it compiled (program.Method.Compiled).
const reasonRecorded = "recorded compiled"

// JIT is one VM's compiler: attached before the run, driven by counters.
type JIT struct {
	cfg      Config
	vm       sim.CompilerHost
	img      *sim.Image
	compiler sim.ThreadID
	queued   []bool
	pending  map[int64]*pendingCompile
	nextTag  int64
	events   []Event
	sizes    []int64
	profile  EdgeProfile
	cmds     []program.CompileCommand
	oracle   oracle
}

type pendingCompile struct {
	code   *sim.Code
	method int32
	osr    bool
	event  int
}

// Attach installs the JIT's initial code (interpreted when tiered) and
// its compiler thread on vm. Call it before vm runs.
func Attach(vm sim.CompilerHost, cfg Config) (*JIT, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	img := vm.Image()
	j := &JIT{cfg: cfg, vm: vm, img: img, queued: make([]bool, len(img.Methods)),
		pending: map[int64]*pendingCompile{}}
	for i := range img.Methods {
		j.sizes = append(j.sizes, MethodSize(img.Base[i]))
	}
	if p := cfg.UnitProbes; p != nil {
		if err := p.Validate(); err != nil {
			return nil, fmt.Errorf("jit: unit %w", err)
		}
		for m := range img.Methods {
			if _, err := InsertProbes(img.Base[m], *p); err != nil {
				return nil, fmt.Errorf("jit: unit probes: method %s: %w", img.Names[m], err)
			}
		}
	}
	j.cmds, _ = ParseCompileCommands(cfg.CompileCommands) // Validate parsed them
	// The program's own commands come after the configuration's, as
	// compilerOracle_init reads -XX:CompileCommandFile after the
	// -XX:CompileCommand options: for each kind they decide.
	for i, text := range img.Prog.CompileCommands {
		c, err := program.ParseCompileCommand(text)
		if err != nil { // program validation reports this first
			return nil, fmt.Errorf("compile_commands[%d]: %w", i, err)
		}
		j.cmds = append(j.cmds, c)
	}
	j.oracle = newOracle(j.cmds, img.Methods)
	j.compiler = vm.NewServiceThread("C2 CompilerThread0", j)
	vm.SetCounterHandler(j)
	for m := range img.Methods {
		if j.oracle.exclude[m] {
			// CompileBroker::compilation_is_prohibited
			// (compiler/compileBroker.cpp) refuses every compilation of
			// an excluded method, OSR included: it stays interpreted
			// and its counters never queue it.
			vm.ReplaceCode(j.interpreted(int32(m)))
			j.queued[m] = true
			continue
		}
		if cfg.InterpretOnly {
			// -Xint: interpreted for the whole run; no counter queues it.
			vm.ReplaceCode(j.interpreted(int32(m)))
			j.queued[m] = true
			continue
		}
		if cfg.Tiered && img.Methods[m].Compiled {
			// Compiled before the run, as the recording saw it: no
			// profile yet, so inlining by size alone (as Tiered=false),
			// and the counters still kept, so that the thresholds
			// compile it again with the call-site profile, as C2
			// recompiles a method first compiled by C1 with
			// profiling (HotSpot 17's tier 3).
			c := j.compile(int32(m))
			c.Counting = true
			vm.ReplaceCode(c)
			vm.SetInterpreted(j.interpreted(int32(m))) // where a deoptimized frame goes on
			j.events = append(j.events, Event{Method: int32(m), Reason: reasonRecorded, Size: c.Size, Inlined: countInlined(c)})
			vm.SetTrigger(int32(m), sim.InvocationCounter, cfg.CompileThreshold)
			vm.SetTrigger(int32(m), sim.BackedgeCounter, cfg.BackedgeThreshold)
		} else if cfg.Tiered {
			vm.ReplaceCode(j.interpreted(int32(m))) // entry frames too
			vm.SetTrigger(int32(m), sim.InvocationCounter, cfg.CompileThreshold)
			vm.SetTrigger(int32(m), sim.BackedgeCounter, cfg.BackedgeThreshold)
		} else {
			c := j.compile(int32(m))
			j.queued[m] = true
			vm.ReplaceCode(c)
			vm.SetInterpreted(j.interpreted(int32(m))) // where a deoptimized frame goes on
			j.events = append(j.events, Event{Method: int32(m), Reason: "startup", Size: c.Size, Inlined: countInlined(c)})
		}
	}
	return j, nil
}

// Config returns the JIT's configuration.
func (j *JIT) Config() Config { return j.cfg }

// Events lists the compilations so far, in the order they were queued.
func (j *JIT) Events() []Event { return append([]Event(nil), j.events...) }

// CompilerThread is the compiler's service thread.
func (j *JIT) CompilerThread() sim.ThreadID { return j.compiler }

// interpreted builds the interpreter's version of method m: every
// statement costs InterpFactor more, positions are exact, the counters are
// kept (not under InterpretOnly, where nothing is compiled), and the polls
// are those of HotSpot 17's template interpreter (x86):
//
//   - every back-edge: TemplateTable::branch (cpu/x86/templateTable_x86.cpp)
//     ends a taken branch with dispatch_only(vtos, true), whose
//     generate_poll makes InterpreterMacroAssembler::dispatch_base
//     (cpu/x86/interp_masm_x86.cpp) test the thread's polling word and, if
//     armed, dispatch the target bytecode through the safepoint table
//     (InterpreterRuntime::at_safepoint): the thread stops at the loop head;
//   - every return, in the callee: TemplateTable::_return tests the polling
//     word and calls InterpreterRuntime::at_safepoint before
//     remove_activation pops the frame (EpiloguePoll), unlike compiled
//     code, whose return poll follows the pop;
//   - no poll at method entry: TemplateInterpreterGenerator::
//     generate_normal_entry (cpu/x86/templateInterpreterGenerator_x86.cpp)
//     builds the frame, bumps the invocation counter and dispatches the
//     first bytecode without a poll. Jikes RVM's baseline code, which the
//     Jikes flavour's interpreted tier stands for, has a prologue yield
//     point (PollEntry).
//
// Between polls interpreted code runs to its next poll like compiled code:
// in HotSpot 17 a safepoint arms each thread's polling word and nothing
// else (SafepointSynchronize::arm_safepoint, runtime/safepoint.cpp, does
// not call TemplateInterpreter::notice_safepoints, the switch of the
// dispatch table to the safepoint table), so a thread in a long
// straight-line block is not stopped at its next bytecode. tools/interpreter checked both on OpenJDK 17.0.15 with -Xint.
// Taken forward branches poll too in HotSpot (the same dispatch_only(vtos,
// true)); the model polls at back-edges and returns only.
func (j *JIT) interpreted(m int32) *sim.Code {
	c := sim.Recost(j.img.Base[m], j.vm.Config().Cost, sim.Interpreted)
	c.Counting = !j.cfg.InterpretOnly
	c.PollEntry = j.cfg.Flavour == Jikes
	c.EpiloguePoll = true
	for i := range c.Instrs {
		switch c.Instrs[i].Op {
		case sim.OpLoopBack, sim.OpReturn:
			c.Instrs[i].Flags |= sim.FlagPoll
			if c.Instrs[i].Op == sim.OpLoopBack {
				c.Instrs[i].SetStripLength(0)
			}
		}
	}
	sim.UpdateLoopCosts(c, j.vm.Config().Cost)
	return c
}

// OnCounter queues a compilation when a method's counter fires.
func (j *JIT) OnCounter(_ sim.Agent, t sim.ThreadID, m int32, k sim.CounterKind) {
	if j.queued[m] {
		return
	}
	j.queued[m] = true
	j.vm.SetTrigger(m, sim.InvocationCounter, math.MaxInt64)
	j.vm.SetTrigger(m, sim.BackedgeCounter, math.MaxInt64)
	reason := "invocations"
	if k == sim.BackedgeCounter {
		reason = "backedges (OSR)"
	}
	j.queue(m, reason, k == sim.BackedgeCounter)
}

// queue puts method m on the compile queue. Like C2, the compiler decides
// what to inline when it starts the compilation (OnJobStart), from the
// call-site profile as it is then — so how long the queue was, and how far
// the program got meanwhile, shapes the code.
func (j *JIT) queue(m int32, reason string, osr bool) {
	j.events = append(j.events, Event{Method: m, Reason: reason, Queued: j.vm.Now()})
	j.nextTag++
	j.pending[j.nextTag] = &pendingCompile{method: m, osr: osr, event: len(j.events) - 1}
	j.vm.SubmitDeferredJob(j.compiler, j.nextTag)
}

// OnJobStart compiles the method now and charges the compiler thread for
// it: CompileNanosPerBytecode per bytecode, inlined callees included.
func (j *JIT) OnJobStart(vm sim.Agent, _ sim.ThreadID, tag int64) sim.Time {
	p := j.pending[tag]
	p.code = j.compile(p.method)
	e := &j.events[p.event]
	e.Started, e.Size, e.Inlined = vm.Now(), p.code.Size, countInlined(p.code)
	return sim.Time(p.code.Size * j.cfg.CompileNanosPerBytecode)
}

// RecompileAll queues a recompilation of every method compiled or queued
// so far, deciding inlining from the profile as it is when each starts: the adaptive
// system's re-optimization once the call graph has matured (Jikes RVM
// recompiles hot methods with the DCG it has sampled). It returns the
// number of methods queued.
func (j *JIT) RecompileAll() int {
	n := 0
	if j.cfg.InterpretOnly {
		return 0 // -Xint compiles nothing
	}
	for m, q := range j.queued {
		if q && !j.oracle.exclude[m] {
			j.queue(int32(m), "recompile", false)
			n++
		}
	}
	return n
}

// OnJobDone installs a finished compilation. Running activations switch to
// it (on-stack replacement) — at once, as versions share their layout.
func (j *JIT) OnJobDone(vm sim.Agent, _ sim.ThreadID, tag int64) {
	p := j.pending[tag]
	delete(j.pending, tag)
	j.vm.ReplaceCode(p.code)
	j.events[p.event].Done = vm.Now()
}

func countInlined(c *sim.Code) int {
	n := 0
	for _, vs := range c.Inline {
		for _, v := range vs {
			n += 1 + countInlined(v)
		}
	}
	return n
}
