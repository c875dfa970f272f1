package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Tolerances of M9 (CLAIMS.md M9).
const (
	// m9TprofPoints: "the speed-up predicted from tprof matches the
	// simulated one within 5 points" (the claim's words), mean |error|
	// over seeds on each stand-in.
	m9TprofPoints = 5.0
	// m9Shortfalls reads the claim's "often yields far less than it
	// predicts" as: less than half the prediction on most (4) of the 7
	// stand-ins.
	m9Shortfalls = 4
)

// TestM9_Actionable: speeding up tprof's top method by 50 % gains what
// tprof predicts within 5 points on every stand-in (mean |error| over
// seeds; paper: within 2 %); xprof's top method gains less than half of
// what xprof predicts on most of them. The first half is the positive
// control: an unbiased sampler's advice holds where a biased one's fails.
func TestM9_Actionable(t *testing.T) {
	r := measure[*m9Result](t, "m9-actionable")
	for _, b := range causalityBenchmarks {
		e := r.AbsError("tprof", b.name)
		assert.Equal(t, len(r.Seeds), e.N, "%s: a tprof observation per seed", b.name)
		assert.LessOrEqual(t, e.Mean, m9TprofPoints, "%s: tprof's prediction", b.name)
	}
	assert.GreaterOrEqual(t, r.Shortfalls("xprof"), m9Shortfalls, "of %d stand-ins", len(causalityBenchmarks))
}

// TestM9_Models: tprof's prediction is within 5 points on every model
// (mean over seeds), as the claim says; xprof's shortfalls are logged:
// its top method falls short on half the models, not most
// (TestDivergence_M9_Models).
func TestM9_Models(t *testing.T) {
	r := measureModels[*m9Result](t, "m9-actionable")
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
	r := measureModels[*m9Result](t, "m9-actionable")
	assert.LessOrEqual(t, 2*r.Shortfalls("xprof"), len(r.Benchmarks))
}
