package program

import (
	"fmt"
	"math"
)

// The ranges of a program's numbers, checked by Validate (and by the
// decoders for values too large to hold). They are wide enough for any
// program worth simulating and narrow enough that the simulator's sums and
// products of them cannot overflow int64: a time is at most MaxNanos, so
// the sum of a few times is still exact; a Work's cost in ns is at most
// MaxCycles × the interpreter factor × 100 (sim.CostModel bounds both).
// docs/WORKLOADS.md lists them.
const (
	// MaxCycles bounds work.cycles and native.cycles: 10¹² cycles, 1000 s
	// at 1 GHz, for one statement.
	MaxCycles = 1_000_000_000_000
	// MaxBlockBytecodes bounds work.bytecodes: a basic block lies within
	// one method, whose code is at most 65535 bytes (JVMS §4.7.3,
	// code_length < 65536).
	MaxBlockBytecodes = 65535
	// MaxTrips bounds a loop's trip count: 10¹⁵, eleven days of
	// one-cycle iterations.
	MaxTrips = 1_000_000_000_000_000
	// MaxNanos bounds every time a program gives — block durations and
	// their distributions' parameters, thread start times: 10¹⁸ ns, about
	// 31.7 years. sim.MaxTime is the same bound on the run's times.
	MaxNanos = 1_000_000_000_000_000_000
	// MaxAllocBytes bounds alloc.bytes: 2³⁴ bytes (16 GiB), the largest
	// Java array (2³¹ − 1 longs).
	MaxAllocBytes = 1 << 34
	// MaxCount bounds thread and spawn counts, recursion limits and throw
	// depths: the simulator numbers threads and frames with int32.
	MaxCount = math.MaxInt32
	// MaxThrownTimes bounds a model throw's times (call.throws.times):
	// the exceptions one call stands for.
	MaxThrownTimes = 1e9
	// MaxStatements bounds the statements of a whole program: lines, code
	// positions and call-edge numbers are int32 in the simulator.
	MaxStatements = 1 << 30
)

// intRange is a closed range of integers with the text messages show.
type intRange struct {
	min, max int64
	text     string // "[1, 10^12]"
}

var (
	rangeCycles    = intRange{1, MaxCycles, "[1, 10^12]"}
	rangeBytecodes = intRange{0, MaxBlockBytecodes, "[0, 65535]"}
	rangeTrips     = intRange{0, MaxTrips, "[0, 10^15]"}
	rangeNanos     = intRange{0, MaxNanos, "[0, 10^18]"}
	rangeMean      = intRange{1, MaxNanos, "[1, 10^18]"}
	rangeBytes     = intRange{1, MaxAllocBytes, "[1, 2^34]"}
	rangeCount     = intRange{1, MaxCount, "[1, 2^31−1]"}
	rangeDepth     = intRange{0, MaxCount, "[0, 2^31−1]"}
	rangeCaught    = intRange{1, MaxCount, "[1, 2^31−1]"}
)

func (r intRange) contains(x int64) bool { return x >= r.min && x <= r.max }

// check returns the problem with x, or "".
func (r intRange) check(x int64) string {
	if r.contains(x) {
		return ""
	}
	return fmt.Sprintf("%d is not in %s", x, r.text)
}
