package report

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"html/template"
	"io"
	"strings"

	"github.com/profsim/profsim/profile"
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
