package profile

import (
	"encoding/binary"
	"sort"
)

// Builder accumulates samples and edges into a Profile. It interns
// functions by name and merges identical samples and edges, so a sampler can
// add one sample per observation without growing the profile unboundedly.
type Builder struct {
	p       Profile
	funcs   map[string]int
	samples map[string]int // canonical key → index in p.Samples
	edges   map[[3]int]int // (caller, site, callee) → index in p.Edges
	key     []byte
}

// NewBuilder starts a profile produced by source, whose weights count unit
// ("nanoseconds" or "bytecodes"), sampled every periodNanos (0 if exact).
func NewBuilder(source, unit string, periodNanos int64) *Builder {
	return &Builder{
		p:       Profile{Source: source, Unit: unit, PeriodNanos: periodNanos},
		funcs:   map[string]int{},
		samples: map[string]int{},
		edges:   map[[3]int]int{},
	}
}

// Func interns f by its Name and returns its index.
func (b *Builder) Func(f Function) int {
	if i, ok := b.funcs[f.Name]; ok {
		return i
	}
	b.p.Functions = append(b.p.Functions, f)
	b.funcs[f.Name] = len(b.p.Functions) - 1
	return len(b.p.Functions) - 1
}

// Functions are the functions interned so far, by index (read-only).
func (b *Builder) Functions() []Function { return b.p.Functions }

// AddSample records stack (root first) seen count times with weight on
// thread. The stack is copied; identical (stack, thread) samples merge.
func (b *Builder) AddSample(stack []Frame, count, weight int64, thread string) {
	// A compact binary key: thread, then per frame func, line and the
	// inlined bit; the lookup does not allocate.
	b.key = binary.AppendUvarint(b.key[:0], uint64(len(thread)))
	b.key = append(b.key, thread...)
	for _, f := range stack {
		b.key = binary.AppendUvarint(b.key, uint64(f.Func))
		b.key = binary.AppendVarint(b.key, int64(f.Line)<<1|boolBit(f.Inlined))
	}
	if i, ok := b.samples[string(b.key)]; ok {
		b.p.Samples[i].Count += count
		b.p.Samples[i].Weight += weight
		return
	}
	b.samples[string(b.key)] = len(b.p.Samples)
	b.p.Samples = append(b.p.Samples, Sample{Stack: append([]Frame(nil), stack...), Count: count, Weight: weight, Thread: thread})
}

// AddEdge records a call edge seen with weight; identical edges merge.
func (b *Builder) AddEdge(caller, site, callee int, weight int64) {
	k := [3]int{caller, site, callee}
	if i, ok := b.edges[k]; ok {
		b.p.Edges[i].Weight += weight
		return
	}
	b.edges[k] = len(b.p.Edges)
	b.p.Edges = append(b.p.Edges, Edge{Caller: caller, Site: site, Callee: callee, Weight: weight})
}

// Build returns the profile in a canonical order — functions as first
// interned, samples by (thread, stack of names and lines), edges by (caller
// name, site, callee name) — so the same observations always give the same
// bytes, whatever order they arrived in.
func (b *Builder) Build() *Profile {
	p := b.p
	p.Samples = append([]Sample(nil), b.p.Samples...)
	p.Edges = append([]Edge(nil), b.p.Edges...)
	p.Functions = append([]Function(nil), b.p.Functions...)
	name := func(i int) string { return p.Functions[i].Name }
	// Names are unique (Func interns by name), so comparing their ranks
	// orders as comparing the names, without string compares in the sort.
	byName := make([]int, len(p.Functions))
	for i := range byName {
		byName[i] = i
	}
	sort.Slice(byName, func(i, j int) bool { return name(byName[i]) < name(byName[j]) })
	rank := make([]int, len(p.Functions))
	for r, f := range byName {
		rank[f] = r
	}
	sort.SliceStable(p.Samples, func(i, j int) bool {
		a, c := &p.Samples[i], &p.Samples[j]
		if a.Thread != c.Thread {
			return a.Thread < c.Thread
		}
		for k := 0; k < len(a.Stack) && k < len(c.Stack); k++ {
			fa, fc := a.Stack[k], c.Stack[k]
			if ra, rc := rank[fa.Func], rank[fc.Func]; ra != rc {
				return ra < rc
			}
			if fa.Line != fc.Line {
				return fa.Line < fc.Line
			}
			if fa.Inlined != fc.Inlined {
				return !fa.Inlined
			}
		}
		return len(a.Stack) < len(c.Stack)
	})
	sort.SliceStable(p.Edges, func(i, j int) bool {
		a, c := &p.Edges[i], &p.Edges[j]
		if ra, rc := rank[a.Caller], rank[c.Caller]; ra != rc {
			return ra < rc
		}
		if a.Site != c.Site {
			return a.Site < c.Site
		}
		return rank[a.Callee] < rank[c.Callee]
	})
	return &p
}

func boolBit(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
