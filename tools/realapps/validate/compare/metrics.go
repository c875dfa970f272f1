package main

import (
	"math"
	"slices"

	"github.com/profsim/profsim/profile"
)

// dist is a flat profile: samples (or nanoseconds, for the truth) of self
// time per normalised method, thread main only.
type dist map[string]float64

// total is the sum of d's weights, added in method order so that the
// result does not depend on map order.
func (d dist) total() float64 {
	s := 0.0
	for _, m := range d.methods() {
		s += d[m]
	}
	return s
}

// methods lists d's methods, sorted.
func (d dist) methods() []string {
	ms := make([]string, 0, len(d))
	for m := range d {
		ms = append(ms, m)
	}
	slices.Sort(ms)
	return ms
}

// share is method m's share of d, 0 for an empty d.
func (d dist) share(m string) float64 {
	t := d.total()
	if t <= 0 {
		return 0
	}
	return d[m] / t
}

// overlap is Σ_m min(share_a(m), share_b(m)) in [0, 1]
// (profile.OverlapWeights): 1 for identical flat profiles, 0 if they
// share no method or either is empty.
func overlap(a, b dist) float64 { return profile.OverlapWeights(a, b) }

// pool sums ds's weights (several runs as one).
func pool(ds []dist) dist {
	p := dist{}
	for _, d := range ds {
		for m, w := range d {
			p[m] += w
		}
	}
	return p
}

// noiseFloor is the mean overlap over the pairs of distinct runs of one
// profiler (real run-to-run agreement); NaN with fewer than two runs.
func noiseFloor(runs []dist) float64 {
	s, n := 0.0, 0
	for i := range runs {
		for j := i + 1; j < len(runs); j++ {
			s += overlap(runs[i], runs[j])
			n++
		}
	}
	return mean(s, n)
}

// crossOverlap is the mean overlap over every pair (a of as, b of bs):
// real runs against model seeds, or one profiler's real runs against
// another's; NaN if either is empty.
func crossOverlap(as, bs []dist) float64 {
	s, n := 0.0, 0
	for _, a := range as {
		for _, b := range bs {
			s += overlap(a, b)
			n++
		}
	}
	return mean(s, n)
}

// pairedOverlap is the mean over i of overlap(as[i], bs[i]): two
// profilers on the same simulated run (seed); NaN if there is none.
func pairedOverlap(as, bs []dist) float64 {
	s, n := 0.0, 0
	for i := range min(len(as), len(bs)) {
		s += overlap(as[i], bs[i])
		n++
	}
	return mean(s, n)
}

func mean(s float64, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// top lists d's n heaviest methods, heaviest first, ties by name.
func top(d dist, n int) []string {
	ms := d.methods()
	slices.SortStableFunc(ms, func(a, b string) int {
		switch {
		case d[a] > d[b]:
			return -1
		case d[a] < d[b]:
			return 1
		}
		return 0
	})
	return ms[:min(n, len(ms))]
}

// topSetAgreement is |top_n(a) ∩ top_n(b)| / n.
func topSetAgreement(a, b dist, n int) float64 {
	ta, tb := top(a, n), top(b, n)
	k := 0
	for _, m := range ta {
		if slices.Contains(tb, m) {
			k++
		}
	}
	return float64(k) / float64(n)
}
