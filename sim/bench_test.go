package sim

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/profsim/profsim/program"
	"github.com/stretchr/testify/assert"
)

// benchPrograms are the paper programs plus a generated 200-method one.
func benchPrograms(b testing.TB) map[string]*program.Program {
	ps := map[string]*program.Program{
		"gen200":         genProgram(42, 200, false), // CPU-bound: the executor
		"gen200-threads": randomProgram(42, 200),     // sleeps, locks, spawns: the scheduler too
	}
	for _, w := range []string{"hotcold", "callpair", "sqsum", "abcuv", "deepcall"} {
		ps[w] = builtin(b, w)
	}
	return ps
}

// BenchmarkExecutor measures statements executed per second of real time
// (Mstmts/s) with ground truth on and no hook armed. One op is 1 ms of
// simulated time; allocs/op is the steady state (the VM is warmed up
// first). gen200-threads spends most of its time in scheduler interactions
// (sleeps, monitors), so it measures the VM loop more than the executor.
func BenchmarkExecutor(b *testing.B) {
	for _, name := range []string{"hotcold", "callpair", "sqsum", "abcuv", "deepcall", "gen200", "gen200-threads"} {
		p := benchPrograms(b)[name]
		b.Run(name, func(b *testing.B) {
			fresh := func() *VM {
				vm := newVM(b, p, func(c *Config) { c.Duration = 1000 * Second })
				vm.RunUntil(5 * Millisecond) // warm up: stacks, CCT, queues grown
				return vm
			}
			vm := fresh()
			var stmts int64
			var wall time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if vm.Done() {
					b.StopTimer()
					vm = fresh()
					b.StartTimer()
				}
				before := vm.Statements()
				start := time.Now()
				vm.RunUntil(vm.Now() + Millisecond)
				wall += time.Since(start)
				b.StopTimer()
				stmts += vm.Statements() - before
				b.StartTimer()
			}
			b.ReportMetric(float64(stmts)/float64(b.N), "stmts/op")
			if wall > 0 {
				b.ReportMetric(float64(stmts)/wall.Seconds()/1e6, "Mstmts/s")
			}
		})
	}
}

// The executor's steady state must not allocate.
func TestExecutorDoesNotAllocate(t *testing.T) {
	progs := benchPrograms(t)
	for _, w := range []string{"hotcold", "callpair", "sqsum", "abcuv", "deepcall", "gen200"} {
		vm := newVM(t, progs[w], func(c *Config) { c.Duration = 1000 * Second })
		vm.RunUntil(20 * Millisecond)
		allocs := testing.AllocsPerRun(50, func() { vm.RunUntil(vm.Now() + 200*Microsecond) })
		assert.Zero(t, allocs, w)
	}
	// Model throws deoptimizing catchers, their debts paid on return.
	r := rand.New(rand.NewPCG(3, 3))
	p := genProgram(42, 200, false)
	addThrows(p, r)
	vm := newVM(t, p, func(c *Config) { c.Duration = 1000 * Second })
	for _, c := range vm.img.Base {
		vm.SetInterpreted(Recost(c, vm.cfg.Cost, Interpreted))
	}
	vm.SetCatchDeopt(3100, 470)
	vm.RunUntil(20 * Millisecond)
	allocs := testing.AllocsPerRun(50, func() { vm.RunUntil(vm.Now() + 200*Microsecond) })
	assert.Zero(t, allocs, "gen200 with model throws")
	assert.Positive(t, vm.truth.Deoptimizations, "gen200 with model throws deoptimizes")
}
