package study

import (
	"testing"

	"github.com/profsim/profsim/sim"
)

// BenchmarkBinderSet is one run of Binder's paper-length grid at a tenth
// of its length: javac (the grid's costliest stand-in), seed 1, 2 s, the
// twelve granularity settings on one execution (komoriumSetKey.run: the
// run, the members' profiles, their overlaps with the exact bytecode CCT
// and their sizes). docs/PERFORMANCE.md ("Paper-length study runs") gives
// its CPU time:
//
//	go test ./study -run '^$' -bench BinderSet -benchtime 1x -cpuprofile cpu.out
func BenchmarkBinderSet(b *testing.B) {
	k := komoriumSetKey{bench: "javac", seed: 1, d: 2 * sim.Second}
	for b.Loop() {
		if _, err := k.run(); err != nil {
			b.Fatal(err)
		}
	}
}
