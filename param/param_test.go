package param_test

import (
	"strings"
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
	hidden   int      //lint:ignore U1000 an unexported field, which Names must skip
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
		{"interval", "3000000h", `interval: "3000000h" is beyond the model's maximum time (10¹⁸ns, 277777h46m40s)`},
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

type ranged struct {
	Speed  int64    `key:"speed" check:"divides:100"`
	Factor int64    `key:"factor" check:"1..1_000"`
	Slice  sim.Time `key:"slice" check:"1us..1h"`
	Step   sim.Time `key:"step" check:"0|100ns.."`
	Share  float64  `key:"share" check:"(0..1"`
	Open   float64  `key:"open" check:"0..1)"`
	Most   int      `key:"most" check:"..10"`
	Late   sim.Time `key:"late" check:"0..max"`
}

func TestRangesAdmitExactlyTheirValues(t *testing.T) {
	for _, tc := range []struct {
		key, value string
		want       string // "" when valid
	}{
		{"speed", "100", ""},
		{"speed", "25", ""},
		{"speed", "1", ""},
		{"speed", "40", "speed: 40 must be a divisor of 100"},
		{"speed", "1000", "speed: 1000 must be a divisor of 100"},
		{"speed", "0", "speed: 0 must be a divisor of 100"},
		{"speed", "-50", "speed: -50 must be a divisor of 100"},
		{"factor", "1", ""},
		{"factor", "1000", ""},
		{"factor", "1001", "factor: 1001 must be in [1, 1_000]"},
		{"factor", "0", "factor: 0 must be in [1, 1_000]"},
		{"slice", "1us", ""},
		{"slice", "1h", ""},
		{"slice", "999ns", "slice: 999ns must be in [1us, 1h]"},
		{"slice", "1h0m0.000000001s", "slice: 1h0m0.000000001s must be in [1us, 1h]"},
		{"step", "0", ""},
		{"step", "100ns", ""},
		{"step", "1000000h", ""},
		{"step", "99ns", "step: 99ns must be 0 or ≥ 100ns"},
		{"step", "-1ns", "step: -1ns must be 0 or ≥ 100ns"},
		{"share", "1", ""},
		{"share", "1e-300", ""},
		{"share", "0", "share: 0 must be in (0, 1]"},
		{"open", "0", ""},
		{"open", "1", "open: 1 must be in [0, 1)"},
		{"most", "10", ""},
		{"most", "-5", ""},
		{"most", "11", "most: 11 must be ≤ 10"},
		{"late", "277777h46m40s", ""}, // sim.MaxTime
		{"late", "277777h46m40.000000001s", "late: 277777h46m40.000000001s must be in [0, 10¹⁸ns]"},
	} {
		c := ranged{Speed: 100, Factor: 1, Slice: sim.Millisecond, Share: 1}
		err := param.Set(&c, tc.key, tc.value)
		if tc.want == "" {
			assert.NoError(t, err, "%s=%s", tc.key, tc.value)
			continue
		}
		require.Error(t, err, "%s=%s", tc.key, tc.value)
		assert.Equal(t, tc.want, err.Error())
		var re *param.RangeError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, tc.key, re.Key)
	}
	c := ranged{Speed: 30, Factor: 1, Slice: sim.Millisecond, Share: 1}
	assert.EqualError(t, param.Check(&c), "speed: 30 must be a divisor of 100", "Check enforces the same ranges")
}

func TestMalformedCheckPanicsWhenKeysAreRead(t *testing.T) {
	type bad struct {
		X int64 `key:"x" check:"1...2"`
	}
	type onBool struct {
		B bool `key:"b" check:">0"`
	}
	type divFloat struct {
		F float64 `key:"f" check:"divides:10"`
	}
	assert.Panics(t, func() { param.Names(&bad{}) })
	assert.Panics(t, func() { param.Names(&onBool{}) })
	assert.Panics(t, func() { param.Names(&divFloat{}) })
}

func TestRangeText(t *testing.T) {
	for check, want := range map[string]string{
		"": "—", ">0": "> 0", ">=0": "≥ 0", ">=1": "≥ 1", "0..1": "in [0, 1]", "0..1)": "in [0, 1)",
		"(0..1": "in (0, 1]", "1us..": "≥ 1us", "(0..": "> 0", "0|1us..1h": "0 or in [1us, 1h]",
		"divides:100": "a divisor of 100", "..5": "≤ 5", "100us..max": "in [100us, 10¹⁸ns]",
	} {
		assert.Equal(t, want, param.RangeText(check), check)
	}
}

// WriteKeys aligns the name, type, default and range columns and ends
// each row with the meaning and the default's source.
func TestWriteKeys(t *testing.T) {
	type cfg struct {
		Interval sim.Time `key:"interval" check:">0" doc:"time between samples" src:"the paper: 10 ms"`
		N        int64    `key:"n" doc:"how many"`
	}
	c := cfg{Interval: 10 * sim.Millisecond, N: 3}
	var b strings.Builder
	param.WriteKeys(&b, param.Keys(&c))
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	require.Len(t, lines, 3)
	assert.True(t, strings.HasPrefix(lines[0], "  key"), lines[0])
	assert.True(t, strings.HasSuffix(lines[0], "meaning; source of the default"), lines[0])
	assert.Contains(t, lines[1], "10ms")
	assert.True(t, strings.HasSuffix(lines[1], "time between samples; the paper: 10 ms"), lines[1])
	assert.True(t, strings.HasSuffix(lines[2], "how many"), lines[2])
	assert.Equal(t, strings.Index(lines[1], "duration"), strings.Index(lines[2], "int"), "the type column is aligned")
}
