package samplers_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

// jitterMeanSEs: the mean of n exponential draws has relative standard
// error 1/√n (an exponential's sd is its mean); a mean within 4 standard
// errors of the configured one is what an unbiased implementation gives
// (two-sided normal: one seed in ~16 000 outside).
const jitterMeanSEs = 4.0

// A timer without jitter is a perfect grid; with jitter a grid timer's
// ticks stay on their grid, each late by an exponential draw of the
// configured mean, and a sleeping sampler thread's lateness accumulates
// into its intervals. The jittered samplers run at their default
// (measured) jitter.
func TestTimerJitter(t *testing.T) {
	const period = sim.Millisecond
	out := run(t, "hotcold", func(c *harness.Config) {
		c.Sim.Duration = 2 * sim.Second
		c.Samplers = []string{"async:grid,jitter=0,interval=1ms", "jfr:grid,jitter=0,period=1ms",
			"async:late,interval=1ms", "jfr:late,period=1ms"}
	})
	// async's cpu engine keeps a grid in the thread's CPU time: hotcold's
	// one thread runs from its first instruction, a context switch after
	// the start, to the end.
	start := out.Costs["async:grid"].Ticks[0] - int64(period)
	require.Equal(t, int64(harness.MustPresetConfig("hotspot6").Sim.ContextSwitch), start, "async: the thread's CPU clock starts after its context switch")
	for _, s := range []string{"async:grid", "jfr:grid"} {
		ticks := out.Costs[s].Ticks
		require.Greater(t, len(ticks), 1900, s)
		off := int64(0)
		if s == "async:grid" {
			off = start
		}
		for i, at := range ticks {
			require.Equal(t, off+int64(i+1)*int64(period), at, "%s: jitter 0 is a perfect grid", s)
		}
	}

	mean := defaultDuration(t, "async", "jitter")
	require.Equal(t, samplers.HRTimerJitter, mean)
	late := out.Costs["async:late"].Ticks
	require.Greater(t, len(late), 1900)
	var sum float64
	for i, at := range late {
		nominal := start + int64(i+1)*int64(period)
		require.GreaterOrEqual(t, at, nominal, "a tick is never early")
		require.Less(t, at, nominal+int64(period), "and keeps its grid")
		sum += float64(at - nominal)
	}
	n := float64(len(late))
	t.Logf("async: %d ticks, mean lateness %.2f us (configured %v)", len(late), sum/n/1e3, mean)
	assert.InEpsilon(t, float64(mean), sum/n, jitterMeanSEs/math.Sqrt(n))

	// JFR's thread sleeps: its k-th round comes k periods plus k draws
	// late.
	mean = samplers.DefaultJFRConfig().Jitter
	require.Equal(t, samplers.JFRJitter, mean)
	jfr := out.Costs["jfr:late"].Ticks
	require.Greater(t, len(jfr), 1000)
	for i := 1; i < len(jfr); i++ {
		require.GreaterOrEqual(t, jfr[i]-jfr[i-1], int64(period), "an interval is never short")
	}
	k := float64(len(jfr))
	drift := (float64(jfr[len(jfr)-1]) - k*float64(period)) / k
	t.Logf("jfr: %d rounds, mean lateness per round %.1f us (configured %v)", len(jfr), drift/1e3, mean)
	assert.InEpsilon(t, float64(mean), drift, jitterMeanSEs/math.Sqrt(k))
}

// aliasSEs: a sampler whose ticks fall independently of the program's
// period estimates a method's share p with binomial standard error
// √(p(1−p)/n); an unbiased sampler's estimate lies within 4 standard
// errors of the truth (two-sided normal: one seed in ~16 000 outside).
// An aliased one lies far outside.
const aliasSEs = 4.0

// The aliasing demo (make demo): on workloads/aliasing.yaml, a frame loop
// of exactly 1 ms, JFR on a perfect 20 ms clock sees the same instant of
// every frame and its share of Frame.input is far from the truth; with
// its measured jitter (an oversleep that accumulates) its ticks spread
// over the frame and the share agrees with the truth.
func TestTimerJitterBreaksAliasing(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "workloads", "aliasing.yaml"))
	require.NoError(t, err)
	for _, seed := range []uint64{1, 2, 3} {
		p, err := program.Parse(src, program.YAML)
		require.NoError(t, err)
		cfg := harness.MustPresetConfig("hotspot17")
		cfg.Sim.Seed, cfg.Sim.Duration = seed, 5*sim.Second
		// Frame.input's short counted loop has no poll, hence no PcDesc:
		// without DebugNonSafepoints JFR drops its samples
		// (TestDebugInfoUndecipherableFrame).
		cfg.JIT.DebugNonSafepoints = true
		cfg.Samplers = []string{"truth", "jfr:grid,jitter=0", "jfr"}
		out, err := harness.Run(p, cfg)
		require.NoError(t, err)
		truth := selfShare(t, out, "truth", "Frame.input")
		for _, s := range []string{"jfr:grid", "jfr"} {
			share, n := selfShare(t, out, s, "Frame.input"), float64(out.Costs[s].Taken)
			require.Greater(t, n, 200.0, s)
			band := aliasSEs * math.Sqrt(truth*(1-truth)/n)
			t.Logf("seed %d %s: Frame.input %.1f %% of %.0f samples, truth %.1f %% (band ±%.1f)", seed, s, 100*share, n, 100*truth, 100*band)
			if s == "jfr:grid" {
				assert.Greater(t, math.Abs(share-truth), band, "seed %d: a perfect clock aliases", seed)
			} else {
				assert.InDelta(t, truth, share, band, "seed %d: jitter breaks the aliasing", seed)
			}
		}
	}
}

// selfShare is method m's self share (0–1) in sampler s's profile.
func selfShare(t *testing.T, out *harness.Outcome, s, m string) float64 {
	t.Helper()
	for _, row := range out.Profiles[s].Flat() {
		if row.Name == m {
			return row.SelfShare
		}
	}
	return 0
}
