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

// FieldError is one problem found by Validate, at a path such as
// "methods[3].body[1].loop.trips".
type FieldError struct {
	Path    string
	Problem string
}

func (e *FieldError) Error() string { return e.Path + ": " + e.Problem }

// ValidationError lists every problem Validate found, in program order.
type ValidationError struct {
	Errors []*FieldError
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Errors))
	for i, fe := range e.Errors {
		parts[i] = fe.Error()
	}
	return "invalid program: " + strings.Join(parts, "; ")
}

type validator struct {
	p    *Program
	res  *Resolver
	errs []*FieldError
	// calls[i] and spawns[i] list the methods method i may call or spawn.
	calls, spawns [][]int
}

func (v *validator) fail(path, format string, args ...any) {
	v.errs = append(v.errs, &FieldError{Path: path, Problem: fmt.Sprintf(format, args...)})
}

// Validate reports every problem that would make the program meaningless or
// non-terminating: unknown callees, unbounded recursion or loops, invalid
// costs, an empty program.
func (p *Program) Validate() error {
	v := &validator{p: p, res: NewResolver(p)}
	v.calls = make([][]int, len(p.Methods))
	v.spawns = make([][]int, len(p.Methods))
	if p.Name == "" {
		v.fail("name", "missing")
	} else if bad := badNameChars(p.Name); bad != "" {
		v.fail("name", "%q contains %s", p.Name, bad)
	}
	if len(p.Methods) == 0 {
		v.fail("methods", "program has no methods")
	}
	if len(p.Threads) == 0 {
		v.fail("threads", "program has no threads (at least one is needed to run anything)")
	}
	seen := map[string]int{}
	for i := range p.Methods {
		m := &p.Methods[i]
		path := fmt.Sprintf("methods[%d]", i)
		v.checkIdent(path+".class", m.Class)
		v.checkIdent(path+".name", m.Name)
		if m.Signature != "" && (!strings.HasPrefix(m.Signature, "(") || strings.ContainsAny(m.Signature, " \t\r\n|")) {
			v.fail(path+".signature", "%q is not a JVM signature like \"(I)V\"", m.Signature)
		}
		if j, dup := seen[m.Key()]; dup {
			v.fail(path, "duplicate method %s (also methods[%d]); overloads need distinct signatures", m.Key(), j)
		} else {
			seen[m.Key()] = i
		}
		if m.RecursionLimit < 0 {
			v.fail(path+".recursion_limit", "%d is negative", m.RecursionLimit)
		}
		v.stmts(i, path+".body", m.Body, 0)
	}
	names := map[string]int{}
	for i := range p.Threads {
		t := &p.Threads[i]
		path := fmt.Sprintf("threads[%d]", i)
		if t.Name == "" {
			v.fail(path+".name", "missing")
		} else if j, dup := names[t.Name]; dup {
			v.fail(path+".name", "duplicate thread name %q (also threads[%d])", t.Name, j)
		} else {
			names[t.Name] = i
		}
		if _, err := v.res.Resolve(t.Entry); err != nil {
			v.fail(path+".entry", "%v", err)
		}
		if t.Count < 0 {
			v.fail(path+".count", "%d is negative", t.Count)
		}
		if t.Start < 0 {
			v.fail(path+".start", "%d is negative", t.Start)
		}
	}
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

func (v *validator) checkIdent(path, s string) {
	if s == "" {
		v.fail(path, "missing")
	} else if bad := badNameChars(s); bad != "" {
		v.fail(path, "%q contains %s", s, bad)
	} else if strings.Contains(s, ".") && strings.HasSuffix(path, ".name") {
		v.fail(path, "%q contains '.', which separates class and method", s)
	}
}

func (v *validator) resolve(path, ref string) int {
	if ref == "" {
		v.fail(path, "missing method reference")
		return -1
	}
	i, err := v.res.Resolve(ref)
	if err != nil {
		v.fail(path, "%v", err)
	}
	return i
}

func (v *validator) stmts(method int, path string, body []Stmt, depth int) {
	if depth > MaxNesting {
		v.fail(path, "statements nest deeper than %d levels", MaxNesting)
		return
	}
	for i := range body {
		v.stmt(method, fmt.Sprintf("%s[%d]", path, i), &body[i], depth)
	}
}

func (v *validator) stmt(method int, path string, s *Stmt, depth int) {
	kind, n := s.kinds()
	switch {
	case n == 0:
		v.fail(path, "empty statement: want one of work, call, virtual_call, loop, branch, alloc, block, native, spawn, throw")
		return
	case n > 1:
		v.fail(path, "statement sets %d kinds; exactly one is allowed", n)
		return
	}
	path += "." + kind
	switch {
	case s.Work != nil:
		if s.Work.Cycles <= 0 {
			v.fail(path+".cycles", "%d must be > 0", s.Work.Cycles)
		}
		if s.Work.Bytecodes < 0 {
			v.fail(path+".bytecodes", "%d is negative", s.Work.Bytecodes)
		}
	case s.Call != nil:
		if c := v.resolve(path+".method", s.Call.Method); c >= 0 {
			v.calls[method] = append(v.calls[method], c)
		}
	case s.VirtualCall != nil:
		if len(s.VirtualCall.Receivers) == 0 {
			v.fail(path+".receivers", "no receivers")
		}
		for _, ref := range sortedKeys(s.VirtualCall.Receivers) {
			w := s.VirtualCall.Receivers[ref]
			rp := fmt.Sprintf("%s.receivers[%s]", path, ref)
			if c := v.resolve(rp, ref); c >= 0 {
				v.calls[method] = append(v.calls[method], c)
			}
			if !(w > 0) || math.IsInf(w, 0) {
				v.fail(rp, "weight %v must be a positive finite number", w)
			}
		}
	case s.Loop != nil:
		switch {
		case s.Loop.Trips == nil:
			v.fail(path+".trips", "missing: every loop needs a bound")
		case !s.Loop.Trips.Bounded():
			v.fail(path+".trips", "%s is unbounded; use a constant or uniform [min, max]", s.Loop.Trips)
		default:
			if err := s.Loop.Trips.validate(); err != nil {
				v.fail(path+".trips", "%v", err)
			}
		}
		if len(s.Loop.Body) == 0 {
			v.fail(path+".body", "empty loop body")
		}
		v.stmts(method, path+".body", s.Loop.Body, depth+1)
	case s.Branch != nil:
		if p := s.Branch.Probability; !(p >= 0 && p <= 1) {
			v.fail(path+".probability", "%v is not in [0, 1]", p)
		}
		v.stmts(method, path+".then", s.Branch.Then, depth+1)
		v.stmts(method, path+".else", s.Branch.Else, depth+1)
	case s.Alloc != nil:
		if s.Alloc.Bytes <= 0 {
			v.fail(path+".bytes", "%d must be > 0", s.Alloc.Bytes)
		}
	case s.Block != nil:
		v.block(method, path, s.Block, depth)
	case s.Native != nil:
		if s.Native.Cycles <= 0 {
			v.fail(path+".cycles", "%d must be > 0", s.Native.Cycles)
		}
	case s.Spawn != nil:
		sp := s.Spawn
		if sp.Name == "" {
			v.fail(path+".name", "missing")
		} else if bad := badNameChars(sp.Name); bad != "" {
			v.fail(path+".name", "%q contains %s", sp.Name, bad)
		}
		if c := v.resolve(path+".entry", sp.Entry); c >= 0 {
			v.spawns[method] = append(v.spawns[method], c)
		}
		if sp.Count < 0 {
			v.fail(path+".count", "%d is negative", sp.Count)
		}
	case s.Throw != nil:
		if s.Throw.Depth < 0 {
			v.fail(path+".depth", "%d is negative", s.Throw.Depth)
		}
	}
}

func (v *validator) block(method int, path string, b *Block, depth int) {
	switch b.Kind {
	case BlockIO, BlockSleep:
		if b.Duration == nil {
			v.fail(path+".duration", "missing: %s blocks need a duration", b.Kind)
		} else if err := b.Duration.validate(); err != nil {
			v.fail(path+".duration", "%v", err)
		}
		if b.Lock != "" {
			v.fail(path+".lock", "only lock blocks name a lock")
		}
		if len(b.Body) > 0 {
			v.fail(path+".body", "only lock blocks have a body")
		}
	case BlockLock:
		if b.Lock == "" {
			v.fail(path+".lock", "missing: lock blocks name the monitor")
		}
		if b.Duration != nil {
			v.fail(path+".duration", "not allowed on lock blocks: put the critical section's work in body")
		}
		v.stmts(method, path+".body", b.Body, depth+1)
	case "":
		v.fail(path+".kind", "missing: want io, sleep or lock")
	default:
		v.fail(path+".kind", "unknown block kind %q: want io, sleep or lock", b.Kind)
	}
}

// checkRecursion rejects call-graph cycles that no recursion limit bounds:
// with the limited methods removed, the call graph must be acyclic.
func (v *validator) checkRecursion() {
	m := v.p.Methods
	limited := func(i int) bool { return m[i].RecursionLimit > 0 }
	if cyc := findCycle(len(m), func(i int) []int {
		if limited(i) {
			return nil
		}
		return v.calls[i]
	}, limited); cyc != nil {
		v.fail(fmt.Sprintf("methods[%d].recursion_limit", cyc[0]),
			"unbounded recursion %s: set recursion_limit on one of these methods", v.cycleString(cyc))
	}
}

// checkSpawnCycles rejects a thread that (transitively) starts a thread
// running its own entry: that would create threads without end.
func (v *validator) checkSpawnCycles() {
	n := len(v.p.Methods)
	succ := func(i int) []int { return append(append([]int(nil), v.calls[i]...), v.spawns[i]...) }
	for from := 0; from < n; from++ {
		for _, to := range v.spawns[from] {
			if path := reach(n, succ, to, from); path != nil {
				cyc := append([]int{from}, path...)
				v.fail(fmt.Sprintf("methods[%d]", from),
					"spawn cycle %s: a thread would start threads without end", v.cycleString(cyc))
				return
			}
		}
	}
}

func (v *validator) cycleString(cyc []int) string {
	parts := make([]string, len(cyc))
	for i, c := range cyc {
		parts[i] = v.p.Methods[c].Key()
	}
	return strings.Join(parts, " → ")
}

// findCycle returns a cycle (first node repeated at the end) in the graph
// restricted to nodes for which skip is false, or nil.
func findCycle(n int, succ func(int) []int, skip func(int) bool) []int {
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, n)
	var stack []int
	var found []int
	var visit func(u int) bool
	visit = func(u int) bool {
		color[u] = grey
		stack = append(stack, u)
		for _, w := range succ(u) {
			if skip(w) {
				continue
			}
			if color[w] == grey {
				for i, x := range stack {
					if x == w {
						found = append(append([]int(nil), stack[i:]...), w)
						return true
					}
				}
			}
			if color[w] == white && visit(w) {
				return true
			}
		}
		stack = stack[:len(stack)-1]
		color[u] = black
		return false
	}
	for u := 0; u < n; u++ {
		if color[u] == white && !skip(u) && visit(u) {
			return found
		}
	}
	return nil
}

// reach returns a path from 'from' to 'to' (both included), or nil.
func reach(n int, succ func(int) []int, from, to int) []int {
	prev := make([]int, n)
	for i := range prev {
		prev[i] = -1
	}
	prev[from] = from
	queue := []int{from}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if u == to {
			var path []int
			for x := to; ; x = prev[x] {
				path = append([]int{x}, path...)
				if x == from {
					return path
				}
			}
		}
		for _, w := range succ(u) {
			if prev[w] < 0 {
				prev[w] = u
				queue = append(queue, w)
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
