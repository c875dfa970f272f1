package timeline

import (
	"bytes"
	"context"
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
)

var pngOut = flag.String("png", "", "also write the test timelines as PNG into this directory, to look at")

func hotcold(t *testing.T, mode samplers.Mode, specs ...string) *Timeline {
	return hotcoldPolls(t, mode, false, specs...)
}

func hotcoldPolls(t *testing.T, mode samplers.Mode, polls bool, specs ...string) *Timeline {
	t.Helper()
	p, err := workloads.Get("hotcold")
	require.NoError(t, err)
	cfg := harness.MustPresetConfig("hotspot17")
	cfg.Sim.Duration = 40 * sim.Millisecond
	cfg.Samplers, cfg.Mode = specs, mode
	tl, _, err := Run(context.Background(), p, cfg, 20*sim.Millisecond, 5*sim.Millisecond, polls)
	require.NoError(t, err)
	return tl
}

// The lanes cover the window without gaps, and the samples in the window
// are there with where the thread truly was and where each was charged.
func TestTimelineOfListingOne(t *testing.T) {
	tl := hotcold(t, samplers.Passive, "safepoint,interval=1ms", "async,interval=1ms")
	require.Len(t, tl.Lanes, 1)
	segs := tl.Lanes[0].Segments
	require.NotEmpty(t, segs)
	assert.Equal(t, tl.From, segs[0].From)
	assert.Equal(t, tl.To, segs[len(segs)-1].To)
	for i := 1; i < len(segs); i++ {
		assert.Equal(t, segs[i-1].To, segs[i].From, "no gap")
	}
	assert.Equal(t, []string{"safepoint", "async"}, tl.Samplers)
	var sp, as int
	for _, s := range tl.Samples {
		switch s.Sampler {
		case "safepoint":
			sp++
			assert.Equal(t, "HotCold.hot", s.TrueMethod)
			assert.Equal(t, "HotCold.cold", s.Charged, "taken at cold's back-edge poll")
			assert.Greater(t, s.Taken, s.Requested)
		case "async":
			as++
			assert.Equal(t, s.Requested, s.Taken)
		}
	}
	assert.GreaterOrEqual(t, sp, 4, "5 ms at 1 ms")
	assert.GreaterOrEqual(t, as, 4)
	renderBoth(t, tl, "listing-one")
}

// The JIT's compilations are on the timeline, queued before installed;
// drawn in a window that holds hotcold's first compilations.
func TestTimelineShowsCompilations(t *testing.T) {
	p, err := workloads.Get("hotcold")
	require.NoError(t, err)
	cfg := harness.MustPresetConfig("hotspot17")
	cfg.Sim.Duration = 20 * sim.Millisecond
	cfg.Samplers = []string{"async,interval=1ms"}
	tl, _, err := Run(context.Background(), p, cfg, 0, 20*sim.Millisecond, false)
	require.NoError(t, err)
	require.NotEmpty(t, tl.Compiles)
	for _, c := range tl.Compiles {
		assert.Less(t, c.Queued, c.Done)
	}
	renderBoth(t, tl, "startup")
}

// In costed mode a safepoint sampler's safepoints are in the window, each
// with the thread's arrival at its poll; with polls, every poll the thread
// executed is on its lane, and each arrival is at one of them.
func TestTimelineShowsSafepoints(t *testing.T) {
	tl := hotcoldPolls(t, samplers.Costed, true, "jvmti,interval=1ms")
	assert.NotEmpty(t, tl.Safepoints)
	polls := map[sim.Time]bool{}
	for _, p := range tl.Lanes[0].Polls {
		polls[p.At] = true
		assert.True(t, p.At >= tl.From && p.At < tl.To)
		assert.Equal(t, sim.PollBackedge, p.Kind, "hot() is inlined into cold()'s strip-mined loop")
	}
	require.NotEmpty(t, polls)
	for _, s := range tl.Safepoints {
		assert.LessOrEqual(t, s.Requested, s.Safe)
		assert.LessOrEqual(t, s.Safe, s.End)
		require.Len(t, s.Arrivals, 1)
		if a := s.Arrivals[0]; a.Stopped >= tl.From && a.Stopped < tl.To {
			assert.True(t, polls[a.Stopped], "arrival at %v is at a poll", a.Stopped)
		}
	}
	renderBoth(t, tl, "costed-jvmti")
}

func renderBoth(t *testing.T, tl *Timeline, name string) {
	t.Helper()
	var svg, pn bytes.Buffer
	require.NoError(t, tl.WriteSVG(&svg))
	assert.True(t, strings.HasPrefix(svg.String(), "<?xml") || strings.Contains(svg.String()[:200], "<svg"))
	assert.Contains(t, svg.String(), "HotCold.hot")
	require.NoError(t, tl.WritePNG(&pn))
	img, err := png.Decode(bytes.NewReader(pn.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, 1600, img.Bounds().Dx(), "1200 pt at 96 dpi: readable at 1:1 on a projector")
	if *pngOut != "" {
		require.NoError(t, os.WriteFile(filepath.Join(*pngOut, name+".png"), pn.Bytes(), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(*pngOut, name+".svg"), svg.Bytes(), 0o644))
	}
}

func TestRecorderRefusesBadWindows(t *testing.T) {
	for _, c := range []struct{ from, to, step sim.Time }{
		{-1, 10, 1}, {10, 10, 1}, {0, 10, 0}, {0, sim.Second, 1},
	} {
		_, err := NewRecorder(c.from, c.to, c.step)
		assert.Error(t, err, "%v", c)
	}
}

// SVG collapses runs of spaces, so the legend separates its items with
// a visible mark, and names only what the window draws.
func TestLegendSeparatesItemsVisibly(t *testing.T) {
	tl := &Timeline{From: 10, To: 20, Lanes: []Lane{{Thread: "main"}}, Compiles: []Compile{{Queued: 1, Done: 5}}}
	lines := tl.legendLines()
	require.Len(t, lines, 2, "no safepoints, polls or compilations: two lines")
	for _, l := range lines {
		assert.NotContains(t, l, "  ", "no run of spaces: SVG would collapse it")
	}
	assert.NotContains(t, strings.Join(lines, " "), "red band")
	assert.NotContains(t, strings.Join(lines, " "), "JIT", "a compilation done before the window is not drawn")
	tl.Safepoints = []Safepoint{{}}
	tl.Compiles = []Compile{{Queued: 15, Done: 25}}
	tl.Lanes[0].Polls = []Poll{{}}
	lines = tl.legendLines()
	require.Len(t, lines, 3)
	assert.Contains(t, lines[1], " · red band")
	assert.Contains(t, lines[2], "polls the thread executed · JIT")
}

// The JIT lane is drawn only when a compilation overlaps the window: an
// empty lane labelled "JIT" reads as a lane whose drawing is missing.
func TestJITLaneOnlyWithCompilations(t *testing.T) {
	tl := &Timeline{Workload: "w", From: 10, To: 20, Lanes: []Lane{{Thread: "main"}}, Compiles: []Compile{{Queued: 1, Done: 5}}}
	var before bytes.Buffer
	require.NoError(t, tl.WriteSVG(&before))
	assert.NotContains(t, before.String(), ">JIT<", "a compilation done before the window: no lane")
	tl.Compiles = []Compile{{Method: "A.m", Queued: 15, Done: 18}}
	var during bytes.Buffer
	require.NoError(t, tl.WriteSVG(&during))
	assert.Contains(t, during.String(), ">JIT<")
	assert.Greater(t, tl.jitHeight(), (&Timeline{}).jitHeight(), "the lane takes its row")
}
