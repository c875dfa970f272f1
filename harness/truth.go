package harness

import (
	"slices"
	"strings"

	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

// TruthProfile returns the ground truth of a run of img as a profile:
// every (CCT node, source line) with self time becomes one sample (Count =
// Weight = its ns: the limit of a sampler with a 1 ns period) whose leaf
// frame carries the line (Instr.Line, as an exact sampler records it),
// plus every executed call edge with its exact count. Callers' frames
// have Line 0: a CCT node does not tell which call site of its parent
// entered it. sim.VM.CheckProfile tells beforehand whether it fits the
// run's memory limit.
func TruthProfile(t *sim.Truth, img *sim.Image) *profile.Profile {
	b := profile.NewBuilder("truth", "nanoseconds", 0)
	fn := samplers.Functions(b, img)
	for i, e := range img.Edges {
		if c := t.EdgeCount(i); c > 0 {
			b.AddEdge(fn[e.Caller], int(e.Line), fn[e.Callee], c)
		}
	}
	return truthSamples(b, fn, t, t.NodeLines, func(node int32, line int) int64 {
		return int64(t.LineSelf(node, line))
	})
}

// TruthBytecodeProfile returns the exact bytecode profile of a run of img:
// every CCT node with executed bytecodes becomes one sample weighted by
// them, without a line (Binder's perfect profile, to which
// bytecode-counting samplers are compared).
func TruthBytecodeProfile(t *sim.Truth, img *sim.Image) *profile.Profile {
	b := profile.NewBuilder("truth-bytecodes", "bytecodes", 0)
	fn := samplers.Functions(b, img)
	one := func(int32) int { return 1 }
	return truthSamples(b, fn, t, one, func(node int32, _ int) int64 { return t.Node(node).Bytecodes })
}

// truthSamples builds b's profile (its functions fn by method, its
// edges) with, per CCT node (the root, with no code of its own, left
// out), one sample per line of the node's lines lines whose weight is not
// 0: the node's calling context with the line on its leaf frame, Count =
// Weight = the weight.
//
// A CCT node is one calling context, so no two samples share a stack and
// they need no merging. They are made directly in profile.Builder.Build's
// canonical order (stacks compared frame by frame, by function name, line
// and then length), by a walk of the CCT with each node's children in
// function-name order: a node's line-0 sample is a prefix of every stack
// below it and comes first; its descendants' stacks hold it with line 0,
// so they come before its samples of lines 1, 2, .... The stacks are cut
// from one arena of exactly their frames, each capped at its length.
// Without the Builder's per-sample copy, key and sort, building costs
// the samples' frames and a few int32s per node. If two methods share
// one function (fn not one-to-one), stacks may coincide and the Builder
// merges them.
func truthSamples(b *profile.Builder, fn []int, t *sim.Truth, lines func(node int32) int, weight func(node int32, line int) int64) *profile.Profile {
	n := t.NodeCount()
	if !distinct(fn) {
		return builderSamples(b, fn, t, lines, weight)
	}
	// Function ranks by name, as Build orders them.
	funcs := b.Functions()
	byName := make([]int, len(funcs))
	for i := range byName {
		byName[i] = i
	}
	slices.SortFunc(byName, func(i, j int) int { return strings.Compare(funcs[i].Name, funcs[j].Name) })
	rank := make([]int32, len(funcs))
	for r, f := range byName {
		rank[f] = int32(r)
	}
	// Children lists (CSR) sorted by their function's rank: parents
	// precede their children, so one counting pass and one filling pass.
	method := make([]int32, n)
	first := make([]int32, n+1)
	parent := make([]int32, n)
	for i := int32(1); int(i) < n; i++ {
		nd := t.Node(i)
		method[i], parent[i] = nd.Method, nd.Parent
		first[nd.Parent+1]++
	}
	for i := 1; i <= n; i++ {
		first[i] += first[i-1]
	}
	kids := make([]int32, max(n-1, 0))
	fill := slices.Clone(first[:n])
	for i := int32(1); int(i) < n; i++ {
		kids[fill[parent[i]]] = i
		fill[parent[i]]++
	}
	for i := range n {
		ks := kids[first[i]:first[i+1]]
		slices.SortFunc(ks, func(a, c int32) int { return int(rank[fn[method[a]]] - rank[fn[method[c]]]) })
	}
	// Every sample and frame, counted first so that each is allocated
	// once and exactly. depth reuses parent's table: parents precede
	// their children.
	samples, frames := 0, 0
	depth := parent
	depth[0] = 0
	for i := int32(1); int(i) < n; i++ {
		depth[i] = depth[parent[i]] + 1
		for line := range lines(i) {
			if weight(i, line) != 0 {
				samples++
				frames += int(depth[i])
			}
		}
	}
	p := b.Build() // functions and edges in canonical order, no samples yet
	if samples > 0 {
		p.Samples = make([]profile.Sample, 0, samples)
	}
	arena := make([]profile.Frame, 0, frames)
	add := func(path []profile.Frame, line int, w int64) {
		s := len(arena)
		arena = append(arena, path...)
		arena[len(arena)-1].Line = line
		p.Samples = append(p.Samples, profile.Sample{Stack: arena[s:len(arena):len(arena)], Count: w, Weight: w})
	}
	// An explicit stack: contexts can be 10⁵ deep. next is the index into
	// kids of the node's next child to visit.
	type visit struct{ node, next int32 }
	var path []profile.Frame // the visited node's context, lines 0
	enter := func(node int32) visit {
		path = append(path, profile.Frame{Func: fn[method[node]]})
		if lines(node) > 0 {
			if w := weight(node, 0); w != 0 {
				add(path, 0, w)
			}
		}
		return visit{node, first[node]}
	}
	walk := []visit{{0, first[0]}}
	for len(walk) > 0 {
		v := &walk[len(walk)-1]
		if v.next < first[v.node+1] {
			c := kids[v.next]
			v.next++
			walk = append(walk, enter(c))
			continue
		}
		if v.node != 0 {
			for line := 1; line < lines(v.node); line++ {
				if w := weight(v.node, line); w != 0 {
					add(path, line, w)
				}
			}
			path = path[:len(path)-1]
		}
		walk = walk[:len(walk)-1]
	}
	return p
}

// distinct reports whether no two methods share a function.
func distinct(fn []int) bool {
	seen := make(map[int]bool, len(fn))
	for _, f := range fn {
		if seen[f] {
			return false
		}
		seen[f] = true
	}
	return true
}

// builderSamples is truthSamples through the Builder, which merges
// samples whose stacks coincide.
func builderSamples(b *profile.Builder, fn []int, t *sim.Truth, lines func(node int32) int, weight func(node int32, line int) int64) *profile.Profile {
	var path []int32
	var stack []profile.Frame
	for i := int32(1); int(i) < t.NodeCount(); i++ {
		stack = stack[:0]
		for line := range lines(i) {
			w := weight(i, line)
			if w == 0 {
				continue
			}
			if len(stack) == 0 {
				path = t.Path(i, path[:0])
				for _, m := range path {
					stack = append(stack, profile.Frame{Func: fn[m]})
				}
			}
			stack[len(stack)-1].Line = line
			b.AddSample(stack, w, w, "")
		}
	}
	return b.Build()
}
