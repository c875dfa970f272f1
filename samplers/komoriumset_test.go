package samplers_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

// A KomoriumSet's members are each the Komorium alone with its
// configuration: the same profile, sample count and reported bytecodes,
// constant or randomized, on the single-threaded SPECjvm98 stand-ins
// (loop-dominated, call-heavy, exception-heavy, large blocks). With
// several threads the set's extra hook stops, passive as they are, change
// the order in which the threads' shared JIT counters are seen (X3), so
// there a member is the Komorium alone only nearly: mtrt's overlap is
// logged.
func TestKomoriumSetMembersAreKomoriumsAlone(t *testing.T) {
	var cfgs []samplers.KomoriumConfig
	for _, g := range []int64{500, 1000, 10000, 100000} {
		for _, r := range []int64{0, 100} {
			c := samplers.DefaultKomoriumConfig()
			c.Granularity, c.Random = g, r
			cfgs = append(cfgs, c)
		}
	}
	for _, w := range []string{"compress", "javac", "jack", "mpegaudio", "mtrt"} {
		exact := w != "mtrt"
		for _, seed := range []uint64{1, 2} {
			set, err := samplers.NewKomoriumSet("grid", cfgs)
			require.NoError(t, err)
			run(t, w, func(c *harness.Config) {
				c.Sim.Seed, c.Sim.Duration, c.NoTruthProfile = seed, 30*sim.Millisecond, true
				c.Extra = []samplers.Sampler{set}
			})
			got := set.Results()
			require.Len(t, got, len(cfgs))
			for i, kc := range cfgs {
				alone := run(t, w, func(c *harness.Config) {
					c.Sim.Seed, c.Sim.Duration, c.NoTruthProfile = seed, 30*sim.Millisecond, true
					c.Samplers = []string{specOf("komorium", &kc)}
				})
				what := fmt.Sprintf("%s seed %d granularity %d random %d", w, seed, kc.Granularity, kc.Random)
				require.Positive(t, got[i].Costs.Taken, what)
				if !exact {
					t.Logf("%s: overlap with the Komorium alone %.4f %%, samples %d vs %d", what,
						100*profile.OverlapContexts(alone.Profiles["komorium"], got[i].Profile), got[i].Costs.Taken, alone.Costs["komorium"].Taken)
					continue
				}
				assert.Equal(t, alone.Profiles["komorium"], got[i].Profile, what)
				ac := alone.Costs["komorium"]
				assert.Equal(t, ac.Taken, got[i].Costs.Taken, what)
				assert.Equal(t, ac.Measures[samplers.ApproxTotalBytecodes], got[i].Costs.Measures[samplers.ApproxTotalBytecodes], what)
			}
		}
	}
}

// One rewrite serves every member, and the members cost nothing: a set
// refuses members with different instrumentation and a costed run.
func TestKomoriumSetRefuses(t *testing.T) {
	a, b := samplers.DefaultKomoriumConfig(), samplers.DefaultKomoriumConfig()
	b.Instrumentation.MaxPath = 0
	_, err := samplers.NewKomoriumSet("grid", []samplers.KomoriumConfig{a, b})
	assert.ErrorContains(t, err, "instrumentation differs")
	_, err = samplers.NewKomoriumSet("grid", nil)
	assert.ErrorContains(t, err, "no configuration")
	set, err := samplers.NewKomoriumSet("grid", []samplers.KomoriumConfig{a})
	require.NoError(t, err)
	assert.ErrorContains(t, set.Instrument(nil, samplers.Costed, sim.CostModel{}), "passive only")
}

// A komorium-set spec is the set NewKomoriumSet makes from its members,
// granularity-major: the run reports every member under ID/MEMBER, in
// that order (Outcome.Members), each the member of the set built by hand,
// and the set's own profile is its first member's.
func TestKomoriumSetSpec(t *testing.T) {
	var cfgs []samplers.KomoriumConfig
	for _, g := range []int64{500, 10000} {
		for _, r := range []int64{0, 100} {
			c := samplers.DefaultKomoriumConfig()
			c.Granularity, c.Random = g, r
			c.Instrumentation.MaxPath = 0
			cfgs = append(cfgs, c)
		}
	}
	set, err := samplers.NewKomoriumSet("komorium-set", cfgs)
	require.NoError(t, err)
	run(t, "javac", func(c *harness.Config) {
		c.Sim.Duration, c.NoTruthProfile = 30*sim.Millisecond, true
		c.Extra = []samplers.Sampler{set}
	})
	spec := run(t, "javac", func(c *harness.Config) {
		c.Sim.Duration, c.NoTruthProfile = 30*sim.Millisecond, true
		c.Samplers = []string{"komorium-set,granularities=500/10000,randoms=0/100,max_path=0"}
	})
	ids := []string{"komorium-set/g500", "komorium-set/g500r100", "komorium-set/g10000", "komorium-set/g10000r100"}
	require.Equal(t, ids, spec.Members["komorium-set"])
	for i, r := range set.Results() {
		assert.Equal(t, r.Profile, spec.Profiles[ids[i]], ids[i])
		assert.Equal(t, r.Costs, spec.Costs[ids[i]], ids[i])
		assert.Positive(t, r.Costs.Taken, ids[i])
	}
	assert.Equal(t, spec.Profiles[ids[0]], spec.Profiles["komorium-set"])
}

// A komorium-set spec's bad lists and a costed run are errors naming the
// key or the mode.
func TestKomoriumSetSpecRefuses(t *testing.T) {
	for text, want := range map[string]string{
		"komorium-set,granularities=500/x":           `granularities: "500/x" is not a '/'-separated list`,
		"komorium-set,granularities=":                `granularities: "" is not`,
		"komorium-set,randoms=0/-1":                  "member g10000: random: -1 must be",
		"komorium-set,granularities=0":               "member g0: granularity",
		"komorium-set,granularities=500/500":         "member g500 given twice",
		"komorium-set,granularities=500,max_path=-1": "max_path",
	} {
		spec, err := samplers.ParseSpec(text)
		require.NoError(t, err, text)
		_, err = spec.Resolve()
		assert.ErrorContains(t, err, want, text)
	}
	cfg := harness.DefaultConfig()
	cfg.Samplers, cfg.Mode = []string{"komorium-set"}, samplers.Costed
	assert.ErrorContains(t, cfg.Validate(), "sampler komorium-set watches passively only")
}
