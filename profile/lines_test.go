package profile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// linesProfile: total weight 100; leaves M.b:1 (40, from two stacks that
// differ above the leaf), M.a:7 (20), M.a:3 (20), M.c with no line (20),
// an empty stack (0) and a weightless sample that must not make a row.
func linesProfile() *Profile {
	b := NewBuilder("test", "nanoseconds", 10)
	main := b.Func(Function{Name: "M.main"})
	a := b.Func(Function{Name: "M.a"})
	bb := b.Func(Function{Name: "M.b"})
	c := b.Func(Function{Name: "M.c"})
	d := b.Func(Function{Name: "M.d"})
	b.AddSample([]Frame{{Func: int32(main), Line: 2}, {Func: int32(a), Line: 5}, {Func: int32(bb), Line: 1}}, 3, 30, "t1")
	b.AddSample([]Frame{{Func: int32(main), Line: 4}, {Func: int32(bb), Line: 1, Inlined: true}}, 1, 10, "t2")
	b.AddSample([]Frame{{Func: int32(main), Line: 2}, {Func: int32(a), Line: 7}}, 2, 20, "t1")
	b.AddSample([]Frame{{Func: int32(main), Line: 2}, {Func: int32(a), Line: 3}}, 2, 20, "t1")
	b.AddSample([]Frame{{Func: int32(c)}}, 2, 20, "t1")
	b.AddSample([]Frame{{Func: int32(d), Line: 9}}, 1, 0, "t1")
	return b.Build()
}

func TestLinesChargesLeafFrameByLine(t *testing.T) {
	got := linesProfile().Lines()
	want := []LineShare{
		{Method: "M.b", Line: 1, SelfShare: 0.4},
		// Equal shares: by method, then line.
		{Method: "M.a", Line: 3, SelfShare: 0.2},
		{Method: "M.a", Line: 7, SelfShare: 0.2},
		{Method: "M.c", Line: 0, SelfShare: 0.2},
	}
	assert.Equal(t, want, got)
}

// A line-level profile refines the flat one: summing a method's lines
// gives its self share.
func TestLinesSumToFlat(t *testing.T) {
	p := linesProfile()
	byMethod := map[string]float64{}
	for _, l := range p.Lines() {
		byMethod[l.Method] += l.SelfShare
	}
	for _, m := range p.Flat() {
		if m.Self > 0 {
			assert.InDelta(t, m.SelfShare, byMethod[m.Name], 1e-12, m.Name)
		}
	}
}

func TestLinesEmptyProfile(t *testing.T) {
	p := NewBuilder("test", "nanoseconds", 10).Build()
	require.Empty(t, p.Lines())
}
