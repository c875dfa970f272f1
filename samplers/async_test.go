package samplers_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/sim"
)

// perThread sums a profile's sample counts and weights by thread name.
func perThread(p *profile.Profile) (counts, weights map[string]int64) {
	counts, weights = map[string]int64{}, map[string]int64{}
	for i, s := range p.Samples {
		counts[p.ThreadName(i)] += s.Count
		weights[p.ThreadName(i)] += s.Weight
	}
	return counts, weights
}

// threadCPU is each application thread's CPU time in the run.
func threadCPU(out *harness.Outcome) map[string]sim.Time {
	m := map[string]sim.Time{}
	for _, th := range out.Result.Threads {
		if !th.Service {
			m[th.Name] = th.States[sim.Running]
		}
	}
	return m
}

// On BlockHalf's twin (main sleeps 5 ms and computes 5 ms in turn, spinner
// computes; 2 CPUs) each engine takes the threads its mechanism says:
// cpu and ctimer each thread once per 10 ms of its own CPU time (ctimer's
// weight counting the periods a tick's overrun folds in), so a thread's
// samples are its CPU time in intervals, exactly but for the period in
// progress; wall every thread once per 10 ms of wall time, asleep or not,
// so main and spinner alike and about half of main's in pause(); itimer
// one signal per 10 ms of the process's tick-charged CPU time.
func TestAsyncEngines(t *testing.T) {
	const d = 2 * sim.Second
	const interval = 10 * sim.Millisecond
	out := run(t, "fid-blockhalf", func(c *harness.Config) {
		c.Sim.CPUs = 2
		c.Sim.Duration = d
		c.Samplers = []string{"async:cpu,engine=cpu", "async:ctimer,engine=ctimer", "async:itimer,engine=itimer", "async:wall,engine=wall"}
	})
	cpu := threadCPU(out)
	require.Greater(t, cpu["spinner"], d*9/10)
	require.InDelta(t, float64(d/2), float64(cpu["main"]), float64(d/10), "main computes half the time")

	for _, name := range []string{"async:cpu", "async:ctimer"} {
		counts, weights := perThread(out.Profiles[name])
		for th, c := range cpu {
			// The run's end cuts the period in progress; a thread's first
			// expiry is an interval into its CPU time.
			want := int64(c / interval)
			assert.InDelta(t, want, weights[th]/int64(interval), 1, "%s %s: weight in intervals = CPU time / interval", name, th)
			if name == "async:cpu" {
				assert.InDelta(t, want, counts[th], 1, "%s %s: a sample per interval of CPU time", name, th)
			} else {
				// A tick (4 ms) after an expiry finds at most one period
				// crossed at 10 ms: one signal each.
				assert.InDelta(t, want, counts[th], 1, "%s %s", name, th)
			}
		}
	}

	counts, _ := perThread(out.Profiles["async:wall"])
	for th := range cpu {
		assert.InDelta(t, int64(d/interval), counts[th], 2, "wall %s: one sample per interval whatever its state", th)
	}
	pause := methodCount(out.Profiles["async:wall"], "BlockHalf.pause")
	assert.InDelta(t, 0.5, float64(pause)/float64(counts["main"]), wallPauseTolerance, "wall: main's samples asleep in pause() as often as it sleeps")

	// itimer: every tick charges 4 ms to each running thread of the
	// process; a signal per 10 ms charged.
	var ticks int64
	for _, th := range out.Result.Threads {
		ticks += int64(th.States[sim.Running] / (4 * sim.Millisecond))
	}
	it := out.Costs["async:itimer"]
	assert.InEpsilon(t, float64(ticks*4)/10, float64(it.Requested), itimerChargeTolerance, "itimer: signals = charged process time / interval")
}

// wallPauseTolerance: main sleeps 5 ms and computes 5 ms, a cycle of
// about 10.1 ms (the sleep oversleeps, as SleepJitter measures), so the
// wall engine's 10 ms grid drifts through main's cycle about twenty times
// in 2 s; 0.1 covers the phase left over (our choice, from the mechanism).
const wallPauseTolerance = 0.1

// itimerChargeTolerance: a tick charges a thread running at the tick,
// which CPU time counts only on average (the kernel's tick sampling); 5 %
// at 2 s (our choice: about 500 ticks a thread, a few percent of jitter).
const itimerChargeTolerance = 0.05

// methodCount counts samples whose leaf is method.
func methodCount(p *profile.Profile, method string) int64 {
	var n int64
	for i, s := range p.Samples {
		if f, ok := p.Leaf(i); ok && p.Functions[f.Func].Name == method {
			n += s.Count
		}
	}
	return n
}

// The wall engine signals at most threads_per_tick threads at once and
// spreads an interval's batches evenly over it: eight busy threads at 3 a
// batch are three batches per interval, at 0, 3/8 and 6/8 of it; each
// thread still once per interval.
func TestAsyncWallBatches(t *testing.T) {
	const interval = 8 * sim.Millisecond
	out := run(t, "fid-oversub", func(c *harness.Config) {
		c.Sim.CPUs = 2
		c.Sim.Duration = 400 * sim.Millisecond
		c.Samplers = []string{fmt.Sprintf("async:w,engine=wall,jitter=0,threads_per_tick=3,interval=%v", interval)}
	})
	ticks := out.Costs["async:w"].Ticks
	require.GreaterOrEqual(t, len(ticks), 3*49)
	for i, at := range ticks[:3*49] {
		cycle, batch := int64(i/3), int64(i%3)
		assert.Equal(t, cycle*int64(interval)+int64(interval)*batch*3/8, at-ticks[0], "tick %d", i)
	}
	counts, _ := perThread(out.Profiles["async:w"])
	require.Len(t, counts, 8)
	for th, n := range counts {
		assert.InDelta(t, 50, n, 1, th)
	}
}

// A bad engine is an error naming the key.
func TestAsyncEngineErrors(t *testing.T) {
	cfg := harness.MustPresetConfig("hotspot6")
	cfg.Samplers = []string{"async,engine=perf"}
	_, err := harness.Run(pollFreeProgram(), cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `engine: "perf" is not one of cpu, ctimer, itimer, wall`)
}
