package study

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
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

// series says how errPoints.addTo draws a series of points.
type series struct {
	// Label is the series' legend entry (none when empty).
	Label string
	// Style picks plotutil's colour, and the glyph unless Shape is set.
	Style int
	// Line joins the points with a line, dashed by Dashes (solid: nil).
	Line   bool
	Dashes []vg.Length
	// Shape and Radius override the glyph and its size (nil, 0: the
	// style's glyph at the default size).
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
	sc.Color, sc.Shape = seriesColor(s.Style), plotutil.Shape(s.Style)
	if s.Shape != nil {
		sc.Shape = s.Shape
	}
	if s.Radius > 0 {
		sc.Radius = s.Radius
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

// Figure is an experiment's figure: a plot, or panels side by side.
// Save writes it to file in the format of its extension (.svg, .png, …);
// w × h is the size of one panel.
type Figure interface {
	Save(w, h vg.Length, file string) error
}

// panels are plots drawn side by side on one canvas, each w × h, their
// data areas aligned.
type panels []*plot.Plot

// figureMargin keeps a figure's title and tick labels off the edge of
// the image: a slide crops nothing, but text touching the border reads
// as cut.
const figureMargin = 3 * vg.Millimeter

// draw lays the panels out in a row on c, their data areas aligned, with
// figureMargin around them.
func (ps panels) draw(c draw.Canvas) {
	t := draw.Tiles{Rows: 1, Cols: len(ps), PadX: 2 * vg.Millimeter, PadY: vg.Millimeter,
		PadTop: figureMargin, PadBottom: figureMargin, PadLeft: figureMargin, PadRight: figureMargin}
	cs := plot.Align([][]*plot.Plot{ps}, t, c)
	for i, p := range ps {
		p.Draw(cs[0][i])
	}
}

// Save draws the panels in a row onto a canvas len(ps)·w wide and h
// high, and writes it to file in the format of its extension.
func (ps panels) Save(w, h vg.Length, file string) (err error) {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(file)), ".")
	c, err := draw.NewFormattedCanvas(vg.Length(len(ps))*w, h, format)
	if err != nil {
		return err
	}
	ps.draw(draw.New(c))
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer func() {
		if e := f.Close(); err == nil {
			err = e
		}
	}()
	_, err = c.WriteTo(f)
	return err
}

// asPanels is fig as panels (a single plot is one panel), so that every
// figure is drawn by panels.draw, margins included.
func asPanels(fig Figure) Figure {
	if p, ok := fig.(*plot.Plot); ok {
		return panels{p}
	}
	return fig
}

// slideDPI renders a 16 cm panel 1600 pixels wide: a slide's width, with
// the layout and the relative text size of the SVG.
const slideDPI = 254

// savePNG writes fig to file as PNG at dpi, each panel w × h: the SVG's
// layout at a resolution for slides.
func savePNG(fig Figure, w, h vg.Length, dpi int, file string) (err error) {
	var ps panels
	switch f := fig.(type) {
	case *plot.Plot:
		ps = panels{f}
	case panels:
		ps = f
	default:
		return fmt.Errorf("study: a %T figure has no PNG rendering", fig)
	}
	c := vgimg.NewWith(vgimg.UseWH(vg.Length(len(ps))*w, h), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))
	ps.draw(draw.New(c))
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer func() {
		if e := f.Close(); err == nil {
			err = e
		}
	}()
	_, err = vgimg.PngCanvas{Canvas: c}.WriteTo(f)
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
