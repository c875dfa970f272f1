package profile

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"

	"gonum.org/v1/gonum/stat"
)

func sameLen(what string, p, q []float64) {
	if len(p) != len(q) {
		panic(fmt.Sprintf("profile: %s of vectors of different lengths (%d, %d)", what, len(p), len(q)))
	}
}

func sum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

// Overlap is the overlap percentage of two aligned weight vectors, as a
// fraction in [0, 1] (1: identical distributions):
//
//	overlap(p, q) = Σ_i min(p_i / Σp, q_i / Σq)
//
// Defined by Binder (SPE 2006, §"overlap percentage") after Arnold & Grove
// (CGO 2005), over calling contexts, methods or call edges. If either
// vector sums to zero the overlap is 0. Weights must be non-negative.
func Overlap(p, q []float64) float64 {
	sameLen("Overlap", p, q)
	sp, sq := sum(p), sum(q)
	if sp <= 0 || sq <= 0 {
		return 0
	}
	o := 0.0
	for i := range p {
		o += math.Min(p[i]/sp, q[i]/sq)
	}
	return math.Min(o, 1) // rounding can exceed 1 by an ulp
}

// OverlapWeights is Overlap of two weight maps aligned by key (a key
// missing from one map weighs 0 there), computed without aligning: each
// total is summed, and the minima are added, in the keys' sorted order,
// so the result does not depend on map order. Comparing a small profile
// with a large one costs the small one's keys, not the union's.
func OverlapWeights(a, b map[string]float64) float64 {
	return NewWeights(a).Overlap(b)
}

// Weights is a weight map with its keys sorted and its total summed once,
// for comparing one map with many: NewWeights(a).Overlap(b) is
// OverlapWeights(a, b) to the last bit, and a is not sorted again for
// each b.
type Weights struct {
	m    map[string]float64
	keys []string
	sum  float64
}

// NewWeights prepares m for Overlap.
func NewWeights(m map[string]float64) Weights {
	w := Weights{m: m, keys: slices.Sorted(maps.Keys(m))}
	for _, k := range w.keys {
		w.sum += m[k]
	}
	return w
}

// Overlap is OverlapWeights(w's map, b).
func (w Weights) Overlap(b map[string]float64) float64 {
	o := NewWeights(b)
	if w.sum <= 0 || o.sum <= 0 {
		return 0
	}
	small, other := o.keys, w.m
	if len(w.keys) < len(o.keys) {
		small, other = w.keys, b
	}
	x := 0.0
	for _, k := range small {
		if _, ok := other[k]; ok {
			x += math.Min(w.m[k]/w.sum, b[k]/o.sum)
		}
	}
	return math.Min(x, 1)
}

// HotEdgeThreshold is the T of Hofer et al.'s hot-edge coverage (ICPE
// 2015, Fig. 12: "We used a threshold of T = 0.1 for the hot-edge
// coverage, which means that we consider an edge to be hot if it is within
// a tenth of the hottest edge"), after Zhuang et al. (PLDI 2006).
const HotEdgeThreshold = 0.1

// OverlapContexts is the overlap of two profiles' calling context trees.
func OverlapContexts(a, b *Profile) float64 {
	x, y := alignContexts(a, b)
	return Overlap(x, y)
}

// OverlapContextsWith is OverlapContexts(p, ref) for each p of ps, the
// same numbers to the bit, with the profiles merged into one tree of
// names and its nodes put in their paths' order once, rather than once
// for each p: comparing many samplers' profiles with one large exact
// profile.
//
// Overlap adds its terms in the order of the contexts' keys, over the
// contexts where either profile has a sample; a term where p weighs 0 is
// min(0, ·) = 0 and changes nothing, so p's own contexts in that order
// give the same sum. ref's contexts are looked up in the tree of the ps'
// contexts only (a context none of the ps has weighs nothing in any
// term). Weights are summed in another order than Overlap's, which is
// exact while they are whole numbers of at most 2⁵³ in all (float64's
// integers, safeIntSum); profiles beyond that, with a negative weight or
// with a name holding FrameSep are compared one by one (OverlapContexts).
func OverlapContextsWith(ps []*Profile, ref *Profile) []float64 {
	out := make([]float64, len(ps))
	sr, ok := safeIntSum(ref)
	if !ok || !plainNames(ref) {
		for i, p := range ps {
			out[i] = OverlapContexts(p, ref)
		}
		return out
	}
	t := newContextTree()
	nodes := make([][]int32, len(ps))
	sums := make([]int64, len(ps))
	for i, p := range ps {
		s, ok := safeIntSum(p)
		if !ok || !plainNames(p) {
			out[i] = OverlapContexts(p, ref)
			continue
		}
		nodes[i], sums[i] = t.add(p), s
	}
	n := len(t.parent)
	// ref's weight at each node of the tree.
	nr := t.find(ref)
	wr := make([]float64, n)
	for i := range ref.Samples {
		if u := nr[ref.Samples[i].Context]; u >= 0 {
			wr[u] += float64(ref.Samples[i].Weight)
		}
	}
	// Every node where one of ps has a sample, in the order of their
	// paths (rank).
	need := make([]bool, n)
	for i, p := range ps {
		if nodes[i] == nil {
			continue
		}
		for j := range p.Samples {
			need[nodes[i][p.Samples[j].Context]] = true
		}
	}
	rank := make([]int32, n)
	for r, u := range t.sorted(need) {
		rank[u] = int32(r)
	}
	w := make([]float64, n)
	var touched []int32
	sq := float64(sr)
	for i, p := range ps {
		if nodes[i] == nil || sums[i] <= 0 || sr <= 0 {
			continue
		}
		touched = touched[:0]
		for j := range p.Samples {
			u := nodes[i][p.Samples[j].Context]
			if !need[u] {
				continue
			}
			need[u] = false // reset below
			touched = append(touched, u)
		}
		for j := range p.Samples {
			w[nodes[i][p.Samples[j].Context]] += float64(p.Samples[j].Weight)
		}
		slices.SortFunc(touched, func(a, b int32) int { return int(rank[a] - rank[b]) })
		sp := float64(sums[i])
		o := 0.0
		for _, u := range touched {
			o += math.Min(w[u]/sp, wr[u]/sq)
			w[u], need[u] = 0, true
		}
		out[i] = math.Min(o, 1)
	}
	return out
}

// safeIntSum is the sum of p's weights, and whether float64 adds them
// exactly in any order: none negative, the sum at most 2⁵³ (then every
// partial sum is an integer float64 represents).
func safeIntSum(p *Profile) (int64, bool) {
	const limit = 1 << 53
	var s int64
	for i := range p.Samples {
		w := p.Samples[i].Weight
		if w < 0 || w > limit-s {
			return 0, false
		}
		s += w
	}
	return s, true
}

// OverlapMethods is the overlap of two flat profiles (self weight).
func OverlapMethods(a, b *Profile) float64 {
	_, x, y := Align(a.MethodWeights(), b.MethodWeights())
	return Overlap(x, y)
}

// OverlapEdges is the overlap of two dynamic call graphs (Arnold & Grove's
// accuracy metric).
func OverlapEdges(a, b *Profile) float64 {
	_, x, y := Align(a.EdgeWeights(), b.EdgeWeights())
	return Overlap(x, y)
}

// maxOf is the largest of 0 and x's entries.
func maxOf(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, v)
	}
	return m
}

// HotEdgeCoverage is the share of ref's hot entries that are also hot in
// other, where an entry is hot if its weight is ≥ T × its profile's maximum:
//
//	coverage = |hot(ref) ∩ hot(other)| / |hot(ref)|
//
// Introduced by Zhuang et al. (PLDI 2006) for CCT edges and used by Hofer
// et al. (ICPE 2015) with T = 0.1. T must be in (0, 1]. With no hot entry
// in ref the coverage is 0.
func HotEdgeCoverage(ref, other []float64, T float64) float64 {
	sameLen("HotEdgeCoverage", ref, other)
	return hotCoverage(ref, other, T)
}

// hotCoverage is HotEdgeCoverage of two vectors that may differ in
// length, a missing entry being 0 (never hot). An entry is hot if it is
// positive and ≥ T × the largest of 0 and its vector's entries.
func hotCoverage(ref, other []float64, T float64) float64 {
	if !(T > 0 && T <= 1) {
		panic(fmt.Sprintf("profile: HotEdgeCoverage threshold %v not in (0, 1]", T))
	}
	mr, mo := maxOf(ref), maxOf(other)
	n, both := 0, 0
	for i, v := range ref {
		if v > 0 && v >= T*mr {
			n++
			if i < len(other) && other[i] > 0 && other[i] >= T*mo {
				both++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(both) / float64(n)
}

// HotEdgeCoverageContexts is the hot-edge coverage of two profiles' CCTs:
// an edge of a CCT is the calling context it leads to, weighted by the
// self weight of that context.
//
// Whether an entry is hot does not depend on the entries' order, so the
// contexts are not put in their keys' order (alignContexts): the merged
// tree's nodes serve as they are, a node where neither profile has a
// sample weighing 0 in both, which is never hot. ref's weights are taken
// before other is merged in (the nodes other adds weigh 0 in ref), so
// that ref's table of nodes is dropped first.
func HotEdgeCoverageContexts(ref, other *Profile, T float64) float64 {
	if !plainNames(ref) || !plainNames(other) {
		x, y := alignContexts(ref, other)
		return HotEdgeCoverage(x, y, T)
	}
	t := newContextTree()
	x, _ := t.weights(ref, t.add(ref))
	y, _ := t.weights(other, t.add(other))
	return hotCoverage(x, y, T)
}

// UnionN is Mytkowicz et al.'s (PLDI 2010) disagreement metric: the size of
// the union of the top-n methods of each ranking. n for perfect agreement,
// n × len(rankings) for total disagreement. Rankings shorter than n
// contribute what they have.
func UnionN(rankings [][]string, n int) int {
	set := map[string]bool{}
	for _, r := range rankings {
		for i := 0; i < n && i < len(r); i++ {
			set[r[i]] = true
		}
	}
	return len(set)
}

// Hotness is Mytkowicz et al.'s HOTNESS_p^m: the percentage (0–100) of the
// profile's weight whose leaf is method m.
func Hotness(p *Profile, m string) float64 {
	total := p.TotalWeight()
	if total == 0 {
		return 0
	}
	return 100 * p.MethodWeights()[m] / float64(total)
}

// Pearson is the Pearson correlation coefficient of x and y — Whaley's (JG
// 2000) precision metric, applied to method sample counts of two runs.
func Pearson(x, y []float64) float64 {
	sameLen("Pearson", x, y)
	return stat.Correlation(x, y, nil)
}

// Slope fits y = intercept + slope·x by least squares. Mytkowicz et al.'s
// causality analysis regresses a method's attributed time on the program's
// total time as injected work grows: a slope near 1 means the profiler saw
// the injected time.
func Slope(x, y []float64) (intercept, slope float64) {
	sameLen("Slope", x, y)
	return stat.LinearRegression(x, y, nil, false)
}

// Autocorrelation is the sample autocorrelation function of x at lags
// 1..maxLag (out[0] is lag 1):
//
//	r_k = Σ_{t=1}^{N−k} (x_t − x̄)(x_{t+k} − x̄) / Σ_{t=1}^{N} (x_t − x̄)²
//
// Mytkowicz et al. (Fig. 7, 8) apply it to the intervals between samples:
// a random sampler's autocorrelations stay inside ±ACFBand(N). A constant
// series has no defined autocorrelation: NaN.
func Autocorrelation(x []float64, maxLag int) []float64 {
	n := len(x)
	mean := sum(x) / float64(n)
	den := 0.0
	for _, v := range x {
		den += (v - mean) * (v - mean)
	}
	out := make([]float64, maxLag)
	for k := 1; k <= maxLag; k++ {
		if k >= n || den == 0 {
			out[k-1] = math.NaN()
			continue
		}
		num := 0.0
		for t := 0; t+k < n; t++ {
			num += (x[t] - mean) * (x[t+k] - mean)
		}
		out[k-1] = num / den
	}
	return out
}

// ACFBand is the ±2/√n band inside which the autocorrelations of n
// independent values fall with ≈95 % probability.
func ACFBand(n int) float64 { return 2 / math.Sqrt(float64(n)) }

// Intervals returns the differences between consecutive timestamps (sorted
// first, so the input order does not matter).
func Intervals(timestamps []int64) []float64 {
	ts := append([]int64(nil), timestamps...)
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	var out []float64
	for i := 1; i < len(ts); i++ {
		out = append(out, float64(ts[i]-ts[i-1]))
	}
	return out
}

// OverlapLines is the overlap of two line-level flat profiles (Lines):
// each (method, line) row's self share.
func OverlapLines(a, b []LineShare) float64 {
	weights := func(ls []LineShare) map[string]float64 {
		w := map[string]float64{}
		for _, l := range ls {
			w[l.Method+FrameSep+strconv.Itoa(l.Line)] += l.SelfShare
		}
		return w
	}
	return OverlapWeights(weights(a), weights(b))
}

// UnseenContexts is the Good–Turing estimate (Good, Biometrika 1953) of the
// share of a sampled profile's time spent in calling contexts its samples
// never reached: the contexts (merged by name, as OverlapContexts aligns
// them) sampled exactly once, over the samples. A perfect model of the
// sampled program overlaps the profile's contexts by at most about
// 1 − UnseenContexts: the rest of the time went where the samples do not
// show it. 0 for a profile without samples.
func UnseenContexts(p *Profile) float64 {
	node := newContextTree().add(p)
	counts := map[int32]int64{}
	var n int64
	for i := range p.Samples {
		s := &p.Samples[i]
		counts[node[s.Context]] += s.Count
		n += s.Count
	}
	if n == 0 {
		return 0
	}
	var once int64
	for _, c := range counts {
		if c == 1 {
			once++
		}
	}
	return float64(once) / float64(n)
}
