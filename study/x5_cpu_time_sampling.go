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
	register(Experiment{Name: "x5-cpu-time-sampling", Claim: "X5", Title: "Beyond the papers: CPU-time sampling (JDK 25's jfr-cputime) against execution sampling (jfr, jfr-coop) on programs that block, run native code or crowd the thread cap", Run: typed(measureX5)})
}

// x5Samplers watch every X5 execution: JDK 17's and JDK 25's execution
// samplers (≤ 5 Java threads a 20 ms round), JDK 25's CPU-time sampler (a
// signal per thread per CPUs/500 s of its CPU time, its timer checked at
// the kernel's 4 ms tick) and, the control for the tick, the same checked
// every 10 µs (x5FineTick).
var x5Samplers = []string{"jfr", "jfr-coop", "jfr-cputime", x5FineTick}

// x5FineTick is jfr-cputime with its timer checked every 10 µs instead of
// at the 4 ms kernel tick: what the tick's folding of overruns costs.
const x5FineTick = "jfr-cputime:tick10us"

// x5Spec is sampler id's spec.
func x5Spec(id string) string {
	if id == x5FineTick {
		return id + ",tick_interval=10us"
	}
	return id
}

// x5Bench is one execution setting of X5.
type x5Bench struct {
	Name, Prog string
	CPUs       int
	D          sim.Time
	About      string
}

// x5NativeProg is the built-in workload x5-native
// (workloads/experiments): thread n spends half its CPU time in a native
// method (I/O, compression, a JNI library), thread j all its time in Java
// code.
const x5NativeProg = "x5-native"

// x5Benches: a thread that sleeps half the time (BlockHalf's twin); a
// thread half in native code; eight always-running workers on 8 CPUs
// (more than the cap of 5); ten threads that end one by one (a crowd
// that thins).
func x5Benches(o Options) []x5Bench {
	d := 2 * sim.Second
	if o.Full {
		d = 10 * sim.Second
	}
	return []x5Bench{
		{"blockhalf", "fid-blockhalf", 2, d, "main sleeps 5 ms and computes 5 ms in turn, spinner computes"},
		{"native", x5NativeProg, 2, d, "thread n half in a native method, thread j in Java"},
		{"lusearch, 8 CPUs", "lusearch", 8, d, "8 workers always running"},
		{"staggered, 10 CPUs", x2Staggered, 10, 2 * sim.Second, "thread sN works ≈ (N+1) × 100 ms and ends"},
	}
}

// x5Sampler is what one sampler saw on one execution.
type x5Sampler struct {
	Samples int64
	// Threads is each thread's share of the samples, in points, in
	// x5Run.Threads' order.
	Threads []float64
	// Coverage is the samples' weight (each a period) over the
	// application's CPU time, in points.
	Coverage float64
	// MaxDev is the largest |thread share − CPU share|; MinRatio the
	// smallest share / CPU share over threads with ≥ 2 % of the CPU.
	MaxDev, MinRatio float64
	// Native is the share of samples whose leaf is a native method.
	Native float64
}

// x5Run is one execution of a bench.
type x5Run struct {
	Seed    uint64
	Threads []string
	// CPU is each thread's share of the application's CPU time, in
	// points; NativeCPU the truth's share of native methods.
	CPU       []float64
	NativeCPU float64
	Samplers  map[string]x5Sampler
}

// x5Result is every bench and seed of X5.
type x5Result struct {
	Seeds   []uint64
	Benches []x5Bench
	Runs    [][]*x5Run
}

// spec is the run of b with seed on JDK 25's HotSpot with
// DebugNonSafepoints, the truth and x5Samplers watching.
func (b x5Bench) spec(seed uint64) harness.Spec {
	s := harness.DefaultSpec()
	s.Workload, s.Seed, s.Duration, s.CPUs, s.VM = b.Prog, seed, time.Duration(b.D), b.CPUs, "hotspot25"
	if s.Workload == x2Staggered {
		s.Workload = x2StaggeredProg
	}
	// Names through debug information are X4's subject; here every
	// position has a record.
	dns := true
	s.DebugNonSafepoints = &dns
	s.Samplers = []string{"truth"}
	for _, id := range x5Samplers {
		s.Samplers = append(s.Samplers, x5Spec(id))
	}
	return s
}

func (b x5Bench) runSeed(seed uint64) (*x5Run, error) {
	out, err := runSpec(b.spec(seed))
	if err != nil {
		return nil, fmt.Errorf("%s seed %d: %w", b.Name, seed, err)
	}
	r := &x5Run{Seed: seed, Samplers: map[string]x5Sampler{}}
	var cpu []float64
	for _, th := range out.Result.Threads {
		if !th.Service {
			r.Threads = append(r.Threads, th.Name)
			cpu = append(cpu, float64(th.States[sim.Running]))
		}
	}
	r.CPU = percents(cpu)
	app := float64(out.Result.AppCPU())
	native := nativeLines(out)
	r.NativeCPU = 100 * nativeShare(out.Profiles["truth"], native)
	for _, s := range x5Samplers {
		prof := out.Profiles[s]
		per := map[string]float64{}
		for i, smp := range prof.Samples {
			per[prof.ThreadName(i)] += float64(smp.Count)
		}
		n := float64(prof.TotalCount())
		x := x5Sampler{Samples: prof.TotalCount(), Coverage: 100 * float64(prof.TotalWeight()) / math.Max(app, 1), MinRatio: math.Inf(1), Native: 100 * nativeShare(prof, native)}
		for i, th := range r.Threads {
			sh := 100 * per[th] / math.Max(n, 1)
			x.Threads = append(x.Threads, sh)
			x.MaxDev = math.Max(x.MaxDev, math.Abs(sh-r.CPU[i]))
			if r.CPU[i] >= x2MinShare {
				x.MinRatio = math.Min(x.MinRatio, sh/r.CPU[i])
			}
		}
		r.Samplers[s] = x
	}
	return r, nil
}

// nativeLines are the run's native statements: where a thread runs
// native code.
func nativeLines(out *harness.Outcome) map[waitLine]bool {
	m := map[waitLine]bool{}
	for i, c := range out.Image.Base {
		for _, in := range c.Instrs {
			if in.Op == sim.OpNative {
				m[waitLine{out.Image.Names[i], in.Line}] = true
			}
		}
	}
	return m
}

// nativeShare is the share of p's self weight at the statements of
// native.
func nativeShare(p *profile.Profile, native map[waitLine]bool) float64 {
	var in, all float64
	for i, s := range p.Samples {
		all += float64(s.Weight)
		if f, ok := p.Leaf(i); ok && native[waitLine{p.Functions[f.Func].Name, f.Line}] {
			in += float64(s.Weight)
		}
	}
	return in / math.Max(all, 1)
}

// measureX5 runs every bench at every seed.
func measureX5(o Options) (*x5Result, error) {
	benches := x5Benches(o)
	runs, err := runBySeed[x5Bench, *x5Run](o, benches)
	if err != nil {
		return nil, err
	}
	return &x5Result{Seeds: o.Seeds, Benches: benches, Runs: runs}, nil
}

// Bench is bench name's runs.
func (r *x5Result) Bench(name string) []*x5Run {
	for i, b := range r.Benches {
		if b.Name == name {
			return r.Runs[i]
		}
	}
	panic("study: X5 has no bench " + name)
}

// x5Of reads f of sampler s from a run.
func x5Of(s string, f func(x5Sampler) float64) func(*x5Run) float64 {
	return func(x *x5Run) float64 { return f(x.Samplers[s]) }
}

// stat, Max and Min are f of sampler s over bench's seeds: its stat,
// largest and smallest value.
func (r *x5Result) Stat(bench, s string, f func(x5Sampler) float64) stat {
	return statOf(r.Bench(bench), x5Of(s, f))
}

func (r *x5Result) Max(bench, s string, f func(x5Sampler) float64) float64 {
	return maxOf(r.Bench(bench), x5Of(s, f))
}

func (r *x5Result) Min(bench, s string, f func(x5Sampler) float64) float64 {
	return minOf(r.Bench(bench), x5Of(s, f))
}

// Share is thread th's share under source ("cpu time" or a sampler) over
// bench's seeds.
func (r *x5Result) Share(bench, th, source string) stat {
	var xs []float64
	for _, run := range r.Bench(bench) {
		for i, name := range run.Threads {
			if name == th {
				if source == "cpu time" {
					xs = append(xs, run.CPU[i])
				} else {
					xs = append(xs, run.Samplers[source].Threads[i])
				}
			}
		}
	}
	return newStat(xs)
}

// x5Obs is one tidy observation: a sampler on a (bench, seed).
type x5Obs struct {
	Bench     string  `tidy:"benchmark"`
	Seed      uint64  `tidy:"seed"`
	Sampler   string  `tidy:"sampler"`
	Samples   int64   `tidy:"samples"`
	Coverage  float64 `tidy:"coverage_pct"`
	MaxDev    float64 `tidy:"thread_cpu_dev_pts"`
	MinRatio  float64 `tidy:"min_share_ratio"`
	Native    float64 `tidy:"native_pct"`
	NativeCPU float64 `tidy:"truth_native_pct"`
}

func (r *x5Result) render() (*Result, error) {
	t := &Table{Title: "X5: CPU-time sampling (jfr-cputime) against execution sampling (jfr, jfr-coop) on one execution (mean ± 95 % CI over seeds)",
		Columns: []string{"execution", "sampler", "samples", "coverage of CPU time (%)", "max |thread − CPU share| (pts)", "min thread share / CPU share", "native code (%)"}}
	var obs []x5Obs
	for bi, b := range r.Benches {
		var nat []float64
		for _, run := range r.Runs[bi] {
			nat = append(nat, run.NativeCPU)
		}
		t.AddRow(b.Name, "truth", "", "100", "", "", newStat(nat).String())
		for _, s := range x5Samplers {
			st := func(f func(x5Sampler) float64) string { return statOf(r.Runs[bi], x5Of(s, f)).String() }
			t.AddRow(b.Name, s, st(func(x x5Sampler) float64 { return float64(x.Samples) }), st(func(x x5Sampler) float64 { return x.Coverage }),
				st(func(x x5Sampler) float64 { return x.MaxDev }), st(func(x x5Sampler) float64 { return x.MinRatio }), st(func(x x5Sampler) float64 { return x.Native }))
			for _, run := range r.Runs[bi] {
				x := run.Samplers[s]
				obs = append(obs, x5Obs{b.Name, run.Seed, s, x.Samples, x.Coverage, x.MaxDev, x.MinRatio, x.Native, run.NativeCPU})
			}
		}
	}
	about := ""
	for i, b := range r.Benches {
		if i > 0 {
			about += "; "
		}
		about += fmt.Sprintf("%s (%v, %d CPUs: %s)", b.Name, b.D, b.CPUs, b.About)
	}
	t.Notes = []string{fmt.Sprintf("Seeds %v. Executions on the hotspot25 preset with DebugNonSafepoints: %s. The three samplers passive on one execution at their defaults: jfr and jfr-coop every 20 ms, ≤ 5 running Java threads a round; jfr-cputime throttle 500/s (a signal per CPUs/500 s of each thread's CPU time).", r.Seeds, about)}
	t.Notes = append(t.Notes, discussion("x5-cpu-time-sampling")...)
	return &Result{Table: t, Tidy: tidyOf(obs)}, nil
}
