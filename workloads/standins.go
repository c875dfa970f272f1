package workloads

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strings"

	"github.com/profsim/profsim/program"
)

// StandIn is a synthetic stand-in for one of the papers' benchmarks: a
// named knob set. It imitates the properties the paper's result depends
// on; it is not the benchmark.
type StandIn struct {
	Name string
	// Imitates names the benchmark and suite; Paper the papers that use it.
	Imitates, Paper string
	// Matters says which knobs carry which claim.
	Matters string
	Knobs   Knobs
	// Seed generates the program; Class names its methods' class. A
	// stand-in's small and large inputs share both: one program, two inputs.
	Seed  uint64
	Class string
}

// base is a single-threaded, medium-sized program; stand-ins override it.
func base(methods, depth int) Knobs {
	return Knobs{Methods: methods, Depth: depth, FanOut: 2, Virtual: 0.2, Receivers: 2, Skew: 0.8,
		BlockBytecodes: 12, CyclesPerBytecode: 1.5, CountedLoops: 0.3, PolledLoops: 0.1, LoopTrips: 40,
		Threads: 1, Phases: 1, Iterations: 2000}
}

func with(k Knobs, f func(*Knobs)) Knobs { f(&k); return k }

var standIns = map[string]StandIn{}

func add(s StandIn) {
	if _, dup := standIns[s.Name]; dup {
		panic("workloads: duplicate stand-in " + s.Name)
	}
	base, _, _ := strings.Cut(s.Name, "-")
	if s.Seed == 0 {
		h := fnv.New64a()
		h.Write([]byte(base))
		s.Seed = h.Sum64()
	}
	if s.Class == "" {
		s.Class = className(base)
	}
	standIns[s.Name] = s
}

func init() {
	// Mytkowicz et al. 2010: single-threaded DaCapo 2006. Hot leaves with
	// poll-free loops (where safepoint samplers go wrong) and at least
	// two hot methods to inject into.
	my := "Mytkowicz 2010"
	for _, x := range []struct {
		name, what string
		k          Knobs
	}{
		{"antlr", "DaCapo 2006 antlr (parser generator)", with(base(120, 6), func(k *Knobs) { k.CountedLoops = 0.4; k.Virtual = 0.3 })},
		{"bloat", "DaCapo 2006 bloat (bytecode optimizer)", with(base(150, 7), func(k *Knobs) { k.AllocRate = 0.3; k.AllocBytes = 64 })},
		{"chart", "DaCapo 2006 chart (plotting)", with(base(90, 5), func(k *Knobs) { k.CountedLoops = 0.5; k.LoopTrips = 80 })},
		{"fop", "DaCapo 2006 fop (XSL-FO to PDF)", with(base(130, 6), func(k *Knobs) { k.AllocRate = 0.2; k.AllocBytes = 48; k.Phases = 2 })},
		{"jython", "DaCapo 2006 jython (Python interpreter)", with(base(160, 8), func(k *Knobs) { k.Virtual = 0.5; k.Receivers = 4; k.Skew = 0.5 })},
		{"luindex", "DaCapo 2006 luindex (text indexing)", with(base(80, 5), func(k *Knobs) { k.CountedLoops = 0.5; k.PolledLoops = 0.2 })},
		{"pmd", "DaCapo 2006 pmd (source analyzer)", with(base(140, 7), func(k *Knobs) { k.AllocRate = 0.25; k.AllocBytes = 96; k.Virtual = 0.3 })},
	} {
		add(StandIn{Name: x.name, Imitates: x.what, Paper: my, Knobs: x.k,
			Matters: "counted_loops puts time in poll-free leaves (M1–M3, M7); the hottest leaves are injection targets (M2); alloc_rate drives GC and the observer effect (M6)"})
	}
	// Binder 2006 and Arnold & Grove 2005: SPECjvm98 (+ A&G's extras),
	// sized by A&G's Table 1 (methods executed / 4), small and large input.
	spec := []struct {
		name, what string
		methods    int
		k          func(*Knobs)
		matters    string
	}{
		{"compress", "SPECjvm98 _201_compress", 61, func(k *Knobs) { k.CountedLoops = 0.7; k.LoopTrips = 100; k.Depth = 4 }, "loop-dominated, periodic: Komorium is most accurate here (B3); constant granularity aliases (B1)"},
		{"jess", "SPECjvm98 _202_jess (expert system)", 165, func(k *Knobs) { k.Virtual = 0.4; k.Depth = 8 }, "many virtual calls (A2–A4)"},
		{"db", "SPECjvm98 _209_db (database)", 65, func(k *Knobs) { k.CountedLoops = 0.5; k.Depth = 4 }, "loop-dominated (B3)"},
		{"javac", "SPECjvm98 _213_javac (compiler)", 235, func(k *Knobs) {
			k.Depth = 12
			k.FanOut = 2
			k.BlockBytecodes = 6
			k.CountedLoops = 0.05
			k.Recursion = 40
			k.RecursionShare = 0.3
		}, "deep and call-heavy with many short methods: hardest for Komorium (B3) and for call-graph sampling (A2, A4)"},
		{"mpegaudio", "SPECjvm98 _222_mpegaudio (MP3 decoder)", 104, func(k *Knobs) {
			k.LargeBlocks = 0.4
			k.LargeBlockBytecodes = 300
			k.CountedLoops = 0.5
		}, "large basic blocks: MaxPath matters (B4)"},
		{"mtrt", "SPECjvm98 _227_mtrt (ray tracer, two threads)", 92, func(k *Knobs) { k.Threads = 2; k.AllocRate = 0.3; k.AllocBytes = 32 }, "two threads (B5's tail per thread, B7's worst overhead)"},
		{"jack", "SPECjvm98 _228_jack (parser generator)", 120, func(k *Knobs) { k.ExceptionRate = 0.05; k.Depth = 10; k.BlockBytecodes = 20 }, "exception-heavy: Komorium over-counts (B5)"},
		{"ipsixql", "ipsixql (XML database)", 115, func(k *Knobs) { k.Virtual = 0.3 }, "A&G extra benchmark (A3 with --full)"},
		{"xerces", "Apache xerces (XML parser)", 180, func(k *Knobs) { k.Depth = 9; k.Virtual = 0.3 }, "A&G extra benchmark (A3 with --full)"},
		{"daikon", "daikon (invariant detector)", 418, func(k *Knobs) { k.Depth = 10; k.AllocRate = 0.2; k.AllocBytes = 64 }, "large code base (A3 with --full)"},
		// kawa's depth keeps its calling contexts to the paths of its
		// call graph, 1.17 M (tools/cct/standins), the order of the real
		// javac's 0.89 M and jython's 1.76 M (docs/PERFORMANCE.md,
		// "Calling contexts of real programs").
		{"kawa", "kawa (Scheme compiler)", 449, func(k *Knobs) { k.Depth = 7; k.Virtual = 0.5; k.Receivers = 3; k.Skew = 0.6 }, "large code base, polymorphic (A3 with --full)"},
		{"jbb", "SPECjbb2000 (business logic)", 150, func(k *Knobs) { k.AllocRate = 0.3; k.AllocBytes = 64 }, "A&G extra benchmark (A3 with --full); pBOB for Whaley (W2)"},
		// soot's depth likewise keeps its contexts to 708 k paths.
		{"soot", "soot (bytecode analysis framework)", 304, func(k *Knobs) { k.Depth = 9; k.Virtual = 0.4 }, "large, deep (A3 with --full)"},
	}
	for _, s := range spec {
		k := base(s.methods, 6)
		k.Iterations = 1500
		s.k(&k)
		paper := "Arnold & Grove 2005" // their extra benchmarks; Binder ran SPECjvm98 alone
		if strings.HasPrefix(s.what, "SPECjvm98") {
			paper = "Binder 2006, Arnold & Grove 2005"
		}
		add(StandIn{Name: s.name, Imitates: s.what, Paper: paper, Knobs: k, Matters: s.matters})
		for _, in := range []string{"small", "large"} {
			kk := k
			kk.Input = in
			add(StandIn{Name: s.name + "-" + in, Imitates: s.what + ", " + in + " input", Paper: "Arnold & Grove 2005", Knobs: kk,
				Matters: "input size: large inputs run 5× longer and cover all of the code (A3)"})
		}
	}
	// Hofer et al. 2015: DaCapo 9.12 and the Scala benchmarks, with thread
	// counts; CPU-heavy ones with poll-free hot loops; recursive-descent
	// ones with stacks deeper than 256 frames; tmt with short-lived threads.
	hf := "Hofer 2015"
	mt := func(methods, threads int, f func(*Knobs)) Knobs {
		k := base(methods, 6)
		k.Threads = threads
		k.Iterations = 4000
		k.BlockingShare = 0.1
		if f != nil {
			f(k0(&k))
		}
		return k
	}
	for _, x := range []struct {
		name, what string
		k          Knobs
		matters    string
	}{
		{"avrora", "DaCapo 9.12 avrora (AVR simulator, many threads)", mt(120, 6, func(k *Knobs) { k.BlockingShare = 0.4; k.LockShare = 0.2 }), "blocking, lock contention: waiting threads (H1)"},
		{"fop9", "DaCapo 9.12 fop (single-threaded)", mt(130, 1, func(k *Knobs) { k.BlockingShare = 0; k.Phases = 2 }), "short, no significantly hot context (H5)"},
		{"h2", "DaCapo 9.12 h2 (database)", mt(140, 4, func(k *Knobs) { k.LockShare = 0.3 }), "threads and locks (H1)"},
		{"jython9", "DaCapo 9.12 jython", mt(160, 1, func(k *Knobs) { k.Depth = 8; k.Virtual = 0.5; k.Receivers = 4; k.Skew = 0.5; k.BlockingShare = 0 }), "deep interpreter stacks"},
		{"luindex9", "DaCapo 9.12 luindex", mt(80, 1, func(k *Knobs) { k.CountedLoops = 0.5; k.BlockingShare = 0.05 }), "single-threaded (H1 baseline)"},
		{"lusearch", "DaCapo 9.12 lusearch (text search, CPU-heavy)", mt(90, 8, func(k *Knobs) { k.CountedLoops = 0.8; k.LoopTrips = 400; k.BlockingShare = 0; cpuHeavy(k) }), "CPU-heavy, poll-free hot loops, rarely ms long: JVMTI latency > 10 ms and fewer samples at 0.1 ms (H2, H3)"},
		{"pmd9", "DaCapo 9.12 pmd", mt(140, 4, func(k *Knobs) { k.AllocRate = 0.25; k.AllocBytes = 96 }), "allocation (GC pauses)"},
		{"sunflow", "DaCapo 9.12 sunflow (ray tracer, CPU-heavy)", mt(100, 8, func(k *Knobs) {
			k.CountedLoops = 0.8
			k.LoopTrips = 400
			k.BlockingShare = 0
			k.AllocRate = 0.3
			k.AllocBytes = 48
			cpuHeavy(k)
		}), "CPU-heavy, poll-free hot loops, rarely ms long (H2, H3)"},
		{"tomcat", "DaCapo 9.12 tomcat (servlet container)", mt(200, 16, func(k *Knobs) { k.BlockingShare = 0.5 }), "many mostly-waiting threads (H1)"},
		{"tradebeans", "DaCapo 9.12 tradebeans (many threads)", mt(220, 32, func(k *Knobs) { k.BlockingShare = 0.5; k.LockShare = 0.2 }), "many threads: JVMTI latency grows with threads (H1, H2)"},
		{"xalan", "DaCapo 9.12 xalan (XSLT, CPU-heavy)", mt(150, 8, func(k *Knobs) { k.CountedLoops = 0.7; k.LoopTrips = 300; k.BlockingShare = 0; cpuHeavy(k) }), "CPU-heavy, poll-free hot loops, rarely ms long (H2, H3)"},
		{"actors", "Scala benchmarks actors (many threads)", mt(120, 32, func(k *Knobs) { k.BlockingShare = 0.4; k.LockShare = 0.3 }), "many threads (H1, H2)"},
		{"apparat", "Scala benchmarks apparat", mt(140, 4, nil), "multi-threaded Scala workload (H1)"},
		{"factorie", "Scala benchmarks factorie", mt(120, 1, func(k *Knobs) { k.BlockingShare = 0; k.AllocRate = 0.3; k.AllocBytes = 64 }), "allocation-heavy, single-threaded"},
		{"kiama", "Scala benchmarks kiama (recursive descent)", mt(120, 1, func(k *Knobs) {
			k.BlockingShare = 0
			k.Recursion = 300
			k.RecursionShare = 0.5
			k.RecursionContinue = 0.999
		}), "stacks deeper than 256 frames: overlap < 70 %, ISPS differs from truncated stacks (H6)"},
		{"scalac", "Scala benchmarks scalac (compiler, recursive descent)", mt(200, 1, func(k *Knobs) {
			k.BlockingShare = 0
			k.Recursion = 300
			k.RecursionShare = 0.6
			k.RecursionContinue = 0.999
			k.Depth = 10
		}), "deep recursion (H6)"},
		{"scaladoc", "Scala benchmarks scaladoc (recursive descent)", mt(180, 1, func(k *Knobs) {
			k.BlockingShare = 0
			k.Recursion = 300
			k.RecursionShare = 0.5
			k.RecursionContinue = 0.999
			k.Depth = 9
		}), "deep recursion (H6)"},
		{"scalap", "Scala benchmarks scalap (decompiler)", mt(90, 1, func(k *Knobs) { k.BlockingShare = 0 }), "small single-threaded"},
		{"scalariform", "Scala benchmarks scalariform (formatter)", mt(110, 1, func(k *Knobs) { k.BlockingShare = 0; k.Depth = 8 }), "single-threaded, deep-ish"},
		{"scalatest", "Scala benchmarks scalatest", mt(150, 4, func(k *Knobs) { k.BlockingShare = 0.3 }), "threads with waiting"},
		{"scalaxb", "Scala benchmarks scalaxb", mt(130, 1, func(k *Knobs) { k.BlockingShare = 0; k.Phases = 3 }), "phases: behaviour varies between iterations (H5)"},
		{"specs", "Scala benchmarks specs", mt(120, 4, func(k *Knobs) { k.BlockingShare = 0.3 }), "threads with waiting"},
		{"tmt", "Scala benchmarks tmt (many short-lived threads)", mt(100, 8, func(k *Knobs) { k.ShortLived = true; k.BlockingShare = 0; k.Iterations = 2000 }), "short-lived threads: ISPS must retrieve at every thread end (H4)"},
	} {
		add(StandIn{Name: x.name, Imitates: x.what, Paper: hf, Knobs: x.k, Matters: x.matters})
	}
}

// cpuHeavy adds the rare long poll-free loops (≈ 4–13 ms each) of the
// CPU-heavy DaCapo 9.12 programs, whose JIT eliminated their safepoint
// checks.
func cpuHeavy(k *Knobs) {
	k.LongLoops = 2e-5
	k.LongLoopTrips = 400_000
}

// k0 returns k: a helper so stand-in tables can tweak a copy in place.
func k0(k *Knobs) *Knobs { return k }

// StandIns lists the stand-ins sorted by name.
func StandIns() []StandIn {
	out := make([]StandIn, 0, len(standIns))
	for _, s := range standIns {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupStandIn returns the named stand-in.
func LookupStandIn(name string) (StandIn, bool) {
	s, ok := standIns[name]
	return s, ok
}

// Program generates the stand-in's program.
func (s StandIn) Program() (*program.Program, error) {
	p, err := generate(s.Name, s.Class, s.Knobs, s.Seed)
	if err != nil {
		return nil, err
	}
	p.Description = fmt.Sprintf("synthetic stand-in for %s (%s)", s.Imitates, s.Paper)
	return p, nil
}
