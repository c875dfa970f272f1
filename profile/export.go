package profile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	pprof "github.com/google/pprof/profile"
)

// ToPprof converts p to pprof's model: one Function per method, one
// Location per physical frame (frames the JIT inlined become extra Lines of
// their caller's Location, innermost first, as pprof expects), samples leaf
// first, the thread as a "thread" label.
func ToPprof(p *Profile) (*pprof.Profile, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	valueType := &pprof.ValueType{Type: "cpu", Unit: "nanoseconds"}
	if p.Unit == "bytecodes" {
		valueType = &pprof.ValueType{Type: "bytecodes", Unit: "count"}
	}
	out := &pprof.Profile{
		SampleType: []*pprof.ValueType{{Type: "samples", Unit: "count"}, valueType},
		PeriodType: valueType,
		Period:     p.PeriodNanos,
		Mapping:    []*pprof.Mapping{{ID: 1, HasFunctions: true, File: "profsim"}},
	}
	for i, f := range p.Functions {
		out.Function = append(out.Function, &pprof.Function{ID: uint64(i + 1), Name: f.Name,
			SystemName: f.Class + "." + f.Method + f.Signature, Filename: f.File})
	}
	locs := map[string]*pprof.Location{}
	var key strings.Builder
	var stack []Frame
	for i, s := range p.Samples {
		// Split the root-first stack into physical frames.
		var groups [][]Frame
		stack = p.Stack(i, stack)
		for _, f := range stack {
			if f.Inlined && len(groups) > 0 {
				groups[len(groups)-1] = append(groups[len(groups)-1], f)
			} else {
				groups = append(groups, []Frame{f})
			}
		}
		ps := &pprof.Sample{Value: []int64{s.Count, s.Weight}}
		for g := len(groups) - 1; g >= 0; g-- { // leaf first
			key.Reset()
			for _, f := range groups[g] {
				key.WriteString(strconv.Itoa(int(f.Func)) + ":" + strconv.Itoa(int(f.Line)) + ";")
			}
			loc, ok := locs[key.String()]
			if !ok {
				loc = &pprof.Location{ID: uint64(len(out.Location) + 1), Mapping: out.Mapping[0]}
				for k := len(groups[g]) - 1; k >= 0; k-- { // innermost first
					f := groups[g][k]
					loc.Line = append(loc.Line, pprof.Line{Function: out.Function[f.Func], Line: int64(f.Line)})
				}
				locs[key.String()] = loc
				out.Location = append(out.Location, loc)
			}
			ps.Location = append(ps.Location, loc)
		}
		if t := p.ThreadName(i); t != "" {
			ps.Label = map[string][]string{"thread": {t}}
		}
		out.Sample = append(out.Sample, ps)
	}
	if err := out.CheckValid(); err != nil {
		return nil, fmt.Errorf("profile: pprof conversion: %w", err)
	}
	return out, nil
}

// exportFixedBytes and exportContextBytes are what writing a profile
// (WritePprof, then WriteFolded: one at a time) adds to a process's
// memory: the compressor and the output buffers, and per calling context
// the tables that find its locations and order its folded lines. Measured
// as the bytes allocated while writing (runtime.MemStats.TotalAlloc, at
// least what the write holds at once): WritePprof 825 KB on a profile of
// 9 contexts, most of it gzip's compressor, and 8.3–9.0 bytes a context
// on the calling-context truths of javac-real (2 s, 3.5 M contexts),
// javac and jython (1 s, 4.2 M and 2.1 M); WriteFolded 66 KB and 41–44
// bytes a context on the same.
const (
	exportFixedBytes   = 1 << 20
	exportContextBytes = 48
)

// ExportBytes estimates the memory writing p (WritePprof, WriteFolded)
// takes beyond p itself.
func (p *Profile) ExportBytes() int64 {
	if len(p.Samples) == 0 {
		return 0
	}
	return exportFixedBytes + exportContextBytes*int64(len(p.Contexts))
}

// WriteFolded writes p in the folded-stack format of flame-graph tools:
// one "root;…;leaf weight" line per calling context, sorted, each frame
// its function's FoldedName ("pkg.Class.method", no descriptor, as
// async-profiler's collapsed output writes Java frames): overloads share
// a frame, their contexts merged. Validate makes sure no frame holds ';'
// (the separator) or a line break, which flame-graph tools would misread.
func WriteFolded(w io.Writer, p *Profile) error {
	if err := p.Validate(); err != nil {
		return err
	}
	names := make([]string, len(p.Functions))
	for i := range p.Functions {
		names[i] = p.Functions[i].FoldedName()
	}
	t := newNameTree(';')
	weight, has := t.weights(p, t.addAs(p, names))
	// Each line is made from the tree as it is written: the lines of a
	// deep calling-context tree hold gigabytes.
	bw := bufio.NewWriterSize(w, 64<<10)
	var path []int32
	var line []byte
	for _, u := range t.sorted(has) {
		if u == 0 {
			continue // the empty stack
		}
		path = path[:0]
		for v := u; v != 0; v = t.parent[v] {
			path = append(path, v)
		}
		line = line[:0]
		for k := len(path) - 1; k >= 0; k-- {
			line = append(line, t.nameOf(path[k])...)
			if k > 0 {
				line = append(line, ';')
			}
		}
		line = append(line, ' ')
		line = strconv.AppendInt(line, int64(weight[u]), 10)
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// wireProfile is Profile's JSON form: each sample with its whole stack.
type wireProfile struct {
	Source      string       `json:"source"`
	Unit        string       `json:"unit"`
	PeriodNanos int64        `json:"period_nanos,omitempty"`
	Functions   []Function   `json:"functions"`
	Samples     []wireSample `json:"samples"`
	Edges       []Edge       `json:"edges,omitempty"`
}

type wireSample struct {
	// Stack is root first: Stack[0] is the thread's entry method and the
	// last element is the leaf.
	Stack  []Frame `json:"stack"`
	Count  int64   `json:"count"`
	Weight int64   `json:"weight"`
	Thread string  `json:"thread,omitempty"`
}

// MarshalJSON writes p with each sample's whole stack (the form
// UnmarshalJSON and ReadJSON read).
func (p Profile) MarshalJSON() ([]byte, error) {
	w := wireProfile{Source: p.Source, Unit: p.Unit, PeriodNanos: p.PeriodNanos, Functions: p.Functions, Edges: p.Edges}
	if p.Samples != nil {
		w.Samples = make([]wireSample, len(p.Samples))
	}
	for i, s := range p.Samples {
		if s.Context < 0 || int(s.Context) >= len(p.Contexts) {
			return nil, fmt.Errorf("profile: samples[%d].context: index %d out of range (%d contexts)", i, s.Context, len(p.Contexts))
		}
		var stack []Frame
		if p.Depth(i) > 0 {
			stack = p.Stack(i, nil)
		}
		w.Samples[i] = wireSample{Stack: stack, Count: s.Count, Weight: s.Weight, Thread: p.ThreadName(i)}
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads a profile MarshalJSON wrote, its contexts in
// Build's canonical order, and validates it.
func (p *Profile) UnmarshalJSON(data []byte) error {
	var w wireProfile
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	q, err := fromWire(&w)
	if err != nil {
		return err
	}
	*p = *q
	return nil
}

// WriteJSON writes p as indented JSON (the form ReadJSON reads).
func WriteJSON(w io.Writer, p *Profile) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(p)
}

// ReadJSON reads and validates a profile written by WriteJSON.
func ReadJSON(r io.Reader) (*Profile, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var w wireProfile
	if err := dec.Decode(&w); err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	return fromWire(&w)
}

// fromWire interns w's stacks into a profile's contexts, in Build's
// canonical order, keeping the samples' order, and validates it.
func fromWire(w *wireProfile) (*Profile, error) {
	p := &Profile{Source: w.Source, Unit: w.Unit, PeriodNanos: w.PeriodNanos, Functions: w.Functions, Edges: w.Edges}
	if err := p.validateHead(); err != nil {
		return nil, err
	}
	n := len(p.Functions)
	t := newContextTable()
	ctx := make([]int32, len(w.Samples))
	for i, s := range w.Samples {
		if s.Count < 0 || s.Weight < 0 {
			return nil, fmt.Errorf("profile: samples[%d]: negative count or weight", i)
		}
		for k, f := range s.Stack {
			if f.Func < 0 || int(f.Func) >= n {
				return nil, fmt.Errorf("profile: samples[%d].stack[%d].func: index %d out of range (%d functions)", i, k, f.Func, n)
			}
			if f.Line < 0 {
				return nil, fmt.Errorf("profile: samples[%d].stack[%d].line: %d is negative", i, k, f.Line)
			}
		}
		ctx[i] = t.add(s.Stack)
	}
	var id []int32
	p.Contexts, id = canonicalContexts(t.contexts, FunctionRanks(p.Functions))
	if w.Samples != nil {
		p.Samples = make([]Sample, len(w.Samples))
	}
	threads := map[string]int32{}
	for i, s := range w.Samples {
		th := int32(0)
		if s.Thread != "" {
			var ok bool
			if th, ok = threads[s.Thread]; !ok {
				p.Threads = append(p.Threads, s.Thread)
				th = int32(len(p.Threads))
				threads[s.Thread] = th
			}
		}
		p.Samples[i] = Sample{Context: id[ctx[i]], Thread: th, Count: s.Count, Weight: s.Weight}
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// Validate checks that every index is in range, the contexts form a tree
// (each context's parent before it, its depth its parent's plus one) and
// no count or weight is negative; errors name the field.
func (p *Profile) Validate() error {
	if err := p.validateHead(); err != nil {
		return err
	}
	n := len(p.Functions)
	for c, ctx := range p.Contexts {
		if c == Root {
			if ctx.Parent != -1 || ctx.Depth != 0 {
				return fmt.Errorf("profile: contexts[0]: parent %d, depth %d: not the root (parent -1, depth 0)", ctx.Parent, ctx.Depth)
			}
			continue
		}
		if ctx.Parent < 0 || int(ctx.Parent) >= c {
			return fmt.Errorf("profile: contexts[%d].parent: %d is not an earlier context", c, ctx.Parent)
		}
		if want := p.Contexts[ctx.Parent].Depth + 1; ctx.Depth != want {
			return fmt.Errorf("profile: contexts[%d].depth: %d, not its parent's plus one (%d)", c, ctx.Depth, want)
		}
		if f := ctx.Frame.Func; f < 0 || int(f) >= n {
			return fmt.Errorf("profile: contexts[%d].frame.func: index %d out of range (%d functions)", c, f, n)
		}
		if ctx.Frame.Line < 0 {
			return fmt.Errorf("profile: contexts[%d].frame.line: %d is negative", c, ctx.Frame.Line)
		}
	}
	for i, s := range p.Samples {
		if s.Count < 0 || s.Weight < 0 {
			return fmt.Errorf("profile: samples[%d]: negative count or weight", i)
		}
		if s.Context < 0 || int(s.Context) >= len(p.Contexts) {
			return fmt.Errorf("profile: samples[%d].context: index %d out of range (%d contexts)", i, s.Context, len(p.Contexts))
		}
		if s.Thread < 0 || int(s.Thread) > len(p.Threads) {
			return fmt.Errorf("profile: samples[%d].thread: %d is not 0 or 1 plus an index into threads (%d threads)", i, s.Thread, len(p.Threads))
		}
	}
	for i, e := range p.Edges {
		if e.Caller < 0 || e.Caller >= n {
			return fmt.Errorf("profile: edges[%d].caller: index %d out of range (%d functions)", i, e.Caller, n)
		}
		if e.Callee < 0 || e.Callee >= n {
			return fmt.Errorf("profile: edges[%d].callee: index %d out of range (%d functions)", i, e.Callee, n)
		}
		if e.Weight < 0 || e.Site < 0 {
			return fmt.Errorf("profile: edges[%d]: negative weight or site", i)
		}
	}
	return nil
}

// validateHead checks the unit, the period and the functions' names.
func (p *Profile) validateHead() error {
	switch p.Unit {
	case "nanoseconds", "bytecodes":
	default:
		return fmt.Errorf("profile: unit: %q is not nanoseconds or bytecodes", p.Unit)
	}
	if p.PeriodNanos < 0 {
		return fmt.Errorf("profile: period_nanos: %d is negative", p.PeriodNanos)
	}
	names := map[string]int{}
	for i, f := range p.Functions {
		if f.Name == "" {
			return fmt.Errorf("profile: functions[%d].name: missing", i)
		}
		if strings.Contains(f.Name, FrameSep) {
			return fmt.Errorf("profile: functions[%d].name: %q holds U+001F, the separator of context keys", i, f.Name)
		}
		if fr := f.FoldedName(); fr == "" || strings.ContainsAny(fr, ";\n\r") {
			return fmt.Errorf("profile: functions[%d]: folded frame %q (class and method of %q) is empty or holds ';' or a line break, which folded output cannot carry", i, fr, f.Name)
		}
		if j, dup := names[f.Name]; dup {
			return fmt.Errorf("profile: functions[%d].name: %q duplicates functions[%d]", i, f.Name, j)
		}
		names[f.Name] = i
	}
	return nil
}
