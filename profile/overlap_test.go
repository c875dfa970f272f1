package profile

import (
	"fmt"
	"math/rand/v2"
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
