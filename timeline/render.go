package timeline

import (
	"fmt"
	"image/color"
	"io"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/profsim/profsim/sim"
)

// Layout, in points: sized for a projector at 1:1 (1600 × ~900 px at
// 96 dpi), text at 14 pt or more.
const (
	pageWidth  = 1200
	marginL    = 190
	marginR    = 30
	headerH    = 70
	barH       = 34
	sampleRowH = 26
	laneGap    = 22
	jitRowH    = 30
	legendRowH = 24
	fontSize   = 14
	smallSize  = 12
)

// palette gives the most-run methods distinct colours (Okabe–Ito, safe for
// colour-blind readers); the rest share grey.
var palette = []color.RGBA{
	{0, 114, 178, 255}, {230, 159, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255},
	{86, 180, 233, 255}, {213, 94, 0, 255}, {240, 228, 66, 255}, {120, 80, 40, 255},
}

var (
	grey      = color.RGBA{170, 170, 170, 255}
	black     = color.RGBA{0, 0, 0, 255}
	waitColor = color.RGBA{235, 235, 235, 255}
	ttspColor = color.NRGBA{255, 120, 120, 90}
	pauseCol  = color.NRGBA{200, 0, 0, 110}
)

// methodColors assigns palette colours to the methods that run longest.
func (tl *Timeline) methodColors() (map[string]color.RGBA, []string) {
	total := map[string]sim.Time{}
	for _, l := range tl.Lanes {
		for _, s := range l.Segments {
			if s.State == sim.Running && s.Method != "" {
				total[s.Method] += s.To - s.From
			}
		}
	}
	for _, s := range tl.Samples {
		if _, ok := total[s.Charged]; !ok && s.Charged != "" {
			total[s.Charged] = 0
		}
	}
	names := make([]string, 0, len(total))
	for m := range total {
		names = append(names, m)
	}
	sort.Slice(names, func(i, j int) bool {
		if total[names[i]] != total[names[j]] {
			return total[names[i]] > total[names[j]]
		}
		return names[i] < names[j]
	})
	colors := map[string]color.RGBA{}
	for i, m := range names {
		if i < len(palette) {
			colors[m] = palette[i]
		} else {
			colors[m] = grey
		}
	}
	return colors, names
}

func (tl *Timeline) height() vg.Length {
	laneH := barH + sampleRowH*len(tl.Samplers)
	colors, names := tl.methodColors()
	_ = colors
	legendRows := (min(len(names), len(palette)) + 3) / 4
	return vg.Length(headerH + tl.jitHeight() + float64(len(tl.Lanes)*(laneH+laneGap)+40+(legendRows+len(tl.legendLines()))*legendRowH))
}

// WriteSVG draws the timeline as SVG.
func (tl *Timeline) WriteSVG(w io.Writer) error {
	c := vgsvg.New(pageWidth, tl.height())
	tl.draw(draw.New(c))
	_, err := c.WriteTo(w)
	return err
}

// WritePNG draws the timeline as PNG at 96 dpi.
func (tl *Timeline) WritePNG(w io.Writer) error {
	c := vgimg.NewWith(vgimg.UseWH(pageWidth, tl.height()), vgimg.UseDPI(96), vgimg.UseBackgroundColor(color.White))
	tl.draw(draw.New(c))
	_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	return err
}

func style(size vg.Length, xa, ya float64) text.Style {
	return text.Style{Color: black, Font: font.From(plot.DefaultFont, size), XAlign: text.XAlignment(xa),
		YAlign: text.YAlignment(ya), Handler: plot.DefaultTextHandler}
}

func rect(c draw.Canvas, col color.Color, x0, y0, x1, y1 vg.Length) {
	c.FillPolygon(col, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
}

func (tl *Timeline) draw(c draw.Canvas) {
	H := c.Max.Y
	W := vg.Length(pageWidth)
	x0, x1 := vg.Length(marginL), W-marginR
	span := float64(tl.To - tl.From)
	x := func(t sim.Time) vg.Length {
		t = max(tl.From, min(t, tl.To))
		return x0 + (x1-x0)*vg.Length(float64(t-tl.From)/span)
	}
	y := func(top float64) vg.Length { return H - vg.Length(top) }
	rect(c, color.White, 0, 0, W, H)
	colors, names := tl.methodColors()

	title := fmt.Sprintf("%s: %v to %v", tl.Workload, tl.From, tl.To)
	c.FillText(style(18, 0, -1), vg.Point{X: 12, Y: y(8)}, title)
	// Time axis under the title.
	axisY := 52.0
	c.StrokeLine2(draw.LineStyle{Color: black, Width: 1}, x0, y(axisY), x1, y(axisY))
	for i := 0; i <= 5; i++ {
		t := tl.From + sim.Time(float64(i)/5*span)
		c.StrokeLine2(draw.LineStyle{Color: black, Width: 1}, x(t), y(axisY-4), x(t), y(axisY+4))
		c.FillText(style(smallSize, -0.5, -1), vg.Point{X: x(t), Y: y(axisY - 22)}, axisLabel(i, t-tl.From))
	}

	top := float64(headerH)
	// The JIT row: a grey line at its foot from each compilation's queueing to its
	// installation, and a tick at the installation, with the method's
	// name on the upper or lower half of the row, wherever it does not
	// overlap the previous name there (otherwise the tick goes unnamed).
	if tl.jitDrawn() {
		c.FillText(style(fontSize, 0, -0.5), vg.Point{X: 12, Y: y(top + jitRowH/2)}, "JIT")
	}
	var labelEnd [2]vg.Length
	for _, cp := range tl.Compiles {
		if cp.Done < tl.From || cp.Queued >= tl.To {
			continue
		}
		c.StrokeLine2(draw.LineStyle{Color: grey, Width: 2}, x(cp.Queued), y(top+jitRowH-3), x(cp.Done), y(top+jitRowH-3))
		if cp.Done >= tl.To {
			continue
		}
		col := colors[cp.Method]
		if col == (color.RGBA{}) {
			col = grey
		}
		rect(c, col, x(cp.Done)-2, y(top+jitRowH-2), x(cp.Done)+2, y(top+2))
		sty := style(smallSize, 0, -0.5)
		for half := range labelEnd {
			if at := x(cp.Done) + 4; at >= labelEnd[half] {
				c.FillText(sty, vg.Point{X: at, Y: y(top + 7 + float64(half)*12)}, cp.Method)
				labelEnd[half] = at + sty.Width(cp.Method) + 6
				break
			}
		}
	}
	top += tl.jitHeight()

	lanesTop := top
	laneH := float64(barH + sampleRowH*len(tl.Samplers))
	for _, l := range tl.Lanes {
		// Polls: short ticks just above the bar.
		for _, pl := range l.Polls {
			c.StrokeLine2(draw.LineStyle{Color: black, Width: 0.7}, x(pl.At), y(top-7), x(pl.At), y(top-1))
		}
		c.FillText(style(fontSize, 0, -0.5), vg.Point{X: 12, Y: y(top + barH/2)}, l.Thread)
		for _, s := range l.Segments {
			col := waitColor
			if s.State == sim.Running {
				col = colors[s.Method]
			}
			rect(c, col, x(s.From), y(top+barH), x(s.To), y(top))
		}
		// Safepoint arrivals: where this thread stopped at its poll.
		for _, sp := range tl.Safepoints {
			for _, a := range sp.Arrivals {
				if a.Thread == l.Thread && a.Stopped >= tl.From && a.Stopped < tl.To {
					c.StrokeLine2(draw.LineStyle{Color: color.RGBA{200, 0, 0, 255}, Width: 2.5}, x(a.Stopped), y(top+barH+3), x(a.Stopped), y(top-3))
				}
			}
		}
		for si, name := range tl.Samplers {
			rowTop := top + barH + float64(si*sampleRowH)
			mid := rowTop + sampleRowH/2
			c.FillText(style(smallSize, 0, -0.5), vg.Point{X: 24, Y: y(mid)}, name)
			c.StrokeLine2(draw.LineStyle{Color: waitColor, Width: 1}, x0, y(mid), x1, y(mid))
			for _, s := range tl.Samples {
				if s.Sampler != name || s.Thread != l.Thread || s.Taken < tl.From || s.Requested >= tl.To {
					continue
				}
				// The request: an open tick in the colour of where the
				// thread truly was; a line to the sample, a dot in the
				// colour of the method it was charged to.
				c.StrokeLine2(draw.LineStyle{Color: black, Width: 1}, x(s.Requested), y(mid), x(s.Taken), y(mid))
				tc := colors[s.TrueMethod]
				rect(c, tc, x(s.Requested)-1.5, y(mid+8), x(s.Requested)+1.5, y(mid-8))
				cc := colors[s.Charged]
				rect(c, black, x(s.Taken)-5, y(mid+5), x(s.Taken)+5, y(mid-5))
				rect(c, cc, x(s.Taken)-4, y(mid+4), x(s.Taken)+4, y(mid-4))
			}
		}
		top += laneH + laneGap
	}
	// Safepoints over every lane: the time to safepoint, then the pause.
	for _, sp := range tl.Safepoints {
		if sp.End < tl.From || sp.Requested >= tl.To {
			continue
		}
		rect(c, ttspColor, x(sp.Requested), y(top-laneGap), x(sp.Safe), y(lanesTop))
		rect(c, pauseCol, x(sp.Safe), y(top-laneGap), x(sp.End), y(lanesTop))
	}

	// Legend: what is drawn.
	top += 10
	for _, l := range tl.legendLines() {
		c.FillText(style(fontSize, 0, -1), vg.Point{X: 12, Y: y(top)}, l)
		top += legendRowH
	}
	top += 4
	colW := (W - 24) / 4
	for i, m := range names {
		if i >= len(palette) {
			break
		}
		cx := 12 + colW*vg.Length(i%4)
		cy := top + float64(i/4)*legendRowH
		rect(c, colors[m], cx, y(cy+16), cx+16, y(cy))
		c.FillText(style(fontSize, 0, -1), vg.Point{X: cx + 22, Y: y(cy)}, m)
	}
}

// axisLabel labels the time axis's i-th tick, off past the window's
// start: the start itself is in the title, the ticks are offsets from it.
func axisLabel(i int, off sim.Time) string {
	if i == 0 {
		return "0"
	}
	return "+" + off.String()
}

// jitDrawn reports whether a compilation overlaps the window: the JIT
// lane is drawn only then.
func (tl *Timeline) jitDrawn() bool {
	for _, cp := range tl.Compiles {
		if cp.Done >= tl.From && cp.Queued < tl.To {
			return true
		}
	}
	return false
}

// jitHeight is the JIT lane's height, or, without it, the room the
// first lane's poll ticks take above its bar.
func (tl *Timeline) jitHeight() float64 {
	if tl.jitDrawn() {
		return jitRowH
	}
	return 10
}

// legendLines explain what the timeline draws, and only that: safepoint
// bands and stops when it has safepoints, poll ticks when it recorded
// polls, the JIT lane when it has compilations.
func (tl *Timeline) legendLines() []string {
	lines := []string{"bar: the method running (grey-white: not running) · tick: a sample requested, in the colour of where the thread truly was"}
	second := "square: the sample taken, in the colour of the method charged"
	if len(tl.Safepoints) > 0 {
		second += " · red band: time to safepoint, then the pause · red line: the thread stopping at the safepoint's poll"
	}
	lines = append(lines, second)
	var third []string
	for _, l := range tl.Lanes {
		if len(l.Polls) > 0 {
			third = append(third, "small ticks above a bar: the polls the thread executed")
			break
		}
	}
	if tl.jitDrawn() {
		third = append(third, "JIT: a compilation, queued to installed")
	}
	if len(third) > 0 {
		lines = append(lines, strings.Join(third, " · "))
	}
	return lines
}
