package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rareWorkload calls Rare.slow 40 times, 1 ms of compiled work each: far
// below jit.compile_threshold's 10000 calls, and slow has no loop to
// count back-edges, so it stays interpreted for the whole run.
const rareWorkload = `name: rare
methods:
  - class: Rare
    name: main
    body:
      - loop:
          trips: 40
          body:
            - call: {method: Rare.slow}
  - class: Rare
    name: slow
    body:
      - work: {cycles: 1000000, bytecodes: 100}
threads:
  - name: main
    entry: Rare.main
`

// TestInterpretedNote: the table notes a run spent mostly interpreted,
// names the methods and the fix, and the fix removes the note.
func TestInterpretedNote(t *testing.T) {
	rare := writeWorkload(t, "rare.yaml", rareWorkload)
	code, out, errOut := runMain("run", "--workload", rare, "--duration", "1s")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "note: 100 % of the application's CPU time ran interpreted, in methods the JIT never compiled\n      (Rare.slow 100 %")
	assert.Contains(t, out, "-XX:CompileThreshold=N")
	assert.Contains(t, out, "10000 calls")
	assert.Contains(t, out, "8× slower", "hotspot17's interp_factor")

	// The advice works: compiled after 10 calls, the run is mostly
	// compiled (10 × 8 ms interpreted, then 30 × 1 ms).
	code, out, errOut = runMain("run", "--workload", rare, "--duration", "1s", "--jvm-flags", "-XX:CompileThreshold=10")
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, out, "note:")

	// No note when interpretation is asked for or there is no interpreter.
	for _, flags := range [][]string{{"--jvm-flags", "-Xint"}, {"--baseline-only"}} {
		code, out, errOut = runMain(append([]string{"run", "--workload", rare, "--duration", "1s"}, flags...)...)
		require.Equal(t, 0, code, errOut)
		assert.NotContains(t, out, "note:", "%v", flags)
	}
	// Nor for a program the JIT compiles within milliseconds, and nothing
	// in the JSON contract.
	code, out, errOut = runMain("run", "--workload", "hotcold", "--duration", "100ms")
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, out, "note:")
	code, out, errOut = runMain("run", "--workload", rare, "--duration", "1s", "--format", "json")
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, out, "note:")
}

// TestSpawnJoinNote: a spawn with join: true followed by another spawn in
// the same statement list is noted, one followed by other work is not.
func TestSpawnJoinNote(t *testing.T) {
	const text = `name: spawns
methods:
  - class: S
    name: main
    body:
      - spawn: {name: a, entry: S.work, join: true}
      - spawn: {name: b, entry: S.work}
      - loop:
          trips: 2
          body:
            - spawn: {name: c, entry: S.work, join: true}
            - work: {cycles: 10, bytecodes: 2}
            - spawn: {name: d, entry: S.work, join: true}
      - spawn: {name: e, entry: S.work, join: true}
      - work: {cycles: 10, bytecodes: 2}
  - class: S
    name: work
    body:
      - work: {cycles: 1000, bytecodes: 10}
threads:
  - name: main
    entry: S.main
`
	code, out, errOut := runMain("run", "--workload", writeWorkload(t, "spawns.yaml", text), "--duration", "10ms")
	require.Equal(t, 0, code, errOut)
	flat := strings.Join(strings.Fields(out), " ")
	assert.Equal(t, 2, strings.Count(flat, "with join: true, which waits at once"), "a then b, c then d; e is the usual fork-join:\n%s", out)
	assert.Contains(t, flat, "note: methods[0].body[0].spawn: S.main spawns a with join: true, which waits at once until its threads have ended; the threads of the next spawn (b, methods[0].body[1]) start only then")
	assert.Contains(t, flat, "note: methods[0].body[2].loop.body[0].spawn: S.main spawns c with join: true")
	assert.Contains(t, flat, "(d, methods[0].body[2].loop.body[2])")
}
