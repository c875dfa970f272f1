package report

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"html/template"
	"io"
	"math"
	"strings"
	"time"

	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/timeline"
)

// page is what the template shows.
type page struct {
	Title    string
	Settings string
	Args     string
	Table    string
	Bias     []htmlBias
	Untraced []Untraced
	Flames   []flame
	// Diffs are the samplers' difference graphs against the truth (none
	// without a truth profile).
	Diffs []flame
	// DiffScale is the difference, in percentage points, that gets full
	// colour in every difference graph.
	DiffScale string
	Timeline  template.HTML
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
	// MaxDiff, in a difference graph, is its largest difference in
	// percentage points; ByMethod says its profiler records no calling
	// contexts (selfShareDiff).
	MaxDiff  string
	ByMethod bool
}

// SamplesShown is how many of its samples the slowest profiler shows in a
// page's default timeline window (DefaultWindow).
const SamplesShown = 10

// DefaultWindow is a page's timeline window for a run of length run by
// the samplers of specs (samplers.ParseSpec; those that do not resolve are
// left out): the middle of the run, long enough for SamplesShown ticks of
// the sampler with the longest period (10 ms: 100 ms), at least 1 ms and
// at most the run; with no period known, 5 % of the run.
func DefaultWindow(run time.Duration, specs []string) (from, window time.Duration) {
	var period time.Duration
	for _, text := range specs {
		spec, err := samplers.ParseSpec(text)
		if err != nil {
			continue
		}
		if r, err := spec.Resolve(); err == nil {
			period = max(period, r.Period())
		}
	}
	window = run / 20
	if period > 0 {
		window = SamplesShown * period
	}
	window = min(max(window, time.Millisecond), run)
	return (run - window) / 2, window
}

// HTML writes one self-contained page (no network, no external asset):
// the run's settings, the table, the bias matrices (Bias must be set), a
// flame graph of each of the run's profiles (profiles, by name) and the
// timeline tl of a window; tables show top rows.
func (r *Report) HTML(w io.Writer, profiles map[string]*profile.Profile, tl *timeline.Timeline, top int) error {
	pg, err := r.page(profiles, tl, top)
	if err != nil {
		return err
	}
	return pageTemplate.Execute(w, pg)
}

func (r *Report) page(profiles map[string]*profile.Profile, tl *timeline.Timeline, top int) (*page, error) {
	pg := &page{Title: fmt.Sprintf("profsim: %s", r.Workload)}
	pg.Settings = fmt.Sprintf("workload %s, seed %d, %d CPUs, %v simulated, %s mode", r.Workload, r.Seed, r.CPUs, sim.Time(r.SimulatedNS), r.Mode)
	if r.Config != nil {
		pg.Args = "profsim " + strings.Join(r.Config.Args, " ")
	}
	var tb bytes.Buffer
	r.Table(&tb, top)
	pg.Table = tb.String()
	for _, b := range r.Bias.Samplers {
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
	pg.Untraced = r.Bias.Untraced
	for _, n := range r.Order {
		pg.Flames = append(pg.Flames, flame{Name: n, SVG: template.HTML(flameSVG(profiles[n]))})
	}
	if truth := profiles["truth"]; truth != nil {
		// One colour scale for every profiler: the largest difference
		// of any, so that a faithful profiler looks pale beside one that
		// is not.
		var names []string
		var diffs []map[string]float64
		scale := 0.0
		for _, n := range r.Order {
			if n == "truth" || r.Profiles[n].EdgeOnly {
				continue
			}
			d := selfShareDiff(profiles[n], truth)
			names, diffs = append(names, n), append(diffs, d)
			scale = max(scale, largest(d))
		}
		pg.DiffScale = fmt.Sprintf("%.1f", 100*scale)
		for i, n := range names {
			pg.Diffs = append(pg.Diffs, flame{Name: n, SVG: template.HTML(diffFlameSVG(profiles[n], truth, diffs[i], scale)),
				MaxDiff: fmt.Sprintf("%.1f", 100*largest(diffs[i])), ByMethod: byMethod(profiles[n], truth)})
		}
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

// Flame graph layout, in px of the SVG's own coordinates (the page
// scales it to its width).
const (
	flameWidth = 1000
	flameRow   = 24
	flameMinPx = 0.5
	// flameLabelPx is the narrowest frame that gets a label; flameCharPx
	// the width of one of its characters (16 px sans-serif).
	flameLabelPx = 44
	flameCharPx  = 9
)

// flameSVG draws p's calling context tree as an icicle graph: the root on
// top, each context as wide as its share of the weight; hover for the
// context and its share, click to zoom into it (the page's script).
func flameSVG(p *profile.Profile) string {
	return icicle(p.CCT(), "flame", func(n int, name string) (string, string) {
		h := fnv.New32a()
		h.Write([]byte(name))
		v := h.Sum32()
		return fmt.Sprintf("rgb(%d,%d,%d)", 205+v%50, 80+(v>>8)%120, 40+(v>>16)%40), ""
	})
}

// diffFlameSVG draws the truth's calling context tree, each context as
// wide as its share of the truth (where the time really went), coloured
// by d, the difference between p's and the truth's self shares of each
// context (selfShareDiff): red where p charges it more than the truth,
// blue where less, white where as much; full colour at scale.
func diffFlameSVG(p, truth *profile.Profile, d map[string]float64, scale float64) string {
	t := truth.CCT()
	return icicle(t, "flame diff", func(n int, _ string) (string, string) {
		x := d[profile.JoinFrames(t.Frames(n))]
		if math.Abs(x) < 5e-5 {
			x = 0 // as the tooltip rounds it: no "-0.00"
		}
		return diffColour(x, scale), fmt.Sprintf(", %s %+.2f points", p.Source, 100*x)
	})
}

// largest is the largest absolute value of d.
func largest(d map[string]float64) float64 {
	m := 0.0
	for _, x := range d {
		m = max(m, math.Abs(x))
	}
	return m
}

// selfShareDiff is, for each calling context (profile.ContextWeights'
// keys) of p or truth, p's self share of it less the truth's. A profile
// that records no calling contexts (byMethod) is compared by method
// instead (methodShareDiff).
func selfShareDiff(p, truth *profile.Profile) map[string]float64 {
	if byMethod(p, truth) {
		return methodShareDiff(p, truth)
	}
	out := map[string]float64{}
	for _, side := range []struct {
		prof *profile.Profile
		sign float64
	}{{p, 1}, {truth, -1}} {
		w := side.prof.ContextWeights()
		var total float64
		for _, x := range w {
			total += x
		}
		if total == 0 {
			continue
		}
		for k, x := range w {
			out[k] += side.sign * x / total
		}
	}
	return out
}

// byMethod reports a profile whose samples hold one frame each, the
// executing method (tprof records no stack), beside a truth with deeper
// contexts: comparing its contexts with the truth's would count every
// sample as misplaced.
func byMethod(p, truth *profile.Profile) bool {
	depth := func(q *profile.Profile) int {
		d := 0
		for i := range q.Samples {
			d = max(d, q.Depth(i))
		}
		return d
	}
	return len(p.Samples) > 0 && depth(p) == 1 && depth(truth) > 1
}

// methodShareDiff is selfShareDiff by method: each truth context gets its
// method's self share in p less the truth's, spread over the method's
// contexts in the truth's proportions (a context of share s whose method
// has share m in the truth and m' in p gets s·(m'/m − 1)). A method p
// charges and the truth never ran has no context to be drawn on: it is
// keyed by its name alone, so that it counts in the largest difference.
func methodShareDiff(p, truth *profile.Profile) map[string]float64 {
	shares := func(w map[string]float64) map[string]float64 {
		var total float64
		for _, x := range w {
			total += x
		}
		for k := range w {
			w[k] /= total
		}
		return w
	}
	tc, tm, pm := shares(truth.ContextWeights()), shares(truth.MethodWeights()), shares(p.MethodWeights())
	out := make(map[string]float64, len(tc))
	for ctx, s := range tc {
		frames := strings.Split(ctx, profile.FrameSep)
		m := frames[len(frames)-1]
		out[ctx] = s * (pm[m]/tm[m] - 1)
	}
	for m, s := range pm {
		if tm[m] == 0 {
			out[m] += s
		}
	}
	return out
}

// diffColour maps a difference in [−max, max] to blue (less), white and
// red (more).
func diffColour(x, maxDiff float64) string {
	if maxDiff == 0 || x == 0 {
		return "rgb(255,255,255)"
	}
	f := math.Min(math.Abs(x)/maxDiff, 1)
	fade := func(c float64) int { return int(math.Round(255 - f*(255-c))) }
	if x > 0 {
		return fmt.Sprintf("rgb(%d,%d,%d)", 255, fade(60), fade(60))
	}
	return fmt.Sprintf("rgb(%d,%d,%d)", fade(60), fade(110), 255)
}

// icicle draws t, each node's fill and the end of its tooltip given by
// style, the <svg> of the given class. Every frame is a <g> with its position in data attributes
// (x, width, depth) and its name, for the page's zoom and search.
func icicle(t *profile.CCT, class string, style func(n int, name string) (fill, note string)) string {
	root := t.Nodes[0].Total
	if root == 0 {
		return `<p class="empty">no samples</p>`
	}
	depth := 0
	var body strings.Builder
	var walk func(n, d int, x float64)
	walk = func(n, d int, x float64) {
		node := t.Nodes[n]
		w := float64(node.Total) / float64(root) * flameWidth
		if w < flameMinPx {
			return
		}
		depth = max(depth, d)
		if n > 0 {
			y := (d - 1) * flameRow
			fill, note := style(n, node.Name)
			share := 100 * float64(node.Total) / float64(root)
			fmt.Fprintf(&body, `<g class="f" data-x="%.2f" data-w="%.2f" data-d="%d" data-n="%s"><title>%s (%.2f %%%s)</title><rect x="%.2f" y="%d" width="%.2f" height="%d" fill="%s"/>`,
				x, w, d, template.HTMLEscapeString(node.Name), template.HTMLEscapeString(strings.Join(t.Frames(n), " → ")), share, note, x, y, w, flameRow-1, fill)
			fmt.Fprintf(&body, `<text x="%.2f" y="%d">%s</text></g>`, x+3, y+17, template.HTMLEscapeString(flameLabel(node.Name, w)))
		}
		for _, c := range node.Children {
			walk(c, d+1, x)
			x += float64(t.Nodes[c].Total) / float64(root) * flameWidth
		}
	}
	walk(0, 0, 0)
	return fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" class="%s">%s</svg>`,
		flameWidth, depth*flameRow, flameWidth, depth*flameRow, class, body.String())
}

// flameLabel is name cut to fit w px ("" when too narrow).
func flameLabel(name string, w float64) string {
	if w < flameLabelPx {
		return ""
	}
	if n := int((w - 6) / flameCharPx); len(name) > n {
		return name[:max(n-1, 0)] + "…"
	}
	return name
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body { font-family: sans-serif; font-size: 18px; margin: 1.5em; color: #111; }
h1 { font-size: 28px; } h2 { font-size: 22px; margin-top: 1.5em; }
p.args { font-family: monospace; font-size: 16px; overflow-wrap: anywhere; }
summary { cursor: pointer; color: #333; }
pre { font-size: 16px; background: #f6f6f6; padding: 0.8em; white-space: pre-wrap; overflow-wrap: anywhere; }
table.bias { border-collapse: collapse; margin: 0.5em 0 1em; }
table.bias td, table.bias th { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
table.bias td:first-child, table.bias th:first-child { text-align: left; }
.flames { display: flex; flex-wrap: wrap; gap: 1.5em; }
.flames > div { flex: 1 1 100%; max-width: 1000px; }
svg.flame { width: 100%; height: auto; cursor: pointer; }
.flame rect { stroke: white; stroke-width: 0.5; }
.flame.diff rect { stroke: #999; }
.scroll { overflow-x: auto; }
.flame text { font-size: 16px; font-family: sans-serif; pointer-events: none; }
.flame g.hit rect { stroke: #a0f; stroke-width: 2.5; }
.hits { display: block; font-size: 16px; color: #555; min-height: 1.2em; }
input#search { font-size: 16px; width: 22em; }
.timeline svg { max-width: 100%; height: auto; }
</style></head><body>
<h1>{{.Title}}</h1>
<p>{{.Settings}}</p>
{{if .Args}}<details><summary>The command line that reproduces this run</summary><p class="args">{{.Args}}</p></details>{{end}}
<h2>Profiles side by side</h2>
<pre id="table">{{.Table}}</pre>
{{if .Diffs}}<h2>Where each profiler differs from the truth</h2>
<p>Each graph is the truth's calling contexts, as wide as their true share. Colour: the profiler's share of a context's own code less the truth's — red where it charges that code more than the truth, blue where less, white where as much; full colour at ±{{.DiffScale}} percentage points, the largest difference of any profiler here. Hover for a context's numbers, click a frame to zoom into it.</p>
<div class="flames">{{range .Diffs}}<div><h3>{{.Name}} vs truth (largest difference: {{.MaxDiff}} points)</h3>{{if .ByMethod}}<p>{{.Name}} records the method a thread was executing, not its calling context: each method's share is spread over the method's contexts as the truth's is, so the colours compare methods.</p>{{end}}<span class="hits"></span>{{.SVG}}</div>{{end}}</div>{{end}}
<h2>Why: bias matrices</h2>
<p>Rows: the method a thread was truly in when its sample was requested; columns: the method the sample was charged to; % of the sampler's samples. A perfect profiler is diagonal.</p>
{{range .Bias}}<h3>{{.Sampler}}: {{.Samples}} samples, {{.Diagonal}} on the diagonal</h3>
<p>taken by {{.Mechanisms}}</p>{{if .Skipped}}
<p>requests that gave no sample: {{.Skipped}}</p>{{end}}
<div class="scroll"><table class="bias"><tr><th>truly in \ charged to</th>{{range .Methods}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>
{{end}}{{range .Untraced}}<p>{{.Sampler}}: no bias matrix: {{.Reason}}</p>
{{end}}
<h2>Flame graphs</h2>
<p>Each calling context as wide as its share of the profile; hover for the context, click a frame to zoom into it and click it again to zoom out.</p>
<p><label>Search methods: <input id="search" type="search" placeholder="a regular expression, e.g. HotCold\.hot"></label></p>
<div class="flames">{{range .Flames}}<div><h3>{{.Name}}</h3><span class="hits"></span>{{.SVG}}</div>{{end}}</div>

<h2>Timeline</h2>
<div class="timeline">{{.Timeline}}</div>
<script>
function flameLabel(n, w) {
  if (w < 44) return "";
  var k = Math.floor((w - 6) / 9);
  return n.length > k ? n.slice(0, Math.max(k - 1, 0)) + "\u2026" : n;
}
document.querySelectorAll("svg.flame").forEach(function (svg) {
  var W = svg.viewBox.baseVal.width, eps = 1e-6;
  var frames = Array.prototype.slice.call(svg.querySelectorAll("g.f"));
  function zoom(x0, w0, d0) {
    frames.forEach(function (g) {
      var x = +g.dataset.x, w = +g.dataset.w, d = +g.dataset.d, nx, nw;
      var inside = x >= x0 - eps && x + w <= x0 + w0 + eps;
      var above = x <= x0 + eps && x + w >= x0 + w0 - eps;
      if (d >= d0 && inside) { nx = (x - x0) / w0 * W; nw = w / w0 * W; }
      else if (d < d0 && above) { nx = 0; nw = W; }
      else { g.style.display = "none"; return; }
      g.style.display = "";
      g.querySelector("rect").setAttribute("x", nx);
      g.querySelector("rect").setAttribute("width", nw);
      var t = g.querySelector("text");
      t.setAttribute("x", nx + 3);
      t.textContent = flameLabel(g.dataset.n, nw);
    });
  }
  svg.addEventListener("click", function (e) {
    var g = e.target.closest("g.f");
    if (!g) return;
    var was = g.classList.contains("zoomed");
    frames.forEach(function (f) { f.classList.remove("zoomed"); });
    if (was) { zoom(0, W, 0); return; }
    g.classList.add("zoomed");
    zoom(+g.dataset.x, +g.dataset.w, +g.dataset.d);
  });
});
document.getElementById("search").addEventListener("input", function () {
  var re = null;
  try { if (this.value) re = new RegExp(this.value); } catch (err) { re = null; }
  document.querySelectorAll("svg.flame").forEach(function (svg) {
    var W = svg.viewBox.baseVal.width, covered = [], share = 0;
    Array.prototype.slice.call(svg.querySelectorAll("g.f")).sort(function (a, b) { return a.dataset.d - b.dataset.d; }).forEach(function (g) {
      var hit = re !== null && re.test(g.dataset.n);
      g.classList.toggle("hit", hit);
      if (!hit) return;
      var x = +g.dataset.x, w = +g.dataset.w;
      if (covered.some(function (c) { return x >= c[0] - 1e-6 && x + w <= c[1] + 1e-6; })) return;
      covered.push([x, x + w]);
      share += w / W;
    });
    var span = svg.parentNode.querySelector(".hits");
    if (span) span.textContent = re === null ? "" : "matched: " + (100 * share).toFixed(1) + " %";
  });
});
</script>
</body></html>
`))
