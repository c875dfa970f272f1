package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Tolerances of M8 (CLAIMS.md M8).
const (
	// m8ClaimMeanMin: "mean 1.1–1.5×" (the claim's words, M8): the least
	// mean slowdown the claim asks of each safepoint profiler.
	m8ClaimMeanMin = 1.1
	// m8DivergenceMax pins a documented divergence (REPRODUCTIONS.md,
	// M8): every costed run is below the claim's least mean, 1.1×
	// (measured 1.001–1.003×).
	m8DivergenceMax = 1.1
)

// TestM8_Overhead: the costed safepoint profilers slow the stand-ins down
// (every run ≥ 1×: a profiler never speeds a program up) and jprofile,
// the heaviest agent, costs more than xprof, the lightest. The claim's
// means of 1.1–1.5× are not met: per cents, not tens of per cent
// (TestDivergence_M8).
func TestM8_Overhead(t *testing.T) {
	r := measure[*m8Result](t, "m8-overhead")
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
	r := measure[*m8Result](t, "m8-overhead")
	for _, p := range m8Profilers {
		for _, x := range r.Runs(p) {
			assert.Less(t, x, m8DivergenceMax, p)
		}
	}
}
