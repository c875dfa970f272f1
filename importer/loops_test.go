package importer

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/classfile"
	"github.com/profsim/profsim/program"
)

// testdata/loops/Loops.class: phrase(II)I has 6 bytes outside its loops
// ([0,4) and [60,62)), an outer loop [4,60) with 25 bytes of its own
// ([4,23) and [54,60)) and an inner loop [23,54) of 31 bytes; main calls
// it at bytecode index 17, inside main's own loop; once(I)I calls it at 3,
// outside any loop.
const (
	loopsTopBCI                                     = 60 // iload_2 before ireturn: outside the loops
	loopsOuterBCI                                   = 9  // the outer loop's own code
	loopsInnerBCI                                   = 29 // the inner loop's body
	loopsTopBytes, loopsOuterBytes, loopsInnerBytes = 6, 25, 31
)

// mainCaller and onceCaller are the frames below phrase: a caller whose
// call sits in a loop, or a thread's root that calls phrase once.
var (
	mainCaller = "Loops.main@17"
	onceCaller = "Loops.once@3"
)

func importLoops(t *testing.T, caller string, top, outer, inner int) *program.Program {
	t.Helper()
	return importLoopsModel(t, caller, top, outer, inner, Options{}).Program
}

func importLoopsModel(t *testing.T, caller string, top, outer, inner int, opt Options) *Model {
	t.Helper()
	return importLoopsAt(t, caller, "Loops.phrase", map[int]int{loopsTopBCI: top, loopsOuterBCI: outer, loopsInnerBCI: inner},
		map[string]string{"main": "([Ljava/lang/String;)V", "phrase": "(II)I", "once": "(I)I"}, opt)
}

// importLoopsAt imports, with testdata/loops on the classpath, thread
// main's samples of method (Class.name) at the bytecode indexes given,
// called from caller (Class.name@bci); desc gives the methods'
// descriptors by name.
func importLoopsAt(t *testing.T, caller, method string, at map[int]int, desc map[string]string, opt Options) *Model {
	t.Helper()
	var samples []struct {
		thread string
		stack  []string
		n      int
	}
	bcis := make([]int, 0, len(at))
	for bci := range at {
		bcis = append(bcis, bci)
	}
	sort.Ints(bcis)
	for _, bci := range bcis {
		if n := at[bci]; n > 0 {
			samples = append(samples, struct {
				thread string
				stack  []string
				n      int
			}{"main", []string{caller, method + "@" + strconv.Itoa(bci)}, n})
		}
	}
	data := jfrJSONDesc(t, samples, desc)
	cp, err := classfile.OpenClasspath("testdata/loops")
	require.NoError(t, err)
	defer cp.Close()
	m, err := Import(bytes.NewReader(data), cp, opt)
	require.NoError(t, err)
	require.Empty(t, m.Report.NoClassFile)
	return m
}

// loopsOf lists the loop statements of stmts, outer before inner.
func loopsOf(stmts []program.Stmt) []*program.Loop {
	var out []*program.Loop
	for i := range stmts {
		s := &stmts[i]
		switch {
		case s.Loop != nil:
			out = append(out, s.Loop)
			out = append(out, loopsOf(s.Loop.Body)...)
		case s.Branch != nil:
			out = append(out, loopsOf(s.Branch.Then)...)
			out = append(out, loopsOf(s.Branch.Else)...)
		}
	}
	return out
}

func phraseLoops(t *testing.T, p *program.Program) (outer, inner *program.Loop) {
	t.Helper()
	for i := range p.Methods {
		if p.Methods[i].Name == "phrase" {
			ls := loopsOf(p.Methods[i].Body)
			require.Len(t, ls, 2)
			return ls[0], ls[1]
		}
	}
	t.Fatal("no phrase in the model")
	return nil, nil
}

// A loop sampled inside runs, per pass of the code that encloses it, as
// many trips as its samples per byte over that code's: here the method's
// own code outside the loops is as densely sampled as the inner loop
// (phraseFreq's shape in lusearch, where its return path holds many
// samples), so measuring the inner loop against the method's calls gave
// it one trip; against the outer loop's own code it has ten.
func TestLoopTripsFromSamples(t *testing.T) {
	const top, outer, inner = 60, 25, 310
	p := importLoops(t, mainCaller, top, outer, inner)
	lo, li := phraseLoops(t, p)
	want := (float64(inner) / loopsInnerBytes) / (float64(outer) / loopsOuterBytes)
	require.Equal(t, 10.0, want)
	assert.Equal(t, *program.Const(1), *lo.Trips, "outer: sampled less densely than the method's own code")
	assert.Equal(t, *program.Const(10), *li.Trips, "inner: its samples per byte over the outer loop's")
}

// When the enclosing code has no samples the loop's trips come from its
// own samples at NanosPerByte per byte against the enclosing region's
// planned passes.
func TestLoopTripsUnsampledParent(t *testing.T) {
	// phrase's calls: half a sample's time (no top-level samples) at
	// 1 ns per byte over 6 bytes; the outer loop: 25 samples of 25 bytes.
	p := importLoops(t, mainCaller, 0, 25, 0)
	lo, li := phraseLoops(t, p)
	calls := 0.5 * 1e6 / loopsTopBytes
	passes := 25 * 1e6 / loopsOuterBytes
	tr, _ := realizeTrips(passes / calls)
	assert.Equal(t, *tr, *lo.Trips)
	assert.Equal(t, *program.Const(1), *li.Trips, "inner: never sampled")
}

// When the method's calls are bounded by its callers (once calls phrase
// once), its own code outside loops costs more per byte than the fit's
// NanosPerByte, as code outside loops does (allocations, the samples its
// loops' compiled code leaves on it); a loop is then not measured by that
// code alone: its own samples at NanosPerByte per byte still set its
// trips. Measuring loops only against the enclosing code would give the
// outer loop one trip here.
func TestLoopTripsBoundedCalls(t *testing.T) {
	const top, outer, inner = 60, 25, 310
	p := importLoops(t, onceCaller, top, outer, inner)
	lo, li := phraseLoops(t, p)
	passes := float64(outer) * 1e6 / loopsOuterBytes // one call
	tr, _ := realizeTrips(passes)
	assert.Equal(t, *tr, *lo.Trips)
	assert.Equal(t, *program.Const(10), *li.Trips)
}

// A method whose bytecode holds a check C2 guards with an uncommon trap
// is marked Traps (program.Method.Traps): Loops.phrase reads a[i & 63]
// (an array load: its range check); Loops.once only calls it.
func TestTrapsFromTheBytecode(t *testing.T) {
	p := importLoops(t, onceCaller, 5, 10, 80)
	traps := map[string]bool{}
	for _, m := range p.Methods {
		traps[m.Name] = m.Traps
	}
	assert.True(t, traps["phrase"], "an array load's range check")
	assert.False(t, traps["once"], "a call and a return: no trap")
}

// A counted loop whose start or limit the class file computes at run
// time is marked so, whatever constant trip count the samples fit it:
// phrase's loops run to n and m, its arguments; main's to the literals
// 1_000_000 and 1_000 from 0. (The JIT reads a constant trip count as a
// literal bound otherwise, and drops the poll of a short loop that C2
// strip-mines.) main's call of phrase, made on every trip of its loop, is
// the one call marked every_trip.
func TestLoopBoundsFromTheClassFile(t *testing.T) {
	m := importLoopsModel(t, mainCaller, 60, 25, 310, Options{})
	p := m.Program
	lo, li := phraseLoops(t, p)
	assert.True(t, lo.RuntimeBound, "outer: i < n")
	assert.True(t, li.RuntimeBound, "inner: j < m")
	var mainLoops []*program.Loop
	for i := range p.Methods {
		if p.Methods[i].Name == "main" {
			mainLoops = loopsOf(p.Methods[i].Body)
		}
	}
	require.NotEmpty(t, mainLoops, "main's loop holds the sampled call")
	for _, l := range mainLoops {
		assert.False(t, l.RuntimeBound, "main: k < 1_000_000 from 0")
		assert.False(t, l.Uncounted)
	}
	assert.Equal(t, LoopKinds{RuntimeBound: 2, Literal: len(mainLoops), EveryTripCalls: 1}, m.Report.Loops)
	var b strings.Builder
	WriteReport(&b, "Loops.yaml", m)
	assert.Contains(t, b.String(), fmt.Sprintf("loops: %d from the class files: 0 uncounted", 2+len(mainLoops)))
}

// IgnoreLoopBounds (--no-loop-bounds) leaves every loop unmarked, and
// the report counts them all as literal.
func TestIgnoreLoopBounds(t *testing.T) {
	m := importLoopsModel(t, mainCaller, 60, 25, 310, Options{IgnoreLoopBounds: true})
	lo, li := phraseLoops(t, m.Program)
	assert.False(t, lo.RuntimeBound)
	assert.False(t, li.RuntimeBound)
	assert.Zero(t, m.Report.Loops.RuntimeBound)
	assert.Positive(t, m.Report.Loops.Literal)
}

// testdata/loops/Loops.class: next(I)I is one loop, [0,55), left from
// inside its body by two returns (its exit code, at 7 and 42); every trip
// that goes round again runs its round code [0,42) (40 bytes) and then its
// latch code, skipped++ ([44,52), 8 bytes, and the back branch); drive
// calls it at 14, in its own loop.
const (
	nextRoundBCI, nextLatchBCI     = 20, 44
	nextRoundBytes, nextLatchBytes = 40, 8
)

// importNext imports samples of next at its round code and at its latch
// code, called from drive.
func importNext(t *testing.T, round, latch int, opt Options) *Model {
	t.Helper()
	return importLoopsAt(t, "Loops.drive@14", "Loops.next", map[int]int{nextRoundBCI: round, nextLatchBCI: latch},
		map[string]string{"drive": "()I", "next": "(I)I"}, opt)
}

// nextLoop is next's one loop.
func nextLoop(t *testing.T, p *program.Program) *program.Loop {
	t.Helper()
	for i := range p.Methods {
		if p.Methods[i].Name == "next" {
			ls := loopsOf(p.Methods[i].Body)
			require.Len(t, ls, 1)
			return ls[0]
		}
	}
	t.Fatal("no method next")
	return nil
}

// A trip of next's loop that goes round again runs its latch code once
// and its round code once, and the trip that leaves by the second return
// runs the round code: the samples per byte of the two count the trips,
// whatever the code costs. With none on the latch the loop runs once per
// call (BlockDocsEnum.nextDoc without deleted documents, whose back-edge
// poll C2 never meets); with a third of the round code's density it goes
// round half a time per call (trips 1 or 2).
func TestLoopTripsFromPaths(t *testing.T) {
	const round = 300
	for _, c := range []struct {
		name  string
		latch int
		want  program.Dist
	}{
		{"never round again", 0, *program.Const(1)},
		{"round half a time a call", round / 3 * nextLatchBytes / nextRoundBytes, program.Dist{Kind: program.Uniform, A: 1, B: 2}},
	} {
		m := importNext(t, round, c.latch, Options{})
		assert.Equal(t, c.want, *nextLoop(t, m.Program).Trips, c.name)
		assert.Equal(t, 1, m.Report.Loops.FromPaths, c.name)
	}
}

// The trips come from the cost of the loop's code, as without paths, for
// a loop tested at its head (phrase's: its inner loop has no samples, its
// outer loop's latch none), where the latch is half as dense as the round
// code or more (the loop goes round once a call or more), where the round
// code has fewer than MinRoundSamples samples, and with IgnoreLoopPaths
// (--no-loop-paths): next's 300 samples over its calls give it more than
// one trip.
func TestLoopTripsFromPathsNeedsSamples(t *testing.T) {
	for name, m := range map[string]*Model{
		"tested at its head": importLoopsModel(t, mainCaller, 60, 25, 0, Options{}),
		"round once a call":  importNext(t, 300, 300/2*nextLatchBytes/nextRoundBytes, Options{}),
		"few samples":        importNext(t, MinRoundSamples-1, 0, Options{}),
		"ignored":            importNext(t, 300, 0, Options{IgnoreLoopPaths: true}),
	} {
		assert.Zero(t, m.Report.Loops.FromPaths, name)
		if name != "few samples" && name != "tested at its head" {
			assert.Greater(t, nextLoop(t, m.Program).Trips.Mean(), 1.0, name)
		}
	}
}

// The import marks the calls the class file makes on every trip of their
// loop going round: drive's call of next (bci 14) is in its for loop's
// body, which every such trip runs. With IgnoreEveryTripCalls
// (--no-every-trip-calls) nothing is marked.
func TestEveryTripCalls(t *testing.T) {
	for _, on := range []bool{false, true} {
		m := importNext(t, 300, 0, Options{IgnoreEveryTripCalls: !on})
		var calls []*program.Call
		for i := range m.Program.Methods {
			if m.Program.Methods[i].Name == "drive" {
				program.Walk(m.Program.Methods[i].Body, func(s *program.Stmt) {
					if s.Call != nil {
						calls = append(calls, s.Call)
					}
				})
			}
		}
		require.Len(t, calls, 1)
		assert.Equal(t, on, calls[0].EveryTrip)
		assert.Equal(t, map[bool]int{false: 0, true: 1}[on], m.Report.Loops.EveryTripCalls)
		var b strings.Builder
		WriteReport(&b, "Loops.yaml", m)
		assert.Equal(t, on, strings.Contains(b.String(), "every-trip calls: 1 call sites"), "the report says so")
	}
}
