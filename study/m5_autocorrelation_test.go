package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Tolerances of M5 (CLAIMS.md M5).
const (
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
)

// TestM5_Autocorrelation: tprof's interval autocorrelation leaves the
// ±2/√N band at ≤ 5 % of lags 1…100 (mean over seeds). On a perfect clock
// (jitter=0) the safepoint samplers leave it at least twice as often and
// at ≥ m5Systematic of lags: their intervals carry the time to the next
// poll, which depends on where the periodic program is. At the timer
// jitter measured for their sampler threads — the paper's setup, real
// timers — they do not (TestDivergence_M5).
func TestM5_Autocorrelation(t *testing.T) {
	r := measure[*m5Result](t, "m5-autocorrelation")
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
	r := measure[*m5Result](t, "m5-autocorrelation")
	for _, p := range []string{"xprof", "hprof"} {
		assert.Less(t, r.Share(p).Mean, m5Systematic, "%s at its measured jitter", p)
	}
}

// TestM5_Models: on antlr's model tprof's interval autocorrelation leaves
// the ±2/√N band at ≤ 5 % of lags (mean over seeds). The claim's contrast
// — a safepoint sampler leaving it systematically, far more often than
// tprof — shows on this model only for xprof on a perfect clock, not for
// hprof, the paper's, nor at the measured timer jitter
// (TestDivergence_M5_Models).
func TestM5_Models(t *testing.T) {
	r := measureModels[*m5Result](t, "m5-autocorrelation")
	tp := r.Share("tprof").Mean
	assert.LessOrEqual(t, tp, m5TprofMax)
	for _, p := range []string{"xprof", "hprof", "xprof:grid", "hprof:grid"} {
		s := r.Share(p).Mean
		if s < m5Systematic || s <= 2*tp {
			diverges(t, "%s leaves the band at %.0f %% of lags, not systematically (tprof %.0f %%)", p, 100*s, 100*tp)
		}
	}
}

// TestDivergence_M5_Models pins the documented divergence
// (REPRODUCTIONS.md, M5 on models): on antlr's model hprof, at its
// measured timer jitter or on a perfect clock, and xprof at its measured
// jitter do not leave the band both at ≥ m5Systematic of lags and more
// than twice as often as tprof; xprof on a perfect clock does (measured,
// seeds 1–3: tprof 0–8 % of lags, mean 4.3 %; xprof 7–9 %, mean 7.7 %;
// hprof 1–5 %, mean 3.0 %; on the grid xprof 8–11 %, mean 9.7 %, hprof
// 2–8 %, mean 4.3 %): the model's program is not periodic — every driver
// trip draws its branches and calls — so a tick seldom finds it at the
// same place trip after trip.
func TestDivergence_M5_Models(t *testing.T) {
	r := measureModels[*m5Result](t, "m5-autocorrelation")
	tp := r.Share("tprof").Mean
	for _, p := range []string{"xprof", "hprof", "xprof:grid", "hprof:grid"} {
		s := r.Share(p).Mean
		systematic := s >= m5Systematic && s > 2*tp
		assert.Equal(t, p == "xprof:grid", systematic, "%s: %.1f %% of lags outside the band, tprof %.1f %%", p, 100*s, 100*tp)
	}
}
