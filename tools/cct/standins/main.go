// Command standins prints the calling contexts of profsim's stand-ins as
// a run goes on: the same count as the cct agent's for a real program
// (tools/cct), the nodes of the exact calling-context tree (sim.Truth)
// without its root.
//
//	go run ./tools/cct/standins [-until 60s] [-cpu 300s] NAME...
//
// Each stand-in runs under profsim run's default VM (hotspot17) with the
// ground truth on, no sampler and no truth profile (harness.Build,
// RunUntil in steps of 1, 2, 5, 10, 20, 30, 60 s ... up to -until); a
// line per step: simulated time, contexts, distinct methods reached,
// the deepest context, the Go heap and the process's CPU time so far. A
// stand-in stops at its program's end, at the memory limit
// (sim.DefaultLimits) or once its CPU time passes -cpu. A first line
// gives the paths of the program's call graph from its threads' entries
// (bound), the contexts a run approaches however long it runs.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"time"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
)

func main() {
	until := flag.Duration("until", 60*time.Second, "simulated time to run each stand-in to")
	cpu := flag.Duration("cpu", 300*time.Second, "stop a stand-in once the process's CPU time grew by this much")
	flag.Parse()
	// Bad input (no stand-in, an unknown one, a bound that is not
	// positive) is refused before anything runs: exit status 2.
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "standins: name one or more stand-ins (profsim workloads lists them)")
		os.Exit(2)
	}
	if *until <= 0 || *cpu <= 0 {
		fmt.Fprintf(os.Stderr, "standins: -until %v, -cpu %v: both must be positive\n", *until, *cpu)
		os.Exit(2)
	}
	for _, name := range flag.Args() {
		if _, err := workloads.Get(name); err != nil {
			fmt.Fprintln(os.Stderr, "standins:", err)
			os.Exit(2)
		}
	}
	for _, name := range flag.Args() {
		if err := measure(name, sim.Time(until.Nanoseconds()), *cpu); err != nil {
			fmt.Fprintln(os.Stderr, "standins:", err)
			os.Exit(1)
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func measure(name string, until sim.Time, budget time.Duration) error {
	p, err := workloads.Get(name)
	if err != nil {
		return err
	}
	cfg := harness.MustPresetConfig("hotspot17")
	cfg.Sim.Duration = until
	cfg.NoTruthProfile = true
	rig, err := harness.Build(p, cfg)
	if err != nil {
		return err
	}
	fmt.Printf("%s\tbound %s\n", name, bound(p))
	start := cpuTime()
	var ms runtime.MemStats
	var steps []sim.Time
	for _, s := range []float64{0.1, 0.5, 1, 2, 5, 10, 20, 30, 40, 50, 60, 90, 120, 180, 300} {
		if at := sim.Time(s * float64(sim.Second)); at < until {
			steps = append(steps, at)
		}
	}
	for _, at := range append(steps, until) {
		s := float64(at) / float64(sim.Second)
		more := rig.RunUntil(at)
		runtime.ReadMemStats(&ms)
		tr := rig.VM().Truth()
		n := tr.NodeCount()
		depth := make([]int32, n)
		seen := map[int32]bool{}
		deepest := int32(0)
		for i := int32(1); int(i) < n; i++ {
			parent, m := tr.NodeLink(i)
			depth[i] = depth[parent] + 1
			deepest = max(deepest, depth[i])
			seen[m] = true
		}
		end := fmt.Sprintf("%.1f s", s)
		now := float64(rig.VM().Now()) / float64(sim.Second)
		switch {
		case rig.Err() != nil:
			end = fmt.Sprintf("%.2f s (stopped: %v)", now, rig.Err())
		case !more && rig.VM().Now() < at:
			end = fmt.Sprintf("%.2f s (its end)", now)
		}
		used := cpuTime() - start
		fmt.Printf("%s\t%s\tcontexts %d\tmethods %d/%d\tdeepest %d\theap %d MB\tcpu %.1f s\n",
			name, end, n-1, len(seen), len(p.Methods), deepest, ms.HeapAlloc>>20, used.Seconds())
		if !more {
			break
		}
		if used > budget {
			fmt.Printf("%s\tstopped: CPU budget %v spent\n", name, budget)
			break
		}
	}
	return nil
}

// bound counts the paths of p's call graph from its threads' entries and
// the methods they spawn: the calling contexts of a run that executes
// every call site with every receiver. A method that calls itself under
// a RecursionLimit counts once per depth; any other cycle makes it
// "recursive".
func bound(p *program.Program) string {
	byName := map[string]*program.Method{}
	for i := range p.Methods {
		byName[p.Methods[i].FullName()] = &p.Methods[i]
	}
	const onStack = -1
	memo := map[string]float64{}
	entries := map[string]bool{}
	var paths func(name string) float64
	var callees func(body []program.Stmt, out map[string]bool)
	callees = func(body []program.Stmt, out map[string]bool) {
		for _, s := range body {
			switch {
			case s.Call != nil:
				out[s.Call.Method] = true
			case s.VirtualCall != nil:
				for r := range s.VirtualCall.Receivers {
					out[r] = true
				}
			case s.Loop != nil:
				callees(s.Loop.Body, out)
			case s.Branch != nil:
				callees(s.Branch.Then, out)
				callees(s.Branch.Else, out)
			case s.Block != nil:
				callees(s.Block.Body, out)
			case s.Spawn != nil:
				entries[s.Spawn.Entry] = true
			}
		}
	}
	paths = func(name string) float64 {
		if n, ok := memo[name]; ok {
			return n
		}
		memo[name] = onStack
		m := byName[name]
		n := 1.0
		if m != nil {
			out := map[string]bool{}
			callees(m.Body, out)
			self := out[name] && m.RecursionLimit > 0
			delete(out, name)
			for c := range out {
				k := paths(c)
				if k < 0 {
					return onStack
				}
				n += k
			}
			if self {
				// A method that calls itself directly, RecursionLimit
				// frames deep at most: each depth its own copy.
				n *= float64(m.RecursionLimit)
			}
		}
		memo[name] = n
		return n
	}
	for _, t := range p.Threads {
		entries[t.Entry] = true
	}
	total, done := 0.0, map[string]bool{}
	for len(done) < len(entries) {
		for e := range entries {
			if done[e] {
				continue
			}
			done[e] = true
			n := paths(e)
			if n < 0 {
				return "recursive"
			}
			total += n
		}
	}
	return fmt.Sprintf("%.0f", total)
}
