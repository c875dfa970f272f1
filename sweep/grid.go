// Package sweep runs a grid of simulation runs: the points of a parameter
// grid, in parallel, resumable and shardable across machines.
//
// The core is I/O-free: a Grid (decoded from YAML by Parse) expands into
// Points; Execute runs Jobs made from them on a pool of workers and hands
// each finished run's Record to a callback in one goroutine. What a point's
// settings mean — how they become a run, its key and its result — is the
// caller's: `profsim sweep` turns them into `profsim run` flags, a Go
// program may build a harness.Config. The file layer (Store: results.jsonl
// and the manifest) sits on top.
package sweep

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/profsim/profsim/internal/nearest"
)

// Value is a setting's value: one string, or several for a repeatable
// setting (a list of samplers, say).
type Value []string

// String is the value as written in tables: its strings joined by ';'.
func (v Value) String() string { return strings.Join(v, ";") }

// Setting is one named setting of a run.
type Setting struct {
	Name  string
	Value Value
	// Path locates the setting's value in the grid file (run["duration"],
	// grid["seed"][3]), NamePath its name (run["duration"], grid["seed"]),
	// and Line is the value's line there (0: not from a file).
	Path, NamePath string
	Line           int
}

// Axis is one dimension of the grid: one setting, or several that vary
// together (zip).
type Axis struct {
	// Names are the settings the axis sets.
	Names []string
	// Paths[j] locates Names[j] in the grid file.
	Paths []string
	// members[j] are Names[j]'s levels, all of one length.
	members []levels
}

// Len is the axis's number of levels.
func (a *Axis) Len() int {
	if len(a.members) == 0 {
		return 0
	}
	return a.members[0].len()
}

// Setting is Names[j] at the axis's level i (0 ≤ i < Len), with the grid
// path and line of its value.
func (a *Axis) Setting(i, j int) Setting {
	v, path, line := a.members[j].at(i)
	return Setting{Name: a.Names[j], Value: v, Path: path, NamePath: a.Paths[j], Line: line}
}

// IsRange says every member's levels are an integer range a..b: single
// integers, made on demand rather than held.
func (a *Axis) IsRange() bool {
	for _, m := range a.members {
		if !m.isRange {
			return false
		}
	}
	return len(a.members) > 0
}

// Grid is a sweep: fixed settings and the axes whose cross product are the
// points.
type Grid struct {
	Name string
	// Run are the settings every point has, in file order.
	Run []Setting
	// Axes are crossed in order, the first varying slowest: grid axes in
	// file order, then the zip groups in file order.
	Axes []Axis
}

// MaxPoints bounds a grid's size: beyond it a grid is almost surely a
// mistake (an axis range typed with one digit too many), and its point
// list would not fit in memory.
const MaxPoints = 10_000_000

// maxRange bounds an a..b range's length, for the same reason.
const maxRange = 1_000_000

// Size is the number of points: the product of the axes' level counts.
func (g *Grid) Size() int {
	n := 1
	for _, a := range g.Axes {
		n *= a.Len()
	}
	return n
}

// Coord is one axis setting's value at a point.
type Coord struct {
	Name  string
	Value Value
}

// Point is one run of the grid.
type Point struct {
	// Index is the point's position in grid order, from 0.
	Index int
	// Coords are the axes' values, in axis order (a zip group gives one
	// coord per member).
	Coords []Coord
	// Settings are the run's settings: Run with the coords applied (a
	// coord replaces a run setting of its name; others follow in axis
	// order). Each carries the grid path it came from.
	Settings []Setting
}

// Point is the grid's point i (0 ≤ i < Size): the mixed-radix digits of i,
// the last axis varying fastest.
func (g *Grid) Point(i int) Point {
	if i < 0 || i >= g.Size() {
		panic(fmt.Sprintf("sweep: point %d of a %d-point grid", i, g.Size()))
	}
	p := Point{Index: i, Settings: append([]Setting(nil), g.Run...)}
	level := make([]int, len(g.Axes))
	rest := i
	for a := len(g.Axes) - 1; a >= 0; a-- {
		n := g.Axes[a].Len()
		level[a], rest = rest%n, rest/n
	}
	for a := range g.Axes {
		ax := &g.Axes[a]
		l := level[a]
		for j, name := range ax.Names {
			s := ax.Setting(l, j)
			p.Coords = append(p.Coords, Coord{Name: name, Value: s.Value})
			replaced := false
			for k := range p.Settings {
				if p.Settings[k].Name == name {
					p.Settings[k], replaced = s, true
				}
			}
			if !replaced {
				p.Settings = append(p.Settings, s)
			}
		}
	}
	return p
}

// Stride is how far apart in point index two successive levels of axis
// a are: the product of the later axes' level counts.
func (g *Grid) Stride(a int) int {
	n := 1
	for _, ax := range g.Axes[a+1:] {
		n *= ax.Len()
	}
	return n
}

// Points are all the grid's points, in order.
func (g *Grid) Points() []Point {
	out := make([]Point, g.Size())
	for i := range out {
		out[i] = g.Point(i)
	}
	return out
}

// Digest identifies the grid's definition: the SHA-256 (hex) of its run
// settings and its axes, names and values in order, a range as a..b —
// not its name, file paths or lines. Two grids of equal digest have the
// same points with the same settings.
func (g *Grid) Digest() string {
	h := sha256.New()
	w := bufio.NewWriter(h)
	str := func(s string) { fmt.Fprintf(w, "%d:%s", len(s), s) }
	val := func(v Value) {
		fmt.Fprintf(w, "[%d", len(v))
		for _, s := range v {
			str(s)
		}
	}
	fmt.Fprintf(w, "run %d", len(g.Run))
	for _, s := range g.Run {
		str(s.Name)
		val(s.Value)
	}
	fmt.Fprintf(w, "axes %d", len(g.Axes))
	for _, a := range g.Axes {
		fmt.Fprintf(w, "names %d", len(a.Names))
		for _, n := range a.Names {
			str(n)
		}
		fmt.Fprintf(w, "levels %d", a.Len())
		for _, m := range a.members {
			if m.isRange { // as written: a..b, not its levels
				fmt.Fprintf(w, "range %d %d", m.lo, m.n)
				continue
			}
			for _, v := range m.levels {
				val(v)
			}
		}
	}
	w.Flush()
	return hex.EncodeToString(h.Sum(nil))
}

// AxisNames are the names of every axis setting, in axis order: the
// coordinates' columns in a table.
func (g *Grid) AxisNames() []string {
	var out []string
	for _, a := range g.Axes {
		out = append(out, a.Names...)
	}
	return out
}

// Parse decodes a grid file:
//
//	name: interval-vs-bias
//	run:                       # settings every point has
//	  duration: 500ms
//	  sampler: [truth, safepoint]
//	grid:                      # crossed, the first axis varying slowest
//	  workload: [hotcold, callpair]
//	  safepoint.interval: [1ms, 10ms]
//	  seed: 1..3               # an inclusive integer range
//	zip:                       # axes that vary together: equal lengths
//	  cpus: [1, 2]
//	  workload: [a, b]
//
// zip may also be a list of such groups. A setting's value is a scalar or
// a list of scalars (a repeatable setting); an axis's levels are a list
// whose items are values, or a range. file names the grid in errors.
// Setting names are not checked here: what they mean is the caller's.
func Parse(file string, data []byte) (*Grid, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	err := dec.Decode(&doc)
	if errors.Is(err, io.EOF) || err == nil && len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: empty grid file (want name, run, grid or zip)", file)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	var extra yaml.Node
	if dec.Decode(&extra) == nil {
		return nil, fmt.Errorf("%s:%d: a second YAML document; a grid file holds one", file, extra.Line)
	}
	top := doc.Content[0]
	p := parser{file: file}
	if top.Kind != yaml.MappingNode {
		return nil, p.errorf(top, "", "a grid file is a mapping with name, run, grid and zip")
	}
	g := &Grid{}
	seen := map[string]bool{}
	for i := 0; i < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if seen[k.Value] {
			return nil, p.errorf(k, k.Value, "given twice")
		}
		seen[k.Value] = true
		var err error
		switch k.Value {
		case "name":
			g.Name, err = p.scalar(v, "name")
		case "run":
			g.Run, err = p.settings(v, "run")
		case "grid":
			err = p.mapping(v, "grid", func(name string, nk, nv *yaml.Node) error {
				ax, err := p.axis(nv, fmt.Sprintf("grid[%q]", name))
				if err != nil {
					return err
				}
				g.Axes = append(g.Axes, Axis{Names: []string{name}, Paths: []string{fmt.Sprintf("grid[%q]", name)}, members: []levels{ax}})
				return nil
			})
		case "zip":
			err = p.zip(v, g)
		default:
			return nil, p.errorf(k, k.Value, "unknown section%s (want name, run, grid, zip)", suggest(k.Value, []string{"name", "run", "grid", "zip"}))
		}
		if err != nil {
			return nil, err
		}
	}
	names := map[string]string{}
	for _, a := range g.Axes {
		for j, n := range a.Names {
			if prev, dup := names[n]; dup {
				return nil, fmt.Errorf("%s: %s: axis %q is also %s (an axis varies once)", file, a.Paths[j], n, prev)
			}
			names[n] = a.Paths[j]
		}
	}
	size := 1.0
	for _, a := range g.Axes {
		size *= float64(a.Len())
	}
	if size > MaxPoints {
		return nil, fmt.Errorf("%s: the grid has %.0f points, more than the %d a sweep takes", file, size, MaxPoints)
	}
	return g, nil
}

type parser struct{ file string }

// errorf is an error at node n, named by its grid path.
func (p parser) errorf(n *yaml.Node, path, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if path != "" {
		msg = path + ": " + msg
	}
	return fmt.Errorf("%s:%d: %s", p.file, n.Line, msg)
}

func (p parser) scalar(n *yaml.Node, path string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", p.errorf(n, path, "want a single value")
	}
	if n.Tag == "!!null" {
		return "", p.errorf(n, path, "empty value")
	}
	return n.Value, nil
}

// value is a scalar or a flat list of scalars.
func (p parser) value(n *yaml.Node, path string) (Value, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		s, err := p.scalar(n, path)
		return Value{s}, err
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			return nil, p.errorf(n, path, "empty list")
		}
		var v Value
		for i, c := range n.Content {
			s, err := p.scalar(c, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			v = append(v, s)
		}
		return v, nil
	}
	return nil, p.errorf(n, path, "want a value or a list of values")
}

// mapping calls fn for each key of a mapping node, in order, rejecting
// duplicate keys.
func (p parser) mapping(n *yaml.Node, path string, fn func(name string, k, v *yaml.Node) error) error {
	if n.Kind != yaml.MappingNode {
		return p.errorf(n, path, "want a mapping of setting names to values")
	}
	seen := map[string]bool{}
	for i := 0; i < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		name := k.Value
		if k.Kind != yaml.ScalarNode || name == "" {
			return p.errorf(k, path, "a setting name must be a non-empty string")
		}
		if seen[name] {
			return p.errorf(k, fmt.Sprintf("%s[%q]", path, name), "given twice")
		}
		seen[name] = true
		if err := fn(name, k, v); err != nil {
			return err
		}
	}
	return nil
}

func (p parser) settings(n *yaml.Node, path string) ([]Setting, error) {
	var out []Setting
	err := p.mapping(n, path, func(name string, k, v *yaml.Node) error {
		sp := fmt.Sprintf("%s[%q]", path, name)
		val, err := p.value(v, sp)
		if err != nil {
			return err
		}
		out = append(out, Setting{Name: name, Value: val, Path: sp, NamePath: sp, Line: v.Line})
		return nil
	})
	return out, err
}

// levels are one setting's levels along an axis: a list, or a range
// lo..lo+n-1 at path and line, its levels made on demand (a range of 10⁶
// seeds holds no 10⁶ strings).
type levels struct {
	levels []Value
	paths  []string
	lines  []int

	isRange bool
	lo      int64
	n       int
	path    string
	line    int
}

func (l *levels) len() int {
	if l.isRange {
		return l.n
	}
	return len(l.levels)
}

// at is level i's value, grid path and line.
func (l *levels) at(i int) (Value, string, int) {
	if l.isRange {
		return Value{strconv.FormatInt(l.lo+int64(i), 10)}, fmt.Sprintf("%s[%d]", l.path, i), l.line
	}
	return l.levels[i], l.paths[i], l.lines[i]
}

// axis reads an axis's levels: a list of values, or a range a..b.
func (p parser) axis(n *yaml.Node, path string) (levels, error) {
	var l levels
	switch n.Kind {
	case yaml.ScalarNode:
		lo, hi, ok, err := parseRange(n.Value)
		if err != nil {
			return l, p.errorf(n, path, "%v", err)
		}
		if !ok {
			return l, p.errorf(n, path, "want a list of levels or a range a..b, not the single value %q (a fixed setting goes under run)", n.Value)
		}
		l.isRange, l.lo, l.n, l.path, l.line = true, lo, int(hi-lo+1), path, n.Line
		return l, nil
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			return l, p.errorf(n, path, "no levels")
		}
		for i, c := range n.Content {
			lp := fmt.Sprintf("%s[%d]", path, i)
			v, err := p.value(c, lp)
			if err != nil {
				return l, err
			}
			l.levels = append(l.levels, v)
			l.paths = append(l.paths, lp)
			l.lines = append(l.lines, c.Line)
		}
		return l, nil
	}
	return l, p.errorf(n, path, "want a list of levels or a range a..b")
}

// parseRange reads "a..b", integers a ≤ b; ok is false for text that is
// not a range at all.
func parseRange(s string) (lo, hi int64, ok bool, err error) {
	a, b, found := strings.Cut(s, "..")
	if !found {
		return 0, 0, false, nil
	}
	lo, err1 := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
	hi, err2 := strconv.ParseInt(strings.TrimSpace(b), 10, 64)
	switch {
	case err1 != nil || err2 != nil:
		return 0, 0, true, fmt.Errorf("range %q: want integers a..b", s)
	case lo > hi:
		return 0, 0, true, fmt.Errorf("range %q: %d > %d", s, lo, hi)
	case hi-lo >= maxRange || hi-lo < 0:
		return 0, 0, true, fmt.Errorf("range %q: more than %d levels", s, maxRange)
	case hi == math.MaxInt64:
		return 0, 0, true, fmt.Errorf("range %q: upper end too large", s)
	}
	return lo, hi, true, nil
}

// zip reads one group (a mapping) or a list of groups.
func (p parser) zip(n *yaml.Node, g *Grid) error {
	groups := []*yaml.Node{n}
	paths := []string{"zip"}
	if n.Kind == yaml.SequenceNode {
		groups, paths = n.Content, nil
		for i := range groups {
			paths = append(paths, fmt.Sprintf("zip[%d]", i))
		}
	}
	for gi, gn := range groups {
		ax := Axis{}
		var first string
		err := p.mapping(gn, paths[gi], func(name string, k, v *yaml.Node) error {
			path := fmt.Sprintf("%s[%q]", paths[gi], name)
			l, err := p.axis(v, path)
			if err != nil {
				return err
			}
			if len(ax.Names) == 0 {
				first = name
			} else if l.len() != ax.Len() {
				return p.errorf(v, path, "%d levels, but %q has %d: zipped axes vary together and need equal lengths", l.len(), first, ax.Len())
			}
			ax.Names = append(ax.Names, name)
			ax.Paths = append(ax.Paths, path)
			ax.members = append(ax.members, l)
			return nil
		})
		if err != nil {
			return err
		}
		if len(ax.Names) == 0 {
			return p.errorf(gn, paths[gi], "an empty zip group")
		}
		g.Axes = append(g.Axes, ax)
	}
	return nil
}

// Suggest is " (did you mean \"X\"?)" for the valid name nearest to name, or ""
// if none is near.
func Suggest(name string, valid []string) string { return suggest(name, valid) }

func suggest(name string, valid []string) string {
	best := nearest.Name(name, valid)
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}
