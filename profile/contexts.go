package profile

import (
	"slices"
	"strings"
)

// children is the context tree's children lists in CSR form: context c's
// children are kids[first[c]:first[c+1]], in index order. Parents precede
// their children.
func children(ctxs []Context) (first, kids []int32) {
	n := len(ctxs)
	first = make([]int32, n+1)
	for c := 1; c < n; c++ {
		first[ctxs[c].Parent+1]++
	}
	for i := 1; i <= n; i++ {
		first[i] += first[i-1]
	}
	// first[p] serves as list p's fill position, ending at list p+1's
	// start; shifting the offsets one place back restores them, with no
	// copy of them.
	kids = make([]int32, max(n-1, 0))
	for c := int32(1); int(c) < n; c++ {
		p := ctxs[c].Parent
		kids[first[p]] = c
		first[p]++
	}
	copy(first[1:], first[:n])
	first[0] = 0
	return first, kids
}

// preorder calls enter for every context but the root in a depth-first
// walk of the tree (children in kids' order) and leave after its
// descendants. It keeps an explicit stack: contexts can be 10⁵ deep.
func preorder(first, kids []int32, enter, leave func(c int32)) {
	if len(first) < 2 {
		return
	}
	// The index into kids of each open context's next child.
	next := []int32{first[Root]}
	open := []int32{Root}
	for len(next) > 0 {
		top := len(next) - 1
		if next[top] == first[open[top]+1] {
			if open[top] != Root && leave != nil {
				leave(open[top])
			}
			next, open = next[:top], open[:top]
			continue
		}
		c := kids[next[top]]
		next[top]++
		enter(c)
		next = append(next, first[c])
		open = append(open, c)
	}
}

// walk calls visit for every context but the root with its frame and
// whether it is outermost: no context on its path to the root has a frame
// of the same function.
func (p *Profile) walk(visit func(f Frame, outer bool, c int32)) {
	first, kids := children(p.Contexts)
	onPath := make([]int32, len(p.Functions))
	preorder(first, kids, func(c int32) {
		f := p.Contexts[c].Frame
		visit(f, onPath[f.Func] == 0, c)
		onPath[f.Func]++
	}, func(c int32) {
		onPath[p.Contexts[c].Frame.Func]--
	})
}

// A nameTree is contexts merged by function name: lines, inlining and
// threads ignored, the form of ContextWeights' keys (names: Function.Name,
// sep: FrameSep) and of folded output's lines (names: FoldedName, sep:
// ';'). Node 0 is the root.
// Names are interned (names, by nameID), so a node and its index entry
// hold no pointer: the tree of a profile with millions of contexts costs
// a few int32s per node and is nothing for the collector to scan.
type nameTree struct {
	parent []int32
	name   []int32 // node's index into names
	names  []string
	nameID map[string]int32
	index  map[[2]int32]int32 // (parent, name) → node
	// sep separates the names of a path; no name holds it.
	sep byte
}

// newNameTree is an empty tree whose paths join names with sep.
func newNameTree(sep byte) *nameTree {
	return &nameTree{parent: []int32{-1}, name: []int32{0}, names: []string{""},
		nameID: map[string]int32{"": 0}, index: map[[2]int32]int32{}, sep: sep}
}

// newContextTree is the tree of ContextWeights' keys.
func newContextTree() *nameTree { return newNameTree(FrameSep[0]) }

// nameOf is node u's function name.
func (t *nameTree) nameOf(u int32) string { return t.names[t.name[u]] }

// add merges p's contexts into the tree, by function Name, and returns
// each context's node.
func (t *nameTree) add(p *Profile) []int32 {
	names := make([]string, len(p.Functions))
	for i := range p.Functions {
		names[i] = p.Functions[i].Name
	}
	return t.addAs(p, names)
}

// addAs is add with function i named names[i]: functions of one name
// share their nodes.
func (t *nameTree) addAs(p *Profile, names []string) []int32 {
	ids := make([]int32, len(p.Functions))
	for i, name := range names {
		id, ok := t.nameID[name]
		if !ok {
			id = int32(len(t.names))
			t.names = append(t.names, name)
			t.nameID[name] = id
		}
		ids[i] = id
	}
	node := make([]int32, len(p.Contexts))
	for c := 1; c < len(p.Contexts); c++ {
		ctx := &p.Contexts[c]
		k := [2]int32{node[ctx.Parent], ids[ctx.Frame.Func]}
		n, ok := t.index[k]
		if !ok {
			n = int32(len(t.parent))
			t.parent = append(t.parent, k[0])
			t.name = append(t.name, k[1])
			t.index[k] = n
		}
		node[c] = n
	}
	return node
}

// find is each of p's contexts' node in the tree, by function Name, -1
// where the tree has none: add without adding.
func (t *nameTree) find(p *Profile) []int32 {
	ids := make([]int32, len(p.Functions))
	for i := range p.Functions {
		id, ok := t.nameID[p.Functions[i].Name]
		if !ok {
			id = -1
		}
		ids[i] = id
	}
	node := make([]int32, len(p.Contexts))
	for c := 1; c < len(p.Contexts); c++ {
		ctx := &p.Contexts[c]
		node[c] = -1
		if up, id := node[ctx.Parent], ids[ctx.Frame.Func]; up >= 0 && id >= 0 {
			if n, ok := t.index[[2]int32{up, id}]; ok {
				node[c] = n
			}
		}
	}
	return node
}

// weights is the sum of p's sample weights per node of the tree (node:
// add's result), and which nodes hold a sample.
func (t *nameTree) weights(p *Profile, node []int32) (w []float64, has []bool) {
	w = make([]float64, len(t.parent))
	has = make([]bool, len(t.parent))
	for i := range p.Samples {
		s := &p.Samples[i]
		n := node[s.Context]
		w[n] += float64(s.Weight)
		has[n] = true
	}
	return w, has
}

// paths is each needed node's path, names root first joined by t.sep.
// Strings are shared: a node's path is a prefix of its descendants', so
// ancestors take theirs from a descendant's.
func (t *nameTree) paths(need []bool) []string {
	n := len(t.parent)
	size := make([]int, n)
	for u := 1; u < n; u++ {
		if p := t.parent[u]; p == 0 {
			size[u] = len(t.nameOf(int32(u)))
		} else {
			size[u] = size[p] + 1 + len(t.nameOf(int32(u)))
		}
	}
	out := make([]string, n)
	done := make([]bool, n)
	var path []int32
	var sb strings.Builder
	// Children follow their parents: a node is reached after every
	// descendant, which may have made its path already.
	for u := n - 1; u > 0; u-- {
		if !need[u] || done[u] {
			continue
		}
		path = path[:0]
		for v := int32(u); v != 0; v = t.parent[v] {
			path = append(path, v)
		}
		sb.Reset()
		sb.Grow(size[u])
		for k := len(path) - 1; k >= 0; k-- {
			if k < len(path)-1 {
				sb.WriteByte(t.sep)
			}
			sb.WriteString(t.nameOf(path[k]))
		}
		s := sb.String()
		for _, v := range path {
			if done[v] {
				break
			}
			out[v], done[v] = s[:size[v]], true
		}
	}
	return out
}

// sorted is the nodes with need set in the order of their paths (paths)
// as strings, without making them. It holds when no name contains t.sep
// (plainNames): a node's path is then a prefix of its descendants', and
// below a node the order of its children's names decides, each child
// name standing for the child itself and, as name+sep, for the child's
// descendants.
func (t *nameTree) sorted(need []bool) []int32 {
	n := len(t.parent)
	// Whether a node or one of its descendants is needed.
	live := slices.Clone(need)
	for u := n - 1; u > 0; u-- {
		if live[u] {
			live[t.parent[u]] = true
		}
	}
	first := make([]int32, n+1)
	for u := 1; u < n; u++ {
		if live[u] {
			first[t.parent[u]+1] += 2
		}
	}
	for i := 1; i <= n; i++ {
		first[i] += first[i-1]
	}
	// Entries under each node: 2u for child u itself, 2u+1 for its
	// descendants.
	entries := make([]int32, first[n])
	fill := slices.Clone(first[:n])
	for u := int32(1); int(u) < n; u++ {
		if live[u] {
			p := t.parent[u]
			entries[fill[p]], entries[fill[p]+1] = 2*u, 2*u+1
			fill[p] += 2
		}
	}
	for u := range n {
		es := entries[first[u]:first[u+1]]
		if len(es) > 2 {
			slices.SortFunc(es, func(a, b int32) int {
				return compareEntry(t.nameOf(a/2), a%2 == 1, t.nameOf(b/2), b%2 == 1, t.sep)
			})
		}
	}
	var out []int32
	if need[0] {
		out = append(out, 0)
	}
	// An explicit stack of positions in entries.
	next := []int32{first[0]}
	end := []int32{first[1]}
	for len(next) > 0 {
		top := len(next) - 1
		if next[top] == end[top] {
			next, end = next[:top], end[:top]
			continue
		}
		e := entries[next[top]]
		next[top]++
		u := e / 2
		if e%2 == 0 {
			if need[u] {
				out = append(out, u)
			}
			continue
		}
		if first[u] < first[u+1] {
			next = append(next, first[u])
			end = append(end, first[u+1])
		}
	}
	return out
}

// compareEntry compares a+sep (if as) with b+sep (if bs) as strings.
func compareEntry(a string, as bool, b string, bs bool, sep byte) int {
	m := min(len(a), len(b))
	if c := strings.Compare(a[:m], b[:m]); c != 0 {
		return c
	}
	// One name is a prefix of the other: compare what follows it.
	byteAt := func(s string, semi bool, i int) int {
		if i < len(s) {
			return int(s[i])
		}
		if i == len(s) && semi {
			return int(sep)
		}
		return -1 // the string has ended
	}
	for i := m; ; i++ {
		x, y := byteAt(a, as, i), byteAt(b, bs, i)
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
		if x == -1 {
			return 0
		}
	}
}

// plainNames reports whether no function name of p contains FrameSep,
// the separator of ContextWeights' keys (Validate rejects such a name).
func plainNames(p *Profile) bool {
	for _, f := range p.Functions {
		if strings.Contains(f.Name, FrameSep) {
			return false
		}
	}
	return true
}

// alignContexts is Align(a.ContextWeights(), b.ContextWeights())'s
// vectors, made on the contexts' trees without the keys.
func alignContexts(a, b *Profile) (x, y []float64) {
	if !plainNames(a) || !plainNames(b) {
		_, x, y = Align(a.ContextWeights(), b.ContextWeights())
		return x, y
	}
	t := newContextTree()
	return t.align(a, t.add(a), b, t.add(b))
}

// align is alignContexts of a and b, both added to t (na, nb: add's
// results). Other profiles' nodes in t change nothing: only the nodes
// where a or b has a sample are aligned, in an order given by their
// names.
func (t *nameTree) align(a *Profile, na []int32, b *Profile, nb []int32) (x, y []float64) {
	wa, ha := t.weights(a, na)
	wb, hb := t.weights(b, nb)
	for u := range ha {
		ha[u] = ha[u] || hb[u]
	}
	order := t.sorted(ha)
	x = make([]float64, len(order))
	y = make([]float64, len(order))
	for i, u := range order {
		x[i], y[i] = wa[u], wb[u]
	}
	return x, y
}
