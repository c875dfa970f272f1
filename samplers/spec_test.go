package samplers_test

import (
	"encoding/json"
	"go/token"
	"reflect"
	"testing"
	"time"

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

// A sampler is built through the registry from a spec, never by its Go
// type: every registered sampler's type is the package's own, so code
// outside samplers can reach one only through Sampler and the
// capabilities.
func TestSamplerTypesArePrivate(t *testing.T) {
	for _, info := range samplers.List() {
		s, err := samplers.New(info.Name)
		require.NoError(t, err, info.Name)
		typ := reflect.TypeOf(s)
		if typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		assert.False(t, token.IsExported(typ.Name()), "%s: type %s is exported", info.Name, typ)
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
		"async:x,intervl=1ms":     `sampler async:x: unknown key "intervl" (valid: engine, handler_base, handler_per_frame, interval, jitter, jstackdepth, oracle, threads_per_tick, tick_interval)`,
		"async,interval=fast":     `sampler async: interval: "fast" is not a duration (Go syntax: 10ms, 250us, 1.5s)`,
		"async,interval=-1ms":     `sampler async: interval: -1ms must be in [1us, 10¹⁸ns]`,
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
// Period is a timer sampler's interval (JFR's period), 0 for a counting
// sampler.
func TestResolvedPeriod(t *testing.T) {
	for spec, want := range map[string]time.Duration{
		"async": 10 * time.Millisecond, "async,interval=1ms": time.Millisecond,
		"jfr": 20 * time.Millisecond, "jfr,interval=5ms": 5 * time.Millisecond, "komorium": 0,
	} {
		s, err := samplers.ParseSpec(spec)
		require.NoError(t, err)
		r, err := s.Resolve()
		require.NoError(t, err)
		assert.Equal(t, want, r.Period(), spec)
	}
}

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
	j := r.New().(interface {
		samplers.Sampler
		Config() samplers.JFRConfig
	})
	assert.Equal(t, "jfr:quick", j.Name())
	assert.Equal(t, 5*sim.Millisecond, j.Config().Period)
	assert.Equal(t, 2, j.Config().MaxThreads)
	assert.Equal(t, samplers.DefaultJFRConfig().SuspendCost, j.Config().SuspendCost, "unset keys keep their defaults")
}

// Costs.Measures is "extra" in JSON, keyed by the measures' names, and
// reads back; an unknown name is an error naming it.
func TestMeasuresRoundTrip(t *testing.T) {
	c := samplers.Costs{Measures: map[samplers.Measure]float64{samplers.PCCTNodes: 6, samplers.FramesExaminedPerSample: 1.5}}
	b, err := json.Marshal(c)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"extra":{"frames_examined_per_sample":1.5,"pcct_nodes":6}`)
	var back samplers.Costs
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, c.Measures, back.Measures)
	err = json.Unmarshal([]byte(`{"extra":{"pcct_node":6}}`), &back)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown measure "pcct_node"`)
	assert.Contains(t, samplers.MeasureNames(), "pcct_nodes")
}

// A misspelt sampler or key, or a key under the name the profiler's own
// users know it by, gets a did-you-mean.
func TestDidYouMean(t *testing.T) {
	for spec, want := range map[string]string{
		"safepiont":              `unknown sampler "safepiont"; did you mean "safepoint"?`,
		"async,intervl=1ms":      `unknown key "intervl"`,
		"async,event=cpu":        `did you mean "engine"?`,
		"async,depth=64":         `did you mean "jstackdepth"?`,
		"jfr-cputime,rate=500":   `did you mean "throttle"?`,
		"jfr-coop,stackdepth=64": `did you mean "depth"?`,
		"async,period=1ms":       `did you mean "interval"?`,
		"tprof,period=1ms":       `did you mean "interval"?`,
	} {
		s, err := samplers.ParseSpec(spec)
		if err == nil {
			_, err = s.Resolve()
		}
		require.Error(t, err, spec)
		assert.Contains(t, err.Error(), want, spec)
	}
	// jfr's period answers to interval, as every other timer's; not both.
	s, err := samplers.ParseSpec("jfr,interval=10ms")
	require.NoError(t, err)
	r, err := s.Resolve()
	require.NoError(t, err)
	assert.Contains(t, r.Params, param.KV{Key: "period", Value: "10ms"})
	s, err = samplers.ParseSpec("jfr-coop,interval=10ms,period=20ms")
	require.NoError(t, err)
	_, err = s.Resolve()
	assert.ErrorContains(t, err, `key "period" given twice (as interval and period)`)
	s, err = samplers.ParseSpec("async,intervl=1ms")
	require.NoError(t, err)
	_, err = s.Resolve()
	assert.Contains(t, err.Error(), `did you mean "interval"?`)
	s, err = samplers.ParseSpec("async,zzzzzzzz=1")
	require.NoError(t, err)
	_, err = s.Resolve()
	assert.NotContains(t, err.Error(), "did you mean", "nothing is near")
}
