package study

import (
	"fmt"
	"github.com/profsim/profsim/param"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

// hoferTechniques are the paper's three sampling techniques, in its order.
var hoferTechniques = []string{"jvmti", "sps", "isps"}

// hoferWarmUp is discarded from every run (the paper discards its first
// 20 iterations); steady-state speed is measured after it.
const hoferWarmUp = 100 * sim.Millisecond

// hoferRun is one run's measurements.
type hoferRun struct {
	Speed   float64 // bytecodes per simulated second after the warm-up
	Costs   samplers.Costs
	Prof    *profile.Profile
	Windows []*profile.Profile
}

// hoferRunKey is one Hofer run: bench for d, costed with prof ("" =
// unprofiled) at interval iv, profiles split into windows of window (0:
// none).
type hoferRunKey struct {
	bench         string
	seed          uint64
	prof          string
	iv, d, window sim.Time
}

func (k hoferRunKey) run() (*hoferRun, error) {
	bench, seed, prof, iv, d, window := k.bench, k.seed, k.prof, k.iv, k.d, k.window
	s := paperSpec(bench, seed, d)
	s.Truth = "methods" // only the bytecodes executed are read
	if prof != "" {
		s.Samplers, s.Mode = []string{prof + ",interval=" + param.FormatDuration(iv)}, samplers.Costed
	}
	out, err := runSpec(s, func(cfg *harness.Config) {
		cfg.WarmUp, cfg.Window, cfg.NoTruthProfile = hoferWarmUp, window, true
	})
	if err != nil {
		return nil, fmt.Errorf("%s %s %v seed %d: %w", bench, prof, iv, seed, err)
	}
	if out.Result.End <= hoferWarmUp {
		return nil, fmt.Errorf("%s %s %v seed %d: the program ended at %v, within the warm-up", bench, prof, iv, seed, out.Result.End)
	}
	r := &hoferRun{Speed: float64(out.Result.Truth.BytecodeTotal()-out.WarmUpBytecodes) / (out.Result.End - hoferWarmUp).Seconds()}
	if prof != "" {
		r.Costs, r.Prof, r.Windows = out.Costs[prof], out.Profiles[prof], out.Windows[prof]
	}
	return r, nil
}

// hoferKey names one run of a grid, its seed by index.
type hoferKey struct {
	bench string
	seed  int // index into Options.Seeds
	prof  string
	iv    sim.Time
}

// hoferGrid runs keys for d with windows of window.
func hoferGrid(o Options, keys []hoferKey, d, window sim.Time) (map[hoferKey]*hoferRun, error) {
	rk := make([]hoferRunKey, len(keys))
	for i, k := range keys {
		rk[i] = hoferRunKey{k.bench, o.Seeds[k.seed], k.prof, k.iv, d, window}
	}
	runs, err := runAll(o, rk)
	if err != nil {
		return nil, err
	}
	out := map[hoferKey]*hoferRun{}
	for i, k := range keys {
		out[k] = runs[i]
	}
	return out, nil
}
