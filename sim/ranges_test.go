package sim_test

import (
	"fmt"
	"testing"

	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSpeedPercentKeyAdmitsExactlyTheExactSpeeds: every speed the
// speed_percent key takes converts every cycle count to ns without
// rounding (so costs keep their ratios), and every speed in [1, 10⁴] it
// refuses rounds some cycle count below 100.
func TestSpeedPercentKeyAdmitsExactlyTheExactSpeeds(t *testing.T) {
	for speed := int64(1); speed <= 10_000; speed++ {
		var c sim.CostModel
		err := param.Set(&c, "speed_percent", fmt.Sprint(speed))
		exact := true
		for cycles := int64(1); cycles < 100; cycles++ {
			c.SpeedPercent = speed
			if c.Nanos(cycles)*speed != cycles*sim.SpeedPercentBase {
				exact = false
				break
			}
		}
		if exact {
			assert.NoError(t, err, "speed %d is exact", speed)
		} else {
			assert.Error(t, err, "speed %d rounds", speed)
		}
	}
	var c sim.CostModel
	err := param.Set(&c, "speed_percent", "100000000000000")
	require.Error(t, err)
	assert.Equal(t, "speed_percent: 100000000000000 must be a divisor of 100", err.Error())
}

// TestCostKeysRangesAreTheOverflowBounds: the cost keys' ranges, which
// --keys shows, are the bounds Validate enforces (sim/arith.go).
func TestCostKeysRangesAreTheOverflowBounds(t *testing.T) {
	ranges := map[string]string{}
	for _, k := range param.Keys(&sim.Config{}) {
		ranges[k.Name] = k.Check
	}
	assert.Equal(t, fmt.Sprintf("1..%d", sim.MaxInterpFactor), ranges["cost.interp_factor"])
	assert.Equal(t, fmt.Sprintf("divides:%d", sim.SpeedPercentBase), ranges["cost.speed_percent"])
	for _, k := range []string{"call_cycles", "poll_cycles", "alloc_cycles", "throw_cycles", "unwind_cycles", "monitor_cycles"} {
		var c sim.Config
		c.Cost = sim.DefaultCostModel()
		assert.Equal(t, "0..1_000_000_000", ranges["cost."+k], k)
		require.NoError(t, param.Set(&c, "cost."+k, fmt.Sprint(sim.MaxCostCycles)))
		assert.Error(t, param.Set(&c, "cost."+k, fmt.Sprint(sim.MaxCostCycles+1)))
	}
}
