package workloads

import (
	"encoding/json"
	"testing"

	"github.com/profsim/profsim/program"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 14, class 2: interventions from the command line neither overflow
// nor truncate; each extreme is an error naming the value and its range.
func TestInterventionExtremes(t *testing.T) {
	for _, c := range []struct{ flag, want string }{
		{"HotCold.hot:9223372036854775807", "f must be an integer in [1, 10^15]"},
		{"HotCold.hot:9223372036854775808", "f must be an integer in [1, 10^15]"},
		{"HotCold.hot:1000000000000001", "f must be an integer in [1, 10^15]"},
		{"HotCold.hot:2147483648", ""},
		{"HotCold.hot:1000000000000000", ""},
	} {
		in, err := ParseInjection(c.flag)
		if c.want != "" {
			assert.ErrorContains(t, err, c.want, c.flag)
			continue
		}
		require.NoError(t, err, c.flag)
		p, err := Get("hotcold")
		require.NoError(t, err)
		require.NoError(t, Inject(p, in), c.flag)
		assert.Equal(t, in.F*injectCycles, in.InjectedCycles())
	}
	p, err := Get("hotcold")
	require.NoError(t, err)
	assert.ErrorContains(t, Inject(p, Injection{Method: "HotCold.hot", F: 1 << 62, Position: -1}), "size f = 4611686018427387904 is not in [1, 10^15]")

	for _, c := range []struct{ flag, want string }{
		// hot's work is 100 cycles: × 10^17 is 10^19, beyond int64, which
		// converted to int64 was once 1 cycle, as if the factor were 0.01.
		{"HotCold.hot:1e17", "speedup HotCold.hot:1e+17: methods[2].body[0].work.cycles: 100 × 1e+17 = 1e+19 is not in [1, 10^12]"},
		{"HotCold.hot:1e10", ""}, // exactly 10^12 cycles
		{"HotCold.hot:1.1e10", "methods[2].body[0].work.cycles: 100 × 1.1e+10 = 1.1e+12 is not in"},
		{"HotCold.hot:1e308", "is not in [1, 10^12]"},
		{"HotCold.cold:1e12", "methods[1].body[0].loop.body[0].work.cycles: 2 × 1e+12 = 2e+12 is not in [1, 10^12]"},
		{"HotCold.hot:1e9", ""},
		{"HotCold.hot:1e-300", ""},
	} {
		sp, err := ParseSpeedUp(c.flag)
		require.NoError(t, err, c.flag)
		p, err := Get("hotcold")
		require.NoError(t, err)
		before, _ := json.Marshal(p)
		err = ApplySpeedUp(p, sp)
		if c.want == "" {
			assert.NoError(t, err, c.flag)
			continue
		}
		assert.ErrorContains(t, err, c.want, c.flag)
		after, _ := json.Marshal(p)
		assert.Equal(t, string(before), string(after), "%s: a failed speed-up changes nothing", c.flag)
	}
	for _, bad := range []string{"A.b:NaN", "A.b:Inf", "A.b:-Inf", "A.b:1e400", "A.b:0x"} {
		_, err := ParseSpeedUp(bad)
		assert.ErrorContains(t, err, "factor must be a finite number > 0", bad)
	}
}

// A native method's own work is its native code, and a method's stub
// calls are its time too: a speed-up of it scales its Native and Stub
// statements' cycles, as a Java method's Work.
func TestSpeedUpScalesNativeCode(t *testing.T) {
	p, err := program.Parse([]byte(`
name: native-speedup
methods:
  - class: A
    name: main
    body:
      - call: {method: A.open0}
      - work: {cycles: 10}
  - class: A
    name: open0
    body:
      - native: {cycles: 1001}
      - stub: {cycles: 300, name: arraycopy}
threads:
  - name: main
    entry: A.main
`), program.YAML)
	require.NoError(t, err)
	require.NoError(t, ApplySpeedUp(p, SpeedUp{Method: "A.open0", Factor: 0.5}))
	assert.Equal(t, int64(501), p.Methods[1].Body[0].Native.Cycles, "1001 × 0.5 rounded")
	assert.Equal(t, int64(150), p.Methods[1].Body[1].Stub.Cycles)
	assert.Equal(t, int64(10), p.Methods[0].Body[1].Work.Cycles, "the caller is untouched")
	assert.ErrorContains(t, ApplySpeedUp(p, SpeedUp{Method: "A.open0", Factor: 1e12}), "methods[1].body[0].native.cycles: 501 × 1e+12")
}
