package examples

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/sim"
)

// run runs the example file under `profsim run`'s default VM (hotspot17)
// for d with the samplers given.
func run(t *testing.T, file string, seed uint64, d sim.Time, dns bool, samplers ...string) *harness.Outcome {
	t.Helper()
	p, err := program.Load(file)
	require.NoError(t, err)
	cfg := harness.MustPresetConfig("hotspot17")
	cfg.Sim.Seed, cfg.Sim.Duration = seed, d
	cfg.JIT.DebugNonSafepoints = dns
	cfg.Samplers = append([]string{"truth"}, samplers...)
	out, err := harness.Run(p, cfg)
	require.NoError(t, err)
	return out
}

// selfShare is method m's self share (0–1) in profile s.
func selfShare(out *harness.Outcome, s, m string) float64 {
	for _, row := range out.Profiles[s].Flat() {
		if row.Name == m {
			return row.SelfShare
		}
	}
	return 0
}

// pollFreeTruthMin: Checksum.sum's loop is 100 words × 3 cycles, plus 3
// cycles around it, out of each record's 5 + 303 cycles plus the call and
// the outer loop's poll (pollfree.yaml): 98 % of the compiled run. 0.9
// leaves the interpreted start-up (about 6 ms of a 1 s run, until the JIT
// installs Checksum.scan) and any per-call cost the model adds.
const pollFreeTruthMin = 0.9

// pollFreeBlamedMax: once Checksum.scan is compiled with Checksum.sum
// inlined, its only polls are its loop's back-edge and its return
// (profsim run --explain-jit on pollfree.yaml), both in scan, so a sampler
// that samples at polls never records sum. Only samples taken in the
// interpreted start-up (at most the first tick of a 10 ms sampler) could
// name sum: 0.1 is ten such samples out of the ~100 of a 1 s run.
const pollFreeBlamedMax = 0.1

func TestPollFreeLoopBlamesTheCaller(t *testing.T) {
	out := run(t, "pollfree.yaml", 1, sim.Second, false, "safepoint")
	truth := selfShare(out, "truth", "Checksum.sum")
	sp := selfShare(out, "safepoint", "Checksum.sum")
	t.Logf("Checksum.sum: truth %.1f %%, safepoint %.1f %% (Checksum.scan %.1f %%)", 100*truth, 100*sp, 100*selfShare(out, "safepoint", "Checksum.scan"))
	assert.Greater(t, truth, pollFreeTruthMin, "the poll-free loop's method has most of the time")
	assert.Less(t, sp, pollFreeBlamedMax, "the safepoint sampler never sees the poll-free loop")
	assert.Greater(t, selfShare(out, "safepoint", "Checksum.scan"), 1-pollFreeBlamedMax, "it blames the caller")

	// With debug information at every statement, a sampler that samples
	// at the exact position (async) finds the loop (the file's comment).
	out = run(t, "pollfree.yaml", 1, sim.Second, true, "async")
	as := selfShare(out, "async", "Checksum.sum")
	t.Logf("Checksum.sum with -XX:+DebugNonSafepoints: async %.1f %%", 100*as)
	assert.Greater(t, as, pollFreeTruthMin, "async with DebugNonSafepoints")
}

// aliasBandSEs: a sampler whose ticks fall at instants independent of
// the program's 2 ms frame estimates a method's share p from n samples
// with binomial standard error √(p(1−p)/n); it lies within 4 standard
// errors of the truth (two-sided normal: one seed in ~16 000 outside), as
// in samplers.TestTimerJitterBreaksAliasing. An aliased sampler lies far
// outside. async:late's exponential lateness of mean 2 ms is not quite
// independent of the frame (its phase density over a 2 ms frame falls
// from 1.6 to 0.6 of uniform), but with the ticks' grid mid-way through
// Game.update it puts 26.3 % of its samples there where uniform phases
// put 25 %: well inside the band of ±12 points at n = 200.
const aliasBandSEs = 4.0

func TestPeriodicAliasesWithAFixedClock(t *testing.T) {
	const m = "Game.update"
	for _, seed := range []uint64{1, 2, 3} {
		out := run(t, "periodic.yaml", seed, 2*sim.Second, false, "tprof:fixed,random=0", "async:late,jitter=2ms")
		truth := selfShare(out, "truth", m)
		for _, s := range []string{"tprof:fixed", "async:late"} {
			share, n := selfShare(out, s, m), float64(out.Costs[s].Taken)
			require.Greater(t, n, 150.0, s)
			band := aliasBandSEs * math.Sqrt(truth*(1-truth)/n)
			t.Logf("seed %d %s: %s %.1f %% of %.0f samples, truth %.1f %% (band ±%.1f)", seed, s, m, 100*share, n, 100*truth, 100*band)
			if s == "tprof:fixed" {
				assert.Greater(t, math.Abs(share-truth), band, "seed %d: a perfect 10 ms clock aliases with 2 ms frames", seed)
			} else {
				assert.InDelta(t, truth, share, band, "seed %d: 2 ms of jitter breaks the aliasing", seed)
			}
		}
	}
}

// lockWaitMin: each teller wants the lock 3 µs of every 4 µs, two of them
// 6 µs of every 4 µs, so the lock is always busy; handed over, it is held
// 5 µs more while its new owner is dispatched (sim.context_switch), so an
// iteration takes 16 µs, 7 µs of it waiting: 44 % of each thread's time
// in lock_wait (lock.yaml), a third without the dispatch. 0.25 leaves
// room for the interpreted start-up (the first 5 ms) and the model's
// per-call and monitor costs.
const lockWaitMin = 0.25

func TestLockContention(t *testing.T) {
	out := run(t, "lock.yaml", 1, 200*sim.Millisecond, false)
	res := out.Result
	tellers := 0
	for _, th := range res.Threads {
		if th.Service {
			continue
		}
		tellers++
		wait := float64(th.States[sim.LockWait]) / float64(res.End-th.Start)
		t.Logf("%s: %.1f %% of its time in lock_wait", th.Name, 100*wait)
		assert.Greater(t, wait, lockWaitMin, "%s waits for the lock", th.Name)
	}
	assert.Equal(t, 2, tellers)
}
