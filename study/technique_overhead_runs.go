package study

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

// hoferIntervals are the paper's sampling intervals (Fig. 9/10).
var hoferIntervals = []sim.Time{10 * sim.Millisecond, sim.Millisecond, 100 * sim.Microsecond}

// hoferOverheadBenches: the multi-threaded stand-ins of the overhead
// runs — CPU-heavy (lusearch, sunflow, xalan), many threads (tradebeans,
// actors), short-lived threads (tmt), locks (h2); the full version adds
// the rest of the multi-threaded ones.
func hoferOverheadBenches(o Options) []string {
	b := []string{"lusearch", "sunflow", "xalan", "tradebeans", "actors", "tmt", "h2"}
	if o.Full {
		b = append(b, "avrora", "tomcat", "pmd9", "apparat", "scalatest", "specs")
	}
	return b
}

// hoferOverheadDuration is one overhead run: warm-up plus 300 ms measured.
const hoferOverheadDuration = 400 * sim.Millisecond

// hoferOverheadRuns: every overhead stand-in × seed, unprofiled and with
// each technique at each interval, costed (H1–H4 read the same runs).
func hoferOverheadRuns(o Options) (map[hoferKey]*hoferRun, error) {
	var keys []hoferKey
	for _, b := range hoferOverheadBenches(o) {
		for si := range o.Seeds {
			keys = append(keys, hoferKey{b, si, "", 0})
			for _, pr := range hoferTechniques {
				for _, iv := range hoferIntervals {
					keys = append(keys, hoferKey{b, si, pr, iv})
				}
			}
		}
	}
	return hoferGrid(o, keys, hoferOverheadDuration, 0)
}

func hoferOverheadNote(o Options) string {
	info, err := samplers.Lookup("jvmti")
	if err != nil {
		panic(err) // registered in samplers' init
	}
	jv, sps := info.Config().(*samplers.SafepointConfig), samplers.DefaultSPSConfig()
	return fmt.Sprintf("Each technique costed and alone on the stand-ins %s (4 CPUs, default VM and JIT), seeds %v, %v runs; overhead = steady-state speed (bytecodes per simulated second after the first %v, which are discarded as the paper discards its warm-up iterations) of the unprofiled run with the same seed / the profiled run's − 1. Sampling: JVMTI = a global safepoint, the VM thread walks every thread (%v a thread + %v a frame, %d frames; measured on OpenJDK 17, docs/CALIBRATION.md) and the agent stores the traces (%v); SPS = the first K = 4 (CPUs) runnable threads to reach a poll walk their own stacks (%v + %v a frame), waiting threads included in proportion; ISPS = SPS decoding only the top frame and intercepting returns (%v + %v a frame), retrieving at a full safepoint every second and at every thread end. Every agent waits the interval less the last sample's time.",
		strings.Join(hoferOverheadBenches(o), ", "), o.Seeds, hoferOverheadDuration, hoferWarmUp,
		jv.WalkPerThread, jv.WalkPerFrame, jv.Depth, jv.AgentPerSample, sps.SampleBase, sps.FrameCost, sps.TrampolineCost, sps.FrameCost)
}

// geoMeanOverhead is the geometric mean of overhead factors, as a %.
func geoMeanOverhead(pcts []float64) float64 {
	s := 0.0
	for _, p := range pcts {
		s += math.Log(1 + p/100)
	}
	return 100 * (math.Exp(s/float64(len(pcts))) - 1)
}

// hoferRunObs is one tidy observation of the overhead runs: the run of
// Benchmark with Seed under Technique ("none": unprofiled) at IntervalUs,
// its steady-state speed (bytecodes per simulated second after the
// warm-up), the samples it took and ISPS's thread-end retrieves.
type hoferRunObs struct {
	Benchmark          string
	Seed               uint64
	Technique          string
	IntervalUs         float64 `tidy:"interval_us"`
	Speed              float64
	Taken              int64
	ThreadEndRetrieves float64
}

// hoferOverheadData is the overhead runs behind H1–H4.
type hoferOverheadData struct {
	Seeds   []uint64
	Benches []string
	Note    string
	o       Options
	runs    map[hoferKey]*hoferRun
}

func measureHoferOverhead(o Options) (hoferOverheadData, error) {
	runs, err := hoferOverheadRuns(o)
	if err != nil {
		return hoferOverheadData{}, err
	}
	return hoferOverheadData{Seeds: o.Seeds, Benches: hoferOverheadBenches(o), Note: hoferOverheadNote(o), o: o, runs: runs}, nil
}

// run is the run of (bench, seed index, prof, iv); it panics on a run the
// grid does not hold.
func (d *hoferOverheadData) run(bench string, si int, prof string, iv sim.Time) *hoferRun {
	r, ok := d.runs[hoferKey{bench, si, prof, iv}]
	if !ok {
		panic(fmt.Sprintf("study: no Hofer overhead run of %s seed %d %q %v", bench, si, prof, iv))
	}
	return r
}

// Overheads lists the overhead (%) of each seed's run of (b, pr, iv).
func (d *hoferOverheadData) Overheads(b, pr string, iv sim.Time) []float64 {
	var out []float64
	for si := range d.Seeds {
		out = append(out, 100*(d.run(b, si, "", 0).Speed/d.run(b, si, pr, iv).Speed-1))
	}
	return out
}

// Overhead is Overheads' stat.
func (d *hoferOverheadData) Overhead(b, pr string, iv sim.Time) stat {
	return newStat(d.Overheads(b, pr, iv))
}

// Diff is the overhead of technique a minus c (points) on b at iv,
// paired by seed.
func (d *hoferOverheadData) Diff(b, a, c string, iv sim.Time) stat {
	x, y := d.Overheads(b, a, iv), d.Overheads(b, c, iv)
	var diff []float64
	for i := range x {
		diff = append(diff, x[i]-y[i])
	}
	return newStat(diff)
}

// GeoMean is the geometric mean over the stand-ins but tmt (H4's
// exception) of pr's mean overhead at iv.
func (d *hoferOverheadData) GeoMean(pr string, iv sim.Time) float64 {
	var means []float64
	for _, b := range d.Benches {
		if b != "tmt" {
			means = append(means, d.Overhead(b, pr, iv).Mean)
		}
	}
	return geoMeanOverhead(means)
}

// seedGeoMeans lists, per seed, the geometric mean over the stand-ins
// but tmt of pr's overhead at iv.
func (d *hoferOverheadData) seedGeoMeans(pr string, iv sim.Time) []float64 {
	var out []float64
	for si := range d.Seeds {
		var xs []float64
		for _, b := range d.Benches {
			if b != "tmt" {
				xs = append(xs, d.Overheads(b, pr, iv)[si])
			}
		}
		out = append(out, geoMeanOverhead(xs))
	}
	return out
}

// Gap is JVMTI − SPS (points) at iv, paired by seed on each stand-in but
// tmt, pooled.
func (d *hoferOverheadData) Gap(iv sim.Time) stat {
	var gaps []float64
	for _, b := range d.Benches {
		if b == "tmt" {
			continue
		}
		j, s := d.Overheads(b, "jvmti", iv), d.Overheads(b, "sps", iv)
		for i := range j {
			gaps = append(gaps, j[i]-s[i])
		}
	}
	return newStat(gaps)
}

// Latencies are (b, pr, iv)'s latencies pooled over seeds, in ms, sorted.
func (d *hoferOverheadData) Latencies(b, pr string, iv sim.Time) []float64 {
	d.run(b, 0, pr, iv)
	return hoferLatencies(d.runs, d.o, b, pr, iv)
}

// Taken is the mean over seeds of the samples (b, pr, iv) took.
func (d *hoferOverheadData) Taken(b, pr string, iv sim.Time) float64 {
	var n float64
	for si := range d.Seeds {
		n += float64(d.run(b, si, pr, iv).Costs.Taken) / float64(len(d.Seeds))
	}
	return n
}

// LongShare is the share of (b, pr, iv)'s latencies above 1 ms.
func (d *hoferOverheadData) LongShare(b, pr string, iv sim.Time) float64 {
	l := d.Latencies(b, pr, iv)
	n := 0
	for _, x := range l {
		if x > 1 {
			n++
		}
	}
	return float64(n) / float64(max(len(l), 1))
}

// ThreadEnds is the mean over seeds of ISPS's thread-end retrieves on b
// at iv.
func (d *hoferOverheadData) ThreadEnds(b string, iv sim.Time) float64 {
	var ends float64
	for si := range d.Seeds {
		ends += d.run(b, si, "isps", iv).Costs.Measures[samplers.ThreadEndRetrieves] / float64(len(d.Seeds))
	}
	return ends
}

// runObs lists the runs of the given stand-ins as observations.
func (d *hoferOverheadData) runObs(benches []string) []hoferRunObs {
	var out []hoferRunObs
	for _, b := range benches {
		for si, seed := range d.Seeds {
			r := d.run(b, si, "", 0)
			out = append(out, hoferRunObs{b, seed, "none", 0, r.Speed, 0, 0})
			for _, pr := range hoferTechniques {
				for _, iv := range hoferIntervals {
					r := d.run(b, si, pr, iv)
					out = append(out, hoferRunObs{b, seed, pr, float64(iv) / float64(sim.Microsecond), r.Speed, r.Costs.Taken, r.Costs.Measures[samplers.ThreadEndRetrieves]})
				}
			}
		}
	}
	return out
}

// hoferLatencies pools (bench, prof, iv)'s latencies over seeds, in ms,
// sorted.
func hoferLatencies(runs map[hoferKey]*hoferRun, o Options, bench, prof string, iv sim.Time) []float64 {
	var out []float64
	for si := range o.Seeds {
		for _, l := range runs[hoferKey{bench, si, prof, iv}].Costs.Latencies {
			out = append(out, float64(l)/1e6)
		}
	}
	sort.Float64s(out)
	return out
}
