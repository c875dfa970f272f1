package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/jfrjson"
)

// exactly is how close a chain fitted to a process of its own order comes
// to it: the halves hold the same stacks in the same shares, so only
// rounding differs.
const exactly = 1e-9

// A method whose callee depends on its caller: A→M→X and B→M→Y, equally
// often. Order 1 gives M's callees half and half whatever the caller, so
// half its mass is on stacks that never occur; order 2 is exact, as the
// halves are.
func TestOrderTwoFitsACallerDependentCallee(t *testing.T) {
	j := func(fr ...string) string { return strings.Join(fr, sep) }
	var stacks []string
	for range 50 {
		ax, by := j("main", "A", "M", "X"), j("main", "B", "M", "Y")
		stacks = append(stacks, ax, ax, by, by) // each half has both
	}
	orders, depth, exact := measure(stacks, 2)
	require.Len(t, orders, 2)
	assert.InDelta(t, 0.5, orders[0], exactly)
	assert.InDelta(t, 1, orders[1], exactly)
	assert.InDelta(t, 1, depth, exactly)
	assert.InDelta(t, 1, exact, exactly)
}

// A recursion whose depth decides: R recurses five deep and then calls L,
// or ends at once. Past the first frames the last two or three are R
// whatever the depth, so orders 2 and 3 spread R's next frame over R and
// L, and only the depth tells them apart.
func TestDepthTellsARecursion(t *testing.T) {
	j := func(fr ...string) string { return strings.Join(fr, sep) }
	var stacks []string
	for range 50 {
		a, b := j("main", "R", "R", "R", "R", "R", "L"), j("main", "R")
		stacks = append(stacks, a, a, b, b)
	}
	orders, depth, exact := measure(stacks, 3)
	assert.Less(t, orders[1], 0.9)
	assert.Less(t, orders[2], 0.9)
	assert.InDelta(t, 1, depth, exactly)
	assert.InDelta(t, 1, exact, exactly)
}

// A stack the first half never saw has no probability under any order,
// and the halves overlap only where both have the stack.
func TestUnseenStacks(t *testing.T) {
	j := func(fr ...string) string { return strings.Join(fr, sep) }
	orders, depth, exact := measure([]string{j("main", "A"), j("main", "B"), j("main", "A"), j("main", "B")}, 1)
	assert.InDelta(t, 0, orders[0], exactly)
	assert.InDelta(t, 0, depth, exactly)
	assert.InDelta(t, 0, exact, exactly)
}

// read takes the execution samples' stacks root first, each frame its
// method with its descriptor (whose ';' is not a separator), and skips
// other events.
func TestReadsStacksRootFirst(t *testing.T) {
	var rec bytes.Buffer
	w := jfrjson.NewWriter(&rec)
	f := func(name string) jfrjson.Frame {
		return jfrjson.Frame{Method: jfrjson.Method{Class: "p/A", Name: name, Descriptor: "(Ljava/lang/String;)V"}, Type: jfrjson.JITCompiled}
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	require.NoError(t, w.Write(&jfrjson.Event{Type: jfrjson.TypeExecutionSample,
		Sample: &jfrjson.Sample{Time: at, Thread: jfrjson.Thread{Name: "main", JavaID: 1, IsJava: true}, Frames: []jfrjson.Frame{f("leaf"), f("main")}}}))
	require.NoError(t, w.Write(&jfrjson.Event{Type: jfrjson.TypeThreadStart, ThreadStart: &jfrjson.ThreadStart{Time: at}}))
	require.NoError(t, w.Close())
	stacks, err := read(&rec)
	require.NoError(t, err)
	assert.Equal(t, []string{"p.A.main(Ljava/lang/String;)V" + sep + "p.A.leaf(Ljava/lang/String;)V"}, stacks)
}
