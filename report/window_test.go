package report

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A page's default timeline window holds ten ticks of its slowest
// profiler, so each lane shows about ten samples, centred, never longer
// than the run.
func TestDefaultWindowShowsTenTicks(t *testing.T) {
	for _, c := range []struct {
		specs        []string
		run          time.Duration
		from, window time.Duration
	}{
		{[]string{"truth", "safepoint", "async"}, 2 * time.Second, 950 * time.Millisecond, 100 * time.Millisecond},
		{[]string{"async,interval=1ms", "jfr"}, 2 * time.Second, 900 * time.Millisecond, 200 * time.Millisecond},
		{[]string{"async"}, 50 * time.Millisecond, 0, 50 * time.Millisecond},
		{[]string{"truth", "komorium"}, 2 * time.Second, 950 * time.Millisecond, 100 * time.Millisecond},
		{[]string{"async,interval=0"}, 2 * time.Second, 950 * time.Millisecond, 100 * time.Millisecond},
	} {
		from, window := DefaultWindow(c.run, c.specs)
		assert.Equal(t, c.window, window, "%v", c.specs)
		assert.Equal(t, c.from, from, "%v", c.specs)
	}
}
