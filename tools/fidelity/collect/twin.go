package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
)

// SimSettings are the twin runs' settings.
type SimSettings struct {
	// Warmup and Window are the real runs': the twin's profiles start at
	// Warmup and the run lasts Warmup + Window.
	Warmup, Window time.Duration
	Seeds, Jobs    int
	// CPUs is the simulated machine: the real runs' 2 cores.
	CPUs int
	// Specs overrides a profiler's sampler spec (--spec ID=SPEC).
	Specs map[string]string
}

// defaultCPUs is the machine run.sh measures on: 2 cores (nproc).
const defaultCPUs = 2

// SimCell is one (mode, profiler) on the simulated side: the shares per
// seed, or why there are none.
type SimCell struct {
	Seeds []Shares
	NA    string // "n/a (...)": the sampler is not built, or its spec failed
}

// SimResult is every simulated cell and notes on the runs (a VM preset
// that is not built, so its twins ran on another).
type SimResult struct {
	Cells map[string]map[string]*SimCell // mode → profiler → cell
	Notes []string
}

// fallbackVM is the preset a twin runs on when its own is not built.
const fallbackVM = "hotspot17"

// group is the profilers that share one simulated run: same VM preset
// and DebugNonSafepoints.
type group struct {
	VM    string
	DNS   bool
	Profs []Profiler
	Specs []string
}

// spec is a profiler's sampler spec, overridden or its own.
func (s SimSettings) spec(p Profiler) string {
	if v, ok := s.Specs[p.ID]; ok {
		return v
	}
	return p.Spec
}

// planGroups resolves each profiler's spec: one that does not resolve
// becomes an n/a cell (a sampler not registered: "not built"; another
// error: the error), the rest are grouped by VM preset and DNS. A preset
// that is not built falls back to hotspot17, with a note.
func planGroups(profs []Profiler, s SimSettings) ([]*group, map[string]string, []string) {
	na := map[string]string{}
	var notes []string
	presets := map[string]bool{}
	for _, p := range harness.Presets() {
		presets[p.Name] = true
	}
	var groups []*group
	noted := map[string]bool{}
	for _, p := range profs {
		text := s.spec(p)
		sp, err := samplers.ParseSpec(text)
		if err == nil {
			_, err = sp.Resolve()
		}
		if err != nil {
			if _, lerr := samplers.Lookup(sp.Name); sp.Name != "" && lerr != nil {
				na[p.ID] = fmt.Sprintf("n/a (sampler %s not built)", sp.Name)
			} else {
				// The first clause of the error: the key and the problem,
				// without the list of valid keys.
				msg, _, _ := strings.Cut(err.Error(), " (valid:")
				na[p.ID] = fmt.Sprintf("n/a (%s)", msg)
			}
			continue
		}
		vm := p.VM
		if !presets[vm] {
			if !noted[vm] {
				notes = append(notes, fmt.Sprintf("VM preset %s is not built: its twins ran on %s", vm, fallbackVM))
				noted[vm] = true
			}
			vm = fallbackVM
		}
		var g *group
		for _, x := range groups {
			if x.VM == vm && x.DNS == p.DNS {
				g = x
			}
		}
		if g == nil {
			g = &group{VM: vm, DNS: p.DNS}
			groups = append(groups, g)
		}
		g.Profs = append(g.Profs, p)
		g.Specs = append(g.Specs, text)
	}
	return groups, na, notes
}

// RunTwins runs each mode's twin under every profiler's sampler, seeds
// 1..Seeds, and reduces each profile as the real ones are.
func RunTwins(ctx context.Context, modes []Mode, profs []Profiler, s SimSettings, progress func(string)) (*SimResult, error) {
	groups, na, notes := planGroups(profs, s)
	res := &SimResult{Cells: map[string]map[string]*SimCell{}, Notes: notes}
	type job struct {
		mode Mode
		g    *group
		seed int
	}
	var jobs []job
	for _, m := range modes {
		res.Cells[m.Name] = map[string]*SimCell{}
		for _, p := range profs {
			c := &SimCell{NA: na[p.ID]}
			if c.NA == "" {
				c.Seeds = make([]Shares, s.Seeds)
			}
			res.Cells[m.Name][p.ID] = c
		}
		for _, g := range groups {
			for seed := 1; seed <= s.Seeds; seed++ {
				jobs = append(jobs, job{m, g, seed})
			}
		}
	}
	var mu sync.Mutex
	done := 0
	eg, ctx := errgroup.WithContext(ctx)
	eg.SetLimit(s.Jobs)
	for _, j := range jobs {
		eg.Go(func() error {
			t0 := time.Now()
			shares, err := runTwin(ctx, j.mode, j.g, uint64(j.seed), s)
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			for id, sh := range shares {
				res.Cells[j.mode.Name][id].Seeds[j.seed-1] = sh
			}
			done++
			progress(fmt.Sprintf("[%d/%d] twin %s on %s (DNS %v) seed %d: %.1fs", done, len(jobs), j.mode.Twin, j.g.VM, j.g.DNS, j.seed, time.Since(t0).Seconds()))
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	return res, nil
}

// runTwin runs one twin with one group's samplers and returns each
// profiler's shares.
func runTwin(ctx context.Context, m Mode, g *group, seed uint64, s SimSettings) (map[string]Shares, error) {
	p, err := workloads.Get(m.Twin)
	if err != nil {
		return nil, fmt.Errorf("twin of %s: %w", m.Name, err)
	}
	sc := ScopeOf(p)
	cfg, err := harness.PresetConfig(g.VM)
	if err != nil {
		return nil, err
	}
	cfg.Sim.Seed = seed
	cfg.Sim.Duration = sim.Time(s.Warmup + s.Window)
	cfg.Sim.CPUs = s.CPUs
	cfg.JIT.DebugNonSafepoints = g.DNS
	cfg.ProfileFrom = sim.Time(s.Warmup)
	cfg.Samplers = append([]string{}, g.Specs...)
	rig, err := harness.Build(p, cfg)
	if err != nil {
		return nil, fmt.Errorf("twin %s (%s): %w", m.Twin, strings.Join(g.Specs, " "), err)
	}
	rig.VM().SetContext(ctx)
	if err := rig.Run(); err != nil {
		return nil, fmt.Errorf("twin %s seed %d: %w", m.Twin, seed, err)
	}
	out, err := rig.Collect()
	if err != nil {
		return nil, fmt.Errorf("twin %s seed %d: %w", m.Twin, seed, err)
	}
	shares := map[string]Shares{}
	for i, p := range g.Profs {
		sp, _ := samplers.ParseSpec(g.Specs[i])
		pr, ok := out.Profiles[sp.ID()]
		if !ok {
			return nil, fmt.Errorf("twin %s: no profile %s", m.Twin, sp.ID())
		}
		shares[p.ID] = ShareOf(Reduce(simStacks(pr), sc, m.Keys), m.Keys)
	}
	return shares, nil
}

// simStacks turns a simulated profile into stacks as the real readers
// make them: thread, frames root first by Class.name, count.
func simStacks(p *profile.Profile) []Stack {
	out := make([]Stack, 0, len(p.Samples))
	var buf []profile.Frame
	for i, smp := range p.Samples {
		if smp.Count <= 0 {
			continue
		}
		buf = p.Stack(i, buf)
		s := Stack{Thread: p.ThreadName(i), Count: smp.Count, Frames: make([]string, len(buf))}
		for k, f := range buf {
			fn := p.Functions[f.Func]
			s.Frames[k] = fn.Class + "." + fn.Method
		}
		out = append(out, s)
	}
	return out
}
