package study

import (
	"fmt"
	"math"
	"time"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "x4-cooperative-sampling", Claim: "X4", Title: "Beyond the papers: JDK 25's cooperative sampling (jfr-coop) removes the top frame's safepoint bias — what bias remains, and where", Run: typed(measureX4), Models: true})
}

// x4Samplers watch every X4 execution: the safepoint-biased JVMTI
// sampler, JDK 17's JFR, JDK 25's cooperative JFR and async-profiler.
var x4Samplers = []string{"safepoint", "jfr", "jfr-coop", "async"}

// x4Bench is one execution setting of X4.
type x4Bench struct {
	Name string
	// Prog is a built-in workload: a stand-in, a model or x4PendingProg.
	Prog string
	// VM is the preset; Inline and DNS the JIT's settings.
	VM          string
	Inline, DNS bool
	CPUs        int
	D           sim.Time
	About       string
}

// x4PendingProg is the built-in workload x4-pending
// (workloads/experiments): thread a runs a counted loop of 40 ms with no
// poll inside (hotspot6: counted loops lose their polls), polling only at
// its return; thread b calls a 1 µs method, polling at each return.
// Neither callee is inlined (their callers' loops are counted loops too,
// without polls). Each thread computes all the time, half the CPU time
// each.
const x4PendingProg = "x4-pending"

// x4Benches: Listing 1 without inlining (the top frame's safepoint bias
// at its clearest: hot() is poll-free), inlined without and with
// DebugNonSafepoints (the debug information's skid, X1), and a thread in
// a long poll-free loop beside one that polls (a request waits for the
// poll); with o.Models, the models of the DaCapo applications instead.
func x4Benches(o Options) []x4Bench {
	d := sim.Second
	if o.Full {
		d = 5 * sim.Second
	}
	if o.Models {
		var bs []x4Bench
		for _, m := range modelBenches(o) {
			bs = append(bs, x4Bench{m, m, "hotspot17", true, false, 4, fixedDuration(o, 2*d), "model, HotSpot 17 defaults"})
		}
		return bs
	}
	return []x4Bench{
		{"hotcold, no inlining", "hotcold", "hotspot17", false, false, 4, d, "Listing 1, -XX:-Inline: hot() compiled on its own, its only poll its return"},
		{"hotcold, inlined", "hotcold", "hotspot17", true, false, 4, d, "Listing 1 as HotSpot 17 runs it: hot() inlined into cold()'s strip-mined loop"},
		{"hotcold, inlined, DNS", "hotcold", "hotspot17", true, true, 4, d, "the same with -XX:+DebugNonSafepoints"},
		{"pending", x4PendingProg, "hotspot6", true, true, 4, 2 * d, "thread a in 40 ms counted loops without polls (no strip mining), thread b polling every microsecond; DebugNonSafepoints, so every position has a name"},
		{"returnpoll", "fid-returnpoll", "hotspot17", true, false, 4, d, "caller()'s loop calls callee(), not inlined, whose only poll is its return and which has no debug record of its own"},
		{"returnpoll, DNS", "fid-returnpoll", "hotspot17", true, true, 4, d, "the same with -XX:+DebugNonSafepoints"},
	}
}

// x4Sampler is what one sampler saw on one execution; shares in points.
type x4Sampler struct {
	Samples int64
	// Hot is HotCold.hot's self share (hotcold benches).
	Hot float64
	// ThreadA is thread a's share of the samples (pending).
	ThreadA float64
	// Callee is ReturnPoll.callee's self share (returnpoll).
	Callee float64
	// Methods is the overlap of the sampler's method profile with the
	// truth's; Contexts by calling context.
	Methods, Contexts float64
	// Biased and Returned are jfr-coop's flagged samples, in points of
	// its samples (0 for the others).
	Biased, Returned float64
}

// x4Run is one execution of a bench.
type x4Run struct {
	Seed uint64
	// TruthHot and TruthA are the truth's share of hot() and thread a's
	// CPU share; TruthCallee ReturnPoll.callee's.
	TruthHot, TruthA, TruthCallee float64
	Samplers                      map[string]x4Sampler
}

// x4Result is every bench and seed of X4.
type x4Result struct {
	Seeds   []uint64
	Models  bool
	Benches []x4Bench
	Runs    [][]*x4Run
}

// spec is the run of b with seed: its preset, then its JIT settings, the
// truth and x4Samplers watching. A model runs as workloads.Get returns
// it: the built-in models carry no recorder threads.
func (b x4Bench) spec(seed uint64) harness.Spec {
	s := harness.DefaultSpec()
	s.Workload, s.Seed, s.Duration, s.CPUs, s.VM = b.Prog, seed, time.Duration(b.D), b.CPUs, b.VM
	inline, dns := b.Inline, b.DNS
	s.Inline, s.DebugNonSafepoints = &inline, &dns
	s.Samplers = append([]string{"truth"}, x4Samplers...)
	return s
}

func (b x4Bench) runSeed(seed uint64) (*x4Run, error) {
	out, err := runSpec(b.spec(seed))
	if err != nil {
		return nil, fmt.Errorf("%s seed %d: %w", b.Name, seed, err)
	}
	truth := out.Profiles["truth"]
	r := &x4Run{Seed: seed, Samplers: map[string]x4Sampler{}}
	r.TruthHot = 100 * share(truth, "HotCold.hot")
	r.TruthCallee = 100 * share(truth, "ReturnPoll.callee")
	var cpuA, cpuAll float64
	for _, th := range out.Result.Threads {
		if !th.Service {
			cpuAll += float64(th.States[sim.Running])
			if th.Name == "a" {
				cpuA += float64(th.States[sim.Running])
			}
		}
	}
	r.TruthA = 100 * cpuA / math.Max(cpuAll, 1)
	for _, s := range x4Samplers {
		prof := out.Profiles[s]
		n := float64(prof.TotalCount())
		var a float64
		for i, smp := range prof.Samples {
			if prof.ThreadName(i) == "a" {
				a += float64(smp.Count)
			}
		}
		c := out.Costs[s]
		r.Samplers[s] = x4Sampler{
			Samples:  prof.TotalCount(),
			Hot:      100 * share(prof, "HotCold.hot"),
			Callee:   100 * share(prof, "ReturnPoll.callee"),
			ThreadA:  100 * a / math.Max(n, 1),
			Methods:  100 * profile.OverlapMethods(truth, prof),
			Contexts: 100 * profile.OverlapContexts(truth, prof),
			Biased:   100 * float64(c.Biased) / math.Max(n, 1),
			Returned: 100 * float64(c.Returned) / math.Max(n, 1),
		}
	}
	return r, nil
}

// share is method's share of p's self weight (0 to 1).
func share(p *profile.Profile, method string) float64 {
	w := p.MethodWeights()
	var sum float64
	for _, v := range w {
		sum += v
	}
	return w[method] / math.Max(sum, 1)
}

// measureX4 runs every bench at every seed.
func measureX4(o Options) (*x4Result, error) {
	benches := x4Benches(o)
	runs, err := runBySeed[x4Bench, *x4Run](o, benches)
	if err != nil {
		return nil, err
	}
	return &x4Result{Seeds: o.Seeds, Models: o.Models, Benches: benches, Runs: runs}, nil
}

// Bench is bench name's runs.
func (r *x4Result) Bench(name string) []*x4Run {
	for i, b := range r.Benches {
		if b.Name == name {
			return r.Runs[i]
		}
	}
	panic("study: X4 has no bench " + name)
}

// stat is f of sampler s over bench's seeds.
func (r *x4Result) Stat(bench, s string, f func(x4Sampler) float64) stat {
	return statOf(r.Bench(bench), func(x *x4Run) float64 { return f(x.Samplers[s]) })
}

// Truth is f of the truth over bench's seeds.
func (r *x4Result) Truth(bench string, f func(*x4Run) float64) stat {
	return statOf(r.Bench(bench), f)
}

// x4Obs is one tidy observation: a sampler on a (bench, seed).
type x4Obs struct {
	Bench    string  `tidy:"benchmark"`
	Seed     uint64  `tidy:"seed"`
	Sampler  string  `tidy:"sampler"`
	Samples  int64   `tidy:"samples"`
	Hot      float64 `tidy:"hot_pct"`
	TruthHot float64 `tidy:"truth_hot_pct"`
	ThreadA  float64 `tidy:"thread_a_pct"`
	TruthA   float64 `tidy:"truth_thread_a_pct"`
	Methods  float64 `tidy:"method_overlap_pct"`
	Contexts float64 `tidy:"context_overlap_pct"`
	Biased   float64 `tidy:"biased_pct"`
	Returned float64 `tidy:"returned_pct"`
}

func (r *x4Result) render() (*Result, error) {
	t := &Table{Title: "X4: JDK 25's cooperative sampling against JDK 17's JFR, a safepoint-biased sampler and async-profiler on one execution (mean ± 95 % CI over seeds)",
		Columns: []string{"execution", "sampler", "samples", "hot() (%)", "thread a (%)", "method overlap (%)", "context overlap (%)", "biased (%)", "returned (%)"}}
	var obs []x4Obs
	for bi, b := range r.Benches {
		t.AddRow(b.Name, "truth", "", fmtStat(r.Truth(b.Name, func(x *x4Run) float64 { return x.TruthHot })), fmtStat(r.Truth(b.Name, func(x *x4Run) float64 { return x.TruthA })), "", "", "", "")
		for _, s := range x4Samplers {
			st := func(f func(x4Sampler) float64) string { return fmtStat(r.Stat(b.Name, s, f)) }
			t.AddRow(b.Name, s, st(func(x x4Sampler) float64 { return float64(x.Samples) }),
				st(func(x x4Sampler) float64 { return x.Hot }), st(func(x x4Sampler) float64 { return x.ThreadA }),
				st(func(x x4Sampler) float64 { return x.Methods }), st(func(x x4Sampler) float64 { return x.Contexts }),
				st(func(x x4Sampler) float64 { return x.Biased }), st(func(x x4Sampler) float64 { return x.Returned }))
			for _, run := range r.Runs[bi] {
				x := run.Samplers[s]
				obs = append(obs, x4Obs{b.Name, run.Seed, s, x.Samples, x.Hot, run.TruthHot, x.ThreadA, run.TruthA, x.Methods, x.Contexts, x.Biased, x.Returned})
			}
		}
	}
	about := ""
	for i, b := range r.Benches {
		if i > 0 {
			about += "; "
		}
		about += fmt.Sprintf("%s (%s, %v, %d CPUs: %s)", b.Name, b.VM, b.D, b.CPUs, b.About)
	}
	t.Notes = []string{fmt.Sprintf("Seeds %v. Executions: %s. All samplers passive on one execution, at their defaults (jfr and jfr-coop every 20 ms, ≤ 5 threads a round; safepoint and async 10 ms).", r.Seeds, about)}
	t.Notes = append(t.Notes, discussion("x4-cooperative-sampling")...)
	if r.Models {
		t.Notes = append(t.Notes, modelFixedNote)
	}
	return &Result{Table: t, Tidy: tidyOf(obs)}, nil
}

// fmtStat prints a stat, or "—" for none.
func fmtStat(s stat) string {
	if math.IsNaN(s.Mean) {
		return "—"
	}
	return s.String()
}
