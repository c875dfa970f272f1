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

// codeSize is Code's size on a 64-bit platform: 128 bytes, so that the
// allocator puts each at a multiple of 64 and the fields a call reads of
// its callee's version, its first 64 bytes, are one cache line.
const codeSize = 128

func TestCodeLayout(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("sizes are for 64-bit platforms")
	}
	var c Code
	assert.Equal(t, uintptr(codeSize), unsafe.Sizeof(c))
	for name, end := range map[string]uintptr{
		"Instrs":        unsafe.Offsetof(c.Instrs) + unsafe.Sizeof(c.Instrs),
		"Traps":         unsafe.Offsetof(c.Traps) + 1,
		"leaf.straight": unsafe.Offsetof(c.leaf) + unsafe.Offsetof(c.leaf.straight) + 1,
	} {
		assert.LessOrEqual(t, end, uintptr(64), "%s past the first cache line", name)
	}
}

func TestBitSetNames(t *testing.T) {
	assert.Equal(t, "none", stopSet(0).String())
	assert.Equal(t, "poll|entry", (stopPoll | stopEntry).String())
	assert.Equal(t, "horizon|counter|stop9", (stopHorizon | stopCounter | 1<<9).String())
	assert.Equal(t, "none", frameFlags(0).String())
	assert.Equal(t, "inlined|poll-pending", (fInlined | fPollPending).String())
	assert.Equal(t, "return-hook|flag7", (fReturnHook | 1<<7).String())
}
