package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Tolerances of H2 (CLAIMS.md H2).
const (
	// h2LongLatency: "fluctuates to > 10 ms when hot loops have no polls"
	// (the claim's number).
	h2LongLatency = 10.0
	// h2LowMs and h2P975Ms read "SPS/ISPS latency stays low and stable":
	// never above 1 ms on the CPU-heavy stand-ins, 97.5th percentile
	// below 0.2 ms everywhere — margins chosen when the test was written
	// (measured max ≤ 0.16 ms). h2LowMs also bounds JVMTI's median there.
	h2LowMs  = 1.0
	h2P975Ms = 0.2
)

// TestH2_Latency: at 1 ms, JVMTI's latency reaches more than 10 ms on
// each CPU-heavy stand-in (a long poll-free loop holds the safepoint;
// paper: > 10 ms on lusearch, sunflow, xalan) while its median stays below
// 1 ms, and SPS's and ISPS's never exceeds 1 ms there; their 97.5th
// percentile stays below 0.2 ms everywhere (paper: low and stable);
// JVMTI's median exceeds SPS's on every stand-in (everyone must reach a
// safepoint); and JVMTI's median is highest on the many-thread stand-ins
// (tradebeans, actors: 33 threads walked per sample; paper: high median on
// actors, tradebeans). Fails if partial safepoints waited for the thread
// in the long loop, or if JVMTI skipped the waiting threads.
func TestH2_Latency(t *testing.T) {
	r := measure[*h2Result](t, "h2-latency")
	for _, b := range hoferCPUHeavy {
		assert.Greater(t, r.Quantile(b, "jvmti", 1), h2LongLatency, b)
		assert.Less(t, r.Quantile(b, "jvmti", 0.5), h2LowMs, b)
		for _, pr := range []string{"sps", "isps"} {
			assert.Less(t, r.Quantile(b, pr, 1), h2LowMs, "%s %s: no partial safepoint waits for the thread in a long loop", b, pr)
		}
	}
	for _, b := range r.Benches {
		for _, pr := range []string{"sps", "isps"} {
			assert.Less(t, r.Quantile(b, pr, 0.975), h2P975Ms, "%s %s", b, pr)
		}
		assert.Greater(t, r.Quantile(b, "jvmti", 0.5), r.Quantile(b, "sps", 0.5), b)
	}
	// Many threads: JVMTI walks all 33 at every sample, so its median is
	// higher there than on any other stand-in (paper: actors, tradebeans).
	for _, many := range []string{"tradebeans", "actors"} {
		for _, b := range r.Benches {
			if b != "tradebeans" && b != "actors" {
				assert.Greater(t, r.Quantile(many, "jvmti", 0.5), r.Quantile(b, "jvmti", 0.5), "%s vs %s", many, b)
			}
		}
	}
}
