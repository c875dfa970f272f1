package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tolerances of X2 (CLAIMS.md X2). The claim is the model's own; each
// bound was set from 10 seeds (1–10) with the measured values given, so
// these pin the mechanism's behaviour (fair round-robin, the cap's
// coverage, the ablation's starvation) rather than a paper's number.
const (
	// x2CrowdMaxDev: with a constant crowd every worker's share is within
	// 0.5 points of its CPU share on every seed (measured ≤ 0.17; one
	// sample of ≈ 495 is 0.2).
	x2CrowdMaxDev = 0.5
	// x2CrowdMinRatio: and at least 0.95× it (measured ≥ 0.987).
	x2CrowdMinRatio = 0.95
	// x2CrowdCoverage and x2CoverageDelta: coverage is the cap's 5 of 8
	// running threads, 62.5 %, within 2 points (measured 61.9: no tick
	// at 0).
	x2CrowdCoverage = 62.5
	x2CoverageDelta = 2.0
	// x2UncappedMaxDev: the uncapped jfr is within two of its ≈ 790
	// samples, 0.25 points (measured ≤ 0.22).
	x2UncappedMaxDev = 0.25
	// x2UncappedCoverage: the uncapped jfr covers nearly all CPU time.
	x2UncappedCoverage = 97.0
	// x2StarvedRatio and x2StarvedDev: the ablation never samples
	// workers 5–7 (share 0 of 12.5 points): ratio ≤ 0.05, deviation ≥ 10.
	x2StarvedRatio = 0.05
	x2StarvedDev   = 10.0
	// x2PredDev: on the falling crowd jfr's shares follow the fair-cap
	// prediction min(1, 5/R) within 1 point on every seed (measured ≤
	// 0.46).
	x2PredDev = 1.0
	// x2UnderRatio: some thread gets ≤ 0.9× its CPU share on every seed
	// (measured 0.68–0.83, s0).
	x2UnderRatio = 0.9
	// x2UncappedRatio: the uncapped jfr keeps every thread ≥ 0.9×
	// (measured ≥ 0.935).
	x2UncappedRatio = 0.9
	// x2RestartPredDev: the ablation is ≥ 5 points off the prediction on
	// every seed (measured ≥ 7.3).
	x2RestartPredDev = 5.0
)

// TestX2_JFRThreadCap: what jfr's cap of 5 running threads per 20 ms does.
// Tolerances from 10 seeds (1–10), values per seed:
//   - Constant crowd (lusearch, sunflow, xalan: 8 workers on 8 CPUs):
//     round-robin keeps every worker's share within 0.5 points of its CPU
//     share on every seed (measured ≤ 0.17; one sample of ≈ 495 is 0.2)
//     and ≥ 0.95× it (measured ≥ 0.987); coverage is 5/8 (62.5 ± 2 %,
//     measured 61.9: no tick at 0). The ablation that restarts each round
//     at the first thread never samples workers 5–7 (share 0, 12.5 points
//     off). The uncapped jfr is within two of its ≈ 790 samples, 0.25
//     points (measured ≤ 0.22: a worker the compiler thread has just
//     preempted is not running at that tick and is missed).
//   - Falling crowd (staggered, 10 threads ending one by one): jfr's
//     shares follow the fair-cap prediction min(1, 5/R) within 1 point on
//     every seed (measured ≤ 0.46) and under-represent the short-lived
//     thread: on every seed some thread gets ≤ 0.9× its CPU share
//     (measured 0.68–0.83, s0). The uncapped jfr keeps every thread ≥
//     0.9× (measured ≥ 0.935); the ablation is ≥ 5 points off the
//     prediction on every seed (measured ≥ 7.3).
//   - ≤ 4 threads on CPUs (lusearch, 4 CPUs): the cap never binds, jfr's
//     samples are the uncapped one's on every run.
//
// Fails if the round-robin cursor is lost (the ablation's starvation),
// if the cap is not applied (coverage 100 %, no under-representation) or
// if it is applied to runnable rather than running threads.
func TestX2_JFRThreadCap(t *testing.T) {
	r := measure[*x2Result](t, "x2-jfr-thread-cap")
	seeds := len(r.Seeds)
	for _, b := range []string{"lusearch, 8 CPUs", "sunflow, 8 CPUs", "xalan, 8 CPUs"} {
		at := func(s, k string) x2Range { return r.Summary(b, s, k) }
		assert.LessOrEqual(t, at("jfr", "max_dev").Max, x2CrowdMaxDev, "%s: round-robin keeps thread shares", b)
		assert.GreaterOrEqual(t, at("jfr", "min_ratio").Min, x2CrowdMinRatio, b)
		assert.InDelta(t, x2CrowdCoverage, at("jfr", "coverage").Mean, x2CoverageDelta, "%s: coverage 5/8", b)
		assert.LessOrEqual(t, at("jfr-uncapped", "max_dev").Max, x2UncappedMaxDev, b)
		assert.Greater(t, at("jfr-uncapped", "coverage").Mean, x2UncappedCoverage, b)
		assert.LessOrEqual(t, at("jfr-restart", "min_ratio").Max, x2StarvedRatio, "%s: the ablation starves the later workers", b)
		assert.GreaterOrEqual(t, at("jfr-restart", "max_dev").Min, x2StarvedDev, b)
		assert.Zero(t, r.SameAsUncapped(b), "%s: the cap binds", b)
	}
	const st = "staggered, 10 CPUs"
	assert.LessOrEqual(t, r.Summary(st, "jfr", "pred_dev").Max, x2PredDev, "staggered: jfr follows the fair-cap prediction")
	assert.LessOrEqual(t, r.Summary(st, "jfr", "min_ratio").Max, x2UnderRatio, "staggered: some thread under-represented on every seed")
	assert.Less(t, r.Share(st, "s0", "jfr").Mean, r.Share(st, "s0", "truth").Mean, "the short-lived thread is the under-represented one")
	assert.Greater(t, r.Share(st, "s9", "jfr").Mean, r.Share(st, "s9", "truth").Mean, "the thread that runs alone at the end is over-represented")
	assert.GreaterOrEqual(t, r.Summary(st, "jfr-uncapped", "min_ratio").Min, x2UncappedRatio)
	assert.GreaterOrEqual(t, r.Summary(st, "jfr-restart", "pred_dev").Min, x2RestartPredDev)
	assert.Equal(t, seeds, r.SameAsUncapped("lusearch, 4 CPUs"), "≤ 4 running threads: the cap never binds")
}

// Same seeds, same table and data: the runs go through the sweep
// engine's workers, so this also checks that the order they finish in
// does not leak out. The second making runs again, not from the cache.
func TestX2_Deterministic(t *testing.T) {
	run := typed(measureX2)
	a, err := run(testOptions())
	require.NoError(t, err)
	forgetRuns[x2Key]()
	b, err := run(testOptions())
	require.NoError(t, err)
	assert.Equal(t, a.Table.Markdown(), b.Table.Markdown())
	ca, err := a.Tidy.CSV()
	require.NoError(t, err)
	cb, err := b.Tidy.CSV()
	require.NoError(t, err)
	assert.Equal(t, string(ca), string(cb))
}
