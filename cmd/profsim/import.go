package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/profsim/profsim/internal/filekind"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/profsim/profsim/classfile"
	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/importer"
	"github.com/profsim/profsim/jfrjson"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/program"
)

const importUsage = `Usage: profsim import --jfr-json REC.json [--classpath JARS_OR_DIRS]... --out MODEL.yaml [flags]

Builds a workload that models a recorded Java application (docs/IMPORT.md):
REC.json is 'jfr print --json --events jdk.ExecutionSample,jdk.Compilation,...'
of a recording made with -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints
(tools/realapps/record.sh); the classpath holds the application's class files.
`

// listFlag collects a repeatable flag; each value may be a path list.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, string(os.PathListSeparator)) }

func (l *listFlag) Set(v string) error {
	for _, p := range filepath.SplitList(v) {
		if p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

// maxRefine bounds --refine: each refinement is a run of the model to the
// recording's length, and ten already change a method's work by well
// under a percent (docs/IMPORT.md).
const maxRefine = 100

func cmdImport(args []string, stdout, stderr io.Writer) error {
	ctx, sig, stop := signalContext()
	defer stop()
	return importCommand(ctx, sig, args, stdout, stderr)
}

// importCommand is `profsim import`: the model file is written
// atomically, and nothing is left behind if the command fails or ctx is
// cancelled (SIGINT, SIGTERM: exit status 130, 143), reading the
// recording or refining the model. The import's warnings go to stderr.
func importCommand(ctx context.Context, sig func() os.Signal, args []string, stdout, stderr io.Writer) (err error) {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	rec := fs.String("jfr-json", "", "the recording: JSON of `jfr print --json` (required)")
	var cpath listFlag
	fs.Var(&cpath, "classpath", "jars and class directories, repeatable or a path list")
	out := fs.String("out", "", "the workload file to write (required)")
	name := fs.String("name", "", "the program's name (default: the output file's name)")
	period := fs.Duration("period", 0, "CPU time per sample (default: estimated from the sample times)")
	nsPerByte := fs.Float64("ns-per-byte", importer.DefaultNanosPerByte, "assumed compiled cost of one bytecode byte, in ns: sets the call rate")
	refine := fs.Int("refine", 3, "refinement runs: after each run of the model, rescale each method's work to the recording")
	check := fs.Bool("check", false, "run the model to its end and print its truth against the recording")
	seed := fs.Uint64("seed", 1, "seed of the --check run")
	keepRecorder := fs.Bool("keep-recorder-threads", false, "model the JDK Flight Recorder's own threads too (JFR Periodic Tasks, ...; left out by default)")
	noThrows := fs.Bool("no-throws", false, "leave out the stack walks of the recording's throwables (jdk.JavaExceptionThrow; docs/IMPORT.md, \"Exceptions\")")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, importUsage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return errHelp
		}
		return usagef("import: %v", err)
	}
	switch {
	case fs.NArg() > 0:
		return usagef("import: unexpected argument %q", fs.Arg(0))
	case *rec == "":
		return usagef("import: --jfr-json is required")
	case *out == "":
		return usagef("import: --out is required")
	case !(*nsPerByte > 0):
		return usagef("import: --ns-per-byte %v must be > 0", *nsPerByte)
	case *refine < 0 || *refine > maxRefine:
		return usagef("import: --refine %d must be in [0, %d]", *refine, maxRefine)
	case *period < 0:
		return usagef("import: --period %v must be ≥ 0", *period)
	}
	if *name == "" {
		*name = strings.TrimSuffix(filepath.Base(*out), filepath.Ext(*out))
	}
	// The recording is streamed, so it has no size limit; only a regular
	// file is read (a FIFO or a device would block or never end).
	if st, err := os.Stat(*rec); err != nil {
		return usagef("import: --jfr-json %s: %v", *rec, bare(err))
	} else if !st.Mode().IsRegular() {
		return usagef("import: --jfr-json %s: not a regular file (%s)", *rec, filekind.Of(st.Mode()))
	}
	files := newOutputs(ctx, "--out")
	written := false
	defer func() {
		if err != nil && !written {
			files.abort()
			if ctx.Err() != nil {
				err = interrupted(sig(), "import interrupted (%s); nothing written", signalName(sig()))
			}
		}
	}()
	// Before the import: a bad --out fails at once, not after it.
	if err := files.dir(filepath.Dir(*out)); err != nil {
		return err
	}
	f, err := os.Open(*rec)
	if err != nil {
		return usagef("import: %v", err)
	}
	defer f.Close()
	var cp *classfile.Classpath
	if len(cpath) > 0 {
		if cp, err = classfile.OpenClasspath(cpath...); err != nil {
			return usagef("import: %v", err)
		}
		defer cp.Close()
	}
	m, err := importer.ImportContext(ctx, ctxReader{ctx, f}, cp, importer.Options{Name: *name, Period: *period, NanosPerByte: *nsPerByte, Refine: *refine,
		KeepRecorderThreads: *keepRecorder, IgnoreThrows: *noThrows})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return usagef("import: %s: %v", *rec, err)
	}
	for _, w := range m.Report.Warnings {
		fmt.Fprintf(stderr, "profsim: import: %s: warning: %s\n", *rec, w)
	}
	err = files.write(*out, func(w io.Writer) error {
		writeImportHeader(w, *rec, cpath, &m.Report)
		return program.EncodeYAML(w, m.Program)
	})
	if err == nil {
		err = files.commit()
	}
	if err != nil {
		return err
	}
	written = true
	writeImportReport(stdout, *out, m)
	if !*check {
		return nil
	}
	if err := checkImport(ctx, stdout, m, *seed); err != nil {
		if ctx.Err() != nil {
			return interrupted(sig(), "import --check interrupted (%s); %s was written", signalName(sig()), *out)
		}
		return err
	}
	return nil
}

// ctxReader fails every read once its context is done, so that an
// interrupted import stops reading a large recording at once.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(b)
}

// writeImportHeader is the model file's provenance, as YAML comments.
func writeImportHeader(w io.Writer, rec string, cp []string, r *importer.Report) {
	fmt.Fprintf(w, "# Generated by profsim import (docs/IMPORT.md) from %s\n", filepath.Base(rec))
	if len(cp) > 0 {
		bases := make([]string, len(cp))
		for i, p := range cp {
			bases[i] = filepath.Base(p)
		}
		fmt.Fprintf(w, "# classpath: %s\n", strings.Join(bases, " "))
	}
	fmt.Fprintf(w, "# %d samples (%d truncated, not used) of %d threads over %v, %v of CPU each\n",
		r.Samples, r.Truncated, r.Threads, r.Span.Round(time.Millisecond), r.Period)
	if r.NativeSamples > 0 {
		each := r.Period
		if r.Tick > 0 {
			each = r.Tick
		}
		fmt.Fprintf(w, "# %d native method samples of the same threads, %v each: native statements\n", r.NativeSamples, each)
	}
	if t := r.Throws; t.Used > 0 {
		fmt.Fprintf(w, "# %d throwables of the same threads (of %d recorded), %.0f frames deep on average: their stack walks are %d samples of Throwable.fillInStackTrace(int)\n",
			t.Used, t.Events, t.MeanFrames, t.Samples)
	}
	fmt.Fprintf(w, "# %d methods, %d without a class file; %d inferred loops\n", r.Methods, len(r.NoClassFile), r.InferredLoops)
}

func writeImportReport(w io.Writer, out string, m *importer.Model) {
	r := &m.Report
	fmt.Fprintf(w, "wrote %s: %d methods, %d threads\n", out, len(m.Program.Methods), len(m.Program.Threads))
	fmt.Fprintf(w, "recording: %d samples over %v, %v per sample; %d truncated (not used), %d compilations, %d inlining decisions\n",
		r.Samples, r.Span.Round(time.Millisecond), r.Period, r.Truncated, r.Compilations, r.Inlinings)
	if r.NativeSamples+r.NativeOther+r.NativeUnusable > 0 {
		fmt.Fprintf(w, "native: %d native method samples modelled as native statements, %d of threads without execution samples and %d truncated or empty (not used)\n",
			r.NativeSamples, r.NativeOther, r.NativeUnusable)
	}
	if r.Tick > 0 {
		fmt.Fprintf(w, "weights: JFR's sampler ticked every %v; a native method sample stands for a tick, an execution sample for %v (its busiest thread's time less native code and throwables' walks, over its execution samples): %d native method samples are %d samples of %v\n",
			r.Tick, r.Period, r.NativeSamples, r.NativeModelled, r.Period)
	}
	if t := r.Throws; t.Events > 0 {
		fmt.Fprintf(w, "throwables: %d stack walks (%.0f frames each on average, %.1f ms in all) modelled as %d samples of Throwable.fillInStackTrace(int); %d of threads without execution samples, %d of the recorder's threads, %d truncated or empty, %d of classes whose fillInStackTrace does not walk (not used)\n",
			t.Used, t.MeanFrames, t.Time/1e6, t.Samples, t.Other, t.Recorder, t.Unusable, t.Unwalked)
	}
	modelled := map[string]bool{}
	for _, th := range m.Program.Threads {
		modelled[th.Name] = true
	}
	for _, l := range r.CPULoad {
		if !modelled[l.Thread] {
			continue
		}
		if r.HWThreads > 0 {
			on := l.OnCPU(r.HWThreads)
			fmt.Fprintf(w, "cpu: %s used %.3f of the machine's CPU (mean of %d jdk.ThreadCPULoad events): on %d hardware threads (jdk.CPUInformation) it was on a CPU %.0f %% of the time and off it, waiting, %.0f %%; the model runs all its time on a CPU\n",
				l.Thread, l.Load, l.Events, r.HWThreads, 100*on, 100*(1-on))
		} else {
			fmt.Fprintf(w, "cpu: %s used %.3f of the machine's CPU (mean of %d jdk.ThreadCPULoad events); the recording has no jdk.CPUInformation, so how much of one CPU that is is unknown (tools/realapps/profsim.jfc records it)\n",
				l.Thread, l.Load, l.Events)
		}
	}
	fmt.Fprintf(w, "structure: %d methods without a class file, %d caller frames not at an invoke, %d inferred loops\n",
		len(r.NoClassFile), r.Mismatched, r.InferredLoops)
	compiled := 0
	for i := range m.Program.Methods {
		if m.Program.Methods[i].Compiled {
			compiled++
		}
	}
	fmt.Fprintf(w, "compiled: %d of %d methods ran compiled in the recording (compiled: true; frame types %s)\n",
		compiled, len(m.Program.Methods), frameTypes(r.FrameTypes))
	if len(r.Recorder) > 0 {
		fmt.Fprintf(w, "recorder threads: %d samples of %s left out (--keep-recorder-threads keeps them)\n",
			r.RecorderSamples, strings.Join(r.Recorder, ", "))
	}
	for i, o := range r.Refinement {
		fmt.Fprintf(w, "refinement run %d: method overlap %.3f before rescaling\n", i+1, o)
	}
}

// checkImport runs the model until its threads end and compares its
// ground truth with the recording's profile.
func checkImport(ctx context.Context, w io.Writer, m *importer.Model, seed uint64) error {
	cfg := importer.RunToEnd(harness.DefaultConfig(), &m.Report)
	cfg.Sim.Seed = seed
	outc, err := harness.RunContext(ctx, m.Program, cfg)
	if err != nil {
		return err
	}
	truth := outc.Profiles["truth"]
	fmt.Fprintf(w, "check: simulated %v; method overlap %.3f, context overlap %.3f (truth vs recording)\n",
		time.Duration(outc.Result.End), profile.OverlapMethods(truth, m.Recorded), profile.OverlapContexts(truth, m.Recorded))
	unseen := profile.UnseenContexts(m.Recorded)
	fmt.Fprintf(w, "  about %.3f of the program's time went to calling contexts the recording never sampled (Good–Turing: its contexts sampled once, over its samples), so even an exact model of the program would overlap its contexts by at most about %.3f\n",
		unseen, 1-unseen)
	rec := m.Recorded.MethodWeights()
	tru := truth.MethodWeights()
	recTotal, truTotal := float64(m.Recorded.TotalWeight()), float64(truth.TotalWeight())
	fmt.Fprintf(w, "  %-60s %9s %9s\n", "method (top 15 recorded)", "recorded", "truth")
	for i, s := range m.Recorded.Flat() {
		if i == 15 {
			break
		}
		fmt.Fprintf(w, "  %-60s %8.2f%% %8.2f%%\n", s.Name, 100*rec[s.Name]/recTotal, 100*tru[s.Name]/truTotal)
	}
	return nil
}

// frameTypes lists the recording's frames by type, in JFR's order.
func frameTypes(n map[jfrjson.FrameType]int) string {
	var parts []string
	for _, t := range []jfrjson.FrameType{jfrjson.Interpreted, jfrjson.JITCompiled, jfrjson.Inlined, jfrjson.Native} {
		parts = append(parts, fmt.Sprintf("%d %s", n[t], t))
	}
	return strings.Join(parts, ", ")
}
