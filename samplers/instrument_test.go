package samplers_test

import (
	"testing"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// instrumentPassiveOverlap is how close the passive tracer's flat
// profile comes to the truth: its probes cost nothing, so it is exact up
// to the loops around inlined callees, which keep their back-edge polls
// because a probe is a call (measured 0.9999 on abcuv, seed 1).
const instrumentPassiveOverlap = 0.999

// instrumentRun runs abcuv (a → b → c, u → v, every call inlinable) for
// 300 ms with the truth and the given samplers.
func instrumentRun(t *testing.T, mode samplers.Mode, specs ...string) *harness.Outcome {
	t.Helper()
	return run(t, "abcuv", func(c *harness.Config) {
		c.Samplers = append([]string{"truth"}, specs...)
		c.Sim.Duration = 300 * sim.Millisecond
		c.Mode = mode
	})
}

// inlined is how many callees the JIT inlined over its compilations.
func inlined(out *harness.Outcome) int {
	n := 0
	for _, e := range out.JIT.Events() {
		n += e.Inlined
	}
	return n
}

// edgeTotal is the weight of p's call edges.
func edgeTotal(p *profile.Profile) int64 {
	var n int64
	for _, e := range p.Edges {
		n += e.Weight
	}
	return n
}

// The tracer sees every source-level call: passive, its profile is the
// truth's (self time per method, calling contexts, call edges with their
// exact counts).
func TestInstrumentPassiveIsExact(t *testing.T) {
	out := instrumentRun(t, samplers.Passive, "instrument")
	truth, p := out.Profiles["truth"], out.Profiles["instrument"]
	assert.GreaterOrEqual(t, profile.OverlapMethods(truth, p), instrumentPassiveOverlap)
	assert.GreaterOrEqual(t, profile.OverlapContexts(truth, p), instrumentPassiveOverlap)
	assert.Equal(t, edgeTotal(truth), edgeTotal(p), "every call's entry probe ran")
	c := out.Costs["instrument"]
	assert.Zero(t, c.Measures[samplers.UnmatchedExits])
	assert.Zero(t, c.Measures[samplers.StaleActivations])
}

// Probes in the bytecode are calls the JIT cannot remove: costed, the
// inliner still inlines (the probes' 6 bytes leave abcuv's methods
// small), and every inlined body's probes run — the tracer counts every
// call the truth counts, and the run is slower by the probes' cost. The
// same probes placed after inlining (Bubo) leave inlining as it was and
// see only the compiled units' entries.
func TestInstrumentProbesSurviveInlining(t *testing.T) {
	plain := instrumentRun(t, samplers.Costed)
	before := instrumentRun(t, samplers.Costed, "instrument")
	require.Positive(t, inlined(before), "the JIT inlines abcuv's calls despite the probes")
	assert.Equal(t, edgeTotal(before.Profiles["truth"]), edgeTotal(before.Profiles["instrument"]), "inlined bodies keep their probes")
	assert.Less(t, before.Result.Truth.BytecodeTotal(), plain.Result.Truth.BytecodeTotal(), "the probes' cost slows the program: less work in 300 ms")

	after := instrumentRun(t, samplers.Costed, "instrument,after_inlining=true")
	assert.Equal(t, inlined(plain), inlined(after), "probes placed after inlining change no inlining decision")
	seen, calls := edgeTotal(after.Profiles["instrument"]), edgeTotal(after.Profiles["truth"])
	assert.Positive(t, seen)
	assert.Less(t, seen, calls/10, "inlined callees have no probes")
	// The after-inlining tracer sees calls into compiled units only: its
	// profile folds each inlined callee into its root.
	assert.Less(t, profile.OverlapMethods(after.Profiles["truth"], after.Profiles["instrument"]), instrumentPassiveOverlap)
}

// Bigger probes make fewer methods small enough to inline: probes of 400
// bytes put every method past FreqInlineSize (325), and the JIT inlines
// nothing; probes of no size leave inlining as it is without them.
func TestInstrumentProbeBytesShrinkInlining(t *testing.T) {
	plain := instrumentRun(t, samplers.Costed)
	zero := instrumentRun(t, samplers.Costed, "instrument,probe_bytes=0")
	big := instrumentRun(t, samplers.Costed, "instrument,probe_bytes=400")
	assert.Positive(t, inlined(plain))
	assert.Equal(t, inlined(plain), inlined(zero))
	assert.Zero(t, inlined(big))
}

// A tracer whose probes the JIT places needs the JIT; two instrumenting
// samplers cannot share the program.
func TestInstrumentRefusals(t *testing.T) {
	p, err := workloads.Get("abcuv")
	require.NoError(t, err)
	cfg := harness.MustPresetConfig("hotspot6")
	cfg.Sim.Duration = 10 * sim.Millisecond
	cfg.NoJIT = true
	cfg.Samplers = []string{"instrument,after_inlining=true"}
	_, err = harness.Run(p, cfg)
	assert.ErrorContains(t, err, "sampler instrument: its probes are placed by the JIT after inlining (after_inlining), and the run has no JIT")
	cfg.NoJIT = false
	cfg.Samplers = []string{"instrument", "komorium"}
	_, err = harness.Run(p, cfg)
	assert.ErrorContains(t, err, "samplers instrument, komorium: at most one sampler may instrument the program")
}

// An exception that unwinds frames skips their exit probes: the tracer
// closes them at the thread's next probe at their depth or above (here
// main's next call), counts them stale, and still counts every
// activation and call.
func TestInstrumentUnwoundActivations(t *testing.T) {
	p, err := program.Parse([]byte(`name: unwind
methods:
  - {class: A, name: main, body: [{loop: {trips: 1000, body: [{call: {method: A.f}}, {work: {cycles: 50, bytecodes: 10}}]}}]}
  - {class: A, name: f, body: [{work: {cycles: 20, bytecodes: 5}}, {call: {method: A.g}}]}
  - {class: A, name: g, body: [{work: {cycles: 30, bytecodes: 5}}, {throw: {depth: 2}}]}
threads: [{name: main, entry: A.main}]
`), program.YAML)
	require.NoError(t, err)
	cfg := harness.MustPresetConfig("hotspot6")
	cfg.Sim.Duration = sim.Second
	cfg.Samplers = []string{"truth", "instrument"}
	out, err := harness.Run(p, cfg)
	require.NoError(t, err)
	c := out.Costs["instrument"]
	assert.Equal(t, float64(2*1000), c.Measures[samplers.StaleActivations], "f and g, unwound in every iteration")
	assert.Zero(t, c.Measures[samplers.UnmatchedExits])
	truth, prof := out.Profiles["truth"], out.Profiles["instrument"]
	assert.Equal(t, edgeTotal(truth), edgeTotal(prof))
	var calls int64
	for _, s := range prof.Samples {
		calls += s.Count
	}
	assert.Equal(t, int64(1+2*1000), calls, "main and every f and g")
}
