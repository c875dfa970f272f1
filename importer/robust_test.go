package importer

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stacks is jfrJSON's input: per entry, n samples of one stack.
type stacks = []struct {
	thread string
	stack  []string
	n      int
}

// Two calls of a method without a class file one byte apart: each site
// is given an invoke's 3 bytes, so the second overlaps the first and is
// moved past it. Its callers' entries and the site map must still agree
// (a nil site in fitCalls before).
func TestOverlappingCallSites(t *testing.T) {
	data := jfrJSON(t, stacks{
		{"main", []string{"A.main@0", "B.b@0"}, 10},
		{"main", []string{"A.main@1", "C.c@0"}, 10},
		{"main", []string{"A.main@2", "C.c@4", "D.d@7"}, 10},
		{"main", []string{"A.main@3"}, 10},
	})
	m, err := Import(bytes.NewReader(data), nil, Options{})
	require.NoError(t, err)
	require.NoError(t, m.Program.Validate())
	for i := range m.Recorded.Samples {
		for _, f := range m.Recorded.Stack(i, nil) {
			assert.NotZero(t, f.Line, "every recorded frame maps to a statement")
		}
	}
}

// deepStackFrames is the depth the report used.
const deepStackFrames = 100_000

// deepStackTime bounds the import of two 100 000-frame stacks (37 MB of
// JSON): 1.3 s measured on the 2-core test machine, so 20 s only fails on
// a super-linear cost.
const deepStackTime = 20 * time.Second

// 100 000-frame stacks, a recursion of seven methods through varying
// bytecode indices (overlapping sites, as above), import without a panic
// and in time linear in the frames.
func TestDeepStacks(t *testing.T) {
	st := []string{"A.main@0"}
	for i := 0; i < deepStackFrames; i++ {
		st = append(st, fmt.Sprintf("M%d.m@%d", i%7, (i*13)%11))
	}
	data := jfrJSON(t, stacks{{"main", st, 3}, {"main", st[:5000], 2}})
	start := time.Now()
	m, err := Import(bytes.NewReader(data), nil, Options{})
	require.NoError(t, err)
	took := time.Since(start)
	t.Logf("%d bytes of JSON imported in %v", len(data), took)
	assert.Less(t, took, deepStackTime)
	require.NoError(t, m.Program.Validate())
	assert.Equal(t, 5, m.Report.Samples)
}
