package study

import (
	"encoding/csv"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "a2-grid", Claim: "A2", Title: "Arnold & Grove Table 2: accuracy and overhead over SAMPLES × STRIDE", Run: typed(measureA2)})
}

var (
	a2Samples = []int{1, 2, 4, 8, 16, 32}
	a2Strides = []int{1, 3, 7, 15}
	a2Benches = []string{"compress", "jess", "db", "javac", "mpegaudio", "mtrt", "jack"}
)

// a2Name is the profile ID of CBS(samples, stride) in the accuracy runs.
func a2Name(samples, stride int) string { return fmt.Sprintf("cbs:%d-%d", samples, stride) }

// a2Spec is the accuracy run of bench: Jikes-like code without inlining,
// every grid cell a passive CBS watching it. Each cell draws from the
// streams of its own name, cbs-SAMPLES-STRIDE (cbs's stream key), so
// that a cell's samples do not depend on its label.
func a2Spec(bench string, seed uint64, d sim.Time) harness.Spec {
	s := paperSpec(bench, seed, d)
	s.VM, s.Inline = "jikes", new(bool) // Jikes-like code, inlining off
	s.Truth = "methods"                 // only the truth's call edges are read
	s.Samplers = []string{"truth"}
	for _, n := range a2Samples {
		for _, st := range a2Strides {
			s.Samplers = append(s.Samplers, fmt.Sprintf("%s,samples=%d,stride=%d,stream=cbs-%d-%d", a2Name(n, st), n, st, n, st))
		}
	}
	return s
}

// a2Accuracy runs every grid cell as a passive CBS on one execution of
// each benchmark and returns the overlap (%) with the exact DCG per
// benchmark and cell.
func a2Accuracy(benches []string, seed uint64, d sim.Time) (map[string]map[string]float64, error) {
	acc := map[string]map[string]float64{}
	for _, b := range benches {
		out, err := runSpec(a2Spec(b, seed, d))
		if err != nil {
			return nil, err
		}
		acc[b] = map[string]float64{}
		for _, n := range a2Samples {
			for _, s := range a2Strides {
				acc[b][a2Name(n, s)] = 100 * profile.OverlapEdges(out.Profiles["truth"], out.Profiles[a2Name(n, s)])
			}
		}
	}
	return acc, nil
}

// a2Slowdown is the slowdown (%) of work with a sampler against without.
func a2Slowdown(base, with int64) float64 { return 100 * (float64(base)/float64(with) - 1) }

// a2Work is the application work (statements) done in d on bench, with
// CBS(samples, stride) costed, or without a sampler for samples 0.
func a2Work(bench string, seed uint64, samples, stride int, d sim.Time) (int64, error) {
	s := paperSpec(bench, seed, d)
	s.VM, s.Inline = "jikes", new(bool) // Jikes-like code, inlining off
	if samples > 0 {
		s.Samplers, s.Mode = []string{fmt.Sprintf("cbs,samples=%d,stride=%d", samples, stride)}, samplers.Costed
	}
	s.Truth = "methods"
	out, err := runSpec(s, func(cfg *harness.Config) {
		cfg.NoTruthProfile = true // only the statements executed are read
	})
	if err != nil {
		return 0, err
	}
	return out.Result.Statements, nil
}

// a2OverheadSettings are the (SAMPLES, STRIDE) settings whose overhead A2
// measures, on a2OverheadBenches.
var (
	a2OverheadSettings = [][2]int{{1, 1}, {32, 3}, {1024, 63}}
	a2OverheadBenches  = []string{"jess", "javac", "jack"}
)

// a2Obs is one tidy observation of A2: for CBS(Samples, Stride) on
// Benchmark with Seed, Measure "accuracy_pct" (overlap with the exact
// DCG, %) or "overhead_pct" (costed slowdown, %) is Value.
type a2Obs struct {
	Seed      uint64
	Benchmark string
	Samples   int
	Stride    int
	Measure   string
	Value     float64
}

// a2Result is A2's grid and overheads, every seed.
type a2Result struct {
	Seeds []uint64
	// Duration and OverheadDuration are the accuracy and overhead runs'
	// lengths.
	Duration, OverheadDuration sim.Time
	Obs                        []a2Obs
}

// stat is measure m of CBS(samples, stride) over the seeds, each seed's
// value the mean over the benchmarks measured.
func (r *a2Result) stat(m string, samples, stride int) stat {
	var xs []float64
	for _, seed := range r.Seeds {
		var sum float64
		n := 0
		for _, x := range r.Obs {
			if x.Seed == seed && x.Measure == m && x.Samples == samples && x.Stride == stride {
				sum += x.Value
				n++
			}
		}
		if n == 0 {
			panic(fmt.Sprintf("study: A2 has no %s of (%d, %d)", m, samples, stride))
		}
		xs = append(xs, sum/float64(n))
	}
	return newStat(xs)
}

// Accuracy is CBS(samples, stride)'s mean overlap (%) over the SPECjvm98
// stand-ins, over the seeds.
func (r *a2Result) Accuracy(samples, stride int) stat { return r.stat("accuracy_pct", samples, stride) }

// Overhead is CBS(samples, stride)'s mean costed slowdown (%) over
// a2OverheadBenches, over the seeds.
func (r *a2Result) Overhead(samples, stride int) stat { return r.stat("overhead_pct", samples, stride) }

// a2Key is one A2 run of bench for d: with set −2 the accuracy grid
// (every cell a passive CBS on one execution), −1 the unprofiled run, else
// CBS a2OverheadSettings[set] costed.
type a2Key struct {
	seed  uint64
	bench string
	set   int
	d     sim.Time
}

// a2Out is an A2 run's accuracy observations (set −2) or its work.
type a2Out struct {
	Acc  []a2Obs
	Work int64
}

func (k a2Key) run() (a2Out, error) {
	switch {
	case k.set == -1:
		w, err := a2Work(k.bench, k.seed, 0, 0, k.d)
		return a2Out{Work: w}, err
	case k.set >= 0:
		set := a2OverheadSettings[k.set]
		w, err := a2Work(k.bench, k.seed, set[0], set[1], k.d)
		return a2Out{Work: w}, err
	}
	acc, err := a2Accuracy([]string{k.bench}, k.seed, k.d)
	if err != nil {
		return a2Out{}, err
	}
	var obs []a2Obs
	for _, n := range a2Samples {
		for _, s := range a2Strides {
			obs = append(obs, a2Obs{k.seed, k.bench, n, s, "accuracy_pct", acc[k.bench][a2Name(n, s)]})
		}
	}
	return a2Out{Acc: obs}, nil
}

// measureA2 runs the grid and the overheads for every seed.
func measureA2(o Options) (*a2Result, error) {
	d, od := 400*sim.Millisecond, 150*sim.Millisecond
	if o.Full {
		d, od = 4*sim.Second, sim.Second
	}
	res := &a2Result{Seeds: o.Seeds, Duration: d, OverheadDuration: od}
	var keys []a2Key
	for _, seed := range o.Seeds {
		for _, b := range a2Benches {
			keys = append(keys, a2Key{seed, b, -2, d})
		}
		for _, b := range a2OverheadBenches {
			for si := -1; si < len(a2OverheadSettings); si++ {
				keys = append(keys, a2Key{seed, b, si, od})
			}
		}
	}
	outs, err := runAll(o, keys)
	if err != nil {
		return nil, err
	}
	base := map[[2]any]int64{}
	for i, k := range keys {
		if k.set == -1 {
			base[[2]any{k.seed, k.bench}] = outs[i].Work
		}
	}
	for i, k := range keys {
		switch {
		case k.set == -2:
			res.Obs = append(res.Obs, outs[i].Acc...)
		case k.set >= 0:
			set := a2OverheadSettings[k.set]
			res.Obs = append(res.Obs, a2Obs{k.seed, k.bench, set[0], set[1], "overhead_pct", a2Slowdown(base[[2]any{k.seed, k.bench}], outs[i].Work)})
		}
	}
	return res, nil
}

func (r *a2Result) render() (*Result, error) {
	_, ref := readAGGrid()
	cols := []string{"SAMPLES \\ STRIDE"}
	for _, s := range a2Strides {
		cols = append(cols, fmt.Sprintf("%d", s), fmt.Sprintf("paper %d", s))
	}
	t := &Table{Title: "Arnold & Grove Table 2: accuracy (% overlap with the exact DCG), mean over the SPECjvm98 stand-ins and the seeds", Columns: cols}
	for _, n := range a2Samples {
		cells := []any{n}
		for _, s := range a2Strides {
			cells = append(cells, fmt.Sprintf("%.0f", r.Accuracy(n, s).Mean), ref[fmt.Sprintf("%d/%d", n, s)])
		}
		t.AddRow(cells...)
	}
	for _, set := range a2OverheadSettings {
		m := r.Overhead(set[0], set[1])
		t.Notes = append(t.Notes, fmt.Sprintf("Overhead of SAMPLES %d, STRIDE %d (costed, %s, %v): %.2f %% ± %.2f over seeds (paper: %s).",
			set[0], set[1], strings.Join(a2OverheadBenches, "/"), r.OverheadDuration, m.Mean, m.CI, refOverhead(set)))
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Jikes-like yield points, no inlining, %v per stand-in, every cell a passive CBS on the same execution, seeds %v; paper columns from Table 2A (Jikes RVM).", r.Duration, r.Seeds))
	res := &Result{Table: t, Tidy: tidyOf(r.Obs)}
	p := plot.New()
	p.Title.Text = "A2: CBS accuracy by SAMPLES and STRIDE (mean ± 95 % CI over seeds)"
	p.X.Label.Text = "SAMPLES per timer interrupt"
	p.Y.Label.Text = "overlap with the exact DCG (%)"
	var ticks []plot.Tick
	for _, n := range a2Samples {
		ticks = append(ticks, plot.Tick{Value: math.Log2(float64(n)), Label: fmt.Sprint(n)})
	}
	for i, s := range a2Strides {
		var pts errPoints
		for _, n := range a2Samples {
			pts.add(math.Log2(float64(n)), r.Accuracy(n, s))
		}
		if err := pts.percent().addTo(p, series{Label: fmt.Sprintf("STRIDE %d", s), Style: i, Line: true, Dashes: plotutil.Dashes(i)}); err != nil {
			return nil, err
		}
	}
	// The paper's STRIDE 3 column (Table 2A, Jikes RVM), where present.
	var paper plotter.XYs
	for _, n := range a2Samples {
		if v, err := strconv.ParseFloat(ref[fmt.Sprintf("%d/%d", n, 3)], 64); err == nil {
			paper = append(paper, plotter.XY{X: math.Log2(float64(n)), Y: v})
		}
	}
	if len(paper) > 0 {
		l, err := plotter.NewLine(paper)
		if err != nil {
			return nil, err
		}
		l.Color, l.Dashes = color.Gray{Y: 100}, []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(l)
		p.Legend.Add("paper, STRIDE 3", l)
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Min, p.Y.Max = 0, 100
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 25, Label: "25"}, {Value: 50, Label: "50"}, {Value: 75, Label: "75"}, {Value: 100, Label: "100"}})
	res.Figure = newFigure("Accuracy of the call graph CBS builds, against the exact one, as SAMPLES grows, one line per STRIDE; the grey line is the paper's STRIDE 3 column (Table 2A, Jikes RVM). RVM = Research Virtual Machine. "+captionCBS+" "+captionDCG+" "+captionCI, p)
	return res, nil
}

func refOverhead(set [2]int) string {
	h, rows := readAGGridRows()
	if h == nil {
		return "n/a"
	}
	if r, ok := rows[fmt.Sprintf("%d/%d", set[0], set[1])]; ok {
		return r[3] + " %"
	}
	return "not in the grid"
}

// readAGGrid returns the Jikes accuracy per "samples/stride".
func readAGGrid() ([]string, map[string]string) {
	h, rows := readAGGridRows()
	out := map[string]string{}
	for k, r := range rows {
		out[k] = r[4]
	}
	return h, out
}

func readAGGridRows() ([]string, map[string][]string) {
	d := referenceDir()
	if d == "" {
		return nil, nil
	}
	f, err := os.Open(filepath.Join(d, "arnoldgrove2005_table2_grid.csv"))
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	if err != nil || len(all) == 0 {
		return nil, nil
	}
	rows := map[string][]string{}
	for _, r := range all[1:] {
		if r[0] == "jikes" {
			rows[r[1]+"/"+r[2]] = r
		}
	}
	return all[0], rows
}
