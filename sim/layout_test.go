package sim

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// frameSize is frame's size on a 64-bit platform: the executor's hot
// loop reads the top frame on every instruction, and a frame in one
// cache line is what BenchmarkExecutor's numbers were measured with.
const frameSize = 64

func TestFrameSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("sizes are for 64-bit platforms")
	}
	assert.Equal(t, uintptr(frameSize), unsafe.Sizeof(frame{}))
}

// instrSize is Instr's size on a 64-bit platform: a program holds about
// one per statement in each of its code versions (sim.instrBytes), and
// the executor reads one per statement executed.
const instrSize = 64

func TestInstrSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("sizes are for 64-bit platforms")
	}
	assert.Equal(t, uintptr(instrSize), unsafe.Sizeof(Instr{}))
}

func TestBitSetNames(t *testing.T) {
	assert.Equal(t, "none", stopSet(0).String())
	assert.Equal(t, "poll|entry", (stopPoll | stopEntry).String())
	assert.Equal(t, "horizon|counter|stop9", (stopHorizon | stopCounter | 1<<9).String())
	assert.Equal(t, "none", frameFlags(0).String())
	assert.Equal(t, "inlined|poll-pending", (fInlined | fPollPending).String())
	assert.Equal(t, "return-hook|flag7", (fReturnHook | 1<<7).String())
}
