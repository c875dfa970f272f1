package sim

import (
	"fmt"

	"github.com/profsim/profsim/program"
)

// The simulator's arithmetic is int64 nanoseconds, cycles, bytes and
// bytecodes. Validation bounds every input so that the sums and products
// the model forms cannot overflow:
//
//   - every time — the run's duration, a time slice, a context switch,
//     MaxStep, a program's block durations and start times — is at most
//     MaxTime (10¹⁸ ns), so the sum of a few is exact;
//   - a run's CPU time, duration × CPUs, is at most MaxCPUTime (2⁶² ns),
//     so every CPU-time total (a thread's, a calling context's, a line's,
//     the run's) fits;
//   - a statement costs at most program.MaxCycles × MaxInterpFactor × 100
//     (CPU speed 1 %) = 10¹⁷ ns, the cost model's own costs at most
//     MaxCostCycles × 100 ns.
//
// What the bounds cannot cover saturates: bytecode counts multiplied by
// fast-forwarded iterations (at BytecodeCap), allocated bytes (at
// math.MaxInt64), a pure loop's cost per iteration (satAdd, satMul).
const (
	// MaxTime bounds every time of a run: 10¹⁸ ns, about 31.7 years.
	MaxTime Time = program.MaxNanos
	// MaxCPUTime bounds a run's duration × CPUs: 2⁶² ns, 146 CPU-years.
	MaxCPUTime Time = 1 << 62
	// MaxCostCycles bounds each of the cost model's cycle counts (call,
	// poll, allocation, throw, unwind, monitor): 10⁹, a second at 1 GHz.
	MaxCostCycles = 1_000_000_000
	// MaxInterpFactor bounds the cost model's interpreter factor.
	MaxInterpFactor = 1000
	// BytecodeCap is where a bytecode counter saturates when
	// fast-forwarded iterations would pass it; statement-by-statement
	// counting cannot cover the 2⁶² left to int64 in any run's wall time.
	BytecodeCap = 1 << 62
)

// checkTimes bounds the configuration's times (MaxTime) and CPU time
// (MaxCPUTime); CPUs is already ≥ 1.
func (c Config) checkTimes() error {
	for _, f := range []struct {
		name string
		t    Time
	}{{"duration", c.Duration}, {"time_slice", c.TimeSlice}, {"context_switch", c.ContextSwitch}, {"max_step", c.MaxStep}} {
		if f.t > MaxTime {
			return fmt.Errorf("%s: %v is beyond the model's maximum time, 10^18 ns (%v)", f.name, f.t, MaxTime)
		}
	}
	if c.Duration > MaxCPUTime/Time(c.CPUs) {
		return fmt.Errorf("duration: %v on %d CPUs is beyond the model's maximum CPU time per run, 2^62 ns (%v)", c.Duration, c.CPUs, MaxCPUTime)
	}
	return nil
}
