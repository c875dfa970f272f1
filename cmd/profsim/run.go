package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/report"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/study"
	"github.com/profsim/profsim/workloads"
)

// runFlags are `profsim run`'s flags: the run's description (spec,
// harness.Spec's flags) and how its result is presented.
type runFlags struct {
	spec   harness.Spec
	format string
	by     string
	out    string
	top    int
	// explainJIT is --explain-jit; trace is the --trace file; why asks
	// for the bias matrices.
	explainJIT bool
	trace      string
	why        bool
}

func parseRunFlags(args []string, stdout io.Writer) (*runFlags, error) {
	f := &runFlags{spec: harness.DefaultSpec()}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	sf := f.spec.Bind(fs)
	fs.StringVar(&f.format, "format", "table", "output format: table, json, csv (tidy, one row per profile and method) or jsonl (the csv rows as JSON lines)")
	fs.StringVar(&f.by, "by", "method", "attribution in the table and csv/jsonl: method, or line (each sample's top frame by source line)")
	fs.StringVar(&f.out, "out", "", "directory to write each profile's <id>.pb.gz (pprof) and <id>.folded to")
	fs.IntVar(&f.top, "top", 10, "rows of methods and edges in the table")
	keys := fs.Bool("keys", false, "list the keys --set takes, with type, default and source, and exit")
	fs.BoolVar(&f.explainJIT, "explain-jit", false, "print each compiled method's tier, inlining tree and polls")
	fs.StringVar(&f.trace, "trace", "", "write one JSON line per sample of every sampler to `FILE.jsonl`: when it was requested, where the thread truly was, how it was taken, what was recorded")
	fs.BoolVar(&f.why, "why", false, "print each sampler's bias matrix: the method each sample was requested in against the one it was charged to, and the mechanisms that took them (json: \"bias\")")
	if err := fs.Parse(joinBoolValues(fs, args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			harness.WriteRunHelp(stdout, fs)
			harness.WriteLimitsHelp(stdout)
			return nil, errHelp
		}
		return nil, usagef("run: %v", explainFlagError(fs, err))
	}
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	if *keys {
		if len(given) > 1 {
			return nil, usagef("run: --keys lists the keys and runs nothing: %s would be ignored", givenExcept(given, "keys"))
		}
		harness.WriteSettingKeys(stdout)
		return nil, errHelp
	}
	if err := outputConflicts(f, given); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, usagef("run: unexpected argument %q (flags only)", fs.Arg(0))
	}
	if err := sf.Finish(); err != nil {
		return nil, usagef("run: %v", err)
	}
	switch {
	case f.spec.BaselineOnly && f.explainJIT:
		return nil, usagef("run: --explain-jit configures the optimizing JIT, which %s turns off", f.spec.BaselineFlag)
	case !slices.Contains([]string{"table", "json", "csv", "jsonl"}, f.format):
		return nil, usagef("run: --format %q: want table, json, csv or jsonl", f.format)
	case f.by != "method" && f.by != "line":
		return nil, usagef("run: --by %q: want method or line", f.by)
	case f.top < 1:
		return nil, usagef("run: --top %d must be ≥ 1", f.top)
	}
	return f, nil
}

// outputConflicts names output flags that contradict each other or that
// the rest of the command line would silently ignore.
func outputConflicts(f *runFlags, given map[string]bool) error {
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

// asUsage makes a harness.InputError — a workload the user named that
// cannot be read — a usage error (exit status 2).
func asUsage(err error) error {
	var ie *harness.InputError
	if errors.As(err, &ie) {
		return usageError{err}
	}
	return err
}

// buildConfig resolves the run's configuration (harness.Spec.Config).
func buildConfig(f *runFlags) (harness.Config, error) {
	cfg, err := f.spec.Config()
	if err != nil {
		return cfg, usagef("run: %v", err)
	}
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
		debug.SetMemoryLimit(f.spec.MaxMemory)
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
			interpreted = report.InterpretedNote(cfg, rig)
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
	rep := report.New(p.Name, cfg, out)
	restoreGC()
	rep.Config = f.spec.Describe(cfg, out.Names, out.Samplers, harness.WorkloadInfo{Name: p.Name, Ref: f.spec.Workload, SHA256: hash})
	if f.why {
		rep.Bias = report.NewBias(cfg.Trace, out)
	}
	if f.out != "" {
		if err := checkExport(out, f.spec.MaxMemory); err != nil {
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
			rep.ExplainJIT = report.ExplainJIT(out)
		}
		if err := rep.JSON(w); err != nil {
			return err
		}
	case "csv":
		if err := rep.CSV(w, report.Settings(rep.Config), byLine); err != nil {
			return err
		}
	case "jsonl":
		if err := rep.JSONL(w, report.Settings(rep.Config), byLine); err != nil {
			return err
		}
	default:
		if byLine {
			rep.LineTable(w, f.top)
		} else {
			rep.Table(w, f.top)
		}
		report.WriteNotes(w, p, interpreted)
		if f.why {
			rep.Why(w, f.top)
		}
		if f.explainJIT {
			report.JIT(w, out)
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
	p, hash, err = f.spec.Load()
	err = asUsage(err)
	if err != nil {
		return nil, "", cfg, err
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

// checkExport stops a run whose profiles would take its memory over max
// as they are written (one at a time) to --out.
func checkExport(out *harness.Outcome, max int64) error {
	largest, most := out.LargestExport()
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
		return samplers.WriteKeysDoc(stdout)
	}
	switch len(args) {
	case 0:
		samplers.WriteList(stdout)
		fmt.Fprintln(stdout, "\n'profsim samplers NAME' lists NAME's keys for --sampler NAME[:LABEL][,KEY=VALUE...].")
		return nil
	case 1:
		if err := samplers.WriteKeys(stdout, args[0]); err != nil {
			return usagef("samplers: %v", err)
		}
		return nil
	}
	return usagef("samplers: unexpected argument %q", args[1])
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
		p, err := harness.LoadWorkload(*lines, harness.DefaultMaxInput)
		if err != nil {
			return asUsage(err)
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
		all := slices.Concat(workloads.Names(), workloads.Models(), workloads.Twins(), workloads.Experiments())
		for _, n := range strings.Split(*only, ",") {
			if !slices.Contains(all, n) {
				return usagef("workloads: --only: unknown workload %q", n)
			}
			names = append(names, n)
		}
	}
	if *doc {
		return study.WriteStandInsDoc(stdout, sim.Time(*duration))
	}
	if *measure {
		t, _, err := study.CharacteristicsTable(names, sim.Time(*duration))
		if err != nil {
			return err
		}
		_, err = io.WriteString(stdout, t.Markdown())
		return err
	}
	return workloads.WriteList(stdout, names, *only == "")
}
