package study

import (
	"testing"

	"github.com/profsim/profsim/sim"
)

// BenchmarkBinderSet is one set run of Binder's paper-length grid at a
// tenth of its length, for each of the grid's stand-ins: seed 1, 2 s,
// the twelve granularity settings on one execution (komoriumSetKey.run:
// the run, the members' profiles, their overlaps with the exact bytecode
// CCT and their sizes). javac is the costliest. docs/PERFORMANCE.md
// ("Paper-length study runs") gives their CPU times:
//
//	go test ./study -run '^$' -bench BinderSet/javac -benchtime 1x -cpuprofile cpu.out
func BenchmarkBinderSet(b *testing.B) {
	for _, bench := range binderBenchesDefault {
		b.Run(bench, func(b *testing.B) {
			k := komoriumSetKey{bench: bench, seed: 1, d: 2 * sim.Second}
			for b.Loop() {
				if _, err := k.run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
