package samplers

import (
	"math/rand/v2"

	"github.com/profsim/profsim/sim"
)

// timerJitter models a real timer: a tick fires late by a draw from an
// exponential distribution with mean Mean (0: on time, a perfect grid).
// Wake-up latency is never negative and mostly small with a long tail,
// which the exponential captures with one parameter (tools/timer-jitter
// measures it on this machine). Each sampler draws from its own stream,
// so switching jitter on moves no other random choice of the run.
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

// first is when the first tick fires.
func (g *gridTicker) first() sim.Time {
	g.nominal = g.period
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
