package study

import (
	"fmt"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
)

func init() {
	register(Experiment{Name: "m3-disagreement", Claim: "M3", Title: "Mytkowicz Fig. 2/3: profilers disagree on the hottest methods (Union_n)", Run: runM3})
	register(Experiment{Name: "m4-innocuous", Claim: "M4", Title: "Mytkowicz Fig. 5: disagreeing hottest methods are not caller and callee", Run: runM4})
}

var disagreementProfilers = []string{"hprof", "xprof", "jprofile", "yourkit"}
var disagreementBenches = []string{"antlr", "bloat", "chart", "fop", "jython", "luindex", "pmd"}

// disagreement holds, per stand-in, each profiler's ranking (by method
// weight averaged over the seeds) and the truth's call graph.
type disagreement struct {
	rankings map[string]map[string][]string // bench → profiler → methods by weight
	calls    map[string]map[string][]string // bench → caller → callees (truth DCG)
}

var disagreementCache = map[string]*disagreement{}

// Disagreement runs each safepoint profiler costed — alone, with its own
// observer effect — on each single-threaded stand-in for every seed.
func Disagreement(o Options) (*disagreement, error) {
	key := fmt.Sprint(o.Seeds, o.Full)
	if d, ok := disagreementCache[key]; ok {
		return d, nil
	}
	d := &disagreement{rankings: map[string]map[string][]string{}, calls: map[string]map[string][]string{}}
	dur := 500 * sim.Millisecond
	if o.Full {
		dur = 5 * sim.Second
	}
	for _, b := range disagreementBenches {
		d.rankings[b] = map[string][]string{}
		for _, prof := range disagreementProfilers {
			sum := map[string]float64{}
			for _, seed := range o.Seeds {
				p, err := workloads.Get(b)
				if err != nil {
					return nil, err
				}
				cfg := harness.DefaultConfig()
				cfg.Sim.Seed, cfg.Sim.Duration = seed, dur
				cfg.Samplers, cfg.Mode = []string{prof}, samplers.Costed
				out, err := harness.Run(p, cfg)
				if err != nil {
					return nil, err
				}
				pr := out.Profiles[prof]
				total := float64(pr.TotalWeight())
				for m, w := range pr.MethodWeights() {
					sum[m] += w / total
				}
				if d.calls[b] == nil {
					d.calls[b] = map[string][]string{}
					t := out.Profiles["truth"]
					for _, e := range t.Edges {
						c := t.Functions[e.Caller].Name
						d.calls[b][c] = append(d.calls[b][c], t.Functions[e.Callee].Name)
					}
				}
			}
			ms := make([]string, 0, len(sum))
			for m := range sum {
				ms = append(ms, m)
			}
			sort.Slice(ms, func(i, j int) bool {
				if sum[ms[i]] != sum[ms[j]] {
					return sum[ms[i]] > sum[ms[j]]
				}
				return ms[i] < ms[j]
			})
			d.rankings[b][prof] = ms
		}
	}
	disagreementCache[key] = d
	return d, nil
}

func runM3(o Options) (*Result, error) {
	d, err := Disagreement(o)
	if err != nil {
		return nil, err
	}
	t := &Table{Title: "Union_n of the four safepoint profilers' hottest methods", Columns: []string{"benchmark"}}
	for n := 1; n <= 10; n++ {
		t.Columns = append(t.Columns, fmt.Sprintf("n=%d", n))
	}
	res := &Result{Table: t, Values: map[string]float64{}}
	perN := make([][]float64, 11)
	above1 := 0
	for _, b := range disagreementBenches {
		var rk [][]string
		for _, p := range disagreementProfilers {
			rk = append(rk, d.rankings[b][p])
		}
		cells := []any{b}
		for n := 1; n <= 10; n++ {
			u := profile.UnionN(rk, n)
			perN[n] = append(perN[n], float64(u))
			cells = append(cells, u)
			if n == 1 && u > 1 {
				above1++
			}
		}
		t.AddRow(cells...)
	}
	mean := []any{"mean (95 % CI)"}
	xy := plotter.XYs{}
	for n := 1; n <= 10; n++ {
		m, h := MeanCI(perN[n])
		res.Values[fmt.Sprintf("union%d", n)] = m
		res.Values[fmt.Sprintf("union%d_ci", n)] = h
		mean = append(mean, fmtCI(m, h))
		xy = append(xy, plotter.XY{X: float64(n), Y: m})
	}
	t.AddRow(mean...)
	res.Values["union1_above_1"] = float64(above1)
	t.Notes = append(t.Notes, fmt.Sprintf("Each profiler costed and alone (its own observer effect), %d seed(s) per stand-in, rankings by method weight averaged over the seeds. Paper: Union_1 > 1 for 4 of 7 benchmarks; Union_n grows with n and stays above n.", len(o.Seeds)))
	p := plot.New()
	p.Title.Text = "Union_n (mean over the stand-ins)"
	p.X.Label.Text = "n"
	p.Y.Label.Text = "Union_n"
	ideal := plotter.XYs{}
	worst := plotter.XYs{}
	for n := 1; n <= 10; n++ {
		ideal = append(ideal, plotter.XY{X: float64(n), Y: float64(n)})
		worst = append(worst, plotter.XY{X: float64(n), Y: float64(4 * n)})
	}
	if err := plotutil.AddLinePoints(p, "Union_n", xy, "agreement (n)", ideal, "disagreement (4n)", worst); err != nil {
		return nil, err
	}
	res.Figure = p
	return res, nil
}

// reaches reports whether from calls to (transitively) in graph g.
func reaches(g map[string][]string, from, to string) bool {
	seen := map[string]bool{}
	stack := []string{from}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, y := range g[x] {
			if y == to {
				return true
			}
			if !seen[y] {
				seen[y] = true
				stack = append(stack, y)
			}
		}
	}
	return false
}

func runM4(o Options) (*Result, error) {
	d, err := Disagreement(o)
	if err != nil {
		return nil, err
	}
	t := &Table{Title: "Pairs of profilers that disagree on the hottest method: are the two methods caller and callee?",
		Columns: []string{"benchmark", "profiler A", "hottest", "profiler B", "hottest", "related"}}
	res := &Result{Table: t, Values: map[string]float64{}}
	pairs, related := 0, 0
	for _, b := range disagreementBenches {
		for i, pa := range disagreementProfilers {
			for _, pb := range disagreementProfilers[i+1:] {
				ma, mb := d.rankings[b][pa][0], d.rankings[b][pb][0]
				if ma == mb {
					continue
				}
				pairs++
				rel := reaches(d.calls[b], ma, mb) || reaches(d.calls[b], mb, ma)
				if rel {
					related++
				}
				t.AddRow(b, pa, ma, pb, mb, rel)
			}
		}
	}
	res.Values["pairs"] = float64(pairs)
	res.Values["related"] = float64(related)
	t.Notes = append(t.Notes, fmt.Sprintf("%d disagreeing pairs, %d in a transitive caller/callee relation (in the truth's call graph). Paper: most are not.", pairs, related))
	return res, nil
}
