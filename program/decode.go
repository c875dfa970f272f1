package program

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/profsim/profsim/internal/nearest"
)

// Format is a workload file's encoding.
type Format string

// Supported formats.
const (
	YAML Format = "yaml"
	JSON Format = "json"
)

// FormatOf guesses a file's format from its extension.
func FormatOf(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		return YAML, nil
	case ".json":
		return JSON, nil
	}
	return "", fmt.Errorf("%s: unknown workload file extension %q (want .yaml, .yml or .json)", path, filepath.Ext(path))
}

// Decode parses data without validating it. Every problem — a syntax
// error, an unknown or repeated key, a value of the wrong type, a number
// that is not an integer or does not fit — is a *ValidationError naming the
// document path and the line, like Validate's; an unknown key comes with
// the nearest valid one.
func Decode(data []byte, f Format) (*Program, error) {
	p, _, err := decodeTree(data, f)
	return p, err
}

// decodeTree decodes data and also returns its document tree, whose lines
// validation errors are given.
func decodeTree(data []byte, f Format) (*Program, *node, error) {
	ms := newMethodStream()
	root, err := parseStream(data, f, ms)
	if err != nil {
		return nil, nil, treeError(err)
	}
	d := &decoder{streamed: ms}
	p := d.program(root)
	if len(d.errs) > 0 {
		return nil, nil, &ValidationError{Errors: d.errs}
	}
	return p, root, nil
}

// treeError is the *ValidationError of a document that did not parse.
func treeError(err error) error {
	if errors.Is(err, errEmpty) {
		return &ValidationError{Errors: []*FieldError{{Problem: err.Error()}}}
	}
	var de *docError
	if errors.As(err, &de) {
		return &ValidationError{Errors: []*FieldError{{Line: int(de.line), Problem: de.problem}}}
	}
	return err
}

// methodStream is the itemSink that decodes each method as the parser
// reads it, so that only one method's document tree is held at a time.
type methodStream struct {
	d       decoder
	methods []Method
}

func newMethodStream() *methodStream {
	s := &methodStream{}
	s.d.path.field("methods")
	return s
}

func (s *methodStream) item(i int, n *node) {
	s.methods = append(s.methods, Method{})
	s.d.path.index(i)
	s.d.method(n, &s.methods[i])
	s.d.path.pop()
}

func (s *methodStream) reset() {
	s.methods, s.d.errs = nil, nil
}

// fullTree is the whole document tree of data, for the lines of
// validation errors: decodeTree's leaves the methods out.
func fullTree(data []byte, f Format, root *node) *node {
	if streamedList(root) == nil {
		return root
	}
	full, err := parseTree(data, f)
	if err != nil {
		return root
	}
	return full
}

// Parse decodes and validates a program.
func Parse(data []byte, f Format) (*Program, error) {
	p, root, err := decodeTree(data, f)
	if err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, withLines(err, fullTree(data, f, root))
	}
	return p, nil
}

// Load reads, decodes and validates a workload file. A program without a
// name is named after the file.
func Load(path string) (*Program, error) {
	f, err := FormatOf(path)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, root, err := decodeTree(data, f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if p.Name == "" {
		p.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, withLines(err, fullTree(data, f, root)))
	}
	return p, nil
}

// EncodeYAML writes p in the format Decode reads.
func EncodeYAML(w io.Writer, p *Program) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(p); err != nil {
		return err
	}
	return enc.Close()
}

// withLines gives each of a validation error's problems the line of the
// document value its path names (or of the nearest enclosing value).
func withLines(err error, root *node) error {
	var ve *ValidationError
	if root == nil || !errors.As(err, &ve) {
		return err
	}
	for _, fe := range ve.Errors {
		if fe.Line == 0 {
			fe.Line = int(lineOf(root, fe.at))
		}
	}
	return err
}

// lineOf follows path through the document as far as it exists.
func lineOf(root *node, path []pathSeg) int32 {
	n := root
	for _, s := range path {
		var next *node
		switch s.kind {
		case segField, segKey:
			if n.kind == nMap {
				next = mapGet(n, s.key)
			}
		case segIndex:
			if n.kind == nSeq && s.index < len(n.kids) {
				next = &n.kids[s.index]
			}
		}
		if next == nil {
			break
		}
		n = next
	}
	return n.line
}

// ---- the decoder: document tree → Program ----

type decoder struct {
	path pathStack
	errs []*FieldError
	// streamed holds the methods the parser streamed (itemSink), with
	// their problems, for the list the tree marks streamed.
	streamed *methodStream
}

// fail records a problem with the value n at the current path.
func (d *decoder) fail(n *node, format string, args ...any) {
	d.errs = append(d.errs, &FieldError{Path: d.path.String(), Line: int(n.line), Problem: fmt.Sprintf(format, args...)})
}

// object walks map n: known keys go to set with the path extended by the
// key; unknown and repeated keys are reported. A null n is an absent
// object.
func (d *decoder) object(n *node, keys []string, set func(key string, v *node)) {
	if n.kind == nNull {
		return
	}
	if n.kind != nMap {
		d.fail(n, "want a map, got %s", n.kind)
		return
	}
	for i := 0; i < len(n.kids); i += 2 {
		k, v := &n.kids[i], &n.kids[i+1]
		if !contains(keys, k.text) {
			d.unknown(k, "key", keys)
			continue
		}
		d.path.field(k.text)
		if first := firstKey(n, i); first != nil {
			d.fail(k, "key repeated (first at line %d)", first.line)
		} else {
			set(k.text, v)
		}
		d.path.pop()
	}
}

// firstKey returns an earlier key of map n equal to key i, or nil. Maps
// of an object have a handful of keys; receiver maps use a set instead.
func firstKey(n *node, i int) *node {
	for j := 0; j < i; j += 2 {
		if n.kids[j].text == n.kids[i].text {
			return &n.kids[j]
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// unknown reports an unknown key k (what: "key", "statement kind") with
// the nearest valid one, or the valid ones.
func (d *decoder) unknown(k *node, what string, valid []string) {
	if s := nearest.Name(k.text, valid); s != "" {
		d.fail(k, "unknown %s %q; did you mean %q?", what, k.text, s)
		return
	}
	d.fail(k, "unknown %s %q; valid %ss: %s", what, k.text, what, strings.Join(valid, ", "))
}

// list walks list n, with the path extended by each index. A null n is
// an empty list.
func (d *decoder) list(n *node, item func(i int, v *node)) {
	if n.kind == nNull {
		return
	}
	if n.kind != nSeq {
		d.fail(n, "want a list, got %s", n.kind)
		return
	}
	for i := range n.kids {
		d.path.index(i)
		item(i, &n.kids[i])
		d.path.pop()
	}
}

func (d *decoder) str(n *node) string {
	switch {
	case n.kind == nNull:
		return ""
	case n.kind != nScalar:
		d.fail(n, "want a string, got %s", n.kind)
		return ""
	}
	return n.text
}

func (d *decoder) boolean(n *node) bool {
	if n.kind == nNull {
		return false
	}
	if n.kind == nScalar && n.typ == sBool {
		return strings.EqualFold(n.text, "true")
	}
	d.fail(n, "%s is not true or false", describe(n))
	return false
}

// describe shows a value in a message: strings quoted, numbers as written.
func describe(n *node) string {
	switch {
	case n.kind != nScalar:
		return n.kind.String()
	case n.typ == sString:
		return strconv.Quote(n.text)
	}
	return n.text
}

// integer reads an integer whose range is r: a value that cannot be held
// is reported with the range (Validate checks the rest).
func (d *decoder) integer(n *node, r intRange) int64 {
	if n.kind == nNull {
		return 0
	}
	x, problem := n.integer()
	switch problem {
	case notInt:
		d.fail(n, "%s is not an integer", describe(n))
	case beyondInt:
		d.fail(n, "%s is not in %s", n.text, r.text)
	}
	return x
}

// intField is integer for a Go int field.
func (d *decoder) intField(n *node, r intRange) int {
	x := d.integer(n, r)
	if int64(int(x)) != x {
		d.fail(n, "%s is not in %s", n.text, r.text)
		return 0
	}
	return int(x)
}

// nanos reads a time: integer nanoseconds, or a Go duration string.
func (d *decoder) nanos(n *node, r intRange) int64 {
	if n.kind == nScalar && n.typ == sString {
		if x, err := strconv.ParseInt(n.text, 10, 64); err == nil {
			return x
		}
		dur, err := time.ParseDuration(n.text)
		if err != nil {
			d.fail(n, "%q is neither an integer (ns) nor a duration like \"5ms\"", n.text)
			return 0
		}
		return int64(dur)
	}
	return d.integer(n, r)
}

// number reads a finite float.
func (d *decoder) number(n *node) float64 {
	if n.kind == nNull {
		return 0
	}
	f, ok := n.float()
	switch {
	case !ok:
		d.fail(n, "%s is not a number", describe(n))
	case math.IsInf(f, 0) || math.IsNaN(f):
		d.fail(n, "%s is not a finite number", n.text)
	}
	return f
}

var (
	programKeys = []string{"name", "description", "methods", "threads", "compile_commands"}
	methodKeys  = []string{"class", "name", "signature", "recursion_limit", "compiled", "traps", "body"}
	threadKeys  = []string{"name", "entry", "count", "start", "daemon"}
	stmtKinds   = []string{"work", "call", "virtual_call", "loop", "branch", "alloc", "block", "native", "stub", "spawn", "throw"}
	workKeys    = []string{"cycles", "bytecodes"}
	callKeys    = []string{"method", "throws", "inline", "every_trip"}
	thrownKeys  = []string{"depth", "times"}
	virtualKeys = []string{"receivers", "inline", "by_caller", "by_depth", "every_trip"}
	loopKeys    = []string{"trips", "body", "uncounted", "runtime_bound"}
	branchKeys  = []string{"probability", "by_caller", "by_depth", "then", "else"}
	allocKeys   = []string{"bytes"}
	blockKeys   = []string{"kind", "duration", "lock", "body"}
	nativeKeys  = []string{"cycles"}
	stubKeys    = []string{"cycles", "name"}
	spawnKeys   = []string{"name", "entry", "count", "daemon", "join"}
	throwKeys   = []string{"depth"}
	distKinds   = []string{"constant", "uniform", "exponential", "normal"}
)

func (d *decoder) program(root *node) *Program {
	p := &Program{}
	if root.kind != nMap {
		d.fail(root, "want a map, got %s", root.kind)
		return p
	}
	d.object(root, programKeys, func(key string, v *node) {
		switch key {
		case "name":
			p.Name = d.str(v)
		case "description":
			p.Description = d.str(v)
		case "methods":
			if v.streamed {
				if len(d.streamed.methods) > 0 {
					p.Methods = d.streamed.methods
				}
				d.errs = append(d.errs, d.streamed.d.errs...)
				break
			}
			if v.kind == nSeq && len(v.kids) > 0 {
				p.Methods = make([]Method, len(v.kids))
			}
			d.list(v, func(i int, m *node) { d.method(m, &p.Methods[i]) })
		case "threads":
			if v.kind == nSeq && len(v.kids) > 0 {
				p.Threads = make([]Thread, len(v.kids))
			}
			d.list(v, func(i int, t *node) { d.thread(t, &p.Threads[i]) })
		case "compile_commands":
			d.list(v, func(_ int, c *node) { p.CompileCommands = append(p.CompileCommands, d.str(c)) })
		}
	})
	return p
}

func (d *decoder) method(n *node, m *Method) {
	d.object(n, methodKeys, func(key string, v *node) {
		switch key {
		case "class":
			m.Class = d.str(v)
		case "name":
			m.Name = d.str(v)
		case "signature":
			m.Signature = d.str(v)
		case "recursion_limit":
			m.RecursionLimit = d.intField(v, rangeDepth)
		case "compiled":
			m.Compiled = d.boolean(v)
		case "traps":
			m.Traps = d.boolean(v)
		case "body":
			m.Body = d.stmts(v)
		}
	})
}

func (d *decoder) thread(n *node, t *Thread) {
	t.Count = 1
	d.object(n, threadKeys, func(key string, v *node) {
		switch key {
		case "name":
			t.Name = d.str(v)
		case "entry":
			t.Entry = d.str(v)
		case "count":
			if v.kind != nNull {
				t.Count = d.intField(v, rangeCount)
			}
		case "start":
			t.Start = Duration(d.nanos(v, rangeNanos))
		case "daemon":
			t.Daemon = d.boolean(v)
		}
	})
}

// stmts reads a statement list; an empty one is nil, like an absent one,
// so a program encodes the same however its empty lists were written.
func (d *decoder) stmts(n *node) []Stmt {
	var out []Stmt
	if n.kind == nSeq && len(n.kids) > 0 {
		out = make([]Stmt, len(n.kids))
	}
	d.list(n, func(i int, s *node) { d.stmt(s, &out[i]) })
	return out
}

func (d *decoder) stmt(n *node, s *Stmt) {
	if n.kind == nNull {
		return // an empty statement: Validate says so
	}
	if n.kind != nMap {
		d.fail(n, "want a map with one statement kind (%s), got %s", strings.Join(stmtKinds, ", "), n.kind)
		return
	}
	for i := 0; i < len(n.kids); i += 2 {
		k, v := &n.kids[i], &n.kids[i+1]
		if !contains(stmtKinds, k.text) {
			d.unknown(k, "statement kind", stmtKinds)
			continue
		}
		d.path.field(k.text)
		if first := firstKey(n, i); first != nil {
			d.fail(k, "key repeated (first at line %d)", first.line)
		} else {
			d.kind(k.text, v, s)
		}
		d.path.pop()
	}
}

// kind decodes one statement kind's fields; a null value is the kind
// with every field absent, which Validate then reports.
func (d *decoder) kind(kind string, n *node, s *Stmt) {
	switch kind {
	case "work":
		w := &Work{}
		s.Work = w
		d.object(n, workKeys, func(key string, v *node) {
			if key == "cycles" {
				w.Cycles = d.integer(v, rangeCycles)
			} else {
				w.Bytecodes = d.integer(v, rangeBytecodes)
			}
		})
	case "call":
		c := &Call{}
		s.Call = c
		d.object(n, callKeys, func(key string, v *node) {
			switch key {
			case "method":
				c.Method = d.str(v)
				return
			case "inline":
				b := d.boolean(v)
				c.Inline = &b
				return
			case "every_trip":
				c.EveryTrip = d.boolean(v)
				return
			}
			t := &Thrown{}
			c.Throws = t
			d.object(v, thrownKeys, func(key string, v *node) {
				if key == "depth" {
					t.Depth = d.intField(v, rangeDepth)
				} else {
					t.Times = d.number(v)
				}
			})
		})
	case "virtual_call":
		vc := &VirtualCall{}
		s.VirtualCall = vc
		d.object(n, virtualKeys, func(key string, v *node) {
			switch key {
			case "receivers":
				vc.Receivers = d.receivers(v)
			case "inline":
				vc.Inline = d.decisions(v)
			case "by_caller":
				vc.ByCaller = decodeMap(d, v, "method → receiver weights", d.receivers)
			case "by_depth":
				d.list(v, func(_ int, w *node) { vc.ByDepth = append(vc.ByDepth, d.receivers(w)) })
			case "every_trip":
				vc.EveryTrip = d.boolean(v)
			}
		})
	case "loop":
		l := &Loop{}
		s.Loop = l
		d.object(n, loopKeys, func(key string, v *node) {
			switch key {
			case "trips":
				l.Trips = d.dist(v, false)
			case "body":
				l.Body = d.stmts(v)
			case "uncounted":
				l.Uncounted = d.boolean(v)
			case "runtime_bound":
				l.RuntimeBound = d.boolean(v)
			}
		})
	case "branch":
		b := &Branch{}
		s.Branch = b
		d.object(n, branchKeys, func(key string, v *node) {
			switch key {
			case "probability":
				b.Probability = d.number(v)
			case "by_caller":
				b.ByCaller = decodeMap(d, v, "method → probability", d.number)
			case "by_depth":
				d.list(v, func(_ int, p *node) { b.ByDepth = append(b.ByDepth, d.number(p)) })
			case "then":
				b.Then = d.stmts(v)
			case "else":
				b.Else = d.stmts(v)
			}
		})
	case "alloc":
		a := &Alloc{}
		s.Alloc = a
		d.object(n, allocKeys, func(_ string, v *node) { a.Bytes = d.integer(v, rangeBytes) })
	case "block":
		b := &Block{}
		s.Block = b
		d.object(n, blockKeys, func(key string, v *node) {
			switch key {
			case "kind":
				b.Kind = d.str(v)
			case "duration":
				b.Duration = d.dist(v, true)
			case "lock":
				b.Lock = d.str(v)
			case "body":
				b.Body = d.stmts(v)
			}
		})
	case "native":
		nt := &Native{}
		s.Native = nt
		d.object(n, nativeKeys, func(_ string, v *node) { nt.Cycles = d.integer(v, rangeCycles) })
	case "stub":
		sb := &Stub{}
		s.Stub = sb
		d.object(n, stubKeys, func(key string, v *node) {
			switch key {
			case "cycles":
				sb.Cycles = d.integer(v, rangeCycles)
			case "name":
				sb.Name = d.str(v)
			}
		})
	case "spawn":
		sp := &Spawn{Count: 1}
		s.Spawn = sp
		d.object(n, spawnKeys, func(key string, v *node) {
			switch key {
			case "name":
				sp.Name = d.str(v)
			case "entry":
				sp.Entry = d.str(v)
			case "count":
				if v.kind != nNull {
					sp.Count = d.intField(v, rangeCount)
				}
			case "daemon":
				sp.Daemon = d.boolean(v)
			case "join":
				sp.Join = d.boolean(v)
			}
		})
	case "throw":
		t := &Throw{}
		s.Throw = t
		d.object(n, throwKeys, func(_ string, v *node) { t.Depth = d.intField(v, rangeDepth) })
	}
}

// receivers reads a virtual call's receivers: a map of method → weight.
func (d *decoder) receivers(n *node) map[string]float64 {
	return decodeMap(d, n, "method → weight", d.number)
}

// decisions reads a virtual call's inlining decisions: a map of
// receiver → true or false.
func (d *decoder) decisions(n *node) map[string]bool {
	return decodeMap(d, n, "method → true or false", d.boolean)
}

// decodeMap reads a map of method → value (want names the map in an
// error), each key once.
func decodeMap[V any](d *decoder, n *node, want string, value func(*node) V) map[string]V {
	if n.kind == nNull {
		return nil
	}
	if n.kind != nMap {
		d.fail(n, "want a map of %s, got %s", want, n.kind)
		return nil
	}
	out := make(map[string]V, len(n.kids)/2)
	lines := make(map[string]int32, len(n.kids)/2)
	for i := 0; i < len(n.kids); i += 2 {
		k, v := &n.kids[i], &n.kids[i+1]
		d.path.key(k.text)
		if first, dup := lines[k.text]; dup {
			d.fail(k, "key repeated (first at line %d)", first)
		} else {
			lines[k.text] = k.line
			out[k.text] = value(v)
		}
		d.path.pop()
	}
	return out
}

// dist reads a distribution: a plain value (a constant) or a map with one
// key. Times (durations) also take Go duration strings.
func (d *decoder) dist(n *node, isTime bool) *Dist {
	r := rangeTrips
	if isTime {
		r = rangeNanos
	}
	value := func(v *node, r intRange) int64 {
		if isTime {
			return d.nanos(v, r)
		}
		return d.integer(v, r)
	}
	switch n.kind {
	case nNull:
		return nil
	case nScalar:
		return &Dist{Kind: Constant, A: value(n, r)}
	case nSeq:
		d.fail(n, "want a value or a map with one of %s, got a list", strings.Join(distKinds, ", "))
		return nil
	}
	if len(n.kids) != 2 {
		d.fail(n, "a distribution has exactly one of %s (got %d keys)", strings.Join(distKinds, ", "), len(n.kids)/2)
		return nil
	}
	k, v := &n.kids[0], &n.kids[1]
	if !contains(distKinds, k.text) {
		if s := nearest.Name(k.text, distKinds); s != "" {
			d.fail(k, "unknown distribution %q; did you mean %q?", k.text, s)
		} else {
			d.fail(k, "unknown distribution %q; valid: %s", k.text, strings.Join(distKinds, ", "))
		}
		return nil
	}
	d.path.field(k.text)
	defer d.path.pop()
	switch k.text {
	case "constant":
		return &Dist{Kind: Constant, A: value(v, r)}
	case "exponential":
		return &Dist{Kind: Exponential, A: value(v, rangeMean)}
	}
	if v.kind != nSeq || len(v.kids) != 2 {
		d.fail(v, "want a list of two values, [%s]", map[string]string{"uniform": "min, max", "normal": "mean, stddev"}[k.text])
		return nil
	}
	dist := &Dist{Kind: Uniform}
	if k.text == "normal" {
		dist.Kind = Normal
	}
	d.path.index(0)
	dist.A = value(&v.kids[0], r)
	d.path.pop()
	d.path.index(1)
	dist.B = value(&v.kids[1], r)
	d.path.pop()
	return dist
}

// ---- paths ----

type segKind uint8

const (
	segField segKind = iota // .name
	segIndex                // [3]
	segKey                  // [A.f]: a key that is data, not a field
)

type pathSeg struct {
	kind  segKind
	index int
	key   string
}

// pathStack is the document path of the value being read or checked,
// formatted only when a problem is reported.
type pathStack []pathSeg

func (p *pathStack) field(name string) { *p = append(*p, pathSeg{kind: segField, key: name}) }
func (p *pathStack) index(i int)       { *p = append(*p, pathSeg{kind: segIndex, index: i}) }
func (p *pathStack) key(k string)      { *p = append(*p, pathSeg{kind: segKey, key: k}) }
func (p *pathStack) pop()              { *p = (*p)[:len(*p)-1] }

// String is "methods[3].body[1].loop.trips"; the root is "(top level)".
func (p pathStack) String() string {
	if len(p) == 0 {
		return "(top level)"
	}
	var b strings.Builder
	for i, s := range p {
		switch s.kind {
		case segField:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.key)
		case segIndex:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
		case segKey:
			b.WriteByte('[')
			b.WriteString(s.key)
			b.WriteByte(']')
		}
	}
	return b.String()
}
