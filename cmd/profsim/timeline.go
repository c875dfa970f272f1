package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/timeline"
)

// timelineFlags are `profsim timeline`'s own flags; the rest are run flags.
// --polls takes no value (or =true/=false).
var timelineFlags = []string{"from", "window", "out", "png", "polls"}

// cmdTimeline is `profsim timeline [run flags] --from T --window D --out
// FILE.svg [--png FILE.png] [--polls]`: thread lanes over a window of the
// run, with every poll executed when --polls is given.
func cmdTimeline(args []string, stdout io.Writer) (err error) {
	own, rest, err := takeFlags(args, timelineFlags)
	if err != nil {
		return err
	}
	if err := helpWithRunFlags(rest, stdout, timelineUsage); err != nil {
		return err
	}
	if own["out"] == "" {
		return usagef("timeline: --out FILE.svg is required (and --png FILE.png draws it as PNG too)")
	}
	var from, window time.Duration
	if v, ok := own["from"]; ok {
		if from, err = time.ParseDuration(v); err != nil || from < 0 {
			return usagef("timeline: --from %q: want a duration ≥ 0 such as 20ms", v)
		}
	}
	v, ok := own["window"]
	if !ok {
		return usagef("timeline: --window is required: the length of time to draw, such as 5ms")
	}
	if window, err = time.ParseDuration(v); err != nil || window <= 0 {
		return usagef("timeline: --window %q: want a duration > 0 such as 5ms", v)
	}
	f, err := parseRunFlags(rest, stdout)
	if err != nil {
		return err
	}
	for _, name := range []string{"format", "by", "top", "explain-jit", "out", "trace", "why"} {
		if flagGiven(rest, name) {
			return usagef("timeline: --%s is a run flag about printing a run; timeline draws one", name)
		}
	}
	for _, name := range []string{"out", "png"} {
		// Before the run: a bad path fails at once, not after it.
		if path := own[name]; path != "" {
			if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
				return usagef("timeline: --%s %s: directory %s does not exist", name, path, filepath.Dir(path))
			}
		}
	}
	p, _, cfg, err := loadRun(f)
	if err != nil {
		return err
	}
	ctx, sig, stop := signalContext()
	defer stop()
	svgFiles, pngFiles := newOutputs(ctx, "--out"), newOutputs(ctx, "--png")
	defer func() {
		if err != nil {
			svgFiles.abort()
			pngFiles.abort()
			if ctx.Err() != nil {
				err = interrupted(sig(), "timeline interrupted (%s); nothing written", signalName(sig()))
			}
		}
	}()
	polls := false
	if v, ok := own["polls"]; ok {
		if polls, err = strconv.ParseBool(v); err != nil {
			return usagef("timeline: --polls=%q: want true or false", v)
		}
	}
	tl, _, err := timeline.Run(ctx, p, cfg, sim.Time(from), sim.Time(window), polls)
	if err != nil {
		return runFailed(ctx, err)
	}
	if err := svgFiles.write(own["out"], tl.WriteSVG); err != nil {
		return err
	}
	if own["png"] != "" {
		if err := pngFiles.write(own["png"], tl.WritePNG); err != nil {
			return err
		}
	}
	if err := svgFiles.commit(); err != nil {
		return err
	}
	if err := pngFiles.commit(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote the timeline of %s from %v to %v (%d threads, %d samples, %d safepoints) to %s\n",
		p.Name, tl.From, tl.To, len(tl.Lanes), len(tl.Samples), len(tl.Safepoints), strings.Join(nonEmpty(own["out"], own["png"]), " and "))
	return nil
}

const timelineUsage = `Usage: profsim timeline [run flags] --from T --window D --out FILE.svg [--png FILE.png] [--polls]

Draws thread lanes, samples and safepoints over a window of a run.

Flags of timeline:
  --from T        start of the window, a duration such as 20ms (default 0)
  --window D      length of the window, a duration such as 5ms (required)
  --out FILE.svg  the drawing as SVG (required)
  --png FILE.png  the drawing as PNG too
  --polls         mark every poll executed in the window

`

// helpWithRunFlags prints usage and then the run flags' help, and
// returns errHelp, when the run flags in rest ask for help (-h, -help,
// --help) as `profsim run` would read them; otherwise it returns nil.
func helpWithRunFlags(rest []string, stdout io.Writer, usage string) error {
	if !slices.ContainsFunc(rest, func(a string) bool { return a == "-h" || a == "-help" || a == "--help" || a == "--h" }) {
		return nil
	}
	var help bytes.Buffer
	if _, err := parseRunFlags(rest, &help); !errors.Is(err, errHelp) {
		return nil // a run flag's value, or an error the command reports in its turn
	}
	fmt.Fprint(stdout, usage+"Run flags (as 'profsim run'):\n")
	_, err := stdout.Write(help.Bytes())
	if err != nil {
		return err
	}
	return errHelp
}

// takeFlags removes the flags names (--name V or --name=V) from args.
func takeFlags(args, names []string) (map[string]string, []string, error) {
	own := map[string]string{}
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || !slices.Contains(names, name) {
			rest = append(rest, a)
			continue
		}
		if _, dup := own[name]; dup {
			return nil, nil, usagef("timeline: --%s given twice", name)
		}
		if !hasVal && name == "polls" {
			val = "true" // a boolean flag
		} else if !hasVal {
			if i+1 >= len(args) {
				return nil, nil, usagef("timeline: --%s needs a value", name)
			}
			i++
			val = args[i]
		}
		own[name] = val
	}
	return own, rest, nil
}

// flagGiven reports whether args set --name.
func flagGiven(args []string, name string) bool {
	for _, a := range args {
		n, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && n == name {
			return true
		}
	}
	return false
}

func nonEmpty(xs ...string) []string {
	var out []string
	for _, x := range xs {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}
