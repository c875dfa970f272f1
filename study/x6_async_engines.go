package study

import (
	"fmt"
	"math"
	"time"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "x6-async-engines", Claim: "X6", Title: "Beyond the papers: async-profiler's engines (cpu, ctimer, itimer, wall) on one execution — where threads block or outnumber the CPUs", Run: typed(measureX6)})
}

// x6Engines are async-profiler's engines, each an async instance on
// every X6 execution (labelled by the engine).
var x6Engines = []string{samplers.EngineCPU, samplers.EngineCTimer, samplers.EngineITimer, samplers.EngineWall}

// x6Bench is one execution setting of X6.
type x6Bench struct {
	Name, Prog string
	CPUs       int
	D          sim.Time
	About      string
}

// x6Benches: a thread that blocks half the time beside one that never
// does (the fidelity twin of BlockHalf); eight busy threads on two CPUs
// (Oversub's twin); h2, four threads that take locks and block.
func x6Benches(o Options) []x6Bench {
	d := 2 * sim.Second
	if o.Full {
		d = 10 * sim.Second
	}
	return []x6Bench{
		{"blockhalf", "fid-blockhalf", 2, d, "main sleeps 5 ms and computes 5 ms in turn, spinner computes; 2 CPUs"},
		{"oversub", "fid-oversub", 2, d, "8 busy threads on 2 CPUs"},
		{"h2", "h2", 4, d, "4 threads with locks and blocking, 4 CPUs"},
	}
}

// x6Engine is what one engine saw on one execution; shares in points.
type x6Engine struct {
	Samples int64
	// Threads is each thread's share of the engine's samples, in
	// x6Run.Threads' order.
	Threads []float64
	// CPUDev and AliveDev are the largest |share − the thread's share of
	// CPU time| and |share − its share of live (started, not ended)
	// time| over the threads.
	CPUDev, AliveDev float64
	// Methods is the overlap of the engine's method profile with the
	// truth's (self time), in points.
	Methods float64
	// Waiting is the share of samples whose leaf is at a statement where
	// a thread waits (a block statement or a monitor entry), in points.
	Waiting float64
}

// x6Run is one execution of a bench, watched by every engine.
type x6Run struct {
	Seed    uint64
	Threads []string
	// CPU and Alive are each thread's share of the application's CPU
	// time and of the threads' live time, in points.
	CPU, Alive []float64
	Engines    map[string]x6Engine
}

// x6Result is every bench and seed of X6.
type x6Result struct {
	Seeds   []uint64
	Benches []x6Bench
	Runs    [][]*x6Run // per bench, per seed
}

// spec is b's run with seed: what `profsim run` is given for it
// (harness.Spec.Describe's Args reproduce it).
func (b x6Bench) spec(seed uint64) harness.Spec {
	s := harness.DefaultSpec()
	s.Workload, s.Seed, s.Duration, s.CPUs, s.VM = b.Prog, seed, time.Duration(b.D), b.CPUs, "hotspot17"
	// async-profiler's agent turns DebugNonSafepoints on (vmEntry.cpp
	// VM::init): the engines differ in whom and when, not in skid.
	dns := true
	s.DebugNonSafepoints = &dns
	s.Samplers = []string{"truth"}
	for _, e := range x6Engines {
		s.Samplers = append(s.Samplers, fmt.Sprintf("async:%s,engine=%s", e, e))
	}
	return s
}

func (b x6Bench) runSeed(seed uint64) (*x6Run, error) {
	out, err := runSpec(b.spec(seed))
	if err != nil {
		return nil, fmt.Errorf("%s seed %d: %w", b.Name, seed, err)
	}
	r := &x6Run{Seed: seed, Engines: map[string]x6Engine{}}
	var cpu, alive []float64
	for _, th := range out.Result.Threads {
		if th.Service {
			continue
		}
		end := th.End
		if end == 0 {
			end = out.Result.End
		}
		r.Threads = append(r.Threads, th.Name)
		cpu = append(cpu, float64(th.States[sim.Running]))
		alive = append(alive, float64(end-th.Start-th.States[sim.NotStarted]))
	}
	r.CPU, r.Alive = percents(cpu), percents(alive)
	waits := waitLines(out)
	for _, e := range x6Engines {
		prof := out.Profiles["async:"+e]
		per := map[string]float64{}
		var waiting float64
		for i, s := range prof.Samples {
			per[prof.ThreadName(i)] += float64(s.Count)
			if f, ok := prof.Leaf(i); ok && waits[waitLine{prof.Functions[f.Func].Name, f.Line}] {
				waiting += float64(s.Count)
			}
		}
		n := float64(prof.TotalCount())
		eng := x6Engine{Samples: prof.TotalCount(), Methods: 100 * profile.OverlapMethods(out.Profiles["truth"], prof), Waiting: 100 * waiting / math.Max(n, 1)}
		for i, th := range r.Threads {
			sh := 100 * per[th] / math.Max(n, 1)
			eng.Threads = append(eng.Threads, sh)
			eng.CPUDev = math.Max(eng.CPUDev, math.Abs(sh-r.CPU[i]))
			eng.AliveDev = math.Max(eng.AliveDev, math.Abs(sh-r.Alive[i]))
		}
		r.Engines[e] = eng
	}
	return r, nil
}

// percents scales xs to sum to 100.
func percents(xs []float64) []float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = 100 * x / math.Max(s, 1)
	}
	return out
}

// waitLine is a statement where a thread waits: a method's display name
// and the statement's line.
type waitLine struct {
	method string
	line   int32
}

// waitLines are the program's block statements (sleep, I/O) and monitor
// entries: where a thread that is not running stands.
func waitLines(out *harness.Outcome) map[waitLine]bool {
	m := map[waitLine]bool{}
	img := out.Image
	for i, c := range img.Base {
		for _, in := range c.Instrs {
			if in.Op == sim.OpBlock || in.Op == sim.OpMonitorEnter {
				m[waitLine{img.Names[i], in.Line}] = true
			}
		}
	}
	return m
}

// measureX6 runs every bench at every seed.
func measureX6(o Options) (*x6Result, error) {
	benches := x6Benches(o)
	runs, err := runBySeed[x6Bench, *x6Run](o, benches)
	if err != nil {
		return nil, err
	}
	return &x6Result{Seeds: o.Seeds, Benches: benches, Runs: runs}, nil
}

// Bench is bench name's runs, one per seed.
func (r *x6Result) Bench(name string) []*x6Run {
	for i, b := range r.Benches {
		if b.Name == name {
			return r.Runs[i]
		}
	}
	panic("study: X6 has no bench " + name)
}

// Max and Min are the largest and smallest value of f over bench's runs
// for engine.
func (r *x6Result) Max(bench, engine string, f func(x6Engine) float64) float64 {
	return maxOf(r.Bench(bench), func(x *x6Run) float64 { return f(x.Engines[engine]) })
}

func (r *x6Result) Min(bench, engine string, f func(x6Engine) float64) float64 {
	return minOf(r.Bench(bench), func(x *x6Run) float64 { return f(x.Engines[engine]) })
}

// Share is thread th's share under source ("cpu time", "live time" or
// an engine) over bench's seeds.
func (r *x6Result) Share(bench, th, source string) stat {
	var xs []float64
	for _, run := range r.Bench(bench) {
		for i, name := range run.Threads {
			if name != th {
				continue
			}
			switch source {
			case "cpu time":
				xs = append(xs, run.CPU[i])
			case "live time":
				xs = append(xs, run.Alive[i])
			default:
				xs = append(xs, run.Engines[source].Threads[i])
			}
		}
	}
	return newStat(xs)
}

// x6Obs is one tidy observation: an engine on a (bench, seed).
type x6Obs struct {
	Bench    string  `tidy:"benchmark"`
	Seed     uint64  `tidy:"seed"`
	Engine   string  `tidy:"engine"`
	Samples  int64   `tidy:"samples"`
	CPUDev   float64 `tidy:"thread_cpu_dev_pts"`
	AliveDev float64 `tidy:"thread_live_dev_pts"`
	Methods  float64 `tidy:"method_overlap_pct"`
	Waiting  float64 `tidy:"waiting_pct"`
}

func (r *x6Result) render() (*Result, error) {
	t := &Table{Title: "X6: async-profiler's engines on one execution: thread shares against CPU time and live time, method overlap with the truth (mean ± 95 % CI over seeds)",
		Columns: []string{"execution", "engine", "samples", "max |thread − CPU share| (pts)", "max |thread − live share| (pts)", "method overlap (%)", "samples where a thread waits (%)"}}
	var obs []x6Obs
	for bi, b := range r.Benches {
		for _, e := range x6Engines {
			var n, cd, ad, mo, w []float64
			for _, run := range r.Runs[bi] {
				x := run.Engines[e]
				n, cd, ad, mo, w = append(n, float64(x.Samples)), append(cd, x.CPUDev), append(ad, x.AliveDev), append(mo, x.Methods), append(w, x.Waiting)
				obs = append(obs, x6Obs{b.Name, run.Seed, e, x.Samples, x.CPUDev, x.AliveDev, x.Methods, x.Waiting})
			}
			t.AddRow(b.Name, e, fmt.Sprintf("%.0f", newStat(n).Mean), newStat(cd).String(), newStat(ad).String(), newStat(mo).String(), newStat(w).String())
		}
	}
	t.Notes = []string{fmt.Sprintf("Seeds %v. Executions: %s. HotSpot 17 preset with DebugNonSafepoints (async-profiler's agent turns it on), four async instances (engine=cpu, ctimer, itimer, wall; 10 ms) watching each execution passively.", r.Seeds, x6About(r.Benches))}
	t.Notes = append(t.Notes, discussion("x6-async-engines")...)
	return &Result{Table: t, Tidy: tidyOf(obs)}, nil
}

func x6About(bs []x6Bench) string {
	s := ""
	for i, b := range bs {
		if i > 0 {
			s += "; "
		}
		s += fmt.Sprintf("%s (%v, %s)", b.Name, b.D, b.About)
	}
	return s
}
