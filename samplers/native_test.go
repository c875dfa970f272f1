package samplers_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

// nativeProgram runs, over and over, 60–80 ms of Java work (uniform, so
// that ticks fall at every phase) and then a 30 ms call of the native
// method Nat.n: 30 % of its time in native code, each native call three
// 10 ms sampling periods long.
func nativeProgram() *program.Program {
	return &program.Program{Name: "native", Methods: []program.Method{
		{Class: "Main", Name: "run", Body: []program.Stmt{{Loop: &program.Loop{Trips: program.Const(1_000_000), Body: []program.Stmt{
			{Call: &program.Call{Method: "Main.work"}},
			{Call: &program.Call{Method: "Nat.n"}},
		}}}}},
		{Class: "Main", Name: "work", Body: []program.Stmt{
			{Loop: &program.Loop{Trips: &program.Dist{Kind: program.Uniform, A: 6000, B: 8000}, Body: []program.Stmt{{Work: &program.Work{Cycles: 10_000, Bytecodes: 10}}}}},
		}},
		{Class: "Nat", Name: "n", Body: []program.Stmt{{Native: &program.Native{Cycles: 30_000_000}}}},
	}, Threads: []program.Thread{{Name: "main", Entry: "Main.run", Count: 1}}}
}

// nativeShareTolerance: a 10 s run gives about a thousand 10 ms samples,
// whose native share has a binomial sd of √(0.3·0.7/1000) ≈ 0.015 (JFR's
// 20 ms: 0.02); four of those.
const nativeShareTolerance = 0.06

// How each sampler class sees a thread in native code. JVMTI
// GetAllStackTraces (the safepoint family) walks a thread in native code
// at once, RUNNABLE with the native method on top: it is safe at a
// safepoint (safepoint_safe_with, runtime/safepoint.cpp). JFR's execution
// sampler takes only threads in _thread_in_Java (thread_state_in_java,
// jfrThreadSampler.cpp). AsyncGetCallTrace, in a signal handler, sees the
// thread in its native method.
func TestNativeCodeBySampler(t *testing.T) {
	for _, mode := range []samplers.Mode{samplers.Passive, samplers.Costed} {
		names := []string{"safepoint", "hprof", "xprof", "jprofile", "jvmti", "yourkit", "jfr", "async"}
		if mode == samplers.Costed {
			names = []string{"safepoint", "jfr", "async"} // one run each: costed samplers perturb each other
		}
		var runs [][]string
		if mode == samplers.Passive {
			runs = [][]string{names}
		} else {
			for _, n := range names {
				runs = append(runs, []string{n})
			}
		}
		for _, ss := range runs {
			cfg := harness.MustPresetConfig("hotspot6")
			cfg.Sim.Duration = 10 * sim.Second
			cfg.Samplers, cfg.Mode = ss, mode
			// A safepoint poll every 100 trips (1 ms) of Main.work's
			// counted loop: time to safepoint stays far below the
			// period, so what is measured is how native code is seen.
			cfg.JIT.StripMiningIter = 100
			out, err := harness.Run(nativeProgram(), cfg)
			require.NoError(t, err)
			truth := out.Profiles["truth"].MethodWeights()
			var tt float64
			for _, v := range truth {
				tt += v
			}
			want := truth["Nat.n"] / tt
			t.Logf("truth %v", truth)
			for _, s := range ss {
				p := out.Profiles[s]
				require.NotNil(t, p, s)
				w := p.MethodWeights()
				var total float64
				for _, v := range w {
					total += v
				}
				share := w["Nat.n"] / total
				t.Logf("%s %v: %v", s, mode, w)
				if s == "jfr" {
					assert.Zero(t, w["Nat.n"], "%s %v: JFR's execution sampler never samples native code", s, mode)
					assert.Positive(t, w["Main.work"], "%s %v", s, mode)
					continue
				}
				assert.InDelta(t, want, share, nativeShareTolerance, "%s %v: native share", s, mode)
			}
		}
	}
}
