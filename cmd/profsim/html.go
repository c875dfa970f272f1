package main

import (
	"bytes"
	"fmt"
	"github.com/profsim/profsim/harness"
	"hash/fnv"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/profile"
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
	from, window, err := reportWindow(own, f.spec.Duration, longestPeriod(cfg.Samplers))
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
	rep := newReport(p.Name, cfg, out)
	rep.Config = f.spec.Describe(cfg, out.Names, out.Samplers, harness.WorkloadInfo{Name: p.Name, Ref: f.spec.Workload, SHA256: hash})
	rep.Bias = newBiasReport(cfg.Trace, out)
	page, err := buildPage(rep, out.Names, out.Profiles, tl, f.top)
	if err != nil {
		return err
	}
	if err := files.write(path, func(w io.Writer) error { return pageTemplate.Execute(w, page) }); err != nil {
		return err
	}
	if err := files.commit(); err != nil {
		return err
	}
	abs, _ := filepath.Abs(path)
	fmt.Fprintf(stdout, "wrote %s (open it in a browser: file://%s)\n", path, abs)
	return nil
}

// reportSamplesShown is how many of its samples the slowest profiler
// shows in the default timeline window.
const reportSamplesShown = 10

// reportWindow is the timeline's window: --from and --window, by default
// the middle of the run, long enough for reportSamplesShown ticks of the
// profiler with the longest period (10 ms: 100 ms), at least 1 ms and at
// most the run; with no period known, 5 % of the run.
func reportWindow(own map[string]string, run, period time.Duration) (from, window time.Duration, err error) {
	window = run / 20
	if period > 0 {
		window = reportSamplesShown * period
	}
	window = min(max(window, time.Millisecond), run)
	from = (run - window) / 2
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

// page is what the template shows.
type page struct {
	Title    string
	Settings string
	Args     string
	Table    string
	Bias     []htmlBias
	Untraced []untraced
	Flames   []flame
	Timeline template.HTML
}

type htmlBias struct {
	Sampler    string
	Samples    int64
	Diagonal   string
	Mechanisms string
	Skipped    string
	Methods    []string
	Rows       [][]string
}

type flame struct {
	Name string
	SVG  template.HTML
}

func buildPage(rep *report, names []string, profiles map[string]*profile.Profile, tl *timeline.Timeline, top int) (*page, error) {
	pg := &page{Title: fmt.Sprintf("profsim: %s", rep.Workload)}
	pg.Settings = fmt.Sprintf("workload %s, seed %d, %d CPUs, %v simulated, %s mode", rep.Workload, rep.Seed, rep.CPUs, sim.Time(rep.SimulatedNS), rep.Mode)
	if rep.Config != nil {
		pg.Args = "profsim " + strings.Join(rep.Config.Args, " ")
	}
	var tb bytes.Buffer
	rep.writeTable(&tb, top)
	pg.Table = tb.String()
	for _, b := range rep.Bias.Samplers {
		hb := htmlBias{Sampler: b.Sampler, Samples: b.Samples, Diagonal: fmt.Sprintf("%.1f %%", 100*b.Diagonal), Mechanisms: mechanisms(b)}
		if len(b.Skipped) > 0 {
			hb.Skipped = skipped(b.Skipped)
		}
		ms, cells := foldOther(b, top)
		hb.Methods = ms
		for i := range ms {
			row := []string{ms[i]}
			for j := range ms {
				row = append(row, pct(cells[i][j], b.Samples))
			}
			hb.Rows = append(hb.Rows, row)
		}
		pg.Bias = append(pg.Bias, hb)
	}
	pg.Untraced = rep.Bias.Untraced
	for _, n := range names {
		pg.Flames = append(pg.Flames, flame{Name: n, SVG: template.HTML(flameSVG(profiles[n]))})
	}
	var svg bytes.Buffer
	if err := tl.WriteSVG(&svg); err != nil {
		return nil, err
	}
	s := svg.String()
	if i := strings.Index(s, "<svg"); i > 0 {
		s = s[i:] // inline: without the XML declaration
	}
	pg.Timeline = template.HTML(s)
	return pg, nil
}

// Flame graph layout, in px.
const (
	flameWidth = 560
	flameRow   = 18
	flameMinPx = 1.0
)

// flameSVG draws p's calling context tree as an icicle graph: the root on
// top, each context as wide as its share of the weight; hover for the
// context and its share.
func flameSVG(p *profile.Profile) string {
	t := p.CCT()
	root := t.Nodes[0].Total
	if root == 0 {
		return `<p class="empty">no samples</p>`
	}
	depth := 0
	var b strings.Builder
	var walk func(n, d int, x float64)
	var body strings.Builder
	walk = func(n, d int, x float64) {
		node := t.Nodes[n]
		w := float64(node.Total) / float64(root) * flameWidth
		if w < flameMinPx {
			return
		}
		depth = max(depth, d)
		if n > 0 {
			y := (d - 1) * flameRow
			h := fnv.New32a()
			h.Write([]byte(node.Name))
			v := h.Sum32()
			col := fmt.Sprintf("rgb(%d,%d,%d)", 205+v%50, 80+(v>>8)%120, 40+(v>>16)%40)
			share := 100 * float64(node.Total) / float64(root)
			fmt.Fprintf(&body, `<g><title>%s (%.2f %%)</title><rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" stroke="white" stroke-width="0.5"/>`,
				template.HTMLEscapeString(strings.Join(t.Frames(n), " → ")), share, x, y, w, flameRow-1, col)
			if w > 40 {
				label := node.Name
				if max := int(w / 7); len(label) > max {
					label = label[:max-1] + "…"
				}
				fmt.Fprintf(&body, `<text x="%.1f" y="%d">%s</text>`, x+3, y+13, template.HTMLEscapeString(label))
			}
			body.WriteString("</g>")
		}
		for _, c := range node.Children {
			walk(c, d+1, x)
			x += float64(t.Nodes[c].Total) / float64(root) * flameWidth
		}
	}
	walk(0, 0, 0)
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" class="flame">%s</svg>`, flameWidth, depth*flameRow, body.String())
	return b.String()
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body { font-family: sans-serif; font-size: 18px; margin: 1.5em; color: #111; }
h1 { font-size: 28px; } h2 { font-size: 22px; margin-top: 1.5em; }
p.args { font-family: monospace; font-size: 14px; overflow-wrap: anywhere; }
pre { font-size: 15px; background: #f6f6f6; padding: 0.8em; overflow-x: auto; }
table.bias { border-collapse: collapse; margin: 0.5em 0 1em; }
table.bias td, table.bias th { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
table.bias td:first-child, table.bias th:first-child { text-align: left; }
.flames { display: flex; flex-wrap: wrap; gap: 1.5em; }
.flame text { font-size: 12px; font-family: sans-serif; pointer-events: none; }
.timeline svg { max-width: 100%; height: auto; }
</style></head><body>
<h1>{{.Title}}</h1>
<p>{{.Settings}}</p>
<p class="args">{{.Args}}</p>
<h2>Profiles side by side</h2>
<pre id="table">{{.Table}}</pre>
<h2>Why: bias matrices</h2>
<p>Rows: the method a thread was truly in when its sample was requested; columns: the method the sample was charged to; % of the sampler's samples. A perfect profiler is diagonal.</p>
{{range .Bias}}<h3>{{.Sampler}}: {{.Samples}} samples, {{.Diagonal}} on the diagonal</h3>
<p>taken by {{.Mechanisms}}</p>{{if .Skipped}}
<p>requests that gave no sample: {{.Skipped}}</p>{{end}}
<table class="bias"><tr><th>truly in \ charged to</th>{{range .Methods}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{end}}{{range .Untraced}}<p>{{.Sampler}}: no bias matrix: {{.Reason}}</p>
{{end}}
<h2>Flame graphs</h2>
<p>Each calling context as wide as its share of the profile; hover for the context.</p>
<div class="flames">{{range .Flames}}<div><h3>{{.Name}}</h3>{{.SVG}}</div>{{end}}</div>
<h2>Timeline</h2>
<div class="timeline">{{.Timeline}}</div>
</body></html>
`))

// longestPeriod is the longest sampling period among specs (their
// interval or period key), 0 if none has one.
func longestPeriod(specs []string) time.Duration {
	var longest time.Duration
	for _, text := range specs {
		spec, err := samplers.ParseSpec(text)
		if err != nil {
			continue
		}
		r, err := spec.Resolve()
		if err != nil {
			continue
		}
		for _, kv := range r.Params {
			if kv.Key != "interval" && kv.Key != "period" {
				continue
			}
			if d, err := param.ParseDuration(kv.Value); err == nil {
				longest = max(longest, time.Duration(d))
			}
		}
	}
	return longest
}
