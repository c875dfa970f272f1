package importer

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/sim"
)

// RunToEnd is a configuration that runs a model until its threads end:
// cfg with a duration of twenty times the recorded CPU time (execution and
// native samples) and span, and
// a second more (room for the interpreter and contention).
func RunToEnd(cfg harness.Config, r *Report) harness.Config {
	cfg.Sim.Duration = sim.Time(20*(r.Span+time.Duration(r.Samples+r.NativeModelled+r.Throws.Samples)*r.Period)) + sim.Second
	return cfg
}

// refine runs the model once under cfg and rescales each method's
// segments so that its self time would match the recording: the fixed
// costs the fit does not plan for — calls, polls, the interpreter's
// slower code before a method is compiled — land on the same methods
// again in the next run. It returns the method overlap of that run's
// truth with the recording.
func (b *builder) refine(ctx context.Context, cfg harness.Config) (float64, error) {
	// Only methods' and lines' self times are read: a truth per method
	// gives them exactly, in memory bounded by the methods, where a
	// model's call cycles (javac's recursive tree visitors) would grow
	// the calling-context tree without bound.
	cfg.TruthPerMethod = true
	out, err := harness.RunContext(ctx, b.prog, RunToEnd(cfg, &b.report))
	if err != nil {
		return 0, fmt.Errorf("refinement run %d: %w", len(b.report.Refinement)+1, err)
	}
	truth := out.Profiles["truth"]
	overlap := profile.OverlapMethods(truth, b.recorded())
	res := program.NewResolver(b.prog)
	byName := map[string]int{}
	for i := range b.prog.Methods {
		byName[res.DisplayName(&b.prog.Methods[i])] = i
	}
	segs := make([]float64, len(b.methods))
	other := make([]float64, len(b.methods))
	var total float64
	for i, s := range truth.Samples {
		leaf, ok := truth.Leaf(i)
		if !ok {
			continue
		}
		i, ok := byName[truth.Functions[leaf.Func].Name]
		if !ok {
			continue
		}
		w := float64(s.Weight)
		total += w
		if b.methods[i].segLines[int(leaf.Line)] {
			segs[i] += w
		} else {
			other[i] += w
		}
	}
	if total == 0 {
		return overlap, nil
	}
	for i, m := range b.methods {
		var self float64
		for _, n := range m.data.self {
			self += float64(n)
		}
		if self == 0 || segs[i] == 0 {
			continue
		}
		target := self * b.period
		// What the segments should take: the target less the fixed costs
		// charged to the method's other lines, but never less than a
		// twentieth of it (the fit cannot make calls cheaper).
		want := math.Max(target-other[i], target/20)
		m.scale *= math.Min(math.Max(want/segs[i], 1e-3), 1e3)
	}
	return overlap, b.realize()
}
