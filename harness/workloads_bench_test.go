package harness

import (
	"flag"
	"runtime"
	"testing"
	"time"

	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
)

// benchSim is how long each workload runs in BenchmarkWorkloads: long
// enough for the JIT to compile the hot code (a few ms), short enough that
// the slowest stand-ins (javac: ~0.05 simulated seconds per second) keep
// `make bench` to minutes. -bench.sim=60s measures a paper-length run's
// memory.
var benchSim = flag.Duration("bench.sim", 100*time.Millisecond, "simulated time of each BenchmarkWorkloads run")

// benchStep is how often BenchmarkWorkloads samples the heap during a run.
const benchStep = 10 * sim.Millisecond

// BenchmarkWorkloads runs every built-in workload and stand-in under
// profsim run's default VM (hotspot17) with the ground truth on and one
// timer sampler (async), and reports simulated seconds per wall second
// (sim-s/s: above 1 is faster than the real JVM), the same for the
// simulation alone (run-sim-s/s: the wall time of RunUntil, without
// Collect, where the truth profile is built), the peak heap (peak-MB:
// runtime.MemStats.HeapAlloc read every 10 ms of simulated time and once
// after Collect, with the Outcome and its truth profile still held, so a
// lower bound of the peak), the calling contexts of the exact CCT
// (contexts), the frames of the truth profile's stacks (frames: what the
// profile would hold with a copied stack per sample; its stacks share one
// context table) and that table's size (truth-contexts: a context per CCT
// node and per other line with self time). `make bench` prints them.
func BenchmarkWorkloads(b *testing.B) {
	for _, name := range workloads.Names() {
		b.Run(name, func(b *testing.B) {
			p, err := workloads.Get(name)
			if err != nil {
				b.Fatal(err)
			}
			cfg := DefaultConfig()
			if err := ApplyPreset(&cfg, "hotspot17"); err != nil {
				b.Fatal(err)
			}
			cfg.Sim.Duration = sim.Time(benchSim.Nanoseconds())
			cfg.Samplers = []string{"async"}
			var peak uint64
			var simulated sim.Time
			var running time.Duration
			var contexts, frames, truthContexts int64
			var ms runtime.MemStats
			b.ResetTimer()
			for range b.N {
				rig, err := Build(p, cfg)
				if err != nil {
					b.Fatal(err)
				}
				for at := benchStep; ; at += benchStep {
					start := time.Now()
					more := rig.RunUntil(at)
					running += time.Since(start)
					if !more {
						break
					}
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapAlloc)
				}
				out, err := rig.Collect()
				if err != nil {
					b.Fatal(err)
				}
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
				simulated += out.Result.End
				contexts = max(contexts, out.Footprint.Contexts)
				frames = max(frames, out.Footprint.StackFrames)
				truthContexts = max(truthContexts, int64(len(out.Profiles["truth"].Contexts)))
				runtime.KeepAlive(out)
			}
			b.ReportMetric(float64(simulated)/float64(b.Elapsed().Nanoseconds()), "sim-s/s")
			b.ReportMetric(float64(simulated)/float64(running.Nanoseconds()), "run-sim-s/s")
			b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
			b.ReportMetric(float64(contexts), "contexts")
			b.ReportMetric(float64(frames), "frames")
			b.ReportMetric(float64(truthContexts), "truth-contexts")
		})
	}
}
