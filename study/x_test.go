package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestX1_DebugInfo: with hot() inlined into cold(), async without
// DebugNonSafepoints attributes hot()'s time to cold() (< 5 % left in
// hot() on every seed; measured 0.5 %, the samples taken while hot() was
// still interpreted); with it, async matches the truth within 3 points
// (measured 1.1 below). The truth is the same with and without DNS (debug
// information costs nothing at run time).
func TestX1_DebugInfo(t *testing.T) {
	v := runExperiment(t, "x1-debug-info").Values
	t.Logf("truth hot() %.2f %%; async without DNS %.2f %%, with DNS %.2f %%", v["truth"], v["async_no_dns"], v["async_dns"])
	assert.Greater(t, v["truth"], 90.0)
	assert.Equal(t, v["truth"], v["truth_dns"], "DNS does not change the execution")
	assert.Less(t, v["async_no_dns_max"], 5.0, "without DNS inlined hot() samples must move to cold()")
	assert.InDelta(t, v["truth"], v["async_dns"], 3)
	assert.Greater(t, v["async_dns_min"], 90.0)
}

// TestX2_JFRThreadCap: what jfr's cap of 5 running threads per 20 ms does.
// Tolerances from 10 seeds (1–10), values per seed:
//   - Constant crowd (lusearch, sunflow, xalan: 8 workers on 8 CPUs):
//     round-robin keeps every worker's share within 0.5 points of its CPU
//     share on every seed (measured ≤ 0.17; one sample of ≈ 495 is 0.2)
//     and ≥ 0.95× it (measured ≥ 0.987); coverage is 5/8 (62.5 ± 2 %,
//     measured 61.9: no tick at 0). The ablation that restarts each round
//     at the first thread never samples workers 5–7 (share 0, 12.5 points
//     off). The uncapped jfr is within 0.1 points (measured ≤ 0.04).
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
	r := runExperiment(t, "x2-jfr-thread-cap")
	v := r.Values
	seeds := float64(len(seeds()))
	for _, b := range []string{"lusearch, 8 CPUs", "sunflow, 8 CPUs", "xalan, 8 CPUs"} {
		at := func(s, k string) float64 { return v[b+"/"+s+"/"+k] }
		assert.LessOrEqual(t, at("jfr", "max_dev_max"), 0.5, "%s: round-robin keeps thread shares", b)
		assert.GreaterOrEqual(t, at("jfr", "min_ratio_min"), 0.95, b)
		assert.InDelta(t, 62.5, at("jfr", "coverage"), 2, "%s: coverage 5/8", b)
		assert.LessOrEqual(t, at("jfr-uncapped", "max_dev_max"), 0.1, b)
		assert.Greater(t, at("jfr-uncapped", "coverage"), 97.0, b)
		assert.LessOrEqual(t, at("jfr-restart", "min_ratio_max"), 0.05, "%s: the ablation starves the later workers", b)
		assert.GreaterOrEqual(t, at("jfr-restart", "max_dev_min"), 10.0, b)
		assert.Zero(t, v[b+"/same_as_uncapped"], "%s: the cap binds", b)
	}
	st := func(s, k string) float64 { return v["staggered, 10 CPUs/"+s+"/"+k] }
	assert.LessOrEqual(t, st("jfr", "pred_dev_max"), 1.0, "staggered: jfr follows the fair-cap prediction")
	assert.LessOrEqual(t, st("jfr", "min_ratio_max"), 0.9, "staggered: some thread under-represented on every seed")
	assert.Less(t, v["staggered, 10 CPUs/s0/jfr"], v["staggered, 10 CPUs/s0/truth"], "the short-lived thread is the under-represented one")
	assert.Greater(t, v["staggered, 10 CPUs/s9/jfr"], v["staggered, 10 CPUs/s9/truth"], "the thread that runs alone at the end is over-represented")
	assert.GreaterOrEqual(t, st("jfr-uncapped", "min_ratio_min"), 0.9)
	assert.GreaterOrEqual(t, st("jfr-restart", "pred_dev_min"), 5.0)
	assert.Equal(t, seeds, v["lusearch, 4 CPUs/same_as_uncapped"], "≤ 4 running threads: the cap never binds")
}

// Same seeds, same table: the runs go through a bounded errgroup, so this
// also checks that the order they finish in does not leak out.
func TestX2_Deterministic(t *testing.T) {
	a, err := runX2(DefaultOptions())
	require.NoError(t, err)
	b, err := runX2(DefaultOptions())
	require.NoError(t, err)
	assert.Equal(t, a.Table.Markdown(), b.Table.Markdown())
}
