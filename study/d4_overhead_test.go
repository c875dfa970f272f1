package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Tolerances of D4 (CLAIMS-style: the paper's words).
const (
	// d4PaperMax and d4PaperMin are the paper's range of overheads,
	// "1–5.4 %" (Burchell et al., MPLR'23).
	d4PaperMax = 5.4
	d4PaperMin = 1.0
	// d4AsyncMax pins the divergence: async-profiler's costed overhead,
	// measured 0.02–0.03 % on every program and seed (seeds 1–3), is
	// below a tenth of a percent (its handler cost, 2 µs a sample, is
	// assumed, not measured; study/notes/d4-overhead.md).
	d4AsyncMax = 0.1
)

// TestD4_Overhead: no profiler slows a program by more than the
// paper's 5.4 %, and the safepoint samplers that stop every thread
// (jprofile, yourkit, safepoint) cost at least its 1 %. Fails if a
// profiler's costs are dropped: run passive (the throw-away mutation),
// every profiled run is as long as the unprofiled one, 0 %.
func TestD4_Overhead(t *testing.T) {
	r := measure[*d4Result](t, "d4-overhead")
	for _, x := range r.Obs {
		assert.LessOrEqual(t, x.Overhead, d4PaperMax, "%s seed %d %s", x.Bench, x.Seed, x.Profiler)
		assert.Greater(t, x.Overhead, 0.0, "%s seed %d %s: a costed profiler costs something", x.Bench, x.Seed, x.Profiler)
		switch x.Profiler {
		case "jprofile", "yourkit", "safepoint":
			assert.GreaterOrEqual(t, x.Overhead, d4PaperMin, "%s seed %d %s: stopping every thread at a safepoint every 10 ms", x.Bench, x.Seed, x.Profiler)
		}
	}
}

// TestDivergence_D4 pins where D4 diverges: async-profiler and JFR cost
// less than the paper's lowest 1 % — the model has their sampling costs;
// the whole profilers, capabilities, bookkeeping and output included,
// cost OpenJDK 17 within the noise of three 10 s runs (JFR 0.97–1.03×,
// async-profiler 0.99–1.06×; tools/agents, 2026-11-29, load 0.57–2.31,
// docs/CALIBRATION.md), which neither confirms nor refutes it.
func TestDivergence_D4(t *testing.T) {
	r := measure[*d4Result](t, "d4-overhead")
	for _, x := range r.Obs {
		switch x.Profiler {
		case "async":
			assert.Less(t, x.Overhead, d4AsyncMax, "%s seed %d", x.Bench, x.Seed)
		case "jfr":
			assert.Less(t, x.Overhead, d4PaperMin, "%s seed %d", x.Bench, x.Seed)
		}
	}
}
