package study

import (
	"flag"
	"fmt"
	"testing"

	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// full runs the paper-sized version of each experiment.
var full = flag.Bool("study.full", false, "run paper-sized experiments (slow)")

func seeds() []uint64 {
	if *full {
		return []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	}
	return []uint64{1, 2, 3}
}

// TestM1_ListingOne: a safepoint sampler puts ≥ 95 % of samples in cold()
// (paper: xprof 99.8 %); tprof and async (with DebugNonSafepoints) put
// hot() within ±3 points of the truth, pooled over 3 seeds. tprof, as in
// the paper, only on the configuration without inlining.
func TestM1_ListingOne(t *testing.T) {
	rows, table, err := ListingOne(ListingOneConfigs, seeds(), 2*sim.Second)
	require.NoError(t, err)
	t.Log("\n" + table.Markdown())
	for _, c := range ListingOneConfigs {
		for _, s := range []string{"safepoint", "hprof", "xprof"} {
			for _, r := range rows {
				if r.Config.Name == c.Name {
					assert.GreaterOrEqual(t, r.Cold[s], 95.0, "%s, seed %d: %s must blame cold()", c.Name, r.Seed, s)
				}
			}
		}
		truth := PooledShare(rows, c.Name, "truth", "hot")
		exact := []string{"async"}
		if !c.Inline {
			exact = append(exact, "tprof")
		}
		for _, s := range exact {
			got := PooledShare(rows, c.Name, s, "hot")
			t.Logf("%s: %s hot() %.2f %% vs truth %.2f %%", c.Name, s, got, truth)
			assert.InDelta(t, truth, got, 3, "%s: %s must find hot() within 3 points", c.Name, s)
		}
	}
}

func runExperiment(t *testing.T, name string) *Result {
	t.Helper()
	e, ok := Lookup(name)
	require.True(t, ok, name)
	o := DefaultOptions()
	o.Full = *full
	if *full {
		o.Seeds = seeds()
	}
	r, err := e.Run(o)
	require.NoError(t, err)
	t.Log("\n" + r.Table.Markdown())
	return r
}

// TestM2_CausalitySlope: with inlining, the safepoint samplers' mean
// causality slope is < 0.5 (paper 0.23–0.28); tolerance: the upper end of
// the 95 % CI must stay below 0.5. Fails if samplers saw exact positions
// (their slope would be ≈ 1, like tprof's).
func TestM2_CausalitySlope(t *testing.T) {
	r := runExperiment(t, "m2-causality")
	for _, p := range []string{"hprof", "xprof", "jprofile", "yourkit"} {
		assert.Less(t, r.Values[p]+r.Values[p+"_ci"], 0.5, p)
	}
}

// TestM7_NoInlining: without inlining tprof's mean slope is in [0.9, 1.1]
// (paper 0.99, 95 % CI inside the interval's widened bounds [0.85, 1.15])
// and the safepoint samplers stay < 0.5.
func TestM7_NoInlining(t *testing.T) {
	r := runExperiment(t, "m7-no-inlining")
	assert.InDelta(t, 1.0, r.Values["tprof"], 0.1, "tprof mean slope")
	assert.Less(t, r.Values["tprof_ci"], 0.15)
	for _, p := range []string{"hprof", "xprof", "jprofile", "yourkit"} {
		assert.Less(t, r.Values[p]+r.Values[p+"_ci"], 0.5, p)
	}
}

// m5Systematic is the share of lags 1…100 outside the band at which a
// sampler's intervals show a systematic pattern (the claim's threshold,
// calibrated on the perfect clock). At their measured jitter xprof and
// hprof stay below it: that pins a documented divergence from the paper
// (REPRODUCTIONS.md, M5).
const m5Systematic = 0.08

// TestM5_Autocorrelation: tprof's interval autocorrelation leaves the
// ±2/√N band at ≤ 5 % of lags 1…100 (averaged over 3 seeds). On a perfect
// clock (jitter=0) the safepoint samplers leave it at least twice as often
// and at ≥ 8 % of lags: their intervals carry the time to the next poll,
// which depends on where the periodic program is. At the timer jitter
// measured for their sampler threads — the paper's setup, real timers —
// they do not (the paper's hprof does): the model's pattern needs every
// tick at the same place of the program.
func TestM5_Autocorrelation(t *testing.T) {
	r := runExperiment(t, "m5-autocorrelation")
	assert.LessOrEqual(t, r.Values["tprof"], 0.05)
	for _, p := range []string{"xprof", "hprof"} {
		g := r.Values[p+":grid"]
		assert.GreaterOrEqual(t, g, m5Systematic, "%s on a perfect clock", p)
		assert.Greater(t, g, 2*r.Values["tprof"], "%s on a perfect clock", p)
		assert.Less(t, r.Values[p], m5Systematic, "%s at its measured jitter: the documented divergence", p)
	}
}

// TestA1_CallPair: jikes-timer records call_1 at least 10× as often as
// call_2 (truth: equal); CBS with STRIDE ≥ 2 records them within ±25 %.
// Fails if CBS took one sample per window at the first yield point (it
// would then be the timer mechanism, see TestCBSStride1Samples1IsJikesTimer).
func TestA1_CallPair(t *testing.T) {
	r := runExperiment(t, "a1-callpair")
	assert.GreaterOrEqual(t, r.Values["jikes_ratio_min"], 10.0)
	assert.GreaterOrEqual(t, r.Values["cbs_ratio_min"], 0.8)
	assert.LessOrEqual(t, r.Values["cbs_ratio_max"], 1.25)
}

// TestA2_Grid: CBS accuracy rises with SAMPLES and with STRIDE; the base
// (1, 1) is below 50 % (paper 38 %); (SAMPLES 32, STRIDE 3) at least 1.6×
// the base (paper 66 % vs 38 %) at < 1 % overhead; (1024, 63) costs over
// 10× as much. Fails if CBS ignored STRIDE (accuracy flat across strides).
func TestA2_Grid(t *testing.T) {
	r := runExperiment(t, "a2-grid")
	v := r.Values
	base := v[a2Name(1, 1)]
	assert.Less(t, base, 50.0)
	assert.GreaterOrEqual(t, v[a2Name(32, 3)], 1.6*base)
	for _, s := range a2Strides {
		for i := 1; i < len(a2Samples); i++ {
			assert.GreaterOrEqual(t, v[a2Name(a2Samples[i], s)], v[a2Name(a2Samples[i-1], s)]-2, "rises with SAMPLES (stride %d)", s)
		}
	}
	for _, n := range a2Samples {
		assert.Greater(t, v[a2Name(n, 15)], v[a2Name(n, 1)]+2, "rises with STRIDE (samples %d)", n)
	}
	assert.Less(t, v["overhead-32-3"], 1.0)
	assert.Greater(t, v["overhead-1024-63"], 10*v["overhead-32-3"])
	assert.Greater(t, v["overhead-1024-63"], 5.0)
}

// TestA3_InputSize: accuracy is higher on large inputs than on small ones,
// for the base mechanism and for CBS (paper means: base 26 → 50 %, CBS
// 55 → 69 %); CBS ≥ base on at least 90 % of (stand-in, input) pairs and
// by ≥ 10 points on average.
func TestA3_InputSize(t *testing.T) {
	r := runExperiment(t, "a3-input-size")
	v := r.Values
	assert.Greater(t, v["large_base"], v["small_base"])
	assert.Greater(t, v["large_cbs"], v["small_cbs"])
	assert.GreaterOrEqual(t, v["cbs_wins"], 0.9)
	assert.Greater(t, v["small_cbs"], v["small_base"]+10)
	assert.Greater(t, v["large_cbs"], v["large_base"]+10)
}

// TestM9_Actionable: speeding up tprof's top method by 50 % gains what
// tprof predicts within 5 points on every stand-in (paper: within 2 %);
// xprof's top method gains less than half of what xprof predicts on most
// of them.
func TestM9_Actionable(t *testing.T) {
	r := runExperiment(t, "m9-actionable")
	assert.LessOrEqual(t, r.Values["tprof_max_abs_error"], 5.0)
	assert.GreaterOrEqual(t, r.Values["safepoint_shortfalls"], 4.0, "of 7 stand-ins")
}

// m3Union1Above1 is on how many of the 7 stand-ins the four profilers'
// hottest methods differ (Union_1 > 1). The paper has 4 of 7; the model
// gives 2 with HotSpot 17's interpreter polls (no poll at method entry,
// jit.interpreted), whose timing moves the compile times and sample phases
// this claim rests on, and mean Union_1 (1.29 ± 0.45) is then not clearly
// above 1: pins a documented divergence (REPRODUCTIONS.md, M3).
const m3Union1Above1 = 2.0

// TestM3_Disagreement: four safepoint profilers that differ only in their
// observer effect (interval handling, agent CPU, allocation, depth), each
// costed alone: Union_1 > 1 on m3Union1Above1 of the 7 stand-ins (paper 4
// of 7); mean Union_n grows with n and its 95 % CI stays above n for
// n ≥ 2, Union_1's mean above 1.
func TestM3_Disagreement(t *testing.T) {
	r := runExperiment(t, "m3-disagreement")
	assert.GreaterOrEqual(t, r.Values["union1_above_1"], m3Union1Above1)
	for n := 1; n <= 10; n++ {
		u, ci := r.Values[fmt.Sprintf("union%d", n)], r.Values[fmt.Sprintf("union%d_ci", n)]
		if n == 1 {
			assert.Greater(t, u, 1.0, "Union_1 above 1") // its CI is not: see m3Union1Above1
			continue
		}
		assert.Greater(t, u-ci, float64(n), "Union_%d clearly above %d", n, n)
		if n > 1 {
			assert.GreaterOrEqual(t, u, r.Values[fmt.Sprintf("union%d", n-1)], "grows with n")
		}
	}
}

// TestM4_Innocuous: where two profilers disagree on the hottest method,
// fewer than half of the pairs are caller and callee (transitively).
func TestM4_Innocuous(t *testing.T) {
	r := runExperiment(t, "m4-innocuous")
	require.GreaterOrEqual(t, r.Values["pairs"], 3.0)
	assert.Less(t, r.Values["related"]/r.Values["pairs"], 0.5)
}

// TestM8_Overhead documents a divergence (REPRODUCTIONS.md): the costed
// safepoint profilers slow the stand-ins down, heavier agents more, but by
// per cents, not the paper's 1.1–1.5× means. Asserted: every overhead ≥ 1
// (a profiler never speeds a program up) and jprofile, the heaviest agent,
// costs more than xprof, the lightest.
func TestM8_Overhead(t *testing.T) {
	r := runExperiment(t, "m8-overhead")
	for _, p := range []string{"hprof", "xprof", "jprofile", "yourkit"} {
		assert.GreaterOrEqual(t, r.Values[p+"_min"], 1.0, p)
		assert.Less(t, r.Values[p+"_max"], 1.1, "%s: the divergence from the paper's 1.0–2.2×", p)
	}
	assert.Greater(t, r.Values["jprofile"], r.Values["xprof"])
}

// TestA4_Inlining: an inliner reading CBS's call graph gains at least what
// one reading the timer's gains on every stand-in (within 0.25 points),
// and most on javac (paper: +4 % on javac in Jikes RVM); J9-style dynamic
// heuristics, which refuse to inline what the profile calls cold, slow the
// programs down on average when fed the timer's inaccurate graph but not
// CBS's (paper: timer-driven J9 hurts 6 of 8 benchmarks).
func TestA4_Inlining(t *testing.T) {
	r := runExperiment(t, "a4-inlining")
	v := r.Values
	best, bestGain := "", -1.0
	for _, b := range []string{"jess", "javac", "mtrt"} {
		gain := v[b+"/jikes/cbs"] - v[b+"/jikes/timer"]
		assert.GreaterOrEqual(t, gain, -0.25, "%s: jikes cbs vs timer", b)
		assert.GreaterOrEqual(t, v[b+"/j9/cbs"], v[b+"/j9/timer"]-0.25, "%s: j9 cbs vs timer", b)
		if gain > bestGain {
			best, bestGain = b, gain
		}
	}
	assert.Equal(t, "javac", best, "CBS's largest gain over the timer")
	assert.Greater(t, bestGain, 0.5)
	assert.Less(t, v["mean/j9/timer"], 0.0, "timer-driven dynamic heuristics slow down")
	assert.Greater(t, v["mean/j9/cbs"], 0.0)
	assert.Greater(t, v["mean/jikes/cbs"], v["mean/jikes/timer"])
}

// TestM6_ObserverEffect: turning on a second costed profiler moves xprof's
// hotness of its hottest method by several points (mean ≥ 2, some stand-in
// ≥ 4; paper: up to ≈ 20). Without a companion the same seed gives the
// same profile, so the change is the companion's doing, not noise. The
// yield-point half of the claim is measured and reported (it diverges: see
// REPRODUCTIONS.md).
func TestM6_ObserverEffect(t *testing.T) {
	r := runExperiment(t, "m6-observer")
	assert.GreaterOrEqual(t, r.Values["mean_delta"], 2.0)
	assert.GreaterOrEqual(t, r.Values["max_delta"], 4.0)
	assert.Positive(t, r.Values["polls_compared"])
	a, err := m6Once("antlr", 1, 200*sim.Millisecond, []string{"xprof"})
	require.NoError(t, err)
	b, err := m6Once("antlr", 1, 200*sim.Millisecond, []string{"xprof"})
	require.NoError(t, err)
	assert.Equal(t, a.hotness, b.hotness, "xprof alone, same seed: identical")
}
