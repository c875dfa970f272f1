package study

import (
	"flag"
	"testing"

	"github.com/profsim/profsim/sim"
)

// binderSetDuration is BenchmarkBinderSet's run length: a tenth of the
// paper's by default, the paper's with -binderset.d 20s.
var binderSetDuration = flag.Duration("binderset.d", 2e9, "BenchmarkBinderSet's simulated run length")

// BenchmarkBinderSet is one set run of Binder's paper-length grid at a
// tenth of its length, for each of the grid's stand-ins: seed 1, 2 s,
// the twelve granularity settings on one execution (komoriumSetKey.run:
// the run, the members' profiles, their overlaps with the exact bytecode
// CCT and their sizes). javac is the costliest. docs/PERFORMANCE.md
// ("Paper-length study runs") gives their CPU times:
//
//	go test ./study -run '^$' -bench BinderSet/javac -benchtime 1x -cpuprofile cpu.out
//
// -binderset.d sets the run length (binderPaperDuration: 20s).
func BenchmarkBinderSet(b *testing.B) {
	for _, bench := range binderBenchesDefault {
		b.Run(bench, func(b *testing.B) {
			k := komoriumSetKey{bench: bench, seed: 1, d: sim.Time(*binderSetDuration)}
			for b.Loop() {
				if _, err := k.run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
