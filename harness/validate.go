package harness

import (
	"fmt"

	"github.com/profsim/profsim/sim"
)

// maxStripMiningIter is the top of HotSpot's range for
// -XX:LoopStripMiningIter (uintx, range(0, max_juint)), which
// jit.strip_mining_iter stands for.
const maxStripMiningIter = maxJuint

// validate checks the settings the harness reads or that only it bounds;
// the VM, the JIT, the GC and the samplers check the rest of theirs.
func validate(cfg Config) error {
	switch {
	case cfg.JIT.StripMiningIter > maxStripMiningIter:
		return fmt.Errorf("jit.strip_mining_iter: %d is beyond HotSpot's -XX:LoopStripMiningIter range [0, 4294967295]", cfg.JIT.StripMiningIter)
	case cfg.Window > sim.MaxTime:
		return fmt.Errorf("window: %v is beyond the model's maximum time, 10^18 ns", cfg.Window)
	case cfg.WarmUp > sim.MaxTime:
		return fmt.Errorf("warm_up: %v is beyond the model's maximum time, 10^18 ns", cfg.WarmUp)
	case cfg.RecompileAt > sim.MaxTime:
		return fmt.Errorf("recompile_at: %v is beyond the model's maximum time, 10^18 ns", cfg.RecompileAt)
	}
	return nil
}
