package harness

import (
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
func truthSamples(b *profile.Builder, fn []int, t *sim.Truth, lines func(node int32) int, weight func(node int32, line int) int64) *profile.Profile {
	return builderSamples(b, fn, t, lines, weight)
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
