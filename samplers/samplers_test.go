package samplers_test

import (
	"github.com/profsim/profsim/param"
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

func run(t *testing.T, w string, tweak func(*harness.Config)) *harness.Outcome {
	t.Helper()
	p, err := workloads.Get(w)
	require.NoError(t, err)
	cfg := harness.MustPresetConfig("hotspot6")
	cfg.Sim.Duration = 500 * sim.Millisecond
	if tweak != nil {
		tweak(&cfg)
	}
	out, err := harness.Run(p, cfg)
	require.NoError(t, err)
	return out
}

func TestRegistry(t *testing.T) {
	var names []string
	for _, i := range samplers.List() {
		names = append(names, i.Name)
		assert.NotEmpty(t, i.Description)
	}
	assert.Equal(t, []string{"async", "cbs", "hotmethods", "hprof", "instrument", "isps", "jfr", "jfr-coop", "jfr-cputime", "jikes-timer", "jprofile", "jvmti", "komorium", "komorium-set", "pcct", "safepoint", "sps", "tprof", "xprof", "yourkit"}, names)
	_, err := samplers.New("gprof")
	assert.ErrorContains(t, err, `unknown sampler "gprof"; did you mean "hprof"? (known: async, cbs,`)
}

// Passive samplers cost nothing: the execution is exactly the one without
// them (X3's premise).
func TestPassiveSamplersDoNotPerturb(t *testing.T) {
	for _, w := range []string{"hotcold", "deepcall"} {
		plain := run(t, w, nil)
		watched := run(t, w, func(c *harness.Config) {
			c.Samplers = []string{"safepoint", "hprof", "xprof", "jprofile", "yourkit", "tprof", "async"}
		})
		assert.Equal(t, plain.Result.Truth.Nodes(), watched.Result.Truth.Nodes(), w)
		assert.Equal(t, plain.Result.End, watched.Result.End, w)
		assert.Equal(t, plain.Profiles["truth"], watched.Profiles["truth"], w)
	}
}

// A costed sampler changes the run it measures: its pauses and stalls show
// up in the threads' states, and the ground truth still balances.
func TestCostedSamplersCost(t *testing.T) {
	for _, s := range []string{"safepoint", "hprof", "tprof", "async"} {
		out := run(t, "deepcall", func(c *harness.Config) {
			c.Samplers, c.Mode = []string{s}, samplers.Costed
			c.JIT.StripMiningIter = 1000
		})
		costs := out.Costs[s]
		assert.Positive(t, costs.Taken, s)
		assert.Positive(t, costs.AgentCPU+costs.Stall, s)
		r := out.Result
		assert.Equal(t, r.AppCPU(), r.Truth.SelfTotal(), s)
		var parked, stalled sim.Time
		for _, th := range r.Threads {
			parked += th.States[sim.Parked]
			stalled += th.States[sim.Stalled]
		}
		if s == "tprof" || s == "async" {
			assert.Equal(t, costs.Stall, stalled, "%s stalls threads in its signal handler", s)
			assert.Zero(t, out.Safepoints.Summarize().Count, s)
		} else {
			assert.Positive(t, parked, "%s pauses threads at safepoints", s)
			assert.Equal(t, costs.Pauses, out.Safepoints.Summarize().TotalPause, s)
		}
	}
}

func TestTprofIntervalsAreTPlusMinusR(t *testing.T) {
	out := run(t, "hotcold", func(c *harness.Config) { c.Samplers = []string{"tprof"}; c.Sim.Duration = 5 * sim.Second })
	iv := profile.Intervals(out.Costs["tprof"].Ticks)
	require.Greater(t, len(iv), 150) // hotcold ends after ≈ 2.2 s
	lo, hi, sum := iv[0], iv[0], 0.0
	for _, d := range iv {
		lo, hi = min(lo, d), max(hi, d)
		sum += d
	}
	assert.GreaterOrEqual(t, lo, 7e6)
	assert.LessOrEqual(t, hi, 13e6)
	assert.Less(t, lo, 7.3e6, "uses the whole range")
	assert.Greater(t, hi, 12.7e6)
	assert.InDelta(t, 10e6, sum/float64(len(iv)), 0.4e6) // mean of U(7, 13) ms; σ/√n ≈ 0.12 ms
}

func TestTprofBuckets(t *testing.T) {
	// Early in the run everything is interpreted: one bucket. With
	// inlining, samples in the inlined hot() go to cold(), the compiled
	// method (tprof's documented limitation).
	early := run(t, "callpair", func(c *harness.Config) { c.Samplers = []string{"tprof"} })
	// callpair's M runs interpreted for its first ≈ 170 ms.
	assert.InDelta(t, 34, profile.Hotness(early.Profiles["tprof"], "<interpreted>"), 8)
	out := run(t, "hotcold", func(c *harness.Config) {
		c.Samplers = []string{"tprof"}
		c.Sim.Duration = 300 * sim.Millisecond
	})
	p := out.Profiles["tprof"]
	assert.Zero(t, profile.Hotness(p, "HotCold.hot"))
	assert.Greater(t, profile.Hotness(p, "HotCold.cold"), 90.0)
}

// The safepoint sampler in passive mode records each thread where it will
// stop: at its next poll. With the same JIT decisions, costed mode walks
// the same positions (it only adds pauses after them).
func TestSafepointSamplesAtTheNextPoll(t *testing.T) {
	passive := run(t, "hotcold", func(c *harness.Config) {
		c.Samplers = []string{"xprof"}
		c.JIT.Inline = false
	})
	p := passive.Profiles["xprof"]
	assert.Greater(t, profile.Hotness(p, "HotCold.cold"), 95.0)
	costed := run(t, "hotcold", func(c *harness.Config) {
		c.Samplers, c.Mode = []string{"xprof"}, samplers.Costed
		c.JIT.Inline = false
	})
	assert.Greater(t, profile.Hotness(costed.Profiles["xprof"], "HotCold.cold"), 95.0)
	for _, r := range costed.Safepoints.Records() {
		assert.Less(t, r.TTSP(), 2*sim.Microsecond, "hot() returns every ~100 ns")
	}
}

func TestSamplersAreDeterministic(t *testing.T) {
	cfg := func(c *harness.Config) {
		c.Samplers = []string{"safepoint", "tprof", "async"}
		c.Sim.Seed = 9
	}
	a, b := run(t, "deepcall", cfg), run(t, "deepcall", cfg)
	for _, s := range []string{"safepoint", "tprof", "async"} {
		assert.Equal(t, a.Profiles[s], b.Profiles[s], s)
		assert.Equal(t, a.Costs[s], b.Costs[s], s)
	}
}

func TestConfigErrors(t *testing.T) {
	p, err := program.Parse([]byte("name: x\nmethods: [{class: A, name: a, body: [{work: {cycles: 1, bytecodes: 1}}]}]\nthreads: [{name: m, entry: A.a}]\n"), program.YAML)
	require.NoError(t, err)
	cfg := harness.MustPresetConfig("hotspot6")
	cfg.Samplers = []string{"tprof,interval=10us,random=20us", "async"}
	_, err = harness.Run(p, cfg)
	assert.ErrorContains(t, err, "sampler tprof: random: 20us must be < interval 10us")
}

// The observer effect is mechanism, not noise: a costed profiler's pauses
// and agent threads move when the JIT's counters fire and its code is
// installed, relative to the program's own progress.
func TestCostedSamplerShiftsCompilation(t *testing.T) {
	plain := run(t, "abcuv", nil)
	watched := run(t, "abcuv", func(c *harness.Config) {
		c.Samplers, c.Mode = []string{"jprofile"}, samplers.Costed
	})
	a, b := plain.JIT.Events(), watched.JIT.Events()
	require.NotEmpty(t, a)
	require.Equal(t, len(a), len(b))
	shifted := 0
	for i := range a {
		assert.Equal(t, a[i].Method, b[i].Method)
		if a[i].Queued != b[i].Queued {
			shifted++
		}
	}
	assert.Positive(t, shifted, "the profiled run compiles at other times")
	assert.Less(t, watched.Result.AppCPU(), plain.Result.AppCPU(), "and gets less done in the same time")
}

// specOf is the spec of sampler name with every key of cfg, a pointer to
// its configuration as its registry entry takes it (the keys of a
// resolved spec are param.Values of it).
func specOf(name string, cfg any) string {
	return samplers.Spec{Name: name, Set: param.Values(cfg)}.String()
}

// defaultDuration is the default of sampler name's duration key, read
// from the registry (the sampler's configuration type is the package's
// own).
func defaultDuration(t *testing.T, name, key string) sim.Time {
	t.Helper()
	info, err := samplers.Lookup(name)
	require.NoError(t, err)
	for _, k := range info.Keys() {
		if k.Name == key {
			d, err := param.ParseDuration(k.Default)
			require.NoError(t, err, "%s: %s", name, key)
			return d
		}
	}
	t.Fatalf("sampler %s has no key %q", name, key)
	return 0
}
