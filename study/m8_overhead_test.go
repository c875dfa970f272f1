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
	// m8LusearchHprofCaps is lusearch's slowdown on the real JVM under
	// hprof's capabilities alone (tools/agents, OpenJDK 17.0.15,
	// 2026-11-29, load 0.57–2.31: median of three 10 s runs, 1.15–1.21;
	// docs/CALIBRATION.md), what its model's throws predict under hprof.
	m8LusearchHprofCaps = 1.16
	// m8CapsTolerance: issue 38's "within 10 % of the slowdown" — the
	// model's slowdown within 10 % of the real one's.
	m8CapsTolerance = 0.10
	// m8NoThrowMax bounds the models' slowdown where hprof's capabilities
	// change nothing (no throw enters a compiled frame): the stand-ins'
	// sampling costs, 1.001–1.003× (TestM8_Overhead's runs).
	m8NoThrowMax = 1.01
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
// every costed run stays below 1.1× (paper 1.0–2.2×, means 1.1–1.5×). The
// one capability effect measured on OpenJDK 17, hprof's exception events
// deoptimizing catchers (lusearch 1.16×; tools/agents, 2026-11-29, load
// 0.57–2.31), needs throws these stand-ins do not make (TestM8_Models has
// it); whole profilers measured there cost 0.97–1.10× (docs/CALIBRATION.md),
// as far below the paper as profsim is.
func TestDivergence_M8(t *testing.T) {
	r := measure[*m8Result](t, "m8-overhead")
	for _, p := range m8Profilers {
		for _, x := range r.Runs(p) {
			assert.Less(t, x, m8DivergenceMax, p)
		}
	}
}

// TestM8_Models: the models throw what their recordings say is caught in
// a caller (call.throws), and hprof holds exception events, so on
// lusearch-real, whose throws enter compiled frames, hprof slows the run
// as hprof's capabilities slowed the real lusearch (1.16×, within 10 %);
// on the models whose throws enter none (fop-real: caught inside one
// compiled frame) or that throw nothing it costs what it does on the
// stand-ins, and the profilers that hold no capability deoptimize
// nothing. The claim's means are not met (TestDivergence_M8_Models).
func TestM8_Models(t *testing.T) {
	r := measureModels[*m8Result](t, "m8-overhead")
	lu := r.Slowdown("hprof", "lusearch-real").Mean
	assert.InEpsilon(t, m8LusearchHprofCaps, lu, m8CapsTolerance, "hprof on lusearch-real: %.3f×, real %.2f×", lu, m8LusearchHprofCaps)
	assert.Positive(t, r.Deopts("hprof", "lusearch-real"))
	for _, b := range r.Benchmarks {
		if b != "lusearch-real" && b != "antlr-real" {
			assert.Less(t, r.Slowdown("hprof", b).Mean, m8NoThrowMax, b)
			assert.Zero(t, r.Deopts("hprof", b), b)
		}
		for _, p := range m8Profilers[1:] {
			assert.Zero(t, r.Deopts(p, b), "%s holds no capability: %s", p, b)
		}
	}
	for _, p := range m8Profilers {
		if m := r.Mean(p); m.Mean < m8ClaimMeanMin {
			diverges(t, "%s's mean slowdown on the models %.3f× (claim: %.1f–1.5×)", p, m.Mean, m8ClaimMeanMin)
		}
	}
}

// TestDivergence_M8_Models pins the documented divergence on the models
// (REPRODUCTIONS.md, M8 on models): every profiler's mean stays below
// 1.1×, and every run but hprof's on lusearch-real (its capabilities) too.
func TestDivergence_M8_Models(t *testing.T) {
	r := measureModels[*m8Result](t, "m8-overhead")
	for _, p := range m8Profilers {
		assert.Less(t, r.Mean(p).Mean, m8DivergenceMax, p)
		for _, b := range r.Benchmarks {
			if p == "hprof" && b == "lusearch-real" {
				continue
			}
			assert.Less(t, r.Slowdown(p, b).Mean, m8DivergenceMax, "%s on %s", p, b)
		}
	}
}
