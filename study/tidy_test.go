package study

import (
	"encoding/csv"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type tidyProbe struct {
	Benchmark string
	Seed      uint64
	SharePct  float64 `tidy:"share_pct"`
	Count     int64
	Related   bool
	hidden    int
	Skipped   float64 `tidy:"-"`
}

// A tidy CSV holds one column per exported field, unrounded floats that
// read back exactly, and says which columns are numeric.
func TestTidyOf(t *testing.T) {
	third := 1.0 / 3
	d := tidyOf([]tidyProbe{{"antlr", 1, third, -2, true, 7, 9}, {"fop, 2", 3, math.NaN(), 0, false, 0, 0}})
	assert.Equal(t, []string{"benchmark", "seed", "share_pct", "count", "related"}, d.Columns)
	assert.Equal(t, []bool{false, true, true, true, false}, d.Numeric)
	b, err := d.CSV()
	require.NoError(t, err)
	all, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	require.NoError(t, err)
	require.Len(t, all, 3)
	got, err := strconv.ParseFloat(all[1][2], 64)
	require.NoError(t, err)
	assert.Equal(t, third, got, "unrounded")
	assert.Equal(t, "fop, 2", all[2][0])
	assert.Equal(t, "NaN", all[2][2])
}

// At fails loudly on a key it does not hold: a misspelt key is never a
// silent zero.
func TestKeyedAt(t *testing.T) {
	m := keyed[string, float64]{"xprof": 0.5}
	assert.Equal(t, 0.5, m.At("xprof"))
	assert.Panics(t, func() { m.At("xporf") })
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{"Seed": "seed", "TotalS": "total_s", "PredictedPct": "predicted_pct", "ACF": "acf", "TopMethod": "top_method", "BaseS": "base_s"} {
		assert.Equal(t, want, snake(in), in)
	}
}
