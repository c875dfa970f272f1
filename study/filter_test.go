package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

type filterObs struct {
	Benchmark string
	Value     float64
}

// where keeps the matching observations in order and gives nil for none;
// mustWhere panics naming the cell; values maps in order.
func TestWhere(t *testing.T) {
	obs := []filterObs{{"a", 1}, {"b", 2}, {"a", 3}}
	isA := func(x filterObs) bool { return x.Benchmark == "a" }
	got := where(obs, isA)
	assert.Equal(t, []filterObs{{"a", 1}, {"a", 3}}, got)
	assert.Equal(t, []float64{1, 3}, values(got, func(x filterObs) float64 { return x.Value }))
	assert.Nil(t, where(obs, func(x filterObs) bool { return x.Benchmark == "c" }))
	assert.Nil(t, values([]filterObs(nil), func(x filterObs) float64 { return x.Value }))
	assert.PanicsWithValue(t, "study: X has no runs of c", func() {
		mustWhere(obs, func(x filterObs) bool { return x.Benchmark == "c" }, "X has no runs of %s", "c")
	})
	assert.Equal(t, got, mustWhere(obs, isA, "unused"))
}
