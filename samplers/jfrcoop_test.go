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

// coopShareTolerance: a 2 s run gives about a hundred 20 ms jfr-coop
// samples (250 of jfr-cputime's 8 ms), whose share of a 50 % method has a
// binomial sd of √(0.25/100) = 0.05; a 93 % one √(0.93·0.07/100) ≈ 0.026.
// Two of the larger sd.
const coopShareTolerance = 0.10

func share(w map[string]float64, m string) float64 {
	var tot float64
	for _, v := range w {
		tot += v
	}
	if tot == 0 {
		return 0
	}
	return w[m] / tot
}

// TestJFRCoopTopFrameAtRecordedPC: hotcold without inlining and with
// DebugNonSafepoints. hot()'s only polls are its loop's strip-mined
// back-edge and its return poll; the safepoint sampler sees the thread in
// cold() after the return poll and charges hot() nothing, while jfr-coop
// walks from the recorded pc (compute_top_frame's adjust_pc, or the
// synthetic frame at the return poll) and charges hot() its true share.
func TestJFRCoopTopFrameAtRecordedPC(t *testing.T) {
	out := run(t, "hotcold", func(c *harness.Config) {
		c.Sim.Duration = 2 * sim.Second
		c.JIT.Inline, c.JIT.DebugNonSafepoints = false, true
		c.Samplers = []string{"jfr-coop", "jfr-cputime", "safepoint"}
	})
	want := share(out.Profiles["truth"].MethodWeights(), "HotCold.hot")
	require.Greater(t, want, 0.5)
	assert.InDelta(t, want, share(out.Profiles["jfr-coop"].MethodWeights(), "HotCold.hot"), coopShareTolerance)
	assert.InDelta(t, want, share(out.Profiles["jfr-cputime"].MethodWeights(), "HotCold.hot"), coopShareTolerance)
	assert.Less(t, share(out.Profiles["safepoint"].MethodWeights(), "HotCold.hot"), 0.05)
	// Every compiled request is flagged biased by compute_top_frame except
	// those rebuilt at the sampled method's return poll.
	c := out.Costs["jfr-coop"]
	assert.Greater(t, c.Biased, int64(0))
	assert.Equal(t, int64(0), c.Returned)
}

// leafProgram calls, in a loop, a straight-line method Leaf.f (no loop:
// its only poll is its return poll, after the pop) for 1 ms, then runs
// 1 ms in the caller's own loop: half the time in f.
func leafProgram() *program.Program {
	return &program.Program{Name: "leaf", Methods: []program.Method{
		{Class: "Main", Name: "run", Body: []program.Stmt{{Loop: &program.Loop{Trips: program.Const(1_000_000), Body: []program.Stmt{
			{Call: &program.Call{Method: "Leaf.f"}},
			{Loop: &program.Loop{Trips: program.Const(100), Body: []program.Stmt{{Work: &program.Work{Cycles: 30_000, Bytecodes: 10}}}}},
		}}}}},
		{Class: "Leaf", Name: "f", Body: []program.Stmt{{Work: &program.Work{Cycles: 3_000_000, Bytecodes: 10}}}},
	}, Threads: []program.Thread{{Name: "main", Entry: "Main.run", Count: 1}}}
}

// TestJFRCoopMethodReturnedBeforePoll: a request taken in Leaf.f is
// processed at f's return poll, after f's frame is gone. JDK 25 rebuilds
// a synthetic frame for f (compute_top_frame, is_at_poll_return) and
// charges f; the safepoint sampler, at the same poll, charges the caller.
func TestJFRCoopMethodReturnedBeforePoll(t *testing.T) {
	cfg := harness.MustPresetConfig("hotspot6")
	cfg.Sim.Duration = 2 * sim.Second
	cfg.JIT.Inline, cfg.JIT.DebugNonSafepoints = false, true
	cfg.Samplers = []string{"jfr-coop", "safepoint"}
	out, err := harness.Run(leafProgram(), cfg)
	require.NoError(t, err)
	want := share(out.Profiles["truth"].MethodWeights(), "Leaf.f")
	require.InDelta(t, 0.5, want, 0.1)
	assert.InDelta(t, want, share(out.Profiles["jfr-coop"].MethodWeights(), "Leaf.f"), coopShareTolerance)
	assert.Less(t, share(out.Profiles["safepoint"].MethodWeights(), "Leaf.f"), want-0.15)
}

// blockProgram works 3 ms (compiled; more while interpreted) and sleeps
// 10 ms, over and over: a quarter of its time or more blocked.
func blockProgram() *program.Program {
	return &program.Program{Name: "block", Methods: []program.Method{
		{Class: "Main", Name: "run", Body: []program.Stmt{{Loop: &program.Loop{Trips: program.Const(1_000_000), Body: []program.Stmt{
			{Loop: &program.Loop{Trips: program.Const(100), Body: []program.Stmt{{Work: &program.Work{Cycles: 30_000, Bytecodes: 10}}}}},
			{Block: &program.Block{Kind: program.BlockSleep, Duration: program.Const(10_000_000)}},
		}}}}},
	}, Threads: []program.Thread{{Name: "main", Entry: "Main.run", Count: 1}}}
}

// cpuSampleTolerance: jfr-cputime's samples × period estimate the CPU
// time to within one period per thread plus the tick's rounding; 10 %
// of a 1 s CPU time at 8 ms periods is ample (≈ 125 samples).
const cpuSampleTolerance = 0.10

// TestJFRCPUTimeBlockedThreadGetsNoSamples: a thread blocked half the
// time gets jfr-cputime samples for its CPU time only (samples × period ≈
// its CPU time, not its wall time), none while it sleeps.
func TestJFRCPUTimeBlockedThreadGetsNoSamples(t *testing.T) {
	cfg := harness.MustPresetConfig("hotspot6")
	cfg.Sim.Duration = 2 * sim.Second
	cfg.Samplers = []string{"jfr-cputime"}
	out, err := harness.Run(blockProgram(), cfg)
	require.NoError(t, err)
	p := out.Profiles["jfr-cputime"]
	period := float64(cfg.Sim.CPUs) * 1e9 / 500
	cpu := float64(out.Profiles["truth"].TotalWeight())
	require.Less(t, cpu, 0.8*2e9, "the thread is blocked a quarter of 2 s or more")
	assert.InDelta(t, cpu, float64(p.TotalCount())*period, cpuSampleTolerance*cpu)
	assert.Equal(t, int64(0), out.Costs["jfr-cputime"].Lost)
}

// TestJFRCPUTimeSamplesNativeCode: a thread in native code runs on its CPU
// clock and is sampled (walked by the sampler thread from its last Java
// frame, sample_out_of_safepoint), unlike jfr's execution samples.
func TestJFRCPUTimeSamplesNativeCode(t *testing.T) {
	cfg := harness.MustPresetConfig("hotspot6")
	cfg.Sim.Duration = 5 * sim.Second
	cfg.JIT.StripMiningIter = 100
	cfg.Samplers = []string{"jfr-cputime", "jfr-coop"}
	out, err := harness.Run(nativeProgram(), cfg)
	require.NoError(t, err)
	want := share(out.Profiles["truth"].MethodWeights(), "Nat.n")
	assert.InDelta(t, want, share(out.Profiles["jfr-cputime"].MethodWeights(), "Nat.n"), coopShareTolerance)
	assert.Equal(t, 0.0, share(out.Profiles["jfr-coop"].MethodWeights(), "Nat.n"))
}

// pollFreeProgram spends 50 ms in one straight-line statement (no poll)
// then sleeps 1 ms (a transition, where the queue is walked), over and
// over.
func pollFreeProgram() *program.Program {
	return &program.Program{Name: "pollfree", Methods: []program.Method{
		{Class: "Main", Name: "run", Body: []program.Stmt{{Loop: &program.Loop{Trips: program.Const(1_000_000), Body: []program.Stmt{
			{Work: &program.Work{Cycles: 50_000_000, Bytecodes: 10}},
			{Block: &program.Block{Kind: program.BlockSleep, Duration: program.Const(1_000_000)}},
		}}}}},
	}, Threads: []program.Thread{{Name: "main", Entry: "Main.run", Count: 1}}}
}

// TestJFRCPUTimeLostOnFullQueue: requests queue until the thread polls;
// 50 ms without a poll at a 1 ms CPU period (a signal per 4 ms tick)
// brings about 12 requests, so a queue of 2 loses the rest, counted in
// Costs.Lost; JFR's default capacity loses none.
func TestJFRCPUTimeLostOnFullQueue(t *testing.T) {
	for _, c := range []struct {
		spec string
		lost bool
	}{{"jfr-cputime:small,throttle=1ms,queue_capacity=2", true}, {"jfr-cputime:big,throttle=1ms", false}} {
		cfg := harness.MustPresetConfig("hotspot6")
		cfg.Sim.Duration = 1 * sim.Second
		cfg.Samplers = []string{c.spec}
		out, err := harness.Run(pollFreeProgram(), cfg)
		require.NoError(t, err)
		for name, costs := range out.Costs {
			if name == "truth" {
				continue
			}
			n := out.Profiles[name].TotalCount()
			// Requests still queued when the run ends are neither.
			assert.LessOrEqual(t, n+costs.Lost, costs.Requested, name)
			if c.lost {
				assert.Greater(t, costs.Lost, n, name)
			} else {
				assert.Equal(t, int64(0), costs.Lost, name)
			}
		}
	}
}

// TestJFRCPUTimeThrottle: throttle takes JFR's two forms; a rate is per
// process, so each thread's CPU period is CPUs / rate; anything else is an
// error naming the key. The program is busy 50 of every 51 ms for 1 s.
func TestJFRCPUTimeThrottle(t *testing.T) {
	for _, c := range []struct {
		throttle string
		want     float64 // signals: busy CPU time / period
	}{{"500/s", 980 / 4.0}, {" 20/s", 980 / 100.0}, {"10ms", 980 / 10.0}} {
		cfg := harness.MustPresetConfig("hotspot6")
		cfg.Sim.CPUs = 2
		cfg.Sim.Duration = sim.Second
		cfg.Samplers = []string{"jfr-cputime:x,throttle=" + c.throttle}
		out, err := harness.Run(pollFreeProgram(), cfg)
		require.NoError(t, err, c.throttle)
		assert.InDelta(t, c.want, float64(out.Costs["jfr-cputime:x"].Requested), 1+c.want*throttleCountTolerance, c.throttle)
	}
	for _, bad := range []string{"", "0/s", "-5/s", "x/s", "0ms", "10", "fast", "1e10/s"} {
		spec, err := samplers.ParseSpec("jfr-cputime,throttle=" + bad)
		if err == nil {
			_, err = spec.Resolve()
		}
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "throttle", bad)
	}
}

// throttleCountTolerance: signals are counted at 4 ms ticks, so the count
// can be off by a tick's worth at each of the ~20 sleeps: 5 %, plus one
// for the period the run's end cuts (our choice, from the mechanism).
const throttleCountTolerance = 0.05

// TestJDK25SamplersCostedDoNotAlias: costed, the JDK 25 samplers stall the
// sampled thread at each signal and walk. A constant stall would shift
// hotcold's exactly periodic loop against the exact 4 ms tick by the same
// amount every sample and lock jfr-cputime to one part of it (67.9, 1.2
// % hot() at 2 and 3 µs of handler cost); drawn costs (mean as set) keep
// every share within the passive tolerance of the truth.
func TestJDK25SamplersCostedDoNotAlias(t *testing.T) {
	for _, h := range []string{"2us", "2100ns", "3us"} {
		out := run(t, "hotcold", func(c *harness.Config) {
			c.Sim.Duration = 2 * sim.Second
			c.Mode = samplers.Costed
			c.JIT.Inline, c.JIT.DebugNonSafepoints = false, true
			c.Samplers = []string{"jfr-cputime,handler_cost=" + h, "jfr-coop"}
		})
		want := share(out.Profiles["truth"].MethodWeights(), "HotCold.hot")
		assert.InDelta(t, want, share(out.Profiles["jfr-cputime"].MethodWeights(), "HotCold.hot"), coopShareTolerance, "jfr-cputime, handler %s", h)
		assert.InDelta(t, want, share(out.Profiles["jfr-coop"].MethodWeights(), "HotCold.hot"), coopShareTolerance, "jfr-coop, handler %s", h)
	}
}
