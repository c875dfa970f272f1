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
	// SpeedPercentBase is the speed_percent of a 1 GHz CPU, one cycle per
	// ns. A cost of c cycles takes ⌈c × SpeedPercentBase / speed⌉ ns
	// (CostModel.Nanos): whole ns, rounded up so that no cost is free.
	// That is exact for every c, so that costs keep their ratios and a
	// truth profile does not depend on the speed, exactly when speed
	// divides SpeedPercentBase (1, 2, 4, 5, 10, 20, 25, 50 or 100 %): the
	// only speeds the speed_percent key takes. Above 100 % a 1-cycle cost
	// (poll_cycles, the smallest statements) rounds up to 1 ns, a whole
	// cycle at 1 GHz; below it, a speed that does not divide 100 rounds
	// every cycle count that 100 × c / speed leaves a remainder for.
	//
	// Measured: hotcold with jit.tiered=false (no warm-up, which runs at
	// wall-clock compile speed) and --duration 2 s × 100 / speed (the
	// same statements at every speed). HotCold.hot's truth share is
	// 98.04 % (100 cycles of 102, exact) at 1, 4, 25, 50 and 100 %, and at
	// 40 and 200 % too only because hotcold's two cycle counts, 2 and 100,
	// are multiples of 2 and 5; it is 97.14 % at 99, 97.56 % at 125 and
	// 250, 96.15 % at 400, 95.24 % at 500, 90.91 % at 1000 (cold's 2
	// cycles become 1 ns, hot's 100 become 10) and 50.00 % at 10⁴ %
	// (both 1 ns). For a CPU faster than 1 GHz, scale the workload's
	// cycle counts down instead.
	SpeedPercentBase = 100
	// BytecodeCap is where a bytecode counter saturates when
	// fast-forwarded iterations would pass it; statement-by-statement
	// counting cannot cover the 2⁶² left to int64 in any run's wall time.
	BytecodeCap = 1 << 62
)

// Floors of the settings whose small values make a run's cost explode
// without making the model any more exact. The config's Validate admits
// smaller values (tests use them); the keys (--set) do not.
const (
	// MinTimeSlice is the smallest time_slice: 100 µs, Linux's smallest
	// sched_min_granularity_ns (kernel/sched/fair.c allows 100 µs to 1 s;
	// the default is 0.75 ms). Each slice that ends with others waiting is
	// a dispatch and a context switch (5 µs by default): shorter slices
	// spend the CPUs on switching, and the scheduler's work grows as
	// 1/slice. Measured on actors (35 threads, 4 CPUs, 2 s simulated),
	// wall time of profsim run: 1.15 s at 10 ms, 1.7 s at 1 µs, 3.8 s at
	// 100 ns, 30 s at 10 ns, over 120 s at 1 ns.
	MinTimeSlice Time = 100 * Microsecond
	// MinMaxStep is the smallest max_step but 0 (which means "to the next
	// event"): 1 µs. Threads run ahead at most max_step between
	// scheduling rounds, so a run has duration × CPUs / max_step rounds at
	// least. Measured on avrora (2 s simulated), wall time: 0.43 s at the
	// default 100 µs, 0.39 s at 1 µs, 1.1 s at 100 ns, 5.8 s at 10 ns,
	// 43 s at 1 ns. Results depend on max_step only through how late a
	// GC reaches the threads (Config.MaxStep), at most 1 µs at the floor.
	MinMaxStep Time = Microsecond
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
