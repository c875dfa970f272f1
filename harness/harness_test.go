package harness

import (
	"maps"
	"testing"

	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunWiresEverything(t *testing.T) {
	p, err := workloads.Get("hotcold")
	require.NoError(t, err)
	cfg := MustPresetConfig("hotspot6")
	cfg.Sim.Duration = 50 * sim.Millisecond
	cfg.Samplers = []string{"async", "truth", "tprof"}
	out, err := Run(p, cfg)
	require.NoError(t, err)
	assert.Equal(t, []string{"async", "truth", "tprof"}, out.Names, "the requested order")
	assert.NotNil(t, out.JIT)
	assert.NotNil(t, out.GC)
	assert.Len(t, out.Profiles, 3)
	assert.Equal(t, out.Result.AppCPU(), out.Result.Truth.SelfTotal())
	cfg.NoJIT, cfg.GC, cfg.Samplers = true, nil, nil
	out, err = Run(p, cfg)
	require.NoError(t, err)
	assert.Nil(t, out.JIT)
	assert.Nil(t, out.GC)
	assert.Equal(t, []string{"truth"}, out.Names)
}

// Config.Safepoint reaches the coordinator: every global safepoint (here
// the GC's) is seen at a re-check and costs the overhead on top of its
// operation.
func TestRunAppliesTheSafepointConfig(t *testing.T) {
	// A thread allocating 1 KiB every ~70 ns fills a 1 MiB eden in
	// about 70 µs and parks for the collection; another polls every
	// 30 µs (no JIT: every back-edge polls), so the collection waits
	// for it.
	p, err := program.Parse([]byte(`
name: alloc
methods:
  - class: A
    name: alloc
    body: [{loop: {trips: 100000000, body: [{work: {cycles: 50, bytecodes: 10}}, {alloc: {bytes: 1024}}]}}]
  - class: A
    name: spin
    body: [{loop: {trips: 100000000, body: [{work: {cycles: 30000, bytecodes: 10}}]}}]
threads: [{name: a, entry: A.alloc}, {name: s, entry: A.spin}]
`), program.YAML)
	require.NoError(t, err)
	const recheck, overhead = 10 * sim.Microsecond, 7 * sim.Microsecond
	cfg := MustPresetConfig("hotspot6")
	cfg.Sim.Duration = 5 * sim.Millisecond
	cfg.Sim.ContextSwitch = 0 // the VM thread's job starts when it is submitted
	cfg.NoJIT = true
	gc := *cfg.GC
	gc.EdenBytes, gc.TLABBytes = 1<<20, 64<<10 // collect often
	cfg.GC = &gc
	cfg.Safepoint.SyncRecheck, cfg.Safepoint.OperationOverhead = recheck, overhead
	out, err := Run(p, cfg)
	require.NoError(t, err)
	recs := out.Safepoints.Records()
	require.NotEmpty(t, recs)
	gcCost := gc.PauseBase + gc.PausePerMB*sim.Time(gc.EdenBytes>>20)
	waited := 0
	for i, r := range recs {
		require.Equal(t, "gc", r.Reason, i)
		assert.Equal(t, gcCost+overhead, r.End-r.Safe, "safepoint %d: the collection and the overhead", i)
		if r.Arrived > r.Started {
			waited++
			assert.Zero(t, r.TTSP()%recheck, "safepoint %d: seen at a re-check (TTSP %v)", i, r.TTSP())
			assert.Less(t, r.Safe-r.Arrived, recheck, "safepoint %d", i)
		}
	}
	assert.Positive(t, waited, "some collection waited for a thread to reach its poll")
}

func TestRunRejectsBadSetups(t *testing.T) {
	p, err := workloads.Get("hotcold")
	require.NoError(t, err)
	for _, c := range []struct {
		tweak func(*Config)
		want  string
	}{
		{func(c *Config) { c.Samplers = []string{"nope"} }, `unknown sampler "nope"`},
		{func(c *Config) { c.Samplers = []string{"tprof", "tprof"} }, `"tprof" listed twice`},
		{func(c *Config) { c.Samplers = []string{"cbs"} }, "--vm jikes"},
		{func(c *Config) { c.Sim.CPUs = 0 }, "cpus: 0"},
		{func(c *Config) { c.JIT.CompileThreshold = 0 }, "jit.compile_threshold"},
		{func(c *Config) { c.GC.EdenBytes = -1 }, "gc.eden_bytes"},
		{func(c *Config) { c.Safepoint.OperationOverhead = -1 }, "safepoint.operation_overhead: -1ns must be ≥ 0"},
		{func(c *Config) { c.Safepoint.SyncRecheckLate = sim.Millisecond }, "safepoint.sync_recheck_late: 1ms needs safepoint.sync_recheck > 0"},
		{func(c *Config) { c.InlineFrom = "tprof" }, `inline_from: "tprof" is not an attached call-graph sampler`},
		{func(c *Config) { c.InlineFrom, c.NoJIT = "none", true }, "needs the JIT"},
		{func(c *Config) { c.WarmUp = -1 }, "warm_up: -1ns must be ≥ 0"},
		{func(c *Config) { c.RecompileAt, c.NoJIT = sim.Millisecond, true }, "recompile_at: needs the JIT"},
	} {
		cfg := MustPresetConfig("hotspot6")
		gc := *cfg.GC
		cfg.GC = &gc
		c.tweak(&cfg)
		_, err := Run(p, cfg)
		assert.ErrorContains(t, err, c.want)
	}
}

// TestWarmUpAndRecompile: the warm-up meter reads the bytecode count at
// its time (a prefix of the run: the same count as a run that stops
// there, and as the run itself stopped there), and a recompilation at
// RecompileAt, not before, shows in the JIT's log.
func TestWarmUpAndRecompile(t *testing.T) {
	p, err := workloads.Get("jess")
	require.NoError(t, err)
	cfg := MustPresetConfig("hotspot6")
	cfg.JIT.Flavour = jit.Jikes
	cfg.Samplers = []string{"cbs"}
	cfg.InlineFrom = "cbs"
	cfg.Sim.Duration = 40 * sim.Millisecond
	cfg.WarmUp, cfg.RecompileAt = 20*sim.Millisecond, 30*sim.Millisecond
	rig, err := Build(p, cfg)
	require.NoError(t, err)
	require.True(t, rig.RunUntil(cfg.WarmUp))
	atWarmUp := rig.VM().Truth().BytecodeTotal()
	require.True(t, rig.RunUntil(cfg.RecompileAt))
	for _, e := range rig.JIT().Events() {
		require.NotEqual(t, "recompile", e.Reason, "recompiled before recompile_at")
	}
	require.NoError(t, rig.Run())
	out, err := rig.Collect()
	require.NoError(t, err)
	short := cfg
	short.Sim.Duration, short.WarmUp = 20*sim.Millisecond, 0
	prefix, err := Run(p, short)
	require.NoError(t, err)
	assert.Equal(t, prefix.Result.Truth.BytecodeTotal(), out.WarmUpBytecodes)
	assert.Equal(t, atWarmUp, out.WarmUpBytecodes)
	assert.Less(t, out.WarmUpBytecodes, out.Result.Truth.BytecodeTotal())
	var recompiled int
	for _, e := range out.JIT.Events() {
		if e.Reason == "recompile" {
			recompiled++
			assert.Equal(t, 30*sim.Millisecond, e.Queued)
		}
	}
	assert.Positive(t, recompiled)
}

// TestCostedSamplersTogether: several costed samplers each pay their own
// costs on one run, and the second one moves the first one's samples.
func TestCostedSamplersTogether(t *testing.T) {
	p, err := workloads.Get("abcuv")
	require.NoError(t, err)
	cfg := MustPresetConfig("hotspot6")
	cfg.Sim.Duration = 200 * sim.Millisecond
	cfg.Mode = samplers.Costed
	cfg.Samplers = []string{"xprof"}
	alone, err := Run(p, cfg)
	require.NoError(t, err)
	cfg.Samplers = []string{"xprof", "hprof"}
	both, err := Run(p, cfg)
	require.NoError(t, err)
	for _, n := range cfg.Samplers {
		assert.Positive(t, both.Costs[n].AgentCPU, n)
		assert.Positive(t, both.Costs[n].Pauses, n)
	}
	assert.Greater(t, both.Result.VMCPU(), alone.Result.VMCPU(), "two agents' work")
	// The times, not the profile: with ten samples at abcuv's coarse
	// phases, moved samples can still land in the same methods.
	assert.NotEqual(t, alone.Costs["xprof"].SampleTimes, both.Costs["xprof"].SampleTimes, "hprof's pauses move xprof's samples")
}

func TestNoTruthProfile(t *testing.T) {
	p, err := workloads.Get("abcuv")
	require.NoError(t, err)
	cfg := MustPresetConfig("hotspot6")
	cfg.Sim.Duration = 20 * sim.Millisecond
	cfg.Samplers, cfg.NoTruthProfile = []string{"sps"}, true
	out, err := Run(p, cfg)
	require.NoError(t, err)
	assert.Equal(t, []string{"sps"}, out.Names)
	assert.NotContains(t, out.Profiles, "truth")
	assert.Positive(t, out.Result.Truth.BytecodeTotal(), "the truth itself is still recorded")

	cfg.Samplers = []string{"truth", "sps"}
	_, err = Run(p, cfg)
	assert.ErrorContains(t, err, "no_truth_profile")

	cfg.Samplers, cfg.NoTruthProfile, cfg.Window = []string{"sps"}, false, -1
	_, err = Run(p, cfg)
	assert.ErrorContains(t, err, "window")
}

// pollTouch arms a do-nothing poll hook on every application thread every
// period: a passive observer at its barest.
type pollTouch struct {
	period sim.Time
	timer  sim.TimerID
	h      sim.HandlerID
	fired  int
}

func (p *pollTouch) Name() string { return "poll-touch" }

func (p *pollTouch) Attach(env *samplers.Env) (err error) {
	p.timer = env.VM.AddTimer(p)
	p.h, err = env.VM.AddHookHandler(p)
	env.VM.ScheduleTimer(p.timer, p.period, 0)
	return err
}

func (p *pollTouch) OnTimer(vm sim.Agent, at sim.Time, _ int64) {
	for _, th := range vm.Threads() {
		if !th.Service && (th.State == sim.Running || th.State == sim.Runnable) {
			vm.Arm(p.h, th.ID, sim.HookPoll)
		}
	}
	vm.ScheduleTimer(p.timer, at+p.period, 0)
}

func (p *pollTouch) OnHook(sim.Agent, sim.ThreadID, sim.Hook) sim.Action {
	p.fired++
	return sim.Continue
}

func (p *pollTouch) Result() *samplers.Result {
	return &samplers.Result{Profile: profile.NewBuilder("poll-touch", "nanoseconds", 0).Build()}
}

// A thread stopped at a hook is handled before a compile that ends later
// in the same round; the compile must still bound how far the thread runs
// next, or it runs on in interpreted code past the install (which drifts
// kiama by ~1000 statements a second under a 1 ms hook).
func TestPassiveHooksDoNotPerturb(t *testing.T) {
	p, err := workloads.Get("kiama")
	require.NoError(t, err)
	cfg := MustPresetConfig("hotspot6")
	cfg.Sim.Duration = 300 * sim.Millisecond
	plain, err := Run(p, cfg)
	require.NoError(t, err)
	touch := &pollTouch{period: sim.Millisecond}
	cfg.Extra = []samplers.Sampler{touch}
	hooked, err := Run(p, cfg)
	require.NoError(t, err)
	require.Positive(t, touch.fired)
	assert.Equal(t, plain.Result.Statements, hooked.Result.Statements)
	assert.True(t, maps.Equal(plain.Profiles["truth"].ContextWeights(), hooked.Profiles["truth"].ContextWeights()), "truth by context")
	assert.Equal(t, plain.JIT.Events(), hooked.JIT.Events())
}

// LargestExport names the profile whose export takes the most memory:
// the truth, a sample per context, over a 10 ms sampler's few samples.
func TestLargestExportIsTheTruthsOverASamplers(t *testing.T) {
	p, err := workloads.Get("hotcold")
	require.NoError(t, err)
	cfg := DefaultConfig()
	cfg.Sim.Duration = 50 * sim.Millisecond
	cfg.Samplers = []string{"async", "truth"}
	out, err := Run(p, cfg)
	require.NoError(t, err)
	name, bytes := out.LargestExport()
	assert.Equal(t, "truth", name)
	assert.Equal(t, out.Profiles["truth"].ExportBytes(), bytes)
	assert.Greater(t, bytes, out.Profiles["async"].ExportBytes())
	name, bytes = (&Outcome{}).LargestExport()
	assert.Equal(t, "", name)
	assert.Zero(t, bytes)
}
