package harness

import (
	"runtime/debug"
	"slices"

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
	return truthProfile(t, img, false)
}

// truthProfile is TruthProfile; with release it frees the recorder's
// calling contexts (sim.Truth.Release) as soon as it has read them, before
// it allocates the profile, so that the two are never held at once.
func truthProfile(t *sim.Truth, img *sim.Image, release bool) *profile.Profile {
	b, fn := truthBuilder(t, img)
	return truthSamples(b, fn, t, t.LineSelves, release, nil)
}

// truthBuilder is the truth profile's Builder with its functions (fn, by
// method) and call edges.
func truthBuilder(t *sim.Truth, img *sim.Image) (b *profile.Builder, fn []int) {
	b = profile.NewBuilder("truth", "nanoseconds", 0)
	fn = samplers.Functions(b, img)
	for i, e := range img.Edges {
		if c := t.EdgeCount(i); c > 0 {
			b.AddEdge(fn[e.Caller], int(e.Line), fn[e.Callee], c)
		}
	}
	return b, fn
}

// checkedTruthProfile is Collect's truth profile of vm's run: the run's
// footprint (vm.Footprint: its truth-profile samples and their stacks'
// frames counted by the pass that builds the profile, not by a pass of
// their own) checked against Limits.MaxMemory (vm.CheckFootprint) before
// the profile is built, which an error leaves unbuilt and the recorder
// unreleased. As Collect's truthProfile otherwise (release: see
// truthProfile).
func checkedTruthProfile(vm *sim.VM, img *sim.Image, release bool) (*profile.Profile, sim.Footprint, error) {
	t := vm.Truth()
	b, fn := truthBuilder(t, img)
	if !samplers.DistinctFunctions(fn) {
		f := vm.Footprint()
		if err := vm.CheckFootprint(f); err != nil {
			return nil, f, err
		}
		return truthSamples(b, fn, t, t.LineSelves, release, nil), f, nil
	}
	c := truthCount{fits: func(samples int64) bool { return vm.CheckFootprint(vm.FootprintWith(samples, 0)) == nil }}
	p := truthSamples(b, fn, t, t.LineSelves, release, &c)
	f := vm.FootprintWith(c.samples, c.frames)
	if p == nil {
		return nil, f, vm.CheckFootprint(f)
	}
	return p, f, nil
}

// truthCount is what truthSamples counts for checkedTruthProfile: the
// samples and the frames of their stacks (each a node's depth), and
// whether the profile still fits (fits, asked with the samples counted so
// far as each chunk of copied lines fills, and with all of them before
// the recorder is released: the frames are not priced).
type truthCount struct {
	fits            func(samples int64) bool
	samples, frames int64
}

// TruthBytecodeProfile returns the exact bytecode profile of a run of img:
// every CCT node with executed bytecodes becomes one sample weighted by
// them, without a line (Binder's perfect profile, to which
// bytecode-counting samplers are compared).
func TruthBytecodeProfile(t *sim.Truth, img *sim.Image) *profile.Profile {
	b := profile.NewBuilder("truth-bytecodes", "bytecodes", 0)
	fn := samplers.Functions(b, img)
	return truthSamples(b, fn, t, func(node int32, buf []int64) []int64 { return append(buf, t.Node(node).Bytecodes) }, false, nil)
}

// truthSamples builds b's profile (its functions fn by method, its
// edges) with, per CCT node (the root, with no code of its own, left
// out), one sample per line whose weight is not 0 (weights appends a
// node's weights, one per line 0, 1, … to its buffer): the node's calling
// context with the line on its leaf frame, Count = Weight = the weight.
//
// The profile's contexts are the CCT's own: a node's context (line 0),
// its parent's as caller, and beside it one context per line with a
// sample (the node's function at that line, the same caller). A CCT node
// is one calling context, so no two samples share a context and they
// need no merging. Contexts and samples are made directly in
// profile.Builder.Build's canonical order, by a walk of the CCT with each
// node's children in function-name order: a node's context comes first,
// with its line-0 sample, then its descendants' (whose callers' frames
// have line 0), then its contexts of lines 1, 2, .... As in Build, the
// table holds exactly the samples' stacks and their prefixes: a node's
// line-0 context only if it has a line-0 sample or a descendant with a
// sample. Without the Builder's per-sample key, map entry and sort,
// building costs a few int32s per node and a context and a sample per
// (node, line) with weight; no stack is copied. If two methods share one
// function (fn not one-to-one), stacks may coincide and the Builder
// merges them.
//
// With release, the nodes' lines with weight are copied out (a line and a
// weight per sample to be made) by the pass that counts them, and the
// recorder's contexts released (sim.Truth.Release) before the profile is
// allocated.
//
// With count (fn one-to-one), that pass also counts the samples and their
// stacks' frames into it, and asks count.fits whether the profile fits:
// where it does not, it stops copying, counts to the end and returns nil,
// the recorder not released.
func truthSamples(b *profile.Builder, fn []int, t *sim.Truth, weights func(node int32, buf []int64) []int64, release bool, count *truthCount) *profile.Profile {
	n := t.NodeCount()
	if !samplers.DistinctFunctions(fn) {
		p := builderSamples(b, fn, t, weights)
		if release {
			t.Release()
		}
		return p
	}
	rank := profile.FunctionRanks(b.Functions())
	// Children lists (CSR) sorted by their function's rank: parents
	// precede their children, so one counting pass and one filling pass
	// (first[p] is list p's fill position until the shift back).
	method := make([]int32, n)
	first := make([]int32, n+1)
	parent := make([]int32, n)
	var depth []int32 // with count: node i's stack's frames
	if count != nil {
		depth = make([]int32, n)
	}
	for i := int32(1); int(i) < n; i++ {
		parent[i], method[i] = t.NodeLink(i)
		first[parent[i]+1]++
		if depth != nil {
			depth[i] = depth[parent[i]] + 1
		}
	}
	for i := 1; i <= n; i++ {
		first[i] += first[i-1]
	}
	kids := make([]int32, max(n-1, 0))
	for i := int32(1); int(i) < n; i++ {
		kids[first[parent[i]]] = i
		first[parent[i]]++
	}
	copy(first[1:], first[:n])
	first[0] = 0
	for i := range n {
		if first[i+1]-first[i] < 2 {
			continue // most nodes: nothing to sort
		}
		ks := kids[first[i]:first[i+1]]
		slices.SortFunc(ks, func(a, c int32) int { return int(rank[fn[method[a]]] - rank[fn[method[c]]]) })
	}
	// Which nodes have a sample below them (live) and which need their
	// line-0 context (chain); children follow their parents, so one
	// backward pass. Every context and sample is counted, so that each
	// table is allocated once and exactly.
	const (
		live  = 1
		chain = 2
	)
	need := make([]uint8, n)
	// With release, node i's lines with weight are copied to lw's
	// [wFirst[i], wFirst[i-1]): nodes are copied from the last back, and
	// wFirst[0] is their count.
	var wFirst []int32
	var lw lineWeights
	if release {
		wFirst = make([]int32, n)
	}
	contexts, samples := 1, 0
	var frames int64
	copying, fits := release, true
	var ws []int64 // a node's weights
	for i := int32(n - 1); i > 0; i-- {
		ws = weights(i, ws[:0])
		if copying {
			wFirst[i] = lw.n
		}
		before := samples
		for line, w := range ws {
			if w != 0 {
				samples++
				if copying {
					if lw.n&lineWeightsMask == 0 && count != nil && !count.fits(int64(samples)) {
						copying, fits = false, false // the profile will not be built
					} else {
						lw.add(int32(line), w)
					}
				}
				need[i] |= live
				if line == 0 {
					need[i] |= chain
				} else {
					contexts++
				}
			}
		}
		if depth != nil {
			frames += int64(depth[i]) * int64(samples-before)
		}
		if need[i]&chain != 0 {
			contexts++
		}
		if need[i]&live != 0 && parent[i] != 0 {
			need[parent[i]] |= live | chain
		}
	}
	parent, depth = nil, nil
	if count != nil {
		count.samples, count.frames = int64(samples), frames
		if !fits || !count.fits(int64(samples)) {
			return nil
		}
	}
	if release {
		wFirst[0] = lw.n
		t.Release()
		// Back to the OS now: the profile's tables are allocated whole,
		// at new addresses, so the recorder's pages would otherwise stay
		// resident beside them until the scavenger returned them.
		debug.FreeOSMemory()
	}
	p := b.Build() // functions and edges in canonical order, the root context, no samples yet
	// Made, not grown: slices.Grow clears the capacity it adds, a pass
	// over the whole table (javac at 1 s: 68 MB) before it is written,
	// where make's fresh memory needs none.
	p.Contexts = append(make([]profile.Context, 0, contexts), p.Contexts[:1]...)
	if samples > 0 {
		p.Samples = make([]profile.Sample, 0, samples)
	}
	add := func(caller int32, f profile.Frame) int32 {
		p.Contexts = append(p.Contexts, profile.Context{Parent: caller, Depth: p.Contexts[caller].Depth + 1, Frame: f})
		return int32(len(p.Contexts) - 1)
	}
	sample := func(c int32, w int64) {
		p.Samples = append(p.Samples, profile.Sample{Context: c, Count: w, Weight: w})
	}
	// An explicit stack: contexts can be 10⁵ deep. next is the index into
	// kids of the node's next child to visit, ctx the node's line-0
	// context (its children's caller).
	type visit struct{ node, next, ctx int32 }
	walk := []visit{{0, first[0], profile.Root}}
	for len(walk) > 0 {
		v := &walk[len(walk)-1]
		if v.next < first[v.node+1] {
			c := kids[v.next]
			v.next++
			if need[c]&live == 0 {
				continue
			}
			e := visit{c, first[c], -1}
			if need[c]&chain != 0 {
				e.ctx = add(v.ctx, profile.Frame{Func: int32(fn[method[c]])})
				switch {
				case release:
					if k := wFirst[c]; k < wFirst[c-1] && lw.line(k) == 0 {
						sample(e.ctx, lw.weight(k))
					}
				default:
					if ws = weights(c, ws[:0]); len(ws) > 0 && ws[0] != 0 {
						sample(e.ctx, ws[0])
					}
				}
			}
			walk = append(walk, e)
			continue
		}
		if c := v.node; c != 0 {
			caller := walk[len(walk)-2].ctx
			f := int32(fn[method[c]])
			if release {
				for k := wFirst[c]; k < wFirst[c-1]; k++ {
					if l := lw.line(k); l != 0 {
						sample(add(caller, profile.Frame{Func: f, Line: l}), lw.weight(k))
					}
				}
			} else {
				ws = weights(c, ws[:0])
				for line := 1; line < len(ws); line++ {
					if w := ws[line]; w != 0 {
						sample(add(caller, profile.Frame{Func: f, Line: int32(line)}), w)
					}
				}
			}
		}
		walk = walk[:len(walk)-1]
	}
	if release {
		// And the copies and the walk's tables, before the caller's next
		// phase allocates its own.
		debug.FreeOSMemory()
	}
	return p
}

// lineWeights holds (line, weight) pairs appended one by one, as
// truthSamples copies the nodes' lines with weight out of the recorder in
// the pass that counts them: in chunks, since their number is known only
// at the end, so that nothing is copied as it grows.
type lineWeights struct {
	lines   []*[lineWeightsChunk]int32
	weights []*[lineWeightsChunk]int64
	n       int32 // pairs held
}

// lineWeightsBits: 32 Ki pairs, 384 KiB, a chunk.
const (
	lineWeightsBits  = 15
	lineWeightsChunk = 1 << lineWeightsBits
	lineWeightsMask  = lineWeightsChunk - 1
)

// add appends a pair.
func (w *lineWeights) add(line int32, weight int64) {
	c, i := w.n>>lineWeightsBits, w.n&lineWeightsMask
	if int(c) == len(w.lines) {
		w.lines = append(w.lines, new([lineWeightsChunk]int32))
		w.weights = append(w.weights, new([lineWeightsChunk]int64))
	}
	w.lines[c][i], w.weights[c][i] = line, weight
	w.n++
}

// line is pair k's line, weight its weight.
func (w *lineWeights) line(k int32) int32   { return w.lines[k>>lineWeightsBits][k&lineWeightsMask] }
func (w *lineWeights) weight(k int32) int64 { return w.weights[k>>lineWeightsBits][k&lineWeightsMask] }

// builderSamples is truthSamples through the Builder, which merges
// samples whose stacks coincide.
func builderSamples(b *profile.Builder, fn []int, t *sim.Truth, weights func(node int32, buf []int64) []int64) *profile.Profile {
	var path []int32
	var stack []profile.Frame
	var ws []int64
	for i := int32(1); int(i) < t.NodeCount(); i++ {
		stack = stack[:0]
		ws = weights(i, ws[:0])
		for line, w := range ws {
			if w == 0 {
				continue
			}
			if len(stack) == 0 {
				path = t.Path(i, path[:0])
				for _, m := range path {
					stack = append(stack, profile.Frame{Func: int32(fn[m])})
				}
			}
			stack[len(stack)-1].Line = int32(line)
			b.AddSample(stack, w, w, "")
		}
	}
	return b.Build()
}
