package profile

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// randomExportProfile is a profile of n samples over random stacks up to depth
// deep, a third of their frames inlined, on threads whose names include
// "" and names the string table holds already (a function's, "count").
func randomExportProfile(seed uint64, unit string, n, deep int) *Profile {
	r := rand.New(rand.NewPCG(seed, 7))
	b := NewBuilder("random", unit, 10_000_000)
	var fns []int
	for i := range 40 {
		fns = append(fns, b.Func(Function{Name: fmt.Sprintf("C%d.m", i%13), Class: fmt.Sprintf("C%d", i%13),
			Method: "m", Signature: []string{"", "(I)V", "()V"}[i%3], File: []string{"", "C.java", "count"}[i%3]}))
	}
	threads := []string{"main", "", "worker-1", "C3.m", "count", "samples"}
	stack := make([]Frame, deep)
	for range n {
		d := 1 + r.IntN(deep)
		for k := range d {
			stack[k] = Frame{Func: int32(fns[r.IntN(1+min(k, 8)*4)]), Line: int32(r.IntN(4)), Inlined: r.IntN(3) == 0}
		}
		b.AddSample(stack[:d], 1+r.Int64N(3), r.Int64N(1<<40), threads[r.IntN(len(threads))])
	}
	return b.Build()
}

// WritePprof writes what pprof's own encoder writes for ToPprof's
// profile, byte for byte, whatever the profile's size (one chunk of
// output or many), unit and threads.
func TestWritePprofMatchesPprof(t *testing.T) {
	cases := map[string]*Profile{
		"sample":    sample(),
		"empty":     NewBuilder("empty", "nanoseconds", 0).Build(),
		"bytecodes": randomExportProfile(1, "bytecodes", 50, 6),
		"small":     randomExportProfile(2, "nanoseconds", 200, 12),
		"chunks":    randomExportProfile(3, "nanoseconds", 20_000, 40),
	}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			pp, err := ToPprof(p)
			require.NoError(t, err)
			var want, got bytes.Buffer
			require.NoError(t, pp.Write(&want))
			require.NoError(t, WritePprof(&got, p))
			require.True(t, bytes.Equal(want.Bytes(), got.Bytes()), "%d bytes from pprof, %d from WritePprof", want.Len(), got.Len())
		})
	}
	require.Greater(t, 20_000*20, pprofChunk, "the chunks case spans several chunks")
}

// BenchmarkWriteProfile writes a profile of 20 000 samples up to 40
// frames deep as pprof and as folded lines.
func BenchmarkWriteProfile(b *testing.B) {
	p := randomExportProfile(3, "nanoseconds", 20_000, 40)
	for _, w := range []struct {
		name  string
		write func(io.Writer, *Profile) error
	}{{"pprof", WritePprof}, {"folded", WriteFolded}} {
		b.Run(w.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := w.write(io.Discard, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
