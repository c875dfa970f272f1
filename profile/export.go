package profile

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
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
	for _, s := range p.Samples {
		// Split the root-first stack into physical frames.
		var groups [][]Frame
		for _, f := range s.Stack {
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
				key.WriteString(strconv.Itoa(f.Func) + ":" + strconv.Itoa(f.Line) + ";")
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
		if s.Thread != "" {
			ps.Label = map[string][]string{"thread": {s.Thread}}
		}
		out.Sample = append(out.Sample, ps)
	}
	if err := out.CheckValid(); err != nil {
		return nil, fmt.Errorf("profile: pprof conversion: %w", err)
	}
	return out, nil
}

// WritePprof writes p as a gzip-compressed pprof protobuf, readable by
// `go tool pprof`.
func WritePprof(w io.Writer, p *Profile) error {
	pp, err := ToPprof(p)
	if err != nil {
		return err
	}
	return pp.Write(w)
}

// WriteFolded writes p in the folded-stack format of flame-graph tools:
// one "root;…;leaf weight" line per calling context, sorted.
func WriteFolded(w io.Writer, p *Profile) error {
	if err := p.Validate(); err != nil {
		return err
	}
	ctx := p.ContextWeights()
	keys := make([]string, 0, len(ctx))
	for k := range ctx {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "" {
			continue
		}
		if _, err := fmt.Fprintf(w, "%s %d\n", k, int64(ctx[k])); err != nil {
			return err
		}
	}
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
	var p Profile
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Validate checks that every index is in range and no count or weight is
// negative; errors name the field.
func (p *Profile) Validate() error {
	n := len(p.Functions)
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
		if j, dup := names[f.Name]; dup {
			return fmt.Errorf("profile: functions[%d].name: %q duplicates functions[%d]", i, f.Name, j)
		}
		names[f.Name] = i
	}
	for i, s := range p.Samples {
		if s.Count < 0 || s.Weight < 0 {
			return fmt.Errorf("profile: samples[%d]: negative count or weight", i)
		}
		for k, f := range s.Stack {
			if f.Func < 0 || f.Func >= n {
				return fmt.Errorf("profile: samples[%d].stack[%d].func: index %d out of range (%d functions)", i, k, f.Func, n)
			}
			if f.Line < 0 {
				return fmt.Errorf("profile: samples[%d].stack[%d].line: %d is negative", i, k, f.Line)
			}
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
