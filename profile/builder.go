package profile

import (
	"cmp"
	"slices"
	"strings"
)

// Builder accumulates samples and edges into a Profile. It interns
// functions by name and stacks into a tree of calling contexts, and merges
// identical samples and edges, so a sampler can add one sample per
// observation without growing the profile unboundedly.
type Builder struct {
	p       Profile
	funcs   map[string]int
	ctx     contextTable
	threads map[string]int32  // → Sample.Thread
	samples map[sampleKey]int // → index in p.Samples
	edges   map[[3]int]int    // (caller, site, callee) → index in p.Edges
	// last is the stack of the previous AddSample and lastCtx its
	// contexts, frame by frame: a sampler's consecutive stacks mostly
	// share their callers, whose contexts are then not looked up again.
	last    []Frame
	lastCtx []int32
}

type sampleKey struct {
	context, thread int32
}

// NewBuilder starts a profile produced by source, whose weights count unit
// ("nanoseconds" or "bytecodes"), sampled every periodNanos (0 if exact).
func NewBuilder(source, unit string, periodNanos int64) *Builder {
	return &Builder{
		p:       Profile{Source: source, Unit: unit, PeriodNanos: periodNanos},
		funcs:   map[string]int{},
		ctx:     newContextTable(),
		threads: map[string]int32{},
		samples: map[sampleKey]int{},
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
// thread. The stack is interned (stack is not kept); identical (stack,
// thread) samples merge.
func (b *Builder) AddSample(stack []Frame, count, weight int64, thread string) {
	n := 0
	for n < len(stack) && n < len(b.last) && stack[n] == b.last[n] {
		n++
	}
	b.last = append(b.last[:n], stack[n:]...)
	b.lastCtx = b.lastCtx[:n]
	c := int32(Root)
	if n > 0 {
		c = b.lastCtx[n-1]
	}
	for _, f := range stack[n:] {
		c = b.ctx.child(c, f)
		b.lastCtx = append(b.lastCtx, c)
	}
	k := sampleKey{c, b.thread(thread)}
	if i, ok := b.samples[k]; ok {
		b.p.Samples[i].Count += count
		b.p.Samples[i].Weight += weight
		return
	}
	b.samples[k] = len(b.p.Samples)
	b.p.Samples = append(b.p.Samples, Sample{Context: c, Thread: k.thread, Count: count, Weight: weight})
}

// thread interns a thread's name as a Sample.Thread ("" is 0).
func (b *Builder) thread(name string) int32 {
	if name == "" {
		return 0
	}
	t, ok := b.threads[name]
	if !ok {
		b.p.Threads = append(b.p.Threads, name)
		t = int32(len(b.p.Threads))
		b.threads[name] = t
	}
	return t
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
// interned, contexts in the order of their stacks compared frame by frame
// (function name, line, not inlined before inlined; a prefix first),
// threads by name, samples by (thread name, stack in that order), edges
// by (caller name, site, callee name) — so the same observations always
// give the same profile, whatever order they arrived in.
func (b *Builder) Build() *Profile {
	p := b.p
	p.Functions = slices.Clone(b.p.Functions)
	// Threads in the order of their names, so that samples ordered by
	// thread are ordered by its name ("", 0, first).
	p.Threads = slices.Clone(b.p.Threads)
	slices.Sort(p.Threads)
	thread := make([]int32, len(b.p.Threads)+1)
	for i, name := range b.p.Threads {
		j, _ := slices.BinarySearch(p.Threads, name)
		thread[i+1] = int32(j + 1)
	}
	p.Edges = slices.Clone(b.p.Edges)
	rank := FunctionRanks(p.Functions)
	var id []int32
	p.Contexts, id = canonicalContexts(b.ctx.contexts, rank)
	p.Samples = nil
	if len(b.p.Samples) > 0 {
		p.Samples = make([]Sample, len(b.p.Samples))
		for i, s := range b.p.Samples {
			s.Context, s.Thread = id[s.Context], thread[s.Thread]
			p.Samples[i] = s
		}
	}
	// (thread, context) pairs are unique: the order is total.
	slices.SortFunc(p.Samples, func(a, c Sample) int {
		if a.Thread != c.Thread {
			return cmp.Compare(a.Thread, c.Thread)
		}
		return cmp.Compare(a.Context, c.Context)
	})
	slices.SortStableFunc(p.Edges, func(a, c Edge) int {
		if ra, rc := rank[a.Caller], rank[c.Caller]; ra != rc {
			return cmp.Compare(ra, rc)
		}
		if a.Site != c.Site {
			return cmp.Compare(a.Site, c.Site)
		}
		return cmp.Compare(rank[a.Callee], rank[c.Callee])
	})
	return &p
}

// FunctionRanks is each function's rank in the order of their names:
// Build's order of functions. Names are unique in a valid profile, so
// comparing ranks orders as comparing the names, without string compares.
func FunctionRanks(funcs []Function) []int32 {
	byName := make([]int32, len(funcs))
	for i := range byName {
		byName[i] = int32(i)
	}
	slices.SortStableFunc(byName, func(i, j int32) int { return strings.Compare(funcs[i].Name, funcs[j].Name) })
	rank := make([]int32, len(funcs))
	for r, f := range byName {
		rank[f] = int32(r)
	}
	return rank
}

// compareFrames orders two frames of one caller as Build orders
// contexts: by rank of function (FunctionRanks), line, and not inlined
// before inlined.
func compareFrames(rank []int32, a, b Frame) int {
	if ra, rb := rank[a.Func], rank[b.Func]; ra != rb {
		return cmp.Compare(ra, rb)
	}
	if a.Line != b.Line {
		return cmp.Compare(a.Line, b.Line)
	}
	if a.Inlined != b.Inlined {
		if a.Inlined {
			return 1
		}
		return -1
	}
	return 0
}

// contextTable interns stacks into a tree of contexts, Root first.
type contextTable struct {
	contexts []Context
	index    map[contextKey]int32
}

type contextKey struct {
	parent int32
	frame  Frame
}

func newContextTable() contextTable {
	return contextTable{contexts: []Context{{Parent: -1}}, index: map[contextKey]int32{}}
}

// child is the context of frame f called from context parent.
func (t *contextTable) child(parent int32, f Frame) int32 {
	k := contextKey{parent, f}
	if c, ok := t.index[k]; ok {
		return c
	}
	c := int32(len(t.contexts))
	t.contexts = append(t.contexts, Context{Parent: parent, Depth: t.contexts[parent].Depth + 1, Frame: f})
	t.index[k] = c
	return c
}

// add interns stack and returns its context.
func (t *contextTable) add(stack []Frame) int32 {
	c := int32(Root)
	for _, f := range stack {
		c = t.child(c, f)
	}
	return c
}

// canonicalContexts renumbers ctxs (parents before children, Root first)
// in Build's order, a preorder walk with each context's children ordered
// by compareFrames: the order of their stacks compared frame by frame, a
// prefix first. id maps each old index to its new one.
func canonicalContexts(ctxs []Context, rank []int32) (out []Context, id []int32) {
	first, kids := children(ctxs)
	for c := range len(ctxs) {
		ks := kids[first[c]:first[c+1]]
		if len(ks) > 1 {
			slices.SortFunc(ks, func(a, b int32) int { return compareFrames(rank, ctxs[a].Frame, ctxs[b].Frame) })
		}
	}
	out = make([]Context, 1, len(ctxs))
	out[Root] = Context{Parent: -1}
	id = make([]int32, len(ctxs))
	preorder(first, kids, func(c int32) {
		id[c] = int32(len(out))
		out = append(out, Context{Parent: id[ctxs[c].Parent], Depth: ctxs[c].Depth, Frame: ctxs[c].Frame})
	}, nil)
	return out, id
}
