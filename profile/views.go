package profile

import (
	"sort"
	"strconv"
)

// TotalWeight is the sum of all sample weights.
func (p *Profile) TotalWeight() int64 {
	var s int64
	for i := range p.Samples {
		s += p.Samples[i].Weight
	}
	return s
}

// TotalCount is the number of samples (the sum of sample counts).
func (p *Profile) TotalCount() int64 {
	var s int64
	for i := range p.Samples {
		s += p.Samples[i].Count
	}
	return s
}

// MethodShare is one row of a flat profile.
type MethodShare struct {
	Name string
	// Self is the weight of samples whose leaf is the method; Total the
	// weight of samples whose stack contains it (once, even if recursive).
	Self, Total           int64
	SelfShare, TotalShare float64
}

// Flat is the flat profile, sorted by self weight (descending), then total
// weight (descending), then name.
func (p *Profile) Flat() []MethodShare {
	self := make([]int64, len(p.Functions))
	total := make([]int64, len(p.Functions))
	// below[c]: the weight of the samples in context c's subtree.
	below := make([]int64, len(p.Contexts))
	for i := range p.Samples {
		s := &p.Samples[i]
		below[s.Context] += s.Weight
		if f, ok := p.Leaf(i); ok {
			self[f.Func] += s.Weight
		}
	}
	for c := len(p.Contexts) - 1; c > Root; c-- {
		below[p.Contexts[c].Parent] += below[c]
	}
	// A function's total is the weight below its outermost contexts:
	// those with no caller of the same function (recursion counted once).
	p.walk(func(f Frame, outer bool, c int32) {
		if outer {
			total[f.Func] += below[c]
		}
	})
	// Functions with the same name (impossible via Builder) are merged.
	byName := map[string]*MethodShare{}
	var rows []*MethodShare
	for i, f := range p.Functions {
		if self[i] == 0 && total[i] == 0 {
			continue
		}
		r, ok := byName[f.Name]
		if !ok {
			r = &MethodShare{Name: f.Name}
			byName[f.Name] = r
			rows = append(rows, r)
		}
		r.Self += self[i]
		r.Total += total[i]
	}
	sum := float64(p.TotalWeight())
	out := make([]MethodShare, len(rows))
	for i, r := range rows {
		out[i] = *r
		if sum > 0 {
			out[i].SelfShare = float64(r.Self) / sum
			out[i].TotalShare = float64(r.Total) / sum
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		if a.Self != b.Self {
			return a.Self > b.Self
		}
		if a.Total != b.Total {
			return a.Total > b.Total
		}
		return a.Name < b.Name
	})
	return out
}

// TopMethods returns the names of the n methods with the most self weight
// (ties broken by name), fewer if the profile has fewer.
func (p *Profile) TopMethods(n int) []string {
	flat := p.Flat()
	var out []string
	for i := 0; i < len(flat) && i < n; i++ {
		if flat[i].Self == 0 {
			break
		}
		out = append(out, flat[i].Name)
	}
	return out
}

// CCTNode is one calling context of a profile's calling context tree.
type CCTNode struct {
	Name     string // function name; "" for the root
	Parent   int    // -1 for the root
	Children []int  // sorted by name
	// Self is the weight of samples ending here; Total includes descendants.
	Self, Total int64
}

// CCT is a calling context tree built from a profile's samples by
// function names (lines and threads ignored). Nodes[0] is the root.
type CCT struct {
	Nodes []CCTNode
}

// CCT builds the profile's calling context tree. Nodes are numbered as
// the samples, in order, first reach them from the root.
func (p *Profile) CCT() *CCT {
	t := &CCT{Nodes: []CCTNode{{Parent: -1}}}
	type key struct {
		parent int
		name   string
	}
	index := map[key]int{}
	// node[c] is context c's node + 1 once made (0: not yet).
	node := make([]int, max(len(p.Contexts), 1))
	node[Root] = 1
	var path []int32
	for i := range p.Samples {
		s := &p.Samples[i]
		path = path[:0]
		c := s.Context
		for ; node[c] == 0; c = p.Contexts[c].Parent {
			path = append(path, c)
		}
		n := node[c] - 1
		for k := len(path) - 1; k >= 0; k-- {
			name := p.Functions[p.Contexts[path[k]].Frame.Func].Name
			m, ok := index[key{n, name}]
			if !ok {
				m = len(t.Nodes)
				index[key{n, name}] = m
				t.Nodes = append(t.Nodes, CCTNode{Name: name, Parent: n})
				t.Nodes[n].Children = append(t.Nodes[n].Children, m)
			}
			node[path[k]] = m + 1
			n = m
		}
		t.Nodes[n].Self += s.Weight
	}
	// Children follow their parents.
	for i := len(t.Nodes) - 1; i >= 0; i-- {
		t.Nodes[i].Total += t.Nodes[i].Self
		if i > 0 {
			t.Nodes[t.Nodes[i].Parent].Total += t.Nodes[i].Total
		}
	}
	for i := range t.Nodes {
		ch := t.Nodes[i].Children
		sort.Slice(ch, func(a, b int) bool { return t.Nodes[ch[a]].Name < t.Nodes[ch[b]].Name })
	}
	return t
}

// CCTSize is the number of nodes of p's calling context tree but its
// root, len(p.CCT().Nodes) - 1, counted without building the tree when
// no two contexts with a sample at or below them share their caller and
// their function's name (a Builder's profile whose frames have no lines,
// as a bytecode-counting sampler's): each such context is then a node
// of its own. Otherwise the tree is built.
func (p *Profile) CCTSize() int {
	n := len(p.Contexts)
	reached := make([]bool, max(n, 1))
	for i := range p.Samples {
		reached[p.Samples[i].Context] = true
	}
	for c := n - 1; c > Root; c-- {
		parent := p.Contexts[c].Parent
		if parent < 0 || int(parent) >= c {
			return len(p.CCT().Nodes) - 1
		}
		if reached[c] {
			reached[parent] = true
		}
	}
	nameID := make(map[string]int32, len(p.Functions))
	ids := make([]int32, len(p.Functions))
	for i := range p.Functions {
		id, ok := nameID[p.Functions[i].Name]
		if !ok {
			id = int32(len(nameID))
			nameID[p.Functions[i].Name] = id
		}
		ids[i] = id
	}
	// seen[name] is 1 + the context whose children were last seen with it.
	seen := make([]int32, len(nameID))
	first, kids := children(p.Contexts)
	size := 0
	for c := range n {
		if !reached[c] {
			continue
		}
		for _, k := range kids[first[c]:first[c+1]] {
			if !reached[k] {
				continue
			}
			id := ids[p.Contexts[k].Frame.Func]
			if seen[id] == int32(c)+1 {
				return len(p.CCT().Nodes) - 1 // two contexts share a node
			}
			seen[id] = int32(c) + 1
			size++
		}
	}
	return size
}

// Path is node i's calling context's key: its names root first, joined
// by FrameSep (JoinFrames), as ContextWeights keys it.
func (t *CCT) Path(i int) string { return JoinFrames(t.Frames(i)) }

// Frames is node i's calling context: its names, root first.
func (t *CCT) Frames(i int) []string {
	var parts []string
	for n := i; n > 0; n = t.Nodes[n].Parent {
		parts = append(parts, t.Nodes[n].Name)
	}
	for a, b := 0, len(parts)-1; a < b; a, b = a+1, b-1 {
		parts[a], parts[b] = parts[b], parts[a]
	}
	return parts
}

// ContextWeights maps each calling context (function names root first,
// joined by FrameSep: JoinFrames) to the self weight of the samples
// ending in it.
func (p *Profile) ContextWeights() map[string]float64 {
	t := newContextTree()
	w, has := t.weights(p, t.add(p))
	keys := t.paths(has)
	n := 0
	for _, h := range has {
		if h {
			n++
		}
	}
	out := make(map[string]float64, n)
	for u, h := range has {
		if h {
			// Weights are whole numbers, summed exactly in any order.
			out[keys[u]] += w[u]
		}
	}
	return out
}

// MethodWeights maps each method to its self weight (the flat profile).
func (p *Profile) MethodWeights() map[string]float64 {
	out := map[string]float64{}
	for i := range p.Samples {
		if f, ok := p.Leaf(i); ok {
			out[p.Functions[f.Func].Name] += float64(p.Samples[i].Weight)
		}
	}
	return out
}

// EdgeWeights maps each call edge, keyed caller, site and callee joined
// by FrameSep (which no function name holds, where '|' may be in a JVM
// class name), to its weight: the dynamic call graph.
func (p *Profile) EdgeWeights() map[string]float64 {
	out := map[string]float64{}
	for _, e := range p.Edges {
		out[p.Functions[e.Caller].Name+FrameSep+strconv.Itoa(e.Site)+FrameSep+p.Functions[e.Callee].Name] += float64(e.Weight)
	}
	return out
}

// Align turns two keyed weight maps into vectors over the union of their
// keys (sorted), with zeros where a key is missing: the form the metrics
// take.
func Align(a, b map[string]float64) (keys []string, x, y []float64) {
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	x = make([]float64, len(keys))
	y = make([]float64, len(keys))
	for i, k := range keys {
		x[i], y[i] = a[k], b[k]
	}
	return keys, x, y
}
