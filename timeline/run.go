package timeline

import (
	"context"
	"fmt"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

// Steps is how many readings a lane gets across the window: finer than a
// projector's pixels.
const Steps = 2000

// Run runs p under cfg and records the timeline of [from, from+window):
// the lanes, every traceable sampler's samples (cfg.Trace is set if nil),
// the safepoints and the compilations. The run goes on to cfg's end.
//
// With polls, every poll each thread executes in the window is recorded
// (Lane.Polls): a hook stops the thread at each, which makes the run
// slower and, like any passive observer's stops, can move a
// multi-threaded run by a few ppm (claim X3).
func Run(ctx context.Context, p *program.Program, cfg harness.Config, from, window sim.Time, polls bool) (*Timeline, *harness.Outcome, error) {
	if window <= 0 {
		return nil, nil, fmt.Errorf("timeline: window: %v must be > 0", window)
	}
	to := from + window
	if from < 0 || to > cfg.Sim.Duration {
		return nil, nil, fmt.Errorf("timeline: window: %v to %v is not inside the run's 0 to %v", from, to, cfg.Sim.Duration)
	}
	rec, err := NewRecorder(from, to, max(window/Steps, 1))
	if err != nil {
		return nil, nil, err
	}
	if cfg.Trace == nil {
		cfg.Trace = samplers.NewTrace(nil)
	}
	cfg.Trace.KeepWindow(from, to)
	rig, err := harness.Build(p, cfg)
	if err != nil {
		return nil, nil, err
	}
	if ctx.Done() != nil {
		rig.VM().SetContext(ctx)
	}
	if err := rec.Attach(rig.VM(), polls); err != nil {
		return nil, nil, err
	}
	if err := rig.Run(); err != nil {
		return nil, nil, err
	}
	out, err := rig.Collect()
	if err != nil {
		return nil, nil, err
	}
	if out.Result.End < from {
		return nil, nil, fmt.Errorf("timeline: window: the run ended at %v, before the window's start %v", out.Result.End, from)
	}
	tl := &Timeline{Workload: p.Name, From: from, To: min(to, max(out.Result.End, from+1)), Lanes: rec.Lanes()}
	seen := map[string]bool{}
	for _, r := range cfg.Trace.Records() {
		if !seen[r.Sampler] {
			seen[r.Sampler] = true
		}
		tl.Samples = append(tl.Samples, Sample{Sampler: r.Sampler, Thread: r.Thread, Requested: sim.Time(r.RequestedNS),
			Taken: sim.Time(r.TakenNS), TrueMethod: r.TrueMethod, Charged: r.RecordedMethod, Mechanism: r.Mechanism})
	}
	for _, s := range out.Samplers {
		if seen[s.ID] {
			tl.Samplers = append(tl.Samplers, s.ID)
		}
	}
	if out.Safepoints != nil {
		for _, r := range out.Safepoints.Records() {
			sp := Safepoint{Reason: r.Reason, Requested: r.Requested, Safe: r.Safe, End: r.End}
			for _, pa := range r.Pauses {
				sp.Arrivals = append(sp.Arrivals, Arrival{Thread: out.Result.Threads[pa.Thread].Name, Stopped: pa.Stopped})
			}
			tl.Safepoints = append(tl.Safepoints, sp)
		}
	}
	if out.JIT != nil {
		for _, e := range out.JIT.Events() {
			if e.Done > 0 {
				tl.Compiles = append(tl.Compiles, Compile{Method: out.Image.Names[e.Method], Queued: e.Queued, Done: e.Done})
			}
		}
	}
	return tl, out, nil
}
