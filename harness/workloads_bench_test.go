package harness

import (
	"flag"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
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
// timer sampler (async), Collect as profsim run makes it (the recorder
// released as the truth profile is built, Config.ReleaseTruth, at
// CollectGCPercent), and reports simulated seconds per wall second
// (sim-s/s: above 1 is faster than the real JVM), the same for the
// simulation alone (run-sim-s/s: the wall time of RunUntil, without
// Collect, where the truth profile is built), the peak heap (peak-MB:
// runtime.MemStats.HeapAlloc read every 10 ms of simulated time, every
// millisecond of Collect (watchHeap) and once after it, with the Outcome
// and its truth profile still held; a lower bound of the peak, without
// the report profsim run makes after Collect), the calling contexts of the exact CCT
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
			cfg := MustPresetConfig("hotspot17")
			cfg.Sim.Duration = sim.Time(benchSim.Nanoseconds())
			cfg.Samplers = []string{"async"}
			cfg.ReleaseTruth = true
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
				gc := debug.SetGCPercent(CollectGCPercent)
				stop := watchHeap()
				out, err := rig.Collect()
				peak = max(peak, stop())
				debug.SetGCPercent(gc)
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

// heapObjects is runtime/metrics' HeapAlloc: the bytes of heap objects,
// live or not yet swept.
const heapObjects = "/memory/classes/heap/objects:bytes"

// watchHeap reads the heap's objects every millisecond (runtime/metrics,
// without stopping the world, as runtime.ReadMemStats would) until the
// function it returns is called, which returns the largest reading. With
// GOMAXPROCS=1 the watcher runs when the scheduler preempts the measured
// goroutine, about every 10 ms.
func watchHeap() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		sample := []metrics.Sample{{Name: heapObjects}}
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		return peak.Load()
	}
}
