package main

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/report"
	"github.com/profsim/profsim/samplers"
)

// The lab's tests (docs/LAB.md, answers in docs/LAB-ANSWERS.md): each
// exercise's commands, exactly as the lab prints them, run in-process
// with --format json added; each asserts the observation the answer key
// explains. A command missing from LAB.md fails the test, so the lab and
// its tests cannot drift apart.

// Tolerances. A sampler that samples at instants unrelated to the
// program (tprof's randomised timer, async's signal on a program without
// a period, jfr's drifting sleep) reports a share whose error is that of
// n independent draws: binomial, sd = sqrt(p(1-p)/n). A "within the
// truth" check allows labSigmas of those plus labFloor.
const (
	// labSigmas: three binomial standard deviations; a correct mechanism
	// lands outside them in 0.3 % of seeds, a biased one (tens of points
	// off, every exercise below) far outside.
	labSigmas = 3.0
	// labFloor: the truth counts the whole run from 0 ns, a sampler from
	// its first tick at one interval: up to one of its ~200 intervals
	// (0.5 %) at each end of the run is seen by one and not the other.
	labFloor = 0.01
)

// within is labSigmas binomial sds of a share p from n samples, plus
// labFloor.
func within(p float64, n int64) float64 {
	return labSigmas*math.Sqrt(p*(1-p)/float64(n)) + labFloor
}

// labMarkdown is docs/LAB.md, read once.
func labMarkdown(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "LAB.md"))
	require.NoError(t, err)
	return string(b)
}

// labArgs checks that cmd appears in LAB.md verbatim and returns its
// arguments as this test runs them: without "./profsim", workload files
// under examples/ found from this package's directory, and each output
// file (--out, --png, --trace) moved into dir.
func labArgs(t *testing.T, lab, cmd, dir string) []string {
	t.Helper()
	require.Contains(t, lab, "\n"+cmd+"\n", "docs/LAB.md must show the command the test runs")
	fields := strings.Fields(cmd)
	require.Equal(t, "./profsim", fields[0])
	args := fields[1:]
	for i := 1; i < len(args); i++ {
		switch args[i-1] {
		case "--workload":
			if strings.HasPrefix(args[i], "examples/") {
				args[i] = filepath.Join("..", "..", args[i])
			}
		case "--out", "--png", "--trace":
			args[i] = filepath.Join(dir, args[i])
		}
	}
	return args
}

// labRun runs a `profsim run` command of the lab with --format json and
// decodes its report.
func labRun(t *testing.T, lab, cmd string) report.Report {
	t.Helper()
	args := append(labArgs(t, lab, cmd, t.TempDir()), "--format", "json")
	code, out, errOut := runMain(args...)
	require.Equal(t, 0, code, "%s: %s", cmd, errOut)
	var r report.Report
	require.NoError(t, json.Unmarshal([]byte(out), &r), cmd)
	return r
}

// labTimeline runs a `profsim timeline` command of the lab and checks it
// drew at least one sample into both files.
func labTimeline(t *testing.T, lab, cmd string) {
	t.Helper()
	dir := t.TempDir()
	code, out, errOut := runMain(labArgs(t, lab, cmd, dir)...)
	require.Equal(t, 0, code, "%s: %s", cmd, errOut)
	m := regexp.MustCompile(`, (\d+) samples,`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	n, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	assert.Positive(t, n, "%s: the window must hold a sample to look at", cmd)
	for _, ext := range []string{"svg", "png"} {
		matches, err := filepath.Glob(filepath.Join(dir, "*."+ext))
		require.NoError(t, err)
		require.Len(t, matches, 1, "%s: one .%s", cmd, ext)
		st, err := os.Stat(matches[0])
		require.NoError(t, err)
		assert.Positive(t, st.Size())
	}
}

func profileOf(t *testing.T, r report.Report, id string) report.Profile {
	t.Helper()
	p, ok := r.Profiles[id]
	require.True(t, ok, "no profile %q in %v", id, r.Order)
	return p
}

// selfShare is method's self share in profile id. A profile lists only
// the methods it charged; the truth lists every method that ran, so a
// method the truth lists and the profile does not has share 0, and one
// the truth does not list fails the test (a misspelt name reads no 0).
func selfShare(t *testing.T, r report.Report, id, method string) float64 {
	t.Helper()
	for _, m := range profileOf(t, r, id).Methods {
		if m.Method == method {
			return m.SelfShare
		}
	}
	for _, m := range profileOf(t, r, "truth").Methods {
		if m.Method == method {
			return 0
		}
	}
	require.Failf(t, "method missing", "%s: no %s in its profile nor in the truth's", id, method)
	return 0
}

// frameShare is a's share of the samples charged to a or b.
func frameShare(t *testing.T, r report.Report, id, a, b string) (share float64, n int64) {
	t.Helper()
	sa, sb := selfShare(t, r, id, a), selfShare(t, r, id, b)
	require.Positive(t, sa+sb, "%s: nothing in %s or %s", id, a, b)
	return sa / (sa + sb), int64(math.Round((sa + sb) * float64(profileOf(t, r, id).Samples)))
}

// edgeShare is caller → callee's share of profile id's edge samples.
func edgeShare(t *testing.T, r report.Report, id, caller, callee string) float64 {
	t.Helper()
	p := profileOf(t, r, id)
	var total, n int64
	found := false
	for _, e := range p.Edges {
		total += e.Count
		if e.Caller == caller && e.Callee == callee {
			n, found = n+e.Count, true
		}
	}
	require.True(t, found, "%s: no edge %s → %s in %v", id, caller, callee, p.Edges)
	return float64(n) / float64(total)
}

func biasOf(t *testing.T, r report.Report, id string) report.BiasMatrix {
	t.Helper()
	require.NotNil(t, r.Bias, "run without --why")
	for _, b := range r.Bias.Samplers {
		if b.Sampler == id {
			require.Positive(t, b.Samples, id)
			return b
		}
	}
	require.Failf(t, "no bias matrix", "%s", id)
	return report.BiasMatrix{}
}

// charged is the share of the samples requested while the thread was in
// from that were charged to to (a row of the matrix, normalised).
func charged(t *testing.T, b report.BiasMatrix, from, to string) float64 {
	t.Helper()
	i, j := index(b.Methods, from), index(b.Methods, to)
	require.True(t, i >= 0 && j >= 0, "%s: %s or %s not in %v", b.Sampler, from, to, b.Methods)
	var row int64
	for _, c := range b.Counts[i] {
		row += c
	}
	require.Positive(t, row, "%s: no sample requested in %s", b.Sampler, from)
	return float64(b.Counts[i][j]) / float64(row)
}

// mechanismShare is the share of b's samples taken by mechanism m, which
// must occur.
func mechanismShare(t *testing.T, b report.BiasMatrix, m string) float64 {
	t.Helper()
	n, ok := b.Mechanisms[m]
	require.True(t, ok, "%s: no sample taken by %s (%v)", b.Sampler, m, b.Mechanisms)
	return float64(n) / float64(b.Samples)
}

// Exercise 1: safepoint bias on Listing 1 (claim M1).
const (
	// safepointBlameMin: M1, "a safepoint sampler puts ≥ 95 % of samples
	// in cold()" (paper: xprof 99.8 %).
	safepointBlameMin = 0.95
	// exactDiagonalMin: async and tprof take the sample where the signal
	// lands; without inlining every compiled method is one Java method,
	// so only a sample at a call's boundary could be charged elsewhere.
	exactDiagonalMin = 0.99
	// mostMin: "almost every sample" of one mechanism or one cell, where
	// the mechanism puts all steady-state samples there and only the
	// start-up (interpreted, a few % of the run) may differ.
	mostMin = 0.9
)

func TestLab1SafepointBias(t *testing.T) {
	lab := labMarkdown(t)
	r := labRun(t, lab, "./profsim run --workload hotcold --vm hotspot6 --inline=false --samplers truth,safepoint,xprof,hprof,async,tprof --why")
	truth := selfShare(t, r, "truth", "HotCold.hot")
	require.Greater(t, truth, mostMin, "the premise: hot() does almost all the work")
	for _, id := range []string{"safepoint", "xprof", "hprof"} {
		assert.LessOrEqual(t, selfShare(t, r, id, "HotCold.hot"), 1-safepointBlameMin, "%s blames cold()", id)
		assert.GreaterOrEqual(t, selfShare(t, r, id, "HotCold.cold"), safepointBlameMin, id)
		b := biasOf(t, r, id)
		assert.GreaterOrEqual(t, charged(t, b, "HotCold.hot", "HotCold.cold"), safepointBlameMin,
			"%s: samples requested in hot() are charged to cold()", id)
		assert.GreaterOrEqual(t, mechanismShare(t, b, "poll:return"), mostMin,
			"%s: taken at the poll of hot()'s return, in cold()", id)
	}
	for _, id := range []string{"async", "tprof"} {
		p := profileOf(t, r, id)
		got := selfShare(t, r, id, "HotCold.hot")
		assert.InDelta(t, truth, got, within(truth, p.Samples), "%s finds hot()", id)
		assert.GreaterOrEqual(t, biasOf(t, r, id).Diagonal, exactDiagonalMin, id)
		t.Logf("%s: hot %.1f %% (truth %.1f %%)", id, 100*got, 100*truth)
	}
	t.Logf("safepoint: hot %.1f %%, its samples taken at hot()'s return %.1f %%",
		100*selfShare(t, r, "safepoint", "HotCold.hot"), 100*mechanismShare(t, biasOf(t, r, "safepoint"), "poll:return"))
	labTimeline(t, lab, "./profsim timeline --workload hotcold --vm hotspot6 --inline=false --sampler safepoint,interval=1ms --sampler async,interval=1ms --from 1s --window 5ms --out ex1.svg --png ex1.png")
}

// Exercise 2: yield points on call edges (claim A1).
const (
	// callpairBodyNS: callpair.yaml's loop body, 1200 cycles of work at
	// the default 1 GHz before call_1's prologue; a tick that lands in it
	// waits less than that for the prologue's yield point once compiled.
	callpairBodyNS = 1200
	// cbsEvenTol: A1, cbs with STRIDE ≥ 2 records the two edges "about
	// equally": its windows of 32 samples, every third yield point of an
	// alternating call_1/call_2 sequence, split them evenly (truth 50 %).
	cbsEvenTol = 0.05
	// equalCallsTol: M calls call_1 and call_2 once each per iteration;
	// only the iteration the run's end cuts may count one call more.
	equalCallsTol = 1e-3
	// inflateMin: the safepoint sampler charges to call_1 every tick that
	// lands in M's loop body (about 97 % of the time) against call_1's
	// true self time (about 2 %): some 50×; a tenth of that leaves room
	// for the start-up, whose samples land elsewhere.
	inflateMin = 10.0
)

func TestLab2YieldPointsOnCallEdges(t *testing.T) {
	lab := labMarkdown(t)
	r := labRun(t, lab, "./profsim run --workload callpair --vm jikes --inline=false --samplers truth,safepoint,async,cbs,jikes-timer --why")
	assert.InDelta(t, 0.5, edgeShare(t, r, "truth", "CallPair.M", "CallPair.call_1"), equalCallsTol, "the premise: equal calls")
	timer := edgeShare(t, r, "jikes-timer", "CallPair.M", "CallPair.call_1")
	assert.GreaterOrEqual(t, timer, mostMin, "A1: the timer's flag is taken at call_1's prologue")
	cbs := edgeShare(t, r, "cbs", "CallPair.M", "CallPair.call_1")
	assert.InDelta(t, 0.5, cbs, cbsEvenTol, "A1: cbs's stride walks on to both edges")
	sp := biasOf(t, r, "safepoint")
	assert.GreaterOrEqual(t, charged(t, sp, "CallPair.M", "CallPair.call_1"), mostMin,
		"safepoint: samples requested in M's loop are charged to call_1")
	assert.GreaterOrEqual(t, mechanismShare(t, sp, "poll:prologue"), mostMin)
	assert.Less(t, sp.WaitMedianNS, int64(callpairBodyNS), "--why prints the median wait: less than a loop body")
	truth := selfShare(t, r, "truth", "CallPair.call_1")
	assert.Greater(t, selfShare(t, r, "safepoint", "CallPair.call_1"), inflateMin*truth, "safepoint inflates call_1")
	assert.GreaterOrEqual(t, biasOf(t, r, "async").Diagonal, exactDiagonalMin)
	t.Logf("jikes-timer: call_1 edge %.1f %%; cbs %.1f %%; safepoint: call_1 self %.1f %% (truth %.1f %%), poll:prologue %.1f %%",
		100*timer, 100*cbs, 100*selfShare(t, r, "safepoint", "CallPair.call_1"), 100*truth, 100*mechanismShare(t, sp, "poll:prologue"))

	// The trace: each sample's story.
	dir := t.TempDir()
	cmd := "./profsim run --workload callpair --vm jikes --inline=false --samplers safepoint --trace ex2.jsonl"
	code, _, errOut := runMain(labArgs(t, lab, cmd, dir)...)
	require.Equal(t, 0, code, errOut)
	f, err := os.Open(filepath.Join(dir, "ex2.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	var waits []int64
	var all int
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec samplers.TraceRecord
		require.NoError(t, json.Unmarshal(sc.Bytes(), &rec))
		all++
		if rec.TrueMethod == "CallPair.M" && rec.RecordedMethod == "CallPair.call_1" {
			assert.Equal(t, "poll:prologue", rec.Mechanism)
			waits = append(waits, rec.WaitNS)
		}
	}
	require.NoError(t, sc.Err())
	require.GreaterOrEqual(t, float64(len(waits)), mostMin*float64(all), "most lines: requested in M, recorded in call_1")
	sort.Slice(waits, func(i, j int) bool { return waits[i] < waits[j] })
	median := waits[len(waits)/2]
	assert.Less(t, median, int64(callpairBodyNS), "the prologue is less than one loop body away")
	t.Logf("trace: %d of %d samples requested in M and recorded in call_1, median wait %d ns", len(waits), all, median)
	labTimeline(t, lab, "./profsim timeline --workload callpair --vm jikes --inline=false --samplers safepoint --from 1000020us --window 10us --out ex2.svg --png ex2.png")
}

// Exercise 3: aliasing of a fixed interval.
// aliasedMin: on examples/periodic.yaml a tick every 10 or 20 ms (five or
// ten 2 ms frames) lands mid-way through Game.update in every frame
// (periodic.yaml, Game.main line 1), so every steady-state sample is
// update's; only the first ~0.3 s (interpreted and compiling, frames of
// other lengths: 15 % of the 2 s run) spreads. Truth: about 27 %.
const aliasedMin = 0.8

// periodicUpdate is Game.update's share of a frame in the truth:
// periodic.yaml's 0.5 ms of 2 ms once compiled, "a little more in the
// whole run, which starts interpreted"; periodicTol the premise's slack.
const (
	periodicUpdate = 0.27
	periodicTol    = 0.05
)

func TestLab3Aliasing(t *testing.T) {
	lab := labMarkdown(t)
	r := labRun(t, lab, "./profsim run --workload examples/periodic.yaml --samplers truth,tprof,async,jfr --sampler tprof:perfect,random=0 --sampler async:perfect,jitter=0 --sampler jfr:perfect,jitter=0 --why")
	truth, _ := frameShare(t, r, "truth", "Game.update", "Game.draw")
	require.InDelta(t, periodicUpdate, truth, periodicTol, "the premise: update is about a quarter of a frame")
	// On the grid: a perfect clock, and async's 10 µs lateness that
	// never accumulates.
	for _, id := range []string{"tprof:perfect", "async:perfect", "jfr:perfect", "async"} {
		got, _ := frameShare(t, r, id, "Game.update", "Game.draw")
		assert.GreaterOrEqual(t, got, aliasedMin, "%s aliases", id)
		t.Logf("%s: update %.1f %% of the frame (truth %.1f %%)", id, 100*got, 100*truth)
	}
	// Off the grid: tprof's ±3 ms, jfr's 375 µs a round accumulating.
	for _, id := range []string{"tprof", "jfr"} {
		got, n := frameShare(t, r, id, "Game.update", "Game.draw")
		assert.InDelta(t, truth, got, within(truth, n), "%s's ticks wander over the frame", id)
		t.Logf("%s: update %.1f %% of the frame over %d samples", id, 100*got, n)
	}
	// Aliasing is a bias of when, not where: every aliased sample is
	// charged to the method the thread was in.
	for _, id := range []string{"async", "async:perfect", "jfr:perfect"} {
		assert.GreaterOrEqual(t, biasOf(t, r, id).Diagonal, exactDiagonalMin, "%s: its matrix is diagonal", id)
	}
	it := labRun(t, lab, "./profsim run --workload examples/periodic.yaml --samplers truth --sampler async:itimer,engine=itimer --sampler async:late,jitter=2ms --why")
	got, _ := frameShare(t, it, "async:itimer", "Game.update", "Game.draw")
	assert.GreaterOrEqual(t, got, aliasedMin, "async:itimer fires on the 4 ms kernel tick, two frames: it aliases")
	late, n := frameShare(t, it, "async:late", "Game.update", "Game.draw")
	assert.InDelta(t, truth, late, within(truth, n), "async:late's 2 ms lateness spreads its ticks over the frame")
	t.Logf("async:itimer: update %.1f %% of the frame; async:late %.1f %%", 100*got, 100*late)
	labTimeline(t, lab, "./profsim timeline --workload examples/periodic.yaml --samplers tprof --sampler tprof:perfect,random=0 --from 1s --window 50ms --out ex3.svg --png ex3.png")
}

// Exercise 4: debug information and inlining (claim X1).
func TestLab4DebugInfo(t *testing.T) {
	lab := labMarkdown(t)
	off := labRun(t, lab, "./profsim run --workload hotcold --samplers truth,async,jfr,tprof --why")
	on := labRun(t, lab, "./profsim run --workload hotcold --samplers truth,async,jfr,tprof --why --debug-non-safepoints")
	truth := selfShare(t, off, "truth", "HotCold.hot")
	require.Greater(t, truth, mostMin, "the premise: hot() does almost all the work")
	assert.Equal(t, truth, selfShare(t, on, "truth", "HotCold.hot"), "debug information changes no execution")
	for _, id := range []string{"async", "jfr", "tprof"} {
		assert.LessOrEqual(t, selfShare(t, off, id, "HotCold.hot"), 1-safepointBlameMin, "%s without DebugNonSafepoints", id)
		assert.GreaterOrEqual(t, charged(t, biasOf(t, off, id), "HotCold.hot", "HotCold.cold"), safepointBlameMin, id)
	}
	for _, id := range []string{"async", "jfr"} {
		got := selfShare(t, on, id, "HotCold.hot")
		assert.InDelta(t, truth, got, within(truth, profileOf(t, on, id).Samples), "X1: %s with DebugNonSafepoints", id)
		assert.GreaterOrEqual(t, biasOf(t, on, id).Diagonal, mostMin, id)
		t.Logf("%s: hot %.1f %% without, %.1f %% with DebugNonSafepoints (truth %.1f %%)",
			id, 100*selfShare(t, off, id, "HotCold.hot"), 100*got, 100*truth)
	}
	// tprof reads no debug information: it names the compiled method,
	// and hot() is compiled into cold().
	assert.LessOrEqual(t, selfShare(t, on, "tprof", "HotCold.hot"), 1-safepointBlameMin, "tprof names the compiled method")
	labTimeline(t, lab, "./profsim timeline --workload hotcold --sampler async,interval=1ms --from 1s --window 5ms --out ex4.svg --png ex4.png")
}

// Exercise 5: the observer effect (claim M6).
const (
	// slowdownMin: the walks and the agent cost 1.1 µs + 20 µs a sample,
	// ~2 % at 1 ms; each costed safepoint also keeps the thread parked
	// from its poll until the VM thread's next re-check, every 1.1 ms
	// past the first ms (safepoint.sync_recheck_late, HotSpot's
	// SafepointSynchronize back_off) — on average half of that. A
	// slowdown of 1.3× or more is the re-check, not the walks.
	slowdownMin = 1.3
	// pausedShareMin: that slowdown is the thread's safepoint pauses,
	// not extra work: the pauses account for (nearly) all of it.
	pausedShareMin = 0.8
	// appCPUTol: the program does the same work under the profiler; only
	// the JIT's timing moves, by a fraction of a per cent.
	appCPUTol = 0.01
	// fewerSamplesMin: with hprof's safepoints queued between its own,
	// jvmti (paced: it waits only the interval less the last sample's
	// time) is served after hprof's: at least a quarter fewer samples.
	fewerSamplesMin = 0.25
	// hotShiftMin: M6, "turning on a second profiler changes the first
	// profiler's hotness of the hottest method by several points".
	hotShiftMin = 0.03
	// truthShiftMax: the truth is the program, not the profilers: its
	// shares move only with the JIT's timing.
	truthShiftMax = 0.005
)

func TestLab5ObserverEffect(t *testing.T) {
	lab := labMarkdown(t)
	passive := labRun(t, lab, "./profsim run --workload callpair --duration 10s --samplers truth --sampler jvmti,interval=1ms")
	costed := labRun(t, lab, "./profsim run --workload callpair --duration 10s --samplers truth --sampler jvmti,interval=1ms --mode costed")
	both := labRun(t, lab, "./profsim run --workload callpair --duration 10s --samplers truth --sampler jvmti,interval=1ms --sampler hprof,interval=1ms --mode costed")
	require.Less(t, passive.SimulatedNS, int64(10e9), "the premise: the program ends before --duration")
	require.Less(t, costed.SimulatedNS, int64(10e9))
	require.Less(t, both.SimulatedNS, int64(10e9))
	pj, cj, bj := profileOf(t, passive, "jvmti"), profileOf(t, costed, "jvmti"), profileOf(t, both, "jvmti")
	require.NotNil(t, pj.Costs)
	require.NotNil(t, cj.Costs)
	assert.Zero(t, pj.Costs.PauseNS, "passive: free")
	slowdown := float64(costed.SimulatedNS) / float64(passive.SimulatedNS)
	assert.GreaterOrEqual(t, slowdown, slowdownMin)
	assert.GreaterOrEqual(t, float64(cj.Costs.PauseNS), pausedShareMin*float64(costed.SimulatedNS-passive.SimulatedNS),
		"the slowdown is time parked at safepoints")
	assert.InEpsilon(t, passive.AppCPUNS, costed.AppCPUNS, appCPUTol, "same work")
	assert.InEpsilon(t, passive.AppCPUNS, both.AppCPUNS, appCPUTol, "same work")
	assert.Greater(t, both.SimulatedNS, costed.SimulatedNS, "a second profiler adds its pauses")
	assert.LessOrEqual(t, float64(bj.Samples), (1-fewerSamplesMin)*float64(cj.Samples), "jvmti loses samples to hprof")
	hotAlone, hotBoth := selfShare(t, costed, "jvmti", "CallPair.M"), selfShare(t, both, "jvmti", "CallPair.M")
	assert.GreaterOrEqual(t, math.Abs(hotAlone-hotBoth), hotShiftMin, "M6: jvmti's hottest method moves")
	for _, r := range []report.Report{costed, both} {
		assert.InDelta(t, selfShare(t, passive, "truth", "CallPair.M"), selfShare(t, r, "truth", "CallPair.M"), truthShiftMax)
	}
	t.Logf("program: %.3f s passive, %.3f s costed jvmti (%.2f×, paused %.3f s), %.3f s with hprof too; jvmti: %d → %d samples, M %.1f %% → %.1f %%",
		float64(passive.SimulatedNS)/1e9, float64(costed.SimulatedNS)/1e9, slowdown, float64(cj.Costs.PauseNS)/1e9,
		float64(both.SimulatedNS)/1e9, cj.Samples, bj.Samples, 100*hotAlone, 100*hotBoth)
	labTimeline(t, lab, "./profsim timeline --workload callpair --duration 10s --sampler jvmti,interval=1ms --mode costed --from 1s --window 10ms --out ex5.svg --png ex5.png")
}

// Exercise 6: JDK 25's samplers and async-profiler's engines (X4–X6).
const (
	// blockMainCPU: fid-blockhalf's main computes 5 ms of each ~10.2 ms
	// cycle while spinner computes all the time, a third of the CPU
	// time; blockMainTol is the premise's slack (measured 34.2 %).
	blockMainCPU, blockMainTol = 1.0 / 3, 0.03
	// wallAsleep: main sleeps 5.05–5.3 ms of each cycle, so about half of
	// wall's samples of main are in pause().
	wallAsleep = 0.5
)

func TestLab6JDK25AndEngines(t *testing.T) {
	lab := labMarkdown(t)
	r := labRun(t, lab, "./profsim run --workload hotcold --inline=false --samplers truth,safepoint,jfr,jfr-coop --why")
	truth := selfShare(t, r, "truth", "HotCold.hot")
	assert.LessOrEqual(t, selfShare(t, r, "safepoint", "HotCold.hot"), 1-safepointBlameMin, "safepoint blames cold()")
	coop := selfShare(t, r, "jfr-coop", "HotCold.hot")
	assert.InDelta(t, truth, coop, within(truth, profileOf(t, r, "jfr-coop").Samples), "jfr-coop finds hot() though it walks at the poll")
	assert.GreaterOrEqual(t, biasOf(t, r, "jfr-coop").Diagonal, exactDiagonalMin)
	assert.GreaterOrEqual(t, mechanismShare(t, biasOf(t, r, "jfr-coop"), "cooperative walk at the poll"), mostMin)

	all := labRun(t, lab, "./profsim run --workload fid-blockhalf --cpus 2 --duration 2s --samplers truth,jfr,jfr-coop,jfr-cputime --sampler async:cpu,engine=cpu --sampler async:wall,engine=wall")
	main := labRun(t, lab, "./profsim run --workload fid-blockhalf --cpus 2 --duration 2s --samplers truth,jfr,jfr-coop,jfr-cputime --sampler async:cpu,engine=cpu --sampler async:wall,engine=wall --threads main")
	cpu := float64(main.AppCPUNS) / float64(all.AppCPUNS)
	require.InDelta(t, blockMainCPU, cpu, blockMainTol, "the premise: main has a third of the CPU time")
	for _, id := range []string{"jfr", "jfr-coop", "jfr-cputime", "async:cpu"} {
		n := profileOf(t, all, id).Samples
		got := float64(profileOf(t, main, id).Samples) / float64(n)
		assert.InDelta(t, cpu, got, within(cpu, n), "%s: main's share is its CPU share", id)
		assert.Zero(t, selfShare(t, main, id, "BlockHalf.pause")*float64(n) > 1, "%s: main is never sampled asleep (one sample at a transition at most)", id)
		t.Logf("%s: main %.1f %% of the samples (CPU %.1f %%)", id, 100*got, 100*cpu)
	}
	n := profileOf(t, all, "async:wall").Samples
	wall := float64(profileOf(t, main, "async:wall").Samples) / float64(n)
	assert.InDelta(t, 0.5, wall, within(0.5, n), "wall: main lives half the threads' time")
	asleep := selfShare(t, main, "async:wall", "BlockHalf.pause")
	assert.InDelta(t, wallAsleep, asleep, within(wallAsleep, profileOf(t, main, "async:wall").Samples), "wall: main asleep in half its samples")
	t.Logf("async:wall: main %.1f %% of the samples, %.1f %% of them in pause()", 100*wall, 100*asleep)
}

// Exercise 7: on fop-real, jfr sees neither the native deflateBytesBytes
// nor the VM's fillInStackTrace(I) walk (it takes threads in Java code
// only), where safepoint and async see both, async within the sampling
// noise of the truth; safepoint misses StringBuffer.charAt, poll-free
// compiled code inlined into its caller's loop, and charges it to the
// caller.
func TestLab7RealProgram(t *testing.T) {
	lab := labMarkdown(t)
	r := labRun(t, lab, "./profsim run --workload fop-real --duration 3s --samplers truth,safepoint,jfr,async --debug-non-safepoints")
	const (
		deflate = "java.util.zip.Deflater.deflateBytesBytes"
		fill    = "java.lang.Throwable.fillInStackTrace(I)Ljava/lang/Throwable;"
		charAt  = "java.lang.StringBuffer.charAt"
		caller  = "org.apache.fop.complexscripts.bidi.UnicodeBidiAlgorithm.convertToScalar"
	)
	for _, m := range []string{deflate, fill} {
		truth := selfShare(t, r, "truth", m)
		require.Positive(t, truth, "%s runs in the model", m)
		assert.Zero(t, selfShare(t, r, "jfr", m), "jfr never samples %s", m)
		assert.Positive(t, selfShare(t, r, "safepoint", m), "a JVMTI agent walks a thread in %s", m)
		assert.InDelta(t, truth, selfShare(t, r, "async", m), within(truth, profileOf(t, r, "async").Samples), "async: %s", m)
	}
	truth := selfShare(t, r, "truth", charAt)
	assert.Zero(t, selfShare(t, r, "safepoint", charAt), "safepoint charges charAt's time to a caller")
	assert.Greater(t, selfShare(t, r, "safepoint", caller), selfShare(t, r, "truth", caller), "the caller that gets it")
	assert.InDelta(t, truth, selfShare(t, r, "async", charAt), within(truth, profileOf(t, r, "async").Samples), "async finds charAt")
}

// labEveryOtherTick: a 1 ms perfect clock on 2 ms frames alternates
// between two instants of the frame, one in update and one in draw, so
// it reports update at one half; labEveryOtherTol allows the start-up
// (interpreted, 8× slower) frames, a percent of the run, and the 2 000
// samples' rounding.
const (
	labEveryOtherTick = 0.5
	labEveryOtherTol  = 0.05
	// labWaitRatio: the answer key's waits differ 20× (107 µs, 2.1 ms);
	// 5× keeps the order unmistakable with room for other seeds.
	labWaitRatio = 5
)

// labBlameMin: a line a biased profiler blames (or misses) differs from
// the truth by tens of points (the answer key: 98 % against 5 %); 20
// points is far outside sampling noise at 200 samples (3 sd ≤ 11 points).
const labBlameMin = 20.0

// labByLine runs a `profsim run --by line` command of the lab as printed
// (the table: --format json has no --by) and returns its "Self time by
// line" table, in percent, by "method:line" and column.
func labByLine(t *testing.T, lab, cmd string) map[string]map[string]float64 {
	t.Helper()
	code, out, errOut := runMain(labArgs(t, lab, cmd, t.TempDir())...)
	require.Equal(t, 0, code, "%s: %s", cmd, errOut)
	rows := map[string]map[string]float64{}
	var cols []string
	in := false
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, "Self time by line"):
			in = true
		case in && len(f) == 0:
			in = false
		case in && f[0] == "method:line":
			cols = f[1:]
		case in && len(f) == len(cols)+1:
			rows[f[0]] = map[string]float64{}
			for i, c := range cols {
				v, err := strconv.ParseFloat(f[i+1], 64)
				require.NoError(t, err, line)
				rows[f[0]][c] = v
			}
		}
	}
	require.NotEmpty(t, rows, "%s: a table by line in\n%s", cmd, out)
	return rows
}

// TestLabTrySteps runs every "Try" step's commands as LAB.md prints them
// (a command missing from LAB.md fails the test) and checks what each
// step asks the student to see, where the answer key states it.
func TestLabTrySteps(t *testing.T) {
	lab := labMarkdown(t)
	t.Run("1 by line and show", func(t *testing.T) {
		byLine := labByLine(t, lab, "./profsim run --workload hotcold --vm hotspot6 --inline=false --samplers truth,safepoint,async --by line")
		// The key: safepoint charges cold's poll line, 3, with hot's time.
		assert.Greater(t, byLine["HotCold.cold:3"]["safepoint"], byLine["HotCold.cold:3"]["truth"]+labBlameMin, "safepoint blames line 3 of cold")
		code, out, errOut := runMain(labArgs(t, lab, "./profsim show hotcold", t.TempDir())...)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, "HotCold.cold", "show prints the program with its line numbers")
		profileOf(t, labRun(t, lab, "./profsim run --workload hotcold --vm hotspot6 --samplers truth,safepoint,xprof,hprof,async,tprof --why"), "tprof")
	})
	t.Run("2 inlined", func(t *testing.T) {
		profileOf(t, labRun(t, lab, "./profsim run --workload callpair --vm jikes --samplers truth,safepoint,async,cbs,jikes-timer --why"), "cbs")
		dir := t.TempDir()
		code, _, errOut := runMain(labArgs(t, lab, "./profsim run --workload callpair --vm jikes --samplers safepoint --trace ex2-inlined.jsonl", dir)...)
		require.Equal(t, 0, code, errOut)
		st, err := os.Stat(filepath.Join(dir, "ex2-inlined.jsonl"))
		require.NoError(t, err)
		assert.Positive(t, st.Size())
	})
	t.Run("3 every other tick, 2.1 ms frames", func(t *testing.T) {
		r := labRun(t, lab, "./profsim run --workload examples/periodic.yaml --samplers truth --sampler async:fast,interval=1ms,jitter=0")
		got, _ := frameShare(t, r, "async:fast", "Game.update", "Game.draw")
		assert.InDelta(t, labEveryOtherTick, got, labEveryOtherTol, "every other 1 ms tick falls in update")
		// The sed command, as printed, applied to examples/periodic.yaml.
		sed := "sed 's/cycles: 986, bytecodes: 1/cycles: 100986, bytecodes: 1/' examples/periodic.yaml > periodic21.yaml"
		require.Contains(t, lab, "\n"+sed+"\n")
		src, err := os.ReadFile(filepath.Join("..", "..", "examples", "periodic.yaml"))
		require.NoError(t, err)
		require.Equal(t, 1, strings.Count(string(src), "cycles: 986, bytecodes: 1"), "the sed command edits draw's last work, once")
		dir := t.TempDir()
		edited := filepath.Join(dir, "periodic21.yaml")
		require.NoError(t, os.WriteFile(edited, []byte(strings.Replace(string(src), "cycles: 986, bytecodes: 1", "cycles: 100986, bytecodes: 1", 1)), 0o644))
		args := labArgs(t, lab, "./profsim run --workload periodic21.yaml --samplers truth --sampler tprof:perfect,random=0 --sampler async:perfect,jitter=0", dir)
		args[2] = edited
		code, out, errOut := runMain(append(args, "--format", "json")...)
		require.Equal(t, 0, code, errOut)
		var r21 report.Report
		require.NoError(t, json.Unmarshal([]byte(out), &r21))
		truth, _ := frameShare(t, r21, "truth", "Game.update", "Game.draw")
		for _, id := range []string{"tprof:perfect", "async:perfect"} {
			got, n := frameShare(t, r21, id, "Game.update", "Game.draw")
			assert.InDelta(t, truth, got, within(truth, n), "%s: a 2.1 ms frame drifts under the grid, which averages out", id)
		}
	})
	t.Run("4 by line, pollfree", func(t *testing.T) {
		off := labByLine(t, lab, "./profsim run --workload hotcold --samplers truth,async,jfr --by line")
		on := labByLine(t, lab, "./profsim run --workload hotcold --samplers truth,async,jfr --by line --debug-non-safepoints")
		// The key (exercise 4): without the records async charges hot's
		// inlined time to a line of cold; with them, to hot's own line.
		assert.Less(t, off["HotCold.hot:1"]["async"], off["HotCold.hot:1"]["truth"]-labBlameMin, "async without DebugNonSafepoints misses hot's line")
		assert.InDelta(t, on["HotCold.hot:1"]["truth"], on["HotCold.hot:1"]["async"], labBlameMin, "async with DebugNonSafepoints finds hot's line")
		profileOf(t, labRun(t, lab, "./profsim run --workload examples/pollfree.yaml --samplers truth,safepoint,async"), "safepoint")
	})
	t.Run("5 strip mining, before and after 0.2 s", func(t *testing.T) {
		profileOf(t, labRun(t, lab, "./profsim run --workload callpair --duration 10s --samplers truth --sampler jvmti,interval=1ms --mode costed --strip-mining 1"), "jvmti")
		before := biasOf(t, labRun(t, lab, "./profsim run --workload callpair --duration 200ms --samplers truth --sampler jvmti,interval=1ms --mode costed --why"), "jvmti")
		after := biasOf(t, labRun(t, lab, "./profsim run --workload callpair --duration 10s --skip 200ms --samplers truth --sampler jvmti,interval=1ms --mode costed --why"), "jvmti")
		// The key: a median wait of 107 µs in the first 0.2 s (M
		// interpreted, polls close together), 2.1 ms after (compiled, a
		// strip between polls).
		assert.Less(t, labWaitRatio*before.WaitMedianNS, after.WaitMedianNS, "jvmti waits far longer once M is compiled")
		t.Logf("jvmti's median wait: %d ns before 0.2 s, %d ns after", before.WaitMedianNS, after.WaitMedianNS)
	})
	t.Run("6 itimer", func(t *testing.T) {
		profileOf(t, labRun(t, lab, "./profsim run --workload fid-blockhalf --cpus 2 --duration 2s --samplers truth --sampler async:itimer,engine=itimer --threads main"), "async:itimer")
	})
	t.Run("7 bias matrix", func(t *testing.T) {
		r := labRun(t, lab, "./profsim run --workload fop-real --duration 3s --samplers truth,safepoint,jfr,async --debug-non-safepoints --why")
		biasOf(t, r, "safepoint")
	})
	t.Run("7 stub", func(t *testing.T) {
		r := labRun(t, lab, "./profsim run --workload fid-stubcopy --duration 3s --samplers truth,jfr,async --debug-non-safepoints --why")
		const copy = "StubCopy.copy"
		truth := selfShare(t, r, "truth", copy)
		assert.InDelta(t, truth, selfShare(t, r, "async", copy), within(truth, profileOf(t, r, "async").Samples), "async walks through the stub")
		assert.Less(t, 100*selfShare(t, r, "jfr", copy), 100*truth-labBlameMin, "jfr keeps only copy's own instructions")
		assert.Positive(t, biasOf(t, r, "jfr").Skipped[samplers.SkipStub], "jfr says why it lost the rest")
	})
}
