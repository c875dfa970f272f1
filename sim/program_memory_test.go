package sim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The program and its code count in the run's memory from the start: a
// program too large for Limits.MaxMemory is refused before it runs, with
// the limit and its size in instructions.
func TestMemoryLimitCountsProgram(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: big\nmethods:\n  - class: A\n    name: main\n    body:\n")
	const stmts = 10_000
	for i := 0; i < stmts; i++ {
		fmt.Fprintf(&b, "      - work: {cycles: %d, bytecodes: 1}\n", i+1)
	}
	b.WriteString("threads: [{name: main, entry: A.main}]\n")
	src := b.String()

	const max = 1 << 20 // under 10 001 instructions' instrBytes
	vm, le := limitErr(t, src, Limits{MaxMemory: max}, nil)
	assert.Nil(t, vm)
	assert.Equal(t, "memory", le.Limit)
	assert.Equal(t, int64(max), le.Max)
	assert.Equal(t, int64(stmts+1)*instrBytes, le.Value, "the statements and the return")
	assert.Zero(t, le.At)
	assert.Contains(t, le.Detail, fmt.Sprintf("a program of %d instructions", stmts+1))

	// Within the limit, it runs, the program counted in its footprint.
	cfg := DefaultConfig()
	cfg.Limits = Limits{MaxMemory: 64 << 20}
	img, err := NewImage(parse(t, src), cfg.Cost)
	require.NoError(t, err)
	ok, err := New(img, cfg)
	require.NoError(t, err)
	ok.Run()
	require.NoError(t, ok.Err())
	assert.Equal(t, int64(stmts+1), ok.Footprint().Instrs)
	assert.Greater(t, ok.Footprint().Bytes(), int64(stmts+1)*instrBytes)
}
