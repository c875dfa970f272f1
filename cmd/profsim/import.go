package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/profsim/profsim/classfile"
	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/importer"
	"github.com/profsim/profsim/internal/filekind"
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
	fitVM := fs.String("fit-vm", importer.DefaultFitVM, "the VM preset the refinement runs (and --check) use: the model is fitted for it (see 'profsim run --help', --vm)")
	noThrows := fs.Bool("no-throws", false, "leave out the stack walks of the recording's throwables (jdk.JavaExceptionThrow; docs/IMPORT.md, \"Exceptions\")")
	noSites := fs.Bool("no-site-inlining", false, "leave every call site's inlining to the model's JIT (docs/IMPORT.md, \"Inlining decisions\")")
	noBounds := fs.Bool("no-loop-bounds", false, "leave counted loops unmarked: the JIT reads their fitted trips as literal bounds (docs/IMPORT.md, \"The class files\")")
	noEveryTrip := fs.Bool("no-every-trip-calls", false, "leave unmarked the calls every trip of their loop makes in the class file, whose loop's back-edge poll the JIT otherwise drops while they are not inlined (docs/IMPORT.md, \"Loop trips\")")
	noPaths := fs.Bool("no-loop-paths", false, "plan every loop's trips from the cost of its code, not from the samples of the paths that go round again (docs/IMPORT.md, \"Loop trips\")")
	noCallers := fs.Bool("no-callers", false, "fit each call site's frequency over all its method's callers, without probabilities by caller (docs/IMPORT.md, \"Context\")")
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
	if _, err := harness.PresetConfig(*fitVM); err != nil {
		return usagef("import: --fit-vm: %v", err)
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
		KeepRecorderThreads: *keepRecorder, IgnoreThrows: *noThrows, IgnoreSiteInlining: *noSites, IgnoreCallers: *noCallers, IgnoreLoopBounds: *noBounds, IgnoreLoopPaths: *noPaths, IgnoreEveryTripCalls: *noEveryTrip, FitVM: *fitVM})
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
		importer.WriteHeader(w, *rec, cpath, &m.Report)
		return program.EncodeYAML(w, m.Program)
	})
	if err == nil {
		err = files.commit()
	}
	if err != nil {
		return err
	}
	written = true
	importer.WriteReport(stdout, *out, m)
	if !*check {
		return nil
	}
	if err := importer.Check(ctx, stdout, m, *seed); err != nil {
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
