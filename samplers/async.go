package samplers

import (
	"fmt"

	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/sim"
)

// AsyncConfig configures the AsyncGetCallTrace-style sampler.
type AsyncConfig struct {
	// Interval is the CPU-time sampling period. > 0.
	Interval sim.Time `key:"interval" check:"1us..max" doc:"sampling period (a signal to every running thread each period)" src:"async-profiler: interval 10 ms (-i / interval=10ms)"`
	// Jitter is the mean lateness of a tick (timerJitter); ticks re-arm
	// on their grid, as a CPU-time itimer or perf event does.
	Jitter sim.Time `key:"jitter" check:"0..1h" doc:"mean lateness of a timer tick, exponential; ticks stay on their grid (0: a perfect grid)" src:"tools/timer-jitter (c): async-profiler's default cpu mode is a perf cpu-clock event, an hrtimer; a CLOCK_MONOTONIC timer's ticks keep their grid, late beyond the earliest by median 8.6 us, mean 11.3 and sd 9.3 us between p1 and p99: mean 10 us. Its itimer/ctimer modes fire on the 4 ms jiffy instead: jitter=2ms has that mean, not its 8/12 ms alternation"`
	// Depth keeps at most this many frames nearest the leaf (0: all).
	Depth int `key:"depth" check:">=0" unit:"frames" doc:"stack depth limit, frames nearest the leaf (0: unlimited)" src:"async-profiler: jstackdepth=2048"`
	// DebugInfo resolves a compiled frame's position through the JIT's
	// debug information, as AsyncGetCallTrace must; false records the
	// exact position (an oracle no real profiler has).
	DebugInfo bool `key:"debug_info" doc:"resolve compiled positions through debug information (false: exact positions, an oracle)" src:"AsyncGetCallTrace (forte.cpp is_decipherable_compiled_frame) resolves the top pc with pc_desc_near(pc + 1)"`
	// HandlerBase + HandlerPerFrame × frames stall the sampled thread (the
	// signal handler walking its own stack).
	HandlerBase     sim.Time `key:"handler_base" check:"0..max" doc:"signal handler cost per sample on the sampled thread (costed mode)" src:"our choice: a signal delivery and AsyncGetCallTrace setup, ~2 us"`
	HandlerPerFrame sim.Time `key:"handler_per_frame" check:"0..1s" doc:"handler cost per frame walked (costed mode)" src:"our choice: ~50 ns per frame"`
}

// DefaultAsyncConfig is async-profiler's default 10 ms cpu interval.
func DefaultAsyncConfig() AsyncConfig {
	return AsyncConfig{Interval: 10 * sim.Millisecond, Jitter: HRTimerJitter, Depth: 2048, DebugInfo: true, HandlerBase: 2 * sim.Microsecond, HandlerPerFrame: 50}
}

// Validate names the first invalid field.
func (c AsyncConfig) Validate() error {
	return param.Check(&c)
}

func init() {
	Register(Info{Name: "async", Description: "async-profiler/AsyncGetCallTrace: signal at the exact position every 10 ms, frames resolved through debug info (skid without DebugNonSafepoints)",
		Config: func() any { c := DefaultAsyncConfig(); return &c },
		Build:  func(label string, cfg any) Sampler { return NewAsyncNamed(label, *cfg.(*AsyncConfig)) }})
}

// Async interrupts running threads at their exact position and walks the
// stack the way AsyncGetCallTrace does: a compiled frame's position is
// resolved through the JIT's debug information (ResolveDebugInfo), so
// without DebugNonSafepoints it moves to the first recorded position at or
// after it, with that record's inlined frames; a top frame past its
// method's last record is recorded as its compiled method at bci 0
// (counted in Costs.Undecipherable).
type Async struct {
	name  string
	cfg   AsyncConfig
	tick  gridTicker
	env   *Env
	rec   *recorder
	timer sim.TimerID
	// resolved is ResolveDebugInfo's buffer.
	resolved []sim.StackFrame
}

// NewAsync creates an async sampler.
func NewAsync(cfg AsyncConfig) *Async { return NewAsyncNamed("async", cfg) }

// NewAsyncNamed creates an async sampler reported under name.
func NewAsyncNamed(name string, cfg AsyncConfig) *Async { return &Async{name: name, cfg: cfg} }

// Name is the sampler's label ("async" unless labelled).
func (s *Async) Name() string { return s.name }

// Attach starts the timer.
func (s *Async) Attach(env *Env) error {
	if err := s.cfg.Validate(); err != nil {
		return fmt.Errorf("sampler %s: %w", s.name, err)
	}
	s.env = env
	s.rec = newRecorder(env, s.name, s.cfg.Interval)
	s.timer = env.VM.AddTimer(s)
	s.tick = gridTicker{period: s.cfg.Interval, jitter: newTimerJitter(env, s.name, s.cfg.Jitter)}
	env.VM.ScheduleTimer(s.timer, s.tick.first(env.VM.Now()), 0)
	return nil
}

// OnTimer samples every running application thread.
func (s *Async) OnTimer(vm sim.Agent, at sim.Time, _ int64) {
	s.rec.costs.Requested++
	s.rec.costs.Ticks = append(s.rec.costs.Ticks, int64(at))
	s.rec.late = at - s.tick.nominal
	for _, id := range appThreads(vm, sim.Running) {
		s.rec.buf = vm.Stack(id, s.rec.buf[:0])
		if len(s.rec.buf) == 0 {
			continue
		}
		stack := s.rec.buf
		if s.cfg.DebugInfo {
			var ok bool
			s.resolved, ok = ResolveDebugInfo(stack, s.resolved)
			stack = s.resolved
			if !ok {
				s.rec.costs.Undecipherable++
			}
		}
		frames := s.rec.exact(stack, s.cfg.Depth)
		s.rec.add(frames, id, s.cfg.Interval)
		s.rec.note(id, s.rec.buf, frames, "signal", s.cfg.DebugInfo)
		if s.env.Mode == Costed {
			d := s.cfg.HandlerBase + s.cfg.HandlerPerFrame*sim.Time(len(stack))
			vm.Stall(id, d)
			s.rec.costs.Stall += d
		}
	}
	vm.ScheduleTimer(s.timer, s.tick.next(at), 0)
}

// Result returns the profile and costs.
func (s *Async) Result() *Result { return s.rec.result() }

// ResolveDebugInfo maps an exact stack to what a stack walk through C2's
// debug information reports, as AsyncGetCallTrace and JFR find it (HotSpot
// 17: is_decipherable_compiled_frame in prims/forte.cpp,
// JfrGetCallTrace::find_top_frame in jfr/periodic/sampling/jfrCallTrace.cpp).
// Both look the top compiled frame's pc up with pc_desc_near(pc + 1): the
// first PcDesc whose offset is greater than the pc (match_desc in
// code/nmethod.cpp: prev.offset < pc+1 ≤ offset), because a PcDesc marks the
// end of the code it describes (a call's is its return address;
// DebugNonSafepoints' records are at the end of each instruction). A frame
// at statement p is inside p's code, strictly before its end, and
// sim.Code.Debug marks the statements whose code ends in a PcDesc, so the
// frame resolves to the first marked statement at or after p in code order:
// inlined bodies are laid out at their call site, each call's inlined
// versions in order, then the call's own record (its fallback call or
// uncommon trap). The stack returned has that record's scope chain — the
// physical root's method at the record's statement and an inlined frame per
// inlined scope, each at its own line — which may be deeper or shallower
// than the exact stack. The frames below the top physical frame are at call
// sites, whose return addresses have exact PcDescs (vframeStream's
// pc_desc_at), and are kept as they are.
//
// A compiled method with uncommon traps of its own (sim.Code.Traps) always
// has a record past its body: C2 places the trap calls, each with a PcDesc,
// after the return (opto/output.cpp fill_buffer emits the blocks in
// PhaseCFG's order, remove_empty_blocks having moved the uncommon ones
// last; the return poll itself has no PcDesc), so a top frame with no record left in its body resolves to
// the method itself, at the statement the first trap names (trapStatement),
// with no inlined frame. Measured on OpenJDK 17 (tools/debuginfo, mode
// hotcold): HotCold.hot not inlined, every JFR sample of it at line 12.
//
// A top frame with no record at or after its position (past the last
// PcDesc: pc_desc_near finds only the upper sentinel, whose scope is
// serialized_null, DebugInformationRecorder::pcs_size in
// code/debugInfoRec.cpp) is undecipherable: ok is false. AsyncGetCallTrace
// still walks it — vframeStreamCommon::fill_from_frame
// (runtime/vframe.inline.hpp) fills a compiled frame without a PcDesc at
// its pc as a native one, the compiled method at bci 0 with no inlined
// frames — and that stack is returned; JFR's find_top_frame returns false
// and the sample is not taken.
//
// An interpreted top frame is at the bytecode pointer saved in it
// (sim.StackFrame.BCP: its entry, its last call or its last poll into the
// VM), not where it runs: both read the frame's bcp slot
// (is_decipherable_interpreted_frame in forte.cpp; JFR's vframe stream),
// and the template interpreter updates it only there. Measured on OpenJDK
// 17 with JFR (tools/interpreter, bcp.sh): every sample of an interpreted
// loop without calls is at bci 0, of one with a call at the invoke.
// Interpreted frames below the top are at their call sites, exact; so are
// compiled frames with Debug nil (DebugNonSafepoints).
// The result is appended to out[:0]; stack is not modified.
func ResolveDebugInfo(stack, out []sim.StackFrame) (resolved []sim.StackFrame, ok bool) {
	out = out[:0]
	if len(stack) == 0 {
		return out, true
	}
	if top := stack[len(stack)-1]; top.Tier == sim.Interpreted {
		out = append(out, stack...)
		if top.BCP != top.PC {
			f := &out[len(out)-1]
			f.PC, f.Line, f.Node = top.BCP, top.Code.Instrs[top.BCP].Line, -1
		}
		return out, true
	}
	root := len(stack) - 1
	for root > 0 && stack[root].Inlined {
		root--
	}
	// The top frame at a call with inlined versions has returned from
	// them, or is in the fallback call: past the inlined bodies.
	k := len(stack) - 1
	pc, from := stack[k].PC, 0
	if c := stack[k].Code; c.Inline != nil {
		from = len(c.Inline[pc])
	}
	var path []hop
	for {
		var found bool
		if path, found = firstRecord(stack[k].Code, pc, from, path[:0]); found {
			break
		}
		if k == root {
			if c := stack[root].Code; c.Traps {
				// The first uncommon trap's PcDesc after the return.
				k, path = root, append(path[:0], hop{c, trapStatement(c)})
				break
			}
			// Undecipherable: AsyncGetCallTrace's native-frame fill.
			out = append(out, stack[:root]...)
			f := stack[root]
			f.PC, f.Line = 0, f.Code.Instrs[0].Line
			return append(out, f), false
		}
		// Past the end of an inlined body: on in its caller, after this
		// inlined version.
		k--
		pc = stack[k].PC
		from = 0
		for i, v := range stack[k].Code.Inline[pc] {
			if v == stack[k+1].Code {
				from = i + 1
			}
		}
	}
	out = append(out, stack[:k]...)
	for i, h := range path {
		f := stack[k]
		if i > 0 {
			f = sim.StackFrame{Method: h.code.Method, Inlined: true, Tier: f.Tier}
		}
		if i > 0 || h.pc != f.PC {
			f.Node = -1 // not the exact position's CCT node
		}
		f.Code, f.PC, f.Line = h.code, h.pc, h.code.Instrs[h.pc].Line
		out = append(out, f)
	}
	return out, true
}

// trapStatement is the statement the first out-of-line uncommon trap of c
// names: its last statement before the closing return (HotCold.hot's first
// trap is its last line's iaload range check: C2 lays the trap blocks out
// after the body, PhaseCFG::remove_empty_blocks in opto/block.cpp moving
// uncommon blocks to the end, and JfrGetCallTrace::find_top_frame moves
// the frame's pc to that PcDesc's, real_pc, whose scope the walk decodes).
func trapStatement(c *sim.Code) int32 {
	pc := int32(len(c.Instrs)) - 1
	for pc > 0 && c.Instrs[pc].Op == sim.OpReturn {
		pc--
	}
	return pc
}

// hop is one scope of a debug record: a statement of a code version.
type hop struct {
	code *sim.Code
	pc   int32
}

// firstRecord appends to path the scopes of the first record in c at or
// after statement pc in code order — the inlined versions of each call from
// index from (at pc; 0 further on), then the statement's own record — and
// reports whether one exists before c's end.
func firstRecord(c *sim.Code, pc int32, from int, path []hop) ([]hop, bool) {
	for ; pc < int32(len(c.Instrs)); pc, from = pc+1, 0 {
		if c.Inline != nil {
			for _, v := range c.Inline[pc][min(from, len(c.Inline[pc])):] {
				if p, ok := firstRecord(v, 0, 0, append(path, hop{c, pc})); ok {
					return p, true
				}
			}
		}
		if c.Debug == nil || c.Debug[pc] {
			return append(path, hop{c, pc}), true
		}
	}
	return path, false
}

// TracesSamples: Async tells Env.Trace each sample's story.
func (s *Async) TracesSamples() {}

var _ Traceable = (*Async)(nil)

// SamplesAtTick marks Async as TickSynchronous: OnTimer takes its samples.
func (s *Async) SamplesAtTick() {}

var _ TickSynchronous = (*Async)(nil)
