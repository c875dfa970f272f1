package samplers_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

// A thread that computes and then waits in I/O (block kind io: a native
// call waiting in the kernel) is RUNNABLE to JVMTI all along, so an agent
// that keeps GetAllStackTraces' RUNNABLE threads (hprof cpu=samples, the
// validation harness's agent) puts the share of the time it waits in the
// method that waits; a CPU-time sampler puts none there. A thread that
// sleeps instead is TIMED_WAITING: no sample of the sleeping method.
const ioWait = `
name: iowait
methods:
  - class: D
    name: main
    body: [{loop: {trips: 1000000000, body: [{call: {method: D.compute}}, {call: {method: D.wait}}]}}]
  - class: D
    name: compute
    body: [{loop: {trips: 3000, body: [{work: {cycles: 100, bytecodes: 20}}]}}]
  - class: D
    name: wait
    body: [{block: {kind: io, duration: 2400000}}]
threads: [{name: main, entry: D.main}]
`

// blockingIOShare is a sample share's tolerance: 1 s at 1 ms is ~1000
// samples, whose binomial standard deviation is at most 1.6 points; 5
// points is three of them.
const blockingIOShare = 0.05

func TestSafepointSamplersSeeBlockingIOAsRunnable(t *testing.T) {
	for _, kind := range []string{"io", "sleep"} {
		src := strings.Replace(ioWait, "kind: io", "kind: "+kind, 1)
		p, err := program.Parse([]byte(src), program.YAML)
		require.NoError(t, err)
		for _, mode := range []samplers.Mode{samplers.Passive, samplers.Costed} {
			cfg := harness.MustPresetConfig("hotspot17")
			cfg.Sim.Duration = sim.Second
			cfg.Samplers, cfg.Mode = []string{"safepoint,interval=1ms", "tprof,interval=1ms,random=300us"}, mode
			out, err := harness.Run(p, cfg)
			require.NoError(t, err)
			var blocked, wall float64
			for _, th := range out.Result.Threads {
				if th.Name == "main" {
					for _, d := range th.States {
						wall += float64(d)
					}
					blocked = float64(th.States[sim.Blocked])
				}
			}
			require.Greater(t, blocked/wall, 0.5, "%s, %v: the thread mostly waits", kind, mode)
			want := blocked / wall // RUNNABLE to JVMTI while it waits in I/O
			if kind == "sleep" {
				want = 0
			}
			sp := out.Profiles["safepoint"].MethodWeights()
			var total float64
			for _, w := range sp {
				total += w
			}
			require.Positive(t, total)
			assert.InDelta(t, want, sp["D.wait"]/total, blockingIOShare, "%s, %v: safepoint", kind, mode)
			assert.Zero(t, out.Profiles["tprof"].MethodWeights()["D.wait"], "%s, %v: tprof counts CPU time only", kind, mode)
		}
	}
}
