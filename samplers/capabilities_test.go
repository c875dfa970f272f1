package samplers_test

import (
	"slices"
	"testing"

	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every registered sampler provides exactly the capabilities its mechanism
// has: the edge samplers sample at prologue/epilogue yield points and feed
// the inliner, Komorium instruments the program, the safepoint family and
// Hofer's samplers take a settable interval.
func TestRegisteredCapabilities(t *testing.T) {
	want := map[string][]string{
		"cbs":          {"PrologueYieldPointer", "CallGraphSource"},
		"jikes-timer":  {"PrologueYieldPointer", "CallGraphSource"},
		"komorium":     {"Instrumenter"},
		"instrument":   {"Instrumenter"},
		"komorium-set": {"Instrumenter", "Membered", "PassiveOnly"},
		"async":        {"TickSynchronous"},
		"hotmethods":   {"TickSynchronous"},
		"jfr":          {"TickSynchronous"},
		"pcct":         {"TickSynchronous"},
		"tprof":        {"TickSynchronous"},
		"hprof":        {"IntervalSetter"},
		"jprofile":     {"IntervalSetter"},
		"jvmti":        {"IntervalSetter"},
		"safepoint":    {"IntervalSetter"},
		"xprof":        {"IntervalSetter"},
		"yourkit":      {"IntervalSetter"},
		"sps":          {"IntervalSetter"},
		"isps":         {"IntervalSetter"},
	}
	for _, info := range samplers.List() {
		s := info.Build(info.Name, info.Config())
		var got []string
		if np, ok := s.(samplers.PrologueYieldPointer); ok && np.NeedsPrologueYieldPoints() {
			got = append(got, "PrologueYieldPointer")
		}
		if _, ok := s.(samplers.CallGraphSource); ok {
			got = append(got, "CallGraphSource")
		}
		if _, ok := s.(samplers.Instrumenter); ok {
			got = append(got, "Instrumenter")
		}
		if u, ok := s.(samplers.UnitInstrumenter); ok && u.UnitProbes(samplers.Costed) != nil {
			got = append(got, "UnitInstrumenter")
		}
		if _, ok := s.(samplers.IntervalSetter); ok {
			got = append(got, "IntervalSetter")
		}
		if _, ok := s.(samplers.TickSynchronous); ok {
			got = append(got, "TickSynchronous")
		}
		if _, ok := s.(samplers.Membered); ok {
			got = append(got, "Membered")
		}
		if po, ok := s.(samplers.PassiveOnly); ok && po.PassiveOnly() {
			got = append(got, "PassiveOnly")
		}
		assert.Equal(t, want[info.Name], got, info.Name)
	}
}

// SetInterval sets the interval of a sampler that has one and names a
// sampler that has none.
func TestSetInterval(t *testing.T) {
	// The samplers' types are the package's own; their Config methods
	// return the exported configurations.
	type hoferConfigured interface{ Config() samplers.HoferConfig }
	type safepointConfigured interface {
		Config() samplers.SafepointConfig
	}
	s, err := samplers.New("sps")
	require.NoError(t, err)
	require.NoError(t, samplers.SetInterval(s, 3*sim.Millisecond))
	assert.Equal(t, 3*sim.Millisecond, s.(hoferConfigured).Config().Interval)

	s, err = samplers.New("jvmti")
	require.NoError(t, err)
	require.NoError(t, samplers.SetInterval(s, 7*sim.Millisecond))
	assert.Equal(t, 7*sim.Millisecond, s.(safepointConfigured).Config().Interval)

	s, err = samplers.New("tprof")
	require.NoError(t, err)
	assert.EqualError(t, samplers.SetInterval(s, sim.Millisecond),
		"sampler tprof: has no settable sampling interval (not a samplers.IntervalSetter)")
}

// The tick-synchronous samplers are the ones whose OnTimer takes the
// samples there and then — Async, JFR, PCCT (pcct and hotmethods) and
// Tprof — and no other: the safepoint family, Hofer's, the edge samplers,
// jfr-coop and jfr-cputime sample at a later poll or safepoint, Komorium
// has no ticks. An unknown name is an error, not a no.
func TestTickSynchronousNames(t *testing.T) {
	want := []string{"async", "hotmethods", "jfr", "pcct", "tprof"}
	assert.Equal(t, want, samplers.TickSynchronousNames())
	for _, info := range samplers.List() {
		ts, err := samplers.IsTickSynchronous(info.Name)
		require.NoError(t, err, info.Name)
		assert.Equal(t, slices.Contains(want, info.Name), ts, info.Name)
	}
	ts, err := samplers.IsTickSynchronous("async:exact")
	assert.ErrorContains(t, err, `unknown sampler "async:exact"`, "a name, not a profile ID")
	assert.False(t, ts)
	_, err = samplers.IsTickSynchronous("gprof")
	assert.ErrorContains(t, err, `unknown sampler "gprof"`)
}
