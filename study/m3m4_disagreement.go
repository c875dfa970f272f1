package study

import (
	"fmt"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"

	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "m3-disagreement", Claim: "M3", Title: "Mytkowicz Fig. 2/3: profilers disagree on the hottest methods (Union_n)", Run: typed(measureM3), Models: true})
	register(Experiment{Name: "m4-innocuous", Claim: "M4", Title: "Mytkowicz Fig. 5: disagreeing hottest methods are not caller and callee", Run: typed(measureM4), Models: true})
}

var disagreementProfilers = []string{"hprof", "xprof", "jprofile", "yourkit"}
var disagreementBenches = []string{"antlr", "bloat", "chart", "fop", "jython", "luindex", "pmd"}

// disagreementSet is the benchmarks of M3, M4 and M6: the single-threaded
// DaCapo-2006 stand-ins or, with o.Models, the models (single-threaded
// once their recorder threads are dropped).
func disagreementSet(o Options) []string {
	if o.Models {
		return modelBenches(o)
	}
	return disagreementBenches
}

// disagreement holds, per stand-in, each profiler's ranking (by method
// weight averaged over the seeds), the shares behind it and the truth's
// call graph.
type disagreement struct {
	benches  []string
	rankings map[string]map[string][]string // bench → profiler → methods by weight
	calls    map[string]map[string][]string // bench → caller → callees (truth DCG)
	shares   []disagreementObs
}

// disagreementObs is one tidy observation of the M3/M4 runs: a method's
// share of a profiler's weight in the run of Benchmark with Seed.
type disagreementObs struct {
	Benchmark string
	Seed      uint64
	Profiler  string
	Method    string
	Share     float64
}

// disagreementKey is one M3/M4 run: bench for d with prof costed.
type disagreementKey struct {
	bench, prof string
	seed        uint64
	d           sim.Time
}

// disagreementRun is a run's method weights by the profiler, their total,
// and the truth's dynamic call graph (caller → callees).
type disagreementRun struct {
	Weights map[string]float64
	Total   float64
	Calls   map[string][]string
}

func (k disagreementKey) run() (*disagreementRun, error) {
	s := paperSpec(k.bench, k.seed, k.d)
	s.Samplers, s.Mode = []string{k.prof}, samplers.Costed
	s.Truth = "methods" // only the truth's call edges are read
	out, err := runSpec(s)
	if err != nil {
		return nil, err
	}
	pr := out.Profiles[k.prof]
	r := &disagreementRun{Weights: pr.MethodWeights(), Total: float64(pr.TotalWeight()), Calls: map[string][]string{}}
	t := out.Profiles["truth"]
	for _, e := range t.Edges {
		c := t.Functions[e.Caller].Name
		r.Calls[c] = append(r.Calls[c], t.Functions[e.Callee].Name)
	}
	return r, nil
}

// measureDisagreement runs each safepoint profiler costed — alone, with its own
// observer effect — on each single-threaded stand-in (with o.Models, each
// model, its recorder threads dropped) for every seed. The truth's call
// graph of a benchmark is that of its run with the first profiler and
// seed.
func measureDisagreement(o Options) (*disagreement, error) {
	d := &disagreement{benches: disagreementSet(o), rankings: map[string]map[string][]string{}, calls: map[string]map[string][]string{}}
	dur := 500 * sim.Millisecond
	if o.Full {
		dur = 5 * sim.Second
	}
	dur = fixedDuration(o, dur)
	var keys []disagreementKey
	for _, b := range d.benches {
		for _, prof := range disagreementProfilers {
			for _, seed := range o.Seeds {
				keys = append(keys, disagreementKey{b, prof, seed, dur})
			}
		}
	}
	runs, err := runAll(o, keys)
	if err != nil {
		return nil, err
	}
	i := 0
	for _, b := range d.benches {
		d.rankings[b] = map[string][]string{}
		for _, prof := range disagreementProfilers {
			sum := map[string]float64{}
			for _, seed := range o.Seeds {
				r := runs[i]
				i++
				ms := make([]string, 0, len(r.Weights))
				for m := range r.Weights {
					ms = append(ms, m)
				}
				sort.Strings(ms)
				for _, m := range ms {
					sum[m] += r.Weights[m] / r.Total
					d.shares = append(d.shares, disagreementObs{b, seed, prof, m, r.Weights[m] / r.Total})
				}
				if d.calls[b] == nil {
					d.calls[b] = r.Calls
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
	return d, nil
}

// m3Result is the four profilers' Union_n per stand-in, n = 1…10.
type m3Result struct {
	Seeds []uint64
	// Benchmarks are the stand-ins or, with Models, the models.
	Benchmarks []string
	Models     bool
	// Union holds, per stand-in, Union_n at index n−1.
	Union keyed[string, []int]
	// Shares are the observations the rankings come from.
	Shares []disagreementObs
}

// m3MaxN is the largest n of Union_n.
const m3MaxN = 10

// Mean is Union_n's mean over the stand-ins with its 95 % CI.
func (r *m3Result) Mean(n int) stat {
	var xs []float64
	for _, b := range r.Benchmarks {
		xs = append(xs, float64(r.Union.At(b)[n-1]))
	}
	return newStat(xs)
}

// Union1Above1 is on how many stand-ins the profilers' hottest methods
// differ (Union_1 > 1).
func (r *m3Result) Union1Above1() int {
	n := 0
	for _, b := range r.Benchmarks {
		if r.Union.At(b)[0] > 1 {
			n++
		}
	}
	return n
}

// measureM3 computes Union_n from the measureDisagreement runs.
func measureM3(o Options) (*m3Result, error) {
	d, err := measureDisagreement(o)
	if err != nil {
		return nil, err
	}
	res := &m3Result{Seeds: o.Seeds, Benchmarks: d.benches, Models: o.Models, Union: keyed[string, []int]{}, Shares: d.shares}
	for _, b := range d.benches {
		var rk [][]string
		for _, p := range disagreementProfilers {
			rk = append(rk, d.rankings[b][p])
		}
		for n := 1; n <= m3MaxN; n++ {
			res.Union[b] = append(res.Union[b], profile.UnionN(rk, n))
		}
	}
	return res, nil
}

func (r *m3Result) render() (*Result, error) {
	t := &Table{Title: "Union_n of the four safepoint profilers' hottest methods", Columns: []string{"benchmark"}}
	for n := 1; n <= m3MaxN; n++ {
		t.Columns = append(t.Columns, fmt.Sprintf("n=%d", n))
	}
	res := &Result{Table: t, Tidy: tidyOf(r.Shares)}
	for _, b := range r.Benchmarks {
		cells := []any{b}
		for _, u := range r.Union.At(b) {
			cells = append(cells, u)
		}
		t.AddRow(cells...)
	}
	mean := []any{"mean (95 % CI)"}
	for n := 1; n <= m3MaxN; n++ {
		m := r.Mean(n)
		mean = append(mean, m.String())
	}
	t.AddRow(mean...)
	t.Notes = append(t.Notes, fmt.Sprintf("Each profiler costed and alone (its own observer effect), %d seed(s) per %s, rankings by method weight averaged over the seeds. Paper: Union_1 > 1 for 4 of 7 benchmarks; Union_n grows with n and stays above n.", len(r.Seeds), benchNoun(r.Models)))
	if r.Models {
		t.Notes = append(t.Notes, modelFixedNote)
	}
	p := plot.New()
	p.Title.Text = "M3: Union_n of the four profilers' top n methods"
	p.X.Label.Text = "n (top methods per profiler)"
	p.Y.Label.Text = "Union_n (distinct methods)"
	var pts, ideal, worst errPoints
	for n := 1; n <= m3MaxN; n++ {
		ideal.XYs = append(ideal.XYs, plotter.XY{X: float64(n), Y: float64(n)})
		worst.XYs = append(worst.XYs, plotter.XY{X: float64(n), Y: float64(4 * n)})
		pts.add(float64(n), r.Mean(n))
	}
	for i, s := range []struct {
		label string
		pts   errPoints
	}{{"Union_n", pts}, {"agreement (n)", ideal}, {"disagreement (4n)", worst}} {
		if err := s.pts.addTo(p, series{Label: s.label, Style: i, Line: true, Dashes: plotutil.Dashes(i)}); err != nil {
			return nil, err
		}
	}
	p.Y.Min = 0
	res.Figure = newFigure(fmt.Sprintf("Union_n = the number of distinct methods among the top n methods of the four safepoint profilers (hprof, xprof, jprofile, yourkit), each run costed and alone, mean ± CI over %ss: n when they all agree, 4n when no two agree. ", benchNoun(r.Models))+captionCI, p)
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

// m4Pair is a pair of profilers whose hottest methods on Benchmark
// differ (rankings over the seeds), and whether the two methods are
// caller and callee, transitively, in the truth's call graph.
type m4Pair struct {
	Benchmark          string
	ProfilerA, MethodA string
	ProfilerB, MethodB string
	Related            bool
}

// m4Result lists the disagreeing pairs.
type m4Result struct {
	Seeds []uint64
	Pairs []m4Pair
	// Models: the benchmarks are the models, not the stand-ins.
	Models bool
}

// Related counts the pairs in a caller/callee relation.
func (r *m4Result) Related() int {
	n := 0
	for _, p := range r.Pairs {
		if p.Related {
			n++
		}
	}
	return n
}

// measureM4 finds the disagreeing pairs in the measureDisagreement runs.
func measureM4(o Options) (*m4Result, error) {
	d, err := measureDisagreement(o)
	if err != nil {
		return nil, err
	}
	res := &m4Result{Seeds: o.Seeds, Models: o.Models}
	for _, b := range d.benches {
		for i, pa := range disagreementProfilers {
			for _, pb := range disagreementProfilers[i+1:] {
				ma, mb := d.rankings[b][pa][0], d.rankings[b][pb][0]
				if ma == mb {
					continue
				}
				rel := reaches(d.calls[b], ma, mb) || reaches(d.calls[b], mb, ma)
				res.Pairs = append(res.Pairs, m4Pair{b, pa, ma, pb, mb, rel})
			}
		}
	}
	return res, nil
}

func (r *m4Result) render() (*Result, error) {
	t := &Table{Title: "Pairs of profilers that disagree on the hottest method: are the two methods caller and callee?",
		Columns: []string{"benchmark", "profiler A", "hottest", "profiler B", "hottest", "related"}}
	for _, p := range r.Pairs {
		t.AddRow(p.Benchmark, p.ProfilerA, p.MethodA, p.ProfilerB, p.MethodB, p.Related)
	}
	t.Notes = append(t.Notes, fmt.Sprintf("%d disagreeing pairs, %d in a transitive caller/callee relation (in the truth's call graph). Paper: most are not.", len(r.Pairs), r.Related()))
	if r.Models {
		t.Notes = append(t.Notes, modelFixedNote)
	}
	return &Result{Table: t, Tidy: tidyOf(r.Pairs)}, nil
}
