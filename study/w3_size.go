package study

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/profsim/profsim/samplers"
)

func init() {
	register(Experiment{Name: "w3-size", Claim: "W3", Title: "Whaley §5: size of the PCCT vs the dynamic call tree and the calling context tree", Run: typed(measureW3)})
}

// w3Obs is one tidy observation of W3: the sizes, in nodes, after the
// run of Benchmark with Seed.
type w3Obs struct {
	Benchmark string
	Seed      uint64
	MaxDepth  int64
	// DCT is the dynamic call tree (calls executed), CCT the exact CCT,
	// Folded the CCT with recursion folded; PCCT10 and PCCT1 the PCCT at
	// 10 and 1 ms.
	DCT    int64   `tidy:"dct"`
	CCT    int64   `tidy:"cct"`
	Folded int64   `tidy:"folded"`
	PCCT10 float64 `tidy:"pcct_10ms"`
	PCCT1  float64 `tidy:"pcct_1ms"`
}

// w3Result is W3's runs, by stand-in and seed.
type w3Result struct {
	Seeds     []uint64
	Benches   []string
	Note      string
	NodeBytes int
	Obs       []w3Obs
}

// of lists benchmark b's runs.
func (r *w3Result) of(b string) []w3Obs {
	return mustWhere(r.Obs, func(x w3Obs) bool { return x.Benchmark == b }, "W3 has no runs of %s", b)
}

// mean is f's mean over benchmark b's runs.
func (r *w3Result) mean(b string, f func(w3Obs) float64) float64 {
	runs := r.of(b)
	var m float64
	for _, x := range runs {
		m += f(x) / float64(len(runs))
	}
	return m
}

// DCTRatioMin and CCTRatioMin are the smallest ratios, over every run, of
// the dynamic call tree's and the exact CCT's nodes to the 10 ms PCCT's.
func (r *w3Result) DCTRatioMin() float64 {
	m := math.Inf(1)
	for _, x := range r.Obs {
		m = math.Min(m, float64(x.DCT)/x.PCCT10)
	}
	return m
}

func (r *w3Result) CCTRatioMin() float64 {
	m := math.Inf(1)
	for _, x := range r.Obs {
		m = math.Min(m, float64(x.CCT)/x.PCCT10)
	}
	return m
}

// CCTBytes and PCCTBytes are the exact CCT's and the 10 ms PCCT's size in
// bytes on benchmark b (mean over seeds, NodeBytes a node).
func (r *w3Result) CCTBytes(b string) float64 {
	return r.mean(b, func(x w3Obs) float64 { return float64(x.CCT) }) * float64(r.NodeBytes)
}

func (r *w3Result) PCCTBytes(b string) float64 {
	return r.mean(b, func(x w3Obs) float64 { return x.PCCT10 }) * float64(r.NodeBytes)
}

// measureW3: nodes of the dynamic call tree (one per call), the exact
// CCT, Ammons' CCT with recursion folded, and the PCCT (10 ms and 1 ms)
// after the whole run.
func measureW3(o Options) (*w3Result, error) {
	runs, err := whaleyPassive(o)
	if err != nil {
		return nil, err
	}
	res := &w3Result{Seeds: o.Seeds, Benches: whaleyNames(o), Note: whaleyRunsNote(o), NodeBytes: samplers.DefaultPCCTConfig().NodeBytes}
	i10 := 1 // whaleyIntervals[1] is 10 ms
	for _, b := range res.Benches {
		for si, r := range runs[b] {
			res.Obs = append(res.Obs, w3Obs{Benchmark: b, Seed: o.Seeds[si], MaxDepth: r.MaxDepth,
				DCT: r.DCT, CCT: r.CCT, Folded: r.Folded, PCCT10: r.PCCTNodes[i10], PCCT1: r.PCCTNodes[0]})
		}
	}
	return res, nil
}

func (r *w3Result) render() (*Result, error) {
	nb := r.NodeBytes
	t := &Table{Title: fmt.Sprintf("W3: size after the whole run, in nodes (and bytes at %d B a node), mean over seeds", nb),
		Columns: []string{"stand-in", "max depth", "dynamic call tree (calls)", "exact CCT", "CCT, recursion folded", "PCCT 10 ms", "PCCT 1 ms", "DCT / PCCT 10 ms", "CCT / PCCT 10 ms"}}
	res := &Result{Table: t, Tidy: tidyOf(r.Obs)}
	kind := []string{"dynamic call tree", "exact CCT", "CCT, recursion folded", "PCCT 10 ms"}
	size := func(n float64) string { return fmt.Sprintf("%.3g (%s)", n, fmtBytes(n*float64(nb))) }
	for _, b := range r.Benches {
		dct := r.mean(b, func(x w3Obs) float64 { return float64(x.DCT) })
		cct := r.mean(b, func(x w3Obs) float64 { return float64(x.CCT) })
		fold := r.mean(b, func(x w3Obs) float64 { return float64(x.Folded) })
		p10 := r.mean(b, func(x w3Obs) float64 { return x.PCCT10 })
		p1 := r.mean(b, func(x w3Obs) float64 { return x.PCCT1 })
		var depth int64
		for _, x := range r.of(b) {
			depth = max(depth, x.MaxDepth)
		}
		t.AddRow(b, int(depth), size(dct), size(cct), size(fold), size(p10), size(p1), fmt.Sprintf("%.0f×", dct/p10), fmt.Sprintf("%.1f×", cct/p10))
	}
	t.Notes = append(t.Notes,
		fmt.Sprintf("%s: the runs of w1-partial-walks. Dynamic call tree: one node per call executed (thread entries included), summed from the truth's per-context call counts; exact CCT: the truth's contexts, recursive ones kept apart as in the PCCT; folded: the same with a call to a method already on the path turned into a back edge (Ammons et al.'s CCT, which Whaley contrasts). Bytes: every node at the PCCT's %d B, our choice (the paper gives no node size).", r.Note, nb))
	t.Notes = append(t.Notes, discussion("w3-size")...)
	// Figure: each tree's size per stand-in on a log axis, a point per
	// seed (every run's size, so the spread over seeds shows).
	p := plot.New()
	p.Title.Text = "W3: size after the run (a point per seed)"
	p.X.Label.Text = "stand-in"
	p.Y.Label.Text = "nodes (log scale)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{}
	of := []func(w3Obs) float64{
		func(x w3Obs) float64 { return float64(x.DCT) },
		func(x w3Obs) float64 { return float64(x.CCT) },
		func(x w3Obs) float64 { return float64(x.Folded) },
		func(x w3Obs) float64 { return x.PCCT10 },
	}
	lo, hi := math.Inf(1), 0.0
	for i := range kind {
		var pts plotter.XYs
		for bi, b := range r.Benches {
			for _, x := range r.of(b) {
				v := math.Max(of[i](x), 1)
				lo, hi = math.Min(lo, v), math.Max(hi, v)
				pts = append(pts, plotter.XY{X: float64(bi) - 0.3 + 0.6*float64(i)/float64(len(kind)-1), Y: v})
			}
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		styleScatter(sc, i)
		p.Add(sc)
		p.Legend.Add(kind[i], sc)
	}
	p.NominalX(r.Benches...)
	p.X.Min, p.X.Max = -0.5, float64(len(r.Benches))-0.5
	p.Y.Min, p.Y.Max = math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)))
	res.Figure = newFigure("Nodes each tree holds after the run, per stand-in, a point per seed: the dynamic call tree (a node per call), the exact CCT, the CCT folded at recursion, and the PCCT sampled at 10 ms. CCT = calling context tree. PCCT = partial calling context tree (Whaley 2000).", p)
	return res, nil
}

// fmtBytes renders n bytes with a binary-free SI unit (kB, MB), as the
// paper speaks of kilobytes and megabytes.
func fmtBytes(n float64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", n/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", n/1e3)
	}
	return fmt.Sprintf("%.0f B", n)
}
