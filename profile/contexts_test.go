package profile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The views below are computed on the context tree; these tests compare
// them with their definitions over whole stacks (ref*), on random
// profiles whose names are prefixes of one another and hold bytes that
// sort before and after the separators of context keys (FrameSep) and of
// folded lines (';').

// randomProfile adds n random samples over funcs functions to a builder.
// Stacks are up to depth deep, share callers, recurse, and some are
// empty or weightless.
func randomProfile(r *rand.Rand, names []string, n, depth int) *Profile {
	b := NewBuilder("rand", "nanoseconds", 7)
	var fn []int
	for _, name := range names {
		f := Function{Name: name}
		if i := strings.IndexByte(name, '('); i >= 0 {
			f.Signature = name[i:] // an overload: its name ends with its descriptor
		}
		fn = append(fn, b.Func(f))
	}
	var stacks [][]Frame
	for range n {
		var st []Frame
		if len(stacks) > 0 && r.IntN(3) > 0 {
			// Share a caller prefix with an earlier stack.
			prev := stacks[r.IntN(len(stacks))]
			st = append(st, prev[:r.IntN(len(prev)+1)]...)
		}
		for k := r.IntN(depth + 1); k > 0 && len(st) < depth; k-- {
			st = append(st, Frame{Func: int32(fn[r.IntN(len(fn))]), Line: int32(r.IntN(3)), Inlined: r.IntN(4) == 0})
		}
		stacks = append(stacks, st)
		w := int64(r.IntN(5)) * 10
		b.AddSample(st, 1+int64(r.IntN(3)), w, []string{"", "t1", "t2"}[r.IntN(3)])
	}
	b.AddEdge(fn[0], 1, fn[len(fn)-1], 3)
	return b.Build()
}

func refStacks(p *Profile) [][]Frame {
	out := make([][]Frame, len(p.Samples))
	for i := range p.Samples {
		out[i] = p.Stack(i, nil)
	}
	return out
}

func refContextWeights(p *Profile) map[string]float64 {
	out := map[string]float64{}
	for i, st := range refStacks(p) {
		var names []string
		for _, f := range st {
			names = append(names, p.Functions[f.Func].Name)
		}
		out[strings.Join(names, "\x1f")] += float64(p.Samples[i].Weight)
	}
	return out
}

// refFoldedWeights is refContextWeights by folded frame names
// (FoldedName: overloads merged) joined by ';'.
func refFoldedWeights(p *Profile) map[string]float64 {
	out := map[string]float64{}
	for i, st := range refStacks(p) {
		var names []string
		for _, f := range st {
			names = append(names, p.Functions[f.Func].FoldedName())
		}
		out[strings.Join(names, ";")] += float64(p.Samples[i].Weight)
	}
	return out
}

func refFlat(p *Profile) (self, total map[string]int64) {
	self, total = map[string]int64{}, map[string]int64{}
	for i, st := range refStacks(p) {
		if len(st) == 0 {
			continue
		}
		w := p.Samples[i].Weight
		self[p.Functions[st[len(st)-1].Func].Name] += w
		seen := map[int]bool{}
		for _, f := range st {
			if !seen[int(f.Func)] {
				seen[int(f.Func)] = true
				total[p.Functions[f.Func].Name] += w
			}
		}
	}
	return self, total
}

func refCCT(p *Profile) *CCT {
	t := &CCT{Nodes: []CCTNode{{Parent: -1}}}
	index := map[string]int{}
	for i, st := range refStacks(p) {
		w := p.Samples[i].Weight
		n := 0
		t.Nodes[0].Total += w
		for _, f := range st {
			name := p.Functions[f.Func].Name
			k := strconv.Itoa(n) + "/" + name
			c, ok := index[k]
			if !ok {
				c = len(t.Nodes)
				index[k] = c
				t.Nodes = append(t.Nodes, CCTNode{Name: name, Parent: n})
				t.Nodes[n].Children = append(t.Nodes[n].Children, c)
			}
			t.Nodes[c].Total += w
			n = c
		}
		t.Nodes[n].Self += w
	}
	for i := range t.Nodes {
		ch := t.Nodes[i].Children
		sort.Slice(ch, func(a, b int) bool { return t.Nodes[ch[a]].Name < t.Nodes[ch[b]].Name })
	}
	return t
}

// refLess is Build's order of samples: thread, then stacks frame by
// frame by name, line and inlined, a prefix first.
func refLess(p *Profile, a, b int, sa, sb []Frame) bool {
	if ta, tb := p.ThreadName(a), p.ThreadName(b); ta != tb {
		return ta < tb
	}
	for k := 0; k < len(sa) && k < len(sb); k++ {
		fa, fb := sa[k], sb[k]
		if na, nb := p.Functions[fa.Func].Name, p.Functions[fb.Func].Name; na != nb {
			return na < nb
		}
		if fa.Line != fb.Line {
			return fa.Line < fb.Line
		}
		if fa.Inlined != fb.Inlined {
			return !fa.Inlined
		}
	}
	return len(sa) < len(sb)
}

func refFolded(p *Profile) string {
	ctx := refFoldedWeights(p)
	var sb strings.Builder
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range ctx {
			if !yield(k) {
				return
			}
		}
	}) {
		if k != "" {
			fmt.Fprintf(&sb, "%s %d\n", k, int64(ctx[k]))
		}
	}
	return sb.String()
}

var nameSets = map[string][]string{
	// Prefixes of one another, with bytes below ';' ('$', '.', '1', '(')
	// and above it ('<', 'a'), all above FrameSep.
	"plain": {"A.a", "A.a1", "A.a$x", "A.a<init>", "A.ab", "A.a(I)V", "B", "B.b"},
	// Overloads whose JVM descriptors hold ';', merged in folded lines.
	"descriptors": {"A.a", "A.a(LX;)V", "A.a(LX;LY;)V", "A.a([LX;)LY;", "B", "A", "A.a1(LX;)V"},
}

func TestContextViewsMatchStacks(t *testing.T) {
	for set, names := range nameSets {
		for seed := range uint64(40) {
			r := rand.New(rand.NewPCG(seed, 19))
			p := randomProfile(r, names, 1+r.IntN(60), 1+r.IntN(12))
			q := randomProfile(r, names, 1+r.IntN(60), 1+r.IntN(12))
			what := fmt.Sprintf("%s seed %d", set, seed)
			require.NoError(t, p.Validate(), what)
			stacks := refStacks(p)
			for i := 1; i < len(p.Samples); i++ {
				assert.True(t, refLess(p, i-1, i, stacks[i-1], stacks[i]), "%s: samples %d, %d in Build's order", what, i-1, i)
			}
			for i := range p.Samples {
				assert.Equal(t, len(stacks[i]), p.Depth(i), what)
				leaf, ok := p.Leaf(i)
				assert.Equal(t, len(stacks[i]) > 0, ok, what)
				if ok {
					assert.Equal(t, stacks[i][len(stacks[i])-1], leaf, what)
				}
			}
			assert.Equal(t, refContextWeights(p), p.ContextWeights(), what)
			self, total := refFlat(p)
			for _, row := range p.Flat() {
				assert.Equal(t, self[row.Name], row.Self, "%s: %s self", what, row.Name)
				assert.Equal(t, total[row.Name], row.Total, "%s: %s total", what, row.Name)
			}
			assert.Equal(t, refCCT(p), p.CCT(), what)
			_, x, y := Align(refContextWeights(p), refContextWeights(q))
			gx, gy := alignContexts(p, q)
			assert.Equal(t, x, gx, what)
			assert.Equal(t, y, gy, what)
			for _, T := range []float64{0.1, 0.5, 1} {
				assert.Equal(t, HotEdgeCoverage(x, y, T), HotEdgeCoverageContexts(p, q, T), "%s: T %v", what, T)
				assert.Equal(t, HotEdgeCoverage(y, x, T), HotEdgeCoverageContexts(q, p, T), "%s: T %v", what, T)
			}
			var folded bytes.Buffer
			require.NoError(t, WriteFolded(&folded, p))
			assert.Equal(t, refFolded(p), folded.String(), what)

			// JSON: each sample's whole stack; reading it back gives p.
			js, err := json.Marshal(p)
			require.NoError(t, err)
			var wire struct {
				Samples []struct {
					Stack []Frame `json:"stack"`
				} `json:"samples"`
			}
			require.NoError(t, json.Unmarshal(js, &wire))
			for i, s := range wire.Samples {
				assert.Equal(t, len(stacks[i]), len(s.Stack), what)
				if len(s.Stack) > 0 {
					assert.Equal(t, stacks[i], s.Stack, what)
				}
			}
			back, err := ReadJSON(bytes.NewReader(js))
			require.NoError(t, err, what)
			assert.Equal(t, p, back, what)
			assert.True(t, SameSamples(p, back), what)
			assert.Equal(t, len(p.Samples) == len(q.Samples) && slices.EqualFunc(refStacks(p), refStacks(q), slices.Equal) &&
				slices.EqualFunc(p.Samples, q.Samples, func(a, b Sample) bool {
					return a.Count == b.Count && a.Weight == b.Weight && a.Thread == b.Thread
				}), SameSamples(p, q), what)
		}
	}
}

// TestBuilderTableIsCanonical: the same samples added in any order give
// the same contexts, and the table holds exactly the stacks' prefixes.
func TestBuilderTableIsCanonical(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	p := randomProfile(r, nameSets["plain"], 80, 10)
	stacks := refStacks(p)
	prefixes := map[string]bool{"": true}
	for _, st := range stacks {
		for k := 1; k <= len(st); k++ {
			prefixes[fmt.Sprint(st[:k])] = true
		}
	}
	assert.Len(t, p.Contexts, len(prefixes))
	for _, order := range [][]int{r.Perm(len(p.Samples)), r.Perm(len(p.Samples))} {
		b := NewBuilder(p.Source, p.Unit, p.PeriodNanos)
		for _, f := range p.Functions {
			b.Func(f)
		}
		for _, i := range order {
			s := p.Samples[i]
			b.AddSample(stacks[i], s.Count, s.Weight, p.ThreadName(i))
		}
		for _, e := range p.Edges {
			b.AddEdge(e.Caller, e.Site, e.Callee, e.Weight)
		}
		assert.Equal(t, p, b.Build())
	}
}

func TestSameSamples(t *testing.T) {
	p := sample()
	q := sample()
	assert.True(t, SameSamples(p, q))
	q.Samples[1].Weight++
	assert.False(t, SameSamples(p, q))
	q = sample()
	q.Contexts[len(q.Contexts)-1].Frame.Line++
	assert.False(t, SameSamples(p, q))
}

func TestReadJSONNamesTheStackField(t *testing.T) {
	_, err := ReadJSON(strings.NewReader(`{"source":"x","unit":"bytecodes","functions":[{"name":"a"}],"samples":[{"stack":[{"func":0},{"func":3}],"count":1,"weight":2}]}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "samples[0].stack[1].func: index 3 out of range (1 functions)")
}

func TestEmptyProfileViews(t *testing.T) {
	for _, p := range []*Profile{{Unit: "nanoseconds"}, NewBuilder("x", "nanoseconds", 0).Build()} {
		assert.Empty(t, p.Flat())
		assert.Len(t, p.CCT().Nodes, 1)
		assert.Empty(t, p.ContextWeights())
		assert.Zero(t, OverlapContexts(p, p))
		var buf bytes.Buffer
		require.NoError(t, WriteFolded(&buf, p))
		assert.Empty(t, buf.String())
	}
}

// OverlapContextsWith is OverlapContexts of each profile with the
// reference, to the bit, whatever the other profiles merged into the
// shared tree.
func TestOverlapContextsWithIsOverlapContexts(t *testing.T) {
	for set, names := range nameSets {
		for seed := range uint64(20) {
			r := rand.New(rand.NewPCG(seed, 23))
			ref := randomProfile(r, names, 1+r.IntN(80), 1+r.IntN(12))
			var ps []*Profile
			for range 1 + r.IntN(6) {
				ps = append(ps, randomProfile(r, names, 1+r.IntN(60), 1+r.IntN(12)))
			}
			got := OverlapContextsWith(ps, ref)
			for i, p := range ps {
				assert.Equal(t, OverlapContexts(p, ref), got[i], "%s seed %d, profile %d", set, seed, i)
			}
		}
	}
}

// TestContextKeysKeepDescriptors: a JVM descriptor's ';' is part of a
// frame's name, never a frame boundary, in context keys and the views on
// them.
func TestContextKeysKeepDescriptors(t *testing.T) {
	one := func(names ...string) *Profile {
		b := NewBuilder("x", "nanoseconds", 0)
		var st []Frame
		for _, n := range names {
			f := Function{Name: n}
			if i := strings.IndexByte(n, '('); i >= 0 {
				f.Signature = n[i:]
			}
			st = append(st, Frame{Func: int32(b.Func(f))})
		}
		b.AddSample(st, 1, 10, "")
		return b.Build()
	}
	p := one("A.m(LX;)V")
	q := one("A.m(LX", ")V") // two frames whose ';'-joined names read as p's one
	require.NoError(t, p.Validate())
	require.NoError(t, q.Validate())
	assert.Equal(t, map[string]float64{"A.m(LX;)V": 10}, p.ContextWeights())
	assert.Equal(t, map[string]float64{"A.m(LX" + FrameSep + ")V": 10}, q.ContextWeights())
	assert.Equal(t, []string{"A.m(LX", ")V"}, SplitFrames(JoinFrames([]string{"A.m(LX", ")V"})))
	assert.Zero(t, OverlapContexts(p, q))
	assert.Zero(t, HotEdgeCoverageContexts(p, q, 0.5))
	assert.Equal(t, []float64{0}, OverlapContextsWith([]*Profile{q}, p))
	assert.Equal(t, []string{"A.m(LX;)V"}, p.CCT().Frames(1))
}

// TestFoldedFramesAreJavaNames: folded lines name frames "pkg.Class.method"
// without descriptors, overloads merged, and read back (weight after the
// last space, frames split on ';') as the stacks they came from.
func TestFoldedFramesAreJavaNames(t *testing.T) {
	b := NewBuilder("x", "nanoseconds", 0)
	mainF := b.Func(Function{Name: "app.Main.main", Class: "app.Main", Method: "main", Signature: "([Ljava/lang/String;)V"})
	s := b.Func(Function{Name: "app.Util.fmt(Ljava/lang/String;I)Ljava/lang/String;", Class: "app.Util", Method: "fmt", Signature: "(Ljava/lang/String;I)Ljava/lang/String;"})
	o := b.Func(Function{Name: "app.Util.fmt(Ljava/lang/Object;)V", Class: "app.Util", Method: "fmt", Signature: "(Ljava/lang/Object;)V"})
	b.AddSample([]Frame{{Func: int32(mainF)}, {Func: int32(s)}}, 1, 30, "")
	b.AddSample([]Frame{{Func: int32(mainF)}, {Func: int32(o)}}, 1, 12, "")
	b.AddSample([]Frame{{Func: int32(mainF)}}, 1, 5, "")
	var buf bytes.Buffer
	require.NoError(t, WriteFolded(&buf, b.Build()))
	type line struct {
		frames []string
		weight int64
	}
	var got []line
	for _, l := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		i := strings.LastIndexByte(l, ' ')
		require.Positive(t, i, l)
		w, err := strconv.ParseInt(l[i+1:], 10, 64)
		require.NoError(t, err, l)
		got = append(got, line{strings.Split(l[:i], ";"), w})
	}
	assert.Equal(t, []line{
		{[]string{"app.Main.main"}, 5},
		{[]string{"app.Main.main", "app.Util.fmt"}, 42},
	}, got)

	for _, bad := range []Function{{Name: "A.a;B"}, {Name: "A.m\n", Class: "A", Method: "m\n"}, {Name: "A.m" + FrameSep + "B.n"}, {Name: "(I)V", Signature: "(I)V"}} {
		b := NewBuilder("x", "nanoseconds", 0)
		b.AddSample([]Frame{{Func: int32(b.Func(bad))}}, 1, 1, "")
		p := b.Build()
		assert.Error(t, p.Validate(), "%q", bad.Name)
		assert.Error(t, WriteFolded(io.Discard, p), "%q", bad.Name)
	}
}

// TestEdgeKeysKeepNames: a '|' in a JVM class name is part of the name,
// never a boundary of an edge's key.
func TestEdgeKeysKeepNames(t *testing.T) {
	edge := func(caller string, site int, callee string) *Profile {
		b := NewBuilder("x", "nanoseconds", 0)
		b.AddEdge(b.Func(Function{Name: caller}), site, b.Func(Function{Name: callee}), 5)
		return b.Build()
	}
	p := edge("A|1|B", 2, "C")
	q := edge("A", 1, "B|2|C")
	assert.Len(t, p.EdgeWeights(), 1)
	assert.NotEqual(t, p.EdgeWeights(), q.EdgeWeights())
	assert.Zero(t, OverlapEdges(p, q))
}

// CCTSize is the size of CCT's tree (its root left out), whether each
// context is a node of its own (frames without lines, counted) or some
// share one (lines, inlining, a function's name given twice: built),
// and on a hand-made table whose parent follows its child.
func TestCCTSizeIsTheCCTs(t *testing.T) {
	merged := 0 // "twice" profiles where two contexts share a node
	for set, names := range nameSets {
		for seed := range uint64(40) {
			r := rand.New(rand.NewPCG(seed, 29))
			p := randomProfile(r, names, 1+r.IntN(60), 1+r.IntN(12))
			// Without lines or inlining, every context is a node.
			b := NewBuilder(p.Source, p.Unit, p.PeriodNanos)
			for _, f := range p.Functions {
				b.Func(f)
			}
			for i, st := range refStacks(p) {
				for k := range st {
					st[k].Line, st[k].Inlined = 0, false
				}
				b.AddSample(st, p.Samples[i].Count, p.Samples[i].Weight, p.ThreadName(i))
			}
			plain := b.Build()
			// A function's name given twice: its contexts merge in the tree.
			twice := &Profile{Functions: slices.Clone(plain.Functions), Contexts: plain.Contexts,
				Samples: plain.Samples, Threads: plain.Threads}
			twice.Functions[1].Name = twice.Functions[0].Name
			if len(twice.CCT().Nodes) < len(twice.Contexts) {
				merged++
			}
			for what, q := range map[string]*Profile{"lines": p, "plain": plain, "twice": twice} {
				assert.Equal(t, len(q.CCT().Nodes)-1, q.CCTSize(), "%s seed %d, %s", set, seed, what)
			}
			assert.Equal(t, len(plain.Contexts)-1, plain.CCTSize(), "%s seed %d: a Builder's contexts are nodes", set, seed)
		}
	}
	assert.Positive(t, merged)
	// Contexts whose parent comes after them.
	q := &Profile{Functions: []Function{{Name: "a"}, {Name: "b"}},
		Contexts: []Context{{Parent: -1}, {Parent: 2, Depth: 2, Frame: Frame{Func: 1}}, {Parent: 0, Depth: 1}},
		Samples:  []Sample{{Context: 1, Count: 1, Weight: 1}}}
	assert.Equal(t, 2, q.CCTSize())
	assert.Zero(t, (&Profile{}).CCTSize())
}
