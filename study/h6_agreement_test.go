package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Tolerances of H6 (CLAIMS.md H6).
const (
	// h6PartialAgree: SPS and ISPS, the same partial safepoints, overlap
	// by at least 85 % on the CPU-heavy stand-ins (chosen; measured
	// 89.7–98.9).
	h6PartialAgree = 85.0
	// h6OverlapClaim: "overlap between techniques > 70 % except on the
	// deep-recursion stand-ins" (the claim's number).
	h6OverlapClaim = 70.0
	// h6CoverageClaim: "hot-edge coverage (T = 0.1) SPS vs JVMTI > 90 %"
	// (the claim's number).
	h6CoverageClaim = 90.0
	// h6DeepFrames: the 256-frame limit of JVMTI and SPS.
	h6DeepFrames = 256.0
	// h6FlatNoise: on the flat stand-ins JVMTI–SPS overlap is at least
	// 0.8× the SPS–ISPS overlap, i.e. no worse than sampling noise (a
	// margin chosen when the test was written).
	h6FlatNoise = 0.8
)

// TestH6_Agreement: on the CPU-heavy stand-ins, whose time sits in a few
// hot contexts, SPS and ISPS — the same partial safepoints — agree (their
// average CCTs overlap ≥ 85 %), and each agrees less with JVMTI: a partial
// safepoint samples the first K threads to reach a poll, never the one in
// a ms-long poll-free loop that JVMTI's global safepoint waits for and
// then samples. On the recursive-descent stand-ins deeper than 256 frames
// every overlap is < 70 % (paper: kiama, scalac, scaladoc) and ISPS
// covers fewer of JVMTI's hot edges than SPS does (paper: ISPS's complete
// traces do not match the others' truncated ones). On the flat stand-ins
// (h2, jython9) JVMTI and SPS disagree no more than sampling noise does:
// their overlap is ≥ 0.8 × that of SPS and ISPS. The paper's > 70 %
// between all techniques elsewhere and SPS's > 90 % coverage of JVMTI's
// hot edges are not met on every stand-in (TestDivergence_H6). Fails if
// ISPS truncated its stacks like the others, or if partial safepoints
// waited for every thread.
func TestH6_Agreement(t *testing.T) {
	needsSeeds(t, "the techniques' average CCTs over the rounds (the seeds), as the paper's over 10; one round's CCTs are noisier (SPS–ISPS on xalan 82 % < 85 % at seed 1)")
	r := measure[*h6Result](t, "h6-agreement")
	for _, b := range hoferCPUHeavy {
		partial := r.Overlap(b, hoferPairs[2])
		assert.GreaterOrEqual(t, partial, h6PartialAgree, "%s: sps–isps", b)
		assert.Less(t, r.Overlap(b, hoferPairs[0]), partial, "%s: jvmti–sps below sps–isps", b)
		assert.Less(t, r.Overlap(b, hoferPairs[1]), partial, "%s: jvmti–isps below sps–isps", b)
	}
	deep := map[string]bool{"kiama": true, "scalac": true}
	for _, b := range []string{"kiama", "scalac"} {
		assert.Greater(t, float64(r.Depth(b)), h6DeepFrames, b)
		for _, pair := range hoferPairs {
			assert.Less(t, r.Overlap(b, pair), h6OverlapClaim, "%s %s–%s", b, pair[0], pair[1])
		}
		assert.Less(t, r.Coverage(b, hoferPairs[1]), r.Coverage(b, hoferPairs[0]), b)
	}
	for _, b := range []string{"h2", "jython9"} {
		assert.GreaterOrEqual(t, r.Overlap(b, hoferPairs[0]), h6FlatNoise*r.Overlap(b, hoferPairs[2]), b)
	}
	for _, b := range r.Benches {
		if deep[b] {
			continue
		}
		for _, pair := range hoferPairs {
			if v := r.Overlap(b, pair); v <= h6OverlapClaim {
				diverges(t, "%s: %s–%s overlap %.1f %% (claim: > 70 %%)", b, pair[0], pair[1], v)
			}
		}
		if v := r.Coverage(b, hoferPairs[0]); v <= h6CoverageClaim {
			diverges(t, "%s: SPS covers %.0f %% of JVMTI's hot edges (claim: > 90 %%)", b, v)
		}
	}
}

// TestDivergence_H6 pins the documented divergence (REPRODUCTIONS.md,
// H6): on some CPU-heavy stand-in SPS covers at most 90 % of JVMTI's hot
// edges, since a partial safepoint never samples the thread in a long
// poll-free loop that JVMTI waits for.
func TestDivergence_H6(t *testing.T) {
	r := measure[*h6Result](t, "h6-agreement")
	least := 100.0
	for _, b := range hoferCPUHeavy {
		least = min(least, r.Coverage(b, hoferPairs[0]))
	}
	assert.LessOrEqual(t, least, h6CoverageClaim)
}
