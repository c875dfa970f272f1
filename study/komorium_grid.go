package study

import (
	"math"

	"github.com/profsim/profsim/sim"
)

// geoMean is the geometric mean (Binder's "geo. mean" column).
func geoMean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(v)))
}

// binderObs is one tidy observation of Binder's granularity grid: the
// Komorium run of Benchmark with Seed at Granularity (Random: plus
// U[0, 100)), its overlap (%) with the exact bytecode CCT, its CCT's
// nodes and DeltaB, the relative error of the bytecode count it reported.
type binderObs struct {
	Benchmark   string
	Granularity int64
	Random      bool
	Seed        uint64
	OverlapPct  float64 `tidy:"overlap_pct"`
	Nodes       int
	DeltaB      float64 `tidy:"delta_b"`
}

// binderGridData is the granularity grid's runs (binderGrid) as observations.
type binderGridData struct {
	Seeds    []uint64
	Benches  []string
	Duration sim.Time
	Obs      []binderObs
}

// measureBinderGrid runs (or reads from the cache) the grid.
func measureBinderGrid(o Options) (binderGridData, error) {
	grid, err := binderGrid(o)
	if err != nil {
		return binderGridData{}, err
	}
	benches, d := binderSetup(o)
	g := binderGridData{Seeds: o.Seeds, Benches: benches, Duration: d}
	for _, b := range benches {
		for _, gr := range binderGrans {
			for _, r := range []bool{false, true} {
				for _, s := range o.Seeds {
					k := grid[binderKey{b, gr, r, s}]
					g.Obs = append(g.Obs, binderObs{b, gr, r, s, k.Overlap, k.Nodes, k.DeltaB})
				}
			}
		}
	}
	return g, nil
}

// of lists the runs of b at granularity gr, constant or randomized.
func (g *binderGridData) of(b string, gr int64, random bool) []binderObs {
	return mustWhere(g.Obs, func(x binderObs) bool { return x.Benchmark == b && x.Granularity == gr && x.Random == random },
		"the Binder grid has no runs of %s at %d (random %v)", b, gr, random)
}

// Accuracy is the overlap (%) on b at gr over the seeds.
func (g *binderGridData) Accuracy(b string, gr int64, random bool) stat {
	var xs []float64
	for _, x := range g.of(b, gr, random) {
		xs = append(xs, x.OverlapPct)
	}
	return newStat(xs)
}

// Geo is the geometric mean over the stand-ins of Accuracy's means.
func (g *binderGridData) Geo(gr int64, random bool) float64 {
	var per []float64
	for _, b := range g.Benches {
		per = append(per, g.Accuracy(b, gr, random).Mean)
	}
	return geoMean(per)
}

// DeltaB is δb on b at constant granularity gr, mean over the seeds.
func (g *binderGridData) DeltaB(b string, gr int64) float64 {
	var xs []float64
	for _, x := range g.of(b, gr, false) {
		xs = append(xs, x.DeltaB)
	}
	m, _ := MeanCI(xs)
	return m
}

// Size is the sampled CCTs' nodes at gr, summed over the stand-ins, mean
// over the seeds.
func (g *binderGridData) Size(gr int64, random bool) float64 {
	var n float64
	for _, b := range g.Benches {
		for _, x := range g.of(b, gr, random) {
			n += float64(x.Nodes) / float64(len(g.Seeds))
		}
	}
	return n
}

// obs lists the observations with the given randomization.
func (g *binderGridData) obs(random bool) []binderObs {
	var out []binderObs
	for _, x := range g.Obs {
		if x.Random == random {
			out = append(out, x)
		}
	}
	return out
}
