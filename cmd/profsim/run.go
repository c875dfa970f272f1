package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/internal/nearest"
	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/study"
	"github.com/profsim/profsim/workloads"
)

type runFlags struct {
	workload string
	seed     uint64
	duration time.Duration
	// skip is --skip: where the profiles start; threads is --threads,
	// the threads they are of.
	skip       time.Duration
	threads    string
	cpus       int
	format     string
	by         string
	out        string
	top        int
	specs      []string
	mode       samplers.Mode
	vm         string
	jvmFlags   string
	sets       []param.KV
	inline     *bool
	strip      *int64
	dns        *bool
	baseline   bool
	gc         bool
	explainJIT bool
	// truth is --truth: contexts (the calling-context tree) or methods.
	truth string
	// trace is the --trace file; why asks for the bias matrices.
	trace      string
	why        bool
	injections []workloads.Injection
	speedups   []workloads.SpeedUp
	// rawInject and rawSpeedup are the flags' values as given.
	rawInject, rawSpeedup []string
	// The run's limits (sim.Limits) and the largest workload file read.
	maxThreads          int
	maxMemory, maxInput byteSize
	// baselineFlag is the flag that turned the optimizing JIT off:
	// --baseline-only or --no-jit.
	baselineFlag string
}

// defaultMaxInput is the largest workload file read by default: decoding
// holds about 50 bytes per byte of YAML (a 43 MB file of 10⁶ statements
// peaked at 2.2 GB), so 64 MiB stays within a few GiB.
const defaultMaxInput = 64 << 20

// defaultVM is the preset of a plain `profsim run`: today's HotSpot.
const defaultVM = "hotspot17"

func parseRunFlags(args []string, stdout io.Writer) (*runFlags, error) {
	def := sim.DefaultConfig()
	f := &runFlags{}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.workload, "workload", "", "built-in workload NAME (see 'profsim workloads') or a .yaml/.json FILE")
	fs.Uint64Var(&f.seed, "seed", def.Seed, "master seed: same seed, same output")
	fs.DurationVar(&f.duration, "duration", time.Duration(def.Duration), "simulated time limit (the run ends earlier if the program does)")
	fs.DurationVar(&f.skip, "skip", 0, "profile from this simulated time on: the run starts at 0 as without it (the JIT warms up, threads start), but the truth and every sampler count only what happens from then on, as a profiler started then would (no samples and no costs before it); the report's times are the window's")
	fs.StringVar(&f.threads, "threads", "", "profile only the application threads whose names match `PATTERNS`, comma-separated shell patterns (e.g. 'worker-*,main'), as async-profiler's thread filter or JFR's per-thread views: the truth and every sampler see only them; the others still run")
	fs.IntVar(&f.cpus, "cpus", def.CPUs, "simulated CPUs, 1 to 1024")
	fs.StringVar(&f.format, "format", "table", "output format: table, json, csv (tidy, one row per profile and method) or jsonl (the csv rows as JSON lines)")
	fs.StringVar(&f.by, "by", "method", "attribution in the table and csv/jsonl: method, or line (each sample's top frame by source line)")
	fs.StringVar(&f.out, "out", "", "directory to write each profile's <id>.pb.gz (pprof) and <id>.folded to")
	fs.IntVar(&f.top, "top", 10, "rows of methods and edges in the table")
	samplerList := fs.String("samplers", "", "comma-separated profiler names to run on the same execution (see 'profsim samplers'); default truth")
	fs.Func("sampler", "a profiler instance NAME[:LABEL][,KEY=VALUE...], e.g. async:fast,interval=1ms (repeatable; keys: 'profsim samplers NAME')", func(v string) error {
		f.specs = append(f.specs, v)
		return nil
	})
	mode := fs.String("mode", "passive", "passive: samplers observe at no cost; costed: each sampler's costs and observer effect applied (several together perturb each other)")
	fs.StringVar(&f.vm, "vm", defaultVM, "VM preset: "+presetNames()+" (see 'profsim run --help')")
	fs.StringVar(&f.jvmFlags, "jvm-flags", "", "real HotSpot options mapped onto the model, applied after the preset, e.g. \"-XX:-Inline -XX:LoopStripMiningIter=100\"")
	fs.Func("set", "set any VM, JIT, GC or safepoint key: jit.KEY=V, sim.KEY=V, gc.KEY=V, safepoint.KEY=V (repeatable; applied last; keys: 'profsim run --keys')", func(v string) error {
		k, val, ok := strings.Cut(v, "=")
		if !ok || k == "" {
			return fmt.Errorf("%q is not KEY=VALUE", v)
		}
		f.sets = append(f.sets, param.KV{Key: k, Value: val})
		return nil
	})
	keys := fs.Bool("keys", false, "list the keys --set takes, with type, default and source, and exit")
	inline := fs.Bool("inline", true, "let the JIT inline (shorthand for -XX:+/-Inline)")
	strip := fs.Int64("strip-mining", 0, "keep one poll every N compiled iterations of counted loops (N × jit.loop_unroll source iterations of a small body), 0: none (shorthand for -XX:LoopStripMiningIter=N, 0 meaning -XX:-UseCountedLoopSafepoints)")
	dns := fs.Bool("debug-non-safepoints", false, "record debug information at every statement (shorthand for -XX:+DebugNonSafepoints)")
	fs.BoolVar(&f.baseline, "baseline-only", false, "no optimizing JIT: every method runs its baseline-compiled code from the start (polls at every return and back-edge, nothing inlined, no interpreter); like Jikes RVM's baseline compiler")
	noJIT := fs.Bool("no-jit", false, "deprecated name of --baseline-only (not an interpreter)")
	fs.BoolVar(&f.gc, "gc", true, "allocation-driven garbage collection at safepoints")
	fs.StringVar(&f.truth, "truth", "contexts", "ground truth: contexts (the exact calling-context tree) or methods (one context per method: self shares, lines, call edges and overlaps the same, up to 3x faster on context-rich programs; the truth's stacks are one frame deep, so its total shares and the hot-edge coverage are left empty)")
	fs.BoolVar(&f.explainJIT, "explain-jit", false, "print each compiled method's tier, inlining tree and polls")
	fs.StringVar(&f.trace, "trace", "", "write one JSON line per sample of every sampler to `FILE.jsonl`: when it was requested, where the thread truly was, how it was taken, what was recorded")
	fs.BoolVar(&f.why, "why", false, "print each sampler's bias matrix: the method each sample was requested in against the one it was charged to, and the mechanisms that took them (json: \"bias\")")
	fs.Func("inject", "inject a Fibonacci-like poll-free loop of size f at the end of METHOD: METHOD:f, or METHOD:f:alloc for the allocating variant (repeatable)", func(v string) error {
		in, err := workloads.ParseInjection(v)
		if err == nil {
			f.injections = append(f.injections, in)
			f.rawInject = append(f.rawInject, v)
		}
		return err
	})
	fs.Func("speedup", "scale METHOD's own work by factor (0.5: twice as fast): METHOD:factor (repeatable)", func(v string) error {
		sp, err := workloads.ParseSpeedUp(v)
		if err == nil {
			f.speedups = append(f.speedups, sp)
			f.rawSpeedup = append(f.rawSpeedup, v)
		}
		return err
	})
	lim := sim.DefaultLimits()
	f.maxMemory, f.maxInput = byteSize(lim.MaxMemory), defaultMaxInput
	fs.IntVar(&f.maxThreads, "max-threads", lim.MaxThreads, "limit: application threads a run may create (the program's and spawned ones)")
	fs.Var(&f.maxMemory, "max-memory", "limit: the run's estimated memory, a `SIZE` such as 512MiB or 20GiB (see Limits below)")
	fs.Var(&f.maxInput, "max-input-size", "limit: the largest workload file read, a `SIZE` such as 256MiB")
	if err := fs.Parse(joinBoolValues(fs, args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			runHelp(stdout, fs)
			limitsHelp(stdout)
			return nil, errHelp
		}
		return nil, usagef("run: %v", explainFlagError(fs, err))
	}
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) {
		given[fl.Name] = true
		switch fl.Name {
		case "inline":
			f.inline = inline
		case "strip-mining":
			f.strip = strip
		case "debug-non-safepoints":
			f.dns = dns
		case "no-jit":
			f.baseline = f.baseline || *noJIT
		}
	})
	if *keys {
		if len(given) > 1 {
			return nil, usagef("run: --keys lists the keys and runs nothing: %s would be ignored", givenExcept(given, "keys"))
		}
		printSettingKeys(stdout)
		return nil, errHelp
	}
	switch {
	case given["baseline-only"] && f.baseline:
		f.baselineFlag = "--baseline-only"
	case f.baseline:
		f.baselineFlag = "--no-jit"
	}
	if err := flagConflicts(f, given); err != nil {
		return nil, err
	}
	switch {
	case fs.NArg() > 0:
		return nil, usagef("run: unexpected argument %q (flags only)", fs.Arg(0))
	case f.workload == "":
		return nil, usagef("run: --workload is required (paper programs: %s; stand-ins: see 'profsim workloads')", strings.Join(workloads.Programs(), ", "))
	case f.duration <= 0 || f.duration > time.Duration(sim.MaxTime):
		return nil, usagef("run: --duration %v must be > 0 and at most %v (10^18 ns)", f.duration, time.Duration(sim.MaxTime))
	case f.skip < 0 || f.skip >= f.duration:
		return nil, usagef("run: --skip %v must be ≥ 0 and before --duration %v", f.skip, f.duration)
	case given["threads"] && sim.CheckThreadPattern(f.threads) != nil:
		return nil, usagef("run: --threads %v", sim.CheckThreadPattern(f.threads))
	case f.cpus < 1 || f.cpus > sim.MaxCPUs:
		return nil, usagef("run: --cpus %d must be in [1, %d]", f.cpus, sim.MaxCPUs)
	case f.maxThreads < 1 || f.maxThreads > sim.MaxThreadsLimit:
		return nil, usagef("run: --max-threads %d must be in [1, %d]", f.maxThreads, sim.MaxThreadsLimit)
	case f.maxMemory < 1:
		return nil, usagef("run: --max-memory %s must be > 0", f.maxMemory)
	case f.maxInput < 1:
		return nil, usagef("run: --max-input-size %s must be > 0", f.maxInput)
	case !slices.Contains([]string{"table", "json", "csv", "jsonl"}, f.format):
		return nil, usagef("run: --format %q: want table, json, csv or jsonl", f.format)
	case f.truth != "contexts" && f.truth != "methods":
		return nil, usagef("run: --truth %q: want contexts or methods", f.truth)
	case f.by != "method" && f.by != "line":
		return nil, usagef("run: --by %q: want method or line", f.by)
	case f.top < 1:
		return nil, usagef("run: --top %d must be ≥ 1", f.top)
	case f.strip != nil && (*f.strip < 0 || *f.strip > 4294967295):
		return nil, usagef("run: --strip-mining %d must be in [0, 4294967295], -XX:LoopStripMiningIter's range", *f.strip)
	}
	switch *mode {
	case "passive":
		f.mode = samplers.Passive
	case "costed":
		f.mode = samplers.Costed
	default:
		return nil, usagef("run: --mode %q: want passive or costed", *mode)
	}
	var names []string
	if *samplerList != "" {
		for _, name := range strings.Split(*samplerList, ",") {
			name = strings.TrimSpace(name)
			if name == "" {
				return nil, usagef("run: --samplers %q: empty name", *samplerList)
			}
			if strings.ContainsAny(name, ":=") {
				return nil, usagef("run: --samplers %q: plain names only; give labels and keys with --sampler NAME[:LABEL][,KEY=VALUE...]", name)
			}
			names = append(names, name)
		}
	}
	f.specs = append(names, f.specs...)
	if len(f.specs) == 0 {
		f.specs = []string{"truth"}
	}
	seen := map[string]bool{}
	n := 0
	for _, text := range f.specs {
		spec, err := samplers.ParseSpec(text)
		if err != nil {
			return nil, usagef("run: --sampler: %v", err)
		}
		if seen[spec.ID()] {
			return nil, usagef("run: --sampler: %q listed twice (give each instance its own label: NAME:LABEL)", spec.ID())
		}
		seen[spec.ID()] = true
		if spec.Name == "truth" {
			if spec.ID() != "truth" || len(spec.Set) > 0 {
				return nil, usagef("run: --sampler %q: truth takes no label or keys", text)
			}
			continue
		}
		r, err := spec.Resolve()
		if err != nil {
			return nil, usagef("run: --sampler: %v", err)
		}
		if _, ok := r.New().(samplers.Instrumenter); ok && (f.skip > 0 || f.threads != "") {
			return nil, usagef("run: --sampler %s instruments the program for every thread before it runs: it cannot start at --skip or watch only --threads", spec.ID())
		}
		if np, ok := r.New().(samplers.PrologueYieldPointer); ok && np.NeedsPrologueYieldPoints() && f.baseline {
			return nil, usagef("run: --sampler %s samples at the prologue and epilogue yield points of the optimizing JIT's Jikes-like code (--vm jikes), which %s turns off", spec.ID(), f.baselineFlag)
		}
		n++
	}
	if f.mode == samplers.Costed && n == 0 {
		return nil, usagef("run: --mode costed needs a sampler besides truth (--samplers or --sampler)")
	}
	return f, nil
}

// limitsHelp lists the run's limits. (Its lines must not start with
// "  -": the sweep reads the flags from the lines that do.)
func limitsHelp(w io.Writer) {
	lim := sim.DefaultLimits()
	fmt.Fprintf(w, `
Limits: a run that reaches one stops at once with exit status 2 and one line
naming the limit, the value reached and the flag that raises it.
  threads        --max-threads N (default %d): application threads created
                 over the run, the program's and the spawned ones
  memory         --max-memory SIZE (default %s): the run's estimated memory,
                 counted as it goes: the program and its code (a workload
                 file is refused before it is read when %d bytes for each of
                 its bytes are over the limit), calling contexts with their
                 share of the truth profile, threads, their deepest stacks,
                 the run's counts copied at --skip, and the export of the
                 profiles to --out; unless GOMEMLIMIT
                 is set it is also Go's soft memory limit, which keeps the
                 process near it
  input          --max-input-size SIZE (default %s): the largest workload
                 file read; only regular files (or links to one) are read
  CPUs           --cpus N: at most %d
`, lim.MaxThreads, sim.FormatBytes(lim.MaxMemory), sim.WorkloadBytesPerByte, sim.FormatBytes(defaultMaxInput), sim.MaxCPUs)
}

// flagConflicts names flags that contradict each other or that the rest
// of the command line would silently ignore.
func flagConflicts(f *runFlags, given map[string]bool) error {
	if f.why && (f.format == "csv" || f.format == "jsonl") {
		return usagef("run: --why adds the bias matrices to the table and json, which --format %s does not print", f.format)
	}
	if f.explainJIT && (f.format == "csv" || f.format == "jsonl") {
		return usagef("run: --explain-jit adds the JIT's decisions to the table and json, which --format %s does not print", f.format)
	}
	if f.format != "table" {
		for _, name := range []string{"top"} {
			if given[name] {
				return usagef("run: --%s shapes the table, which --format %s does not print", name, f.format)
			}
		}
		if given["by"] && f.format == "json" {
			return usagef("run: --by shapes the table, csv and jsonl; --format json has every profile by method and by line")
		}
	}
	if f.baseline {
		if given["jvm-flags"] && slices.Contains(strings.Fields(f.jvmFlags), "-Xint") {
			return usagef("run: --jvm-flags -Xint (every method interpreted) and %s (baseline-compiled code, no interpreter) exclude each other", f.baselineFlag)
		}
		for _, name := range []string{"explain-jit", "inline", "strip-mining", "debug-non-safepoints", "jvm-flags"} {
			if given[name] {
				return usagef("run: --%s configures the optimizing JIT, which %s turns off", name, f.baselineFlag)
			}
		}
		for _, kv := range f.sets {
			if strings.HasPrefix(kv.Key, "jit.") {
				return usagef("run: --set %s configures the optimizing JIT, which %s turns off", kv.Key, f.baselineFlag)
			}
		}
	}
	return nil
}

// givenExcept lists the flags given, but skip, as --a, --b.
func givenExcept(given map[string]bool, skip string) string {
	var names []string
	for n := range given {
		if n != skip {
			names = append(names, "--"+n)
		}
	}
	slices.Sort(names)
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

// loadWorkloadMax resolves a built-in name first, then a file path, read
// if it is a regular file of at most max bytes. Only a regular file is read (a symbolic link to one is): a FIFO would
// block and a device may never end.
func loadWorkloadMax(ref string, max int64) (*program.Program, error) {
	if workloads.IsBuiltin(ref) {
		p, err := workloads.Get(ref)
		if err != nil {
			return nil, err // a broken built-in is our bug, not the user's
		}
		return p, nil
	}
	st, err := os.Stat(ref)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if s := nearest.Name(ref, slices.Concat(workloads.Names(), workloads.Models(), workloads.Twins())); s != "" {
				return nil, usagef("unknown workload %q: did you mean %q? (not a built-in nor a file; 'profsim workloads' lists the built-ins)", ref, s)
			}
			return nil, usagef("unknown workload %q: not a built-in (%s, or a stand-in from 'profsim workloads') and no such file", ref, strings.Join(workloads.Programs(), ", "))
		}
		return nil, usagef("workload %s: %v", ref, bare(err))
	}
	if !st.Mode().IsRegular() {
		return nil, usagef("workload %s: not a regular file (%s); profsim reads workloads from regular files only", ref, fileKind(st.Mode()))
	}
	if st.Size() > max {
		return nil, usagef("workload %s: %s is over the input limit of %s (raise it with --max-input-size SIZE)", ref, sim.FormatBytes(st.Size()), sim.FormatBytes(max))
	}
	p, err := program.Load(ref)
	if err != nil {
		return nil, usagef("%v", err)
	}
	return p, nil
}

// checkWorkloadMemory refuses, before reading it, a workload file whose
// program would take more than maxMemory once read and built into the
// run (sim.WorkloadBytes estimates it from the file's size). A file that
// loadWorkloadMax refuses anyway (not a regular file, over the input
// limit maxInput) is left for it to report.
func checkWorkloadMemory(ref string, maxInput, maxMemory int64) error {
	if workloads.IsBuiltin(ref) {
		return nil
	}
	st, err := os.Stat(ref)
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxInput {
		return nil
	}
	if est := sim.WorkloadBytes(st.Size()); est > maxMemory {
		return usagef("workload %s: its program would take an estimated %s of memory (%d bytes for each of the file's %s), over --max-memory %s (raise it with --max-memory SIZE)",
			ref, sim.FormatBytes(est), sim.WorkloadBytesPerByte, sim.FormatBytes(st.Size()), sim.FormatBytes(maxMemory))
	}
	return nil
}

// fileKind names what a non-regular file is.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}

// buildConfig resolves the run's configuration: the preset, then the
// shorthand flags given, then --jvm-flags, then --set.
func buildConfig(f *runFlags) (harness.Config, error) {
	cfg := harness.DefaultConfig()
	if err := harness.ApplyPreset(&cfg, f.vm); err != nil {
		return cfg, usagef("run: --vm: %v", err)
	}
	cfg.Sim.Seed, cfg.Sim.Duration, cfg.Sim.CPUs = f.seed, sim.Time(f.duration), f.cpus
	if f.inline != nil {
		cfg.JIT.Inline = *f.inline
	}
	if f.strip != nil {
		cfg.JIT.StripMiningIter = *f.strip
	}
	if f.dns != nil {
		cfg.JIT.DebugNonSafepoints = *f.dns
	}
	if err := harness.ApplyJVMFlags(&cfg, f.jvmFlags); err != nil {
		return cfg, usagef("run: --jvm-flags: %v", err)
	}
	st := settingsOf(&cfg)
	for _, kv := range f.sets {
		if err := param.Set(st, kv.Key, kv.Value); err != nil {
			return cfg, usagef("run: --set: %v", err)
		}
	}
	st.into(&cfg)
	cfg.NoJIT = f.baseline
	if !f.gc {
		cfg.GC = nil
	}
	cfg.Samplers, cfg.Mode = f.specs, f.mode
	cfg.TruthPerMethod = f.truth == "methods"
	cfg.ProfileFrom = sim.Time(f.skip)
	cfg.Sim.ProfileThreads = f.threads
	cfg.Sim.Limits = sim.Limits{MaxThreads: f.maxThreads, MaxMemory: int64(f.maxMemory)}
	return cfg, nil
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	ctx, sig, stop := signalContext()
	defer stop()
	return runCommand(ctx, sig, args, stdout, stderr)
}

// runCommand is `profsim run`, stopped by ctx (sig says which signal
// cancelled it); on a terminal stderr shows the run's progress.
func runCommand(ctx context.Context, sig func() os.Signal, args []string, stdout, stderr io.Writer) (err error) {
	f, err := parseRunFlags(args, stdout)
	if err != nil {
		return err
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// Let the collector keep the process near the estimate the
		// limit bounds rather than at twice the live heap.
		debug.SetMemoryLimit(int64(f.maxMemory))
	}
	p, hash, cfg, err := loadRun(f)
	if err != nil {
		return err
	}
	files := newOutputs(ctx, "--out")
	defer func() {
		if err != nil {
			files.abort()
			if ctx.Err() != nil {
				err = interrupted(sig(), "run interrupted (%s); nothing written", signalName(sig()))
			}
		}
	}()
	if f.out != "" {
		// Before the run: a bad --out fails at once, not after it.
		if err := files.dir(f.out); err != nil {
			return err
		}
	}
	traceFile, err := startTrace(ctx, &cfg, f)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil && traceFile != nil {
			traceFile.files.abort()
		}
	}()
	// Nothing after Collect reads the recorder: the report and the files
	// read the truth profile, and the table's notes are made before.
	cfg.ReleaseTruth = true
	var out *harness.Outcome
	var interpreted []string
	restoreGC := func() {}
	defer func() { restoreGC() }()
	rig, err := harness.Build(p, cfg)
	if err == nil {
		if ctx.Done() != nil {
			rig.VM().SetContext(ctx)
		}
		ticker := newRunTicker(stderr, p.Name, rig, cfg.Sim.Duration)
		err = rig.Run()
		ticker.stop()
	}
	if err == nil {
		if f.format == "table" {
			interpreted = interpretedNote(cfg, rig)
		}
		if os.Getenv("GOGC") == "" {
			gc := debug.SetGCPercent(harness.CollectGCPercent)
			restoreGC = func() { debug.SetGCPercent(gc) }
		}
		out, err = rig.Collect()
	}
	if traceFile != nil {
		if cerr := traceFile.close(cfg.Trace); err == nil && cerr != nil {
			err = cerr
		}
	}
	if err != nil {
		return runFailed(ctx, err)
	}
	rep := newReport(p.Name, cfg, out)
	restoreGC()
	rep.Config = newRunConfig(f, cfg, out, p.Name, hash)
	if f.why {
		rep.Bias = newBiasReport(cfg.Trace, out)
	}
	if f.out != "" {
		if err := checkExport(out, int64(f.maxMemory)); err != nil {
			return err
		}
		bases := map[string]string{}
		for _, name := range out.Names {
			base := fileBase(name)
			if other, dup := bases[base]; dup {
				return usagef("--out: profiles %q and %q would both be written as %s.*; relabel one", other, name, base)
			}
			bases[base] = name
			if err := writeProfileFiles(files, f.out, base, out.Profiles[name]); err != nil {
				return err
			}
		}
	}
	if f.out != "" {
		if err := files.commit(); err != nil {
			return err
		}
	}
	if traceFile != nil {
		if err := traceFile.files.commit(); err != nil {
			return err
		}
	}
	w := bufio.NewWriter(stdout)
	byLine := f.by == "line"
	switch f.format {
	case "json":
		if f.explainJIT {
			rep.ExplainJIT = "JIT: off (--no-jit): every method runs its base compiled version\n"
			if out.JIT != nil {
				rep.ExplainJIT = out.JIT.Explain()
			}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	case "csv":
		if err := writeCSV(w, rep, rep.Config.columns(), byLine); err != nil {
			return err
		}
	case "jsonl":
		if err := writeJSONL(w, rep, rep.Config.columns(), byLine); err != nil {
			return err
		}
	default:
		if byLine {
			rep.writeLineTable(w, f.top)
		} else {
			rep.writeTable(w, f.top)
		}
		writeNotes(w, p, interpreted)
		if f.why {
			rep.writeWhy(w, f.top)
		}
		if f.explainJIT {
			explainJIT(w, out)
		}
		if f.out != "" {
			fmt.Fprintf(w, "\nwrote <profile>.pb.gz and <profile>.folded for %s in %s (open with: go tool pprof -http=: %s)\n",
				strings.Join(out.Names, ", "), f.out, filepath.Join(f.out, fileBase(out.Names[0])+".pb.gz"))
		}
		if f.trace != "" {
			fmt.Fprintf(w, "\nwrote one line per sample to %s\n", f.trace)
		}
	}
	return w.Flush()
}

// loadRun reads the workload, applies the interventions and builds the
// run's configuration; hash is the workload's before the interventions.
func loadRun(f *runFlags) (p *program.Program, hash string, cfg harness.Config, err error) {
	if err := checkWorkloadMemory(f.workload, int64(f.maxInput), int64(f.maxMemory)); err != nil {
		return nil, "", cfg, err
	}
	p, err = loadWorkloadMax(f.workload, int64(f.maxInput))
	if err != nil {
		return nil, "", cfg, err
	}
	hash = programHash(p)
	for _, in := range f.injections {
		if err := workloads.Inject(p, in); err != nil {
			return nil, "", cfg, usagef("%v", err)
		}
	}
	for _, sp := range f.speedups {
		if err := workloads.ApplySpeedUp(p, sp); err != nil {
			return nil, "", cfg, usagef("%v", err)
		}
	}
	cfg, err = buildConfig(f)
	return p, hash, cfg, err
}

// runFailed is the error of a run that failed: a limit reached (exit 2,
// naming the flag), the context's cancellation as it is, anything else
// bad input (exit 2).
func runFailed(ctx context.Context, err error) error {
	var le *sim.LimitError
	if errors.As(err, &le) {
		return limitError(le)
	}
	var we *harness.EmptyWindowError
	if errors.As(err, &we) {
		return usagef("run: --skip %v: the program ended at %v simulated, before the window opens: nothing was profiled (give a --skip before the end)",
			param.FormatDuration(we.From), param.FormatDuration(we.End))
	}
	var te *harness.ThreadsError
	if errors.As(err, &te) {
		return usagef("run: --threads %q matches none of the application threads: %s", te.Pattern, te.List())
	}
	if ctx.Err() != nil {
		return err
	}
	return usagef("%v", err)
}

// limitError is the one-line message of a run a limit stopped: the
// limit, the value the run reached and the flag that raises it.
func limitError(le *sim.LimitError) error {
	if le.Limit == "threads" {
		return usagef("run stopped at %v simulated: %s would make %d application threads, over --max-threads %d (raise it with --max-threads N)",
			le.At, le.Detail, le.Value, le.Max)
	}
	return usagef("run stopped at %v simulated: its estimated memory would reach %d bytes (%s: %s), over --max-memory %s (raise it with --max-memory SIZE)",
		le.At, le.Value, sim.FormatBytes(le.Value), le.Detail, sim.FormatBytes(le.Max))
}

// exportSampleBytes and exportFrameBytes are what writing one profile
// sample and each frame of its stack to files adds to the run's memory
// while that profile is written: its pprof sample with a location per
// frame and their encoding, then its folded line of names. Measured with
// profsim run (GOGC=25): the javac stand-in for 1 s (3.5 M truth samples,
// 78 M frames) peaked at 5.6 GiB with --out, 3.2 GiB without.
const (
	exportSampleBytes = 128
	exportFrameBytes  = 32
)

// checkExport stops a run whose profiles would take its memory over max
// as they are written (one at a time) to --out.
func checkExport(out *harness.Outcome, max int64) error {
	var most int64
	largest := ""
	for _, name := range out.Names {
		var n int64
		p := out.Profiles[name]
		for i := range p.Samples {
			n += exportSampleBytes + exportFrameBytes*int64(p.Depth(i))
		}
		if n > most {
			most, largest = n, name
		}
	}
	if total := out.Footprint.Bytes() + most; total > max {
		return usagef("run stopped before writing its profiles: writing %s to --out would take its estimated memory to %d bytes (%s: %s, and %s for the export), over --max-memory %s (raise it with --max-memory SIZE)",
			largest, total, sim.FormatBytes(total), out.Footprint, sim.FormatBytes(most), sim.FormatBytes(max))
	}
	return nil
}

// signalName is SIGINT or SIGTERM.
func signalName(s os.Signal) string {
	if s == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}

// fileBase is the file name a profile is written under: its ID with the
// label separator ':' as '-' (pprof reads "a:b" as a host and port).
func fileBase(id string) string { return strings.ReplaceAll(id, ":", "-") }

// writeFiles writes name.pb.gz and name.folded into dir, each through a
// temporary file renamed into place: both or neither.
func writeFiles(dir, name string, p *profile.Profile) error {
	files := newOutputs(context.Background(), "--out")
	if err := files.dir(dir); err != nil {
		return err
	}
	err := writeProfileFiles(files, dir, name, p)
	if err == nil {
		err = files.commit()
	}
	if err != nil {
		files.abort()
	}
	return err
}

// writeProfileFiles adds name.pb.gz and name.folded in dir to files.
func writeProfileFiles(files *outputs, dir, name string, p *profile.Profile) error {
	if err := files.write(filepath.Join(dir, name+".pb.gz"), func(w io.Writer) error { return profile.WritePprof(w, p) }); err != nil {
		return err
	}
	return files.write(filepath.Join(dir, name+".folded"), func(w io.Writer) error { return profile.WriteFolded(w, p) })
}

func cmdSamplers(args []string, stdout io.Writer) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		fmt.Fprintln(stdout, "Usage: profsim samplers [NAME]\n\nWith no NAME, lists the profilers; with NAME, its keys (type, default, range, source)\nfor --sampler NAME[:LABEL][,KEY=VALUE...].")
		return errHelp
	}
	if len(args) == 1 && args[0] == "--doc" {
		return samplerKeysDoc(stdout)
	}
	switch len(args) {
	case 0:
		fmt.Fprintf(stdout, "%-11s %s\n", "truth", "the exact ground truth: every ns of CPU in its calling context (always computed)")
		for _, i := range samplers.List() {
			fmt.Fprintf(stdout, "%-11s %s\n", i.Name, i.Description)
		}
		fmt.Fprintln(stdout, "\n'profsim samplers NAME' lists NAME's keys for --sampler NAME[:LABEL][,KEY=VALUE...].")
		return nil
	case 1:
		if args[0] == "truth" {
			fmt.Fprintln(stdout, "truth: the exact ground truth: every ns of CPU in its calling context (always computed)\n\nNo keys: --truth methods records it per method instead of per calling context (faster on deep programs).")
			return nil
		}
		i, err := samplers.Lookup(args[0])
		if err != nil {
			return usagef("samplers: %v", err)
		}
		fmt.Fprintf(stdout, "%s: %s\n\nKeys of --sampler %s[:LABEL][,KEY=VALUE...] (durations in Go syntax: 1ms, 250us):\n", i.Name, i.Description, i.Name)
		writeKeys(stdout, i.Keys())
		return nil
	}
	return usagef("samplers: unexpected argument %q", args[1])
}

// samplerKeysDoc renders the keys section of docs/SAMPLERS.md.
func samplerKeysDoc(w io.Writer) error {
	fmt.Fprintln(w, "Generated by `profsim samplers --doc` (and checked by `go test ./cmd/profsim`); do not edit by hand.")
	for _, i := range samplers.List() {
		fmt.Fprintf(w, "\n### `%s`\n\n| key | type | default | range | meaning | source of the default |\n|---|---|---|---|---|---|\n", i.Name)
		for _, k := range i.Keys() {
			typ, rng := k.Type(), param.RangeText(k.Check)
			fmt.Fprintf(w, "| `%s` | %s | `%s` | %s | %s | %s |\n", k.Name, typ, k.Default, rng,
				strings.ReplaceAll(k.Doc, "|", "\\|"), strings.ReplaceAll(k.Source, "|", "\\|"))
		}
	}
	return nil
}

// cmdShow prints one workload's listing: `profsim show NAME` is
// `profsim workloads --lines NAME`.
func cmdShow(args []string, stdout io.Writer) error {
	switch {
	case len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help"):
		fmt.Fprintln(stdout, "Usage: profsim show NAME|FILE\n\nPrints the workload's methods with their statements numbered as profiles number lines\n(the same as profsim workloads --lines NAME).")
		return errHelp
	case len(args) != 1:
		return usagef("show: want one workload (a built-in name or a file), got %d arguments", len(args))
	case strings.HasPrefix(args[0], "-"):
		return usagef("show: unknown flag %q (show takes one workload: profsim show NAME|FILE)", args[0])
	}
	return cmdWorkloads([]string{"--lines", args[0]}, stdout)
}

func cmdWorkloads(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("workloads", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	measure := fs.Bool("measure", false, "run each workload and print its measured characteristics as a markdown table")
	doc := fs.Bool("doc", false, "print docs/STANDINS.md: every stand-in and the measured table of all workloads")
	duration := fs.Duration("duration", 300*time.Millisecond, "simulated time per workload for --measure or --doc")
	only := fs.String("only", "", "comma-separated workloads to list or measure (default: all)")
	lines := fs.String("lines", "", "print workload `NAME`'s methods with their statements numbered as profiles number lines (a built-in or a file)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, "Usage: profsim workloads [--measure [--duration D]] [--only a,b] | --lines NAME")
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return errHelp
		}
		return usagef("workloads: %v", err)
	}
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	switch {
	case fs.NArg() > 0:
		return usagef("workloads: unexpected argument %q", fs.Arg(0))
	case *lines != "" && len(given) > 1:
		return usagef("workloads: --lines prints one workload's statements; it takes no other flag")
	case *lines != "":
		p, err := loadWorkloadMax(*lines, defaultMaxInput)
		if err != nil {
			return err
		}
		return p.WriteListing(stdout)
	case *duration <= 0:
		return usagef("workloads: --duration %v must be > 0", *duration)
	case *doc && *measure:
		return usagef("workloads: --doc prints the measured table itself; --measure would be ignored")
	case *doc && given["only"]:
		return usagef("workloads: --doc covers every workload; --only would be ignored")
	case given["duration"] && !*doc && !*measure:
		return usagef("workloads: --duration is the simulated time of --measure or --doc; without them it would be ignored")
	}
	names := workloads.Names()
	if *only != "" {
		names = nil
		all := append(append(workloads.Names(), workloads.Models()...), workloads.Twins()...)
		for _, n := range strings.Split(*only, ",") {
			if !slices.Contains(all, n) {
				return usagef("workloads: --only: unknown workload %q", n)
			}
			names = append(names, n)
		}
	}
	if *doc {
		return standInsDoc(stdout, sim.Time(*duration))
	}
	if *measure {
		t, _, err := study.CharacteristicsTable(names, sim.Time(*duration))
		if err != nil {
			return err
		}
		_, err = io.WriteString(stdout, t.Markdown())
		return err
	}
	for _, n := range names {
		p, err := workloads.Get(n)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%-16s %s\n", n, p.Description)
	}
	if *only == "" {
		fmt.Fprintf(stdout, "\nModels of real applications (workloads/models, profsim import of JFR recordings):\n")
		for _, n := range workloads.Models() {
			p, err := workloads.Get(n)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%-16s %s\n", n, p.Description)
		}
		fmt.Fprintf(stdout, "\nTwins of the fidelity micro-programs (workloads/fidelity, tools/fidelity/Fidelity.java):\n")
		for _, n := range workloads.Twins() {
			p, err := workloads.Get(n)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%-16s %s\n", n, p.Description)
		}
	}
	return nil
}

// standInsDoc renders docs/STANDINS.md: every stand-in with what it
// imitates and which knobs carry which claim, then the measured table.
func standInsDoc(w io.Writer, d sim.Time) error {
	fmt.Fprintf(w, "# Stand-ins\n\nGenerated by `profsim workloads --doc` (and checked by `go test ./cmd/profsim`); do not edit by hand.\n\n")
	fmt.Fprintf(w, "Every stand-in is a **synthetic** program from the seeded generator in `workloads/gen.go`, named after the benchmark whose properties it carries; it is not that benchmark. Its knobs are in `workloads/standins.go`.\n\n")
	fmt.Fprintf(w, "| stand-in | imitates | paper | what matters for which claim |\n|---|---|---|---|\n")
	for _, s := range workloads.StandIns() {
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", s.Name, s.Imitates, s.Paper, s.Matters)
	}
	fmt.Fprintln(w)
	t, _, err := study.CharacteristicsTable(nil, d)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, t.Markdown()); err != nil {
		return err
	}
	// The models beside the stand-ins named after the same benchmarks.
	var pairs []string
	for _, m := range workloads.Models() {
		if s, ok := workloads.LookupStandIn(strings.TrimSuffix(m, "-real")); ok {
			pairs = append(pairs, s.Name)
		}
		pairs = append(pairs, m)
	}
	fmt.Fprintf(w, "\n## Models beside their stand-ins\n\n%s\n\n", modelsVersusStandIns)
	t, _, err = study.CharacteristicsTable(pairs, d)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, t.Markdown())
	return err
}

// modelsVersusStandIns is docs/STANDINS.md's account of how the models of
// real applications differ from the stand-ins and why the stand-ins are
// not refitted to them.
const modelsVersusStandIns = `The models of real applications (` + "`workloads/models`" + `, imported from a JFR recording and the
application's class files, docs/IMPORT.md), measured as above beside the stand-in named after the
same benchmark. The models are deeper, run many more methods, have flatter profiles (the ten
hottest methods hold less of the CPU), basic blocks as large as the real methods' code between
calls, and much less of their CPU in loops without a poll.

The stand-ins are not refitted to the models. Each carries what its paper's claims turn on — the
Mytkowicz stand-ins (antlr, chart, fop, jython, luindex) spend their time in poll-free leaf loops,
the mechanism of M1–M7; Hofer's lusearch and xalan are CPU-heavy with many threads (H1–H6, X2) —
and refitting them would change every claim that uses them. The models answer the other
question, what the same experiments give on the real programs' structure: the Mytkowicz
experiments run on them with ` + "`profsim study NAME --models`" + ` (the "on models" rows of
REPRODUCTIONS.md). A model is also coarser than its program: it is fitted to the 1–4 thousand
samples of one 5 s recording of one input, its contexts below the sampled ones are inferred
(docs/IMPORT.md), and its context count is not the program's.`
