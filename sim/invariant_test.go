package sim

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/profsim/profsim/program"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// invariantsN is how many generated programs TestConservationLaws runs:
// 10 000 in well under a minute; more with -invariants.n (the long
// version: go test ./sim -run TestConservationLaws -invariants.n 1000000).
var invariantsN = flag.Int("invariants.n", 10000, "generated programs TestConservationLaws checks")

// invariantsBudget is the wall time the default 10 000 programs must fit
// in (issue 14: "in under a minute"); the machine is shared, so the
// programs are sized to take a fraction of it.
const invariantsBudget = time.Minute

// maxSplitDivergence pins the documented divergences from exact horizon
// splitting with several CPUs: when they were documented, 457 of the
// 75 051 multi-CPU runs among the first 100 000 generated programs
// (0.61 %) differed split, 56 of 7529 among the first 10 000 (0.74 %);
// twice the first share fails.
const maxSplitDivergence = 0.0122

// TestConservationLaws runs many small generated programs — every
// statement kind, nested, on random scheduler and cost settings — and
// checks the model's conservation laws on each:
//
//   - self time = application CPU: every ns a thread runs is charged to
//     exactly one (context, line) of the ground truth;
//   - a thread's state times sum to its lifetime, without gap or
//     overlap: from its start to its end, or to the run's end if it is
//     alive then — or a little later, if a context switch or an
//     indivisible cost carried its own clock past the end — and nothing
//     if it never started;
//   - horizon splitting is exact: stopping the run at random instants
//     (RunUntil) changes nothing in the truth, the threads, the incidents
//     or the end — on one CPU, always. With several CPUs two documented
//     divergences (docs/MODEL.md, "Time, threads and the
//     scheduling loop") let a small share of runs differ: a stop that a
//     context switch or an indivisible cost carried past a round's
//     horizon is handled before the other CPUs have caught up with it,
//     and a daemon thread may run ahead of the last non-daemon thread's
//     end. Their share is pinned (maxSplitDivergence).
func TestConservationLaws(t *testing.T) {
	n := *invariantsN
	start := time.Now()
	failures, multi, diverged := 0, 0, 0
	for seed := uint64(0); seed < uint64(n) && failures < 5; seed++ {
		cpus, splitErr, err := checkConservation(seed)
		switch {
		case err != nil:
			t.Errorf("program %d: %v", seed, err)
			failures++
		case splitErr != nil && cpus == 1:
			t.Errorf("program %d (one CPU): %v", seed, splitErr)
			failures++
		}
		if cpus > 1 {
			multi++
			if splitErr != nil {
				diverged++
			}
		}
	}
	elapsed := time.Since(start)
	share := float64(diverged) / float64(max(multi, 1))
	t.Logf("%d programs in %v; split runs differed on %d of %d with several CPUs (%.2f %%)", n, elapsed, diverged, multi, 100*share)
	assert.LessOrEqual(t, share, maxSplitDivergence, "documented divergences from exact splitting")
	if n == 10000 {
		assert.Less(t, elapsed, invariantsBudget, "10 000 programs")
	}
}

// checkConservation generates program seed, runs it whole and split,
// and returns its CPUs, how the split run differs from the whole one, and
// the first conservation law either breaks.
func checkConservation(seed uint64) (cpus int, splitErr, err error) {
	r := rand.New(rand.NewPCG(seed, 0x1a7))
	p := genSmallProgram(r)
	if err := p.Validate(); err != nil {
		return 0, nil, fmt.Errorf("generated an invalid program: %w", err)
	}
	cfg := genConfig(r)
	img, err := NewImage(p, cfg.Cost)
	if err != nil {
		return 0, nil, err
	}
	whole, err := New(img, cfg)
	if err != nil {
		return 0, nil, err
	}
	wr := whole.Run()
	if err := whole.Err(); err != nil {
		return 0, nil, fmt.Errorf("run stopped: %w", err)
	}
	if err := checkRun(whole, wr, cfg); err != nil {
		return 0, nil, err
	}
	// The same run stopped at random instants.
	sv, err := New(img, cfg)
	if err != nil {
		return 0, nil, err
	}
	for at := Time(0); sv.RunUntil(at); at += Time(1 + r.Int64N(int64(cfg.Duration/8))) {
	}
	sr := sv.Result()
	if err := checkRun(sv, sr, cfg); err != nil {
		return 0, nil, fmt.Errorf("split: %w", err)
	}
	return cfg.CPUs, compareRuns(img, wr, sr), nil
}

// checkRun checks the laws of one run.
func checkRun(vm *VM, r *Result, cfg Config) error {
	if r.AppCPU() != r.Truth.SelfTotal() {
		return fmt.Errorf("self time %v ≠ application CPU %v", r.Truth.SelfTotal(), r.AppCPU())
	}
	return checkStateTimes(vm, r, daemonRanAtTheEnd(vm, cfg))
}

// daemonRanAtTheEnd reports a run that its last non-daemon thread ended
// while a daemon thread was running.
func daemonRanAtTheEnd(vm *VM, cfg Config) bool {
	if vm.end >= cfg.Duration {
		return false
	}
	for _, t := range vm.threads {
		if t.Daemon && t.state == Running {
			return true
		}
	}
	return false
}

// compareRuns returns how split run sr differs from whole run wr.
func compareRuns(img *Image, wr, sr *Result) error {
	switch {
	case wr.End != sr.End:
		return fmt.Errorf("split run ends at %v, whole at %v", sr.End, wr.End)
	case !sameTree(wr.Truth.Nodes(), sr.Truth.Nodes()):
		return fmt.Errorf("split run's calling context tree differs")
	case fmt.Sprint(wr.Threads) != fmt.Sprint(sr.Threads):
		return fmt.Errorf("split run's threads differ:\n%v\n%v", wr.Threads, sr.Threads)
	case fmt.Sprint(wr.Incidents) != fmt.Sprint(sr.Incidents):
		return fmt.Errorf("split run's incidents differ:\n%v\n%v", wr.Incidents, sr.Incidents)
	case wr.Truth.Exceptions != sr.Truth.Exceptions || wr.Truth.Uncaught != sr.Truth.Uncaught:
		return fmt.Errorf("split run's exceptions differ")
	}
	for i := range img.Edges {
		if wr.Truth.EdgeCount(i) != sr.Truth.EdgeCount(i) {
			return fmt.Errorf("split run's call edge %d count differs", i)
		}
	}
	return nil
}

// maxOverrun bounds how far past the run's end a thread's own clock may
// be when the run ends: a context switch it was dispatched with, then the
// largest indivisible cost (a throw unwinding the deepest stack, a
// monitor, an allocation, a poll, a call).
func maxOverrun(cfg Config) Time {
	c := cfg.Cost
	return cfg.ContextSwitch + Time(c.Nanos(c.ThrowCycles)+int64(cfg.MaxStackDepth)*c.Nanos(c.UnwindCycles)+
		c.Nanos(c.MonitorCycles)+c.Nanos(c.AllocCycles)+c.Nanos(c.PollCycles)+c.Nanos(c.CallCycles))
}

// sameTree reports whether two calling context trees hold the same
// contexts with the same values. Node numbers are creation order, which
// depends on which of two threads entering new contexts in one round is
// advanced first: not part of the result.
func sameTree(a, b []CCTNode) bool {
	if len(a) != len(b) {
		return false
	}
	canon := func(nodes []CCTNode) map[string]CCTNode {
		path := make([]string, len(nodes))
		out := make(map[string]CCTNode, len(nodes))
		for i, n := range nodes { // a parent precedes its children
			if n.Parent >= 0 {
				path[i] = path[n.Parent] + "/" + fmt.Sprint(n.Method)
			}
			n.ID, n.Parent = 0, 0
			out[path[i]] = n
		}
		return out
	}
	ca, cb := canon(a), canon(b)
	for k, v := range ca {
		if cb[k] != v {
			return false
		}
	}
	return len(ca) == len(cb)
}

// checkStateTimes checks that each thread's state times add up to its
// lifetime; with ranAhead (the documented divergence) a daemon alive at
// the end may have run ahead of it by any amount.
func checkStateTimes(vm *VM, r *Result, ranAhead bool) error {
	for i, th := range r.Threads {
		var sum Time
		for _, d := range th.States {
			if d < 0 {
				return fmt.Errorf("thread %s: negative state time %v", th.Name, th.States)
			}
			sum += d
		}
		t := vm.threads[i]
		var want Time
		switch t.state {
		case NotStarted:
			want = 0
		case Terminated:
			want = th.End - th.Start
		default:
			// Alive: to the run's end, or to its own last instant past it.
			end := t.stateSince
			if end < r.End || end > r.End+maxOverrun(vm.cfg) && !(ranAhead && t.Daemon) {
				return fmt.Errorf("thread %s (%v): its states end at %v, the run at %v", th.Name, t.state, end, r.End)
			}
			want = end - th.Start
		}
		if sum != want {
			return fmt.Errorf("thread %s (%v): states sum to %v, its lifetime is %v (%v)", th.Name, t.state, sum, want, th.States)
		}
	}
	return nil
}

// genConfig draws scheduler and cost settings: the laws hold for any.
func genConfig(r *rand.Rand) Config {
	cfg := DefaultConfig()
	cfg.Seed = r.Uint64()
	cfg.CPUs = 1 + r.IntN(4)
	cfg.Duration = Time(50_000 + r.Int64N(450_000))
	cfg.TimeSlice = Time(5_000 + r.Int64N(200_000))
	cfg.ContextSwitch = []Time{0, 500, 5000}[r.IntN(3)]
	cfg.MaxStep = []Time{0, Microsecond, 100 * Microsecond}[r.IntN(3)]
	cfg.MaxStackDepth = 4 + r.IntN(60)
	if r.IntN(2) == 0 {
		c := &cfg.Cost
		c.InterpFactor = 1 + r.Int64N(10)
		c.CallCycles = r.Int64N(10)
		c.PollCycles = r.Int64N(3)
		c.AllocCycles = r.Int64N(40)
		c.ThrowCycles = r.Int64N(2000)
		c.UnwindCycles = r.Int64N(200)
		c.MonitorCycles = r.Int64N(40)
		c.SpeedPercent = 25 + r.Int64N(300)
	}
	return cfg
}

// genSmallProgram draws a small valid program using every statement
// kind: method i calls and spawns only methods after it (some of them
// recursive within a limit), threads start at random times, some daemon.
func genSmallProgram(r *rand.Rand) *program.Program {
	nm := 2 + r.IntN(5)
	name := func(i int) string { return fmt.Sprintf("C%d.m%d", i%2, i) }
	p := &program.Program{Name: "inv"}
	var body func(i, depth int) []program.Stmt
	dist := func(time bool) *program.Dist {
		switch k := r.IntN(4); {
		case k == 0 || !time && k >= 2:
			return program.Const(r.Int64N(6))
		case k == 1:
			a := r.Int64N(5)
			return &program.Dist{Kind: program.Uniform, A: a, B: a + r.Int64N(5)}
		case k == 2:
			return &program.Dist{Kind: program.Exponential, A: 1 + r.Int64N(20_000)}
		default:
			return &program.Dist{Kind: program.Normal, A: r.Int64N(20_000), B: r.Int64N(10_000)}
		}
	}
	later := func(i int) string { return name(i + 1 + r.IntN(nm-i-1)) }
	body = func(i, depth int) []program.Stmt {
		var out []program.Stmt
		for k, n := 0, 1+r.IntN(4); k < n; k++ {
			var s program.Stmt
			switch c := r.IntN(16); {
			case c < 4 || depth >= 3:
				s.Work = &program.Work{Cycles: 1 + r.Int64N(400), Bytecodes: r.Int64N(60)}
			case c == 4 && i+1 < nm:
				s.Call = &program.Call{Method: later(i)}
			case c == 5 && i+1 < nm:
				s.VirtualCall = &program.VirtualCall{Receivers: map[string]float64{later(i): 0.1 + r.Float64(), name(nm - 1): r.Float64() + 0.01}}
			case c == 6:
				s.Loop = &program.Loop{Trips: dist(false), Body: body(i, depth+1)}
			case c == 7:
				s.Branch = &program.Branch{Probability: []float64{0, 1, r.Float64()}[r.IntN(3)], Then: body(i, depth+1)}
				if r.IntN(2) == 0 {
					s.Branch.Else = body(i, depth+1)
				}
			case c == 8:
				s.Alloc = &program.Alloc{Bytes: 1 + r.Int64N(1<<20)}
			case c == 9:
				s.Block = &program.Block{Kind: program.BlockLock, Lock: fmt.Sprintf("L%d", r.IntN(2)), Body: body(i, depth+1)}
			case c == 10:
				s.Block = &program.Block{Kind: []string{program.BlockSleep, program.BlockIO}[r.IntN(2)], Duration: dist(true)}
			case c == 11 && i+1 < nm && depth == 0:
				s.Spawn = &program.Spawn{Name: "s", Entry: later(i), Count: 1 + r.IntN(2), Join: r.IntN(2) == 0, Daemon: r.IntN(3) == 0}
			case c == 12:
				s.Throw = &program.Throw{Depth: r.IntN(5)}
			case c == 13 && i == 0:
				s.Call = &program.Call{Method: name(0)} // bounded recursion
			default:
				s.Native = &program.Native{Cycles: 1 + r.Int64N(300)}
			}
			out = append(out, s)
		}
		return out
	}
	for i := 0; i < nm; i++ {
		m := program.Method{Class: fmt.Sprintf("C%d", i%2), Name: fmt.Sprintf("m%d", i), Body: body(i, 0)}
		if i == 0 {
			m.RecursionLimit = 1 + r.IntN(4)
		}
		p.Methods = append(p.Methods, m)
	}
	for k, n := 0, 1+r.IntN(3); k < n; k++ {
		p.Threads = append(p.Threads, program.Thread{Name: fmt.Sprintf("t%d", k), Entry: name(r.IntN(nm)),
			Count: 1 + r.IntN(3), Start: program.Duration(r.Int64N(50_000)), Daemon: k > 0 && r.IntN(3) == 0})
	}
	return p
}

// The generator is seeded: the same seed, the same program.
func TestGeneratedProgramsAreReproducible(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		a := genSmallProgram(rand.New(rand.NewPCG(seed, 0x1a7)))
		b := genSmallProgram(rand.New(rand.NewPCG(seed, 0x1a7)))
		require.NoError(t, a.Validate())
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		assert.Equal(t, string(ja), string(jb))
	}
}
