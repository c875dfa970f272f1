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
	fn := truthSamples(b, t, img, t.NodeLines, func(node int32, line int) int64 {
		return int64(t.LineSelf(node, line))
	})
	for i, e := range img.Edges {
		if c := t.EdgeCount(i); c > 0 {
			b.AddEdge(fn[e.Caller], int(e.Line), fn[e.Callee], c)
		}
	}
	return b.Build()
}

// TruthBytecodeProfile returns the exact bytecode profile of a run of img:
// every CCT node with executed bytecodes becomes one sample weighted by
// them, without a line (Binder's perfect profile, to which
// bytecode-counting samplers are compared).
func TruthBytecodeProfile(t *sim.Truth, img *sim.Image) *profile.Profile {
	b := profile.NewBuilder("truth-bytecodes", "bytecodes", 0)
	one := func(int32) int { return 1 }
	truthSamples(b, t, img, one, func(node int32, _ int) int64 { return t.Node(node).Bytecodes })
	return b.Build()
}

// truthSamples adds to b, node by node in creation order (the root, with
// no code of its own, left out), one sample per line of the node's lines
// lines whose weight is not 0: the node's calling context with the line on
// its leaf frame, Count = Weight = the weight. It returns the method →
// function index table it made.
func truthSamples(b *profile.Builder, t *sim.Truth, img *sim.Image, lines func(node int32) int, weight func(node int32, line int) int64) []int {
	fn := samplers.Functions(b, img)
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
	return fn
}
