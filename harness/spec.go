package harness

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/safepoint"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
)

// Spec is the one description of a run: what `profsim run`'s flags say,
// what a sweep's grid point sets, field for field. Config resolves it;
// Describe gives its canonical form, whose Key names the run and whose
// Args is the `profsim run` command line that reproduces it.
//
// The fields are the flags of the same names (Bind); a Spec is checked
// by Check before it is resolved.
type Spec struct {
	// Workload is a built-in workload's name or a .yaml/.json file.
	Workload string
	Seed     uint64
	Duration time.Duration
	// Skip is where every profile starts (Config.ProfileFrom); Threads
	// the shell patterns of the threads profiled (sim.Config.ProfileThreads).
	Skip    time.Duration
	Threads string
	CPUs    int
	Mode    samplers.Mode
	// VM is the preset the settings start from; Inline, StripMining and
	// DebugNonSafepoints, when not nil, the shorthand flags given; then
	// JVMFlags (real HotSpot options), then Sets (KEY=VALUE of Settings),
	// in that order.
	VM                 string
	Inline             *bool
	StripMining        *int64
	DebugNonSafepoints *bool
	JVMFlags           string
	Sets               []param.KV
	// BaselineOnly turns the optimizing JIT off (Config.NoJIT);
	// BaselineFlag is the flag that asked for it, for messages
	// (--baseline-only or its old name --no-jit): not part of the run.
	BaselineOnly bool
	BaselineFlag string
	GC           bool
	// InlineFrom is Config.InlineFrom: the attached sampler whose call
	// graph drives the JIT's inlining, "none" or "exact"; "" HotSpot's
	// rule. RecompileAt is Config.RecompileAt (0: never).
	InlineFrom  string
	RecompileAt time.Duration
	// Truth is "contexts" (the calling-context tree) or "methods"
	// (Config.TruthPerMethod).
	Truth string
	// Iterations, when > 0, regenerates a generated stand-in with its
	// driver running that many units of work in total (its iterations
	// knob), so that it ends sooner or later; LoopScale, when > 0,
	// multiplies the trip counts of each thread's entry loops
	// (workloads.ScaleEntryLoops: how often a model's work repeats, not
	// what one repetition does). Both apply before the interventions.
	Iterations int
	LoopScale  float64
	// Injections, SpeedUps and SlowDowns are the interventions, as the
	// flags give them (workloads.ParseInjection, workloads.ParseSpeedUp,
	// workloads.ParseSlowDown), applied in that order.
	Injections []string
	SpeedUps   []string
	SlowDowns  []string
	// Samplers are the profilers' specs (samplers.ParseSpec), "truth"
	// among them where its profile goes in the order.
	Samplers []string
	// MaxThreads and MaxMemory are the run's sim.Limits; MaxInput the
	// largest workload file read.
	MaxThreads          int
	MaxMemory, MaxInput int64
}

// DefaultVM is the preset of a Spec that names none: today's HotSpot.
const DefaultVM = "hotspot17"

// DefaultMaxInput is the largest workload file read by default: decoding
// holds about 50 bytes per byte of YAML (a 43 MB file of 10⁶ statements
// peaked at 2.2 GB), so 64 MiB stays within a few GiB.
const DefaultMaxInput = 64 << 20

// DefaultSpec is the run of `profsim run` with no flag but --workload.
func DefaultSpec() Spec {
	def, lim := sim.DefaultConfig(), sim.DefaultLimits()
	return Spec{
		Seed: def.Seed, Duration: time.Duration(def.Duration), CPUs: def.CPUs, Mode: samplers.Passive,
		VM: DefaultVM, GC: true, Truth: "contexts",
		MaxThreads: lim.MaxThreads, MaxMemory: lim.MaxMemory, MaxInput: DefaultMaxInput,
	}
}

// SpecFlags are a Spec's flags on a flag.FlagSet (Bind): those that set
// a field directly do so as they are parsed; Finish applies the rest.
type SpecFlags struct {
	fs          *flag.FlagSet
	s           *Spec
	samplerList *string
	specs       []string
	mode        *string
	inline      *bool
	strip       *int64
	dns         *bool
	noJIT       *bool
	maxMemory   byteSize
	maxInput    byteSize
}

// RepeatableFlags are the Spec flags that may be given more than once.
var RepeatableFlags = []string{"sampler", "set", "inject", "speedup", "slowdown"}

// Bind defines on fs one flag per field of s (named as in `profsim run`),
// with s's values as their defaults. Parse fs (or Set its flags by name),
// then call Finish.
func (s *Spec) Bind(fs *flag.FlagSet) *SpecFlags {
	b := &SpecFlags{fs: fs, s: s, maxMemory: byteSize(s.MaxMemory), maxInput: byteSize(s.MaxInput)}
	fs.StringVar(&s.Workload, "workload", s.Workload, "built-in workload NAME (see 'profsim workloads') or a .yaml/.json FILE")
	fs.Uint64Var(&s.Seed, "seed", s.Seed, "master seed: same seed, same output")
	fs.DurationVar(&s.Duration, "duration", s.Duration, "simulated time limit (the run ends earlier if the program does)")
	fs.DurationVar(&s.Skip, "skip", s.Skip, "profile from this simulated time on: the run starts at 0 as without it (the JIT warms up, threads start), but the truth and every sampler count only what happens from then on, as a profiler started then would (no samples and no costs before it); the report's times are the window's")
	fs.StringVar(&s.Threads, "threads", s.Threads, "profile only the application threads whose names match `PATTERNS`, comma-separated shell patterns (e.g. 'worker-*,main'), as async-profiler's thread filter or JFR's per-thread views: the truth and every sampler see only them; the others still run")
	fs.IntVar(&s.CPUs, "cpus", s.CPUs, "simulated CPUs, 1 to 1024")
	b.samplerList = fs.String("samplers", "", "comma-separated profiler names to run on the same execution (see 'profsim samplers'); default truth")
	fs.Func("sampler", "a profiler instance NAME[:LABEL][,KEY=VALUE...], e.g. async:fast,interval=1ms (repeatable; keys: 'profsim samplers NAME')", func(v string) error {
		b.specs = append(b.specs, v)
		return nil
	})
	b.mode = fs.String("mode", s.Mode.String(), "passive: samplers observe at no cost; costed: each sampler's costs and observer effect applied (several together perturb each other)")
	fs.StringVar(&s.VM, "vm", s.VM, "VM preset: "+PresetNames()+" (see 'profsim run --help')")
	fs.StringVar(&s.JVMFlags, "jvm-flags", s.JVMFlags, "real HotSpot options mapped onto the model, applied after the preset, e.g. \"-XX:-Inline -XX:LoopStripMiningIter=100\"")
	fs.Func("set", "set any VM, JIT, GC or safepoint key: jit.KEY=V, sim.KEY=V, gc.KEY=V, safepoint.KEY=V (repeatable; applied last; keys: 'profsim run --keys')", func(v string) error {
		k, val, ok := strings.Cut(v, "=")
		if !ok || k == "" {
			return fmt.Errorf("%q is not KEY=VALUE", v)
		}
		s.Sets = append(s.Sets, param.KV{Key: k, Value: val})
		return nil
	})
	b.inline = fs.Bool("inline", true, "let the JIT inline (shorthand for -XX:+/-Inline)")
	b.strip = fs.Int64("strip-mining", 0, "keep one poll every N compiled iterations of counted loops (N × jit.loop_unroll source iterations of a small body), 0: none (shorthand for -XX:LoopStripMiningIter=N, 0 meaning -XX:-UseCountedLoopSafepoints)")
	b.dns = fs.Bool("debug-non-safepoints", false, "record debug information at every statement (shorthand for -XX:+DebugNonSafepoints)")
	fs.BoolVar(&s.BaselineOnly, "baseline-only", s.BaselineOnly, "no optimizing JIT: every method runs its baseline-compiled code from the start (polls at every return and back-edge, nothing inlined, no interpreter); like Jikes RVM's baseline compiler")
	b.noJIT = fs.Bool("no-jit", false, "deprecated name of --baseline-only (not an interpreter)")
	fs.BoolVar(&s.GC, "gc", s.GC, "allocation-driven garbage collection at safepoints")
	fs.StringVar(&s.InlineFrom, "inline-from", s.InlineFrom, "profile-directed inlining (Arnold & Grove): the JIT inlines by the call graph a sampler has gathered so far, `ID` of an attached call-graph sampler (e.g. cbs), none (size rules only) or exact (the exact call graph so far); default HotSpot's rule on exact call-site counts")
	fs.DurationVar(&s.RecompileAt, "recompile-at", s.RecompileAt, "recompile every method compiled by then with the profile as it is then (profile-directed re-optimization); 0: never")
	fs.StringVar(&s.Truth, "truth", s.Truth, "ground truth: contexts (the exact calling-context tree) or methods (one context per method: self shares, lines, call edges and overlaps the same, up to 3x faster on context-rich programs; the truth's stacks are one frame deep, so its total shares and the hot-edge coverage are left empty)")
	fs.IntVar(&s.Iterations, "iterations", s.Iterations, "regenerate a generated stand-in (see 'profsim workloads') with its driver running `N` units of work in total, its iterations knob, so that it ends sooner or later (0: as built in)")
	fs.Float64Var(&s.LoopScale, "loop-scale", s.LoopScale, "multiply the trip counts of each thread's entry loops by `F`: how often the program's work repeats, not what one repetition does (a model's driver loop repeats its recording's work; 0: as written)")
	fs.Func("inject", "inject a Fibonacci-like poll-free loop of size f at the end of METHOD: METHOD:f, or METHOD:f:alloc for the allocating variant (repeatable)", func(v string) error {
		if _, err := workloads.ParseInjection(v); err != nil {
			return err
		}
		s.Injections = append(s.Injections, v)
		return nil
	})
	fs.Func("speedup", "scale METHOD's own work by factor (0.5: twice as fast): METHOD:factor (repeatable)", func(v string) error {
		if _, err := workloads.ParseSpeedUp(v); err != nil {
			return err
		}
		s.SpeedUps = append(s.SpeedUps, v)
		return nil
	})
	fs.Func("slowdown", "slow the work on lines LINE-LINE of METHOD ('profsim show' numbers them) by factor ≥ 1 (2: twice as slow): METHOD:LINE-LINE:factor, METHOD:factor for the whole method, *:factor for every method (repeatable)", func(v string) error {
		if _, err := workloads.ParseSlowDown(v); err != nil {
			return err
		}
		s.SlowDowns = append(s.SlowDowns, v)
		return nil
	})
	fs.IntVar(&s.MaxThreads, "max-threads", s.MaxThreads, "limit: application threads a run may create (the program's and spawned ones)")
	fs.Var(&b.maxMemory, "max-memory", "limit: the run's estimated memory, a `SIZE` such as 512MiB or 20GiB (see Limits below)")
	fs.Var(&b.maxInput, "max-input-size", "limit: the largest workload file read, a `SIZE` such as 256MiB")
	return b
}

// Finish applies the flags given (parsed or Set) that set no field
// directly and checks the Spec (Check).
func (b *SpecFlags) Finish() error {
	s := b.s
	given := map[string]bool{}
	b.fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	if given["inline"] {
		s.Inline = b.inline
	}
	if given["strip-mining"] {
		s.StripMining = b.strip
	}
	if given["debug-non-safepoints"] {
		s.DebugNonSafepoints = b.dns
	}
	if given["no-jit"] {
		s.BaselineOnly = s.BaselineOnly || *b.noJIT
	}
	switch {
	case given["baseline-only"] && s.BaselineOnly:
		s.BaselineFlag = "--baseline-only"
	case s.BaselineOnly:
		s.BaselineFlag = "--no-jit"
	}
	s.MaxMemory, s.MaxInput = int64(b.maxMemory), int64(b.maxInput)
	if given["threads"] && s.Threads == "" {
		return fmt.Errorf("--threads %v", sim.CheckThreadPattern(""))
	}
	switch *b.mode {
	case "passive":
		s.Mode = samplers.Passive
	case "costed":
		s.Mode = samplers.Costed
	default:
		return fmt.Errorf("--mode %q: want passive or costed", *b.mode)
	}
	var names []string
	if *b.samplerList != "" {
		for _, name := range strings.Split(*b.samplerList, ",") {
			name = strings.TrimSpace(name)
			if name == "" {
				return fmt.Errorf("--samplers %q: empty name", *b.samplerList)
			}
			if strings.ContainsAny(name, ":=") {
				return fmt.Errorf("--samplers %q: plain names only; give labels and keys with --sampler NAME[:LABEL][,KEY=VALUE...]", name)
			}
			names = append(names, name)
		}
	}
	s.Samplers = append(names, b.specs...)
	if len(s.Samplers) == 0 {
		s.Samplers = []string{"truth"}
	}
	return s.Check()
}

// Check reports the first field that is out of range or contradicts
// another, as the flag that sets it: "--duration 0s must be > 0 ...".
func (s *Spec) Check() error {
	if s.BaselineOnly {
		bf := s.BaselineFlag
		if bf == "" {
			bf = "--baseline-only"
		}
		if slices.Contains(strings.Fields(s.JVMFlags), "-Xint") {
			return fmt.Errorf("--jvm-flags -Xint (every method interpreted) and %s (baseline-compiled code, no interpreter) exclude each other", bf)
		}
		for _, name := range []string{"inline", "strip-mining", "debug-non-safepoints", "jvm-flags", "inline-from", "recompile-at"} {
			if s.shorthandSet(name) {
				return fmt.Errorf("--%s configures the optimizing JIT, which %s turns off", name, bf)
			}
		}
		for _, kv := range s.Sets {
			if strings.HasPrefix(kv.Key, "jit.") {
				return fmt.Errorf("--set %s configures the optimizing JIT, which %s turns off", kv.Key, bf)
			}
		}
	}
	switch {
	case s.Workload == "":
		return fmt.Errorf("--workload is required (paper programs: %s; stand-ins: see 'profsim workloads')", strings.Join(workloads.Programs(), ", "))
	case s.Duration <= 0 || s.Duration > time.Duration(sim.MaxTime):
		return fmt.Errorf("--duration %v must be > 0 and at most %v (10^18 ns)", s.Duration, time.Duration(sim.MaxTime))
	case s.Skip < 0 || s.Skip >= s.Duration:
		return fmt.Errorf("--skip %v must be ≥ 0 and before --duration %v", s.Skip, s.Duration)
	case s.Threads != "" && sim.CheckThreadPattern(s.Threads) != nil:
		return fmt.Errorf("--threads %v", sim.CheckThreadPattern(s.Threads))
	case s.CPUs < 1 || s.CPUs > sim.MaxCPUs:
		return fmt.Errorf("--cpus %d must be in [1, %d]", s.CPUs, sim.MaxCPUs)
	case s.MaxThreads < 1 || s.MaxThreads > sim.MaxThreadsLimit:
		return fmt.Errorf("--max-threads %d must be in [1, %d]", s.MaxThreads, sim.MaxThreadsLimit)
	case s.MaxMemory < 1:
		return fmt.Errorf("--max-memory %s must be > 0", sim.FormatBytes(s.MaxMemory))
	case s.MaxInput < 1:
		return fmt.Errorf("--max-input-size %s must be > 0", sim.FormatBytes(s.MaxInput))
	case s.Truth != "contexts" && s.Truth != "methods":
		return fmt.Errorf("--truth %q: want contexts or methods", s.Truth)
	case s.Iterations < 0:
		return fmt.Errorf("--iterations %d must be ≥ 0", s.Iterations)
	case s.LoopScale < 0 || math.IsInf(s.LoopScale, 0) || math.IsNaN(s.LoopScale):
		return fmt.Errorf("--loop-scale %v must be a finite number ≥ 0", s.LoopScale)
	case s.RecompileAt < 0 || s.RecompileAt >= s.Duration && s.RecompileAt > 0:
		return fmt.Errorf("--recompile-at %v must be ≥ 0 and before --duration %v", s.RecompileAt, s.Duration)
	case s.StripMining != nil && (*s.StripMining < 0 || *s.StripMining > 4294967295):
		return fmt.Errorf("--strip-mining %d must be in [0, 4294967295], -XX:LoopStripMiningIter's range", *s.StripMining)
	}
	for _, v := range s.Injections {
		if _, err := workloads.ParseInjection(v); err != nil {
			return fmt.Errorf("--inject: %v", err)
		}
	}
	for _, v := range s.SpeedUps {
		if _, err := workloads.ParseSpeedUp(v); err != nil {
			return fmt.Errorf("--speedup: %v", err)
		}
	}
	for _, v := range s.SlowDowns {
		if _, err := workloads.ParseSlowDown(v); err != nil {
			return err
		}
	}
	// The samplers' list as the flags give it; what the samplers ask of the
	// rest of the run (the JIT's flavour, no --skip for an instrumenter,
	// a call-graph source for --inline-from) is Config.Validate's, below.
	seen := map[string]bool{}
	n := 0
	for _, text := range s.Samplers {
		spec, err := samplers.ParseSpec(text)
		if err != nil {
			return fmt.Errorf("--sampler: %v", err)
		}
		if seen[spec.ID()] {
			return fmt.Errorf("--sampler: %q listed twice (give each instance its own label: NAME:LABEL)", spec.ID())
		}
		seen[spec.ID()] = true
		if spec.Name == "truth" {
			if spec.ID() != "truth" || len(spec.Set) > 0 {
				return fmt.Errorf("--sampler %q: truth takes no label or keys", text)
			}
			continue
		}
		if _, err := spec.Resolve(); err != nil {
			return fmt.Errorf("--sampler: %v", err)
		}
		n++
	}
	if s.Mode == samplers.Costed && n == 0 {
		return fmt.Errorf("--mode costed needs a sampler besides truth (--samplers or --sampler)")
	}
	cfg, err := s.Config()
	if err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return s.asFlags(err)
	}
	return nil
}

// asFlags rewords an error of Config.Validate, which names Config's fields,
// with the flags that set them.
func (s *Spec) asFlags(err error) error {
	bf := s.BaselineFlag
	if bf == "" {
		bf = "--baseline-only"
	}
	msg := err.Error()
	for _, p := range [][2]string{{"profile_from: ", "--skip: "}, {"profile_threads: ", "--threads: "},
		{"inline_from: ", "--inline-from "}, {"recompile_at: ", "--recompile-at: "}, {"samplers: ", "--sampler: "}, {"sampler ", "--sampler "}} {
		if rest, ok := strings.CutPrefix(msg, p[0]); ok {
			msg = p[1] + rest
			break
		}
	}
	msg = strings.NewReplacer("(inline_from)", "(--inline-from)", "no_jit", bf).Replace(msg)
	return errors.New(msg)
}

// shorthandSet reports whether the shorthand flag name is set in s.
func (s *Spec) shorthandSet(name string) bool {
	switch name {
	case "inline":
		return s.Inline != nil
	case "strip-mining":
		return s.StripMining != nil
	case "debug-non-safepoints":
		return s.DebugNonSafepoints != nil
	case "jvm-flags":
		return s.JVMFlags != ""
	case "inline-from":
		return s.InlineFrom != ""
	case "recompile-at":
		return s.RecompileAt != 0
	}
	return false
}

// Config resolves the run's configuration: the preset, then the
// shorthands given, then JVMFlags, then Sets.
func (s Spec) Config() (Config, error) {
	cfg, err := PresetConfig(s.VM)
	if err != nil {
		return cfg, fmt.Errorf("--vm: %v", err)
	}
	cfg.Sim.Seed, cfg.Sim.Duration, cfg.Sim.CPUs = s.Seed, sim.Time(s.Duration), s.CPUs
	if s.Inline != nil {
		cfg.JIT.Inline = *s.Inline
	}
	if s.StripMining != nil {
		cfg.JIT.StripMiningIter = *s.StripMining
	}
	if s.DebugNonSafepoints != nil {
		cfg.JIT.DebugNonSafepoints = *s.DebugNonSafepoints
	}
	if err := ApplyJVMFlags(&cfg, s.JVMFlags); err != nil {
		return cfg, fmt.Errorf("--jvm-flags: %v", err)
	}
	st := SettingsOf(&cfg)
	for _, kv := range s.Sets {
		if err := param.Set(st, kv.Key, kv.Value); err != nil {
			return cfg, fmt.Errorf("--set: %v", err)
		}
	}
	st.Into(&cfg)
	cfg.NoJIT = s.BaselineOnly
	if !s.GC {
		cfg.GC = nil
	}
	cfg.Samplers, cfg.Mode = slices.Clone(s.Samplers), s.Mode
	cfg.TruthPerMethod = s.Truth == "methods"
	cfg.ProfileFrom = sim.Time(s.Skip)
	cfg.InlineFrom, cfg.RecompileAt = s.InlineFrom, sim.Time(s.RecompileAt)
	cfg.Sim.ProfileThreads = s.Threads
	cfg.Sim.Limits = sim.Limits{MaxThreads: s.MaxThreads, MaxMemory: s.MaxMemory}
	return cfg, nil
}

// Intervene applies the Spec's injections, speed-ups and slowdowns to p,
// in that order.
func (s Spec) Intervene(p *program.Program) error {
	for _, v := range s.Injections {
		in, err := workloads.ParseInjection(v)
		if err == nil {
			err = workloads.Inject(p, in)
		}
		if err != nil {
			return err
		}
	}
	for _, v := range s.SpeedUps {
		sp, err := workloads.ParseSpeedUp(v)
		if err == nil {
			err = workloads.ApplySpeedUp(p, sp)
		}
		if err != nil {
			return err
		}
	}
	for _, v := range s.SlowDowns {
		sd, err := workloads.ParseSlowDown(v)
		if err == nil {
			err = workloads.ApplySlowDown(p, sd)
		}
		if err != nil {
			return fmt.Errorf("--%w", err)
		}
	}
	return nil
}

// Settings are the VM, JIT, GC and safepoint-protocol keys a Spec's Sets
// take, under the prefixes sim., jit., gc. and safepoint.
type Settings struct {
	Sim       sim.Config         `key:"sim"`
	JIT       jit.Config         `key:"jit"`
	GC        safepoint.GCConfig `key:"gc"`
	Safepoint safepoint.Config   `key:"safepoint"`
}

// SettingsOf is cfg's settings (the GC's defaults where it has none).
func SettingsOf(cfg *Config) *Settings {
	st := &Settings{Sim: cfg.Sim, JIT: cfg.JIT, GC: safepoint.DefaultGCConfig(), Safepoint: cfg.Safepoint}
	if cfg.GC != nil {
		st.GC = *cfg.GC
	}
	return st
}

// Into writes st into cfg (the GC's only where cfg has one).
func (st *Settings) Into(cfg *Config) {
	cfg.Sim, cfg.JIT, cfg.Safepoint = st.Sim, st.JIT, st.Safepoint
	if cfg.GC != nil {
		gc := st.GC
		cfg.GC = &gc
	}
}

// PresetNames lists the VM presets, comma-separated.
func PresetNames() string {
	var names []string
	for _, p := range Presets() {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}

// byteSize is a flag of bytes: a whole number with an optional binary
// unit (B, KiB, MiB, GiB, TiB).
type byteSize int64

func (b byteSize) String() string { return sim.FormatBytes(int64(b)) }

func (b *byteSize) Set(s string) error {
	units := []struct {
		suffix string
		shift  uint
	}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}
	num, shift := s, uint(0)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			num, shift = strings.TrimSuffix(s, u.suffix), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("%q is not a size: a whole number of bytes with an optional unit B, KiB, MiB, GiB or TiB (e.g. 512MiB)", s)
	}
	if n > math.MaxInt64>>shift {
		return fmt.Errorf("%q is over the largest size, 8EiB", s)
	}
	*b = byteSize(n << shift)
	return nil
}
