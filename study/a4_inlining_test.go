package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Tolerances of A4 (CLAIMS.md A4).
const (
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

// TestA4_Inlining: an inliner reading CBS's call graph gains at least what
// one reading the timer's gains on every stand-in (within 0.25 points),
// and most on javac (paper: +4 % on javac in Jikes RVM); J9-style dynamic
// heuristics, which refuse to inline what the profile calls cold, slow the
// programs down on average when fed the timer's inaccurate graph but not
// CBS's (paper: timer-driven J9 hurts 6 of 8 benchmarks).
func TestA4_Inlining(t *testing.T) {
	r := measure[*a4Result](t, "a4-inlining")
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
