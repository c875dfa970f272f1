package profile

import (
	"bytes"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// sample builds a profile: main→a→b (b inlined into a) and main→a→a (a
// recursive), plus edges.
func sample() *Profile {
	b := NewBuilder("test", "nanoseconds", 10_000_000)
	main := b.Func(Function{Name: "M.main", Class: "M", Method: "main", Signature: "()V", File: "M.java"})
	a := b.Func(Function{Name: "M.a", Class: "M", Method: "a", File: "M.java"})
	bb := b.Func(Function{Name: "M.b", Class: "M", Method: "b", File: "M.java"})
	b.AddSample([]Frame{{Func: int32(main), Line: 3}, {Func: int32(a), Line: 2}, {Func: int32(bb), Line: 1, Inlined: true}}, 6, 60, "t1")
	b.AddSample([]Frame{{Func: int32(main), Line: 3}, {Func: int32(a), Line: 4}, {Func: int32(a), Line: 1}}, 3, 30, "t1")
	b.AddSample([]Frame{{Func: int32(main), Line: 3}, {Func: int32(a), Line: 2}, {Func: int32(bb), Line: 1, Inlined: true}}, 1, 10, "t1") // merges
	b.AddSample([]Frame{{Func: int32(main), Line: 1}}, 1, 10, "t2")
	b.AddEdge(a, 2, bb, 5)
	b.AddEdge(main, 3, a, 7)
	b.AddEdge(a, 2, bb, 2) // merges
	return b.Build()
}

func TestBuilderMergesAndOrders(t *testing.T) {
	p := sample()
	require.Len(t, p.Samples, 3)
	assert.Equal(t, int64(11), p.TotalCount())
	assert.Equal(t, int64(110), p.TotalWeight())
	// Canonical order: by thread, then by stack names/lines.
	assert.Equal(t, "t1", p.ThreadName(0))
	// Same names up to M.a; line 2 < line 4, so the (merged) inlined-b
	// sample comes first.
	assert.Equal(t, int64(70), p.Samples[0].Weight)
	require.Len(t, p.Edges, 2)
	assert.Equal(t, "M.a", p.Functions[p.Edges[0].Caller].Name)
	assert.Equal(t, int64(7), p.Edges[0].Weight)
	// Adding in another order gives the same profile.
	b := NewBuilder("test", "nanoseconds", 10_000_000)
	main := b.Func(Function{Name: "M.main", Class: "M", Method: "main", Signature: "()V", File: "M.java"})
	a := b.Func(Function{Name: "M.a", Class: "M", Method: "a", File: "M.java"})
	bb := b.Func(Function{Name: "M.b", Class: "M", Method: "b", File: "M.java"})
	b.AddEdge(a, 2, bb, 7)
	b.AddSample([]Frame{{Func: int32(main), Line: 1}}, 1, 10, "t2")
	b.AddSample([]Frame{{Func: int32(main), Line: 3}, {Func: int32(a), Line: 4}, {Func: int32(a), Line: 1}}, 3, 30, "t1")
	b.AddSample([]Frame{{Func: int32(main), Line: 3}, {Func: int32(a), Line: 2}, {Func: int32(bb), Line: 1, Inlined: true}}, 7, 70, "t1")
	b.AddEdge(main, 3, a, 7)
	assert.Equal(t, p, b.Build())
}

func TestFlatCountsRecursionOnce(t *testing.T) {
	flat := sample().Flat()
	require.Len(t, flat, 3)
	// Weights: b 70 (self), a 30 (self, recursive), main 10 (self).
	assert.Equal(t, MethodShare{Name: "M.b", Self: 70, Total: 70, SelfShare: 70.0 / 110, TotalShare: 70.0 / 110}, flat[0])
	assert.Equal(t, MethodShare{Name: "M.a", Self: 30, Total: 100, SelfShare: 30.0 / 110, TotalShare: 100.0 / 110}, flat[1])
	assert.Equal(t, MethodShare{Name: "M.main", Self: 10, Total: 110, SelfShare: 10.0 / 110, TotalShare: 1}, flat[2])
	assert.Equal(t, []string{"M.b", "M.a"}, sample().TopMethods(2))
}

func TestCCT(t *testing.T) {
	c := sample().CCT()
	paths := map[string][2]int64{}
	for i := range c.Nodes {
		paths[strings.Join(c.Frames(i), " ")] = [2]int64{c.Nodes[i].Self, c.Nodes[i].Total}
		assert.Equal(t, JoinFrames(c.Frames(i)), c.Path(i))
	}
	assert.Equal(t, map[string][2]int64{
		"": {0, 110}, "M.main": {10, 110}, "M.main M.a": {0, 100},
		"M.main M.a M.b": {70, 70}, "M.main M.a M.a": {30, 30},
	}, paths)
}

func TestOverlap(t *testing.T) {
	cases := []struct {
		name string
		p, q []float64
		want float64
	}{
		{"identical", []float64{1, 2, 3}, []float64{1, 2, 3}, 1},
		{"scaled", []float64{1, 2, 3}, []float64{10, 20, 30}, 1},
		{"disjoint", []float64{1, 0}, []float64{0, 1}, 0},
		// p = (.5, .5, 0), q = (.25, .25, .5): min sum = .25 + .25 + 0.
		{"worked", []float64{1, 1, 0}, []float64{1, 1, 2}, 0.5},
		{"empty", []float64{0, 0}, []float64{1, 1}, 0},
	}
	for _, c := range cases {
		assert.InDelta(t, c.want, Overlap(c.p, c.q), 1e-12, c.name) // exact arithmetic up to rounding
	}
	assert.Panics(t, func() { Overlap([]float64{1}, []float64{1, 2}) })
	p := sample()
	assert.InDelta(t, 1, OverlapContexts(p, p), 1e-12)
	assert.InDelta(t, 1, OverlapEdges(p, p), 1e-12)
	assert.InDelta(t, 1, OverlapMethods(p, p), 1e-12)
}

func TestHotEdgeCoverage(t *testing.T) {
	// ref max 100 → hot: ≥ 10 → entries 0, 1, 2. other max 50 → hot ≥ 5:
	// entries 0, 2, 3. Covered: 0 and 2 → 2/3.
	ref := []float64{100, 10, 50, 9}
	other := []float64{50, 4, 5, 40}
	assert.InDelta(t, 2.0/3, HotEdgeCoverage(ref, other, 0.1), 1e-12)
	assert.InDelta(t, 1, HotEdgeCoverage(ref, ref, 0.1), 1e-12)
	assert.Equal(t, 0.0, HotEdgeCoverage([]float64{0, 0}, []float64{1, 1}, 0.1))
	assert.Panics(t, func() { HotEdgeCoverage(ref, other, 0) })
}

func TestUnionNAndHotness(t *testing.T) {
	r := [][]string{{"a", "b", "c"}, {"a", "c", "d"}, {"b", "a"}}
	assert.Equal(t, 2, UnionN(r, 1))
	assert.Equal(t, 3, UnionN(r, 2))
	assert.Equal(t, 4, UnionN(r, 3))
	assert.InDelta(t, 100*70.0/110, Hotness(sample(), "M.b"), 1e-9)
	assert.Equal(t, 0.0, Hotness(sample(), "nope"))
}

func TestPearsonAndSlope(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5}
	y := []float64{3, 5, 7, 9, 11} // y = 1 + 2x exactly
	assert.InDelta(t, 1, Pearson(x, y), 1e-12)
	a, b := Slope(x, y)
	assert.InDelta(t, 1, a, 1e-12)
	assert.InDelta(t, 2, b, 1e-12)
	assert.InDelta(t, -1, Pearson(x, []float64{5, 4, 3, 2, 1}), 1e-12)
}

func TestAutocorrelation(t *testing.T) {
	alt := make([]float64, 1000)
	for i := range alt {
		alt[i] = float64(i % 2)
	}
	acf := Autocorrelation(alt, 2)
	assert.InDelta(t, -1, acf[0], 0.01) // (N−1)/N ≈ 0.999
	assert.InDelta(t, 1, acf[1], 0.01)

	r := rand.New(rand.NewPCG(4, 5))
	noise := make([]float64, 5000)
	for i := range noise {
		noise[i] = r.Float64()
	}
	band := ACFBand(len(noise))
	outside := 0
	for _, v := range Autocorrelation(noise, 100) {
		if math.Abs(v) > band {
			outside++
		}
	}
	assert.LessOrEqual(t, outside, 10, "≈5 %% of 100 lags may leave a 95 %% band") // generous: 2× expectation
	assert.True(t, math.IsNaN(Autocorrelation([]float64{1, 1, 1}, 1)[0]))
	assert.Equal(t, []float64{5, 10}, Intervals([]int64{15, 0, 5}))
}

func TestPprofRoundTrip(t *testing.T) {
	p := sample()
	var buf bytes.Buffer
	require.NoError(t, WritePprof(&buf, p))
	pp, err := pprof.Parse(&buf)
	require.NoError(t, err)
	require.NoError(t, pp.CheckValid())
	assert.Equal(t, int64(10_000_000), pp.Period)
	assert.Equal(t, "cpu", pp.SampleType[1].Type)
	require.Len(t, pp.Sample, 3)
	var total int64
	for _, s := range pp.Sample {
		total += s.Value[1]
	}
	assert.Equal(t, p.TotalWeight(), total)
	// The inlined-b sample: leaf location holds b (innermost) then a.
	s0 := pp.Sample[0]
	require.Len(t, s0.Location, 2, "b inlined into a: two physical frames")
	require.Len(t, s0.Location[0].Line, 2)
	assert.Equal(t, "M.b", s0.Location[0].Line[0].Function.Name)
	assert.Equal(t, "M.a", s0.Location[0].Line[1].Function.Name)
	assert.Equal(t, "M.main", s0.Location[1].Line[0].Function.Name)
	assert.Equal(t, []string{"t1"}, s0.Label["thread"])
	assert.Equal(t, "M.main()V", s0.Location[1].Line[0].Function.SystemName)
}

func TestFoldedGolden(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteFolded(&buf, sample()))
	path := filepath.Join("testdata", "sample.folded")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run 'go test ./profile -update' to create it")
	assert.Equal(t, string(want), buf.String())
}

func TestJSONRoundTrip(t *testing.T) {
	p := sample()
	var buf bytes.Buffer
	require.NoError(t, WriteJSON(&buf, p))
	q, err := ReadJSON(&buf)
	require.NoError(t, err)
	assert.Equal(t, p, q)
}

func TestValidateNamesTheField(t *testing.T) {
	cases := []struct {
		mut  func(*Profile)
		want string
	}{
		{func(p *Profile) { p.Contexts[2].Frame.Func = 9 }, "contexts[2].frame.func: index 9 out of range (3 functions)"},
		{func(p *Profile) { p.Contexts[2].Parent = 2 }, "contexts[2].parent: 2 is not an earlier context"},
		{func(p *Profile) { p.Contexts[2].Depth = 5 }, "contexts[2].depth: 5, not its parent's plus one (1)"},
		{func(p *Profile) { p.Samples[1].Context = 99 }, "samples[1].context: index 99 out of range"},
		{func(p *Profile) { p.Samples[1].Thread = 7 }, "samples[1].thread: 7 is not 0 or 1 plus an index into threads (2 threads)"},
		{func(p *Profile) { p.Edges[0].Callee = -1 }, "edges[0].callee: index -1 out of range"},
		{func(p *Profile) { p.Unit = "furlongs" }, `unit: "furlongs"`},
		{func(p *Profile) { p.Samples[0].Weight = -1 }, "samples[0]: negative"},
		{func(p *Profile) { p.Functions[2].Name = "M.a" }, `functions[2].name: "M.a" duplicates functions[1]`},
	}
	for _, c := range cases {
		p := sample()
		c.mut(p)
		err := p.Validate()
		require.Error(t, err)
		assert.Contains(t, err.Error(), c.want)
	}
}

func FuzzReadJSON(f *testing.F) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, sample()); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(`{"source":"x","unit":"bytecodes","functions":[{"name":"a"}],"samples":[{"stack":[{"func":0}],"count":1,"weight":2}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ReadJSON(bytes.NewReader(data))
		if err != nil {
			return
		}
		// Anything valid must survive every view and export.
		p.Flat()
		p.CCT()
		OverlapContexts(p, p)
		OverlapEdges(p, p)
		var out bytes.Buffer
		if err := WritePprof(&out, p); err != nil && !strings.Contains(err.Error(), "pprof") {
			t.Fatalf("WritePprof: %v", err)
		}
		require.NoError(t, WriteFolded(&out, p))
	})
}
