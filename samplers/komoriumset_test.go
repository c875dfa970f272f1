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
	"github.com/profsim/profsim/workloads"
)

// A komorium-set's members are each the Komorium alone with its
// configuration: the same profile, sample count and reported bytecodes,
// constant or randomized, on the single-threaded SPECjvm98 stand-ins
// (loop-dominated, call-heavy, exception-heavy, large blocks). With
// several threads the set's extra hook stops, passive as they are, change
// the order in which the threads' shared JIT counters are seen (X3), so
// there a member is the Komorium alone only nearly: mtrt's overlap is
// logged.
func TestKomoriumSetMembersAreKomoriumsAlone(t *testing.T) {
	// The members of the spec below, in its order (granularity-major).
	var cfgs []samplers.KomoriumConfig
	for _, g := range []int64{500, 1000, 10000, 100000} {
		for _, r := range []int64{0, 100} {
			c := samplers.DefaultKomoriumConfig()
			c.Granularity, c.Random = g, r
			cfgs = append(cfgs, c)
		}
	}
	const set = "komorium-set:grid"
	for _, w := range []string{"compress", "javac", "jack", "mpegaudio", "mtrt"} {
		exact := w != "mtrt"
		for _, seed := range []uint64{1, 2} {
			out := run(t, w, func(c *harness.Config) {
				c.Sim.Seed, c.Sim.Duration, c.NoTruthProfile = seed, 30*sim.Millisecond, true
				c.Samplers = []string{set + ",granularities=500/1000/10000/100000,randoms=0/100"}
			})
			ids := out.Members[set]
			require.Len(t, ids, len(cfgs))
			for i, kc := range cfgs {
				alone := run(t, w, func(c *harness.Config) {
					c.Sim.Seed, c.Sim.Duration, c.NoTruthProfile = seed, 30*sim.Millisecond, true
					c.Samplers = []string{specOf("komorium", &kc)}
				})
				what := fmt.Sprintf("%s seed %d granularity %d random %d (%s)", w, seed, kc.Granularity, kc.Random, ids[i])
				got, gotCosts := out.Profiles[ids[i]], out.Costs[ids[i]]
				require.Positive(t, gotCosts.Taken, what)
				if !exact {
					t.Logf("%s: overlap with the Komorium alone %.4f %%, samples %d vs %d", what,
						100*profile.OverlapContexts(alone.Profiles["komorium"], got), gotCosts.Taken, alone.Costs["komorium"].Taken)
					continue
				}
				assert.Equal(t, alone.Profiles["komorium"], got, what)
				ac := alone.Costs["komorium"]
				assert.Equal(t, ac.Taken, gotCosts.Taken, what)
				assert.Equal(t, ac.Measures[samplers.ApproxTotalBytecodes], gotCosts.Measures[samplers.ApproxTotalBytecodes], what)
			}
		}
	}
}

// A komorium-set spec's members are named and ordered granularity-major:
// the run reports every member under ID/MEMBER, in that order
// (Outcome.Members), each the Komorium alone with the member's
// configuration, and the set's own profile is its first member's.
func TestKomoriumSetSpec(t *testing.T) {
	spec := run(t, "javac", func(c *harness.Config) {
		c.Sim.Duration, c.NoTruthProfile = 30*sim.Millisecond, true
		c.Samplers = []string{"komorium-set,granularities=500/10000,randoms=0/100,max_path=0"}
	})
	ids := []string{"komorium-set/g500", "komorium-set/g500r100", "komorium-set/g10000", "komorium-set/g10000r100"}
	require.Equal(t, ids, spec.Members["komorium-set"])
	i := 0
	for _, g := range []int64{500, 10000} {
		for _, r := range []int64{0, 100} {
			kc := samplers.DefaultKomoriumConfig()
			kc.Granularity, kc.Random = g, r
			kc.Instrumentation.MaxPath = 0
			alone := run(t, "javac", func(c *harness.Config) {
				c.Sim.Duration, c.NoTruthProfile = 30*sim.Millisecond, true
				c.Samplers = []string{specOf("komorium", &kc)}
			})
			assert.Equal(t, alone.Profiles["komorium"], spec.Profiles[ids[i]], ids[i])
			assert.Equal(t, alone.Costs["komorium"].Taken, spec.Costs[ids[i]].Taken, ids[i])
			assert.Positive(t, spec.Costs[ids[i]].Taken, ids[i])
			i++
		}
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

// A komorium-set makes its members' profiles directly in the canonical
// order, without a profile.Builder: each is the Builder's profile of the
// member's samples, on one thread and on several (mtrt's threads, some
// counted beside the first thread's array) and on an exception-heavy
// stand-in (jack: stacks unwound between samples).
func TestKomoriumSetProfilesAreTheBuilders(t *testing.T) {
	for _, w := range []string{"javac", "jack", "mtrt"} {
		p, err := workloads.Get(w)
		require.NoError(t, err)
		cfg := harness.MustPresetConfig("hotspot6")
		cfg.Sim.Duration, cfg.NoTruthProfile = 50*sim.Millisecond, true
		cfg.Samplers = []string{"komorium-set,granularities=500/1000/10000/100000,randoms=0/100"}
		r, err := harness.Build(p, cfg)
		require.NoError(t, err)
		require.NoError(t, r.Run())
		out, err := r.Collect()
		require.NoError(t, err)
		built := samplers.KomoriumSetBuilt(r.Sampler("komorium-set"))
		ids := out.Members["komorium-set"]
		require.Len(t, built, len(ids), w)
		threads := map[string]bool{}
		for i, id := range ids {
			got := out.Profiles[id]
			require.Positive(t, got.TotalCount(), "%s %s", w, id)
			assert.Equal(t, built[i], got, "%s %s", w, id)
			for j := range got.Samples {
				threads[got.ThreadName(j)] = true
			}
		}
		if w == "mtrt" {
			assert.Greater(t, len(threads), 1, "mtrt's samples are on several threads")
		}
	}
}

// With the truth per method a run has no sim.View.StackID, and a
// komorium-set walks every sampled stack: its members are still the
// Komoriums alone, on a deep call-heavy stand-in and on an
// exception-heavy one.
func TestKomoriumSetWithoutStackIDs(t *testing.T) {
	for _, w := range []string{"javac", "jack"} {
		tweak := func(c *harness.Config) {
			c.Sim.Duration, c.NoTruthProfile, c.TruthPerMethod = 30*sim.Millisecond, true, true
		}
		out := run(t, w, func(c *harness.Config) {
			tweak(c)
			c.Samplers = []string{"komorium-set,granularities=500/10000,randoms=0/100"}
		})
		for i, id := range out.Members["komorium-set"] {
			kc := samplers.DefaultKomoriumConfig()
			kc.Granularity, kc.Random = []int64{500, 500, 10000, 10000}[i], []int64{0, 100, 0, 100}[i]
			alone := run(t, w, func(c *harness.Config) {
				tweak(c)
				c.Samplers = []string{specOf("komorium", &kc)}
			})
			require.Positive(t, out.Costs[id].Taken, id)
			assert.Equal(t, alone.Profiles["komorium"], out.Profiles[id], "%s %s", w, id)
		}
	}
}
