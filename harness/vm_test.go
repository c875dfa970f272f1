package harness

import (
	"testing"

	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/safepoint"
	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// roundTrip sets every key of src's Values on dst and returns the error.
func roundTrip(t *testing.T, src, dst any) {
	t.Helper()
	for _, kv := range param.Values(src) {
		require.NoError(t, param.Set(dst, kv.Key, kv.Value), kv.Key)
	}
}

func TestVMConfigKeysCheckAndRoundTrip(t *testing.T) {
	d := MustPresetConfig("hotspot6")
	require.NoError(t, param.Check(&d.JIT))
	require.NoError(t, param.Check(&d.Sim))
	require.NoError(t, param.Check(&d.Sim.Cost))
	require.NoError(t, param.Check(d.GC))

	assert.Equal(t, []string{"tiered", "interpret_only", "compile_threshold", "backedge_threshold", "inline", "max_inline_size",
		"freq_inline_size", "hot_call_count", "hot_call_ratio", "min_call_ratio", "max_inline_level", "max_recursive_inline_level", "receiver_dominance", "strip_mining_iter",
		"loop_unroll", "loop_unroll_max_body", "debug_non_safepoints", "compile_nanos_per_bytecode", "hot_edge_share", "profile_overrides_static",
		"compile_commands"}, param.Names(&d.JIT))
	assert.Equal(t, []string{"time_slice", "context_switch", "max_stack_depth", "max_step",
		"cost.interp_factor", "cost.call_cycles", "cost.poll_cycles", "cost.alloc_cycles", "cost.throw_cycles",
		"cost.unwind_cycles", "cost.monitor_cycles", "cost.speed_percent"}, param.Names(&d.Sim),
		"seed, cpus, duration and the limits are flags of their own")
	assert.Equal(t, []string{"eden_bytes", "tlab_bytes", "pause_base", "pause_per_mb"}, param.Names(d.GC))
	for _, ks := range [][]param.Key{param.Keys(&d.JIT), param.Keys(&d.Sim), param.Keys(d.GC)} {
		for _, k := range ks {
			assert.NotEmpty(t, k.Doc, k.Name)
			assert.NotEmpty(t, k.Source, k.Name)
		}
	}

	// Non-default values in every field, so a key that does not reach its
	// field shows.
	j := d.JIT
	j.Flavour = jit.Jikes
	j.Tiered, j.Inline, j.DebugNonSafepoints, j.ProfileOverridesStatic = false, false, true, true
	j.InterpretOnly = true
	j.CompileThreshold, j.BackedgeThreshold, j.MaxInlineSize, j.FreqInlineSize = 11, 12, 13, 14
	j.HotCallCount, j.MaxInlineLevel, j.StripMiningIter, j.CompileNanosPerBytecode = 15, 16, 17, 18
	j.ReceiverDominance, j.HotEdgeShare, j.LoopUnroll, j.LoopUnrollMaxBody = 0.375, 0.125, 19, 21
	j.HotCallRatio, j.MinCallRatio = 0.75, 0.0625
	j.CompileCommands = "dontinline,A.b exclude,pkg/C.*"
	gotJ := jit.Config{Flavour: jit.Jikes}
	roundTrip(t, &j, &gotJ)
	assert.Equal(t, j, gotJ)

	s := d.Sim
	s.TimeSlice, s.ContextSwitch, s.MaxStackDepth, s.MaxStep = 3*sim.Millisecond, 1500, 77, 250*sim.Microsecond
	s.Cost = sim.CostModel{InterpFactor: 3, CallCycles: 5, PollCycles: 6, AllocCycles: 7, ThrowCycles: 8, UnwindCycles: 9, MonitorCycles: 10, SpeedPercent: 20}
	gotS := sim.Config{Seed: s.Seed, CPUs: s.CPUs, Duration: s.Duration, Limits: s.Limits}
	roundTrip(t, &s, &gotS)
	assert.Equal(t, s, gotS)
	c := s.Cost
	var gotC sim.CostModel
	roundTrip(t, &c, &gotC)
	assert.Equal(t, c, gotC)

	g := safepoint.GCConfig{EdenBytes: 1 << 20, TLABBytes: 4096, PauseBase: 3 * sim.Microsecond, PausePerMB: 1500}
	var gotG safepoint.GCConfig
	roundTrip(t, &g, &gotG)
	assert.Equal(t, g, gotG)

	assert.EqualError(t, param.Set(&gotS, "cost.speed_percent", "0"), "cost.speed_percent: 0 must be a divisor of 100")
	assert.EqualError(t, param.Set(&gotJ, "strip_mining_iter", "-1"), "strip_mining_iter: -1 must be ≥ 0")
}

func presetConfig(t *testing.T, name string) Config {
	t.Helper()
	cfg, err := PresetConfig(name)
	require.NoError(t, err)
	return cfg
}

func TestPresetsGiveTheirDocumentedSettings(t *testing.T) {
	var names []string
	for _, p := range Presets() {
		names = append(names, p.Name)
		assert.NotEmpty(t, p.Summary, p.Name)
		assert.NotEmpty(t, p.StandsFor, p.Name)
	}
	assert.Equal(t, []string{"hotspot17", "hotspot25", "hotspot6", "jikes", "j9"}, names)

	d := componentDefaults()
	// Each preset's changes to the components' own JIT, VM and safepoint
	// settings.
	want := map[string]func(*jit.Config, *sim.Config, *safepoint.Config){
		"hotspot6": func(*jit.Config, *sim.Config, *safepoint.Config) {},
		"hotspot17": func(j *jit.Config, s *sim.Config, sp *safepoint.Config) {
			j.StripMiningIter, j.LoopUnroll, j.MaxInlineLevel = 1000, 8, 15
			// tools/calibrate's measurements (its test checks the values).
			j.CompileNanosPerBytecode, s.Cost.InterpFactor = 21000, 8
			sp.SyncRecheck, sp.SyncRecheckLate, sp.OperationOverhead = 100*sim.Microsecond, 1100*sim.Microsecond, 53*sim.Microsecond
		},
		"hotspot25": func(j *jit.Config, s *sim.Config, sp *safepoint.Config) {
			j.StripMiningIter, j.LoopUnroll, j.MaxInlineLevel = 1000, 8, 15
			j.CompileNanosPerBytecode, s.Cost.InterpFactor = 21000, 8
			sp.SyncRecheck, sp.SyncRecheckLate, sp.OperationOverhead = 100*sim.Microsecond, 1100*sim.Microsecond, 53*sim.Microsecond
			j.HotCallRatio, j.MinCallRatio = 0.25, 0.0085
		},
		"jikes": func(j *jit.Config, _ *sim.Config, _ *safepoint.Config) {
			j.Flavour, j.MaxRecursiveInlineLevel = jit.Jikes, 0
		},
		// study.a4Work's j9 settings, but the per-run profile source.
		"j9": func(j *jit.Config, _ *sim.Config, _ *safepoint.Config) {
			j.Flavour, j.ReceiverDominance, j.MaxInlineSize, j.ProfileOverridesStatic = jit.Jikes, 0.4, 100, true
		},
	}
	for name, tweak := range want {
		cfg := MustPresetConfig("hotspot6")
		cfg.Sim.Seed, cfg.Sim.CPUs, cfg.Sim.Duration = 7, 2, 3*sim.Second
		cfg.Sim.TimeSlice, cfg.JIT.CompileThreshold, cfg.GC = sim.Millisecond, 5, nil
		cfg.Safepoint.SyncRecheck, cfg.Safepoint.OperationOverhead = 10*sim.Microsecond, sim.Microsecond
		cfg.Samplers, cfg.Mode, cfg.InlineFrom = []string{"async"}, 1, "exact"
		require.NoError(t, ApplyPreset(&cfg, name))
		j, s, sp := d.JIT, d.Sim, d.Safepoint
		tweak(&j, &s, &sp)
		assert.Equal(t, j, cfg.JIT, name)
		s.Seed, s.CPUs, s.Duration = 7, 2, 3*sim.Second
		assert.Equal(t, s, cfg.Sim, "%s: the VM's defaults but seed, cpus and duration", name)
		require.NotNil(t, cfg.GC, name)
		assert.Equal(t, *d.GC, *cfg.GC, name)
		assert.Equal(t, sp, cfg.Safepoint, "%s: the safepoint protocol's settings", name)
		assert.Equal(t, []string{"async"}, cfg.Samplers, name)
		assert.EqualValues(t, 1, cfg.Mode, name)
		assert.Equal(t, "exact", cfg.InlineFrom, name)
		require.NoError(t, cfg.JIT.Validate(), name)
	}
	h6 := presetConfig(t, "hotspot6")
	assert.Equal(t, d.JIT, h6.JIT, "hotspot6 is the components' defaults, which the studies use")
	cfg := MustPresetConfig("hotspot6")
	assert.EqualError(t, ApplyPreset(&cfg, "hotspot8"), `unknown VM preset "hotspot8"; did you mean "hotspot6"? (valid: hotspot17, hotspot25, hotspot6, jikes, j9)`)
}

// TestHotSpot25DiffersFromHotSpot17Exactly: hotspot25 is hotspot17 but for
// the two call-site frequency rules docs/MODEL.md lists (C2's
// InlineFrequencyRatio and MinInlineFrequencyRatio after JDK 17); every
// other JIT, VM, safepoint and GC setting is hotspot17's.
func TestHotSpot25DiffersFromHotSpot17Exactly(t *testing.T) {
	h17, h25 := presetConfig(t, "hotspot17"), presetConfig(t, "hotspot25")
	for _, c := range []struct {
		field    string
		get      func(jit.Config) float64
		v17, v25 float64
	}{
		{"hot_call_ratio", func(j jit.Config) float64 { return j.HotCallRatio }, 0, 0.25},
		{"min_call_ratio", func(j jit.Config) float64 { return j.MinCallRatio }, 0, 0.0085},
	} {
		assert.Equal(t, c.v17, c.get(h17.JIT), "hotspot17 %s", c.field)
		assert.Equal(t, c.v25, c.get(h25.JIT), "hotspot25 %s", c.field)
	}
	// Put hotspot17's values in the two fields: nothing else may differ.
	j := h25.JIT
	j.HotCallRatio, j.MinCallRatio = h17.JIT.HotCallRatio, h17.JIT.MinCallRatio
	assert.Equal(t, h17.JIT, j)
	assert.Equal(t, h17.Sim, h25.Sim)
	assert.Equal(t, h17.Safepoint, h25.Safepoint)
	assert.Equal(t, *h17.GC, *h25.GC)

	// The preset's values pass the keys' checks, and bad values name the key.
	require.NoError(t, param.Check(&h25.JIT))
	require.NoError(t, h25.JIT.Validate())
	assert.EqualError(t, param.Set(&h25.JIT, "hot_call_ratio", "-0.5"), "hot_call_ratio: -0.5 must be ≥ 0")
	assert.EqualError(t, param.Set(&h25.JIT, "min_call_ratio", "x"), `min_call_ratio: "x" is not a finite number`)
}

func TestApplyJVMFlagsEachFlag(t *testing.T) {
	for _, tc := range []struct {
		flags string
		want  func(*jit.Config)
	}{
		{"", func(*jit.Config) {}},
		{"-XX:+Inline", func(*jit.Config) {}},
		{"-XX:-Inline", func(j *jit.Config) { j.Inline = false }},
		{"-XX:-Inline -XX:+Inline", func(*jit.Config) {}},
		{"-XX:LoopStripMiningIter=250", func(j *jit.Config) { j.StripMiningIter = 250 }},
		{"-XX:-UseCountedLoopSafepoints", func(j *jit.Config) { j.StripMiningIter = 0 }},
		{"-XX:+UseCountedLoopSafepoints -XX:LoopStripMiningIter=1000", func(*jit.Config) {}},
		{"-XX:LoopMaxUnroll=16", func(*jit.Config) {}},
		{"-XX:LoopMaxUnroll=4", func(j *jit.Config) { j.LoopUnroll = 4 }},
		{"-XX:LoopMaxUnroll=7", func(j *jit.Config) { j.LoopUnroll = 4 }},
		{"-XX:LoopMaxUnroll=1", func(j *jit.Config) { j.LoopUnroll = 1 }},
		{"-XX:LoopMaxUnroll=0", func(j *jit.Config) { j.LoopUnroll = 1 }},
		{"-XX:+DebugNonSafepoints", func(j *jit.Config) { j.DebugNonSafepoints = true }},
		{"-XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints", func(j *jit.Config) { j.DebugNonSafepoints = true }},
		{"-XX:+DebugNonSafepoints -XX:-DebugNonSafepoints", func(*jit.Config) {}},
		{"-XX:+UnlockDiagnosticVMOptions", func(*jit.Config) {}},
		{"-XX:+TieredCompilation", func(*jit.Config) {}},
		{"-XX:-TieredCompilation", func(*jit.Config) {}},
		{"-Xcomp", func(j *jit.Config) { j.Tiered = false }},
		{"-Xcomp -XX:-TieredCompilation", func(j *jit.Config) { j.Tiered = false }},
		{"-Xcomp -Xmixed", func(*jit.Config) {}},
		{"-Xint", func(j *jit.Config) { j.InterpretOnly = true }},
		{"-Xint -XX:-TieredCompilation", func(j *jit.Config) { j.InterpretOnly = true }},
		// One mode, the last given decides: OpenJDK 17.0.15's
		// java -Xint -Xcomp -version prints "compiled mode",
		// java -Xcomp -Xint -version "interpreted mode".
		{"-Xint -Xcomp", func(j *jit.Config) { j.Tiered = false }},
		{"-Xcomp -Xint", func(j *jit.Config) { j.InterpretOnly = true }},
		{"-Xint -Xmixed", func(*jit.Config) {}},
		// -XX:-TieredCompilation -XX:CompileThreshold=500 on the real JVM:
		// Tier4CompileThreshold=500, Tier4BackEdgeThreshold=700.
		{"-XX:CompileThreshold=500", func(j *jit.Config) { j.CompileThreshold, j.BackedgeThreshold = 500, 700 }},
		// -XX:-TieredCompilation -XX:OnStackReplacePercentage=200:
		// Tier4BackEdgeThreshold=20000.
		{"-XX:OnStackReplacePercentage=200", func(j *jit.Config) { j.BackedgeThreshold = 20000 }},
		{"-XX:OnStackReplacePercentage=200 -XX:CompileThreshold=500", func(j *jit.Config) { j.CompileThreshold, j.BackedgeThreshold = 500, 1000 }},
		{"-XX:CompileThreshold=1 -XX:OnStackReplacePercentage=33", func(j *jit.Config) { j.CompileThreshold, j.BackedgeThreshold = 1, 1 }},
		{"-XX:MaxInlineSize=100", func(j *jit.Config) { j.MaxInlineSize = 100 }},
		{"-XX:FreqInlineSize=0", func(j *jit.Config) { j.FreqInlineSize = 0 }},
		{"-XX:MaxInlineLevel=9", func(j *jit.Config) { j.MaxInlineLevel = 9 }},
		{"-XX:MaxInlineLevel=9 -XX:MaxInlineLevel=3", func(j *jit.Config) { j.MaxInlineLevel = 3 }},
		{"-XX:InlineFrequencyCount=5", func(j *jit.Config) { j.HotCallCount = 5 }},
		{"-XX:TypeProfileMajorReceiverPercent=40", func(j *jit.Config) { j.ReceiverDominance = 0.4 }},
		{"  -XX:-Inline\t\n-XX:MaxInlineSize=7 ", func(j *jit.Config) { j.Inline, j.MaxInlineSize = false, 7 }},
		// Compile commands accumulate, in HotSpot's print form.
		{"-XX:CompileCommand=dontinline,Foo::bar", func(j *jit.Config) { j.CompileCommands = "dontinline,Foo.bar" }},
		{"-XX:CompileCommand=DontInline,Foo::bar -XX:CompileCommand=exclude,pkg.Baz::* -XX:CompileCommand=inline,*Map.get*,false",
			func(j *jit.Config) { j.CompileCommands = "dontinline,Foo.bar exclude,pkg/Baz.* inline,*Map.get*,false" }},
	} {
		cfg := presetConfig(t, "hotspot17")
		want := cfg.JIT
		tc.want(&want)
		require.NoError(t, ApplyJVMFlags(&cfg, tc.flags), tc.flags)
		assert.Equal(t, want, cfg.JIT, tc.flags)
		require.NoError(t, cfg.JIT.Validate(), tc.flags)
	}

	a, b := MustPresetConfig("hotspot6"), MustPresetConfig("hotspot6")
	require.NoError(t, ApplyJVMFlags(&a, "-XX:-Inline"))
	b.JIT.Inline = false
	a.GC, b.GC = nil, nil // distinct pointers to equal values
	assert.Equal(t, b, a, "-XX:-Inline is jit.inline=false")
}

func TestApplyJVMFlagsErrors(t *testing.T) {
	supported := "(supported: -XX:±Inline, -XX:±UseCountedLoopSafepoints, -XX:LoopStripMiningIter=N, -XX:LoopMaxUnroll=N, -XX:±DebugNonSafepoints, -XX:±UnlockDiagnosticVMOptions, -XX:±TieredCompilation, -Xint, -Xcomp, -Xmixed, -XX:CompileThreshold=N, -XX:OnStackReplacePercentage=N, -XX:MaxInlineSize=N, -XX:FreqInlineSize=N, -XX:MaxInlineLevel=N, -XX:MaxRecursiveInlineLevel=N, -XX:InlineFrequencyCount=N, -XX:CompileCommand=dontinline|inline|exclude,PATTERN, -XX:TypeProfileMajorReceiverPercent=N)"
	for _, tc := range []struct{ preset, flags, want string }{
		{"hotspot17", "-XX:+UseZGC", "-XX:+UseZGC: not an option profsim models " + supported},
		{"hotspot17", "-Xmx1g", "-Xmx1g: not an option profsim models " + supported},
		{"hotspot17", "-XX:Foo=1", "-XX:Foo=1: not an option profsim models " + supported},
		{"hotspot17", "-Xinterp", "-Xinterp: not an option profsim models " + supported},
		{"hotspot17", "Inline", "Inline: not an option profsim models " + supported},
		{"hotspot17", "-XX:", "-XX:: not an option profsim models " + supported},
		{"hotspot17", "-XX:+-Xcomp", "-XX:+-Xcomp: not an option profsim models " + supported},
		{"hotspot17", "-XX:LoopStripMiningIter=x", `-XX:LoopStripMiningIter=x: "x" is not a decimal integer (LoopStripMiningIter takes 0 ... 4294967295)`},
		{"hotspot17", "-XX:LoopStripMiningIter=", `-XX:LoopStripMiningIter=: "" is not a decimal integer (LoopStripMiningIter takes 0 ... 4294967295)`},
		{"hotspot17", "-XX:LoopStripMiningIter=-1", "-XX:LoopStripMiningIter=-1: -1 is outside the allowed range [0 ... 4294967295]"},
		{"hotspot17", "-XX:LoopStripMiningIter=4294967296", "-XX:LoopStripMiningIter=4294967296: 4294967296 is outside the allowed range [0 ... 4294967295]"},
		{"hotspot17", "-XX:LoopStripMiningIter=4294967396", "-XX:LoopStripMiningIter=4294967396: 4294967396 is outside the allowed range [0 ... 4294967295]"},
		{"hotspot17", "-XX:LoopStripMiningIter=99999999999999999999", "-XX:LoopStripMiningIter=99999999999999999999: 99999999999999999999 is outside the allowed range [0 ... 4294967295]"},
		{"hotspot17", "-XX:CompileThreshold=0", "-XX:CompileThreshold=0: 0 is outside the allowed range [1 ... 1073741823]"},
		{"hotspot17", "-XX:CompileThreshold=1073741824", "-XX:CompileThreshold=1073741824: 1073741824 is outside the allowed range [1 ... 1073741823]"},
		{"hotspot17", "-XX:OnStackReplacePercentage=32", "-XX:OnStackReplacePercentage=32: 32 is outside the allowed range [33 ... 2147483647]"},
		{"hotspot17", "-XX:OnStackReplacePercentage=99999999", "-XX:OnStackReplacePercentage=99999999: outside the allowed range [33 ... 21474869] with CompileThreshold=10000"},
		{"hotspot17", "-XX:MaxInlineSize=2147483648", "-XX:MaxInlineSize=2147483648: 2147483648 is outside the allowed range [0 ... 2147483647]"},
		{"hotspot17", "-XX:LoopMaxUnroll=-1", "-XX:LoopMaxUnroll=-1: -1 is outside the allowed range [0 ... 2147483647]"},
		{"hotspot17", "-XX:MaxInlineLevel=-1", "-XX:MaxInlineLevel=-1: -1 is outside the allowed range [0 ... 2147483647]"},
		{"hotspot17", "-XX:FreqInlineSize=1.5", `-XX:FreqInlineSize=1.5: "1.5" is not a decimal integer (FreqInlineSize takes 0 ... 2147483647)`},
		{"hotspot17", "-XX:InlineFrequencyCount=-5", "-XX:InlineFrequencyCount=-5: -5 is outside the allowed range [0 ... 2147483647]"},
		{"hotspot17", "-XX:TypeProfileMajorReceiverPercent=0", "-XX:TypeProfileMajorReceiverPercent=0: 0 is outside the allowed range [1 ... 100]"},
		{"hotspot17", "-XX:+CompileThreshold", "-XX:+CompileThreshold: CompileThreshold takes a value (-XX:CompileThreshold=N), not + or -"},
		{"hotspot17", "-XX:-LoopStripMiningIter", "-XX:-LoopStripMiningIter: LoopStripMiningIter takes a value (-XX:LoopStripMiningIter=N), not + or -"},
		{"hotspot17", "-XX:Inline=1", "-XX:Inline=1: Inline is a boolean option (-XX:+Inline or -XX:-Inline), not Inline=VALUE"},
		{"hotspot17", "-XX:Inline", "-XX:Inline: Inline is a boolean option (-XX:+Inline or -XX:-Inline), not Inline=VALUE"},
		{"hotspot17", "-XX:+Inline=true", "-XX:+Inline=true: not an option profsim models " + supported},
		{"hotspot17", "-XX:CompileThreshold", "-XX:CompileThreshold: CompileThreshold needs a value (-XX:CompileThreshold=N)"},
		{"jikes", "-XX:LoopStripMiningIter=500", "-XX:LoopStripMiningIter=500: only the hotspot flavour removes counted loops' polls; this configuration is jikes-flavoured (polls at every back-edge)"},
		{"j9", "-XX:-UseCountedLoopSafepoints", "-XX:-UseCountedLoopSafepoints: only the hotspot flavour removes counted loops' polls; this configuration is jikes-flavoured (polls at every back-edge)"},
		{"hotspot17", "-XX:-Inline -XX:+UseZGC", "-XX:+UseZGC: not an option profsim models " + supported},
		{"hotspot17", "-XX:CompileCommand=option,Foo::bar,PrintInlining", `-XX:CompileCommand=option,Foo::bar,PrintInlining: compile command "option,Foo::bar,PrintInlining": "option" is not a command profsim models (supported: dontinline, inline, exclude)`},
		{"hotspot17", "-XX:CompileCommand=compileonly,Foo.bar", `-XX:CompileCommand=compileonly,Foo.bar: compile command "compileonly,Foo.bar": "compileonly" is not a command profsim models (supported: dontinline, inline, exclude)`},
		{"hotspot17", "-XX:CompileCommand=dontinline,Foo", `-XX:CompileCommand=dontinline,Foo: compile command "dontinline,Foo": could not parse the method pattern (want Class::method or package/Class.method)`},
		{"hotspot17", "-XX:CompileCommand=dontinline,A.b -XX:CompileCommand=dontinline,a/B::c", `-XX:CompileCommand=dontinline,a/B::c: compile command "dontinline,a/B::c": method pattern uses '/' together with '::'`},
		{"hotspot17", "-XX:CompileCommand", "-XX:CompileCommand: CompileCommand needs a value (-XX:CompileCommand=KIND,PATTERN)"},
		{"hotspot17", "-XX:+CompileCommand", "-XX:+CompileCommand: CompileCommand takes a value (-XX:CompileCommand=KIND,PATTERN), not + or -"},
		{"hotspot17", "-XX:CompileCommandFile=.hotspot_compiler", "-XX:CompileCommandFile=.hotspot_compiler: not an option profsim models " + supported},
		{"hotspot17", "-XX:CompileOnly=Foo.bar", "-XX:CompileOnly=Foo.bar: not an option profsim models " + supported},
	} {
		cfg := presetConfig(t, tc.preset)
		before := cfg.JIT
		err := ApplyJVMFlags(&cfg, tc.flags)
		require.Error(t, err, tc.flags)
		assert.Equal(t, tc.want, err.Error(), tc.flags)
		assert.NotContains(t, err.Error(), "\n", "one line")
		assert.Equal(t, before, cfg.JIT, "%s: an error leaves the configuration alone", tc.flags)
	}
}

// TestJVMFlagsErgonomics pins HotSpot 17's strip-mining ergonomics to what
// `java OPTIONS -XX:+PrintFlagsFinal -version` printed for
// LoopStripMiningIter (OpenJDK 17.0.15, G1 by default; hotspot6 stands for
// a collector that does not enable counted-loop safepoints, as
// -XX:+UseSerialGC / -XX:+UseParallelGC).
func TestJVMFlagsErgonomics(t *testing.T) {
	for _, tc := range []struct {
		preset, flags string
		want          int64
	}{
		{"hotspot17", "", 1000},
		{"hotspot17", "-XX:-UseCountedLoopSafepoints", 0},
		{"hotspot17", "-XX:+UseCountedLoopSafepoints", 1},
		{"hotspot17", "-XX:LoopStripMiningIter=0", 1},
		{"hotspot17", "-XX:LoopStripMiningIter=500", 500},
		{"hotspot17", "-XX:+UseCountedLoopSafepoints -XX:LoopStripMiningIter=0", 1},
		{"hotspot17", "-XX:-UseCountedLoopSafepoints -XX:LoopStripMiningIter=500", 0},
		{"hotspot17", "-XX:LoopStripMiningIter=500 -XX:-UseCountedLoopSafepoints", 0},
		{"hotspot17", "-XX:-UseCountedLoopSafepoints -XX:+UseCountedLoopSafepoints", 1},
		{"hotspot17", "-XX:LoopStripMiningIter=4294967295", 4294967295},
		{"hotspot6", "", 0},
		{"hotspot6", "-XX:+UseCountedLoopSafepoints", 1},
		{"hotspot6", "-XX:LoopStripMiningIter=500", 0},
		{"hotspot6", "-XX:+UseCountedLoopSafepoints -XX:LoopStripMiningIter=500", 500},
		{"jikes", "-XX:-Inline", 0},
	} {
		cfg := presetConfig(t, tc.preset)
		require.NoError(t, ApplyJVMFlags(&cfg, tc.flags), "%s %s", tc.preset, tc.flags)
		assert.Equal(t, tc.want, cfg.JIT.StripMiningIter, "%s %s", tc.preset, tc.flags)
	}
}

func TestSupportedJVMFlagsAreDocumented(t *testing.T) {
	fs := SupportedJVMFlags()
	assert.Len(t, fs, 19)
	for _, f := range fs {
		assert.NotEmpty(t, f.Option)
		assert.NotEmpty(t, f.Model, f.Option)
		assert.NotEmpty(t, f.HotSpot, f.Option)
	}
}

// TestXintWithXcompSettingIsAnError: -Xint on a configuration whose
// jit.tiered is false afterwards (--set jit.tiered=false, applied after the
// JVM flags) names both settings; so does the JIT's own validation.
func TestXintWithXcompSettingIsAnError(t *testing.T) {
	cfg := presetConfig(t, "hotspot17")
	require.NoError(t, ApplyJVMFlags(&cfg, "-Xint"))
	require.NoError(t, param.Set(&cfg.JIT, "tiered", "false"))
	err := cfg.JIT.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "jit.interpret_only=true")
	assert.Contains(t, err.Error(), "jit.tiered=false")
	assert.Contains(t, err.Error(), "-Xint")
	assert.Contains(t, err.Error(), "-Xcomp")
}

// TestMaxRecursiveInlineLevelFlag: every preset inlines no recursive call;
// -XX:MaxRecursiveInlineLevel gives C2's rule, bad values are refused.
func TestMaxRecursiveInlineLevelFlag(t *testing.T) {
	for _, p := range Presets() {
		assert.Zero(t, presetConfig(t, p.Name).JIT.MaxRecursiveInlineLevel, p.Name)
	}
	cfg := presetConfig(t, "hotspot17")
	require.NoError(t, ApplyJVMFlags(&cfg, "-XX:MaxRecursiveInlineLevel=1"))
	assert.Equal(t, 1, cfg.JIT.MaxRecursiveInlineLevel)
	assert.Error(t, ApplyJVMFlags(&cfg, "-XX:MaxRecursiveInlineLevel=-1"))
	cfg.JIT.MaxRecursiveInlineLevel = -1
	assert.ErrorContains(t, cfg.JIT.Validate(), "jit.max_recursive_inline_level: -1 must be ≥ 0")
}
