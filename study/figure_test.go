package study

import (
	"html"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Slides are at least minSlideW × minSlideH pixels: 720p, the smallest
// projector resolution still common in lecture halls.
const minSlideW, minSlideH = 1280, 720

// svgSizeTolerance is how far an SVG's viewBox may be from Figure.Size:
// svgo writes lengths with two decimals, so 0.01 pt of rounding.
const svgSizeTolerance = 0.01

var (
	svgViewBox = regexp.MustCompile(`viewBox="0 0 ([0-9.]+) ([0-9.]+)"`)
	svgText    = regexp.MustCompile(`<text[^>]*>([^<]*)</text>`)
	svgColour  = regexp.MustCompile(`(?:fill|stroke):#([0-9A-Fa-f]{6})`)
	acronym    = regexp.MustCompile(`\b[A-Z][A-Z]+\b`)
)

// checkFigure checks the figure r.Write wrote into dir as name.svg and
// name.png: slide-sized, the same layout in both, drawn only in the
// Okabe–Ito palette and greys with no red beside a green, and every
// abbreviation in it spelt out in the caption.
func checkFigure(t *testing.T, r *Result, dir, name string) {
	t.Helper()
	w, h := r.Figure.Size()
	pf, err := os.Open(filepath.Join(dir, name+".png"))
	require.NoError(t, err)
	cfg, err := png.DecodeConfig(pf)
	pf.Close()
	require.NoError(t, err, "%s.png", name)
	assert.GreaterOrEqual(t, cfg.Width, minSlideW, "%s.png width", name)
	assert.GreaterOrEqual(t, cfg.Height, minSlideH, "%s.png height", name)
	px := func(l vg.Length) int { return int(math.Round(l.Dots(slideDPI))) }
	assert.Equal(t, px(w), cfg.Width, "%s.png: the figure's width at slideDPI", name)
	assert.Equal(t, px(h), cfg.Height, "%s.png: the figure's height at slideDPI", name)

	svg, err := os.ReadFile(filepath.Join(dir, name+".svg"))
	require.NoError(t, err)
	m := svgViewBox.FindSubmatch(svg)
	require.NotNil(t, m, "%s.svg has a viewBox", name)
	vw, _ := strconv.ParseFloat(string(m[1]), 64)
	vh, _ := strconv.ParseFloat(string(m[2]), 64)
	assert.InDelta(t, w.Points(), vw, svgSizeTolerance, "%s.svg viewBox width: the PNG's layout", name)
	assert.InDelta(t, h.Points(), vh, svgSizeTolerance, "%s.svg viewBox height: the PNG's layout", name)

	var colours []color.RGBA
	for _, c := range svgColour.FindAllSubmatch(svg, -1) {
		v, _ := strconv.ParseUint(string(c[1]), 16, 32)
		colours = append(colours, color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255})
	}
	for _, c := range colours {
		assert.True(t, isGrey(c) || inPalette(c), "%s.svg draws in %v, neither a grey nor an Okabe–Ito colour", name, c)
	}
	assert.False(t, hasRedGreenPair(colours), "%s.svg has a red and a green", name)

	for i, p := range r.Figure.plots {
		assert.Zero(t, p.Legend.Rectangle(draw.New(vgimg.New(w, h))).Size().X, "%s panel %d: its legend sits outside the data area", name, i)
	}
	require.NotEmpty(t, r.Figure.caption, "%s: the figure has a caption", name)
	seen := map[string]bool{}
	for _, txt := range svgText.FindAllSubmatch(svg, -1) {
		for _, a := range acronym.FindAllString(html.UnescapeString(string(txt[1])), -1) {
			if !seen[a] {
				seen[a] = true
				assert.Contains(t, r.Figure.caption, a+" = ", "%s: the caption spells out %s", name, a)
			}
		}
	}
}

// isGrey reports whether c is black, white or a grey.
func isGrey(c color.RGBA) bool { return c.R == c.G && c.G == c.B }

// inPalette reports whether c is one of okabeIto's colours.
func inPalette(c color.RGBA) bool {
	for _, p := range okabeIto {
		if color.RGBAModel.Convert(p).(color.RGBA) == c {
			return true
		}
	}
	return false
}

// hue is c's hue in degrees [0, 360) and its saturation (HSV).
func hue(c color.RGBA) (h, s float64) {
	r, g, b := float64(c.R)/255, float64(c.G)/255, float64(c.B)/255
	mx, mn := math.Max(r, math.Max(g, b)), math.Min(r, math.Min(g, b))
	if mx == 0 || mx == mn {
		return 0, 0
	}
	d := mx - mn
	switch mx {
	case r:
		h = 60 * math.Mod((g-b)/d, 6)
	case g:
		h = 60 * ((b-r)/d + 2)
	default:
		h = 60 * ((r-g)/d + 4)
	}
	if h < 0 {
		h += 360
	}
	return h, d / mx
}

// Hue bands of the pair that deuteranopes and protanopes (about 1 man in
// 12) cannot tell apart: red (within 20° of 0°) and green (80°–150°),
// among colours saturated enough to read as either (HSV saturation
// ≥ 0.4). Okabe–Ito's vermilion sits at 26°, its bluish green at 164°.
const (
	redHueMax             = 20.0
	greenHueMin           = 80.0
	greenHueMax           = 150.0
	redGreenMinSaturation = 0.4
)

// hasRedGreenPair reports whether cs hold both a red and a green.
func hasRedGreenPair(cs []color.RGBA) bool {
	var red, green bool
	for _, c := range cs {
		h, s := hue(c)
		if s < redGreenMinSaturation {
			continue
		}
		red = red || h <= redHueMax || h >= 360-redHueMax
		green = green || (h >= greenHueMin && h <= greenHueMax)
	}
	return red && green
}

// TestFigure_PaletteHasNoRedGreenPair: the series colours are Okabe–Ito's
// and hold no red beside a green; the check itself finds the pair
// matplotlib's default palette has (its red and green).
func TestFigure_PaletteHasNoRedGreenPair(t *testing.T) {
	var cs []color.RGBA
	for i := range okabeIto {
		cs = append(cs, color.RGBAModel.Convert(seriesColor(i)).(color.RGBA))
	}
	assert.False(t, hasRedGreenPair(cs), "seriesColor: %v", cs)
	tab10 := []color.RGBA{{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255}}
	assert.True(t, hasRedGreenPair(tab10), "matplotlib's tab10 has a red and a green")
}

// TestFigure_Slides runs two experiments at test size, one figure with
// one panel and one with two, and checks what they write (checkFigure,
// through runExperiment's checkTidy): slide-sized PNG, the SVG's viewBox
// the same layout, the palette, the caption.
func TestFigure_Slides(t *testing.T) {
	for _, name := range []string{"m1-listing1", "h4-short-lived"} {
		t.Run(name, func(t *testing.T) {
			r := runExperiment(t, name)
			require.NotNil(t, r.Figure, name)
			dir := t.TempDir()
			require.NoError(t, r.Write(dir, name))
			checkFigure(t, r, dir, name)
			assert.Equal(t, strings.Count(name, "h4"), len(r.Figure.plots)-1, "%s: its panels", name)
		})
	}
}

func TestTickNames(t *testing.T) {
	assert.Equal(t, []string{"antlr", "antlr-\nreal", "real"}, tickNames([]string{"antlr", "antlr-real", "real"}))
}
