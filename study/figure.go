package study

import (
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// errPoints are points with Y errors, for scatter plots with error bars.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

// add appends the point (x, m.Mean) with m's CI as its error bar (none
// when the CI is undefined: a single seed) and returns that half-width.
func (p *errPoints) add(x float64, m stat) float64 {
	h := m.CI
	if math.IsNaN(h) {
		h = 0
	}
	p.XYs = append(p.XYs, plotter.XY{X: x, Y: m.Mean})
	p.YErrors = append(p.YErrors, struct{ Low, High float64 }{h, h})
	return h
}

// percent clamps p's error bars to [0, 100]: a share's CI over few seeds
// can reach past its bounds, and an axis stretched to show that would
// show what no share can be.
func (p errPoints) percent() errPoints {
	for i := range p.YErrors {
		xy, e := p.XYs[i], &p.YErrors[i]
		e.Low = math.Min(e.Low, math.Max(0, xy.Y))
		e.High = math.Min(e.High, math.Max(0, 100-xy.Y))
	}
	return p
}

// series says how errPoints.addTo draws a series of points.
type series struct {
	// Label is the series' legend entry (none when empty).
	Label string
	// Style picks the colour (seriesColor) and, unless Shape is set, the
	// glyph (seriesShape).
	Style int
	// Line joins the points with a line, dashed by Dashes (solid: nil).
	Line   bool
	Dashes []vg.Length
	// Shape and Radius override the glyph and its size (nil, 0: the
	// style's glyph at minGlyphRadius; no radius is less).
	Shape  draw.GlyphDrawer
	Radius vg.Length
}

// addTo adds p to plt as s says: the line (with s.Line), the points and
// their error bars (when p has errors), all in s's colour; the legend
// entry shows the line and the glyph.
func (p errPoints) addTo(plt *plot.Plot, s series) error {
	var thumbs []plot.Thumbnailer
	if s.Line {
		l, err := plotter.NewLine(p.XYs)
		if err != nil {
			return err
		}
		l.Color, l.Dashes = seriesColor(s.Style), s.Dashes
		plt.Add(l)
		thumbs = append(thumbs, l)
	}
	sc, err := plotter.NewScatter(p.XYs)
	if err != nil {
		return err
	}
	sc.Color, sc.Shape, sc.Radius = seriesColor(s.Style), seriesShape(s.Style), max(s.Radius, minGlyphRadius)
	if s.Shape != nil {
		sc.Shape = s.Shape
	}
	plt.Add(sc)
	thumbs = append(thumbs, sc)
	if len(p.YErrors) > 0 {
		eb, err := plotter.NewYErrorBars(p)
		if err != nil {
			return err
		}
		eb.LineStyle.Color = seriesColor(s.Style)
		plt.Add(eb)
	}
	if s.Label != "" {
		plt.Legend.Add(s.Label, thumbs...)
	}
	return nil
}

// Figure is an experiment's figure for slides: panels side by side, each
// panel's legend in a column at its right, outside the data, and beneath
// them a caption that says what the figure shows and spells out every
// abbreviation in it.
type Figure struct {
	plots   []*plot.Plot
	legends []plot.Legend
	titles  []string
	caption string
}

// newFigure makes a figure of the panels ps with caption beneath. It
// takes each panel's legend out of its data area (whatever its Top, Left
// and offsets) into the column beside it, so that a y axis need not be
// stretched to make room for it.
func newFigure(caption string, ps ...*plot.Plot) *Figure {
	f := &Figure{caption: caption}
	for _, p := range ps {
		l := p.Legend
		l.Top, l.Left, l.XOffs, l.YOffs = true, true, 0, 0
		if l.Padding < legendPadding {
			l.Padding = legendPadding
		}
		f.plots = append(f.plots, p)
		f.legends = append(f.legends, l)
		f.titles = append(f.titles, p.Title.Text)
		p.Legend = plot.NewLegend()
		p.Title.Padding = titlePadding
	}
	return f
}

// Slide geometry. A figure is slideWidth wide for one panel, slideWidth2
// for two or more, and slideHeight high plus its caption: at slideDPI a
// one-panel figure is 2000 × 1125 pixels (16:9) before the caption, and
// its 12 pt text is 2 % of the width, readable from the back of a room
// when the figure fills a slide.
const (
	slideWidth  = 20 * vg.Centimeter
	slideWidth2 = 32 * vg.Centimeter
	slideHeight = 11.25 * vg.Centimeter
	// slideDPI renders 1 cm as 100 pixels.
	slideDPI = 254
	// figureMargin keeps titles, labels and the caption off the image's
	// edge: text touching the border reads as cut.
	figureMargin = 4 * vg.Millimeter
	// titlePadding separates a title from the data area beneath.
	titlePadding = 4 * vg.Millimeter
	// legendGap separates a panel's data area from its legend column.
	legendGap = 4 * vg.Millimeter
	// legendPadding is the least space between legend entries.
	legendPadding = 3 * vg.Inch / 72
	// captionSize is the caption's font size.
	captionSize = 11 * vg.Inch / 72
	// minGlyphRadius is the smallest marker: 7 pt across, 24 pixels at
	// slideDPI, and filled.
	minGlyphRadius = 3.5 * vg.Inch / 72
)

// Size is the figure's width and height: slideWidth (slideWidth2 for two
// panels or more) by slideHeight plus the caption's lines.
func (f *Figure) Size() (w, h vg.Length) {
	w = slideWidth
	if len(f.plots) > 1 {
		w = slideWidth2
	}
	return w, slideHeight + f.captionHeight(w)
}

// captionStyle is the caption's text style.
func captionStyle() text.Style {
	return text.Style{Font: font.From(plot.DefaultFont, captionSize), Handler: plot.DefaultTextHandler}
}

// wrap breaks s into lines no wider than w in sty, at spaces.
func wrap(s string, sty text.Style, w vg.Length) []string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			if line != "" && sty.Width(line+" "+word) > w {
				lines = append(lines, line)
				line = word
				continue
			}
			if line != "" {
				line += " "
			}
			line += word
		}
		lines = append(lines, line)
	}
	return lines
}

// captionLines is the caption wrapped to a figure w wide.
func (f *Figure) captionLines(w vg.Length) []string {
	if f.caption == "" {
		return nil
	}
	return wrap(f.caption, captionStyle(), w-2*figureMargin)
}

// captionHeight is the height of the caption (and the gap above it) in a
// figure w wide.
func (f *Figure) captionHeight(w vg.Length) vg.Length {
	n := len(f.captionLines(w))
	if n == 0 {
		return 0
	}
	return vg.Length(n)*captionStyle().Height("M")*1.15 + figureMargin
}

// legendWidth is the width of panel i's legend column (0: no legend).
func (f *Figure) legendWidth(i int, c draw.Canvas) vg.Length {
	w := f.legends[i].Rectangle(c).Size().X
	if w == 0 {
		return 0
	}
	return w + legendGap
}

// draw lays the figure out on c: the panels in a row, their data areas
// aligned, each with its legend column at its right, the caption
// beneath, figureMargin around it all.
func (f *Figure) draw(c draw.Canvas) {
	w := c.Max.X - c.Min.X
	inner := draw.Crop(c, figureMargin, -figureMargin, figureMargin, -figureMargin)
	sty := captionStyle()
	lh := sty.Height("M") * 1.15
	lines := f.captionLines(w)
	y := inner.Min.Y + vg.Length(len(lines))*lh
	for _, l := range lines {
		y -= lh
		inner.FillText(sty, vg.Point{X: inner.Min.X, Y: y + sty.FontExtents().Descent}, l)
	}
	area := inner
	area.Min.Y += f.captionHeight(w)

	n := len(f.plots)
	tileW := (area.Max.X - area.Min.X - vg.Length(n-1)*panelGap) / vg.Length(n)
	tiles := make([]draw.Canvas, n)
	for i, p := range f.plots {
		t := area
		t.Min.X = area.Min.X + vg.Length(i)*(tileW+panelGap)
		t.Max.X = t.Min.X + tileW - f.legendWidth(i, area)
		// A title wider than its panel is wrapped, not cut at the edge.
		p.Title.Text = strings.Join(wrap(f.titles[i], p.Title.TextStyle, t.Max.X-t.Min.X), "\n")
		tiles[i] = t
	}
	// Align the data areas: the same top and bottom in every panel.
	var top, bottom vg.Length
	for i, p := range f.plots {
		d := p.DataCanvas(tiles[i])
		top = max(top, tiles[i].Max.Y-d.Max.Y)
		bottom = max(bottom, d.Min.Y-tiles[i].Min.Y)
	}
	for i, p := range f.plots {
		t := tiles[i]
		d := p.DataCanvas(t)
		t.Max.Y += (tiles[i].Max.Y - d.Max.Y) - top
		t.Min.Y -= bottom - (d.Min.Y - tiles[i].Min.Y)
		p.Draw(t)
		p.Title.Text = f.titles[i]
		if lw := f.legendWidth(i, area); lw > 0 {
			d = p.DataCanvas(t)
			lc := d
			lc.Min.X, lc.Max.X = t.Max.X+legendGap, t.Max.X+lw
			f.legends[i].Draw(lc)
		}
	}
}

// panelGap separates panels side by side.
const panelGap = 8 * vg.Millimeter

// Save writes the figure to file in the format of its extension: SVG (or
// PDF, EPS) in points, PNG at slideDPI with a white background, both of
// the same layout.
func (f *Figure) Save(file string) (err error) {
	w, h := f.Size()
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(file)), ".")
	var c vg.CanvasWriterTo
	if format == "png" {
		vc := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(slideDPI), vgimg.UseBackgroundColor(color.White))
		c = vgimg.PngCanvas{Canvas: vc}
	} else if c, err = draw.NewFormattedCanvas(w, h, format); err != nil {
		return err
	}
	f.draw(draw.New(c))
	out, err := os.Create(file)
	if err != nil {
		return err
	}
	defer func() {
		if e := out.Close(); err == nil {
			err = e
		}
	}()
	_, err = c.WriteTo(out)
	return err
}

// okabeIto is Okabe and Ito's palette, safe for the common colour-vision
// deficiencies (no red against green): orange, sky blue, bluish green,
// yellow, blue, vermilion, reddish purple, black.
var okabeIto = []color.Color{
	color.RGBA{230, 159, 0, 255}, color.RGBA{86, 180, 233, 255}, color.RGBA{0, 158, 115, 255},
	color.RGBA{240, 228, 66, 255}, color.RGBA{0, 114, 178, 255}, color.RGBA{213, 94, 0, 255},
	color.RGBA{204, 121, 167, 255}, color.RGBA{0, 0, 0, 255},
}

// seriesColor is the i-th series' colour, from okabeIto (yellow, pale on
// white, last of the first seven).
func seriesColor(i int) color.Color {
	order := []int{4, 5, 2, 0, 1, 6, 7, 3}
	return okabeIto[order[((i%len(order))+len(order))%len(order)]]
}

// seriesShape is the i-th series' glyph: filled shapes only (a hollow
// glyph is a thin line, lost on a projector).
func seriesShape(i int) draw.GlyphDrawer {
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, diamondGlyph{}}
	return shapes[((i%len(shapes))+len(shapes))%len(shapes)]
}

// diamondGlyph is a filled diamond.
type diamondGlyph struct{}

// DrawGlyph implements draw.GlyphDrawer.
func (diamondGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius * 1.25
	p := make(vg.Path, 0, 5)
	p.Move(vg.Point{X: pt.X, Y: pt.Y + r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y})
	p.Line(vg.Point{X: pt.X, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X - r, Y: pt.Y})
	p.Close()
	c.Fill(p)
}

// styleScatter gives a scatter series i's colour, its filled glyph and
// minGlyphRadius.
func styleScatter(sc *plotter.Scatter, i int) {
	sc.GlyphStyle.Color, sc.GlyphStyle.Shape, sc.GlyphStyle.Radius = seriesColor(i), seriesShape(i), minGlyphRadius
}

// Phrases the captions share.
const (
	captionCI        = "CI = confidence interval (95 %, Student's t over seeds)."
	captionDCG       = "DCG = dynamic call graph (every call edge, counted exactly)."
	captionHofer     = "JVMTI = sampling through the Java virtual machine's tool interface: every thread walked at a global safepoint. SPS = stack sampling at partial safepoints: a few threads walk their own stacks. ISPS = incremental SPS: only the top frame decoded, returns intercepted for the callers (Hofer et al. 2015)."
	captionCCT       = "CCT = calling context tree."
	captionMytkowicz = "Samplers: truth = the exact execution; safepoint, hprof and xprof sample at safepoints (the next poll); tprof samples where the thread is, by the timer; async = async-profiler, which samples where the thread is, without waiting for a safepoint."
	captionCBS       = "CBS = counter-based sampling (Arnold & Grove): after each timer interrupt, SAMPLES = the number of call edges sampled, STRIDE = the calls skipped between two samples."
)

// refLine is a horizontal reference: a paper's bound or an ideal value,
// at Y, named Label in the legend.
type refLine struct {
	Y     float64
	Label string
}

// addRefLines draws refs across [x0, x1] as grey dashed lines, the
// first with long dashes, the next with shorter ones, each in p's
// legend.
func addRefLines(p *plot.Plot, x0, x1 float64, refs ...refLine) error {
	for i, ref := range refs {
		l, err := plotter.NewLine(plotter.XYs{{X: x0, Y: ref.Y}, {X: x1, Y: ref.Y}})
		if err != nil {
			return err
		}
		l.Color = color.Gray{Y: 100}
		l.Dashes = []vg.Length{vg.Points(math.Max(4-2*float64(i), 1)), vg.Points(2)}
		p.Add(l)
		p.Legend.Add(ref.Label, l)
	}
	return nil
}

// tickNames are program names as x tick labels: a model's name breaks
// before its "-real" (antlr-\nreal), so that neighbouring labels of a
// panel's narrow columns do not run into each other.
func tickNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		if b, ok := strings.CutSuffix(n, "-real"); ok {
			n = b + "-\nreal"
		}
		out[i] = n
	}
	return out
}
