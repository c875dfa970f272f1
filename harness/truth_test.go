package harness

import (
	"testing"

	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runTruth runs p on a bare VM (no JIT, no sampler) and returns it.
func runTruth(t *testing.T, p *program.Program, d sim.Time) *sim.VM {
	t.Helper()
	cfg := sim.DefaultConfig()
	cfg.Duration = d
	img, err := sim.NewImage(p, cfg.Cost)
	require.NoError(t, err)
	vm, err := sim.New(img, cfg)
	require.NoError(t, err)
	vm.Run()
	require.NoError(t, vm.Err())
	return vm
}

// The truth profile holds the truth exactly: its weights per (method,
// leaf line) are the CCT's self ns per line, its edges the edge counts;
// the bytecode profile's weights per context are the CCT's bytecodes.
func TestTruthProfiles(t *testing.T) {
	p, err := workloads.Get("deepcall")
	require.NoError(t, err)
	vm := runTruth(t, p, 5*sim.Millisecond)
	r := vm.Result()
	tr := r.Truth

	prof := TruthProfile(tr, r.Image)
	assert.Equal(t, "nanoseconds", prof.Unit)
	assert.Equal(t, int64(tr.SelfTotal()), prof.TotalWeight())
	type at struct {
		method string
		line   int
	}
	want, got := map[at]int64{}, map[at]int64{}
	for i := int32(1); int(i) < tr.NodeCount(); i++ {
		for line := range tr.NodeLines(i) {
			if w := tr.LineSelf(i, line); w != 0 {
				want[at{r.Image.Names[tr.Node(i).Method], line}] += int64(w)
			}
		}
	}
	var stack []profile.Frame
	for i, s := range prof.Samples {
		stack = prof.Stack(i, stack)
		leaf := stack[len(stack)-1]
		assert.Equal(t, s.Weight, s.Count)
		got[at{prof.Functions[leaf.Func].Name, int(leaf.Line)}] += s.Weight
		for _, f := range stack[:len(stack)-1] {
			assert.Zero(t, f.Line, "a caller's frame has no line")
		}
	}
	assert.Equal(t, want, got)
	require.NotEmpty(t, prof.Edges)
	type edge struct {
		caller, callee string
		site           int
	}
	edges, gotEdges := map[edge]int64{}, map[edge]int64{}
	for i, e := range r.Image.Edges {
		if c := tr.EdgeCount(i); c > 0 {
			edges[edge{r.Image.Names[e.Caller], r.Image.Names[e.Callee], int(e.Line)}] += c
		}
	}
	for _, e := range prof.Edges {
		gotEdges[edge{prof.Functions[e.Caller].Name, prof.Functions[e.Callee].Name, e.Site}] += e.Weight
	}
	assert.Equal(t, edges, gotEdges)

	bc := TruthBytecodeProfile(tr, r.Image)
	assert.Equal(t, "bytecodes", bc.Unit)
	assert.Equal(t, tr.BytecodeTotal(), bc.TotalWeight())
	var contexts int
	for _, n := range tr.Nodes() {
		if n.Bytecodes != 0 {
			contexts++
		}
	}
	assert.Len(t, bc.Samples, contexts, "one sample per context with bytecodes")
	for i := range bc.Samples {
		leaf, ok := bc.Leaf(i)
		require.True(t, ok)
		assert.Zero(t, leaf.Line)
	}
}

// sim's footprint estimate counts the truth profile as TruthProfile
// builds it: one sample per (context, line) with self time, each with its
// whole stack.
func TestTruthProfileFootprint(t *testing.T) {
	p, err := program.Parse([]byte(`
name: lines
methods:
  - {class: A, name: main, body: [{work: {cycles: 100, bytecodes: 1}}, {call: {method: A.g}}, {work: {cycles: 100, bytecodes: 1}}]}
  - {class: A, name: g, body: [{work: {cycles: 100, bytecodes: 1}}, {work: {cycles: 100, bytecodes: 1}}]}
threads: [{name: main, entry: A.main}]
`), program.YAML)
	require.NoError(t, err)
	vm := runTruth(t, p, sim.Second)
	r := vm.Result()
	prof := TruthProfile(r.Truth, r.Image)
	f := vm.Footprint()
	assert.Equal(t, int64(len(prof.Samples)), f.Samples)
	var frames int64
	for i := range prof.Samples {
		frames += int64(prof.Depth(i))
	}
	assert.Equal(t, frames, f.StackFrames)
	// The priced contexts cover the table: a line-0 context per node at
	// most, a leaf context per sample of another line.
	assert.LessOrEqual(t, int64(len(prof.Contexts)-1), f.ProfileContexts+f.Samples)
}

// The truth profiles, whose samples are made in canonical order without
// the Builder, equal those the Builder makes from the same samples (which
// merges and sorts them), on programs with deep recursion, many threads
// and many contexts.
func TestTruthProfilesCanonical(t *testing.T) {
	for _, c := range []struct {
		name string
		d    sim.Time
	}{{"deepcall", 5 * sim.Millisecond}, {"javac", 5 * sim.Millisecond}, {"kiama", sim.Millisecond}, {"tmt", 5 * sim.Millisecond}, {"tradebeans", 5 * sim.Millisecond}} {
		t.Run(c.name, func(t *testing.T) {
			p, err := workloads.Get(c.name)
			require.NoError(t, err)
			vm := runTruth(t, p, c.d)
			r := vm.Result()
			tr := r.Truth
			viaBuilder := func(source, unit string, weights func(int32, []int64) []int64) *profile.Profile {
				b := profile.NewBuilder(source, unit, 0)
				fn := samplers.Functions(b, r.Image)
				if source == "truth" {
					for i, e := range r.Image.Edges {
						if c := tr.EdgeCount(i); c > 0 {
							b.AddEdge(fn[e.Caller], int(e.Line), fn[e.Callee], c)
						}
					}
				}
				return builderSamples(b, fn, tr, weights)
			}
			// The node's lines one by one (LineSelf), not LineSelves.
			want := viaBuilder("truth", "nanoseconds", func(n int32, buf []int64) []int64 {
				for l := range tr.NodeLines(n) {
					buf = append(buf, int64(tr.LineSelf(n, l)))
				}
				return buf
			})
			got := TruthProfile(tr, r.Image)
			require.NotEmpty(t, got.Samples)
			assert.Equal(t, want, got)
			want = viaBuilder("truth-bytecodes", "bytecodes", func(n int32, buf []int64) []int64 { return append(buf, tr.Node(n).Bytecodes) })
			assert.Equal(t, want, TruthBytecodeProfile(tr, r.Image))
		})
	}
}

// perMethodSums is the truth summed by method: self ns, bytecodes, calls
// and allocated bytes per method, and self ns per (method, line).
type perMethodSums struct {
	self, bytecodes, calls, alloc map[string]int64
	lines                         map[string][]int64
}

func sumByMethod(tr *sim.Truth, names []string) perMethodSums {
	s := perMethodSums{map[string]int64{}, map[string]int64{}, map[string]int64{}, map[string]int64{}, map[string][]int64{}}
	for i := int32(1); int(i) < tr.NodeCount(); i++ {
		n := tr.Node(i)
		m := names[n.Method]
		s.self[m] += int64(n.Self)
		s.bytecodes[m] += n.Bytecodes
		s.calls[m] += n.Calls
		s.alloc[m] += n.AllocBytes
		for len(s.lines[m]) < tr.NodeLines(i) {
			s.lines[m] = append(s.lines[m], 0)
		}
		for l := range tr.NodeLines(i) {
			s.lines[m][l] += int64(tr.LineSelf(i, l))
		}
	}
	return s
}

// A truth per method is the calling-context tree summed by method, on a
// run that executes exactly as with the tree: the same end, statements and
// samplers' profiles, with and without inlining, threads and recursion.
func TestTruthPerMethodIsTheTreeSummedByMethod(t *testing.T) {
	for _, w := range []string{"deepcall", "jython", "javac", "avrora", "hotcold"} {
		t.Run(w, func(t *testing.T) {
			p, err := workloads.Get(w)
			require.NoError(t, err)
			cfg := MustPresetConfig("hotspot6")
			cfg.Sim.Duration = 30 * sim.Millisecond
			cfg.Samplers = []string{"async", "safepoint", "jfr"}
			tree, err := Run(p, cfg)
			require.NoError(t, err)
			cfg.TruthPerMethod = true
			flat, err := Run(p, cfg)
			require.NoError(t, err)

			assert.True(t, flat.Result.Truth.PerMethod())
			assert.False(t, tree.Result.Truth.PerMethod())
			assert.Equal(t, tree.Result.End, flat.Result.End)
			assert.Equal(t, tree.Result.Statements, flat.Result.Statements)
			for _, n := range cfg.Samplers {
				assert.Equal(t, tree.Profiles[n], flat.Profiles[n], n)
			}
			names := tree.Image.Names
			assert.Equal(t, sumByMethod(tree.Result.Truth, names), sumByMethod(flat.Result.Truth, names))
			assert.Equal(t, tree.Result.Truth.SelfTotal(), flat.Result.Truth.SelfTotal())
			assert.Equal(t, tree.Result.Truth.BytecodeTotal(), flat.Result.Truth.BytecodeTotal())
			assert.Equal(t, tree.Profiles["truth"].MethodWeights(), flat.Profiles["truth"].MethodWeights())

			seen := map[int32]bool{}
			for _, n := range flat.Result.Truth.Nodes()[1:] {
				assert.Zero(t, n.Parent, "every context is a child of the root")
				assert.False(t, seen[n.Method], "one context per method")
				seen[n.Method] = true
			}
			if w != "hotcold" { // hotcold has a context per method
				assert.Less(t, flat.Result.Truth.NodeCount(), tree.Result.Truth.NodeCount())
			}
		})
	}
}

// With ReleaseTruth, Collect builds the same truth profile and releases
// the recorder's calling contexts.
func TestReleaseTruthSameProfile(t *testing.T) {
	for _, name := range []string{"deepcall", "kawa", "hotcold"} {
		p, err := workloads.Get(name)
		require.NoError(t, err)
		cfg := MustPresetConfig("hotspot6")
		cfg.Sim.Duration = 20 * sim.Millisecond
		cfg.Samplers = []string{"async"}
		kept, err := Run(p, cfg)
		require.NoError(t, err)
		cfg.ReleaseTruth = true
		released, err := Run(p, cfg)
		require.NoError(t, err)
		assert.Equal(t, kept.Profiles, released.Profiles, name)
		assert.Equal(t, kept.Footprint, released.Footprint, name)
		assert.Panics(t, func() { released.Result.Truth.NodeCount() }, name)
		assert.NotPanics(t, func() { kept.Result.Truth.NodeCount() }, name)
	}
}

// Collect counts the truth profile's samples and frames in the pass that
// builds it: its footprint is the VM's (whose Truth.profileSize counts
// them in a pass of their own), and a memory limit the profile would pass
// stops Collect as CheckFootprint does, before the recorder is released,
// also where the pass finds it past the limit while it copies.
func TestCollectFootprintAndLimit(t *testing.T) {
	for _, name := range []string{"deepcall", "javac", "kawa"} {
		t.Run(name, func(t *testing.T) {
			p, err := workloads.Get(name)
			require.NoError(t, err)
			cfg := MustPresetConfig("hotspot17")
			cfg.Sim.Duration = 20 * sim.Millisecond
			cfg.Samplers = []string{"async"}
			run := func(cfg Config) (*Rig, *Outcome, error) {
				rig, err := Build(p, cfg)
				require.NoError(t, err)
				require.False(t, rig.RunUntil(cfg.Sim.Duration))
				require.NoError(t, rig.Err())
				out, err := rig.Collect()
				return rig, out, err
			}
			rig, out, err := run(cfg)
			require.NoError(t, err)
			f := rig.VM().Footprint()
			if name == "javac" {
				// The second limit below is then passed while the pass
				// copies, at its second chunk of lines.
				require.Less(t, f.Contexts, int64(40_000))
				require.Greater(t, f.Samples, int64(2*lineWeightsChunk))
			}
			assert.Equal(t, f, out.Footprint)
			assert.Equal(t, int64(len(out.Profiles["truth"].Samples)), f.Samples)

			cfg.ReleaseTruth = true
			for _, limit := range []int64{f.Bytes() - 1, rig.VM().FootprintWith(max(f.Contexts, 40_000), 0).Bytes()} {
				if limit >= f.Bytes() {
					continue // too few samples to pass it
				}
				cfg.Sim.Limits.MaxMemory = limit
				rig, out, err := run(cfg)
				var le *sim.LimitError
				require.ErrorAs(t, err, &le)
				assert.Nil(t, out)
				assert.Equal(t, f.Bytes(), le.Value, "the whole profile's footprint")
				assert.Equal(t, limit, le.Max)
				assert.NotPanics(t, func() { rig.VM().Truth().NodeCount() }, "not released")
			}
		})
	}
}
