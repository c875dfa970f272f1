package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
)

// The profilers of the contract (spec/VALIDATE-FORMAT.md), in table order.
const (
	profSafepoint = "safepoint"
	profJFR       = "jfr"
	profJFRDNS    = "jfr-dns"
	profAsync     = "async"
)

var allProfilers = []string{profSafepoint, profJFR, profJFRDNS, profAsync}

// allApps are the contract's nine applications; each has the model
// <app>-real (workloads.Models).
var allApps = []string{"antlr", "chart", "fop", "hsqldb", "javac", "jython", "luindex", "lusearch", "xalan"}

// modelVM is the VM preset every model run uses (the contract: OpenJDK 17).
const modelVM = "hotspot17"

// simRun is one of the two simulated runs per (model, seed): without
// DebugNonSafepoints (safepoint, jfr) or with it (jfr-dns, async;
// async-profiler turns DNS on itself). Each maps the profiler ids it
// serves to the sampler spec that plays it.
type simRun struct {
	Name string
	DNS  bool
	// Samplers maps the contract's profiler id to the sampler spec.
	Samplers []simSampler
}

type simSampler struct {
	Profiler string // contract id: safepoint, jfr, jfr-dns, async
	Spec     string // samplers.ParseSpec text
	ID       string // the profile's name in harness.Outcome.Profiles
}

// The samplers keep 2048 frames, as the real runs' profilers do (run.sh:
// the agent's depth=2048, JFR's stackdepth=2048, async-profiler's default
// jstackdepth), so that their calling contexts compare; passive samplers
// cost nothing, so the depth changes no run.
var simRuns = []simRun{
	{Name: "nodns", DNS: false, Samplers: []simSampler{
		{profSafepoint, "safepoint,interval=10ms,depth=2048", "safepoint"},
		{profJFR, "jfr,period=10ms,depth=2048", "jfr"},
	}},
	{Name: "dns", DNS: true, Samplers: []simSampler{
		{profJFRDNS, "jfr,period=10ms,depth=2048", "jfr"},
		{profAsync, "async,interval=10ms,jstackdepth=2048", "async"},
	}},
}

// modelSettings are the simulated runs' window and threads.
type modelSettings struct {
	Skip, Duration time.Duration
	Seeds          int
	Jobs           int
	// LoopScale scales each model's driver loops (workloads.ScaleEntryLoops);
	// 0 leaves them as imported.
	LoopScale float64
	// CPUs is the simulated machine's CPU count (0: the preset's).
	CPUs int
	// Models, when set, is a directory whose <app>-real.yaml replace the
	// built-in models (a re-import to try before it is embedded).
	Models string
}

// defaultLoopScale lengthens the models to outlast the real runs' warm-up
// and window. A model's driver loop repeats the application's work for
// the length of the recording it was imported from (5 s of CPU), so
// unscaled every model ends at 4.8–9.2 s simulated (hotspot17, measured
// on all nine), before or early in the 8 s + 10 s the real runs profile;
// five times as many repetitions last 24–46 s. The scale changes how
// often the work repeats, not what one repetition does.
const defaultLoopScale = 5

// defaultCPUs is the machine the real runs of docs/VALIDATION.md were
// measured on: 2 cores.
const defaultCPUs = 2

// simResult is one model's profiles over the seeds: Profiles[profiler]
// and Truth[profiler] (the truth of the run that played the profiler)
// hold one dist per seed, seed 1 first.
type simResult struct {
	Profiles map[string][]dist
	// Contexts holds each profiler's samples by calling context
	// (contextsOf), one dist per seed.
	Contexts map[string][]dist
	Truth    map[string][]dist
	// Ends holds, per seed, when the model's program ended if it ended
	// inside the window (its window is shorter than the real runs'), 0
	// if it ran to the end.
	Ends []time.Duration
}

// endNote is the progress line's note of a program that ended early.
func endNote(end time.Duration, ms modelSettings) string {
	if end >= ms.Duration {
		return ""
	}
	return fmt.Sprintf("; the program ended at %v, inside the window", end.Round(time.Millisecond))
}

// modelConfig is the harness configuration of one simulated run.
func modelConfig(r simRun, seed uint64, ms modelSettings) (harness.Config, error) {
	cfg, err := harness.PresetConfig(modelVM)
	if err != nil {
		return cfg, err
	}
	cfg.Sim.Seed, cfg.Sim.Duration = seed, sim.Time(ms.Duration)
	if ms.CPUs > 0 {
		cfg.Sim.CPUs = ms.CPUs
	}
	// profsim run --debug-non-safepoints: -XX:+DebugNonSafepoints.
	cfg.JIT.DebugNonSafepoints = r.DNS
	cfg.ProfileFrom = sim.Time(ms.Skip)
	cfg.Sim.ProfileThreads = mainThread
	// Only self time by method is read: the per-method truth is exact
	// for it and much cheaper on context-rich models (javac).
	cfg.TruthPerMethod = true
	cfg.Samplers = []string{"truth"}
	for _, s := range r.Samplers {
		cfg.Samplers = append(cfg.Samplers, s.Spec)
	}
	return cfg, nil
}

// selfByMethod is p's self weight on thread main by normalised method:
// samples (Count) for a sampler, nanoseconds for the truth. The truth
// profile names no threads: the run's ProfileThreads (main) already
// restricts it to thread main, so its samples of no thread are main's.
func selfByMethod(p *profile.Profile, truth bool) dist {
	d := dist{}
	for i, s := range p.Samples {
		if th := p.ThreadName(i); th != mainThread && !(truth && th == "") {
			continue
		}
		leaf, ok := p.Leaf(i)
		if !ok {
			continue
		}
		f := p.Functions[leaf.Func]
		w := float64(s.Count)
		if truth {
			w = float64(s.Weight)
		}
		if w > 0 {
			d[modelMethodName(f.Class, f.Method, f.Name)] += w
		}
	}
	return d
}

// getModel returns a model's program (tests substitute small programs).
var getModel = workloads.Get

// job is one simulated run of one model and seed.
type job struct {
	App  string
	Run  simRun
	Seed int
}

// runModels runs every app's model under the runs the profilers need,
// seeds 1..ms.Seeds, ms.Jobs at a time. Results land in fixed slots, so
// the output does not depend on the order runs finish in.
func runModels(ctx context.Context, apps, profilers []string, ms modelSettings, progress io.Writer) (map[string]*simResult, error) {
	var runs []simRun
	for _, r := range simRuns {
		for _, s := range r.Samplers {
			if contains(profilers, s.Profiler) {
				runs = append(runs, r)
				break
			}
		}
	}
	var jobs []job
	out := map[string]*simResult{}
	for _, app := range apps {
		res := &simResult{Profiles: map[string][]dist{}, Contexts: map[string][]dist{}, Truth: map[string][]dist{}, Ends: make([]time.Duration, ms.Seeds)}
		for _, r := range runs {
			for _, s := range r.Samplers {
				res.Profiles[s.Profiler] = make([]dist, ms.Seeds)
				res.Contexts[s.Profiler] = make([]dist, ms.Seeds)
				res.Truth[s.Profiler] = make([]dist, ms.Seeds)
			}
			for seed := 1; seed <= ms.Seeds; seed++ {
				jobs = append(jobs, job{app, r, seed})
			}
		}
		out[app] = res
	}
	var mu sync.Mutex
	done := 0
	start := time.Now()
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(ms.Jobs)
	for _, j := range jobs {
		res := out[j.App]
		g.Go(func() error {
			t0 := time.Now()
			profiles, contexts, truth, end, err := runOne(ctx, j, ms)
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			for _, s := range j.Run.Samplers {
				res.Profiles[s.Profiler][j.Seed-1] = profiles[s.Profiler]
				res.Contexts[s.Profiler][j.Seed-1] = contexts[s.Profiler]
				res.Truth[s.Profiler][j.Seed-1] = truth
			}
			if end < ms.Duration {
				res.Ends[j.Seed-1] = max(res.Ends[j.Seed-1], end)
			}
			done++
			fmt.Fprintf(progress, "[%d/%d] %s-real seed %d %s: %.1fs (elapsed %.0fs)%s\n",
				done, len(jobs), j.App, j.Seed, j.Run.Name, time.Since(t0).Seconds(), time.Since(start).Seconds(), endNote(end, ms))
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// runOne runs one model and seed and returns each profiler's self time
// and calling contexts on thread main, the truth's self time, and when the
// program ended (ms.Duration if it ran to the end of the run).
func runOne(ctx context.Context, j job, ms modelSettings) (self, contexts map[string]dist, truth dist, end time.Duration, err error) {
	name := j.App + "-real"
	var p *program.Program
	if ms.Models != "" {
		p, err = program.Load(filepath.Join(ms.Models, name+".yaml"))
	} else {
		p, err = getModel(name)
	}
	if err != nil {
		return nil, nil, nil, 0, fmt.Errorf("model %s: %w", name, err)
	}
	// The recorder's own threads are JFR's work, not the application's
	// (the real runs profile thread main only; without JFR they do not
	// exist).
	if _, err := workloads.DropRecorderThreads(p); err != nil {
		return nil, nil, nil, 0, fmt.Errorf("model %s: %w", name, err)
	}
	if ms.LoopScale > 0 {
		if _, err := workloads.ScaleEntryLoops(p, ms.LoopScale); err != nil {
			return nil, nil, nil, 0, fmt.Errorf("model %s: %w", name, err)
		}
	}
	cfg, err := modelConfig(j.Run, uint64(j.Seed), ms)
	if err != nil {
		return nil, nil, nil, 0, fmt.Errorf("model %s: %w", name, err)
	}
	rig, err := harness.Build(p, cfg)
	if err != nil {
		return nil, nil, nil, 0, fmt.Errorf("model %s seed %d (%s): %w", name, j.Seed, j.Run.Name, err)
	}
	rig.VM().SetContext(ctx)
	if err := rig.Run(); err != nil {
		return nil, nil, nil, 0, fmt.Errorf("model %s seed %d (%s): %w", name, j.Seed, j.Run.Name, err)
	}
	// A program may end before the run's duration; one that ends before
	// the window opens has no profile to compare (and its samplers never
	// attached).
	end = time.Duration(rig.VM().Now())
	if end <= ms.Skip {
		return nil, nil, nil, 0, &usageError{fmt.Sprintf("model %s seed %d ends at %v simulated, before the window starts at --warmup %v: its program is shorter than the real runs' warm-up", name, j.Seed, end.Round(time.Millisecond), ms.Skip)}
	}
	out, err := rig.Collect()
	if err != nil {
		return nil, nil, nil, 0, fmt.Errorf("model %s seed %d (%s): %w", name, j.Seed, j.Run.Name, err)
	}
	self, contexts = map[string]dist{}, map[string]dist{}
	for _, s := range j.Run.Samplers {
		pr, ok := out.Profiles[s.ID]
		if !ok {
			return nil, nil, nil, 0, fmt.Errorf("model %s: no %s profile", name, s.ID)
		}
		self[s.Profiler], contexts[s.Profiler] = selfByMethod(pr, false), contextsOf(pr)
	}
	return self, contexts, selfByMethod(out.Profiles["truth"], true), end, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
