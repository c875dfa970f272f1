package report

import (
	"regexp"
	"testing"

	"github.com/profsim/profsim/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hotCold builds Listing 1's profile: main → cold → hot, with the given
// self weights of cold and hot.
func hotCold(source string, cold, hot int64) *profile.Profile {
	b := profile.NewBuilder(source, "nanoseconds", 1)
	m, c, h := b.Func(profile.Function{Name: "HotCold.main"}), b.Func(profile.Function{Name: "HotCold.cold"}), b.Func(profile.Function{Name: "HotCold.hot"})
	if cold > 0 {
		b.AddSample([]profile.Frame{{Func: int32(m)}, {Func: int32(c)}}, cold, cold, "main")
	}
	if hot > 0 {
		b.AddSample([]profile.Frame{{Func: int32(m)}, {Func: int32(c)}, {Func: int32(h)}}, hot, hot, "main")
	}
	return b.Build()
}

// The difference graph is the truth's tree coloured by the sampler's self
// share less the truth's: a safepoint sampler that charges hot()'s time to
// cold() turns cold red and hot blue, at the truth's widths.
func TestDiffFlameGraph(t *testing.T) {
	truth, sp := hotCold("truth", 2, 98), hotCold("safepoint", 100, 0)
	d := selfShareDiff(sp, truth)
	assert.InDelta(t, 0.98, d[profile.JoinFrames([]string{"HotCold.main", "HotCold.cold"})], 1e-12)
	assert.InDelta(t, -0.98, d[profile.JoinFrames([]string{"HotCold.main", "HotCold.cold", "HotCold.hot"})], 1e-12)
	assert.Zero(t, d[profile.JoinFrames([]string{"HotCold.main"})])

	assert.InDelta(t, 0.98, largest(d), 1e-12)
	svg := diffFlameSVG(sp, truth, d, largest(d))
	frame := regexp.MustCompile(`data-w="([0-9.]+)" data-d="\d" data-n="([^"]+)">.*?fill="([^"]+)"`)
	got := map[string][2]string{}
	for _, m := range frame.FindAllStringSubmatch(svg, -1) {
		got[m[2]] = [2]string{m[1], m[3]}
	}
	require.Len(t, got, 3, svg)
	assert.Equal(t, [2]string{"1000.00", "rgb(255,255,255)"}, got["HotCold.main"])
	assert.Equal(t, [2]string{"1000.00", "rgb(255,60,60)"}, got["HotCold.cold"], "charged more: full red")
	assert.Equal(t, [2]string{"980.00", "rgb(60,110,255)"}, got["HotCold.hot"], "as wide as the truth's 98 %, charged less: full blue")
	assert.Contains(t, svg, "HotCold.main → HotCold.cold → HotCold.hot (98.00 %, safepoint -98.00 points)")

	assert.Zero(t, largest(selfShareDiff(truth, truth)))
	same := diffFlameSVG(truth, truth, selfShareDiff(truth, truth), largest(d))
	assert.NotContains(t, same, "rgb(255,60,60)")
	assert.NotContains(t, same, "rgb(60,110,255)")
	assert.Equal(t, "rgb(255,158,158)", diffColour(0.5, 1), "half the largest difference: half red")
}

// A profiler that records only the executing method (tprof) is compared
// by method: its shares spread over each method's contexts as the
// truth's, so that a flat profile as right as tprof's on Listing 1 looks
// pale, not as if it had misplaced every sample.
func TestDiffFlameGraphByMethod(t *testing.T) {
	truth := hotCold("truth", 2, 98)
	b := profile.NewBuilder("tprof", "samples", 1)
	c, h := b.Func(profile.Function{Name: "HotCold.cold"}), b.Func(profile.Function{Name: "HotCold.hot"})
	b.AddSample([]profile.Frame{{Func: int32(h)}}, 97, 97, "main")
	b.AddSample([]profile.Frame{{Func: int32(c)}}, 3, 3, "main")
	flat := b.Build()

	require.True(t, byMethod(flat, truth))
	assert.False(t, byMethod(truth, truth))
	d := selfShareDiff(flat, truth)
	assert.InDelta(t, 0.98*(0.97/0.98-1), d[profile.JoinFrames([]string{"HotCold.main", "HotCold.cold", "HotCold.hot"})], 1e-12)
	assert.InDelta(t, 0.02*(0.03/0.02-1), d[profile.JoinFrames([]string{"HotCold.main", "HotCold.cold"})], 1e-12)
	assert.InDelta(t, 0.01, largest(d), 1e-12, "by context it would be 0.97: every sample misplaced")

	other := profile.NewBuilder("tprof", "samples", 1)
	other.AddSample([]profile.Frame{{Func: int32(other.Func(profile.Function{Name: "Other.run"}))}}, 5, 5, "main")
	assert.InDelta(t, 1.0, selfShareDiff(other.Build(), truth)["Other.run"], 1e-12, "a method the truth never ran counts by its name")
}

// A frame too narrow for its name gets a shortened label, or none.
func TestFlameLabel(t *testing.T) {
	assert.Equal(t, "", flameLabel("HotCold.hot", flameLabelPx-1))
	assert.Equal(t, "HotCold.hot", flameLabel("HotCold.hot", 200))
	short := flameLabel("HotCold.hot", 60)
	assert.Equal(t, "HotCo…", short, "(60−6)/9 = 6 characters: 5 and the ellipsis")
}
