package harness

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/profsim/profsim/internal/nearest"
	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/sim"
)

// Preset is a named VM configuration standing for a real VM.
type Preset struct {
	Name    string
	Summary string
	// StandsFor is the real VM and the flags it stands for.
	StandsFor string
}

type presetDef struct {
	Preset
	apply func(*Config)
}

// presets, in the order Presets lists them.
//
// hotspot17 was checked on the JVM installed here (OpenJDK 17.0.15+6-Debian,
// 2 CPUs, 23 GB: a server-class machine, so G1 is chosen ergonomically).
// `java -XX:+PrintFlagsFinal -version` printed, among others:
//
//	intx CompileThreshold           = 10000  {pd product} {default}
//	intx FreqInlineSize             = 325    {C2 pd product} {default}
//	bool Inline                     = true   {product} {default}
//	uintx LoopStripMiningIter       = 1000   {C2 product} {default}
//	intx MaxInlineLevel             = 15     {C2 product} {default}
//	intx MaxInlineSize              = 35     {C2 product} {default}
//	intx OnStackReplacePercentage   = 140    {pd product} {default}
//	intx Tier3BackEdgeThreshold     = 60000  {product} {default}
//	intx Tier3CompileThreshold      = 2000   {product} {default}
//	intx Tier4BackEdgeThreshold     = 40000  {product} {default}
//	intx Tier4CompileThreshold      = 15000  {product} {default}
//	bool TieredCompilation          = true   {pd product} {default}
//	bool UseCountedLoopSafepoints   = true   {C2 product} {default}
//	bool UseG1GC                    = true   {product} {ergonomic}
//
// and, with -XX:+UnlockDiagnosticVMOptions, InlineFrequencyCount = 100
// {pd diagnostic} and DebugNonSafepoints = false {diagnostic}.
//
// hotspot25 was checked the same way on Temurin 25.0.3+9-LTS beside it:
// every flag above printed the same value (G1 ergonomic, so strip mining
// at 1000; LoopMaxUnroll 16, MaxTrivialSize 6, InlineSmallCode 2500,
// TypeProfileMajorReceiverPercent 90 too), but with
// -XX:+UnlockDiagnosticVMOptions it has no InlineFrequencyCount and no
// MinInliningThreshold (JDK 17: 250, product), and it has
//
//	double InlineFrequencyRatio    = 0.250000 {diagnostic} {default}
//	double MinInlineFrequencyRatio = 0.008500 {diagnostic} {default}
//	intx GuaranteedSafepointInterval = 0      {diagnostic} {default}
//
// appear (JDK 17: InlineFrequencyRatio an intx develop flag of 20, and
// GuaranteedSafepointInterval 1000). C2's InlineTree::should_inline
// (opto/bytecodeInfo.cpp) in JDK 17 calls a site hot when
// call_site_count / invoke_count ≥ 20 (integer division) or
// call_site_count ≥ InlineFrequencyCount; in openjdk/jdk only when the
// double ratio ≥ InlineFrequencyRatio, and should_not_inline refuses a
// non-trivial callee at a site below max(MinInlineFrequencyRatio,
// 1/Tier4MinInvocationThreshold) ("low call site frequency") where JDK 17
// refused a callee executed fewer than MinInliningThreshold times. Those
// are jit.hot_call_ratio and jit.min_call_ratio. Not modelled, so equal in
// both presets: JDK 17's ratio of 20 and MinInliningThreshold,
// GuaranteedSafepointInterval (the model has no periodic cleanup
// safepoint), and everything tools/calibrate measured (on JDK 17 only).
var presets = []presetDef{
	{Preset{"hotspot17", "today's HotSpot: counted loops strip-mined, a poll every 1000 unrolled (×8) iterations and at their exit",
		"OpenJDK 17 server VM with its defaults: G1 (so -XX:+UseCountedLoopSafepoints -XX:LoopStripMiningIter=1000), C2 unrolling counted loops of up to 200 bytecodes 8 times (measured by tools/stripmining: long arithmetic and field updates, 64-byte vectors), -XX:MaxInlineLevel=15, -XX:+TieredCompilation (the C1 tier is not modelled: one compiled tier at the C2 thresholds); safepoint re-checks, safepoint overhead, interpreter factor and C2's compile time as tools/calibrate measured them"},
		applyHotSpot17},
	{Preset{"hotspot25", "JDK 25's HotSpot: hotspot17 with the post-17 inlining frequency rules (hot: 0.25 calls per caller invocation; below 0.0085 not inlined)",
		"Temurin 25 server VM with its defaults: as hotspot17 (G1 strip mining at 1000, the same inlining sizes, depth and tiered thresholds, checked with -XX:+PrintFlagsFinal) but C2's call-site frequency rules that replaced JDK 17's: a site is hot (callees up to FreqInlineSize) at -XX:InlineFrequencyRatio=0.25 calls per caller invocation instead of -XX:InlineFrequencyCount=100 calls, and -XX:MinInlineFrequencyRatio=0.0085 refuses sites below it; costs, interpreter factor and C2 compile time are OpenJDK 17's measurements, not re-measured on 25"},
		func(c *Config) {
			applyHotSpot17(c)
			// opto/bytecodeInfo.cpp (openjdk/jdk) InlineTree::should_inline
			// and should_not_inline; the values JDK 25.0.3's
			// -XX:+PrintFlagsFinal printed.
			c.JIT.HotCallRatio = 0.25   // InlineFrequencyRatio
			c.JIT.MinCallRatio = 0.0085 // MinInlineFrequencyRatio
		}},
	{Preset{"hotspot6", "the papers' HotSpot: no polls in counted loops (the components' own defaults)",
		"Sun HotSpot 6 server VM (-server, not tiered, Parallel GC): -XX:CompileThreshold=10000, -XX:MaxInlineLevel=9, counted loops without safepoint polls (-XX:-UseCountedLoopSafepoints); the costs the reproductions were made with (no safepoint re-check latency or overhead, interpreter factor 10, 2 us per bytecode compiled), not measured"},
		func(*Config) {}},
	{Preset{"jikes", "Jikes RVM-like yield points in every prologue, epilogue and back-edge",
		"Jikes RVM's adaptive system (Arnold & Grove's base system): yield points in prologues, epilogues and loop back-edges, counted loops included; inlining and thresholds as hotspot6"},
		func(c *Config) { c.JIT.Flavour = jit.Jikes }},
	{Preset{"j9", "J9's inliner of Arnold & Grove Fig. 5: static limit 100, a sampled call graph overrides it",
		"IBM J9 as Arnold & Grove (CGO 2005, Fig. 5) describe its inliner: static MaxInlineSize 100, a sampled call graph's verdict replaces the static heuristics, guarded inlining above 40 % of a site's receivers; Jikes-like yield points as in that study (not J9's own)"},
		func(c *Config) {
			// Exactly study.a4Work's j9 settings; the profile source
			// (Config.InlineFrom) is per run and stays the caller's.
			c.JIT.Flavour = jit.Jikes
			c.JIT.ReceiverDominance = 0.4
			c.JIT.MaxInlineSize = 100
			c.JIT.ProfileOverridesStatic = true
		}},
}

// applyHotSpot17 is the hotspot17 preset.
func applyHotSpot17(c *Config) {
	c.JIT.StripMiningIter = 1000
	c.JIT.LoopUnroll = 8
	c.JIT.MaxInlineLevel = 15
	// Costs measured on OpenJDK 17 by tools/calibrate
	// (calibration.csv; docs/CALIBRATION.md), to two significant
	// figures; tools/calibrate's test checks them.
	c.Safepoint.SyncRecheck = 100 * sim.Microsecond      // backoff_10us
	c.Safepoint.SyncRecheckLate = 1100 * sim.Microsecond // backoff_1ms
	c.Safepoint.OperationOverhead = 53 * sim.Microsecond // pause_beyond
	c.Sim.Cost.InterpFactor = 8                          // interp_factor
	c.JIT.CompileNanosPerBytecode = 21000                // c2_ns_per_bytecode
}

// Presets lists the VM presets.
func Presets() []Preset {
	out := make([]Preset, len(presets))
	for i, p := range presets {
		out[i] = p.Preset
	}
	return out
}

func presetNames() string {
	var names []string
	for _, p := range presets {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}

// ApplyPreset resets cfg's JIT, VM (but Seed, CPUs, Duration and Limits),
// safepoint and GC settings to the components' own defaults (jit, sim and
// safepoint's DefaultConfig, safepoint.DefaultGCConfig: the hotspot6
// preset) and applies the preset's.
// It leaves Seed, CPUs, Duration, Limits, Samplers, Mode and the run's
// other fields alone; cfg.GC becomes a fresh default collector (even if it was nil).
func ApplyPreset(cfg *Config, name string) error {
	var p *presetDef
	for i := range presets {
		if presets[i].Name == name {
			p = &presets[i]
		}
	}
	if p == nil {
		var names []string
		for _, q := range presets {
			names = append(names, q.Name)
		}
		if s := nearest.Name(name, names); s != "" {
			return fmt.Errorf("unknown VM preset %q; did you mean %q? (valid: %s)", name, s, presetNames())
		}
		return fmt.Errorf("unknown VM preset %q (valid: %s)", name, presetNames())
	}
	d := componentDefaults()
	seed, cpus, dur, lim := cfg.Sim.Seed, cfg.Sim.CPUs, cfg.Sim.Duration, cfg.Sim.Limits
	cfg.Sim = d.Sim
	cfg.Sim.Seed, cfg.Sim.CPUs, cfg.Sim.Duration, cfg.Sim.Limits = seed, cpus, dur, lim
	cfg.JIT = d.JIT
	cfg.Safepoint = d.Safepoint
	cfg.GC = d.GC
	p.apply(cfg)
	return nil
}

// JVMFlag is one HotSpot option ApplyJVMFlags understands.
type JVMFlag struct {
	// Option as written on a java command line.
	Option string
	// Model is what it sets in the model.
	Model string
	// HotSpot is its HotSpot 17 default and where HotSpot defines and
	// applies it.
	HotSpot string
}

// jvmOpt is one supported option.
type jvmOpt struct {
	name     string // HotSpot's name, or the whole option for -X options
	boolean  bool
	min, max int64 // accepted range: HotSpot's, narrowed to the model's
	set      func(st *jvmState, on bool, n int64)
	// text, for an option whose value is not a number, reads the value.
	text func(st *jvmState, value string) error
	info JVMFlag
}

// jvmState collects the options in order; ergonomics then derives the
// model's settings from the final values, as HotSpot does.
type jvmState struct {
	jit jit.Config
	// tiered: nil unless -Xcomp, -Xmixed or ±TieredCompilation was given.
	tiered *bool
	xcomp  bool
	// xint: nil unless -Xint, -Xcomp or -Xmixed was given (the last of
	// them decides, as HotSpot's Arguments::parse_each_vm_init_arg reads
	// them into one mode).
	xint           *bool
	ucls, uclsSet  bool
	lsmi           int64
	lsmiSet        bool
	ct, osrp       int64
	ctSet, osrpSet bool
	lmu            int64
	lmuSet         bool
	// written: the last option as written, by name, for ergonomics' errors
	written map[string]string
}

const (
	maxJint  = 1<<31 - 1 // intx flags' range(0, max_jint)
	maxJuint = 1<<32 - 1 // uintx LoopStripMiningIter's range(0, max_juint)
	// interpreterProfilePercentage is HotSpot's InterpreterProfilePercentage
	// (33): OnStackReplacePercentage must not be below it.
	interpreterProfilePercentage = 33
	defaultOSRPercentage         = 140
)

func boolPtr(b bool) *bool { return &b }

var jvmOpts = []jvmOpt{
	{name: "Inline", boolean: true,
		set:  func(st *jvmState, on bool, _ int64) { st.jit.Inline = on },
		info: JVMFlag{"-XX:+Inline, -XX:-Inline", "jit.inline", "true; runtime/globals.hpp"}},
	{name: "UseCountedLoopSafepoints", boolean: true,
		set: func(st *jvmState, on bool, _ int64) { st.ucls, st.uclsSet = on, true },
		info: JVMFlag{"-XX:+UseCountedLoopSafepoints, -XX:-UseCountedLoopSafepoints",
			"jit.strip_mining_iter after the strip-mining ergonomics (- gives 0: no polls in counted loops)",
			"false in opto/c2_globals.hpp; G1 sets true unless given (gc/g1/g1Arguments.cpp G1Arguments::initialize)"}},
	{name: "LoopStripMiningIter", min: 0, max: maxJuint,
		set: func(st *jvmState, _ bool, n int64) { st.lsmi, st.lsmiSet = n, true },
		info: JVMFlag{"-XX:LoopStripMiningIter=N", "jit.strip_mining_iter after the strip-mining ergonomics (a poll every N iterations of a counted loop)",
			"0 in opto/c2_globals.hpp, range 0..4294967295; G1 sets 1000 unless either flag is given (G1Arguments::initialize); coerced by LoopStripMiningIterConstraintFunc (runtime/flags/jvmFlagConstraintsCompiler.cpp, AfterErgo)"}},
	{name: "LoopMaxUnroll", min: 0, max: maxJint,
		set: func(st *jvmState, _ bool, n int64) { st.lmu, st.lmuSet = n, true },
		info: JVMFlag{"-XX:LoopMaxUnroll=N", "jit.loop_unroll capped at the largest power of two ≤ N (C2 doubles the unroll factor while it stays ≤ LoopMaxUnroll; 0 and 1: no unrolling)",
			"16; opto/c2_globals.hpp, range 0..2147483647; IdealLoopTree::policy_unroll (opto/loopTransform.cpp)"}},
	{name: "DebugNonSafepoints", boolean: true,
		set: func(st *jvmState, on bool, _ int64) { st.jit.DebugNonSafepoints = on },
		info: JVMFlag{"-XX:+DebugNonSafepoints, -XX:-DebugNonSafepoints", "jit.debug_non_safepoints",
			"false; diagnostic (runtime/globals.hpp): HotSpot requires -XX:+UnlockDiagnosticVMOptions before it, profsim does not"}},
	{name: "UnlockDiagnosticVMOptions", boolean: true,
		set: func(*jvmState, bool, int64) {},
		info: JVMFlag{"-XX:+UnlockDiagnosticVMOptions, -XX:-UnlockDiagnosticVMOptions", "nothing (accepted so real command lines pass)",
			"false; runtime/globals.hpp"}},
	{name: "TieredCompilation", boolean: true,
		set: func(st *jvmState, _ bool, _ int64) {
			if !st.xcomp {
				st.tiered = boolPtr(true)
			}
		},
		info: JVMFlag{"-XX:+TieredCompilation, -XX:-TieredCompilation",
			"jit.tiered=true for both (unless -Xcomp): the model interprets, then compiles into one tier at the C2 thresholds, which is -TieredCompilation's C2-only mode; +TieredCompilation's C1 tier and Tier3/Tier4 thresholds are not modelled",
			"true on x86-64 (compiler/compiler_globals.hpp, pd); C2-only mode in compiler/compilerDefinitions.cpp CompilationModeFlag::initialize"}},
	{name: "-Xint", boolean: true,
		set: func(st *jvmState, _ bool, _ int64) {
			st.tiered, st.xcomp, st.xint = boolPtr(true), false, boolPtr(true)
		},
		info: JVMFlag{"-Xint", "jit.interpret_only=true (and jit.tiered=true): every method interpreted for the whole run, nothing compiled; the interpreter's polls are HotSpot 17's (back-edges, returns before the frame is popped, none at method entry)",
			"off (mixed mode); runtime/arguments.cpp Arguments::set_mode_flags(_int): UseCompiler, UseLoopCounter and UseOnStackReplacement off. -Xint, -Xcomp and -Xmixed set one mode: the last given decides (java -Xint -Xcomp -version prints \"compiled mode\", -Xcomp -Xint \"interpreted mode\")"}},
	{name: "-Xcomp", boolean: true,
		set: func(st *jvmState, _ bool, _ int64) {
			st.tiered, st.xcomp, st.xint = boolPtr(false), true, boolPtr(false)
		},
		info: JVMFlag{"-Xcomp", "jit.tiered=false: every method compiled before it runs, no profile (size-only inlining); HotSpot compiles at the first call, and the model charges no compile time",
			"off (mixed mode); runtime/arguments.cpp"}},
	{name: "-Xmixed", boolean: true,
		set: func(st *jvmState, _ bool, _ int64) {
			st.tiered, st.xcomp, st.xint = boolPtr(true), false, boolPtr(false)
		},
		info: JVMFlag{"-Xmixed", "jit.tiered=true", "the default mode; runtime/arguments.cpp"}},
	{name: "CompileThreshold", min: 1, max: 1<<30 - 1,
		set: func(st *jvmState, _ bool, n int64) { st.ct, st.ctSet = n, true },
		info: JVMFlag{"-XX:CompileThreshold=N", "jit.compile_threshold=N and jit.backedge_threshold=N × OnStackReplacePercentage/100 (the model needs N ≥ 1; HotSpot allows 0)",
			"10000 (cpu/x86/c2_globals_x86.hpp), range 0..1073741823; becomes Tier4CompileThreshold with -TieredCompilation and is ignored with +TieredCompilation (compiler/compilerDefinitions.cpp CompilerConfig::set_legacy_emulation_flags)"}},
	{name: "OnStackReplacePercentage", min: interpreterProfilePercentage, max: maxJint,
		set: func(st *jvmState, _ bool, n int64) { st.osrp, st.osrpSet = n, true },
		info: JVMFlag{"-XX:OnStackReplacePercentage=P", "jit.backedge_threshold=CompileThreshold × P/100",
			"140 (cpu/x86/c2_globals_x86.hpp), ≥ InterpreterProfilePercentage (33) and ≤ 2147483647×100/CompileThreshold + 33; Tier4BackEdgeThreshold = CompileThreshold × P/100 with -TieredCompilation (CompilerConfig::set_legacy_emulation_flags)"}},
	{name: "MaxInlineSize", min: 0, max: maxJint,
		set:  func(st *jvmState, _ bool, n int64) { st.jit.MaxInlineSize = n },
		info: JVMFlag{"-XX:MaxInlineSize=N", "jit.max_inline_size", "35; opto/c2_globals.hpp"}},
	{name: "FreqInlineSize", min: 0, max: maxJint,
		set:  func(st *jvmState, _ bool, n int64) { st.jit.FreqInlineSize = n },
		info: JVMFlag{"-XX:FreqInlineSize=N", "jit.freq_inline_size", "325 on x86-64 (cpu/x86/c2_globals_x86.hpp); opto/c2_globals.hpp"}},
	{name: "MaxInlineLevel", min: 0, max: maxJint,
		set:  func(st *jvmState, _ bool, n int64) { st.jit.MaxInlineLevel = int(n) },
		info: JVMFlag{"-XX:MaxInlineLevel=N", "jit.max_inline_level", "15 (9 before JDK 14); opto/c2_globals.hpp"}},
	{name: "MaxRecursiveInlineLevel", min: 0, max: maxJint,
		set:  func(st *jvmState, _ bool, n int64) { st.jit.MaxRecursiveInlineLevel = int(n) },
		info: JVMFlag{"-XX:MaxRecursiveInlineLevel=N", "jit.max_recursive_inline_level (every preset: 0, no recursive call inlined)", "1; opto/c2_globals.hpp"}},
	{name: "InlineFrequencyCount", min: 0, max: maxJint,
		set: func(st *jvmState, _ bool, n int64) { st.jit.HotCallCount = n },
		info: JVMFlag{"-XX:InlineFrequencyCount=N", "jit.hot_call_count (a call site that ran N times is hot: callees up to FreqInlineSize)",
			"100 (cpu/x86/globals_x86.hpp); diagnostic: HotSpot requires -XX:+UnlockDiagnosticVMOptions, profsim does not"}},
	{name: "CompileCommand",
		text: func(st *jvmState, v string) error {
			c, err := program.ParseCompileCommand(v)
			if err != nil {
				return err
			}
			if st.jit.CompileCommands != "" {
				st.jit.CompileCommands += " "
			}
			st.jit.CompileCommands += jit.CompileCommands(c.String())
			return nil
		},
		info: JVMFlag{"-XX:CompileCommand=dontinline,PATTERN, -XX:CompileCommand=inline,PATTERN, -XX:CompileCommand=exclude,PATTERN",
			"appended to jit.compile_commands (every occurrence counts; for each kind the last matching command decides): dontinline keeps a method from being inlined, inline inlines it at any size, exclude never compiles it (interpreted) nor inlines it; PATTERN is Class::method or package/Class.method with * wildcards and an optional signature",
			"none; compiler/compilerOracle.cpp (CompilerOracle::parse_from_line, should_inline, should_not_inline, should_exclude), compiler/methodMatcher.cpp (MethodMatcher::parse_method_pattern), opto/bytecodeInfo.cpp (InlineTree::should_inline, should_not_inline), compiler/compileBroker.cpp (CompileBroker::compilation_is_prohibited)"}},
	{name: "TypeProfileMajorReceiverPercent", min: 1, max: 100,
		set: func(st *jvmState, _ bool, n int64) { st.jit.ReceiverDominance = float64(n) / 100 },
		info: JVMFlag{"-XX:TypeProfileMajorReceiverPercent=P", "jit.receiver_dominance=P/100 (the model needs P ≥ 1; HotSpot allows 0)",
			"90; opto/c2_globals.hpp, range 0..100"}},
}

// SupportedJVMFlags lists the HotSpot options ApplyJVMFlags understands.
func SupportedJVMFlags() []JVMFlag {
	out := make([]JVMFlag, len(jvmOpts))
	for i, o := range jvmOpts {
		out[i] = o.info
	}
	return out
}

func supportedList() string {
	var s []string
	for _, o := range jvmOpts {
		switch {
		case strings.HasPrefix(o.name, "-"):
			s = append(s, o.name)
		case o.boolean:
			s = append(s, "-XX:±"+o.name)
		case o.text != nil:
			s = append(s, "-XX:"+o.name+"=dontinline|inline|exclude,PATTERN")
		default:
			s = append(s, "-XX:"+o.name+"=N")
		}
	}
	return strings.Join(s, ", ")
}

// valueText is the value an option takes, as its usage shows it.
func (o *jvmOpt) valueText() string {
	if o.text != nil {
		return "KIND,PATTERN"
	}
	return "N"
}

func lookupJVMOpt(name string) *jvmOpt {
	for i := range jvmOpts {
		if jvmOpts[i].name == name {
			return &jvmOpts[i]
		}
	}
	return nil
}

// ApplyJVMFlags reads flags, whitespace-separated real HotSpot options,
// and sets what they mean in the model on top of cfg (normally a preset):
// in order, the last of repeated options winning (each
// -XX:CompileCommand is appended to jit.compile_commands), then with HotSpot's
// ergonomics on the final values (see ergonomics). Every option is either
// modelled or an error; on an error cfg is unchanged. SupportedJVMFlags
// lists the options.
func ApplyJVMFlags(cfg *Config, flags string) error {
	st := &jvmState{jit: cfg.JIT, written: map[string]string{}}
	for _, tok := range strings.Fields(flags) {
		if err := st.parse(tok); err != nil {
			return err
		}
	}
	if err := st.ergonomics(cfg.JIT); err != nil {
		return err
	}
	cfg.JIT = st.jit
	return nil
}

func (st *jvmState) parse(tok string) error {
	unsupported := fmt.Errorf("%s: not an option profsim models (supported: %s)", tok, supportedList())
	if tok == "-Xcomp" || tok == "-Xmixed" || tok == "-Xint" {
		lookupJVMOpt(tok).set(st, true, 0)
		return nil
	}
	body, ok := strings.CutPrefix(tok, "-XX:")
	if !ok || body == "" || strings.HasPrefix(body[1:], "-") {
		return unsupported
	}
	switch body[0] {
	case '+', '-':
		o := lookupJVMOpt(body[1:])
		switch {
		case o == nil:
			return unsupported
		case !o.boolean:
			return fmt.Errorf("%s: %s takes a value (-XX:%s=%s), not + or -", tok, o.name, o.name, o.valueText())
		}
		o.set(st, body[0] == '+', 0)
		st.written[o.name] = tok
		return nil
	}
	name, value, hasValue := strings.Cut(body, "=")
	o := lookupJVMOpt(name)
	switch {
	case o == nil:
		return unsupported
	case o.boolean:
		return fmt.Errorf("%s: %s is a boolean option (-XX:+%s or -XX:-%s), not %s=VALUE", tok, o.name, o.name, o.name, o.name)
	case !hasValue:
		return fmt.Errorf("%s: %s needs a value (-XX:%s=%s)", tok, o.name, o.name, o.valueText())
	case o.text != nil:
		if err := o.text(st, value); err != nil {
			return fmt.Errorf("%s: %w", tok, err)
		}
		return nil
	}
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("%s: %q is not a decimal integer (%s takes %d ... %d)", tok, value, o.name, o.min, o.max)
	}
	if err != nil || n < o.min || n > o.max {
		return fmt.Errorf("%s: %s is outside the allowed range [%d ... %d]", tok, value, o.min, o.max)
	}
	o.set(st, false, n)
	st.written[o.name] = tok
	return nil
}

// ergonomics derives the model's settings from the final option values as
// HotSpot 17 does after parsing its command line. base is the
// configuration the options apply to.
//
// Counted-loop polls. c2_globals.hpp defaults UseCountedLoopSafepoints to
// false and LoopStripMiningIter to 0. G1Arguments::initialize
// (gc/g1/g1Arguments.cpp; ZGC, Shenandoah and Epsilon do the same) sets
// UseCountedLoopSafepoints=true if it was not given, and then
// LoopStripMiningIter=1000 if that was not given either; Serial and
// Parallel GC leave both alone. LoopStripMiningIterConstraintFunc
// (runtime/flags/jvmFlagConstraintsCompiler.cpp, run AfterErgo) then
// coerces: UseCountedLoopSafepoints with LoopStripMiningIter=0 becomes 1,
// and without UseCountedLoopSafepoints LoopStripMiningIter becomes 0
// (with a warning if either was given). So with G1, giving only
// -XX:+UseCountedLoopSafepoints yields 1, not 1000. A base with counted-loop
// polls (hotspot17: jit.strip_mining_iter=1000) stands for G1 with that
// default; a base without (hotspot6) for Serial/Parallel GC. The real JVM
// printed (java OPTIONS -XX:+PrintFlagsFinal -version; TestJVMFlagsErgonomics
// pins each case):
//
//	G1 (default):                                             UseCountedLoopSafepoints  LoopStripMiningIter
//	(none)                                                    true                      1000
//	-XX:-UseCountedLoopSafepoints                             false                     0
//	-XX:+UseCountedLoopSafepoints                             true                      1  (warning)
//	-XX:LoopStripMiningIter=0                                 true                      1  (warning)
//	-XX:LoopStripMiningIter=500                               true                      500
//	-XX:-UseCountedLoopSafepoints -XX:LoopStripMiningIter=500 false                     0  (warning; either order)
//	-XX:-UseCountedLoopSafepoints -XX:+UseCountedLoopSafepoints true                    1  (warning)
//	-XX:+UseSerialGC (or -XX:+UseParallelGC):                 false                     0
//	-XX:+UseSerialGC -XX:+UseCountedLoopSafepoints            true                      1  (warning)
//	-XX:+UseSerialGC -XX:LoopStripMiningIter=500              false                     0  (warning)
//
// Only the hotspot flavour removes counted loops' polls, so these two
// options are an error on a Jikes-flavoured configuration.
//
// Compile thresholds. With -XX:-TieredCompilation,
// CompilerConfig::set_legacy_emulation_flags
// (compiler/compilerDefinitions.cpp) turns a given CompileThreshold or
// OnStackReplacePercentage into Tier4CompileThreshold=CompileThreshold
// and Tier4BackEdgeThreshold=CompileThreshold×OnStackReplacePercentage/100
// (printed: -XX:-TieredCompilation -XX:CompileThreshold=500 gives 500 and
// 700; -XX:OnStackReplacePercentage=200 gives 20000). The model's one
// compiled tier takes them the same way whatever TieredCompilation says
// (HotSpot ignores both while TieredCompilation is on).
func (st *jvmState) ergonomics(base jit.Config) error {
	if st.tiered != nil {
		st.jit.Tiered = *st.tiered
	}
	if st.xint != nil {
		st.jit.InterpretOnly = *st.xint
	}

	if st.uclsSet || st.lsmiSet {
		if base.Flavour != jit.HotSpot {
			opt := st.written["LoopStripMiningIter"]
			if opt == "" {
				opt = st.written["UseCountedLoopSafepoints"]
			}
			return fmt.Errorf("%s: only the hotspot flavour removes counted loops' polls; this configuration is %s-flavoured (polls at every back-edge)", opt, base.Flavour)
		}
	}
	ucls, lsmi := false, int64(0) // c2_globals.hpp defaults
	if st.uclsSet {
		ucls = st.ucls
	}
	if st.lsmiSet {
		lsmi = st.lsmi
	}
	if base.StripMiningIter > 0 && !st.uclsSet { // G1Arguments::initialize
		ucls = true
		if !st.lsmiSet {
			lsmi = base.StripMiningIter
		}
	}
	switch { // LoopStripMiningIterConstraintFunc
	case ucls && lsmi == 0:
		lsmi = 1
	case !ucls && lsmi > 0:
		lsmi = 0
	}
	st.jit.StripMiningIter = lsmi

	if st.lmuSet { // IdealLoopTree::policy_unroll: unroll while 2 × count ≤ LoopMaxUnroll
		u := int64(1)
		for u*2 <= st.lmu && u*2 <= st.jit.LoopUnroll {
			u *= 2
		}
		st.jit.LoopUnroll = u
	}

	if st.ctSet || st.osrpSet {
		ct, osrp := st.jit.CompileThreshold, int64(defaultOSRPercentage)
		if st.ctSet {
			ct = st.ct
		}
		if st.osrpSet {
			osrp = st.osrp
		}
		// OnStackReplacePercentageConstraintFunc's upper bound.
		if hi := int64(maxJint)*100/ct + interpreterProfilePercentage; osrp > hi {
			return fmt.Errorf("%s: outside the allowed range [%d ... %d] with CompileThreshold=%d", st.written["OnStackReplacePercentage"], interpreterProfilePercentage, hi, ct)
		}
		st.jit.CompileThreshold = ct
		st.jit.BackedgeThreshold = max(1, ct*osrp/100)
	}
	return nil
}
