package study

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

// Binder's experiments run Komorium on the SPECjvm98 stand-ins. By default
// four of them span the claims — loop-dominated (compress), large blocks
// (mpegaudio), deep and call-heavy (javac), exception-heavy (jack); --full
// runs all seven, ten times longer; Options.Paper runs the four for
// binderPaperDuration.
var (
	binderBenchesDefault = []string{"compress", "javac", "mpegaudio", "jack"}
	binderGrans          = []int64{500, 1000, 5000, 10000, 100000, 1000000}
)

// binderPaperDuration is a paper-length run: the four stand-ins execute
// 3.7–6.0·10⁸ bytecodes a simulated second (1 s, seed 1: compress 6.0,
// javac 4.8, jack 4.8, mpegaudio 3.7), so 20 s is 0.75–1.2·10¹⁰, the
// ≈ 10¹⁰ of Binder's SPECjvm98 runs at problem size 100.
const binderPaperDuration = 20 * sim.Second

// binderPaperNote is what Options.Paper runs for the grid's experiments.
const binderPaperNote = "the 4 default stand-ins for 20 s (≈ 10¹⁰ bytecodes a run, as the paper's), every granularity of a seed on one execution (a komorium-set sampler)"

func binderSetup(o Options) (benches []string, d sim.Time) {
	switch {
	case o.Paper:
		return binderBenchesDefault, binderPaperDuration
	case o.Full:
		return a2Benches, sim.Second
	}
	return binderBenchesDefault, 100 * sim.Millisecond
}

// komoriumRun is one Komorium run's accuracy and size against the exact
// bytecode CCT of the same execution.
type komoriumRun struct {
	Overlap float64 // % of the exact bytecode CCT
	Nodes   int     // nodes of the sampled CCT
	DeltaB  float64 // (reported − executed) / executed bytecodes
	Profile *profile.Profile
}

// komoriumKey is one run of bench for d with a passive Komorium (its
// instrumentation free, so the execution is the unprofiled one) at
// granularity gran, randomized (Binder's U[0, 100)) or not, with MaxPath
// off or at its default.
type komoriumKey struct {
	bench     string
	seed      uint64
	d         sim.Time
	gran      int64
	random    bool
	noMaxPath bool
}

func (k komoriumKey) run() (*komoriumRun, error) {
	bench := k.bench
	s := paperSpec(bench, k.seed, k.d)
	spec := fmt.Sprintf("komorium,granularity=%d", k.gran)
	if k.random {
		spec += ",random=100" // Binder: U[0, 100)
	}
	if k.noMaxPath {
		spec += ",max_path=0"
	}
	s.Samplers = []string{spec}
	out, err := runSpec(s, func(cfg *harness.Config) {
		cfg.NoTruthProfile = true // compared with the exact bytecode CCT, not the truth profile
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", bench, err)
	}
	kp := out.Profiles["komorium"]
	exact := harness.TruthBytecodeProfile(out.Result.Truth, out.Image)
	executed := float64(out.Result.Truth.BytecodeTotal())
	return &komoriumRun{
		Overlap: 100 * profile.OverlapContexts(kp, exact),
		Nodes:   kp.CCTSize(),
		DeltaB:  (out.Costs["komorium"].Measures[samplers.ApproxTotalBytecodes] - executed) / executed,
		Profile: kp,
	}, nil
}

// komoriumSetKey is the granularity grid of bench for d on one execution:
// a passive komorium-set (binderSetSpec) with a member per granularity,
// constant and randomized (binderSetConfigs), MaxPath at its default. The
// members are the Komoriums alone on single-threaded stand-ins (the four
// of binderBenchesDefault), whose runs cost a twelfth.
type komoriumSetKey struct {
	bench string
	seed  uint64
	d     sim.Time
}

// binderSetConfigs are a komoriumSetKey's members, the granularities in
// binderGrans order, each constant then randomized: the order of
// binderSetSpec's members.
func binderSetConfigs() []samplers.KomoriumConfig {
	var out []samplers.KomoriumConfig
	for _, g := range binderGrans {
		for _, random := range []bool{false, true} {
			kc := samplers.DefaultKomoriumConfig()
			kc.Granularity = g
			if random {
				kc.Random = 100 // Binder: U[0, 100)
			}
			out = append(out, kc)
		}
	}
	return out
}

// binderSetSpec is the komorium-set of binderSetConfigs' members.
func binderSetSpec() string {
	grans := make([]string, len(binderGrans))
	for i, g := range binderGrans {
		grans[i] = strconv.FormatInt(g, 10)
	}
	return "komorium-set,granularities=" + strings.Join(grans, "/") + ",randoms=0/100" // Binder: U[0, 100)
}

// spec is the run's harness.Spec.
func (k komoriumSetKey) spec() harness.Spec {
	s := paperSpec(k.bench, k.seed, k.d)
	s.Samplers = []string{binderSetSpec()}
	return s
}

func (k komoriumSetKey) run() ([]*komoriumRun, error) {
	out, err := runSpec(k.spec(), func(cfg *harness.Config) {
		cfg.NoTruthProfile = true // compared with the exact bytecode CCT, not the truth profile
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k.bench, err)
	}
	exact := harness.TruthBytecodeProfile(out.Result.Truth, out.Image)
	executed := float64(out.Result.Truth.BytecodeTotal())
	members := out.Members["komorium-set"]
	if len(members) != len(binderSetConfigs()) {
		return nil, fmt.Errorf("%s: the komorium-set reported %d members, want %d", k.bench, len(members), len(binderSetConfigs()))
	}
	ps := make([]*profile.Profile, len(members))
	for i, m := range members {
		ps[i] = out.Profiles[m]
	}
	overlaps := profile.OverlapContextsWith(ps, exact)
	var runs []*komoriumRun
	for i, m := range members {
		runs = append(runs, &komoriumRun{
			Overlap: 100 * overlaps[i],
			Nodes:   ps[i].CCTSize(),
			DeltaB:  (out.Costs[m].Measures[samplers.ApproxTotalBytecodes] - executed) / executed,
		})
	}
	return runs, nil
}

type binderKey struct {
	bench  string
	gran   int64
	random bool
	seed   uint64
}

// binderGrid runs every (stand-in, granularity, constant/randomized, seed)
// (the runs cache makes that once: B1, B2, B3, B4, B5 and B6 read the same
// runs). On the four single-threaded default stand-ins (test and paper
// size) each (stand-in, seed) is one execution for every granularity
// (komoriumSetKey, the same figures as the runs one by one); Full's
// seven include the multi-threaded mtrt, where a set's members are
// 99.90–99.99 % of the Komoriums alone, so they run one by one.
func binderGrid(o Options) (map[binderKey]*komoriumRun, error) {
	benches, d := binderSetup(o)
	if o.Paper || !o.Full {
		var keys []komoriumSetKey
		for _, b := range benches {
			for _, s := range o.Seeds {
				keys = append(keys, komoriumSetKey{b, s, d})
			}
		}
		sets, err := runAll(o, keys)
		if err != nil {
			return nil, err
		}
		grid := map[binderKey]*komoriumRun{}
		cfgs := binderSetConfigs()
		for i, k := range keys {
			for j, c := range cfgs {
				grid[binderKey{k.bench, c.Granularity, c.Random > 0, k.seed}] = sets[i][j]
			}
		}
		return grid, nil
	}
	var keys []binderKey
	var runKeys []komoriumKey
	for _, b := range benches {
		for _, g := range binderGrans {
			for _, r := range []bool{false, true} {
				for _, s := range o.Seeds {
					keys = append(keys, binderKey{b, g, r, s})
					runKeys = append(runKeys, komoriumKey{bench: b, seed: s, d: d, gran: g, random: r})
				}
			}
		}
	}
	runs, err := runAll(o, runKeys)
	if err != nil {
		return nil, err
	}
	grid := map[binderKey]*komoriumRun{}
	for i, k := range keys {
		grid[k] = runs[i]
	}
	return grid, nil
}
