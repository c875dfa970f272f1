package study

import (
	"fmt"
	"github.com/profsim/profsim/param"
	"maps"
	"strings"

	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

// whaleyIntervals are the PCCT periods of the passive runs: the paper's
// fastest (1 ms) and the sampler's default (10 ms).
var whaleyIntervals = []sim.Time{sim.Millisecond, 10 * sim.Millisecond}

// w4Limits are the depth limits of W4, at 1 ms (ten times the samples of
// 10 ms, so the misattached share is measured on ≈ 300 samples a run).
// 512 exceeds every stand-in's stack, so it must misattach nothing.
var w4Limits = []int{4, 8, 16, 32, 64, 128, 256, 512}

// whaleyBench is a stand-in of the passive runs and its run length.
type whaleyBench struct {
	name string
	d    sim.Time
}

// whaleySetup: the stand-ins of the passive runs (W1, W3, W4). deepcall is
// the paper's deep call chain, jess a shallow SPECjvm98 stand-in, kiama
// recursive descent deeper than 256 frames. Only in the full version:
// jython9, javac (its exact CCT makes a run ten times slower) and scalac
// (≈ 290 frames deep; building the truth profile of its deep contexts
// takes most of a run, so it runs shorter).
func whaleySetup(o Options) []whaleyBench {
	if o.Full {
		return []whaleyBench{{"deepcall", sim.Second}, {"jess", sim.Second}, {"jython9", sim.Second},
			{"javac", sim.Second}, {"kiama", sim.Second}, {"scalac", 300 * sim.Millisecond}}
	}
	return []whaleyBench{{"deepcall", 300 * sim.Millisecond}, {"jess", 300 * sim.Millisecond}, {"kiama", 300 * sim.Millisecond}}
}

// whaleyNames lists the passive runs' stand-ins in order.
func whaleyNames(o Options) []string {
	var out []string
	for _, b := range whaleySetup(o) {
		out = append(out, b.name)
	}
	return out
}

// whaleyRunsNote describes the passive runs for a table's notes.
func whaleyRunsNote(o Options) string {
	var parts []string
	for _, b := range whaleySetup(o) {
		parts = append(parts, fmt.Sprintf("%s %v", b.name, b.d))
	}
	return fmt.Sprintf("Passive runs (%s; a run ends earlier if the program does), seeds %v, default VM and JIT", strings.Join(parts, ", "), o.Seeds)
}

// whaleyRun is what one passive run leaves for W1, W3 and W4; slices
// indexed like whaleyIntervals or w4Limits.
type whaleyRun struct {
	Taken []int64
	// Examined is frames Examined per sample with marker bits; Depth the
	// same for full walks, i.e. the mean stack Depth at the samples.
	Examined, Depth []float64
	// Identical: the marker-bit PCCT has exactly the contexts and counts
	// of the one built from full walks on the same execution.
	Identical []bool
	PCCTNodes []float64
	// DCT: calls executed (nodes of the dynamic call tree); CCT: nodes of
	// the exact CCT; Folded: the CCT with recursion Folded into back edges
	// (Ammons et al.'s); MaxDepth: the deepest context.
	DCT, CCT, Folded, MaxDepth int64
	// Misattached is the Limited PCCT's share of samples at contexts the
	// full walks did not give (misattachedShare); Limited the share of
	// walks that hit the limit; exact whether the two trees are equal.
	Misattached, Limited []float64
	Exact                []bool
}

func pcctName(kind string, iv sim.Time) string { return fmt.Sprintf("%s-%v", kind, iv) }

func limitName(l int) string { return fmt.Sprintf("limit-%d", l) }

// whaleyPassive runs every (stand-in, seed) once with all the PCCTs W1,
// W3 and W4 need watching the same execution — passive samplers see
// identical stacks at identical times. Result: stand-in → runs in seed
// order.
func whaleyPassive(o Options) (map[string][]*whaleyRun, error) {
	var keys []whaleyKey
	for _, b := range whaleySetup(o) {
		for _, seed := range o.Seeds {
			keys = append(keys, whaleyKey{b.name, seed, b.d})
		}
	}
	runs, err := runAll(o, keys)
	if err != nil {
		return nil, err
	}
	out := map[string][]*whaleyRun{}
	for i, k := range keys {
		out[k.bench] = append(out[k.bench], runs[i])
	}
	return out, nil
}

// whaleyKey is one run of bench for d with every PCCT W1, W3 and W4 read.
type whaleyKey struct {
	bench string
	seed  uint64
	d     sim.Time
}

func (k whaleyKey) run() (*whaleyRun, error) { return whaleyOnce(k.bench, k.seed, k.d) }

// whaleyClock: Whaley's experiments run their PCCT samplers on a perfect
// clock (jitter=0). His prototype's timer (IBM Developer Kit 1.3 on
// Windows and AIX, 2000) is not one tools/timer-jitter measures, and
// the comparisons need equal tick times: W1 and W4 compare samplers on one
// execution tick for tick (each sampler draws its jitter from its own
// stream), W2 pairs the two profilers' runs by seed. At the measured
// jitter of a sleeping thread (samplers.SleepJitter) W2's pairs do not
// share their ticks (jbb: PCCT − hot methods +0.003 ± 0.014 points at
// 10 ms), and at 100 ms, 8 samples a data set, one stand-in's precision
// follows the draws (jess, hot methods: 0.50 ± 0.54 or 0.86 ± 0.11 for
// two sets of draws).

func whaleyOnce(bench string, seed uint64, d sim.Time) (*whaleyRun, error) {
	s := paperSpec(bench, seed, d)
	// A perfect clock (whaleyClock): the samplers compared here (marked
	// vs full walks, depth-limited vs full) must take the same samples.
	for _, iv := range whaleyIntervals {
		f := param.FormatDuration(iv)
		s.Samplers = append(s.Samplers,
			fmt.Sprintf("pcct:%s,interval=%s,jitter=0", pcctName("pcct", iv), f),
			fmt.Sprintf("pcct:%s,interval=%s,jitter=0,full_walk=true", pcctName("full", iv), f))
	}
	for _, l := range w4Limits {
		s.Samplers = append(s.Samplers, fmt.Sprintf("pcct:%s,interval=1ms,jitter=0,depth_limit=%d", limitName(l), l))
	}
	out, err := runSpec(s)
	if err != nil {
		return nil, fmt.Errorf("%s seed %d: %w", bench, seed, err)
	}
	r := &whaleyRun{}
	for _, iv := range whaleyIntervals {
		m, f := "pcct:"+pcctName("pcct", iv), "pcct:"+pcctName("full", iv)
		r.Taken = append(r.Taken, out.Costs[m].Taken)
		r.Examined = append(r.Examined, out.Costs[m].Measures[samplers.FramesExaminedPerSample])
		r.Depth = append(r.Depth, out.Costs[f].Measures[samplers.FramesExaminedPerSample])
		r.Identical = append(r.Identical, maps.Equal(out.Profiles[m].ContextWeights(), out.Profiles[f].ContextWeights()))
		r.PCCTNodes = append(r.PCCTNodes, out.Costs[m].Measures[samplers.PCCTNodes])
	}
	full := out.Profiles["pcct:"+pcctName("full", sim.Millisecond)].ContextWeights()
	for _, l := range w4Limits {
		n := "pcct:" + limitName(l)
		lw := out.Profiles[n].ContextWeights()
		r.Misattached = append(r.Misattached, misattachedShare(full, lw))
		r.Limited = append(r.Limited, out.Costs[n].Measures[samplers.DepthLimitedSamples]/float64(max(out.Costs[n].Taken, 1)))
		r.Exact = append(r.Exact, maps.Equal(full, lw))
	}
	nodes := out.Result.Truth.Nodes()
	r.CCT = int64(len(nodes) - 1)
	depth := make([]int64, len(nodes))
	for i := 1; i < len(nodes); i++ {
		r.DCT += nodes[i].Calls
		depth[i] = depth[nodes[i].Parent] + 1 // a parent is created before its children
		r.MaxDepth = max(r.MaxDepth, depth[i])
	}
	r.Folded = foldedCCTSize(nodes)
	return r, nil
}

// misattachedShare is the share of the limited tree's weight at contexts
// beyond what the full walks put there: Σ max(0, limited − full) / Σ
// limited, i.e. 1 − overlap when both took the same samples, but exactly
// 0 for identical trees (weights are whole samples × the period).
func misattachedShare(full, limited map[string]float64) float64 {
	var over, total float64
	for k, w := range limited {
		total += w
		over += max(0, w-full[k])
	}
	if total == 0 {
		return 0
	}
	return over / total
}

// foldedCCTSize is the node count of the CCT as Ammons, Ball and Larus
// build it and Whaley compares with: a call to a method already on the
// context's path is a back edge to that ancestor, not a new node. The
// exact CCT (and the PCCT) keep recursive contexts apart.
func foldedCCTSize(nodes []sim.CCTNode) int64 {
	type fnode struct {
		method int32
		parent int
	}
	f := []fnode{{method: -1, parent: -1}}
	kids := map[[2]int]int{} // (folded parent, method) → folded node
	of := make([]int, len(nodes))
	for i := 1; i < len(nodes); i++ {
		p, m := of[nodes[i].Parent], nodes[i].Method
		a := p
		for a > 0 && f[a].method != m {
			a = f[a].parent
		}
		if a > 0 {
			of[i] = a
			continue
		}
		k := [2]int{p, int(m)}
		c, ok := kids[k]
		if !ok {
			f = append(f, fnode{method: m, parent: p})
			c = len(f) - 1
			kids[k] = c
		}
		of[i] = c
	}
	return int64(len(f) - 1)
}
