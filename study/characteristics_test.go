package study

import (
	"testing"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The stand-ins have the properties their documentation claims.
func TestStandInCharacteristics(t *testing.T) {
	type check func(c Characteristics) bool
	cases := []struct {
		name, claim string
		ok          check
	}{
		{"kiama", "stacks deeper than 256 frames", func(c Characteristics) bool { return c.MaxDepth > 256 }},
		{"scalac", "stacks deeper than 256 frames", func(c Characteristics) bool { return c.MaxDepth > 256 }},
		{"tmt", "many short-lived threads", func(c Characteristics) bool { return c.Threads > 100 }},
		{"tradebeans", "many threads, mostly waiting", func(c Characteristics) bool { return c.Threads >= 33 && c.Blocking > 0.3 }},
		{"actors", "many threads", func(c Characteristics) bool { return c.Threads >= 33 }},
		{"lusearch", "CPU-heavy, poll-free hot loops", func(c Characteristics) bool { return c.PollFreeShare > 0.8 && c.Blocking < 0.05 }},
		{"sunflow", "CPU-heavy, poll-free hot loops", func(c Characteristics) bool { return c.PollFreeShare > 0.8 }},
		{"xalan", "CPU-heavy, poll-free hot loops", func(c Characteristics) bool { return c.PollFreeShare > 0.8 }},
		{"compress", "loop-dominated", func(c Characteristics) bool { return c.PollFreeShare > 0.8 }},
		{"jack", "exception-heavy", func(c Characteristics) bool { return c.ExceptionsPerSecond > 1e4 }},
		{"mpegaudio", "large basic blocks", func(c Characteristics) bool { return c.LargestBlock >= 100 }},
		{"mtrt", "two worker threads", func(c Characteristics) bool { return c.Threads == 3 }},
		{"javac", "deep and call-heavy", func(c Characteristics) bool { return c.MeanDepth > 10 && c.CallsPerSecond > 5e6 }},
		{"antlr", "single-threaded", func(c Characteristics) bool { return c.Threads == 1 && c.Blocking == 0 }},
		{"avrora", "waiting threads", func(c Characteristics) bool { return c.Blocking > 0.2 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Measure(c.name, 300*sim.Millisecond)
			require.NoError(t, err)
			assert.True(t, c.ok(m), "%s should be %s: %+v", c.name, c.claim, m)
		})
	}
}

// Every stand-in runs deterministically: two short runs, identical truth.
func TestStandInsRunDeterministically(t *testing.T) {
	for _, s := range workloads.StandIns() {
		run := func() *harness.Outcome {
			p, err := workloads.Get(s.Name)
			require.NoError(t, err)
			cfg := harness.MustPresetConfig("hotspot6")
			cfg.Sim.Duration = 15 * sim.Millisecond
			out, err := harness.Run(p, cfg)
			require.NoError(t, err)
			return out
		}
		a, b := run(), run()
		require.Positive(t, a.Result.AppCPU(), s.Name)
		assert.Equal(t, a.Result.Truth.Nodes(), b.Result.Truth.Nodes(), s.Name)
		assert.Empty(t, a.Result.Incidents, s.Name)
	}
}
