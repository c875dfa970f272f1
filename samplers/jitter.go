package samplers

import (
	"math/rand/v2"

	"github.com/profsim/profsim/sim"
)

// Measured timer lateness on this machine (tools/timer-jitter/README.md,
// OpenJDK 17.0.15, Linux 6.18, 2 vCPUs): the default jitter of the
// samplers whose real mechanism it is. Each is the mean of an exponential
// (timerJitter), whose standard deviation equals its mean.
const (
	// HRTimerJitter: a CLOCK_MONOTONIC POSIX timer (an hrtimer, as perf's
	// cpu-clock event that async-profiler's default cpu mode uses) stays on
	// its grid; over 1500 ticks a tick's lateness beyond the earliest one
	// has median 8.6 µs, and mean 11.3 µs, sd 9.3 µs between its 1st and
	// 99th percentiles: mean 10 µs.
	HRTimerJitter = 10 * sim.Microsecond
	// JFRJitter: JDK 17's JFR sampler thread starts each round late by
	// 259–607 µs on average over six runs (10 and 20 ms periods, quiet and
	// loaded machine), median 375 µs; on the quiet 10 ms run mean 381 µs,
	// sd 364 µs.
	JFRJitter = 375 * sim.Microsecond
	// SleepJitter: a thread sleeping 10 ms (Thread.sleep, parkNanos: a
	// futex or nanosleep with 50 µs timer slack — a JVMTI agent's thread,
	// HotSpot's WatcherThread, Jikes RVM's time-slicer) oversleeps by
	// 113–306 µs on average over twelve runs (0, 1 or 2 busy threads),
	// median 174 µs.
	SleepJitter = 175 * sim.Microsecond
)

// timerJitter models a real timer: a tick fires late by a draw from an
// exponential distribution with mean Mean (0: on time, a perfect grid).
// Wake-up latency is never negative and mostly small with a long tail;
// the exponential keeps the measured mean and, within ~15 %, the
// measured standard deviation (JFR: 381 and 364 µs), not the floor of
// 60–200 µs below which no sleep wakes nor the 1–2 % of 1–5 ms waits for a
// CPU on a loaded machine. Each sampler draws from its own stream, so
// switching jitter on moves no other random choice of the run.
type timerJitter struct {
	mean sim.Time
	rng  *rand.Rand
}

func newTimerJitter(env *Env, name string, mean sim.Time) timerJitter {
	return timerJitter{mean: mean, rng: sim.Stream(env.Seed, "sampler/"+name+"/jitter")}
}

// late is how late the next tick fires.
func (j timerJitter) late() sim.Time {
	if j.mean <= 0 {
		return 0
	}
	return sim.Time(j.rng.ExpFloat64() * float64(j.mean))
}

// gridTicker is a periodic timer that re-arms on its grid (setitimer,
// timer_create, a kernel tick): tick n fires at n·period plus its own
// lateness, so lateness never accumulates.
type gridTicker struct {
	period  sim.Time
	nominal sim.Time
	jitter  timerJitter
}

// first is when the first tick fires, a period after now (the sampler's
// start).
func (g *gridTicker) first(now sim.Time) sim.Time {
	g.nominal = now + g.period
	return g.nominal + g.jitter.late()
}

// next is when the tick after the current one (which fired at now)
// fires. A tick so late that the next grid point's tick would come before
// it is lost, as a POSIX timer's overrun is: the timer fires once.
func (g *gridTicker) next(now sim.Time) sim.Time {
	for {
		g.nominal += g.period
		if at := g.nominal + g.jitter.late(); at >= now {
			return at
		}
	}
}

// ExactClock returns spec with the sampler's timer jitter pinned to 0, a
// perfect clock, or spec unchanged when the sampler has no jitter key
// (tprof randomises its intervals on purpose, komorium counts
// bytecodes) or is unknown (Resolve reports that). Comparisons of
// samplers tick for tick use it: each sampler draws its jitter from its
// own stream, so two jittered samplers never tick together.
func ExactClock(spec string) string {
	s, err := ParseSpec(spec)
	if err != nil {
		return spec
	}
	info, err := Lookup(s.Name)
	if err != nil {
		return spec
	}
	for _, k := range info.Keys() {
		if k.Name == "jitter" {
			return spec + ",jitter=0"
		}
	}
	return spec
}

// costDraw varies a constant cost: each draw is uniform on [d/2, 3d/2]
// (mean d), from the sampler's own stream. A simulated program is
// exactly periodic and a kernel tick exactly on its grid, so a constant
// stall per sample shifts the program's phase against the grid by the
// same amount every time and locks the samples to one part of the
// program (jfr-cputime on hotcold without inlining, costed: hot() 67.9,
// 85.5, 91.6 or 1.2 % at handler costs of 2, 2.1, 2.3 or 3 µs, the
// truth 92.6 %); a real handler's and walk's times vary from sample to
// sample. The spread is our choice.
type costDraw struct{ rng *rand.Rand }

func newCostDraw(env *Env, name string) costDraw {
	return costDraw{rng: sim.Stream(env.Seed, "sampler/"+name+"/cost")}
}

// vary draws a cost of mean d (0 for d ≤ 0).
func (c costDraw) vary(d sim.Time) sim.Time {
	if d <= 0 {
		return 0
	}
	return d/2 + sim.Time(c.rng.Int64N(int64(d)+1))
}
