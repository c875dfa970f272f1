package profile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// OverlapWeights is Overlap over the maps aligned by key, to the last
// bit, whatever the maps' sizes and shared keys.
func TestOverlapWeightsIsAlignedOverlap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		a, b := map[string]float64{}, map[string]float64{}
		for i := range r.IntN(40) {
			a[fmt.Sprintf("m%d", r.IntN(60))] += r.Float64() * float64(i+1)
		}
		for i := range r.IntN(40) {
			b[fmt.Sprintf("m%d", r.IntN(60))] += r.ExpFloat64() * float64(i+1)
		}
		_, x, y := Align(a, b)
		assert.Equal(t, Overlap(x, y), OverlapWeights(a, b), "trial %d", trial)
		assert.Equal(t, OverlapWeights(a, b), OverlapWeights(b, a), "trial %d: symmetric", trial)
	}
	assert.Equal(t, 0.0, OverlapWeights(map[string]float64{"a": 1}, map[string]float64{}))
	assert.Equal(t, 0.0, OverlapWeights(map[string]float64{"a": 1}, map[string]float64{"b": 2}))
	assert.Equal(t, 0.5, OverlapWeights(map[string]float64{"a": 1, "b": 1}, map[string]float64{"a": 3}))
}

// OverlapLines compares (method, line) rows: the same method on two
// lines is two rows, and rows of one key add up.
func TestOverlapLines(t *testing.T) {
	a := []LineShare{{Method: "A.f", Line: 1, SelfShare: 0.5}, {Method: "A.f", Line: 2, SelfShare: 0.5}}
	b := []LineShare{{Method: "A.f", Line: 1, SelfShare: 1}}
	assert.InDelta(t, 0.5, OverlapLines(a, b), 1e-12)
	assert.InDelta(t, 1, OverlapLines(a, a), 1e-12)
	c := []LineShare{{Method: "A.f", Line: 1, SelfShare: 0.25}, {Method: "A.f", Line: 1, SelfShare: 0.25}, {Method: "A.f", Line: 2, SelfShare: 0.5}}
	assert.InDelta(t, 1, OverlapLines(a, c), 1e-12)
	assert.InDelta(t, 0, OverlapLines(b, []LineShare{{Method: "A.g", Line: 1, SelfShare: 1}}), 1e-12)
}

// UnseenContexts counts contexts by name, lines merged, and divides the
// contexts sampled once by the samples.
func TestUnseenContextsCountsSingletons(t *testing.T) {
	b := NewBuilder("jfr", "nanoseconds", 1)
	a, bb, c, d := b.Func(Function{Name: "A"}), b.Func(Function{Name: "B"}), b.Func(Function{Name: "C"}), b.Func(Function{Name: "D"})
	fr := func(f, line int) Frame { return Frame{Func: int32(f), Line: int32(line)} }
	b.AddSample([]Frame{fr(a, 1), fr(bb, 1)}, 3, 3, "main")
	b.AddSample([]Frame{fr(a, 2), fr(c, 1)}, 1, 1, "main")
	b.AddSample([]Frame{fr(a, 2), fr(c, 2)}, 1, 1, "main")
	b.AddSample([]Frame{fr(a, 3), fr(d, 1)}, 1, 1, "main")
	assert.InDelta(t, 1.0/6, UnseenContexts(b.Build()), 1e-12, "only A;D was sampled once: A;C twice on two lines")
	assert.Equal(t, 0.0, UnseenContexts(NewBuilder("jfr", "nanoseconds", 1).Build()))
}

// On samples of a known distribution UnseenContexts estimates the mass of
// the contexts not sampled, as Good–Turing does: its expected value
// exceeds the unseen mass's by Σ p²(1−p)^(n−1), computed here.
func TestUnseenContextsEstimatesTheUnseenMass(t *testing.T) {
	const contexts, n, trials = 3000, 1000, 60
	r := rand.New(rand.NewPCG(3, 4))
	p := make([]float64, contexts)
	var sum float64
	for i := range p {
		p[i] = 1 / float64(i+10) // Zipf-like: a few hot contexts, a long tail
		sum += p[i]
	}
	cum := make([]float64, contexts)
	var bias, acc float64
	for i := range p {
		p[i] /= sum
		acc += p[i]
		cum[i] = acc
		bias += p[i] * p[i] * math.Pow(1-p[i], n-1)
	}
	var est, truth, sq float64
	for range trials {
		b := NewBuilder("jfr", "nanoseconds", 1)
		root := b.Func(Function{Name: "root"})
		count := make([]int64, contexts)
		for range n {
			i, _ := slices.BinarySearch(cum, r.Float64())
			count[min(i, contexts-1)]++
		}
		var unseen float64
		for i, k := range count {
			if k == 0 {
				unseen += p[i]
				continue
			}
			f := b.Func(Function{Name: fmt.Sprintf("m%d", i)})
			b.AddSample([]Frame{{Func: int32(root)}, {Func: int32(f)}}, k, k, "main")
		}
		e := UnseenContexts(b.Build())
		est += e
		truth += unseen
		sq += (e - unseen) * (e - unseen)
	}
	est, truth = est/trials, truth/trials
	se := math.Sqrt(sq/trials) / math.Sqrt(trials)
	// The mean estimate is the mean unseen mass plus Good–Turing's bias,
	// within four standard errors of the trials' differences.
	assert.InDelta(t, truth+bias, est, 4*se, "unseen mass %.4f, bias %.4f", truth, bias)
	t.Logf("estimate %.4f, unseen mass %.4f, bias %.4f, standard error %.4f", est, truth, bias, se)
	assert.Greater(t, truth, 0.2, "the test's distribution leaves much unseen")
}

// One Weights compared with many maps gives each the aligned overlap, to
// the last bit: preparing it once changes nothing.
func TestWeightsReusedIsAlignedOverlap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 50 {
		a := map[string]float64{}
		for i := range r.IntN(40) {
			a[fmt.Sprintf("m%d", r.IntN(60))] += r.Float64() * float64(i+1)
		}
		w := NewWeights(a)
		for other := range 5 {
			b := map[string]float64{}
			for i := range r.IntN(40) {
				b[fmt.Sprintf("m%d", r.IntN(60))] += r.ExpFloat64() * float64(i+1)
			}
			_, x, y := Align(a, b)
			assert.Equal(t, Overlap(x, y), w.Overlap(b), "trial %d, map %d", trial, other)
		}
	}
}
