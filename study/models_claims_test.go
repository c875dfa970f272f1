package study

import (
	"flag"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// onModels runs the Mytkowicz claim tests on the models of the DaCapo-2006
// applications too (Options.Models): minutes of CPU each, so not in the
// normal test run.
var onModels = flag.Bool("study.models", false, "also run the Mytkowicz claim tests on the models of real applications (slow: 20 s to 2.5 min of CPU each)")

// measureModels is measure on the models (Options.Models); it skips the
// test unless -study.models is given.
func measureModels[T any](t *testing.T, name string) T {
	t.Helper()
	if !*onModels {
		t.Skip("the claim tests on the models run with -study.models (minutes of CPU)")
	}
	r := runExperimentOn(t, name, true)
	d, ok := r.Data.(T)
	require.True(t, ok, "%s --models: result is %T", name, r.Data)
	return d
}

// Tolerances of the Mytkowicz claims on the models, beyond those of the
// stand-ins' tests (claims_test.go), which they share.
const (
	// nearZeroSlope reads the claim's "several ≈ 0" (M2) as a slope
	// within ±0.1 of 0, the width of the claim's own interval for ≈ 1
	// (exactSlopeDelta).
	nearZeroSlope = exactSlopeDelta
	// severalPairs: "several" (M2) is at least 2 pairs.
	severalPairs = 2
)

// nearZero counts profiler p's pairs with a slope within nearZeroSlope
// of 0.
func nearZero(r *CausalityResult, p string) int {
	n := 0
	for _, row := range r.Rows {
		if s := row.Slopes.At(p); s > -nearZeroSlope && s < nearZeroSlope {
			n++
		}
	}
	return n
}

// TestM2_Models reads M2 on the models as TestM2_CausalitySlope does on
// the stand-ins (positive control, each safepoint sampler's mean slope
// clearly below 0.5) and adds the claim's "several ≈ 0" for each sampler.
// The claim's "some near 1" is not asserted: no pair reaches 0.9
// (REPRODUCTIONS.md, M2 on models: partly).
func TestM2_Models(t *testing.T) {
	r := measureModels[*CausalityResult](t, "m2-causality")
	for _, row := range r.Rows {
		assert.InDelta(t, 1.0, row.Slopes.At("truth"), exactSlopeDelta, "truth's slope, %s/%s", row.Benchmark, row.Method)
	}
	for _, p := range causalityProfilers {
		assert.GreaterOrEqual(t, nearZero(r, p), severalPairs, "%s: several pairs ≈ 0", p)
		assert.Less(t, r.Mean(p).Hi(), causalitySlopeMax, p)
	}
}

// TestM7_Models reads M7 on the models as TestM7_NoInlining does on the
// stand-ins: the truth's positive control, tprof's mean slope ≈ 1 with a
// narrow CI, and the safepoint samplers below 0.5. "Somewhat better
// without inlining" is not asserted (REPRODUCTIONS.md, M7 on models:
// partly).
func TestM7_Models(t *testing.T) {
	r := measureModels[*CausalityResult](t, "m7-no-inlining")
	for _, row := range r.Rows {
		assert.InDelta(t, 1.0, row.Slopes.At("truth"), exactSlopeDelta, "truth's slope, %s/%s", row.Benchmark, row.Method)
	}
	tp := r.Mean("tprof")
	assert.InDelta(t, 1.0, tp.Mean, exactSlopeDelta, "tprof mean slope")
	assert.Less(t, tp.CI, m7TprofCIMax)
	for _, p := range causalityProfilers {
		assert.Less(t, r.Mean(p).Hi(), causalitySlopeMax, p)
	}
}

// TestM3_Models: on the models the claim holds as written for Union_1 >
// 1 (on at least 3 models) and Union_n for n ≥ 2 (grows, 95 % CI above
// n); Union_1's mean is above 1 but its CI is not (logged).
func TestM3_Models(t *testing.T) {
	r := measureModels[*M3Result](t, "m3-disagreement")
	assert.GreaterOrEqual(t, r.Union1Above1(), m3Union1Claim)
	assertUnionGrows(t, r)
}

// TestM4_Models reads M4 on the models: the claim's "most disagreeing
// pairs are not caller and callee" does not hold there — half of them are
// (TestDivergence_M4_Models); the test checks there are enough pairs to
// judge and logs the share.
func TestM4_Models(t *testing.T) {
	r := measureModels[*M4Result](t, "m4-innocuous")
	require.GreaterOrEqual(t, len(r.Pairs), m4MinPairs)
	if f := float64(r.Related()) / float64(len(r.Pairs)); f >= m4RelatedMax {
		diverges(t, "%d of %d disagreeing pairs are caller and callee, not fewer than half", r.Related(), len(r.Pairs))
	}
}

// TestDivergence_M4_Models pins the documented divergence
// (REPRODUCTIONS.md, M4 on models): 12 of 24 disagreeing pairs are caller
// and callee — among them a native method the JVMTI samplers walk at the tick against
// the compiled Java caller xprof's flat profile names (antlr's
// FileOutputStream.open0 under its constructor, fop's deflateBytesBytes
// under Deflater.deflate), and a callee whose uncounted loop polls against
// the caller xprof names (hsqldb's Index.next under TableFilter.next).
func TestDivergence_M4_Models(t *testing.T) {
	r := measureModels[*M4Result](t, "m4-innocuous")
	require.NotEmpty(t, r.Pairs)
	assert.GreaterOrEqual(t, float64(r.Related())/float64(len(r.Pairs)), m4RelatedMax)
}

// TestM6_Models: on the models a second costed profiler moves xprof's
// hotness of its hottest method by several points, as on the stand-ins;
// the yield points do not change (TestDivergence_M6_Models).
func TestM6_Models(t *testing.T) {
	assertObserverEffect(t, measureModels[*M6Result](t, "m6-observer"))
}

// TestDivergence_M6_Models pins the documented divergence
// (REPRODUCTIONS.md, M6 on models): as on the stand-ins, the companion
// profiler changes no compiled method's poll sites.
func TestDivergence_M6_Models(t *testing.T) {
	r := measureModels[*M6Result](t, "m6-observer")
	require.Positive(t, r.PollsCompared())
	assert.Zero(t, r.PollDiffs())
}

// TestM9_Models: tprof's prediction is within 5 points on every model
// (mean over seeds), as the claim says; xprof's shortfalls are logged:
// its top method falls short on half the models, not most
// (TestDivergence_M9_Models).
func TestM9_Models(t *testing.T) {
	r := measureModels[*M9Result](t, "m9-actionable")
	for _, b := range r.Benchmarks {
		e := r.AbsError("tprof", b)
		assert.Equal(t, len(r.Seeds), e.N, "%s: a tprof observation per seed", b)
		assert.LessOrEqual(t, e.Mean, m9TprofPoints, "%s: tprof's prediction error (points, mean over seeds)", b)
	}
	if n := r.Shortfalls("xprof"); 2*n <= len(r.Benchmarks) {
		diverges(t, "xprof's top method gains less than half its prediction on %d of %d models, not most", n, len(r.Benchmarks))
	}
}

// TestDivergence_M9_Models pins the documented divergence
// (REPRODUCTIONS.md, M9 on models): xprof's top method falls short on
// no more than half the models — on the others it is a truly hot method
// (a native one on antlr).
func TestDivergence_M9_Models(t *testing.T) {
	r := measureModels[*M9Result](t, "m9-actionable")
	assert.LessOrEqual(t, 2*r.Shortfalls("xprof"), len(r.Benchmarks))
}

// TestM5_Models: on antlr's model tprof's interval autocorrelation leaves
// the ±2/√N band at ≤ 5 % of lags (mean over seeds), and a safepoint
// sampler at its measured timer jitter — the paper's setup — leaves it at
// ≥ m5Systematic of lags and at least twice as often as tprof: the
// claim's contrast, which the stand-in shows only on a perfect clock.
// Where the other samplers do not show it is pinned by
// TestDivergence_M5_Models.
func TestM5_Models(t *testing.T) {
	r := measureModels[*M5Result](t, "m5-autocorrelation")
	tp := r.Share("tprof").Mean
	assert.LessOrEqual(t, tp, m5TprofMax)
	var best float64
	for _, p := range []string{"xprof", "hprof", "xprof:grid", "hprof:grid"} {
		s := r.Share(p).Mean
		if s < m5Systematic || s <= 2*tp {
			diverges(t, "%s leaves the band at %.0f %% of lags, not systematically", p, 100*s)
		}
		if p == "xprof" || p == "hprof" {
			best = max(best, s)
		}
	}
	assert.GreaterOrEqual(t, best, m5Systematic, "a safepoint sampler at its measured jitter")
	assert.Greater(t, best, 2*tp, "a safepoint sampler at its measured jitter")
}

// TestDivergence_M5_Models pins the documented divergence
// (REPRODUCTIONS.md, M5 on models): on antlr's model neither safepoint
// sampler shows the pattern on a perfect clock (the model's program is
// not periodic: every driver trip draws its branches, so a tick on the
// grid does not find it at the same place), and hprof does not at its
// measured jitter.
func TestDivergence_M5_Models(t *testing.T) {
	r := measureModels[*M5Result](t, "m5-autocorrelation")
	for _, p := range []string{"hprof", "xprof:grid", "hprof:grid"} {
		assert.Less(t, r.Share(p).Mean, m5Systematic, p)
	}
}

// TestX4_Models: on the models of the DaCapo applications (2 s, HotSpot
// 17 defaults, no DebugNonSafepoints) JDK 25's cooperative sampler and
// JDK 17's JFR agree with each other on the models — they name the top
// frame through the same debug information and both skip threads in
// native code — so removing the top frame's safepoint bias moves their
// method profiles little; their error against the truth is the skid and
// the native time (X1, issue 32), where the safepoint sampler, which
// walks threads in native code, is ahead on antlr and chart. A model
// where they differ by more than x4ModelCoopJfr is logged
// (TestDivergence_X4_Models pins which).
func TestX4_Models(t *testing.T) {
	r := measureModels[*X4Result](t, "x4-cooperative-sampling")
	m := func(x X4Sampler) float64 { return x.Methods }
	agree := 0
	for _, b := range r.Benches {
		coop, jfr := r.Stat(b.Name, "jfr-coop", m).Mean, r.Stat(b.Name, "jfr", m).Mean
		if math.Abs(coop-jfr) <= x4ModelCoopJfr {
			agree++
		} else {
			diverges(t, "%s: jfr-coop's method overlap with the truth is %.1f, jfr's %.1f", b.Name, coop, jfr)
		}
		t.Logf("%s: method overlap jfr-coop %.1f, jfr %.1f, safepoint %.1f, async %.1f", b.Name, coop, jfr, r.Stat(b.Name, "safepoint", m).Mean, r.Stat(b.Name, "async", m).Mean)
	}
	assert.GreaterOrEqual(t, 2*agree, len(r.Benches), "jfr-coop and jfr agree on most models")
}

// TestDivergence_X4_Models pins the documented divergence
// (REPRODUCTIONS.md, X4): on lusearch's model jfr-coop's method overlap
// with the truth is more than x4ModelCoopJfr above jfr's (42.0 against
// 33.5 ± 7.8 over seeds 1–3), and on no other.
func TestDivergence_X4_Models(t *testing.T) {
	r := measureModels[*X4Result](t, "x4-cooperative-sampling")
	m := func(x X4Sampler) float64 { return x.Methods }
	var differ []string
	for _, b := range r.Benches {
		if math.Abs(r.Stat(b.Name, "jfr-coop", m).Mean-r.Stat(b.Name, "jfr", m).Mean) > x4ModelCoopJfr {
			differ = append(differ, b.Name)
		}
	}
	assert.Equal(t, []string{"lusearch-real"}, differ)
}

// x4ModelCoopJfr: jfr and jfr-coop take their rounds on their own jitter
// streams, ≈ 100 samples a seed; their seeds' 95 % CIs are 0.4–8 points
// wide; 5 points between their means (measured ≤ 2.9).
const x4ModelCoopJfr = 5.0
