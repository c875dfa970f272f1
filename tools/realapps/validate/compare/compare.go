package main

import "math"

// The "Done when" thresholds of issue 32, in percentage points of overlap
// and in applications.
const (
	// nearFloorPoints: "real-vs-profsim overlap within 10 points of the
	// real run-to-run noise floor".
	nearFloorPoints = 10.0
	// beatNullPoints: "profsim beats the 'profilers agree' null for the
	// safepoint-biased sampler by ≥ 10 points".
	beatNullPoints = 10.0
	// disagreePoints: "Predicted disagreement (safepoint vs JFR+DNS, JFR
	// vs JFR+DNS overlap) within 10 points of the real one".
	disagreePoints = 10.0
	// needApps: "on at least 7 of 9 applications" (every criterion).
	needApps = 7
	// topN is top-5 set agreement's N ("top-5 set agreement").
	topN = 5
)

// cell is the comparison of one (app, profiler). Overlaps are fractions
// in [0, 1]; NaN where the data to compute one is missing (fewer than
// two real runs for a noise floor, no real jfr-dns runs for its null).
type cell struct {
	App, Profiler string
	Reps, Seeds   int
	NoiseFloor    float64
	RealVsSim     float64
	NullTruth     float64 // real vs the model's truth, pooled seeds
	NullJFRDNS    float64 // real vs real jfr-dns, rep pairs; NaN for jfr-dns
	Top1Real      string
	Top1Sim       string
	Top5          float64
}

// Top1Match reports whether the hottest methods agree.
func (c cell) Top1Match() bool { return c.Top1Real != "" && c.Top1Real == c.Top1Sim }

// disagreement is predicted vs real overlap of one profiler with jfr-dns.
type disagreement struct {
	App, Profiler string // Profiler is compared with jfr-dns
	Real, Sim     float64
}

func (d disagreement) Diff() float64 { return math.Abs(d.Real - d.Sim) }

// compareCell computes one (app, profiler)'s cell from its real runs, the
// real jfr-dns runs (nil if not read) and the model's seeds.
func compareCell(app, prof string, real, realDNS []dist, sim, truth []dist) cell {
	c := cell{App: app, Profiler: prof, Reps: len(real), Seeds: len(sim)}
	c.NoiseFloor = noiseFloor(real)
	c.RealVsSim = crossOverlap(real, sim)
	c.NullTruth = crossOverlap(real, []dist{pool(truth)})
	c.NullJFRDNS = math.NaN()
	if prof != profJFRDNS && len(realDNS) > 0 {
		c.NullJFRDNS = crossOverlap(real, realDNS)
	}
	pr, ps := pool(real), pool(sim)
	if t := top(pr, 1); len(t) > 0 {
		c.Top1Real = t[0]
	}
	if t := top(ps, 1); len(t) > 0 {
		c.Top1Sim = t[0]
	}
	c.Top5 = topSetAgreement(pr, ps, topN)
	return c
}

// compareDisagreement is overlap(prof, jfr-dns) on the real JVM (mean
// over rep pairs) and in the model (mean over seeds, same seed).
func compareDisagreement(app, prof string, real, realDNS, sim, simDNS []dist) disagreement {
	return disagreement{App: app, Profiler: prof, Real: crossOverlap(real, realDNS), Sim: pairedOverlap(sim, simDNS)}
}

// points is an overlap fraction as percentage points.
func points(x float64) float64 { return 100 * x }

// criterion is one "Done when" line evaluated over the apps.
type criterion struct {
	What     string
	Profiler string
	Count    int // apps that meet it
	Of       int // apps it could be evaluated on
}

func (c criterion) Pass() bool { return c.Count >= needApps }

// nearFloor: real vs profsim within nearFloorPoints of the noise floor
// (at or above it counts as within).
func nearFloor(c cell) bool {
	return !math.IsNaN(c.NoiseFloor) && !math.IsNaN(c.RealVsSim) &&
		points(c.NoiseFloor)-points(c.RealVsSim) <= nearFloorPoints
}

// beatsNull: real vs profsim at least beatNullPoints above each
// "profilers agree" null that could be computed (the model's truth and,
// for profilers other than jfr-dns, the real jfr-dns runs).
func beatsNull(c cell) bool {
	if math.IsNaN(c.RealVsSim) {
		return false
	}
	n := 0
	for _, null := range []float64{c.NullTruth, c.NullJFRDNS} {
		if math.IsNaN(null) {
			continue
		}
		n++
		if points(c.RealVsSim)-points(null) < beatNullPoints {
			return false
		}
	}
	return n > 0
}

// evaluate counts the criteria over the cells and disagreements.
func evaluate(profilers []string, cells []cell, dis []disagreement) []criterion {
	var out []criterion
	for _, prof := range profilers {
		near := criterion{What: "real vs profsim within 10 points of the noise floor", Profiler: prof}
		hot := criterion{What: "hottest method matches", Profiler: prof}
		for _, c := range cells {
			if c.Profiler != prof {
				continue
			}
			if !math.IsNaN(c.NoiseFloor) && !math.IsNaN(c.RealVsSim) {
				near.Of++
				if nearFloor(c) {
					near.Count++
				}
			}
			hot.Of++
			if c.Top1Match() {
				hot.Count++
			}
		}
		out = append(out, near, hot)
	}
	if contains(profilers, profSafepoint) {
		null := criterion{What: "beats the \"profilers agree\" null by >= 10 points", Profiler: profSafepoint}
		for _, c := range cells {
			if c.Profiler == profSafepoint {
				null.Of++
				if beatsNull(c) {
					null.Count++
				}
			}
		}
		out = append(out, null)
	}
	for _, prof := range []string{profSafepoint, profJFR} {
		cr := criterion{What: "predicted disagreement with jfr-dns within 10 points", Profiler: prof}
		any := false
		for _, d := range dis {
			if d.Profiler != prof {
				continue
			}
			any = true
			if math.IsNaN(d.Real) || math.IsNaN(d.Sim) {
				continue
			}
			cr.Of++
			if points(d.Diff()) <= disagreePoints {
				cr.Count++
			}
		}
		if any {
			out = append(out, cr)
		}
	}
	return out
}
