package param_test

import (
	"testing"

	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type inner struct {
	MaxPath int64 `key:"max_path" check:">=0" unit:"bytecodes"`
	LeafOpt bool  `key:"leaf_opt"`
}

type cfg struct {
	Interval sim.Time `key:"interval" check:">0" doc:"period" src:"paper"`
	Share    float64  `key:"share" check:"0..1)"`
	Name     string   `key:"name"`
	Depth    int      `key:"depth" check:">=0"`
	hidden   int
	inner
	Cost inner `key:"cost"`
}

func TestKeysSetValuesRoundTrip(t *testing.T) {
	c := cfg{Interval: 10 * sim.Millisecond, Share: 0.25, Depth: 4}
	assert.Equal(t, []string{"interval", "share", "name", "depth", "max_path", "leaf_opt", "cost.max_path", "cost.leaf_opt"}, param.Names(&c))
	k := param.Keys(&c)[0]
	assert.Equal(t, param.Duration, k.Kind)
	assert.Equal(t, "10ms", k.Default)
	assert.Equal(t, "paper", k.Source)

	require.NoError(t, param.Set(&c, "interval", "250us"))
	require.NoError(t, param.Set(&c, "share", "0.1"))
	require.NoError(t, param.Set(&c, "cost.max_path", "50"))
	require.NoError(t, param.Set(&c, "leaf_opt", "true"))
	assert.Equal(t, 250*sim.Microsecond, c.Interval)
	assert.Equal(t, int64(50), c.Cost.MaxPath)
	assert.True(t, c.LeafOpt)

	var d cfg
	for _, kv := range param.Values(&c) {
		require.NoError(t, param.Set(&d, kv.Key, kv.Value), kv.Key)
	}
	assert.Equal(t, c, d, "Values then Set reproduces the struct")
	v, err := param.Get(&c, "interval")
	require.NoError(t, err)
	assert.Equal(t, "250us", v, "ASCII microseconds")
}

func TestSetErrorsNameKeyAndProblem(t *testing.T) {
	c := cfg{Interval: 1}
	for _, tc := range []struct{ key, value, want string }{
		{"intervl", "1ms", `unknown key "intervl" (valid: cost.leaf_opt, cost.max_path, depth, interval, leaf_opt, max_path, name, share)`},
		{"interval", "1", `interval: "1" is not a duration (Go syntax: 10ms, 250us, 1.5s)`},
		{"interval", "-1ms", "interval: -1ms must be > 0"},
		{"interval", "0", "interval: 0s must be > 0"},
		{"interval", "3000000h", `interval: "3000000h" is not a duration (Go syntax: 10ms, 250us, 1.5s)`},
		{"share", "1", "share: 1 must be in [0, 1)"},
		{"share", "NaN", `share: "NaN" is not a finite number`},
		{"depth", "4294967396", `depth: "4294967396" is not an integer in range for 64 bits`},
		{"depth", "1.5", `depth: "1.5" is not an integer in range for 64 bits`},
		{"depth", "-1", "depth: -1 must be ≥ 0"},
		{"leaf_opt", "yes", `leaf_opt: "yes" is not a boolean (true or false)`},
	} {
		err := param.Set(&c, tc.key, tc.value)
		if tc.key == "depth" && tc.value == "4294967396" {
			// int is 64 bits here: the value fits, and is in range.
			assert.NoError(t, err)
			continue
		}
		require.Error(t, err, "%s=%s", tc.key, tc.value)
		assert.Equal(t, tc.want, err.Error())
	}
}

func TestCheckAndNumbers(t *testing.T) {
	c := cfg{Interval: 0}
	assert.EqualError(t, param.Check(&c), "interval: 0s must be > 0")
	c.Interval = 2 * sim.Microsecond
	c.LeafOpt = true
	require.NoError(t, param.Check(&c))
	nums := param.Numbers(&c)
	assert.Equal(t, "interval", nums[0].Key.Name)
	assert.Equal(t, 2000.0, nums[0].Value, "durations in ns")
	for _, n := range nums {
		assert.NotEqual(t, "name", n.Key.Name, "strings are not numbers")
		if n.Key.Name == "leaf_opt" {
			assert.Equal(t, 1.0, n.Value)
		}
	}
}
