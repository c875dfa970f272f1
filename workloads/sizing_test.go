package workloads

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/program"
)

const sizingYAML = `name: sized
methods:
  - class: jfr.thread
    name: main
    body:
      - call: {method: D.main}
      - call: {method: D.other}
  - class: D
    name: main
    body:
      - loop: {trips: 1, body: [{work: {cycles: 1, bytecodes: 1}}]}
      - loop:
          trips: {uniform: [1000, 1001]}
          body:
            - work: {cycles: 2, bytecodes: 1}
            - loop: {trips: 7, body: [{work: {cycles: 1, bytecodes: 1}}]}
  - class: D
    name: other
    body:
      - loop: {trips: 50, body: [{work: {cycles: 1, bytecodes: 1}}]}
  - class: T
    name: run
    body:
      - loop: {trips: 300, body: [{work: {cycles: 1, bytecodes: 1}}]}
threads:
  - {name: main, entry: jfr.thread.main}
  - {name: JFR Recording Scheduler, entry: T.run}
`

// ScaleEntryLoops scales the top-level loops of each thread's entry (of a
// synthetic entry's first callee), keeps at least one trip and leaves
// nested loops and later roots alone.
func TestScaleEntryLoops(t *testing.T) {
	p, err := program.Parse([]byte(sizingYAML), program.YAML)
	require.NoError(t, err)
	n, err := ScaleEntryLoops(p, 0.1)
	require.NoError(t, err)
	assert.Equal(t, 3, n, "D.main's two loops and T.run's")
	r := program.NewResolver(p)
	at := func(ref string) *program.Method {
		i, err := r.Resolve(ref)
		require.NoError(t, err)
		return &p.Methods[i]
	}
	main := at("D.main")
	assert.Equal(t, program.Dist{Kind: program.Constant, A: 1}, *main.Body[0].Loop.Trips, "a set-up loop keeps its trip")
	assert.Equal(t, program.Dist{Kind: program.Uniform, A: 100, B: 100}, *main.Body[1].Loop.Trips)
	assert.Equal(t, program.Dist{Kind: program.Constant, A: 7}, *main.Body[1].Loop.Body[1].Loop.Trips, "nested loops keep their trips")
	assert.Equal(t, int64(50), at("D.other").Body[0].Loop.Trips.A, "a later root of a synthetic entry is not the driver")
	assert.Equal(t, int64(30), at("T.run").Body[0].Loop.Trips.A)

	_, err = ScaleEntryLoops(p, 0)
	assert.ErrorContains(t, err, "must be a finite number > 0")
}

// DropRecorderThreads removes JFR's own threads and keeps a program that
// has no other.
func TestDropRecorderThreads(t *testing.T) {
	p, err := program.Parse([]byte(sizingYAML), program.YAML)
	require.NoError(t, err)
	n, err := DropRecorderThreads(p)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	require.Len(t, p.Threads, 1)
	assert.Equal(t, "main", p.Threads[0].Name)

	p.Threads[0].Name = "JFR Periodic Tasks"
	n, err = DropRecorderThreads(p)
	require.NoError(t, err)
	assert.Zero(t, n, "the only thread stays")
	assert.Len(t, p.Threads, 1)
}

// Every model's run to its end is its driver's loop: scaling finds an
// entry loop in each.
func TestModelsHaveEntryLoops(t *testing.T) {
	for _, m := range Models() {
		p, err := Get(m)
		require.NoError(t, err)
		_, err = DropRecorderThreads(p)
		require.NoError(t, err)
		n, err := ScaleEntryLoops(p, 0.5)
		require.NoError(t, err, m)
		assert.Positive(t, n, m)
	}
}
