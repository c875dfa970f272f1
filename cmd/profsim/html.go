package main

import (
	"fmt"
	"github.com/profsim/profsim/harness"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/profsim/profsim/report"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/timeline"
)

// reportFlags are `profsim report`'s own flags; the rest are run flags.
var reportFlags = []string{"html", "from", "window"}

const reportUsage = `Usage: profsim report [run flags] --html FILE [--from T --window D]

Writes one self-contained page: the run's settings, the side-by-side table,
the bias matrices, flame graphs and the timeline of a window.

Flags of report:
  --html FILE     the page to write (required)
  --from T        start of the timeline's window, a duration (default: centred)
  --window D      length of the timeline's window (default: 10 ticks of the slowest profiler, at most the run)

`

// cmdReport is `profsim report [run flags] --html FILE [--from T --window
// D]`: one self-contained page (no network, no external asset) with the
// run's settings, the side-by-side table, the bias matrices, a flame graph
// per profiler beside the truth's, and the timeline of a window.
func cmdReport(args []string, stdout io.Writer) (err error) {
	own, rest, err := takeFlags(args, reportFlags)
	if err != nil {
		return err
	}
	if err := helpWithRunFlags(rest, stdout, reportUsage); err != nil {
		return err
	}
	path := own["html"]
	if path == "" {
		return usagef("report: --html FILE is required")
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return usagef("report: --html %s: directory %s does not exist", path, filepath.Dir(path))
	}
	f, err := parseRunFlags(rest, stdout)
	if err != nil {
		return err
	}
	for _, name := range []string{"format", "by", "explain-jit", "out", "trace", "why"} {
		if flagGiven(rest, name) {
			return usagef("report: --%s is a run flag about printing a run; report writes a page", name)
		}
	}
	p, hash, cfg, err := loadRun(f)
	if err != nil {
		return err
	}
	from, window, err := reportWindow(own, f.spec.Duration, cfg.Samplers)
	if err != nil {
		return err
	}
	ctx, sig, stop := signalContext()
	defer stop()
	files := newOutputs(ctx, "--html")
	defer func() {
		if err != nil {
			files.abort()
			if ctx.Err() != nil {
				err = interrupted(sig(), "report interrupted (%s); nothing written", signalName(sig()))
			}
		}
	}()
	cfg.Trace = samplers.NewTrace(nil)
	tl, out, err := timeline.Run(ctx, p, cfg, sim.Time(from), sim.Time(window), false)
	if err != nil {
		return runFailed(ctx, err)
	}
	rep := report.New(p.Name, cfg, out)
	rep.Config = f.spec.Describe(cfg, out.Names, out.Samplers, harness.WorkloadInfo{Name: p.Name, Ref: f.spec.Workload, SHA256: hash})
	rep.Bias = report.NewBias(cfg.Trace, out)
	if err := files.write(path, func(w io.Writer) error { return rep.HTML(w, out.Profiles, tl, f.top) }); err != nil {
		return err
	}
	if err := files.commit(); err != nil {
		return err
	}
	abs, _ := filepath.Abs(path)
	fmt.Fprintf(stdout, "wrote %s (open it in a browser: file://%s)\n", path, abs)
	return nil
}

// reportWindow is the timeline's window: --from and --window over
// report.DefaultWindow for a run of length run by the samplers specs.
func reportWindow(own map[string]string, run time.Duration, specs []string) (from, window time.Duration, err error) {
	from, window = report.DefaultWindow(run, specs)
	if v, ok := own["window"]; ok {
		if window, err = time.ParseDuration(v); err != nil || window <= 0 {
			return 0, 0, usagef("report: --window %q: want a duration > 0 such as 5ms", v)
		}
	}
	if v, ok := own["from"]; ok {
		if from, err = time.ParseDuration(v); err != nil || from < 0 {
			return 0, 0, usagef("report: --from %q: want a duration ≥ 0 such as 20ms", v)
		}
	}
	return from, window, nil
}
