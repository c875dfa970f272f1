package sim

import (
	"fmt"
	"time"
)

// Time is simulated time in nanoseconds since the start of the run.
// Durations use the same type.
type Time int64

// Common durations.
const (
	Nanosecond  Time = 1
	Microsecond      = 1000 * Nanosecond
	Millisecond      = 1000 * Microsecond
	Second           = 1000 * Millisecond
)

func (t Time) String() string { return time.Duration(t).String() }

// Seconds returns t in seconds.
func (t Time) Seconds() float64 { return float64(t) / 1e9 }

// mustNonNegative panics on a broken engine invariant.
func mustNonNegative(what string, d Time) {
	if d < 0 {
		panic(fmt.Sprintf("sim: negative %s %d", what, d))
	}
}
