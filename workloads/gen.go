package workloads

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/profsim/profsim/program"
)

// Knobs parameterise the synthetic program generator. A stand-in for a
// paper's benchmark is a named Knobs value; the same (Knobs, seed) always
// generates the same program.
type Knobs struct {
	// Methods is the number of generated methods besides the driver. ≥ 2.
	Methods int
	// Depth is the number of layers of the call graph: layer-L methods call
	// layer-(L+1) methods; deeper stacks come from deeper layers. ≥ 1.
	Depth int
	// FanOut is the mean number of call sites per non-leaf method. ≥ 1.
	FanOut int
	// Virtual is the share of call sites that are virtual, with Receivers
	// receivers each; Skew is the dominant receiver's weight share (flat
	// when 1/Receivers).
	Virtual   float64
	Receivers int
	Skew      float64
	// Recursion, when > 0, adds a recursive-descent method whose
	// recursion_limit is Recursion (stack depth beyond it is the base
	// case); RecursionShare is the probability an iteration descends and
	// RecursionContinue the probability each level goes one deeper
	// (0.97 when unset).
	Recursion                         int
	RecursionShare, RecursionContinue float64
	// BlockBytecodes is the mean size of a basic block; CyclesPerBytecode
	// its cost in compiled code.
	BlockBytecodes    int
	CyclesPerBytecode float64
	// CountedLoops is the share of leaf methods whose body is a poll-free
	// counted loop (pure work); PolledLoops the share of methods with a
	// loop that keeps its poll (it calls or allocates); LoopTrips their
	// trips (a regular count: the loops are periodic).
	CountedLoops, PolledLoops float64
	LoopTrips                 int
	// LongLoops is the probability that a call of a leaf also runs a long
	// poll-free counted loop of uniform[LongLoopTrips/2, 3·LongLoopTrips/2]
	// trips: the rare long array loops of CPU-heavy programs whose
	// safepoint checks the JIT eliminated (Hofer et al. §7.2: JVMTI
	// latencies beyond 10 ms on lusearch, sunflow, xalan).
	LongLoops     float64
	LongLoopTrips int
	// LargeBlocks is the share of methods with one basic block of
	// LargeBlockBytecodes (mpegaudio's > 100-bytecode blocks).
	LargeBlocks         float64
	LargeBlockBytecodes int
	// AllocRate is the probability a method allocates AllocBytes.
	AllocRate  float64
	AllocBytes int
	// ExceptionRate is the probability a leaf throws an exception caught
	// two frames up.
	ExceptionRate float64
	// Threads is the number of worker threads (1: the main thread works
	// alone). ShortLived spawns a new thread per unit of work instead of a
	// pool (tmt). BlockingShare is the share of a worker's time in I/O.
	// LockShare is the probability a unit of work holds the shared lock.
	Threads       int
	ShortLived    bool
	BlockingShare float64
	LockShare     float64
	// Phases splits the run into phases that exercise different parts of
	// the call graph.
	Phases int
	// Iterations is how many units of work the driver runs (in total);
	// Input "large" multiplies it by 5 and exercises more of the call
	// graph, as Arnold & Grove's large inputs do.
	Iterations int
	Input      string
}

// Validate names the first invalid knob.
func (k Knobs) Validate() error {
	switch {
	case k.Methods < 2:
		return fmt.Errorf("knobs.methods: %d must be ≥ 2", k.Methods)
	case k.Depth < 1 || k.Depth > k.Methods:
		return fmt.Errorf("knobs.depth: %d must be in [1, methods]", k.Depth)
	case k.FanOut < 1:
		return fmt.Errorf("knobs.fan_out: %d must be ≥ 1", k.FanOut)
	case k.Virtual < 0 || k.Virtual > 1, k.CountedLoops < 0 || k.CountedLoops > 1, k.PolledLoops < 0 || k.PolledLoops > 1,
		k.LargeBlocks < 0 || k.LargeBlocks > 1, k.AllocRate < 0 || k.AllocRate > 1, k.ExceptionRate < 0 || k.ExceptionRate > 1,
		k.BlockingShare < 0 || k.BlockingShare >= 1, k.LockShare < 0 || k.LockShare > 1, k.RecursionShare < 0 || k.RecursionShare > 1,
		k.RecursionContinue < 0 || k.RecursionContinue > 1, k.LongLoops < 0 || k.LongLoops > 1:
		return fmt.Errorf("knobs: shares and rates must be in [0, 1] (blocking_share < 1)")
	case k.Virtual > 0 && (k.Receivers < 2 || k.Skew <= 0 || k.Skew > 1):
		return fmt.Errorf("knobs.receivers, skew: virtual sites need ≥ 2 receivers and a skew in (0, 1]")
	case k.Recursion < 0:
		return fmt.Errorf("knobs.recursion: %d must be ≥ 0", k.Recursion)
	case k.BlockBytecodes < 1 || k.CyclesPerBytecode <= 0:
		return fmt.Errorf("knobs.block_bytecodes, cycles_per_bytecode: must be > 0")
	case (k.CountedLoops > 0 || k.PolledLoops > 0) && k.LoopTrips < 1:
		return fmt.Errorf("knobs.loop_trips: %d must be ≥ 1 when loops are generated", k.LoopTrips)
	case k.LongLoops > 0 && k.LongLoopTrips < 2:
		return fmt.Errorf("knobs.long_loop_trips: %d must be ≥ 2 when long loops are generated", k.LongLoopTrips)
	case k.LargeBlocks > 0 && k.LargeBlockBytecodes < 1:
		return fmt.Errorf("knobs.large_block_bytecodes: must be ≥ 1")
	case k.AllocRate > 0 && k.AllocBytes < 1:
		return fmt.Errorf("knobs.alloc_bytes: must be ≥ 1")
	case k.Threads < 1:
		return fmt.Errorf("knobs.threads: %d must be ≥ 1", k.Threads)
	case k.Phases < 1:
		return fmt.Errorf("knobs.phases: %d must be ≥ 1", k.Phases)
	case k.Iterations < 1:
		return fmt.Errorf("knobs.iterations: %d must be ≥ 1", k.Iterations)
	case k.Input != "" && k.Input != "small" && k.Input != "large":
		return fmt.Errorf("knobs.input: %q must be small or large", k.Input)
	}
	return nil
}

// gen holds one generation's state.
type gen struct {
	k       Knobs
	r       *rand.Rand
	class   string
	names   []string // method refs by index
	layer   []int
	leaf    []bool
	methods []program.Method
}

// Generate builds the program named name for knobs k from seed; its
// methods belong to a class named after name.
func Generate(name string, k Knobs, seed uint64) (*program.Program, error) {
	return generate(name, className(name), k, seed)
}

func generate(prefix, class string, k Knobs, seed uint64) (*program.Program, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	g := &gen{k: k, r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)), class: class}
	g.layout()
	for i := range g.names {
		g.methods = append(g.methods, g.method(i))
	}
	g.driver(prefix)
	p := &program.Program{Name: prefix, Methods: g.methods, Threads: []program.Thread{{Name: "main", Entry: g.class + ".main", Count: 1}}}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("generator bug for %s: %w", prefix, err)
	}
	return p, nil
}

func className(s string) string {
	out := []rune{}
	up := true
	for _, c := range s {
		if c == '-' || c == '_' || c == '.' {
			up = true
			continue
		}
		if up && c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		up = false
		out = append(out, c)
	}
	return string(out)
}

// layout assigns methods to layers: layer 1 is called by the driver.
func (g *gen) layout() {
	n, d := g.k.Methods, g.k.Depth
	for i := 0; i < n; i++ {
		g.names = append(g.names, fmt.Sprintf("%s.m%03d", g.class, i))
		g.layer = append(g.layer, 1+i*d/n)
	}
	g.leaf = make([]bool, n)
	for i := range g.leaf {
		g.leaf[i] = g.layer[i] == d
	}
}

// layerMembers lists the methods of layer l.
func (g *gen) layerMembers(l int) []int {
	var out []int
	for i, x := range g.layer {
		if x == l {
			out = append(out, i)
		}
	}
	return out
}

func (g *gen) work(bc int) program.Stmt {
	if bc < 1 {
		bc = 1
	}
	cyc := int64(math.Round(float64(bc) * g.k.CyclesPerBytecode))
	if cyc < 1 {
		cyc = 1
	}
	return program.Stmt{Work: &program.Work{Cycles: cyc, Bytecodes: int64(bc)}}
}

// blockSize draws a block size around the mean (uniform in [mean/2, 3·mean/2]).
func (g *gen) blockSize() int {
	m := g.k.BlockBytecodes
	return m/2 + g.r.IntN(m+1)
}

func (g *gen) callTo(callees []int) program.Stmt {
	if len(callees) >= 2 && g.k.Virtual > 0 && g.r.Float64() < g.k.Virtual {
		n := min(g.k.Receivers, len(callees))
		rec := map[string]float64{}
		start := g.r.IntN(len(callees))
		for j := 0; j < n; j++ {
			w := (1 - g.k.Skew) / float64(max(n-1, 1))
			if j == 0 {
				w = g.k.Skew
			}
			if w <= 0 {
				w = 1e-3
			}
			rec[g.names[callees[(start+j)%len(callees)]]] = w
		}
		return program.Stmt{VirtualCall: &program.VirtualCall{Receivers: rec}}
	}
	return program.Stmt{Call: &program.Call{Method: g.names[callees[g.r.IntN(len(callees))]]}}
}

func (g *gen) method(i int) program.Method {
	k := g.k
	m := program.Method{Class: g.class, Name: fmt.Sprintf("m%03d", i)}
	var body []program.Stmt
	large := k.LargeBlocks > 0 && g.r.Float64() < k.LargeBlocks
	if large {
		body = append(body, g.work(k.LargeBlockBytecodes))
	} else {
		body = append(body, g.work(g.blockSize()))
	}
	if g.r.Float64() < k.AllocRate {
		body = append(body, program.Stmt{Alloc: &program.Alloc{Bytes: int64(k.AllocBytes)}})
	}
	if g.leaf[i] {
		if g.r.Float64() < k.CountedLoops {
			// A poll-free counted loop: pure work, regular bytecode count.
			body = append(body, program.Stmt{Loop: &program.Loop{Trips: program.Const(int64(k.LoopTrips)),
				Body: []program.Stmt{g.work(g.blockSize())}}})
		}
		if k.LongLoops > 0 {
			n := int64(k.LongLoopTrips)
			long := program.Stmt{Loop: &program.Loop{Trips: &program.Dist{Kind: program.Uniform, A: n / 2, B: n + n/2},
				Body: []program.Stmt{g.work(g.blockSize())}}}
			body = append(body, program.Stmt{Branch: &program.Branch{Probability: k.LongLoops, Then: []program.Stmt{long}}})
		}
		if k.ExceptionRate > 0 {
			body = append(body, program.Stmt{Branch: &program.Branch{Probability: k.ExceptionRate,
				Then: []program.Stmt{{Throw: &program.Throw{Depth: 2}}}}})
		}
		body = append(body, g.work(g.blockSize()))
		m.Body = body
		return m
	}
	callees := g.layerMembers(g.layer[i] + 1)
	calls := 1 + g.r.IntN(2*k.FanOut)
	var calling []program.Stmt
	for c := 0; c < calls; c++ {
		calling = append(calling, g.callTo(callees), g.work(g.blockSize()))
	}
	if g.r.Float64() < k.PolledLoops {
		// A loop that keeps its poll: its body calls.
		body = append(body, program.Stmt{Loop: &program.Loop{Trips: program.Const(int64(max(k.LoopTrips/10, 2))), Body: calling}})
	} else {
		body = append(body, calling...)
	}
	if k.LockShare > 0 && g.r.Float64() < k.LockShare {
		body = []program.Stmt{{Block: &program.Block{Kind: program.BlockLock, Lock: "shared", Body: body}}}
	}
	m.Body = body
	return m
}

// driver adds main, the unit of work, the optional recursive descent and
// the thread structure.
func (g *gen) driver(prefix string) {
	k := g.k
	iters := k.Iterations
	roots := g.layerMembers(1)
	coverage := len(roots)
	if k.Input == "small" {
		coverage = max(1, len(roots)*3/5) // small inputs exercise less code
	}
	if k.Input == "large" {
		iters *= 5
	}
	var unit []program.Stmt
	phaseLen := max(1, coverage/k.Phases)
	for p := 0; p < k.Phases; p++ {
		lo := p * phaseLen
		hi := min(coverage, lo+phaseLen)
		if p == k.Phases-1 {
			hi = coverage
		}
		var calls []program.Stmt
		for _, r := range roots[lo:hi] {
			calls = append(calls, program.Stmt{Call: &program.Call{Method: g.names[r]}})
		}
		if len(calls) == 0 {
			continue
		}
		if k.Phases == 1 {
			unit = calls
			continue
		}
		// Phase p runs in its own stretch of the unit's loop.
		unit = append(unit, program.Stmt{Loop: &program.Loop{Trips: program.Const(int64(p + 1)), Body: calls}})
	}
	if k.Recursion > 0 {
		cont := k.RecursionContinue
		if cont == 0 {
			cont = 0.97
		}
		g.methods = append(g.methods, program.Method{Class: g.class, Name: "descend", RecursionLimit: k.Recursion, Body: []program.Stmt{
			g.work(g.blockSize()),
			{Branch: &program.Branch{Probability: cont, Then: []program.Stmt{{Call: &program.Call{Method: g.class + ".descend"}}}}},
			{Call: &program.Call{Method: g.names[roots[len(roots)-1]]}},
		}})
		unit = append([]program.Stmt{{Branch: &program.Branch{Probability: k.RecursionShare,
			Then: []program.Stmt{{Call: &program.Call{Method: g.class + ".descend"}}}}}}, unit...)
	}
	if k.BlockingShare > 0 {
		// I/O after each unit, long enough for the requested share on
		// average: share/(1−share) × the unit's estimated CPU time.
		est := g.cost(unit, map[string]float64{})
		mean := max(1, int64(est*k.BlockingShare/(1-k.BlockingShare)))
		unit = append(unit, program.Stmt{Block: &program.Block{Kind: program.BlockIO,
			Duration: &program.Dist{Kind: program.Exponential, A: mean}}})
	}
	g.methods = append(g.methods, program.Method{Class: g.class, Name: "unit", Body: unit})
	unitRef := g.class + ".unit"
	var main []program.Stmt
	switch {
	case k.Threads == 1:
		main = []program.Stmt{{Loop: &program.Loop{Trips: program.Const(int64(iters)), Body: []program.Stmt{{Call: &program.Call{Method: unitRef}}}}}}
	case k.ShortLived:
		// A thread per unit of work, Threads at a time.
		g.methods = append(g.methods, program.Method{Class: g.class, Name: "task", Body: []program.Stmt{{Call: &program.Call{Method: unitRef}}}})
		main = []program.Stmt{{Loop: &program.Loop{Trips: program.Const(int64(max(1, iters/k.Threads))), Body: []program.Stmt{
			{Spawn: &program.Spawn{Name: "task", Entry: g.class + ".task", Count: k.Threads, Join: true}}}}}}
	default:
		g.methods = append(g.methods, program.Method{Class: g.class, Name: "worker", Body: []program.Stmt{
			{Loop: &program.Loop{Trips: program.Const(int64(max(1, iters/k.Threads))), Body: []program.Stmt{{Call: &program.Call{Method: unitRef}}}}}}})
		main = []program.Stmt{{Spawn: &program.Spawn{Name: "worker", Entry: g.class + ".worker", Count: k.Threads, Join: true}}}
	}
	g.methods = append(g.methods, program.Method{Class: g.class, Name: "main", Body: main})
}

// cost estimates the compiled-code CPU time (ns at 1 GHz) of running
// body once: work, loops times their mean trips, branches weighted by
// their probability, calls (virtual: weighted by receiver) expanded.
func (g *gen) cost(body []program.Stmt, memo map[string]float64) float64 {
	var c float64
	for i := range body {
		st := &body[i]
		switch {
		case st.Work != nil:
			c += float64(st.Work.Cycles)
		case st.Loop != nil:
			c += st.Loop.Trips.Mean() * g.cost(st.Loop.Body, memo)
		case st.Branch != nil:
			p := st.Branch.Probability
			c += p*g.cost(st.Branch.Then, memo) + (1-p)*g.cost(st.Branch.Else, memo)
		case st.Block != nil && st.Block.Kind == program.BlockLock:
			c += g.cost(st.Block.Body, memo)
		case st.Call != nil:
			c += g.methodCost(st.Call.Method, memo)
		case st.VirtualCall != nil:
			var sum, w float64
			for ref, wt := range st.VirtualCall.Receivers {
				sum += wt * g.methodCost(ref, memo)
				w += wt
			}
			c += sum / w
		}
	}
	return c
}

func (g *gen) methodCost(ref string, memo map[string]float64) float64 {
	if v, ok := memo[ref]; ok {
		return v
	}
	memo[ref] = 0 // recursion: the recursive part is not estimated
	for i := range g.methods {
		if g.methods[i].FullName() == ref {
			memo[ref] = g.cost(g.methods[i].Body, memo) + 5
			break
		}
	}
	return memo[ref]
}
