package study

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
)

// Characteristics are a workload's measured properties from one
// ground-truth run: what the stand-ins' documentation promises.
type Characteristics struct {
	Name string
	// MethodsExecuted counts methods called at least once.
	MethodsExecuted int
	// MaxDepth and MeanDepth are stack depths; the mean is weighted by CPU
	// time.
	MaxDepth  int
	MeanDepth float64
	// Contexts counts the calling contexts of the exact CCT.
	Contexts int
	// TopShare and Top10Share are the CPU shares of the hottest method and
	// of the ten hottest (self time): how concentrated the profile is.
	TopShare, Top10Share float64
	// CallsPerSecond is calls per simulated second.
	CallsPerSecond float64
	// PollFreeShare is the share of CPU time spent in methods whose
	// compiled code has a loop without a poll (a counted loop).
	PollFreeShare float64
	// Threads counts application threads created; Blocking is the time
	// they spent blocked (I/O, sleep) or waiting for a monitor, relative to
	// that plus their CPU time (waiting for a CPU is not counted).
	Threads  int
	Blocking float64
	// ExceptionsPerSecond, per simulated second.
	ExceptionsPerSecond float64
	// LargestBlock is the largest basic block in bytecodes.
	LargestBlock int64
	// Simulated is how long the run lasted (the program may end first).
	Simulated sim.Time
}

// Measure runs workload name for d with the default VM and JIT and
// measures it.
func Measure(name string, d sim.Time) (Characteristics, error) {
	s := paperSpec(name, sim.DefaultConfig().Seed, d)
	out, err := runSpec(s, func(cfg *harness.Config) {
		cfg.NoTruthProfile = true // the exact CCT is all it reads
	})
	if err != nil {
		return Characteristics{}, err
	}
	r := out.Result
	img := r.Image
	c := Characteristics{Name: name, Simulated: r.End}
	nodes := r.Truth.Nodes()
	depth := make([]int, len(nodes))
	called := map[int32]bool{}
	var selfSum, depthSum, calls float64
	pollFree := map[int32]bool{}
	for m := range img.Methods {
		code := img.Base[m]
		if out.JIT != nil {
			code = out.JIT.CompiledCode(int32(m))
		}
		pollFree[int32(m)] = hasPollFreeLoop(code)
		for _, in := range img.Base[m].Instrs {
			if in.Op == sim.OpWork {
				c.LargestBlock = max(c.LargestBlock, in.Bytecodes)
			}
		}
	}
	var pollFreeSelf float64
	for i, n := range nodes {
		if i == 0 {
			continue
		}
		depth[i] = depth[n.Parent] + 1
		c.MaxDepth = max(c.MaxDepth, depth[i])
		if n.Calls > 0 {
			called[n.Method] = true
		}
		calls += float64(n.Calls)
		selfSum += float64(n.Self)
		depthSum += float64(n.Self) * float64(depth[i])
		if pollFree[n.Method] {
			pollFreeSelf += float64(n.Self)
		}
	}
	c.MethodsExecuted = len(called)
	c.Contexts = len(nodes) - 1
	secs := r.End.Seconds()
	if selfSum > 0 {
		c.MeanDepth = depthSum / selfSum
		c.PollFreeShare = pollFreeSelf / selfSum
		c.TopShare, c.Top10Share = topShares(nodes, selfSum)
	}
	if secs > 0 {
		c.CallsPerSecond = calls / secs
		c.ExceptionsPerSecond = float64(r.Truth.Exceptions) / secs
	}
	var waiting, alive sim.Time
	for _, th := range r.Threads {
		if th.Service {
			continue
		}
		c.Threads++
		w := th.States[sim.Blocked] + th.States[sim.LockWait]
		waiting += w
		alive += w + th.States[sim.Running]
	}
	if alive > 0 {
		c.Blocking = float64(waiting) / float64(alive)
	}
	return c, nil
}

// topShares returns the self-time shares of the hottest method and of
// the ten hottest, over the CCT's nodes (total self time selfSum).
func topShares(nodes []sim.CCTNode, selfSum float64) (top, top10 float64) {
	per := map[int32]float64{}
	for _, n := range nodes[1:] {
		per[n.Method] += float64(n.Self)
	}
	selfs := make([]float64, 0, len(per))
	for _, v := range per {
		selfs = append(selfs, v)
	}
	slices.SortFunc(selfs, func(a, b float64) int { return cmp.Compare(b, a) })
	for i, v := range selfs {
		if i == 0 {
			top = v / selfSum
		}
		if i < 10 {
			top10 += v / selfSum
		}
	}
	return top, top10
}

// hasPollFreeLoop reports a loop whose back-edge does not poll, in the
// code or anything inlined into it.
func hasPollFreeLoop(c *sim.Code) bool {
	if c == nil {
		return false
	}
	for _, in := range c.Instrs {
		if in.Op == sim.OpLoopBack && in.Flags&sim.FlagPoll == 0 && in.StripLength() == 0 {
			return true
		}
	}
	for _, vs := range c.Inline {
		for _, v := range vs {
			if hasPollFreeLoop(v) {
				return true
			}
		}
	}
	return false
}

// CharacteristicsTable measures the named workloads (all built-ins when
// names is empty).
func CharacteristicsTable(names []string, d sim.Time) (*Table, []Characteristics, error) {
	if len(names) == 0 {
		names = workloads.Names()
	}
	t := &Table{Title: fmt.Sprintf("Measured characteristics (default VM and JIT, seed 1, %v simulated)", d),
		Columns: []string{"workload", "methods executed", "contexts", "max depth", "mean depth", "hottest method", "10 hottest", "calls/s", "CPU in poll-free loops", "threads", "blocking", "exceptions/s", "largest block", "ran"}}
	var rows []Characteristics
	for _, n := range names {
		c, err := Measure(n, d)
		if err != nil {
			return nil, nil, err
		}
		rows = append(rows, c)
		t.AddRow(n, c.MethodsExecuted, c.Contexts, c.MaxDepth, fmt.Sprintf("%.1f", c.MeanDepth),
			fmt.Sprintf("%.0f %%", 100*c.TopShare), fmt.Sprintf("%.0f %%", 100*c.Top10Share), fmt.Sprintf("%.3g", c.CallsPerSecond),
			fmt.Sprintf("%.0f %%", 100*c.PollFreeShare), c.Threads, fmt.Sprintf("%.0f %%", 100*c.Blocking),
			fmt.Sprintf("%.3g", c.ExceptionsPerSecond), c.LargestBlock, c.Simulated.String())
	}
	t.Notes = append(t.Notes, "Generated by `profsim workloads --measure`; do not edit by hand. \"CPU in poll-free loops\" is the CPU share of methods whose compiled code (inlined callees included) has a loop without a poll; \"hottest method\" and \"10 hottest\" are the self-time shares of the hottest method and of the ten hottest.")
	return t, rows, nil
}
