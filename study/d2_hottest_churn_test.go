package study

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// d2TieZ bounds how far apart, in sampling sds of one run, a profiler's
// top two methods can be when its runs on one execution name different
// hottest methods: one run of n samples reverses the order of two
// methods a gap of z sds apart with probability about Φ(−z), 0.6 % at
// 2.5, so five runs disagree at larger gaps in fewer than 3 % of
// cases. Measured: churn at gaps up to 1.57 sd (30 churning
// profiler-runs of 72, seeds 1–3).
const d2TieZ = 2.5

// TestD2_HottestChurn: Burchell et al. (MPLR'23) find a profiler's
// hottest method changing from run to run of a deterministic program.
// Here five instances of each profiler watch one execution, differing
// only in their timers' lateness:
//   - on at least one real-application model some profiler's runs name
//     different hottest methods, on an execution that did not change;
//   - the truth's hottest method is the same on every seed of every
//     program: the churn is the profilers' sampling, not the program's
//     draws;
//   - every profiler whose runs disagree has its top two methods within
//     d2TieZ sds of one run's noise: sampling a near-tie, which a
//     profiler's own bias can create (the safepoint sampler charges a
//     poll-free method's time to the next poll, another method's).
//
// Fails when the instances sample at the same instants (every timer
// exact, jitter=0: the runs of jfr, safepoint and async become
// identical; study/notes/d2-hottest-churn.md).
func TestD2_HottestChurn(t *testing.T) {
	r := measure[*d2Result](t, "d2-hottest-churn")
	churnOnModel := false
	for _, x := range r.Obs {
		if x.Distinct >= 2 {
			if isModel(x.Bench) {
				churnOnModel = true
			}
			assert.LessOrEqual(t, x.GapZ, d2TieZ, "%s seed %d %s: %d hottest methods in %d runs with its top two %.1f sd apart (%s, %s)",
				x.Bench, x.Seed, x.Sampler, x.Distinct, x.Instances, x.GapZ, x.Hottest, x.Runner)
		}
	}
	assert.True(t, churnOnModel, "some profiler's runs on one execution of a model name different hottest methods")
	for _, b := range r.Benches {
		assert.Equal(t, 1, r.OverSeeds[b.Name]["truth"], "%s: the truth's hottest method is the same on every seed", b.Name)
	}
	assert.True(t, slices.ContainsFunc(r.Obs, func(x d2Obs) bool { return x.Distinct == 1 }), "a profiler with a clear hottest method names it every run")
}
