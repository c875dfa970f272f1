package jit

import (
	"fmt"

	"github.com/profsim/profsim/sim"
)

// Probes are method entry and exit probes, the instrumentation of a
// tracing profiler (JProfiler's and YourKit's call tracing, a bytecode
// agent's enter/exit calls): a probe at a method's entry and one before
// each of its returns, each an opaque call into the profiler's agent
// that reads the clock. Each is an OpCount that counts ProbeCount down
// and checks the thread's counter (FlagCheck): a profiler that keeps
// the counter at ProbeCount is called at every probe (HookBytecodes),
// and the JIT treats the probe as the call it is — it keeps it in an
// inlined body and does not make a loop around it a counted loop.
type Probes struct {
	// Cycles is each probe's cost (the call, the clock read, the
	// record), charged to the method at the probe's line.
	Cycles int64
	// Bytes is each probe's code size, which the inliner sees when the
	// probes are in the bytecode (InsertProbes before the JIT): an
	// instrumented method is larger and so inlined less. Probes the JIT
	// places after inlining (Config.UnitProbes) add nothing to the
	// sizes it decides by.
	Bytes int64
}

// ProbeCount is what each probe counts down from the thread's bytecode
// counter: so much that one probe exhausts any counter armed at it, and
// so much that the pure loops the executor fast-forwards between two
// probes (their Work's bytecodes count too) never do.
const ProbeCount = int64(1) << 50

// Validate names the first value out of range: the cycles at most
// sim.MaxCostCycles, the size at most 65 535 bytes (an instruction's
// int32 code size stays exact).
func (p Probes) Validate() error {
	switch {
	case p.Cycles < 0 || p.Cycles > sim.MaxCostCycles:
		return fmt.Errorf("probes: cycles %d must be in [0, %d]", p.Cycles, int64(sim.MaxCostCycles))
	case p.Bytes < 0 || p.Bytes > 65535:
		return fmt.Errorf("probes: bytes %d must be in [0, 65535]", p.Bytes)
	}
	return nil
}

// IsProbe reports whether instruction pc of c is an entry or exit probe
// (InsertProbes); entry is true for the entry probe, always at pc 0.
func IsProbe(c *sim.Code, pc int32) (probe, entry bool) {
	if pc < 0 || int(pc) >= len(c.Instrs) {
		return false, false
	}
	in := &c.Instrs[pc]
	if in.Op != sim.OpCount || in.Bytecodes != ProbeCount || in.Flags&sim.FlagCheck == 0 {
		return false, false
	}
	return true, pc == 0
}

// InstrumentProbes puts p's entry and exit probes into every method's
// base code of img, before a VM is created from it: the bytecode-level
// instrumentation of a tracing profiler, which every code version the
// JIT builds — compiled roots and inlined bodies alike — inherits. A
// method already instrumented (Komorium's counters, or probes) is an
// error.
func InstrumentProbes(img *sim.Image, p Probes, cost sim.CostModel) error {
	if err := p.Validate(); err != nil {
		return err
	}
	for m, c := range img.Base {
		if c.Instrumented {
			return fmt.Errorf("probes: method %s is instrumented already", img.Names[m])
		}
		code, err := InsertProbes(c, p)
		if err != nil {
			return fmt.Errorf("probes: method %s: %w", img.Names[m], err)
		}
		img.Base[m] = sim.Recost(code, cost, c.Tier)
	}
	return nil
}

// MarkProbed marks every method's base code of img Instrumented without
// changing it, for probes the JIT places after inlining
// (Config.UnitProbes): Work statements then take nothing from the
// thread's bytecode counter, which only the probes count down. A
// method already instrumented is an error.
func MarkProbed(img *sim.Image) error {
	for m, c := range img.Base {
		if c.Instrumented {
			return fmt.Errorf("probes: method %s is instrumented already", img.Names[m])
		}
		n := *c
		n.Instrumented = true
		img.Base[m] = &n
	}
	return nil
}

// InsertProbes returns a copy of c with an entry probe at pc 0 and an
// exit probe before each Return, jump targets fixed (a jump to a Return
// reaches its probe), marked Instrumented; its costs are to be set by
// sim.Recost. Code with Inline or Debug tables is refused: the probes go
// in before the JIT lays those out.
func InsertProbes(c *sim.Code, p Probes) (*sim.Code, error) {
	if c.Inline != nil || c.Debug != nil {
		return nil, fmt.Errorf("code with inlining or debug tables cannot take probes")
	}
	for _, x := range c.Instrs {
		if pc, ok := x.Target(); ok && pc == 0 {
			return nil, fmt.Errorf("a jump to the method's first instruction would run its entry probe again")
		}
	}
	probe := func(line int32) sim.Instr {
		return sim.NewCount(line, ProbeCount, p.Cycles, int32(p.Bytes), true)
	}
	out := rewrite(c.Instrs, func(i int) []sim.Instr {
		x := c.Instrs[i]
		var xs []sim.Instr
		if i == 0 {
			xs = append(xs, probe(x.Line))
		}
		if x.Op == sim.OpReturn {
			xs = append(xs, probe(x.Line))
		}
		return append(xs, x)
	})
	n := *c
	n.Instrs, n.Instrumented = out, true
	for i := range n.Instrs {
		if n.Instrs[i].Op != sim.OpLoopEnter {
			continue
		}
		// A loop whose body holds a probe (a return inside it) is not
		// pure Work any more.
		for pc := int32(i) + 1; pc < n.Instrs[i].LoopBackPC(); pc++ {
			if n.Instrs[pc].Op == sim.OpCount {
				n.Instrs[i].Flags &^= sim.FlagPureLoop
			}
		}
	}
	return &n, nil
}
