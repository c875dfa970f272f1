package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A program that only sleeps reaches any simulated time in a few
// scheduling rounds: with every CPU idle, time jumps to the next event
// rather than stepping by MaxStep (10 000 s of sleep were 10⁸ rounds).
func TestSleepAdvancesByEvents(t *testing.T) {
	src := `
name: sleeper
methods:
  - class: A
    name: main
    body:
      - loop:
          trips: 3
          body:
            - block: {kind: sleep, duration: 10000s}
            - work: {cycles: 1000, bytecodes: 1}
threads: [{name: main, entry: A.main}]
`
	// maxRounds: each sleep costs a round to block, one to wake and one to
	// run the work; a few more start and end the run.
	const maxRounds = 3*3 + 8
	vm := newVM(t, parse(t, src), func(c *Config) { c.Duration = 1 << 62 })
	r := vm.Run()
	require.Empty(t, r.Incidents)
	assert.Greater(t, r.End, 30000*Second, "the thread slept three times 10 000 s")
	assert.LessOrEqual(t, vm.rounds, int64(maxRounds), "scheduling rounds")

	// Up to the configured duration when the sleep outlasts it.
	vm = newVM(t, parse(t, src), func(c *Config) { c.Duration = 15000 * Second })
	r = vm.Run()
	assert.Equal(t, 15000*Second, r.End)
	assert.LessOrEqual(t, vm.rounds, int64(maxRounds), "scheduling rounds")
}
