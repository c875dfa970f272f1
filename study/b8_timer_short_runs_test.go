package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Tolerances of B8 (CLAIMS.md B8).
const (
	// b8TimerMax: "reaches low overlap with the exact CPU-time CCT
	// (paper < 7 %)" (the claim's number).
	b8TimerMax = 7.0
	// b8TimerMeanPin pins a documented divergence (REPRODUCTIONS.md, B8):
	// the timer's mean overlap stays below 20 % although the
	// loop-dominated compress-like stand-in reaches ≈ 32 %.
	b8TimerMeanPin = 20.0
)

// TestB8_TimerShortRuns: a 1 ms safepoint timer sampler on short runs
// stays below 7 % overlap with the exact CPU-time CCT on the call-heavy
// jess- and javac-like stand-ins (paper < 7 % everywhere), and Komorium
// at 10 000 does better on every one. On the others the claim's < 7 % is
// not met (TestDivergence_B8).
func TestB8_TimerShortRuns(t *testing.T) {
	r := measure[*b8Result](t, "b8-timer-short-runs")
	for _, b := range []string{"jess-small", "javac-small"} {
		assert.Less(t, r.Timer(b).Mean, b8TimerMax, b)
	}
	for _, b := range r.Benches {
		assert.Greater(t, r.Komorium(b).Mean, r.Timer(b).Mean, b)
		if m := r.Timer(b).Mean; m >= b8TimerMax {
			diverges(t, "%s: the timer reaches %.1f %% (claim: < 7 %%)", b, m)
		}
	}
}

// TestDivergence_B8 pins the documented divergence (REPRODUCTIONS.md,
// B8): the timer's mean overlap over the short stand-ins stays below 20 %.
func TestDivergence_B8(t *testing.T) {
	r := measure[*b8Result](t, "b8-timer-short-runs")
	assert.Less(t, r.TimerMean(), b8TimerMeanPin)
}
