package samplers_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

// stubProgram alternates two never-inlined methods of equal cost, compiled
// from the start, each with an uncommon trap (so that a walk of its
// compiled code finds a debug record): Main.pure runs 10 µs of work,
// Main.copy 1 µs of work and then 9 µs in a VM stub (an arraycopy's). Each
// has half of the run's time; a tenth of Main.copy's is in Java code.
func stubProgram() *program.Program {
	no := false
	return &program.Program{Name: "stubs", Methods: []program.Method{
		{Class: "Main", Name: "run", Body: []program.Stmt{{Loop: &program.Loop{Trips: program.Const(1_000_000_000), Body: []program.Stmt{
			{Call: &program.Call{Method: "Main.pure", Inline: &no}},
			{Call: &program.Call{Method: "Main.copy", Inline: &no}},
		}}}}},
		{Class: "Main", Name: "pure", Compiled: true, Traps: true, Body: []program.Stmt{{Work: &program.Work{Cycles: 10_000, Bytecodes: 20}}}},
		{Class: "Main", Name: "copy", Compiled: true, Traps: true, Body: []program.Stmt{
			{Work: &program.Work{Cycles: 1_000, Bytecodes: 10}},
			{Stub: &program.Stub{Cycles: 9_000, Name: "arraycopy"}},
		}},
	}, Threads: []program.Thread{{Name: "main", Entry: "Main.run", Count: 1}}}
}

// stubShareTolerance: a 5 s run at 1 ms gives about 5 000 samples (JFR's
// about 2 750), whose shares have a binomial sd below √(0.25/2750) ≈ 0.01;
// four of those.
const stubShareTolerance = 0.04

// Time in a VM stub is the calling method's: the truth and async-profiler
// charge it to Main.copy. JFR's execution sampler cannot walk a thread
// whose pc is in a stub (JfrGetCallTrace::find_top_frame), so it loses
// those ticks — nine tenths of Main.copy's — and says why; the safepoint
// sampler waits for the poll after the stub and loses none.
func TestStubTimeBySampler(t *testing.T) {
	cfg := harness.MustPresetConfig("hotspot17")
	cfg.Sim.Duration = 5 * sim.Second
	cfg.Samplers = []string{"jfr,period=1ms", "async,interval=1ms", "safepoint,interval=1ms"}
	cfg.Trace = samplers.NewTrace(nil)
	out, err := harness.Run(stubProgram(), cfg)
	require.NoError(t, err)

	share := func(name, method string) (float64, float64) {
		w := out.Profiles[name].MethodWeights()
		var total float64
		for _, v := range w {
			total += v
		}
		return w[method] / total, total
	}
	truthCopy, _ := share("truth", "Main.copy")
	assert.InDelta(t, 0.5, truthCopy, stubShareTolerance, "the stub's time is Main.copy's")
	asyncCopy, _ := share("async", "Main.copy")
	assert.InDelta(t, truthCopy, asyncCopy, stubShareTolerance, "async-profiler sees the stub's caller")

	// JFR sees Main.copy's 1 µs of Java code against Main.pure's 10.
	jfrCopy, _ := share("jfr", "Main.copy")
	assert.InDelta(t, 1.0/11, jfrCopy, stubShareTolerance)
	var jfr *samplers.Bias
	for _, b := range cfg.Trace.Bias() {
		if b.Sampler == "jfr" {
			jfr = b
		}
	}
	require.NotNil(t, jfr)
	lost := jfr.Skipped[samplers.SkipStub]
	assert.InDelta(t, 0.45, float64(lost)/float64(jfr.Total+lost), stubShareTolerance, "the ticks in the stub: 9 of every 20 µs")

	sp := out.Costs["safepoint"]
	require.Positive(t, sp.Requested)
	assert.InDelta(t, 1.0, float64(sp.Taken)/float64(sp.Requested), stubShareTolerance, "a safepoint waits for the stub to return")
}
