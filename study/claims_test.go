package study

import (
	"encoding/csv"
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/vg"
)

// full runs the paper-sized version of each experiment.
var full = flag.Bool("study.full", false, "run paper-sized experiments (slow)")

// paper runs the experiments that have a paper-length version at the
// paper's run length (Options.Paper, Experiment.Paper; the others at
// test size): minutes each. The TestDivergence_ pins describe the test
// size and may not hold at paper length (REPRODUCTIONS.md gives both).
var paper = flag.Bool("study.paper", false, "run the experiments run length limits at the paper's run length (minutes each)")

// pngDir, when set, receives each experiment's figure as NAME.png, to be
// looked at.
var pngDir = flag.String("study.png", "", "write each experiment's figure as NAME.png into this directory")

// updateTables rewrites the tables' goldens (testdata/tables/NAME.md)
// from this run: for a change of results that is meant, said why in its
// commit.
var updateTables = flag.Bool("study.update-tables", false, "rewrite testdata/tables/NAME.md from this run's tables (a meant change of results)")

func seeds() []uint64 {
	if *full {
		return []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	}
	return []uint64{1, 2, 3}
}

// Tolerances of the Mytkowicz claims (CLAIMS.md M1–M9).
const (
	// m1SafepointColdMin: "a safepoint sampler puts ≥ 95 % of samples
	// in cold()" (the claim's words; paper: xprof 99.8 %).
	m1SafepointColdMin = 95.0
	// m1ExactPoints: "tprof and async put hot() within ±3 points of the
	// truth" (the claim's words).
	m1ExactPoints = 3.0
	// causalitySlopeMax: "mean slope … safepoint samplers < 0.5" (the
	// claim's words, M2 and M7), asserted on the upper end of the 95 % CI.
	causalitySlopeMax = 0.5
	// exactSlopeDelta: "tprof in [0.9, 1.1]" (the claim's words, M2 and
	// M7); the same interval is the positive control for the truth,
	// whose attributed time is the injected time itself.
	exactSlopeDelta = 0.1
	// m7TprofCIMax bounds the half-width of tprof's 95 % CI over the
	// pairs: the claim's interval half-width (0.1) widened by half, so
	// that "≈ 1" is an estimate and not a lucky mean of scattered slopes.
	m7TprofCIMax = 0.15
	// m3Union1Claim: "Union_1 > 1 on at least 3 of the 7 single-threaded
	// stand-ins" (the claim's words).
	m3Union1Claim = 3
	// m3Union1Above1 pins a documented divergence (REPRODUCTIONS.md, M3):
	// the model gives Union_1 > 1 on 2 of 7 with HotSpot 17's interpreter
	// polls (no poll at method entry, jit.interpreted), whose timing moves
	// the compile times and sample phases this claim rests on; mean
	// Union_1 is then not clearly above 1.
	m3Union1Above1 = 2
	// m4MinPairs: "most pairs are not …" (M4) needs pairs to count; with
	// fewer than 3 a single pair decides the share.
	m4MinPairs = 3
	// m4RelatedMax: "most pairs are not in a transitive caller/callee
	// relation" (the claim's words): related pairs below half.
	m4RelatedMax = 0.5
	// m5TprofMax: tprof's autocorrelation stays inside the band "(allow
	// ≤ 5 % excursions)" (the claim's words), mean over seeds.
	m5TprofMax = 0.05
	// m5Systematic is the share of lags 1…100 outside the band taken as
	// the claim's "systematic pattern (many lags outside the band)",
	// which has no number: above the 5 % the claim allows tprof, chosen
	// from the perfect-clock runs (hprof 14–16 %, xprof 1–18 %). At their
	// measured jitter xprof and hprof stay below it: that pins a
	// documented divergence (REPRODUCTIONS.md, M5).
	m5Systematic = 0.08
	// m6MeanDelta and m6MaxDelta read the claim's "changes … hotness of
	// the hottest method by several points" (paper: up to ≈ 20) as a mean
	// over stand-ins and companions of at least 2 points and some
	// stand-in at 4 or more.
	m6MeanDelta = 2.0
	m6MaxDelta  = 4.0
	// m8ClaimMeanMin: "mean 1.1–1.5×" (the claim's words, M8): the least
	// mean slowdown the claim asks of each safepoint profiler.
	m8ClaimMeanMin = 1.1
	// m8DivergenceMax pins a documented divergence (REPRODUCTIONS.md,
	// M8): every costed run is below the claim's least mean, 1.1×
	// (measured 1.001–1.003×).
	m8DivergenceMax = 1.1
	// m9TprofPoints: "the speed-up predicted from tprof matches the
	// simulated one within 5 points" (the claim's words), mean |error|
	// over seeds on each stand-in.
	m9TprofPoints = 5.0
	// m9Shortfalls reads the claim's "often yields far less than it
	// predicts" as: less than half the prediction on most (4) of the 7
	// stand-ins.
	m9Shortfalls = 4
)

// TestM1_ListingOne: a safepoint sampler puts ≥ 95 % of samples in cold()
// on every run (paper: xprof 99.8 %); tprof and async (with
// DebugNonSafepoints) put hot() within ±3 points of the truth, pooled over
// the seeds — the positive control: exact samplers pass where the
// safepoint ones fail. tprof, as in the paper, only on the configuration
// without inlining.
func TestM1_ListingOne(t *testing.T) {
	r := measure[*M1Result](t, "m1-listing1")
	for _, c := range ListingOneConfigs {
		for _, s := range []string{"safepoint", "hprof", "xprof"} {
			for _, row := range r.Rows {
				if row.Config.Name == c.Name {
					assert.GreaterOrEqual(t, row.Cold.At(s), m1SafepointColdMin, "%s, seed %d: %s must blame cold()", c.Name, row.Seed, s)
				}
			}
		}
		truth := r.Pooled(c, "truth", "hot")
		exact := []string{"async"}
		if !c.Inline {
			exact = append(exact, "tprof")
		}
		for _, s := range exact {
			got := r.Pooled(c, s, "hot")
			t.Logf("%s: %s hot() %.2f %% vs truth %.2f %%", c.Name, s, got, truth)
			assert.InDelta(t, truth, got, m1ExactPoints, "%s: %s must find hot() within 3 points", c.Name, s)
		}
	}
}

var (
	resultsMu sync.Mutex
	results   = map[string]*Result{}
)

// runExperiment runs the named experiment once per test process (later
// calls, e.g. a claim test and its divergence pin, share the result),
// prints its table and checks its tidy data: written by Result.Write,
// read back as CSV, every numeric cell parses as a number.
func runExperiment(t *testing.T, name string) *Result {
	t.Helper()
	return runExperimentOn(t, name, false)
}

// runExperimentOn is runExperiment on the stand-ins or, with models, on
// the models of real applications (Options.Models).
func runExperimentOn(t *testing.T, name string, models bool) *Result {
	t.Helper()
	resultsMu.Lock()
	defer resultsMu.Unlock()
	key := name
	if models {
		key += " --models"
	}
	if r, ok := results[key]; ok {
		t.Logf("(%s: the result of an earlier test in this run)", key)
		return r
	}
	e, ok := Lookup(name)
	require.True(t, ok, name)
	require.False(t, *full && *paper, "-study.full and -study.paper do not combine")
	o := DefaultOptions()
	o.Full, o.Models = *full, models
	o.Paper = *paper && e.Paper != ""
	if *full {
		o.Seeds = seeds()
	}
	r, err := e.Run(o)
	require.NoError(t, err)
	t.Log("\n" + r.Table.Markdown())
	if !models && !*full && !o.Paper {
		checkTableGolden(t, name, r)
	}
	require.NotNil(t, r.Data, "%s: a typed result", name)
	require.NotNil(t, r.Tidy, "%s: a typed result writes tidy data", name)
	checkTidy(t, r, name)
	if *pngDir != "" && r.Figure != nil {
		require.NoError(t, os.MkdirAll(*pngDir, 0o755))
		require.NoError(t, savePNG(r.Figure, 16*vg.Centimeter, 10*vg.Centimeter, slideDPI, filepath.Join(*pngDir, name+".png")))
	}
	results[key] = r
	return r
}

// checkTidy writes r and reads NAME.data.csv back: the header is the
// data's columns, every row has every cell, every numeric cell parses.
func checkTidy(t *testing.T, r *Result, name string) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, r.Write(dir, name))
	if r.Figure != nil {
		// The figure for slides: at least 1280 × 720 pixels.
		pf, err := os.Open(filepath.Join(dir, name+".png"))
		require.NoError(t, err)
		cfg, err := png.DecodeConfig(pf)
		pf.Close()
		require.NoError(t, err, "%s.png", name)
		assert.GreaterOrEqual(t, cfg.Width, 1280, "%s.png", name)
		assert.GreaterOrEqual(t, cfg.Height, 720, "%s.png", name)
	}
	f, err := os.Open(filepath.Join(dir, name+".data.csv"))
	require.NoError(t, err)
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.NotEmpty(t, all)
	require.Equal(t, r.Tidy.Columns, all[0], "%s.data.csv header", name)
	require.Greater(t, len(all), 1, "%s.data.csv has observations", name)
	for i, row := range all[1:] {
		for j, cell := range row {
			if r.Tidy.Numeric[j] {
				_, err := strconv.ParseFloat(cell, 64)
				require.NoError(t, err, "%s.data.csv row %d column %s", name, i+1, all[0][j])
			}
		}
	}
}

// measure runs the named experiment (runExperiment) and returns its typed
// result.
func measure[T any](t *testing.T, name string) T {
	t.Helper()
	r := runExperiment(t, name)
	d, ok := r.Data.(T)
	require.True(t, ok, "%s: result is %T", name, r.Data)
	return d
}

// diverges records, in the test's output, a part of a claim the model
// does not meet; the divergence is pinned by a TestDivergence_ test and
// described in REPRODUCTIONS.md.
func diverges(t *testing.T, format string, args ...any) {
	t.Helper()
	t.Logf("DIVERGES from the claim: "+format, args...)
}

// TestM2_CausalitySlope: with inlining, the safepoint samplers' mean
// causality slope is < 0.5 (paper 0.23–0.28); tolerance: the upper end of
// the 95 % CI must stay below 0.5. Positive control: the truth's slope is
// in [0.9, 1.1] on every pair (its attributed time is the injected time).
// Fails if samplers saw exact positions (their slope would be ≈ 1, like
// tprof's).
func TestM2_CausalitySlope(t *testing.T) {
	r := measure[*CausalityResult](t, "m2-causality")
	for _, row := range r.Rows {
		assert.InDelta(t, 1.0, row.Slopes.At("truth"), exactSlopeDelta, "truth's slope, %s/%s", row.Benchmark, row.Method)
	}
	for _, p := range causalityProfilers {
		assert.Less(t, r.Mean(p).Hi(), causalitySlopeMax, p)
	}
}

// TestM7_NoInlining: without inlining tprof's mean slope is in [0.9, 1.1]
// (paper 0.99) with a 95 % CI half-width below 0.15, the truth's slope is
// in [0.9, 1.1] on every pair (positive control), and the safepoint
// samplers stay < 0.5. The claim's "somewhat better" than with inlining
// is not asserted: the model's hot leaves have no poll either way
// (REPRODUCTIONS.md, M7: partly).
func TestM7_NoInlining(t *testing.T) {
	r := measure[*CausalityResult](t, "m7-no-inlining")
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

// TestM5_Autocorrelation: tprof's interval autocorrelation leaves the
// ±2/√N band at ≤ 5 % of lags 1…100 (mean over seeds). On a perfect clock
// (jitter=0) the safepoint samplers leave it at least twice as often and
// at ≥ m5Systematic of lags: their intervals carry the time to the next
// poll, which depends on where the periodic program is. At the timer
// jitter measured for their sampler threads — the paper's setup, real
// timers — they do not (TestDivergence_M5).
func TestM5_Autocorrelation(t *testing.T) {
	r := measure[*M5Result](t, "m5-autocorrelation")
	tp := r.Share("tprof").Mean
	assert.LessOrEqual(t, tp, m5TprofMax)
	for _, p := range []string{"xprof", "hprof"} {
		g := r.Share(p + ":grid").Mean
		assert.GreaterOrEqual(t, g, m5Systematic, "%s on a perfect clock", p)
		assert.Greater(t, g, 2*tp, "%s on a perfect clock", p)
		if s := r.Share(p).Mean; s < m5Systematic {
			diverges(t, "%s at its measured jitter leaves the band at %.0f %% of lags, not systematically", p, 100*s)
		}
	}
}

// TestDivergence_M5 pins the documented divergence (REPRODUCTIONS.md, M5):
// at the timer jitter measured for their sampler threads, xprof's and
// hprof's intervals are as uncorrelated as tprof's (below m5Systematic).
func TestDivergence_M5(t *testing.T) {
	r := measure[*M5Result](t, "m5-autocorrelation")
	for _, p := range []string{"xprof", "hprof"} {
		assert.Less(t, r.Share(p).Mean, m5Systematic, "%s at its measured jitter", p)
	}
}

// Tolerances of the Arnold & Grove claims (CLAIMS.md A1–A4).
const (
	// a1TimerRatioMin reads "jikes-timer … records call_1 far more than
	// call_2" as at least 10× on every run (paper Fig. 1: call_2 missed).
	a1TimerRatioMin = 10.0
	// a1CBSRatioMin and a1CBSRatioMax read "cbs with STRIDE ≥ 2 records
	// them about equally" as call_1 / call_2 within ±25 % (1/1.25 = 0.8
	// to 1.25) on every run.
	a1CBSRatioMin = 0.8
	a1CBSRatioMax = 1.25
	// a2BaseMax: "the base (1, 1) sits well below 50 %" (the claim's
	// number; paper 38 %).
	a2BaseMax = 50.0
	// a2DoublingMin reads "a setting like (3, 32) roughly doubles it" as
	// at least 1.6× the base (paper 66 % vs 38 %, 1.74×).
	a2DoublingMin = 1.6
	// a2RiseSlack: "accuracy rises with SAMPLES" may dip by up to 2
	// points between neighbouring cells, a margin chosen for sampling
	// noise when the test was written (not derived from a CI).
	a2RiseSlack = 2.0
	// a2StrideGain: "rises with STRIDE": STRIDE 15 is more than 2 points
	// above STRIDE 1 at every SAMPLES, the same margin as a2RiseSlack.
	a2StrideGain = 2.0
	// a2OverheadMax: "at < 1 % overhead" (the claim's words; paper 0.3 %).
	a2OverheadMax = 1.0
	// a2HugeRatio and a2HugeMin read "very large STRIDE × SAMPLES costs
	// large overhead" as (1024, 63) over 10× the overhead of (32, 3) and
	// over 5 % (paper: 1008 %).
	a2HugeRatio = 10.0
	a2HugeMin   = 5.0
	// a3WinsMin reads "CBS ≥ base on nearly every stand-in" as on at
	// least 90 % of (stand-in, input) pairs.
	a3WinsMin = 0.9
	// a3GapMin: CBS beats the base by more than 10 points on average for
	// each input size — about half the paper's smaller gap (§6: 29 points
	// on small inputs, 19 on large).
	a3GapMin = 10.0
	// a4TieSlack: "at least the speed-up of the timer-driven one" allows
	// CBS 0.25 points below the timer as a tie, a margin chosen when the
	// test was written; in A4's table a single speed-up's 95 % CI over 3
	// seeds is 0.0–2.1 points, most 0.1–0.3.
	a4TieSlack = 0.25
	// a4JavacGainMin reads "and more on the javac-like stand-in" as
	// CBS's gain over the timer largest on javac and above 0.5 points
	// (paper +4 %).
	a4JavacGainMin = 0.5
)

// TestA1_CallPair: jikes-timer records call_1 at least 10× as often as
// call_2 on every run (truth: equal); CBS with STRIDE ≥ 2 records them
// within ±25 % on every run — the unbiased mechanism passes where the
// biased one fails. Fails if CBS took one sample per window at the first
// yield point (it would then be the timer mechanism, see
// TestCBSStride1Samples1IsJikesTimer).
func TestA1_CallPair(t *testing.T) {
	r := measure[*A1Result](t, "a1-callpair")
	for _, x := range r.Ratios("jikes-timer") {
		assert.GreaterOrEqual(t, x, a1TimerRatioMin)
	}
	for _, x := range r.Ratios("cbs") {
		assert.GreaterOrEqual(t, x, a1CBSRatioMin)
		assert.LessOrEqual(t, x, a1CBSRatioMax)
	}
}

// TestA2_Grid: CBS accuracy (means over stand-ins and seeds) rises with
// SAMPLES and with STRIDE; the base (1, 1) is below 50 % (paper 38 %);
// (SAMPLES 32, STRIDE 3) at least 1.6× the base (paper 66 % vs 38 %) at
// < 1 % overhead; (1024, 63) costs over 10× as much. Fails if CBS ignored
// STRIDE (accuracy flat across strides).
func TestA2_Grid(t *testing.T) {
	r := measure[*A2Result](t, "a2-grid")
	acc := func(n, s int) float64 { return r.Accuracy(n, s).Mean }
	base := acc(1, 1)
	assert.Less(t, base, a2BaseMax)
	assert.GreaterOrEqual(t, acc(32, 3), a2DoublingMin*base)
	for _, s := range a2Strides {
		for i := 1; i < len(a2Samples); i++ {
			assert.GreaterOrEqual(t, acc(a2Samples[i], s), acc(a2Samples[i-1], s)-a2RiseSlack, "rises with SAMPLES (stride %d)", s)
		}
	}
	for _, n := range a2Samples {
		assert.Greater(t, acc(n, 15), acc(n, 1)+a2StrideGain, "rises with STRIDE (samples %d)", n)
	}
	mid, huge := r.Overhead(32, 3).Mean, r.Overhead(1024, 63).Mean
	assert.Less(t, mid, a2OverheadMax)
	assert.Greater(t, huge, a2HugeRatio*mid)
	assert.Greater(t, huge, a2HugeMin)
}

// TestA3_InputSize: accuracy is higher on large inputs than on small ones,
// for the base mechanism and for CBS (means over stand-ins and seeds;
// paper means: base 26 → 50 %, CBS 55 → 69 %); CBS ≥ base on at least 90 %
// of (stand-in, input) pairs and by more than 10 points on average.
func TestA3_InputSize(t *testing.T) {
	r := measure[*A3Result](t, "a3-input-size")
	sb, sc := r.Mean("small", false).Mean, r.Mean("small", true).Mean
	lb, lc := r.Mean("large", false).Mean, r.Mean("large", true).Mean
	assert.Greater(t, lb, sb)
	assert.Greater(t, lc, sc)
	assert.GreaterOrEqual(t, r.CBSWins(), a3WinsMin)
	assert.Greater(t, sc, sb+a3GapMin)
	assert.Greater(t, lc, lb+a3GapMin)
}

// TestM9_Actionable: speeding up tprof's top method by 50 % gains what
// tprof predicts within 5 points on every stand-in (mean |error| over
// seeds; paper: within 2 %); xprof's top method gains less than half of
// what xprof predicts on most of them. The first half is the positive
// control: an unbiased sampler's advice holds where a biased one's fails.
func TestM9_Actionable(t *testing.T) {
	r := measure[*M9Result](t, "m9-actionable")
	for _, b := range causalityBenchmarks {
		e := r.AbsError("tprof", b.name)
		assert.Equal(t, len(r.Seeds), e.N, "%s: a tprof observation per seed", b.name)
		assert.LessOrEqual(t, e.Mean, m9TprofPoints, "%s: tprof's prediction", b.name)
	}
	assert.GreaterOrEqual(t, r.Shortfalls("xprof"), m9Shortfalls, "of %d stand-ins", len(causalityBenchmarks))
}

// TestM3_Disagreement: four safepoint profilers that differ only in their
// observer effect (interval handling, agent CPU, allocation, depth), each
// costed alone: mean Union_n grows with n and its 95 % CI stays above n
// for n ≥ 2, Union_1's mean above 1. The claim's "Union_1 > 1 on at least
// 3 of the 7" and "clearly above n" for n = 1 are not met
// (TestDivergence_M3).
func TestM3_Disagreement(t *testing.T) {
	r := measure[*M3Result](t, "m3-disagreement")
	if n := r.Union1Above1(); n < m3Union1Claim {
		diverges(t, "Union_1 > 1 on %d of 7 stand-ins (claim: at least %d)", n, m3Union1Claim)
	}
	assertUnionGrows(t, r)
}

// assertUnionGrows asserts M3's Union_n shape: mean Union_1 above 1 (its
// CI not clearly so is logged as a divergence), and for n ≥ 2 a 95 % CI
// above n and a mean that grows with n.
func assertUnionGrows(t *testing.T, r *M3Result) {
	t.Helper()
	for n := 1; n <= m3MaxN; n++ {
		u := r.Mean(n)
		if n == 1 {
			assert.Greater(t, u.Mean, 1.0, "Union_1 above 1")
			if u.Lo() <= 1 {
				diverges(t, "Union_1 = %v is not clearly above 1", u)
			}
			continue
		}
		assert.Greater(t, u.Lo(), float64(n), "Union_%d clearly above %d", n, n)
		assert.GreaterOrEqual(t, u.Mean, r.Mean(n-1).Mean, "grows with n")
	}
}

// TestDivergence_M3 pins the documented divergence (REPRODUCTIONS.md, M3):
// the hottest method differs on m3Union1Above1 of the 7 stand-ins.
func TestDivergence_M3(t *testing.T) {
	r := measure[*M3Result](t, "m3-disagreement")
	assert.GreaterOrEqual(t, r.Union1Above1(), m3Union1Above1)
}

// TestM4_Innocuous: where two profilers disagree on the hottest method,
// fewer than half of the pairs are caller and callee (transitively).
func TestM4_Innocuous(t *testing.T) {
	assertFewPairsRelated(t, measure[*M4Result](t, "m4-innocuous"))
}

// assertFewPairsRelated asserts M4's shape: enough disagreeing pairs, and
// fewer than half of them caller and callee.
func assertFewPairsRelated(t *testing.T, r *M4Result) {
	t.Helper()
	require.GreaterOrEqual(t, len(r.Pairs), m4MinPairs)
	assert.Less(t, float64(r.Related())/float64(len(r.Pairs)), m4RelatedMax)
}

// TestM8_Overhead: the costed safepoint profilers slow the stand-ins down
// (every run ≥ 1×: a profiler never speeds a program up) and jprofile,
// the heaviest agent, costs more than xprof, the lightest. The claim's
// means of 1.1–1.5× are not met: per cents, not tens of per cent
// (TestDivergence_M8).
func TestM8_Overhead(t *testing.T) {
	r := measure[*M8Result](t, "m8-overhead")
	for _, p := range m8Profilers {
		for _, x := range r.Runs(p) {
			assert.GreaterOrEqual(t, x, 1.0, p)
		}
		if m := r.Mean(p); m.Mean < m8ClaimMeanMin {
			diverges(t, "%s's mean slowdown %.3f× (claim: %.1f–1.5×)", p, m.Mean, m8ClaimMeanMin)
		}
	}
	assert.Greater(t, r.Mean("jprofile").Mean, r.Mean("xprof").Mean)
}

// TestDivergence_M8 pins the documented divergence (REPRODUCTIONS.md, M8):
// every costed run stays below 1.1× (paper 1.0–2.2×, means 1.1–1.5×).
func TestDivergence_M8(t *testing.T) {
	r := measure[*M8Result](t, "m8-overhead")
	for _, p := range m8Profilers {
		for _, x := range r.Runs(p) {
			assert.Less(t, x, m8DivergenceMax, p)
		}
	}
}

// TestA4_Inlining: an inliner reading CBS's call graph gains at least what
// one reading the timer's gains on every stand-in (within 0.25 points),
// and most on javac (paper: +4 % on javac in Jikes RVM); J9-style dynamic
// heuristics, which refuse to inline what the profile calls cold, slow the
// programs down on average when fed the timer's inaccurate graph but not
// CBS's (paper: timer-driven J9 hurts 6 of 8 benchmarks).
func TestA4_Inlining(t *testing.T) {
	r := measure[*A4Result](t, "a4-inlining")
	best, bestGain := "", -1.0
	for _, b := range r.Benches {
		gain := r.Speedup(b, "jikes", "cbs").Mean - r.Speedup(b, "jikes", "timer").Mean
		assert.GreaterOrEqual(t, gain, -a4TieSlack, "%s: jikes cbs vs timer", b)
		assert.GreaterOrEqual(t, r.Speedup(b, "j9", "cbs").Mean, r.Speedup(b, "j9", "timer").Mean-a4TieSlack, "%s: j9 cbs vs timer", b)
		if gain > bestGain {
			best, bestGain = b, gain
		}
	}
	assert.Equal(t, "javac", best, "CBS's largest gain over the timer")
	assert.Greater(t, bestGain, a4JavacGainMin)
	assert.Less(t, r.Mean("j9", "timer"), 0.0, "timer-driven dynamic heuristics slow down")
	assert.Greater(t, r.Mean("j9", "cbs"), 0.0)
	assert.Greater(t, r.Mean("jikes", "cbs"), r.Mean("jikes", "timer"))
}

// TestM6_ObserverEffect: turning on a second costed profiler moves xprof's
// hotness of its hottest method by several points (mean ≥ 2, some stand-in
// ≥ 4; paper: up to ≈ 20). Positive control: without a companion the same
// seed gives the same profile, so the change is the companion's doing,
// not noise. The yield-point half of the claim is measured and does not
// reproduce (TestDivergence_M6).
func TestM6_ObserverEffect(t *testing.T) {
	assertObserverEffect(t, measure[*M6Result](t, "m6-observer"))
	a, err := m6Once("antlr", 1, 200*sim.Millisecond, []string{"xprof"})
	require.NoError(t, err)
	b, err := m6Once("antlr", 1, 200*sim.Millisecond, []string{"xprof"})
	require.NoError(t, err)
	assert.Equal(t, a.hotness, b.hotness, "xprof alone, same seed: identical")
}

// assertObserverEffect asserts M6's shape: a second costed profiler moves
// xprof's hotness of its hottest methods by several points; identical
// yield points in the hottest methods are logged as the divergence.
func assertObserverEffect(t *testing.T, r *M6Result) {
	t.Helper()
	assert.GreaterOrEqual(t, r.MeanDelta(), m6MeanDelta)
	assert.GreaterOrEqual(t, r.MaxDelta(), m6MaxDelta)
	require.Positive(t, r.PollsCompared())
	if r.PollDiffs() == 0 {
		diverges(t, "the JIT's yield points in the 10 hottest methods are identical under xprof and hprof (%d methods compared)", r.PollsCompared())
	}
}

// TestDivergence_M6 pins the documented divergence (REPRODUCTIONS.md, M6):
// the companion profiler changes no compiled method's poll sites.
func TestDivergence_M6(t *testing.T) {
	r := measure[*M6Result](t, "m6-observer")
	require.Positive(t, r.PollsCompared())
	assert.Zero(t, r.PollDiffs())
}

// checkTableGolden compares an experiment's table at the test's default
// options (the stand-ins, seeds 1-3, the test sizes) with its golden,
// testdata/tables/NAME.md: same seeds, same table, byte for byte, so a
// change that moves any number of any experiment shows, however small.
// The table is rendered again from r.Data without the papers' reference
// columns (referencesOff), which depend on ../shared being present.
// -study.update-tables rewrites it.
func checkTableGolden(t *testing.T, name string, r *Result) {
	t.Helper()
	rd, ok := r.Data.(renderer)
	require.True(t, ok, "%s: a typed result renders its table", name)
	referencesOff = true
	rr, err := rd.render()
	referencesOff = false
	require.NoError(t, err, name)
	table := rr.Table.Markdown()
	path := filepath.Join("testdata", "tables", name+".md")
	if *updateTables {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(table), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "%s has no golden table: go test ./study -run ... -study.update-tables writes it", name)
	assert.Equal(t, string(want), table, "%s's table changed: if that is meant, regenerate with go test ./study -study.update-tables and say why in the commit", name)
}
