package samplers

import (
	"fmt"

	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/sim"
)

// Capabilities: what a sampler may provide beyond Sampler. Each is a named
// interface that a run consults by asserting a sampler to it; a sampler
// that provides one says so with a compile-time assertion at the end of its
// file (var _ IntervalSetter = (*safepointSampler)(nil)). A run that asks a
// sampler for a capability it lacks is an error naming the sampler and the
// capability, never a silent no-op.

// PrologueYieldPointer is a sampler that samples at the yield points of
// method prologues and epilogues (sim.PollPrologue, sim.PollEpilogue),
// which only Jikes-like code (jit.Jikes) has.
type PrologueYieldPointer interface {
	Sampler
	// NeedsPrologueYieldPoints reports whether the sampler relies on those
	// yield points; the harness refuses to run it on code without them.
	// The answer depends on the sampler's type and configuration only,
	// so that a fresh instance of a resolved spec gives it.
	NeedsPrologueYieldPoints() bool
}

// Instrumenter is a sampler that rewrites the program before the VM
// exists (Komorium's inserted counters).
type Instrumenter interface {
	Sampler
	// Instrument rewrites img's code in place; the harness calls it once,
	// before building the VM and before Attach. In Passive mode the
	// inserted code costs nothing and adds nothing to method sizes, so
	// the execution is the one the other samplers see. cost is the run's
	// cost model.
	Instrument(img *sim.Image, mode Mode, cost sim.CostModel) error
}

// UnitInstrumenter is an Instrumenter whose probes the JIT places when
// it compiles, after inlining (instrument with after_inlining: Burchell
// & Marr's Bubo): the harness hands them to the JIT
// (jit.Config.UnitProbes) before it attaches it.
type UnitInstrumenter interface {
	Instrumenter
	// UnitProbes are the probes for mode, nil when the sampler has none
	// for the JIT to place (its configuration decides).
	UnitProbes(mode Mode) *jit.Probes
}

// Membered is a sampler made of several members watching one execution
// (komorium-set): the run reports each member's result beside the
// sampler's own, under the sampler's ID, '/' and the member's name.
type Membered interface {
	Sampler
	// Members names the members; Results are their results, in the same
	// order, valid after the run.
	Members() []string
	Results() []*Result
}

// PassiveOnly is a sampler that can only watch a run passively; the
// harness refuses it in costed mode.
type PassiveOnly interface {
	Sampler
	// PassiveOnly reports whether the sampler refuses costed mode.
	PassiveOnly() bool
}

// CallGraphSource is a sampler whose call graph, as sampled so far, can
// drive the JIT's inlining decisions during the run (harness
// Config.InlineFrom; jit.JIT.SetProfile). The weights are by static call
// edge (sim.Image.Edges) and may be read at any time after Attach.
type CallGraphSource interface {
	Sampler
	jit.EdgeProfile
}

// ContextTree is a sampler that keeps a calling context tree whose node
// and edge counts its profile (samples only) does not carry: pcct and
// hotmethods. Whaley's PCCT precision correlates them (study W2).
type ContextTree interface {
	Sampler
	// Contexts returns every node of the tree with its counts, root
	// excluded, in creation order; valid after the run.
	Contexts() []PCCTContext
}

// IntervalSetter is a sampler whose sampling interval can be set after it
// is built, by Go code that holds the instance (a spec's interval key sets
// it before).
type IntervalSetter interface {
	Sampler
	// SetInterval sets the interval between sample requests; call it
	// before Attach, which validates it with the rest of the
	// configuration.
	SetInterval(iv sim.Time)
}

// SetInterval sets s's sampling interval. A sampler without a settable
// interval is an error naming it.
func SetInterval(s Sampler, iv sim.Time) error {
	is, ok := s.(IntervalSetter)
	if !ok {
		return fmt.Errorf("sampler %s: has no settable sampling interval (not a samplers.IntervalSetter)", s.Name())
	}
	is.SetInterval(iv)
	return nil
}

// TickSynchronous is a sampler that takes every sample inside the timer
// tick that requested it, at the tick's time: its OnTimer walks the
// threads there and then (async, jfr, pcct and hotmethods, tprof). For it
// a tick served at least one sample exactly when a sample's time equals
// the tick's, so the ticks served can be counted. Samplers that sample
// later, at a poll or a safepoint a request may share with the next tick
// (the safepoint family, sps, isps, cbs, jikes-timer, jfr-coop,
// jfr-cputime), or that have no ticks (komorium), do not provide it.
type TickSynchronous interface {
	Sampler
	// SamplesAtTick marks the capability.
	SamplesAtTick()
}

// IsTickSynchronous reports whether the registered sampler name is
// TickSynchronous. Its type decides, whatever its configuration: every
// instance of name is, or none is. An unregistered name is an error.
func IsTickSynchronous(name string) (bool, error) {
	info, err := Lookup(name)
	if err != nil {
		return false, err
	}
	_, ok := info.Build(info.Name, info.Config()).(TickSynchronous)
	return ok, nil
}

// TickSynchronousNames are the registered samplers that are
// TickSynchronous, in List's order (by name).
func TickSynchronousNames() []string {
	var names []string
	for _, info := range List() {
		if ok, _ := IsTickSynchronous(info.Name); ok { // listed, so registered
			names = append(names, info.Name)
		}
	}
	return names
}

// GlobalSafepointer is a sampler each of whose samples is a global
// safepoint it requests (the safepoint family: a JVMTI agent's
// GetAllStackTraces). In costed mode each request stops every thread
// (safepoint.Coordinator) and is in the run's safepoints; in passive mode
// none is run — the sampler takes each thread's sample at that thread's
// next poll, stopping nothing — so a passive run's safepoints hold none
// of its requests (Costs.Requested counts them).
type GlobalSafepointer interface {
	Sampler
	// RequestsGlobalSafepoints marks the capability.
	RequestsGlobalSafepoints()
}

// ExceptionEventsHolder is a JVMTI agent holding
// can_generate_exception_events (or frame-pop or method-exit events),
// which makes HotSpot deoptimize every compiled frame an exception enters
// from a callee (sim.VM.SetCatchDeopt): an observer effect of the
// capability alone, in costed mode.
type ExceptionEventsHolder interface {
	Sampler
	// CatchDeopt is the cost of one such deoptimization besides its
	// scopes, and what each scope adds; 0, 0 when this instance does not
	// hold the capability.
	CatchDeopt() (frame, scope sim.Time)
}

// Traceable is a sampler that tells Env.Trace each sample's story (trace.go).
// The others aggregate without per-sample times (cbs, jikes-timer,
// hotmethods, pcct) or count instead of sampling (komorium).
type Traceable interface {
	Sampler
	// TracesSamples marks the capability.
	TracesSamples()
}

// CallGraphSourceNames are the registered samplers that are
// CallGraphSources (whose call graph the JIT's profile-directed inlining
// may read: harness.Config.InlineFrom), in List's order (by name).
func CallGraphSourceNames() []string {
	var names []string
	for _, info := range List() {
		if _, ok := info.Build(info.Name, info.Config()).(CallGraphSource); ok {
			names = append(names, info.Name)
		}
	}
	return names
}
