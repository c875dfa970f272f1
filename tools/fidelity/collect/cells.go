package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/profsim/profsim/program"
)

// Profiler is one real profiler setting of run.sh and the simulated
// sampler that plays it.
type Profiler struct {
	ID   string // run.sh's name
	Real string // what run.sh runs
	// Spec is the simulated sampler (samplers.ParseSpec); its label is
	// the ID, so several share one simulated run.
	Spec string
	// VM is the VM preset of the twin run; DNS is -XX:+DebugNonSafepoints
	// (async-profiler's agent turns it on itself, vmEntry.cpp VM::init).
	VM  string
	DNS bool
	// Async says the raw output is async-profiler's collapsed stacks.
	Async bool
}

// Profilers are run.sh's profilers, in table order.
var Profilers = []Profiler{
	{ID: "jfr25", Real: "JDK 25 JFR jdk.ExecutionSample, 10 ms (cooperative, JEP 518)", Spec: "jfr-coop:jfr25,period=10ms", VM: "hotspot25"},
	{ID: "jfr25-cpu", Real: "JDK 25 JFR jdk.CPUTimeSample, throttle 10 ms (JEP 509)", Spec: "jfr-cputime:jfr25-cpu,throttle=10ms", VM: "hotspot25"},
	{ID: "jfr17", Real: "JDK 17 JFR jdk.ExecutionSample, 10 ms", Spec: "jfr:jfr17,period=10ms", VM: "hotspot17"},
	{ID: "jfr17-dns", Real: "JDK 17 JFR jdk.ExecutionSample, 10 ms, -XX:+DebugNonSafepoints", Spec: "jfr:jfr17-dns,period=10ms", VM: "hotspot17", DNS: true},
	{ID: "ap-cpu", Real: "async-profiler 4.5 -e cpu -i 10ms", Spec: "async:ap-cpu,engine=cpu,interval=10ms", VM: "hotspot25", DNS: true, Async: true},
	{ID: "ap-itimer", Real: "async-profiler 4.5 -e itimer -i 10ms", Spec: "async:ap-itimer,engine=itimer,interval=10ms", VM: "hotspot25", DNS: true, Async: true},
	{ID: "ap-ctimer", Real: "async-profiler 4.5 -e ctimer -i 10ms", Spec: "async:ap-ctimer,engine=ctimer,interval=10ms", VM: "hotspot25", DNS: true, Async: true},
	{ID: "ap-wall", Real: "async-profiler 4.5 -e wall -i 10ms", Spec: "async:ap-wall,engine=wall,interval=10ms", VM: "hotspot25", DNS: true, Async: true},
}

func profilerIDs() []string {
	var ids []string
	for _, p := range Profilers {
		ids = append(ids, p.ID)
	}
	return ids
}

func lookupProfiler(id string) (Profiler, bool) {
	for _, p := range Profilers {
		if p.ID == id {
			return p, true
		}
	}
	return Profiler{}, false
}

// KeyKind is what a cell's share counts.
type KeyKind int

const (
	// KeyMethod: samples whose innermost frame of the program's own
	// methods (the twin's; library, VM and C frames above it are
	// charged to it) is the method.
	KeyMethod KeyKind = iota
	// KeyThread: samples on the thread.
	KeyThread
	// KeyComplete: samples whose stack reaches the thread's entry
	// method (Name): not truncated by the profiler's depth limit.
	KeyComplete
)

// Key is one row of a mode: a method, a thread or stack completeness.
type Key struct {
	Kind KeyKind
	Name string
}

func (k Key) String() string {
	switch k.Kind {
	case KeyThread:
		return "thread " + k.Name
	case KeyComplete:
		return "stacks reaching " + k.Name
	}
	return k.Name
}

// Mode is one micro-program: its Java class (Fidelity.java), its twin
// (a built-in workload) and the rows of its table.
type Mode struct {
	Name, Class, Twin string
	Keys              []Key
}

// Modes are run.sh's modes, in table order.
var Modes = []Mode{
	{"hotcold", "HotCold", "fid-hotcold", []Key{{KeyMethod, "HotCold.hot"}, {KeyMethod, "HotCold.cold"}}},
	{"hotcold-noinline", "HotCold", "fid-hotcold-noinline", []Key{{KeyMethod, "HotCold.hot"}, {KeyMethod, "HotCold.cold"}}},
	{"calledges", "CallEdges", "fid-calledges", []Key{{KeyMethod, "CallEdges.M"}, {KeyMethod, "CallEdges.call_1"}, {KeyMethod, "CallEdges.call_2"}}},
	{"blockhalf", "BlockHalf", "fid-blockhalf", []Key{{KeyThread, "main"}, {KeyThread, "spinner"}, {KeyMethod, "BlockHalf.pause"}, {KeyMethod, "BlockHalf.compute"}}},
	{"oversub", "Oversub", "fid-oversub", []Key{{KeyMethod, "Oversub.spinA"}, {KeyMethod, "Oversub.spinB"}, {KeyThread, "a-0"}, {KeyThread, "b-0"}}},
	{"returnpoll", "ReturnPoll", "fid-returnpoll", []Key{{KeyMethod, "ReturnPoll.caller"}, {KeyMethod, "ReturnPoll.callee"}}},
	{"deeprec", "DeepRec", "fid-deeprec", []Key{{KeyComplete, "DeepRec.main"}, {KeyMethod, "DeepRec.recurse"}}},
	{"stubcopy", "StubCopy", "fid-stubcopy", []Key{{KeyMethod, "StubCopy.loop"}, {KeyMethod, "StubCopy.copy"}}},
	{"stubcopy-inline", "StubCopy", "fid-stubcopy-inline", []Key{{KeyMethod, "StubCopy.loop"}, {KeyMethod, "StubCopy.copy"}}},
}

func modeNames() []string {
	var n []string
	for _, m := range Modes {
		n = append(n, m.Name)
	}
	return n
}

func lookupMode(name string) (Mode, bool) {
	for _, m := range Modes {
		if m.Name == name {
			return m, true
		}
	}
	return Mode{}, false
}

// Scope is what a mode's shares are counted over: the twin program's
// threads (a spec with count n > 1 is NAME-0 … NAME-(n-1)) and methods.
type Scope struct {
	Threads map[string]bool
	Methods map[string]bool
}

// ScopeOf is p's threads and methods (Class.name).
func ScopeOf(p *program.Program) Scope {
	s := Scope{Threads: map[string]bool{}, Methods: map[string]bool{}}
	for _, t := range p.Threads {
		if t.Count > 1 {
			for i := 0; i < t.Count; i++ {
				s.Threads[fmt.Sprintf("%s-%d", t.Name, i)] = true
			}
		} else {
			s.Threads[t.Name] = true
		}
	}
	for _, m := range p.Methods {
		s.Methods[m.Class+"."+m.Name] = true
	}
	return s
}

// Sample is one stack reduced to what the keys read: its thread, its
// innermost frame of the program's own methods ("" if none), whether it
// holds each frame named by a KeyComplete, and its count.
type Sample struct {
	Thread string
	Method string
	Frames map[string]bool
	Count  int64
}

// otherMethod is the method of a sample with no frame of the program.
const otherMethod = "(no frame of the program)"

// Reduce turns stacks (root first) into samples within the scope: those
// on the program's threads.
func Reduce(stacks []Stack, sc Scope, keys []Key) []Sample {
	var out []Sample
	for _, s := range stacks {
		if !sc.Threads[s.Thread] {
			continue
		}
		smp := Sample{Thread: s.Thread, Method: otherMethod, Count: s.Count}
		for i := len(s.Frames) - 1; i >= 0; i-- {
			if sc.Methods[s.Frames[i]] {
				smp.Method = s.Frames[i]
				break
			}
		}
		for _, k := range keys {
			if k.Kind == KeyComplete && slices.Contains(s.Frames, k.Name) {
				if smp.Frames == nil {
					smp.Frames = map[string]bool{}
				}
				smp.Frames[k.Name] = true
			}
		}
		out = append(out, smp)
	}
	return out
}

// Shares is each key's share of the samples, in points (0–100), and the
// number of samples they are shares of.
type Shares struct {
	Total int64
	Of    map[Key]float64
}

// ShareOf computes the keys' shares over samples.
func ShareOf(samples []Sample, keys []Key) Shares {
	sh := Shares{Of: map[Key]float64{}}
	counts := map[Key]int64{}
	for _, s := range samples {
		sh.Total += s.Count
		for _, k := range keys {
			switch {
			case k.Kind == KeyMethod && s.Method == k.Name,
				k.Kind == KeyThread && s.Thread == k.Name,
				k.Kind == KeyComplete && s.Frames[k.Name]:
				counts[k] += s.Count
			}
		}
	}
	for _, k := range keys {
		if sh.Total > 0 {
			sh.Of[k] = 100 * float64(counts[k]) / float64(sh.Total)
		}
	}
	return sh
}

// Summary is one run's note for run.sh's progress line: samples in scope,
// the largest method shares and the threads' shares.
func Summary(samples []Sample, all int) string {
	byMethod, byThread := map[string]int64{}, map[string]int64{}
	var total int64
	for _, s := range samples {
		byMethod[s.Method] += s.Count
		byThread[s.Thread] += s.Count
		total += s.Count
	}
	top := func(by map[string]int64, n int) string {
		type kc struct {
			k string
			n int64
		}
		var l []kc
		for k, c := range by {
			l = append(l, kc{k, c})
		}
		sort.Slice(l, func(i, j int) bool { return l[i].n > l[j].n || l[i].n == l[j].n && l[i].k < l[j].k })
		var parts []string
		for i, x := range l {
			if i == n {
				parts = append(parts, "…")
				break
			}
			parts = append(parts, fmt.Sprintf("%s %.1f%%", x.k, 100*float64(x.n)/float64(total)))
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprintf("%d samples on the program's threads (%d stacks in all): %s; threads %s", total, all, top(byMethod, 3), top(byThread, 8))
}
