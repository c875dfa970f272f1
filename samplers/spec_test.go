package samplers_test

import (
	"testing"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSpec(t *testing.T) {
	s, err := samplers.ParseSpec("async:fast,interval=1ms,depth=64")
	require.NoError(t, err)
	assert.Equal(t, "async", s.Name)
	assert.Equal(t, "fast", s.Label)
	assert.Equal(t, "async:fast", s.ID())
	assert.Equal(t, []param.KV{{Key: "interval", Value: "1ms"}, {Key: "depth", Value: "64"}}, s.Set)
	assert.Equal(t, "async:fast,interval=1ms,depth=64", s.String())

	plain, err := samplers.ParseSpec("safepoint")
	require.NoError(t, err)
	assert.Equal(t, "safepoint", plain.ID())

	for text, want := range map[string]string{
		"":                      `sampler spec "": empty sampler name (want NAME[:LABEL][,KEY=VALUE...])`,
		"async:":                `sampler spec "async:": empty label after ':'`,
		"async:a/b":             `sampler spec "async:a/b": label "a/b": use letters, digits, '-', '_' and '.' only`,
		"async,interval":        `sampler async: "interval" is not KEY=VALUE`,
		"async,=1ms":            `sampler async: "=1ms" is not KEY=VALUE`,
		"async,depth=1,depth=2": `sampler async: key "depth" given twice`,
	} {
		_, err := samplers.ParseSpec(text)
		require.Error(t, err, text)
		assert.Equal(t, want, err.Error(), text)
	}
}

// Every key of every sampler is named, typed, documented and sourced, and
// its default passes its own range check.
func TestEverySamplerDescribesItsKeys(t *testing.T) {
	for _, info := range samplers.List() {
		keys := info.Keys()
		require.NotEmpty(t, keys, info.Name)
		for _, k := range keys {
			assert.NotEmpty(t, k.Doc, "%s.%s: doc", info.Name, k.Name)
		}
		r, err := samplers.Spec{Name: info.Name}.Resolve()
		require.NoError(t, err, "%s: defaults must be valid", info.Name)
		assert.Len(t, r.Params, len(keys))
	}
}

func TestResolveErrorsNameSamplerAndKey(t *testing.T) {
	for text, want := range map[string]string{
		"async:x,intervl=1ms":     `sampler async:x: unknown key "intervl" (valid: debug_info, depth, handler_base, handler_per_frame, interval, jitter)`,
		"async,interval=fast":     `sampler async: interval: "fast" is not a duration (Go syntax: 10ms, 250us, 1.5s)`,
		"async,interval=-1ms":     `sampler async: interval: -1ms must be > 0`,
		"tprof,random=20ms":       `sampler tprof: random: 20ms must be < interval 10ms`,
		"jfr,max_threads=0":       `sampler jfr: max_threads: 0 must be ≥ 1`,
		"cbs,stride=3.5":          `sampler cbs: stride: "3.5" is not an integer in range for 64 bits`,
		"komorium,leaf_opt=maybe": `sampler komorium: leaf_opt: "maybe" is not a boolean (true or false)`,
		"nosuch":                  `unknown sampler "nosuch"`,
	} {
		s, err := samplers.ParseSpec(text)
		require.NoError(t, err)
		_, err = s.Resolve()
		require.Error(t, err, text)
		assert.Contains(t, err.Error(), want, text)
	}
}

// A resolved spec is the full configuration: its Spec, parsed and
// resolved again, gives the same parameters, and the sampler it builds
// carries the label and the values.
func TestResolvedRoundTrip(t *testing.T) {
	s, err := samplers.ParseSpec("jfr:quick,period=5ms,max_threads=2")
	require.NoError(t, err)
	r, err := s.Resolve()
	require.NoError(t, err)
	again, err := samplers.ParseSpec(r.Spec().String())
	require.NoError(t, err)
	r2, err := again.Resolve()
	require.NoError(t, err)
	assert.Equal(t, r.Params, r2.Params)
	assert.Equal(t, "jfr:quick", r2.ID)
	j := r.New().(*samplers.JFR)
	assert.Equal(t, "jfr:quick", j.Name())
	assert.Equal(t, 5*sim.Millisecond, j.Config().Period)
	assert.Equal(t, 2, j.Config().MaxThreads)
	assert.Equal(t, samplers.DefaultJFRConfig().SuspendCost, j.Config().SuspendCost, "unset keys keep their defaults")
}

// jitterMeanTolerance: the mean of n exponential draws has relative
// standard error 1/√n; with n ≈ 2000 ticks, 4 standard errors are ≈ 0.09.
const jitterMeanTolerance = 0.09

// A grid timer's ticks stay on their grid, each late by an exponential
// draw of the configured mean; a sleeping sampler thread's lateness
// accumulates into its intervals.
func TestTimerJitter(t *testing.T) {
	const mean = 50 * sim.Microsecond
	out := run(t, "hotcold", func(c *harness.Config) {
		c.Sim.Duration = 2 * sim.Second
		c.Samplers = []string{"async:exact", "async:late,jitter=50us,interval=1ms", "jfr:late,jitter=50us,period=1ms"}
	})
	exact, late, jfr := out.Costs["async:exact"].Ticks, out.Costs["async:late"].Ticks, out.Costs["jfr:late"].Ticks
	for i, at := range exact {
		assert.Equal(t, int64(i+1)*int64(10*sim.Millisecond), at, "jitter 0 is a perfect grid")
	}
	var sum float64
	for i, at := range late {
		nominal := int64(i+1) * int64(sim.Millisecond)
		require.GreaterOrEqual(t, at, nominal, "a tick is never early")
		require.Less(t, at, nominal+int64(sim.Millisecond), "and keeps its grid")
		sum += float64(at - nominal)
	}
	require.Greater(t, len(late), 1900)
	assert.InEpsilon(t, float64(mean), sum/float64(len(late)), jitterMeanTolerance)
	// JFR's thread sleeps: its n-th round comes n periods plus n draws late.
	n := len(jfr)
	drift := float64(jfr[n-1]-int64(n)*int64(sim.Millisecond)) / float64(n)
	assert.InEpsilon(t, float64(mean), drift, jitterMeanTolerance)
}
