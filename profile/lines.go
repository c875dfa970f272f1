package profile

import "sort"

// LineShare is one row of a line-level flat profile: the self weight of
// the samples whose leaf frame is at Line of Method, as a share of the
// profile's total weight.
type LineShare struct {
	Method string // function name, as in Flat
	// Line is the leaf frame's source line; 0 when the profiler recorded
	// no position (tprof, komorium, the flat safepoint samplers).
	Line      int
	SelfShare float64
}

// Lines is the line-level flat profile: each sample's leaf frame charged
// to (method, line). Rows with no weight are left out. Sorted by share
// (descending), then method, then line, so the order is deterministic;
// shares sum to 1 unless the profile has no weight.
func (p *Profile) Lines() []LineShare {
	type key struct {
		method string
		line   int
	}
	self := map[key]int64{}
	for i := range p.Samples {
		s := &p.Samples[i]
		leaf, ok := p.Leaf(i)
		if !ok || s.Weight == 0 {
			continue
		}
		self[key{p.Functions[leaf.Func].Name, int(leaf.Line)}] += s.Weight
	}
	type row struct {
		key
		w int64
	}
	rows := make([]row, 0, len(self))
	for k, w := range self {
		rows = append(rows, row{k, w})
	}
	// Sort on the integer weights: equal weights are equal shares, and no
	// rounding can reorder two rows.
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.w != b.w {
			return a.w > b.w
		}
		if a.method != b.method {
			return a.method < b.method
		}
		return a.line < b.line
	})
	sum := float64(p.TotalWeight())
	out := make([]LineShare, len(rows))
	for i, r := range rows {
		out[i] = LineShare{Method: r.method, Line: r.line}
		if sum > 0 {
			out[i].SelfShare = float64(r.w) / sum
		}
	}
	return out
}
