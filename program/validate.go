package program

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// MaxNesting bounds how deeply statements may nest (loops in branches in
// loops ...). Real methods stay far below it; it keeps hostile inputs from
// exhausting the stack of anything that walks the tree.
const MaxNesting = 64

// FieldError is one problem with a program, at a document path such as
// "methods[3].body[1].loop.trips" and, for a decoded document, a line.
type FieldError struct {
	Path    string
	Line    int // 1-based; 0 when unknown (a program built in Go)
	Problem string
	at      []pathSeg // Path, to find the line in the document
}

func (e *FieldError) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Problem)
	return b.String()
}

// ValidationError lists every problem Decode or Validate found, in
// document order.
type ValidationError struct {
	Errors []*FieldError
}

// maxShownErrors bounds the problems Error spells out; Errors holds all.
const maxShownErrors = 20

func (e *ValidationError) Error() string {
	n := min(len(e.Errors), maxShownErrors)
	parts := make([]string, n, n+1)
	for i, fe := range e.Errors[:n] {
		parts[i] = fe.Error()
	}
	if len(e.Errors) > n {
		parts = append(parts, fmt.Sprintf("and %d more problems", len(e.Errors)-n))
	}
	return "invalid program: " + strings.Join(parts, "; ")
}

type validator struct {
	p    *Program
	res  *Resolver
	path pathStack
	errs []*FieldError
	// calls[i] and spawns[i] list the methods method i may call or spawn.
	calls, spawns [][]int32
	statements    int
}

// fail records a problem at the current path.
func (v *validator) fail(format string, args ...any) {
	v.errs = append(v.errs, &FieldError{Path: v.path.String(), Problem: fmt.Sprintf(format, args...),
		at: append([]pathSeg(nil), v.path...)})
}

// failAt records a problem at the current path's field name.
func (v *validator) failAt(field, format string, args ...any) {
	v.path.field(field)
	v.fail(format, args...)
	v.path.pop()
}

// checkRange checks x against r at field (the current path if "").
func (v *validator) checkRange(field string, x int64, r intRange) {
	if r.contains(x) {
		return
	}
	if field == "" {
		v.fail("%s", r.check(x))
	} else {
		v.failAt(field, "%s", r.check(x))
	}
}

// Validate reports every problem that would make the program meaningless,
// non-terminating or beyond the simulator's arithmetic: unknown callees,
// unbounded recursion or loops, numbers outside their documented ranges
// (limits.go), an empty program. It takes time linear in the program's
// size (sorting receivers aside). Validate marks a valid program so:
// NewImage (EnsureValid) does not check it again, so a program changed
// after Validate must be validated again before it runs.
func (p *Program) Validate() error {
	err := p.check()
	p.valid = err == nil
	return err
}

// EnsureValid checks p unless Validate has found it valid. It only reads
// p, so runs of one program may share it.
func (p *Program) EnsureValid() error {
	if p.valid {
		return nil
	}
	return p.check()
}

func (p *Program) check() error {
	v := &validator{p: p, res: NewResolver(p)}
	v.calls = make([][]int32, len(p.Methods))
	v.spawns = make([][]int32, len(p.Methods))
	if p.Name == "" {
		v.failAt("name", "missing")
	} else if bad := badNameChars(p.Name); bad != "" {
		v.failAt("name", "%q contains %s", p.Name, bad)
	}
	if len(p.Methods) == 0 {
		v.failAt("methods", "program has no methods")
	}
	if len(p.Threads) == 0 {
		v.failAt("threads", "program has no threads (at least one is needed to run anything)")
	}
	seen := make(map[string]int, len(p.Methods))
	v.path.field("methods")
	for i := range p.Methods {
		m := &p.Methods[i]
		v.path.index(i)
		v.checkIdent("class", m.Class)
		v.checkIdent("name", m.Name)
		if m.Signature != "" && (!strings.HasPrefix(m.Signature, "(") || strings.ContainsAny(m.Signature, " \t\r\n|")) {
			v.failAt("signature", "%q is not a JVM signature like \"(I)V\"", m.Signature)
		}
		if j, dup := seen[m.Key()]; dup {
			v.fail("duplicate method %s (also methods[%d]); overloads need distinct signatures", m.Key(), j)
		} else {
			seen[m.Key()] = i
		}
		v.checkRange("recursion_limit", int64(m.RecursionLimit), rangeDepth)
		v.path.field("body")
		v.stmts(int32(i), m.Body, 0)
		v.path.pop()
		v.path.pop()
	}
	v.path.pop()
	if v.statements > MaxStatements {
		v.failAt("methods", "%d statements; a program has at most 2^30", v.statements)
	}
	names := make(map[string]int, len(p.Threads))
	v.path.field("threads")
	for i := range p.Threads {
		t := &p.Threads[i]
		v.path.index(i)
		if t.Name == "" {
			v.failAt("name", "missing")
		} else if j, dup := names[t.Name]; dup {
			v.failAt("name", "duplicate thread name %q (also threads[%d])", t.Name, j)
		} else {
			names[t.Name] = i
		}
		if _, err := v.res.Resolve(t.Entry); err != nil {
			v.failAt("entry", "%v", err)
		}
		v.checkRange("count", int64(t.Count), rangeCount)
		v.checkRange("start", int64(t.Start), rangeNanos)
		v.path.pop()
	}
	v.path.pop()
	v.path.field("compile_commands")
	for i, text := range p.CompileCommands {
		v.path.index(i)
		if _, err := ParseCompileCommand(text); err != nil {
			v.fail("%v", err)
		}
		v.path.pop()
	}
	v.path.pop()
	if len(v.errs) == 0 {
		v.checkRecursion()
		v.checkSpawnCycles()
	}
	if len(v.errs) > 0 {
		return &ValidationError{Errors: v.errs}
	}
	return nil
}

func badNameChars(s string) string {
	if strings.ContainsAny(s, " \t\r\n") {
		return "whitespace"
	}
	if strings.ContainsAny(s, ";|()") {
		return "one of ; | ( ) (reserved by profile formats)"
	}
	return ""
}

func (v *validator) checkIdent(field, s string) {
	if s == "" {
		v.failAt(field, "missing")
	} else if bad := badNameChars(s); bad != "" {
		v.failAt(field, "%q contains %s", s, bad)
	} else if strings.Contains(s, ".") && field == "name" {
		v.failAt(field, "%q contains '.', which separates class and method", s)
	}
}

// resolve finds the method ref names, reporting at field (at the current
// path if "").
func (v *validator) resolve(field, ref string) int32 {
	if field != "" {
		v.path.field(field)
		defer v.path.pop()
	}
	if ref == "" {
		v.fail("missing method reference")
		return -1
	}
	i, err := v.res.Resolve(ref)
	if err != nil {
		v.fail("%v", err)
	}
	return int32(i)
}

func (v *validator) stmts(method int32, body []Stmt, depth int) {
	if depth > MaxNesting {
		v.fail("statements nest deeper than %d levels", MaxNesting)
		return
	}
	v.statements += len(body)
	for i := range body {
		v.path.index(i)
		v.stmt(method, &body[i], depth)
		v.path.pop()
	}
}

// body checks a nested statement list at field.
func (v *validator) body(method int32, field string, body []Stmt, depth int) {
	v.path.field(field)
	v.stmts(method, body, depth)
	v.path.pop()
}

func (v *validator) stmt(method int32, s *Stmt, depth int) {
	kind, n := s.kinds()
	switch {
	case n == 0:
		v.fail("empty statement: want one of work, call, virtual_call, loop, branch, alloc, block, native, spawn, throw")
		return
	case n > 1:
		v.fail("statement sets %d kinds; exactly one is allowed", n)
		return
	}
	v.path.field(kind)
	defer v.path.pop()
	switch {
	case s.Work != nil:
		v.checkRange("cycles", s.Work.Cycles, rangeCycles)
		v.checkRange("bytecodes", s.Work.Bytecodes, rangeBytecodes)
	case s.Call != nil:
		if c := v.resolve("method", s.Call.Method); c >= 0 {
			v.calls[method] = append(v.calls[method], c)
		}
		if t := s.Call.Throws; t != nil {
			v.path.field("throws")
			v.checkRange("depth", int64(t.Depth), rangeCaught)
			if !(t.Times > 0 && t.Times <= MaxThrownTimes) {
				v.failAt("times", "%v is not in (0, %g]", t.Times, float64(MaxThrownTimes))
			}
			v.path.pop()
		}
	case s.VirtualCall != nil:
		v.virtualCall(method, s.VirtualCall)
	case s.Loop != nil:
		v.path.field("trips")
		switch {
		case s.Loop.Trips == nil:
			v.fail("missing: every loop needs a bound")
		case !s.Loop.Trips.Bounded():
			v.fail("%s is unbounded; use a constant or uniform [min, max]", s.Loop.Trips)
		default:
			v.dist(s.Loop.Trips, rangeTrips)
		}
		v.path.pop()
		if s.Loop.Uncounted && s.Loop.RuntimeBound {
			v.failAt("runtime_bound", "an uncounted loop keeps its back-edge poll whatever its bound; runtime_bound is for counted loops")
		}
		if len(s.Loop.Body) == 0 {
			v.failAt("body", "empty loop body")
		}
		v.body(method, "body", s.Loop.Body, depth+1)
	case s.Branch != nil:
		if p := s.Branch.Probability; !(p >= 0 && p <= 1) {
			v.failAt("probability", "%v is not in [0, 1]", p)
		}
		if len(s.Branch.ByCaller) > 0 {
			v.path.field("by_caller")
			for _, ref := range sortedKeys(s.Branch.ByCaller) {
				v.path.key(ref)
				v.resolve("", ref)
				if p := s.Branch.ByCaller[ref]; !(p >= 0 && p <= 1) {
					v.fail("%v is not in [0, 1]", p)
				}
				v.path.pop()
			}
			v.path.pop()
		}
		if len(s.Branch.ByDepth) > 0 {
			v.path.field("by_depth")
			v.needsLimit(method)
			for i, p := range s.Branch.ByDepth {
				if !(p >= 0 && p <= 1) {
					v.path.index(i)
					v.fail("%v is not in [0, 1]", p)
					v.path.pop()
				}
			}
			v.path.pop()
		}
		v.body(method, "then", s.Branch.Then, depth+1)
		v.body(method, "else", s.Branch.Else, depth+1)
	case s.Alloc != nil:
		v.checkRange("bytes", s.Alloc.Bytes, rangeBytes)
	case s.Block != nil:
		v.block(method, s.Block, depth)
	case s.Native != nil:
		v.checkRange("cycles", s.Native.Cycles, rangeCycles)
	case s.Stub != nil:
		v.checkRange("cycles", s.Stub.Cycles, rangeCycles)
		if bad := badNameChars(s.Stub.Name); bad != "" {
			v.failAt("name", "%q has %s", s.Stub.Name, bad)
		}
	case s.Spawn != nil:
		sp := s.Spawn
		if sp.Name == "" {
			v.failAt("name", "missing")
		} else if bad := badNameChars(sp.Name); bad != "" {
			v.failAt("name", "%q contains %s", sp.Name, bad)
		}
		if c := v.resolve("entry", sp.Entry); c >= 0 {
			v.spawns[method] = append(v.spawns[method], c)
		}
		v.checkRange("count", int64(sp.Count), rangeCount)
	case s.Throw != nil:
		v.checkRange("depth", int64(s.Throw.Depth), rangeDepth)
	}
}

// minReceiverShare is the smallest share of the weights' sum a receiver
// may have: a draw is a 53-bit fraction of the sum, so a receiver with
// less could never be drawn.
const minReceiverShare = 0x1p-53

func (v *validator) virtualCall(method int32, vc *VirtualCall) {
	v.path.field("receivers")
	defer v.path.pop()
	if len(vc.Receivers) == 0 {
		v.fail("no receivers")
		return
	}
	refs := vc.SortedReceivers()
	sum, finite := 0.0, true
	for _, ref := range refs {
		w := vc.Receivers[ref]
		v.path.key(ref)
		if c := v.resolve("", ref); c >= 0 {
			v.calls[method] = append(v.calls[method], c)
		}
		if !(w > 0) || math.IsInf(w, 0) {
			v.fail("weight %v must be a positive finite number", w)
			finite = false
		}
		v.path.pop()
		sum += w
	}
	if len(vc.Inline) > 0 {
		v.path.pop()
		v.path.field("inline")
		for _, ref := range sortedKeys(vc.Inline) {
			if _, ok := vc.Receivers[ref]; !ok {
				v.path.key(ref)
				v.fail("%q is not one of the site's receivers", ref)
				v.path.pop()
			}
		}
		v.path.pop()
		v.path.field("receivers")
	}
	switch {
	case !finite:
	case math.IsInf(sum, 0):
		v.fail("weights sum to %v; want a finite sum", sum)
	default:
		for _, ref := range refs {
			if w := vc.Receivers[ref]; w < sum*minReceiverShare {
				v.path.key(ref)
				v.fail("weight %v is too small next to the sum %v to ever be drawn", w, sum)
				v.path.pop()
			}
		}
	}
	if len(vc.ByDepth) > 0 {
		v.path.pop()
		v.path.field("by_depth")
		v.needsLimit(method)
		for i, ws := range vc.ByDepth {
			v.path.index(i)
			v.receiverWeights(vc, ws)
			v.path.pop()
		}
		v.path.pop()
		v.path.field("receivers")
	}
	if len(vc.ByCaller) > 0 {
		v.path.pop()
		v.path.field("by_caller")
		for _, caller := range sortedKeys(vc.ByCaller) {
			v.path.key(caller)
			v.resolve("", caller)
			v.receiverWeights(vc, vc.ByCaller[caller])
			v.path.pop()
		}
		v.path.pop()
		v.path.field("receivers")
	}
}

// needsLimit fails unless method has a recursion limit: by_depth reads
// the count of its frames, which the simulator keeps for such methods.
func (v *validator) needsLimit(method int32) {
	if m := &v.p.Methods[method]; m.RecursionLimit <= 0 {
		v.fail("%s has no recursion_limit: the simulator counts a method's frames, which by_depth reads, only with one", m.Key())
	}
}

// receiverWeights checks a virtual call's receiver weights by one caller:
// each a receiver of the site, ≥ 0, with a positive finite sum none too
// small next to.
func (v *validator) receiverWeights(vc *VirtualCall, ws map[string]float64) {
	sum, ok := 0.0, true
	for _, ref := range sortedKeys(ws) {
		v.path.key(ref)
		w := ws[ref]
		switch _, known := vc.Receivers[ref]; {
		case !known:
			v.fail("%q is not one of the site's receivers", ref)
			ok = false
		case !(w >= 0) || math.IsInf(w, 0):
			v.fail("weight %v must be a finite number ≥ 0", w)
			ok = false
		default:
			sum += w
		}
		v.path.pop()
	}
	if !ok {
		return
	}
	if !(sum > 0) || math.IsInf(sum, 0) {
		v.fail("weights sum to %v; want a positive finite sum", sum)
		return
	}
	for _, ref := range sortedKeys(ws) {
		if w := ws[ref]; w > 0 && w < sum*minReceiverShare {
			v.path.key(ref)
			v.fail("weight %v is too small next to the sum %v to ever be drawn", w, sum)
			v.path.pop()
		}
	}
}

func (v *validator) block(method int32, b *Block, depth int) {
	switch b.Kind {
	case BlockIO, BlockSleep:
		if b.Duration == nil {
			v.failAt("duration", "missing: %s blocks need a duration", b.Kind)
		} else {
			v.path.field("duration")
			v.dist(b.Duration, rangeNanos)
			v.path.pop()
		}
		if b.Lock != "" {
			v.failAt("lock", "only lock blocks name a lock")
		}
		if len(b.Body) > 0 {
			v.failAt("body", "only lock blocks have a body")
		}
	case BlockLock:
		if b.Lock == "" {
			v.failAt("lock", "missing: lock blocks name the monitor")
		}
		if b.Duration != nil {
			v.failAt("duration", "not allowed on lock blocks: put the critical section's work in body")
		}
		v.body(method, "body", b.Body, depth+1)
	case "":
		v.failAt("kind", "missing: want io, sleep or lock")
	default:
		v.failAt("kind", "unknown block kind %q: want io, sleep or lock", b.Kind)
	}
}

// dist checks a distribution's parameters against r (the range of its
// values; an exponential's mean must also be > 0), at the current path.
func (v *validator) dist(d *Dist, r intRange) {
	param := func(kind string, i int, x int64, r intRange) bool {
		if r.contains(x) {
			return true
		}
		v.path.field(kind)
		if i >= 0 {
			v.path.index(i)
		}
		v.fail("%s", r.check(x))
		if i >= 0 {
			v.path.pop()
		}
		v.path.pop()
		return false
	}
	switch d.Kind {
	case Constant:
		v.checkRange("", d.A, r)
	case Uniform:
		if param("uniform", 0, d.A, r) && param("uniform", 1, d.B, r) && d.B < d.A {
			v.fail("uniform [%d, %d] needs min ≤ max", d.A, d.B)
		}
	case Exponential:
		param("exponential", -1, d.A, intRange{max(1, r.min), r.max, rangeMean.text})
	case Normal:
		param("normal", 0, d.A, r)
		param("normal", 1, d.B, r)
	default:
		v.fail("unknown distribution kind %d", d.Kind)
	}
}

// checkRecursion rejects call-graph cycles that no recursion limit bounds:
// with the limited methods removed, the call graph must be acyclic.
func (v *validator) checkRecursion() {
	m := v.p.Methods
	limited := func(i int32) bool { return m[i].RecursionLimit > 0 }
	if cyc := findCycle(len(m), func(i int32) []int32 {
		if limited(i) {
			return nil
		}
		return v.calls[i]
	}, limited); cyc != nil {
		v.path.field("methods")
		v.path.index(int(cyc[0]))
		v.failAt("recursion_limit", "unbounded recursion %s: set recursion_limit on one of these methods", v.cycleString(cyc))
		v.path.pop()
		v.path.pop()
	}
}

// checkSpawnCycles rejects a thread that (transitively) starts a thread
// running its own entry: that would create threads without end. Method u
// spawning v closes such a cycle when v reaches u through calls and spawns,
// that is when both lie in one strongly connected component: one pass of
// Tarjan's algorithm finds them all.
func (v *validator) checkSpawnCycles() {
	n := len(v.p.Methods)
	succ := func(i int32) (calls, spawns []int32) { return v.calls[i], v.spawns[i] }
	comp := components(n, succ)
	for from := range v.spawns {
		for _, to := range v.spawns[from] {
			if comp[from] != comp[to] {
				continue
			}
			path := reach(n, succ, to, int32(from), comp)
			cyc := append([]int32{int32(from)}, path...)
			v.path.field("methods")
			v.path.index(from)
			v.fail("spawn cycle %s: a thread would start threads without end", v.cycleString(cyc))
			v.path.pop()
			v.path.pop()
			return
		}
	}
}

// maxCycleShown bounds the methods a cycle's message lists.
const maxCycleShown = 12

func (v *validator) cycleString(cyc []int32) string {
	parts := make([]string, 0, maxCycleShown+2)
	for i, c := range cyc {
		if len(cyc) > maxCycleShown && i == maxCycleShown-2 {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(cyc)-maxCycleShown+1))
			parts = append(parts, v.p.Methods[cyc[len(cyc)-1]].Key())
			break
		}
		parts = append(parts, v.p.Methods[c].Key())
	}
	return strings.Join(parts, " → ")
}

// findCycle returns a cycle (first node repeated at the end) in the graph
// restricted to nodes for which skip is false, or nil. The depth-first
// search keeps its own stack, so a chain of any length is fine.
func findCycle(n int, succ func(int32) []int32, skip func(int32) bool) []int32 {
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, n)
	type entry struct {
		u    int32
		next int // index into succ(u)
	}
	var stack []entry
	for root := int32(0); int(root) < n; root++ {
		if color[root] != white || skip(root) {
			continue
		}
		color[root] = grey
		stack = append(stack[:0], entry{u: root})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			out := succ(top.u)
			if top.next == len(out) {
				color[top.u] = black
				stack = stack[:len(stack)-1]
				continue
			}
			w := out[top.next]
			top.next++
			if skip(w) {
				continue
			}
			switch color[w] {
			case grey:
				var cyc []int32
				for i := len(stack) - 1; i >= 0; i-- {
					if stack[i].u == w {
						for _, e := range stack[i:] {
							cyc = append(cyc, e.u)
						}
						break
					}
				}
				return append(cyc, w)
			case white:
				color[w] = grey
				stack = append(stack, entry{u: w})
			}
		}
	}
	return nil
}

// components numbers the strongly connected components of the graph whose
// edges are calls and spawns (Tarjan's algorithm, with its own stack).
func components(n int, succ func(int32) (calls, spawns []int32)) []int32 {
	index := make([]int32, n) // 0: unvisited; else visit order + 1
	low := make([]int32, n)
	comp := make([]int32, n)
	onStack := make([]bool, n)
	var order int32
	var ncomp int32
	var sccStack []int32
	type entry struct {
		u    int32
		next int
	}
	var stack []entry
	edge := func(u int32, k int) (int32, bool) {
		c, s := succ(u)
		if k < len(c) {
			return c[k], true
		}
		if k-len(c) < len(s) {
			return s[k-len(c)], true
		}
		return 0, false
	}
	for root := int32(0); int(root) < n; root++ {
		if index[root] != 0 {
			continue
		}
		order++
		index[root], low[root] = order, order
		sccStack = append(sccStack, root)
		onStack[root] = true
		stack = append(stack[:0], entry{u: root})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			u := top.u
			if w, ok := edge(u, top.next); ok {
				top.next++
				switch {
				case index[w] == 0:
					order++
					index[w], low[w] = order, order
					sccStack = append(sccStack, w)
					onStack[w] = true
					stack = append(stack, entry{u: w})
				case onStack[w]:
					low[u] = min(low[u], index[w])
				}
				continue
			}
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				p := stack[len(stack)-1].u
				low[p] = min(low[p], low[u])
			}
			if low[u] == index[u] {
				for {
					w := sccStack[len(sccStack)-1]
					sccStack = sccStack[:len(sccStack)-1]
					onStack[w] = false
					comp[w] = ncomp
					if w == u {
						break
					}
				}
				ncomp++
			}
		}
	}
	return comp
}

// reach returns a shortest path from 'from' to 'to' (both included)
// within from's component, or nil.
func reach(n int, succ func(int32) (calls, spawns []int32), from, to int32, comp []int32) []int32 {
	prev := make([]int32, n)
	for i := range prev {
		prev[i] = -1
	}
	prev[from] = from
	queue := []int32{from}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if u == to {
			var path []int32
			for x := to; ; x = prev[x] {
				path = append(path, x)
				if x == from {
					break
				}
			}
			for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
				path[i], path[j] = path[j], path[i]
			}
			return path
		}
		c, s := succ(u)
		for _, list := range [2][]int32{c, s} {
			for _, w := range list {
				if prev[w] < 0 && comp[w] == comp[from] {
					prev[w] = u
					queue = append(queue, w)
				}
			}
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// SortedReceivers returns a virtual call's receivers in a deterministic
// order (by reference), so map iteration order never reaches execution.
func (vc *VirtualCall) SortedReceivers() []string { return sortedKeys(vc.Receivers) }
