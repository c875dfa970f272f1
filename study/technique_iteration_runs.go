package study

import (
	"fmt"
	"strings"

	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/sim"
)

// hoferAccuracyBenches: the stand-ins of the CCT comparisons — two
// multi-threaded (lusearch, h2), the interpreter (jython9), one with
// phases (scalaxb), and the recursive-descent ones deeper than 256 frames
// (kiama, scalac), which the paper excepts.
func hoferAccuracyBenches(o Options) []string {
	b := []string{"lusearch", "sunflow", "xalan", "h2", "jython9", "kiama", "scalac"}
	if o.Full {
		b = append(b, "scalaxb", "fop9", "scalap", "scalariform", "scaladoc", "factorie")
	}
	return b
}

// hoferAccuracySize is the accuracy runs' length: a warm-up of skip
// windows (discarded), then iterations windows of iteration each, each
// window an iteration's CCT (the paper: 30 iterations, the first 20
// discarded, 10 rounds — our rounds are the seeds).
type hoferAccuracySize struct {
	skip, iterations int
	iteration        sim.Time
}

// duration is a run's length: the warm-up and the iterations.
func (z hoferAccuracySize) duration() sim.Time {
	return sim.Time(z.skip+z.iterations) * z.iteration
}

// warmUp is the discarded start of a run.
func (z hoferAccuracySize) warmUp() sim.Time { return sim.Time(z.skip) * z.iteration }

// hoferAccuracySizeOf: by default 10 iterations of 50 ms after the
// 100 ms warm-up (≈ 50 samples a sampled thread an iteration at 1 ms);
// Options.Paper: 10 iterations of 2 s after one discarded, ≈ 2 000 a
// sampled thread, the thousands of the paper's DaCapo iterations.
func hoferAccuracySizeOf(o Options) hoferAccuracySize {
	if o.Paper {
		return hoferAccuracySize{skip: 1, iterations: 10, iteration: 2 * sim.Second}
	}
	return hoferAccuracySize{skip: int(hoferWarmUp / (50 * sim.Millisecond)), iterations: 10, iteration: 50 * sim.Millisecond}
}

// hoferPaperNote is what Options.Paper runs for H5 and H6.
const hoferPaperNote = "the 7 default stand-ins, 10 iterations of 2 s after one discarded (≈ 2 000 samples a sampled thread an iteration at 1 ms, the paper's thousands), 22 s a run"

// hoferAccuracyRuns: every accuracy stand-in × seed × technique at 1 ms,
// costed, profiles split into iterations.
func hoferAccuracyRuns(o Options) (map[hoferKey]*hoferRun, error) {
	var keys []hoferKey
	for _, b := range hoferAccuracyBenches(o) {
		for si := range o.Seeds {
			for _, pr := range hoferTechniques {
				keys = append(keys, hoferKey{b, si, pr, sim.Millisecond})
			}
		}
	}
	z := hoferAccuracySizeOf(o)
	return hoferGrid(o, keys, z.duration(), z.iteration)
}

func hoferAccuracyNote(o Options) string {
	z := hoferAccuracySizeOf(o)
	return fmt.Sprintf("Each technique costed and alone at 1 ms on %s, seeds %v (the paper's rounds); each run is %v of warm-up (discarded) and %d iterations of %v, each iteration's samples a CCT (the paper: 30 iterations, 20 discarded, 10 rounds). A CCT's edge weights are its contexts' sample counts; average CCT = the sum over every iteration of every round of the relative edge weights (the paper's merged CCT). Overlap = Σ min of relative weights; hot-edge coverage (T = 0.1) = share of the reference's edges within a tenth of its hottest edge that are also hot in the other.",
		strings.Join(hoferAccuracyBenches(o), ", "), o.Seeds, z.warmUp(), z.iterations, z.iteration)
}

// hoferIteration is one iteration's CCT: its context weights, the seed
// (an index into Options.Seeds) and the iteration's number.
type hoferIteration struct {
	seed, n int
	cct     map[string]float64
}

// hoferIterationCCTs are (bench, prof)'s per-iteration context weights
// over all seeds, the warm-up windows dropped, and the iterations after
// the program's end (h2's ends at 12 s, in the paper-length runs' 6th
// iteration) too: they hold no sample.
func hoferIterationCCTs(runs map[hoferKey]*hoferRun, o Options, bench, prof string) []hoferIteration {
	z := hoferAccuracySizeOf(o)
	var out []hoferIteration
	for si := range o.Seeds {
		ws := runs[hoferKey{bench, si, prof, sim.Millisecond}].Windows
		for i := z.skip; i < z.skip+z.iterations && i < len(ws); i++ {
			out = append(out, hoferIteration{si, i - z.skip, ws[i].ContextWeights()})
		}
	}
	return out
}

// cctsOf are the iterations' CCTs.
func cctsOf(its []hoferIteration) []map[string]float64 {
	out := make([]map[string]float64, len(its))
	for i, it := range its {
		out[i] = it.cct
	}
	return out
}

// averageCCT sums the relative weights of the CCTs.
func averageCCT(ccts []map[string]float64) map[string]float64 {
	avg := map[string]float64{}
	for _, c := range ccts {
		tot := 0.0
		for _, w := range c {
			tot += w
		}
		if tot == 0 {
			continue
		}
		for k, w := range c {
			avg[k] += w / tot
		}
	}
	return avg
}

func coverageOf(ref, other map[string]float64) float64 {
	_, x, y := profile.Align(ref, other)
	return profile.HotEdgeCoverage(x, y, profile.HotEdgeThreshold)
}

// hoferAccuracy is the accuracy runs behind H5–H7.
type hoferAccuracy struct {
	Seeds   []uint64
	Benches []string
	Note    string
	o       Options
	runs    map[hoferKey]*hoferRun
}

func measureHoferAccuracy(o Options) (hoferAccuracy, error) {
	runs, err := hoferAccuracyRuns(o)
	if err != nil {
		return hoferAccuracy{}, err
	}
	return hoferAccuracyData(o, hoferAccuracyBenches(o), runs), nil
}

// hoferAccuracyData is the accuracy runs of benches; its note names the
// stand-ins whose program ended before the last iteration.
func hoferAccuracyData(o Options, benches []string, runs map[hoferKey]*hoferRun) hoferAccuracy {
	d := hoferAccuracy{Seeds: o.Seeds, Benches: benches, Note: hoferAccuracyNote(o), o: o, runs: runs}
	z := hoferAccuracySizeOf(o)
	var short []string
	for _, b := range benches {
		for _, pr := range hoferTechniques {
			if n := len(d.iterations(b, pr)); n < z.iterations*len(o.Seeds) {
				short = append(short, fmt.Sprintf("%s %s %d of %d", b, pr, n, z.iterations*len(o.Seeds)))
			}
		}
	}
	if short != nil {
		d.Note += " Iterations after the program's end hold no sample and are left out: " + strings.Join(short, ", ") + "."
	}
	return d
}

// run is the run of (bench, seed index, prof) at 1 ms; it panics on a run
// the grid does not hold.
func (d *hoferAccuracy) run(bench string, si int, prof string) *hoferRun {
	r, ok := d.runs[hoferKey{bench, si, prof, sim.Millisecond}]
	if !ok {
		panic(fmt.Sprintf("study: no Hofer accuracy run of %s seed %d %q", bench, si, prof))
	}
	return r
}

// iterations are (b, pr)'s per-iteration CCTs over every seed.
func (d *hoferAccuracy) iterations(b, pr string) []hoferIteration {
	d.run(b, 0, pr)
	return hoferIterationCCTs(d.runs, d.o, b, pr)
}
