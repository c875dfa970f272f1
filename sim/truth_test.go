package sim

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Lines: main 1 loop, 2 work 100, 3 work 300, 4 work 600, 5 native (it
// makes the loop run statement by statement), 6 return; leaf 1 work.
const linesProgram = `
name: lines
methods:
  - class: L
    name: main
    body:
      - loop:
          trips: 1000
          body:
            - work: {cycles: 100, bytecodes: 1}
            - work: {cycles: 300, bytecodes: 1}
            - work: {cycles: 600, bytecodes: 1}
            - native: {cycles: 7}
threads: [{name: main, entry: L.main}]
`

// Lines: main 1 work, 2 loop (pure: fast-forwarded), 3 work 250, 4 work
// 750, 5 return.
const pureLoopProgram = `
name: pure
methods:
  - class: P
    name: main
    body:
      - work: {cycles: 40, bytecodes: 1}
      - loop:
          trips: 5000
          body:
            - work: {cycles: 250, bytecodes: 2}
            - work: {cycles: 750, bytecodes: 3}
threads: [{name: main, entry: P.main}]
`

// lineWeights returns the truth's self ns per (method, line) over all
// calling contexts, lines with none left out, and its total.
func lineWeights(r *Result) (map[string]map[int]int64, int64) {
	out := map[string]map[int]int64{}
	var sum int64
	for i := int32(1); int(i) < r.Truth.NodeCount(); i++ {
		name := r.Image.Names[r.Truth.Node(i).Method]
		for line := range r.Truth.NodeLines(i) {
			w := int64(r.Truth.LineSelf(i, line))
			if w == 0 {
				continue
			}
			if out[name] == nil {
				out[name] = map[int]int64{}
			}
			out[name][line] += w
			sum += w
		}
	}
	return out, sum
}

// lineSamples counts the (context, line) pairs with self time and the
// frames of their contexts' stacks: the truth profile's samples and
// frames.
func lineSamples(tr *Truth) (samples, frames int64) {
	var path []int32
	for i := int32(1); int(i) < tr.NodeCount(); i++ {
		path = tr.Path(i, path[:0])
		for line := range tr.NodeLines(i) {
			if tr.LineSelf(i, line) != 0 {
				samples++
				frames += int64(len(path))
			}
		}
	}
	return samples, frames
}

// lineShare is (method, line)'s share of the truth's self time.
func lineShare(t *testing.T, r *Result, method string, line int) float64 {
	t.Helper()
	w, sum := lineWeights(r)
	ns, ok := w[method][line]
	if !ok {
		t.Fatalf("no self time at %s:%d in %v", method, line, w)
	}
	return float64(ns) / float64(sum)
}

func selfOf(nodes []CCTNode, m int32) Time {
	var s Time
	for _, n := range nodes {
		if n.Method == m {
			s += n.Self
		}
	}
	return s
}

// The truth is exact per line: with no poll, call or native overhead the
// work lines' shares are the cycle ratios; with the default costs every
// line holds exactly its statements' ns, polls at the loop's line.
func TestTruthLinesExact(t *testing.T) {
	t.Run("shares", func(t *testing.T) {
		// Short slices and horizons: Work split by the scheduler and
		// MaxStep must still land whole on its line.
		vm := newVM(t, parse(t, linesProgram), func(c *Config) {
			c.Cost.PollCycles = 0
			c.MaxStep = 777
			c.Duration = Second
		})
		r := vm.Run()
		l2, l3, l4 := lineShare(t, r, "L.main", 2), lineShare(t, r, "L.main", 3), lineShare(t, r, "L.main", 4)
		work := 100.0 + 300 + 600
		total := 1000 * (work + 7)
		assert.InDelta(t, 1000*100/total, l2, 1e-9)
		assert.InDelta(t, 1000*300/total, l3, 1e-9)
		assert.InDelta(t, 1000*600/total, l4, 1e-9)
		assert.InDelta(t, 3.0, l3/l2, 1e-9)
		assert.InDelta(t, 6.0, l4/l2, 1e-9)
		assert.InDelta(t, 1000*7/total, lineShare(t, r, "L.main", 5), 1e-9)
		w, sum := lineWeights(r)
		assert.Equal(t, int64(selfOf(r.Truth.Nodes(), 0)), sum)
		assert.Equal(t, map[int]int64{2: 100_000, 3: 300_000, 4: 600_000, 5: 7_000}, w["L.main"])
	})
	t.Run("polls", func(t *testing.T) {
		r := newVM(t, parse(t, linesProgram), func(c *Config) { c.MaxStep = 777; c.Duration = Second }).Run()
		w, sum := lineWeights(r)
		// 999 back-edge polls (the last iteration exits) at the loop's
		// line; HotSpot-style code has no poll at the entry method's return.
		assert.Equal(t, map[int]int64{1: 999, 2: 100_000, 3: 300_000, 4: 600_000, 5: 7_000}, w["L.main"])
		assert.Equal(t, int64(r.Truth.SelfTotal()), sum)
		assert.Equal(t, r.AppCPU(), r.Truth.SelfTotal())
	})
}

// A pure counted loop is fast-forwarded arithmetically; its per-iteration
// cost must still be split by its body's lines exactly, whatever the
// horizons.
func TestTruthLinesPureLoop(t *testing.T) {
	for _, step := range []Time{0, 333, 10 * Microsecond} {
		r := newVM(t, parse(t, pureLoopProgram), func(c *Config) { c.MaxStep = step; c.Duration = Second }).Run()
		w, sum := lineWeights(r)
		assert.Equal(t, map[int]int64{1: 40, 2: 4999, 3: 1_250_000, 4: 3_750_000}, w["P.main"], "max step %v", step)
		assert.Equal(t, int64(selfOf(r.Truth.Nodes(), 0)), sum)
		l3, l4 := lineShare(t, r, "P.main", 3), lineShare(t, r, "P.main", 4)
		assert.InDelta(t, 3.0, l4/l3, 1e-9)
		assert.InDelta(t, 1_250_000/float64(sum), l3, 1e-9)
	}
}

// The truth's line for the leaf is the line an exact sampler records at
// the same instant: stop the thread at every ns and compare where VM.Stack
// puts the leaf with where the next ns of truth lands. A thread stopped on
// a zero-time statement (a loop's entry or exit, a branch) is seen there while the
// next ns belongs to the statement after it: those instants are skipped.
func TestTruthLineMatchesStack(t *testing.T) {
	vm := newVM(t, parse(t, hookProgram), func(c *Config) { c.ContextSwitch = 0; c.Duration = Second })
	var buf []StackFrame
	checked := 0
	for at := Time(1); at < 500; at++ {
		vm.RunUntil(at)
		if vm.Done() || vm.State(0) != Running {
			break
		}
		buf = vm.Stack(0, buf[:0])
		leaf := buf[len(buf)-1]
		before := vm.truth.flatCells()
		vm.RunUntil(at + 1)
		var grew []int
		for i, v := range vm.truth.flatCells() {
			if i >= len(before) && v.self != 0 || i < len(before) && v.self != before[i].self {
				grew = append(grew, i)
			}
		}
		n := vm.truth.node(leaf.Node)
		want := []int{int(n.lineBase) + int(leaf.Line)}
		switch leaf.Code.Instrs[leaf.PC].Op {
		case OpLoopEnter, OpBranch, OpJump:
			continue
		case OpLoopBack:
			if !assert.ObjectsAreEqual(want, grew) {
				continue // the loop's exit: no back-edge, no poll
			}
		}
		checked++
		require.Equal(t, want, grew, "at %v: %s line %d", at, vm.img.Names[leaf.Method], leaf.Line)
	}
	assert.Greater(t, checked, 400)
}

// flatCells is every line cell at its index (Truth.cell), the unused ends
// of chunks zero.
func (t *Truth) flatCells() []lineCell {
	out := make([]lineCell, len(t.cells)<<cellBits)
	for j, c := range t.cells {
		copy(out[j<<cellBits:], c[:])
	}
	return out
}

// The recorder's chunks: contexts of methods with few lines, with more
// lines than what is left of a chunk, and with more lines than a chunk
// holds, each get their own cells, found again by child and known, and
// reached by a frame from its node's first cell (frame.cell; run with
// -gcflags=all=-d=checkptr to check that they are in one allocation).
func TestTruthChunks(t *testing.T) {
	lines := []int32{1, 7, 1<<cellBits - 3, 1<<cellBits + 5, 3 << cellBits, 2}
	tr := newTruth(0, lines)
	r := rand.New(rand.NewPCG(1, 2))
	type key struct{ parent, method int32 }
	made := map[key]int32{}
	owner := map[int32]int32{} // cell → node
	for range 3 * (1 << nodeBits) {
		parent := int32(r.IntN(int(tr.count)))
		m := int32(r.IntN(len(lines)))
		if r.IntN(50) > 0 {
			m = int32(r.IntN(2)) // mostly small methods: many nodes
		}
		k := key{parent, m}
		old, seen := made[k]
		if seen {
			require.Equal(t, old, tr.known(parent, m))
		} else {
			require.Equal(t, int32(-1), tr.known(parent, m))
		}
		c := tr.child(parent, m, 0)
		if seen {
			require.Equal(t, old, c)
			continue
		}
		require.Equal(t, tr.count-1, c, "a new node takes the next id")
		made[k] = c
		n := tr.node(c)
		require.Equal(t, lines[m], n.lines)
		f := frame{cells: tr.cell(n.lineBase)}
		for l := range n.lines {
			i := n.lineBase + l
			_, taken := owner[i]
			require.False(t, taken, "cell %d of node %d taken", i, c)
			owner[i] = c
			require.Same(t, tr.cell(i), f.cell(l), "line %d of node %d", l, c)
			tr.cell(i).self = int64(c)<<16 | int64(l)
		}
	}
	for k, c := range made {
		n := tr.node(c)
		require.Equal(t, k.parent, n.parent)
		require.Equal(t, k.method, n.method)
		var want []int64
		for l := range n.lines {
			require.Equal(t, int64(c)<<16|int64(l), tr.cell(n.lineBase+l).self)
			want = append(want, int64(tr.LineSelf(c, int(l))))
		}
		// LineSelves reads the node's cells in a row, those of a
		// method with more lines than a chunk holds included.
		require.Equal(t, want, tr.LineSelves(c, []int64{-1})[1:], "node %d", c)
	}
}

// Truth.child with a hint (the caller's last child, frame.lastChild)
// finds the same node as without, whatever the hint; siblings stay in
// creation order, the first wideAfter of them fixed once a parent has
// more, and known finds exactly those.
func TestTruthChildHint(t *testing.T) {
	const methods = 3 * wideAfter
	lines := make([]int32, methods)
	for i := range lines {
		lines[i] = int32(1 + i%5)
	}
	tr := newTruth(0, lines)
	r := rand.New(rand.NewPCG(3, 4))
	type key struct{ parent, method int32 }
	made := map[key]int32{}
	kids := map[int32][]int32{} // parent → children in creation order
	for range 20000 {
		parent := int32(r.IntN(int(tr.count)))
		if r.IntN(4) > 0 {
			parent = int32(r.IntN(min(int(tr.count), 8))) // a few wide parents
		}
		m := int32(r.IntN(methods))
		var after int32
		if ks := kids[parent]; len(ks) > 0 && r.IntN(5) > 0 {
			after = ks[r.IntN(len(ks))]
			if r.IntN(2) == 0 {
				// the hint of a caller that calls in order: the child
				// created before the one it is looking for, if any
				for i, k := range ks {
					if tr.node(k).method == m && i > 0 {
						after = ks[i-1]
					}
				}
			}
		}
		old, seen := made[key{parent, m}]
		c := tr.child(parent, m, after)
		if seen {
			require.Equal(t, old, c)
			continue
		}
		require.Equal(t, tr.count-1, c, "a new node takes the next id")
		made[key{parent, m}] = c
		kids[parent] = append(kids[parent], c)
	}
	for parent, ks := range kids {
		var list []int32
		for c := tr.node(parent).firstChild; c >= 0; c = tr.node(c).nextSibling {
			list = append(list, c)
		}
		require.ElementsMatch(t, ks, list)
		first := ks[:min(len(ks), wideAfter)]
		require.Equal(t, first, list[:len(first)], "the first children in creation order")
		for _, c := range ks {
			want := int32(-1)
			if slices.Contains(first, c) {
				want = c
			}
			require.Equal(t, want, tr.known(parent, tr.node(c).method))
		}
	}
}

// TruthPerMethod applies before the run only: once a context below the
// root exists, the tree cannot be made per method.
func TestTruthPerMethodBeforeTheRunOnly(t *testing.T) {
	vm := newVM(t, parse(t, linesProgram), func(c *Config) { c.Duration = Millisecond })
	require.NoError(t, vm.TruthPerMethod())
	require.NoError(t, vm.TruthPerMethod(), "twice is once")
	assert.True(t, vm.Run().Truth.PerMethod())

	vm = newVM(t, parse(t, hookProgram), func(c *Config) { c.Duration = Second })
	vm.Run()
	assert.ErrorContains(t, vm.TruthPerMethod(), "TruthPerMethod after the run has started")
}

// Release frees the calling contexts: reading one panics, and what it
// keeps (PerMethod, the edge counts) still answers.
func TestTruthRelease(t *testing.T) {
	for _, perMethod := range []bool{false, true} {
		vm := newVM(t, parse(t, linesProgram), func(c *Config) { c.Duration = Millisecond })
		if perMethod {
			require.NoError(t, vm.TruthPerMethod())
		}
		tr := vm.Run().Truth
		require.Greater(t, tr.NodeCount(), 1)
		edges := make([]int64, len(vm.Image().Edges))
		for i := range edges {
			edges[i] = tr.EdgeCount(i)
		}
		tr.Release()
		assert.Equal(t, perMethod, tr.PerMethod())
		for i := range edges {
			assert.Equal(t, edges[i], tr.EdgeCount(i))
		}
		for name, read := range map[string]func(){
			"NodeCount": func() { tr.NodeCount() }, "Node": func() { tr.Node(1) }, "Nodes": func() { tr.Nodes() },
			"NodeLink": func() { tr.NodeLink(1) }, "NodeLines": func() { tr.NodeLines(1) },
			"LineSelf": func() { tr.LineSelf(1, 0) }, "Path": func() { tr.Path(1, nil) },
			"SelfTotal": func() { tr.SelfTotal() }, "BytecodeTotal": func() { tr.BytecodeTotal() },
		} {
			assert.PanicsWithValue(t, "sim: the truth's calling contexts were released (Truth.Release)", read, name)
		}
	}
}
