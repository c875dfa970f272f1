package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestD1_Top5Agreement: Burchell et al. (MPLR'23) find that profilers
// "cannot reliably agree on the set of top 5 hottest methods". Here
// safepoint, jfr (no DebugNonSafepoints), jfr-dns, async and tprof watch
// the models of real applications and two stand-ins, and each profiler's
// top-5 set (self time) is compared with every other's:
//   - on most programs (more than half, d1Most) the five sets differ in
//     most runs (AgreeRuns below half the seeds);
//   - on most programs two profilers share fewer than d1Reliable of the
//     five on average: more than sampling noise at the edge of the top
//     five, which alone keeps all five sets from agreeing;
//   - by mechanism: the exact-position samplers (async, jfr-dns) share
//     more of the truth's top five than the biased ones (safepoint at
//     the polls, jfr without debug information at the last poll, tprof
//     charging the compiled method).
//
// Fails if the profilers share a mechanism (a mutation running four
// async-profilers at different rates instead:
// study/notes/d1-top5-agreement.md).
func TestD1_Top5Agreement(t *testing.T) {
	r := measure[*d1Result](t, "d1-top5-agreement")
	disagree, unreliable := 0, 0
	for _, b := range r.Benches {
		if r.Disagrees(b.Name) {
			disagree++
		}
		var xs []float64
		for _, s := range r.Seeds {
			xs = append(xs, r.Profilers(b.Name, s))
		}
		if mean(xs) < d1Reliable {
			unreliable++
		}
	}
	assert.Greater(t, float64(disagree), d1Most*float64(len(r.Benches)), "the profilers' top-5 sets differ in most runs of most programs")
	assert.Greater(t, float64(unreliable), d1Most*float64(len(r.Benches)), "… two of them sharing fewer than d1Reliable of the five on average")
	agree := func(id string) float64 { return r.Agreement("", "truth", id).Mean }
	for _, exact := range []string{"async", "jfr-dns"} {
		for _, biased := range []string{"safepoint", "jfr", "tprof"} {
			assert.Greater(t, agree(exact), agree(biased), "%s shares more of the truth's top five than %s", exact, biased)
		}
	}
}

// d1Most: "most programs" is more than half of them, the weakest
// reading of the paper's "cannot reliably agree" (it reports the
// disagreement benchmark by benchmark, not as a fraction).
const d1Most = 0.5

// d1Reliable: profilers agree reliably when two of them share more
// than three of the five methods on average. Sampling noise alone does
// not bring agreement below it: four async-profilers at 0.9–1.2 ms
// watching one execution (the mutation of the note) share 0.63–0.79 of
// their top fives, and even they never all agree (the fifth rank is
// often a near tie). Measured: the profilers' mean pairwise agreement is
// 0.26–0.55 per program (seeds 1–3).
const d1Reliable = 0.6

// TestD3_SelfAgreement: Burchell et al. (MPLR'23) find each profiler
// agrees with itself across runs far better than with the others. Here
// each profiler's flat profile (self shares) of one seed against its
// profile of another (self overlap), and against the other profilers'
// profiles of the same execution (cross overlap, mean over the others):
//   - for every profiler, on most programs (d1Most), the self overlap
//     exceeds the cross overlap by more than d3Far points;
//   - the exception is mechanism, not run-to-run variation: async and
//     jfr-dns (both exact positions) are each other's closest profiler
//     on most programs.
//
// Fails if the profilers share a mechanism (the same mutation as D1's:
// study/notes/d3-self-agreement.md).
func TestD3_SelfAgreement(t *testing.T) {
	needsSeeds(t, "pairs of seeds")
	r := measure[*d3Result](t, "d3-self-agreement")
	for _, id := range d1Profilers {
		far := 0
		for _, b := range r.Benches {
			x := r.of(b.Name, id, "all")
			if x.Self > x.Cross+d3Far {
				far++
			}
		}
		assert.Greater(t, float64(far), d1Most*float64(len(r.Benches)), "%s agrees with itself far better than with the others on most programs (%d)", id, far)
	}
	closest := 0
	for _, b := range r.Benches {
		if r.of(b.Name, "async", "jfr-dns").Cross > r.of(b.Name, "async", "safepoint").Cross &&
			r.of(b.Name, "async", "jfr-dns").Cross > r.of(b.Name, "async", "jfr").Cross &&
			r.of(b.Name, "async", "jfr-dns").Cross > r.of(b.Name, "async", "tprof").Cross {
			closest++
		}
	}
	assert.Greater(t, float64(closest), d1Most*float64(len(r.Benches)), "async and jfr-dns are each other's closest on most programs")
}

// d3Far: "far better" is a gap of more than 10 points of overlap, the
// size of a profile's own run-to-run loss of overlap at 1 ms (self
// overlap 73–94 %); measured 13–65 points per profiler and program
// (seeds 1–3).
const d3Far = 10

// TestDivergence_D3 pins the spread of shares over runs below the
// paper's median max–min spread of 2–8 %. The truth's own spread, the
// program's run-to-run variation (its random branches, trip counts and
// block times, drawn per seed), is at most d3TruthSpread points; the
// profilers' spread is mostly sampling noise (≈ 1 000 samples a run at
// 1 ms, a share of 20 % has a binomial sd of 1.3 points; max − min of 3
// seeds ≈ 1.7 sd). The paper's 30 runs of a real JVM (max − min of 30
// draws ≈ 4 sd) add what profsim does not model: JIT compile-queue
// timing, OS scheduling, memory layout.
func TestDivergence_D3(t *testing.T) {
	needsSeeds(t, "spreads over seeds")
	r := measure[*d3Result](t, "d3-self-agreement")
	var spreads []float64
	for _, x := range r.Obs {
		if x.Other != "all" {
			continue
		}
		if x.Profiler == "truth" {
			assert.LessOrEqual(t, x.Spread, d3TruthSpread, "%s: the program's own run-to-run spread is small", x.Bench)
			continue
		}
		spreads = append(spreads, x.Spread)
	}
	diverges(t, "median max−min spread %.2f points, below the paper's 2–8 %%", median(spreads))
	assert.Less(t, median(spreads), d3PaperLow, "the spread over seeds is below the paper's lowest")
}

// d3PaperLow is the paper's lowest median max–min spread, 2 %.
const d3PaperLow = 2.0

// d3TruthSpread bounds the truth's median max − min spread of its top
// five methods' shares over seeds 1–3: measured 0.02–0.48 points.
const d3TruthSpread = 1.0
