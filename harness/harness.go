// Package harness wires one simulated run together — VM, JIT, safepoints,
// GC and samplers — so that the command line, the tests and the studies
// set up runs the same way.
//
// A run is Config.Validate (everything checkable without the program),
// Build (a Rig: the run built, nothing executed), Rig.RunUntil or Rig.Run,
// and Rig.Collect (the Outcome); Run does it all in one call.
package harness

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/safepoint"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

// Config is one run's full configuration.
type Config struct {
	Sim sim.Config
	// JIT, unless NoJIT: without a JIT every method runs its base version
	// (compiled, polls at every return and back-edge, no inlining).
	JIT   jit.Config
	NoJIT bool
	// GC, when non-nil, enables allocation-driven collections.
	GC *safepoint.GCConfig
	// Safepoint is what a global safepoint costs beyond its operation
	// (detection latency, begin/end overhead); the zero value adds
	// nothing.
	Safepoint safepoint.Config
	// Samplers to attach, as specs (samplers.ParseSpec:
	// NAME[:LABEL][,KEY=VALUE...]; a plain registry name is one). "truth"
	// is always computed and may be listed for ordering. Several instances
	// of one sampler need distinct labels.
	Samplers []string
	Mode     samplers.Mode
	// Extra samplers, built by the caller, attach after the named ones
	// (passive mode only; their names must be unique). For tests: no
	// Spec describes them, so a run with them cannot be replayed.
	Extra []samplers.Sampler
	// InlineFrom names an attached sampler whose call graph, as sampled so
	// far, drives the JIT's inlining decisions (Arnold & Grove's
	// profile-directed inlining); "none" gives the inliner an empty profile
	// (size rules only); "exact" gives it the exact call graph so far,
	// read the same way; "" keeps HotSpot's rule on exact call-site counts.
	InlineFrom string
	// WarmUp, when > 0, records the bytecodes executed by then
	// (Outcome.WarmUpBytecodes), so steady-state work can be measured with
	// the warm-up discarded.
	WarmUp sim.Time
	// Census, when > 0, records every Census of simulated time, from the
	// profiled window's start (ProfileFrom) plus Census on, which
	// application threads are running (Outcome.Census): what a sampler
	// that took every running thread at each tick would see, for a study
	// that predicts what a capped one sees (X2). Like WarmUp it reads the
	// run and changes nothing in it.
	Census sim.Time
	// NoTruthProfile skips building the truth as a profile (Outcome has no
	// "truth" profile; Outcome.Result.Truth is still exact). On deep
	// recursion that profile holds a full stack per context and costs more
	// than the run: studies that never read it set this.
	NoTruthProfile bool
	// ReleaseTruth frees the recorder's calling contexts while Collect
	// builds the truth profile from them (sim.Truth.Release), so that the
	// two are never held at once: the recorder and the truth profile are
	// each about half of a context-rich run's memory. Afterwards
	// Outcome.Result.Truth answers only PerMethod, EdgeCount and the
	// exception counts. For callers that read the run's truth through the
	// profile alone (profsim run); without a truth profile
	// (NoTruthProfile) it does nothing.
	ReleaseTruth bool
	// TruthPerMethod records the ground truth per method instead of per
	// calling context (sim.VM.TruthPerMethod): self time, bytecodes, calls
	// and allocations per method and line, the call edges' counts and every
	// total are exact and the run executes as with the full calling-context
	// tree; the truth profile's stacks are one frame deep (no inclusive
	// time), and context-rich programs run up to three times faster. For
	// studies that read the truth by method (hotness, self time), by call
	// edge, by its totals (bytecodes executed) or not at all.
	TruthPerMethod bool
	// Window, when > 0, also splits every sampler's profile into
	// consecutive windows of this length by sample time
	// (Outcome.Windows): Hofer et al.'s per-iteration profiles. Samplers
	// whose profiles carry no sample times refuse it.
	Window sim.Time
	// RecompileAt, when > 0, recompiles every method compiled by then with
	// the profile as it is then (jit.RecompileAll): profile-directed
	// re-optimization once the call graph has matured.
	RecompileAt sim.Time
	// ProfileFrom, when > 0, is where every profile starts (profsim run
	// --skip): the run executes from 0 as without it (the JIT warms up,
	// threads start), the truth counts only what happens from then on
	// (Outcome.Result is the window's: sim.Result.Since), and the samplers
	// attach then, as a profiler started then would: no sample, no cost
	// and no agent thread before it. Config.Window's windows start there.
	// Instrumenting samplers (komorium), which rewrite the program before
	// it runs, and InlineFrom a sampler, which the JIT would read before
	// it started, refuse it.
	ProfileFrom sim.Time
	// Trace, when not nil, receives every traceable sampler's samples
	// with where each thread truly was when the sample was requested
	// (samplers.Trace: the --trace file, the bias matrices of --why).
	Trace *samplers.Trace
}

// emptyProfile is a call graph with no samples: nothing is hot.
type emptyProfile struct{}

func (emptyProfile) EdgeWeight(int) float64 { return 0 }
func (emptyProfile) TotalWeight() float64   { return 0 }

// warmUpMeter records the bytecodes executed when its timer fires.
type warmUpMeter struct {
	truth *sim.Truth
	into  *int64
}

func (w warmUpMeter) OnTimer(sim.Agent, sim.Time, int64) { *w.into = w.truth.BytecodeTotal() }

// recompiler re-optimizes every compiled method when its timer fires.
type recompiler struct{ j *jit.JIT }

func (r recompiler) OnTimer(sim.Agent, sim.Time, int64) { r.j.RecompileAll() }

// exactProfile is the exact call graph so far, by static edge.
type exactProfile struct{ vm *sim.VM }

func (e exactProfile) EdgeWeight(i int) float64 { return float64(e.vm.EdgeCount(i)) }

func (e exactProfile) TotalWeight() float64 {
	var n int64
	for i := range e.vm.Image().Edges {
		n += e.vm.EdgeCount(i)
	}
	return float64(n)
}

// DefaultConfig is DefaultSpec's run without its workload: the DefaultVM
// preset (hotspot17), the GC on, no sampler, passive mode. A caller that
// wants another VM names it (PresetConfig, MustPresetConfig).
func DefaultConfig() Config { return MustPresetConfig(DefaultVM) }

// PresetConfig is the named VM preset (Presets) with sim.DefaultConfig's
// seed, CPUs, duration and limits, the GC on, no sampler, passive mode.
func PresetConfig(name string) (Config, error) {
	cfg := componentDefaults()
	err := ApplyPreset(&cfg, name)
	return cfg, err
}

// MustPresetConfig is PresetConfig for a name written in the code (such
// as "hotspot6", the papers' VM): it panics if name is not a preset, as
// regexp.MustCompile does on a bad literal. Names read from input go
// through PresetConfig or ApplyPreset.
func MustPresetConfig(name string) Config {
	cfg, err := PresetConfig(name)
	if err != nil {
		panic(err)
	}
	return cfg
}

// componentDefaults are the VM's, JIT's, safepoint protocol's and GC's
// own defaults, which every preset starts from (hotspot6 changes none).
func componentDefaults() Config {
	gc := safepoint.DefaultGCConfig()
	return Config{Sim: sim.DefaultConfig(), JIT: jit.DefaultConfig(), GC: &gc, Safepoint: safepoint.DefaultConfig()}
}

// Outcome is a finished run.
type Outcome struct {
	Result     *sim.Result
	Image      *sim.Image // the program as run (instrumented if a sampler asked)
	JIT        *jit.JIT   // nil with NoJIT
	Safepoints *safepoint.Coordinator
	GC         *safepoint.GC
	// Names lists the profiles in the requested order, "truth" first
	// unless listed elsewhere: each sampler's ID (NAME or NAME:LABEL).
	Names []string
	// Samplers are the named samplers' resolved settings (defaults
	// included), in the order of Config.Samplers, truth excluded.
	Samplers []*samplers.Resolved
	// Profiles and Costs are by profile ID: each sampler's, and a
	// sampler of several members' (samplers.Membered, komorium-set) each
	// member's as ID/MEMBER too.
	Profiles map[string]*profile.Profile
	Costs    map[string]samplers.Costs
	// Members are, for each sampler of several members, its members'
	// profile IDs (ID/MEMBER) in the sampler's order.
	Members map[string][]string
	// Windows holds each sampler's per-window profiles (Config.Window).
	Windows map[string][]*profile.Profile
	// Census are the application threads running at each Config.Census
	// tick, by name in thread order (nil without).
	Census [][]string
	// WarmUpBytecodes: bytecodes executed by Config.WarmUp (0 without).
	WarmUpBytecodes int64
	// Footprint is the run's estimated memory (Config.Sim.Limits).
	Footprint sim.Footprint
}

// LargestExport is the profile among Names whose export (one at a time:
// profile.ExportBytes) takes the most memory, and that memory; "", 0
// without profiles.
func (o *Outcome) LargestExport() (name string, bytes int64) {
	for _, n := range o.Names {
		if b := o.Profiles[n].ExportBytes(); b > bytes {
			name, bytes = n, b
		}
	}
	return name, bytes
}

// Run executes program p under cfg: Build, Rig.Run and Rig.Collect in
// one call. A run that reaches one of cfg.Sim.Limits returns a
// *sim.LimitError.
func Run(p *program.Program, cfg Config) (*Outcome, error) {
	return RunContext(context.Background(), p, cfg)
}

// RunContext is Run, stopped with ctx's error once ctx is done.
func RunContext(ctx context.Context, p *program.Program, cfg Config) (*Outcome, error) {
	r, err := Build(p, cfg)
	if err != nil {
		return nil, err
	}
	if ctx.Done() != nil {
		r.vm.SetContext(ctx)
	}
	if err := r.Run(); err != nil {
		return nil, err
	}
	return r.Collect()
}

// Rig is one built run: a program's image (instrumented if a sampler
// asked), the VM, the JIT, the safepoint coordinator, the GC and the
// attached samplers of one Config, with the warm-up meter and the
// recompilation scheduled.
//
// A Rig is also the test harness of the packages the run is made of, in
// the spirit of etcd/raft's rafttest: a test builds a run exactly as the
// command line and the studies do, steps it with RunUntil, looks at the
// VM, the JIT, the safepoints and the samplers between steps (VM,
// Sampler, ...), and ends with Collect. Stopping at any time and going on
// gives exactly the run Run gives (sim.VM.RunUntil). A Rig is not safe for
// concurrent use.
type Rig struct {
	cfg      Config
	vm       *sim.VM
	names    []string
	resolved []*samplers.Resolved
	attached []samplers.Sampler
	// out holds what Build made (Image, JIT, Safepoints, GC); Collect
	// fills in the rest once.
	out       *Outcome
	collected bool
	// mark is the run's counts at Config.ProfileFrom (profileStart);
	// startErr is a sampler's refusal to attach then.
	mark     *sim.Counts
	startErr error
	// started: the profiled window opened (Config.ProfileFrom's timer
	// fired before the run ended).
	started bool
}

// Build checks cfg as Config.Validate does and then builds the run of p
// under it: the image, the instrumenting
// samplers' rewrites, the VM, the JIT, the safepoint coordinator, the GC,
// the samplers attached in order, the inliner's profile (InlineFrom), and
// the WarmUp and RecompileAt timers. Nothing executes until Run or
// RunUntil. Errors the configuration alone cannot show (the program's,
// a sampler's settings that only Attach checks) are found here.
func Build(p *program.Program, cfg Config) (*Rig, error) {
	pl, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	img, err := sim.NewImage(p, cfg.Sim.Cost)
	if err != nil {
		return nil, err
	}
	if err := checkProfileThreads(cfg.Sim.ProfileThreads, img.ThreadNames(), true); err != nil {
		return nil, err
	}
	for _, s := range pl.attached {
		// Instrumenting samplers (komorium) rewrite the program first.
		if in, ok := s.(samplers.Instrumenter); ok {
			if err := in.Instrument(img, cfg.Mode, cfg.Sim.Cost); err != nil {
				return nil, err
			}
		}
	}
	vm, err := sim.New(img, cfg.Sim)
	if err != nil {
		return nil, err
	}
	if cfg.Mode == samplers.Costed {
		// An agent's capabilities change the VM for every thread, however
		// many agents hold them.
		var frame, scope sim.Time
		for _, s := range pl.attached {
			if h, ok := s.(samplers.ExceptionEventsHolder); ok {
				f, sc := h.CatchDeopt()
				frame, scope = max(frame, f), max(scope, sc)
			}
		}
		vm.SetCatchDeopt(frame, scope)
	}
	if cfg.NoTruthProfile {
		vm.NoTruthProfile()
	}
	if cfg.TruthPerMethod {
		if err := vm.TruthPerMethod(); err != nil {
			return nil, err
		}
	}
	out := &Outcome{Image: img, Profiles: map[string]*profile.Profile{}, Costs: map[string]samplers.Costs{}, Members: map[string][]string{}, Windows: map[string][]*profile.Profile{}}
	if !cfg.NoJIT {
		jcfg := cfg.JIT
		for _, s := range pl.attached {
			// A sampler whose probes the JIT places after inlining
			// (Validate refused it without the JIT, or with another).
			if u, ok := s.(samplers.UnitInstrumenter); ok {
				if p := u.UnitProbes(cfg.Mode); p != nil {
					jcfg.UnitProbes = p
				}
			}
		}
		if out.JIT, err = jit.Attach(vm, jcfg); err != nil {
			return nil, err
		}
	}
	if out.Safepoints, err = safepoint.New(vm.Agent(), cfg.Safepoint); err != nil {
		return nil, err
	}
	if cfg.GC != nil {
		if out.GC, err = safepoint.AttachGC(vm.Agent(), out.Safepoints, *cfg.GC); err != nil {
			return nil, err
		}
	}
	env := &samplers.Env{VM: vm.Agent(), Mode: cfg.Mode, Safepoints: out.Safepoints, GC: out.GC, Seed: cfg.Sim.Seed, Window: cfg.Window, Trace: cfg.Trace}
	r := &Rig{cfg: cfg, vm: vm, names: pl.names, resolved: pl.resolved, attached: pl.attached, out: out}
	if cfg.ProfileFrom > 0 {
		// A timer is a horizon: every running thread's charges are up to
		// date when it fires, so the mark splits the truth exactly there.
		vm.ScheduleTimer(vm.AddTimer(profileStart{r, env}), cfg.ProfileFrom, 0)
	} else {
		if err := attachAll(pl.attached, env); err != nil {
			return nil, err
		}
		r.startCensus(0)
	}
	switch cfg.InlineFrom {
	case "":
	case "none":
		out.JIT.SetProfile(emptyProfile{})
	case "exact":
		out.JIT.SetProfile(exactProfile{vm})
	default:
		// Validate found it attached and a call-graph source.
		out.JIT.SetProfile(findSampler(pl.attached, cfg.InlineFrom).(samplers.CallGraphSource))
	}
	if cfg.WarmUp > 0 {
		// A timer is a horizon: every running thread's position, and so
		// the bytecode count, is exact when it fires.
		id := vm.AddTimer(warmUpMeter{vm.Truth(), &out.WarmUpBytecodes})
		vm.ScheduleTimer(id, cfg.WarmUp, 0)
	}
	if cfg.RecompileAt > 0 {
		vm.ScheduleTimer(vm.AddTimer(recompiler{out.JIT}), cfg.RecompileAt, 0)
	}
	return r, nil
}

// attachAll attaches the samplers in order.
func attachAll(ss []samplers.Sampler, env *samplers.Env) error {
	for _, s := range ss {
		if err := s.Attach(env); err != nil {
			return err
		}
	}
	return nil
}

// maxListedThreads is how many thread names an error about
// ProfileThreads lists.
const maxListedThreads = 20

// checkProfileThreads reports a ProfileThreads pattern that matches none
// of names, the application threads' (a spawn statement's as NAME-*,
// Image.ThreadNames, when spawned: whose numbers are known only once they
// run, so that such a pattern is left for the run's end).
func checkProfileThreads(pattern string, names []string, spawned bool) error {
	if pattern == "" {
		return nil
	}
	for _, n := range names {
		if sim.MatchThreads(pattern, n) || spawned && strings.HasSuffix(n, "-*") {
			return nil
		}
	}
	return &ThreadsError{Pattern: pattern, Names: names}
}

// ThreadsError is a sim.Config.ProfileThreads pattern that matches none
// of the application threads, Names (a numbered family beyond its first
// 64, or a spawn statement's threads before the run, as NAME-*).
type ThreadsError struct {
	Pattern string
	Names   []string
}

func (e *ThreadsError) Error() string {
	return fmt.Sprintf("profile_threads: %q matches none of the application threads: %s", e.Pattern, e.List())
}

// List is Names, comma-separated, the first 20 and how many more.
func (e *ThreadsError) List() string {
	list := e.Names
	if len(list) > maxListedThreads {
		list = append(slices.Clone(list[:maxListedThreads]), fmt.Sprintf("… and %d more", len(e.Names)-maxListedThreads))
	}
	return strings.Join(list, ", ")
}

// profileStart opens the profiled window (Config.ProfileFrom) when its
// timer fires: it marks the truth and the threads' counts, which Collect
// takes away (sim.VM.ResultSince), and attaches the samplers.
type profileStart struct {
	r   *Rig
	env *samplers.Env
}

func (p profileStart) OnTimer(_ sim.Agent, at sim.Time, _ int64) {
	p.r.started = true
	p.r.mark = p.r.vm.MarkCounts()
	if err := attachAll(p.r.attached, p.env); err != nil {
		p.r.startErr = fmt.Errorf("at --skip %v: %w", p.r.cfg.ProfileFrom, err)
		return
	}
	p.r.startCensus(at)
}

// startCensus schedules Config.Census's ticks from from on, if asked.
func (r *Rig) startCensus(from sim.Time) {
	if r.cfg.Census > 0 {
		c := &census{period: r.cfg.Census, into: &r.out.Census}
		c.timer = r.vm.AddTimer(c)
		r.vm.ScheduleTimer(c.timer, from+c.period, 0)
	}
}

// census records, at each tick, the application threads running
// (Config.Census).
type census struct {
	period sim.Time
	timer  sim.TimerID
	into   *[][]string
}

func (c *census) OnTimer(vm sim.Agent, at sim.Time, _ int64) {
	running := []string{}
	for id := sim.ThreadID(0); int(id) < vm.NumThreads(); id++ {
		if !vm.IsService(id) && vm.State(id) == sim.Running {
			running = append(running, vm.ThreadName(id))
		}
	}
	*c.into = append(*c.into, running)
	vm.ScheduleTimer(c.timer, at+c.period, 0)
}

// RunUntil executes the run up to simulated time t (or its end),
// processing every event before t (sim.VM.RunUntil). It reports whether
// the run goes on; once it is over, Err says whether it stopped early.
func (r *Rig) RunUntil(t sim.Time) bool { return r.vm.RunUntil(t) }

// Run executes the rest of the run and returns Err.
func (r *Rig) Run() error {
	r.vm.RunUntil(r.cfg.Sim.Duration)
	return r.Err()
}

// Err is why the run stopped early: a *sim.LimitError, a context's error
// (RunContext), or nil; or a sampler's refusal to attach at
// Config.ProfileFrom.
func (r *Rig) Err() error {
	if err := r.vm.Err(); err != nil {
		return err
	}
	return r.startErr
}

// Collect returns the finished run's Outcome: the result, every profile
// and cost, the windows, the footprint. It is an error before the run is
// over, and the run's error if it stopped early. Collecting again returns
// the same Outcome.
func (r *Rig) Collect() (*Outcome, error) {
	if err := r.Err(); err != nil {
		return nil, err
	}
	if r.collected {
		return r.out, nil
	}
	if !r.vm.Done() {
		return nil, fmt.Errorf("harness: the run is not over (at %v of %v): Run it to the end before Collect", r.vm.Now(), r.cfg.Sim.Duration)
	}
	if r.cfg.ProfileFrom > 0 && !r.started {
		return nil, &EmptyWindowError{From: r.cfg.ProfileFrom, End: r.vm.Now()}
	}
	out := r.out
	if pat := r.cfg.Sim.ProfileThreads; pat != "" {
		var names []string
		for _, th := range r.vm.Result().Threads {
			if !th.Service {
				names = append(names, th.Name)
			}
		}
		if err := checkProfileThreads(pat, names, false); err != nil {
			return nil, err
		}
	}
	if r.mark != nil {
		out.Result = r.vm.ResultSince(r.mark)
		r.mark = nil
	} else {
		out.Result = r.vm.Result()
	}
	out.Names, out.Samplers = r.names, r.resolved
	if r.cfg.NoTruthProfile {
		out.Footprint = r.vm.Footprint()
	} else {
		p, f, err := checkedTruthProfile(r.vm, out.Image, r.cfg.ReleaseTruth)
		out.Footprint = f
		if err != nil {
			return nil, err
		}
		out.Profiles["truth"] = p
	}
	for _, s := range r.attached {
		res := s.Result()
		out.Profiles[s.Name()] = res.Profile
		out.Costs[s.Name()] = res.Costs
		if m, ok := s.(samplers.Membered); ok {
			rs := m.Results()
			for i, name := range m.Members() {
				id := s.Name() + "/" + name
				out.Profiles[id], out.Costs[id] = rs[i].Profile, rs[i].Costs
				out.Members[s.Name()] = append(out.Members[s.Name()], id)
			}
		}
		if r.cfg.Window > 0 {
			out.Windows[s.Name()] = res.Windows
		}
	}
	r.collected = true
	return out, nil
}

// EmptyWindowError is Collect's error for a run whose program ended
// (at End) before its profiled window opened (Config.ProfileFrom): no
// sampler ever attached and the truth has nothing in the window.
type EmptyWindowError struct {
	From, End sim.Time
}

func (e *EmptyWindowError) Error() string {
	return fmt.Sprintf("profile_from: the program ended at %v, before the profiled window opens at %v: nothing was profiled", e.End, e.From)
}

// VM is the run's VM: its clock, threads, stacks and truth so far.
func (r *Rig) VM() *sim.VM { return r.vm }

// Image is the program as run (instrumented if a sampler asked).
func (r *Rig) Image() *sim.Image { return r.out.Image }

// JIT is the run's JIT (nil with NoJIT).
func (r *Rig) JIT() *jit.JIT { return r.out.JIT }

// Safepoints is the run's safepoint coordinator.
func (r *Rig) Safepoints() *safepoint.Coordinator { return r.out.Safepoints }

// GC is the run's collector (nil without Config.GC).
func (r *Rig) GC() *safepoint.GC { return r.out.GC }

// Sampler is the attached sampler whose ID is id (a named sampler's NAME
// or NAME:LABEL, an Extra sampler's Name), or nil.
func (r *Rig) Sampler(id string) samplers.Sampler { return findSampler(r.attached, id) }

// CollectGCPercent is the collector's GOGC that profsim run sets from
// the end of the run to the end of its report (unless GOGC is set in the
// environment), and BenchmarkWorkloads around Collect. Collect and the
// report make scratch proportional to the truth profile, one table after
// another, on a heap that is nearly all live; at GOGC's default 100 % the
// dead scratch stays resident until the heap has doubled, here until it
// is a tenth of the live heap. That heap is the truth profile's tables,
// pointer-free arrays a collection marks without scanning: on the scalac
// stand-in's 60 s run (a 450–810 MB heap) a collection's mark takes
// 20–130 ms of CPU, the 19 after the run 1.5 s of its 34 s
// (docs/PERFORMANCE.md, "The 1 GB goal for 60 s"). profsim run's export to
// --out makes pprof profiles full of pointers, which every collection
// scans, so it runs at the previous setting again.
const CollectGCPercent = 10
