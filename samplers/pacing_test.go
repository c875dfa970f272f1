package samplers_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

// Four threads in a poll-free counted loop of ≈ 2 ms: a global safepoint
// waits up to that long for the last of them.
const pollFree = `
name: pollfree
methods:
  - {class: P, name: run, body: [{loop: {trips: 1000000, body: [{call: {method: P.chunk}}]}}]}
  - {class: P, name: chunk, body: [{loop: {trips: 20000, body: [{work: {cycles: 100, bytecodes: 10}}]}}]}
threads: [{name: w, entry: P.run, count: 4}]
`

// Hofer et al.'s agents wait the interval less the last sample's time: at
// 0.1 ms, far below the time to safepoint, every request waits for the
// previous sample (no queue of requests builds up) and follows it at once.
func TestPacedSamplersNeverQueueRequests(t *testing.T) {
	for _, s := range []string{"jvmti", "sps", "isps"} {
		t.Run(s, func(t *testing.T) {
			cfg := harness.MustPresetConfig("hotspot6")
			cfg.Sim.Duration = 100 * sim.Millisecond
			cfg.GC = nil
			cfg.Samplers, cfg.Mode = []string{s + ",interval=100us"}, samplers.Costed
			out, err := harness.Run(mustParse(t, pollFree), cfg)
			require.NoError(t, err)
			var prevEnd sim.Time
			n := 0
			for _, r := range out.Safepoints.Records() {
				if r.Reason != "sample:"+s {
					continue
				}
				n++
				assert.GreaterOrEqual(t, r.Requested, prevEnd, "request %d came before the previous sample was done", n)
				prevEnd = r.End
			}
			c := out.Costs[s]
			require.Positive(t, n)
			// Ticks equal safepoints (the last may still be in progress).
			assert.InDelta(t, c.Requested, n, 1)
			assert.Len(t, c.Latencies, n)
			assert.Less(t, c.Requested, int64(1000), "a fixed 0.1 ms clock would ask 1000 times")
		})
	}
}

// When sampling is fast the paced clock is the fixed one: one request
// every interval. The fixed clock is a perfect grid only without jitter,
// so the agent's oversleep is pinned to 0.
func TestPacedSamplerKeepsTheInterval(t *testing.T) {
	out := run(t, "abcuv", func(c *harness.Config) {
		c.Sim.Duration = 300 * sim.Millisecond
		c.Samplers, c.Mode = []string{"jvmti,jitter=0"}, samplers.Costed
	})
	ticks := out.Costs["jvmti"].Ticks
	require.GreaterOrEqual(t, len(ticks), 10)
	for i, at := range ticks {
		assert.Equal(t, int64(i+1)*int64(10*sim.Millisecond), at)
	}
}

func TestSafepointConfigRejectsFromEndAndPaced(t *testing.T) {
	err := samplers.SafepointConfig{Interval: sim.Millisecond, FromEnd: true, Paced: true}.Validate()
	assert.ErrorContains(t, err, "paced")
}

// Windows split a sampler's samples by time; they add up to the whole
// profile, and samplers that keep no sample times refuse them.
func TestWindowsSplitTheProfile(t *testing.T) {
	out := run(t, "abcuv", func(c *harness.Config) {
		c.Sim.Duration = 300 * sim.Millisecond
		c.Samplers = []string{"jvmti", "sps", "isps", "tprof", "async", "jfr"}
		c.Window = 50 * sim.Millisecond
	})
	for _, s := range []string{"jvmti", "sps", "isps", "tprof", "async", "jfr"} {
		ws := out.Windows[s]
		require.NotEmpty(t, ws, s)
		assert.LessOrEqual(t, len(ws), 6, s)
		sum := map[string]float64{}
		for _, w := range ws {
			for k, v := range w.ContextWeights() {
				sum[k] += v
			}
		}
		assert.Equal(t, out.Profiles[s].ContextWeights(), sum, s)
	}
	// jvmti samples at 10, 20, … ms: five in each full 50 ms window.
	assert.Equal(t, int64(4), out.Windows["jvmti"][0].TotalCount(), "10–40 ms")
	assert.Equal(t, int64(5), out.Windows["jvmti"][1].TotalCount(), "50–90 ms")

	for _, s := range []string{"pcct", "hotmethods", "komorium"} {
		p := mustParse(t, pollFree)
		cfg := harness.MustPresetConfig("hotspot6")
		cfg.Sim.Duration = 10 * sim.Millisecond
		cfg.Samplers, cfg.Window = []string{s}, 5*sim.Millisecond
		_, err := harness.Run(p, cfg)
		assert.ErrorContains(t, err, "window", s)
	}
}

// Short-lived threads: ISPS must retrieve each ending thread's traces in
// ThreadEnd, and a retrieve enters a full safepoint (Hofer et al. §5.3,
// §7.1's tmt) — one per thread end; SPS needs none.
func TestISPSRetrievesAtEveryThreadEnd(t *testing.T) {
	src := `
name: shortlived
methods:
  - {class: T, name: main, body: [{loop: {trips: 40, body: [{spawn: {name: job, entry: T.job, count: 4, join: true}}]}}]}
  - {class: T, name: job, body: [{loop: {trips: 200, body: [{work: {cycles: 5000, bytecodes: 500}}, {call: {method: T.leaf}}]}}]}
  - {class: T, name: leaf, body: [{work: {cycles: 500, bytecodes: 50}}]}
threads: [{name: main, entry: T.main}]
`
	res := map[string]*harness.Outcome{}
	for _, s := range []string{"sps", "isps"} {
		cfg := harness.MustPresetConfig("hotspot6")
		cfg.Sim.Duration = sim.Second
		cfg.GC = nil
		cfg.Samplers, cfg.Mode = []string{s + ",interval=1ms"}, samplers.Costed
		out, err := harness.Run(mustParse(t, src), cfg)
		require.NoError(t, err)
		res[s] = out
	}
	count := func(s, reason string) (n int) {
		for _, r := range res[s].Safepoints.Records() {
			if r.Reason == reason {
				n++
			}
		}
		return n
	}
	// 160 job threads and main.
	assert.Equal(t, 161, count("isps", "retrieve:isps"), "one full safepoint per ended thread")
	assert.Equal(t, 161.0, res["isps"].Costs["isps"].Measures[samplers.ThreadEndRetrieves])
	// The callback waits for its safepoint, holding the thread and its
	// joiner: the run ends after the last retrieve.
	recs := res["isps"].Safepoints.Records()
	assert.GreaterOrEqual(t, res["isps"].Result.End, recs[len(recs)-1].End)
	assert.Zero(t, count("sps", "retrieve:sps"))
	// Every sample is retrieved: none is lost with its thread.
	assert.Equal(t, res["isps"].Costs["isps"].Taken, res["isps"].Profiles["isps"].TotalCount())
	assert.Greater(t, res["isps"].Costs["isps"].Pauses, res["sps"].Costs["sps"].Pauses)
}
