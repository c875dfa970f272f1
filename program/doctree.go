package program

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// The decoders read a workload file into a document tree first — the same
// for YAML and JSON, with the line of every value — and then the program
// from the tree (decode.go). The tree is what lets every error name the
// document path and the line, lets duplicate keys be found in both formats,
// and lets validation errors carry lines.

type nodeKind uint8

const (
	nNull nodeKind = iota
	nScalar
	nMap
	nSeq
)

func (k nodeKind) String() string {
	return [...]string{"nothing", "a value", "a map", "a list"}[k]
}

// scalarType is what a scalar was written as: YAML's resolved tag, or the
// JSON token's type.
type scalarType uint8

const (
	sString scalarType = iota
	sInt
	sFloat
	sBool
)

// node is one value of the document.
type node struct {
	kind nodeKind
	typ  scalarType
	line int32
	// text is a scalar's text: a string's content, a number or boolean as
	// written.
	text string
	// kids are a list's items, or a map's keys and values alternating
	// (keys are scalars).
	kids []node
}

// maxDocDepth bounds how deeply a document may nest: far more than any
// valid program needs (MaxNesting statements, each three levels), and
// little enough that walking the tree never strains the stack.
const maxDocDepth = 1000

// docError is a problem found while reading the document, before any
// program path is known.
type docError struct {
	line    int32
	problem string
}

func (e *docError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.problem) }

var errEmpty = errors.New("empty workload document")

// parseTree reads data in format f into a document tree.
func parseTree(data []byte, f Format) (*node, error) {
	switch f {
	case YAML:
		return parseYAML(data)
	case JSON:
		return parseJSON(data)
	}
	return nil, fmt.Errorf("unknown format %q", f)
}

// ---- YAML ----

// yamlLine finds the line in a yaml.v3 error message ("yaml: line 3: ...").
func yamlError(err error) *docError {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := int32(1)
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if i := strings.IndexByte(rest, ':'); i > 0 {
			if n, err := strconv.Atoi(rest[:i]); err == nil {
				line, msg = int32(n), strings.TrimSpace(rest[i+1:])
			}
		}
	}
	return &docError{line, "YAML syntax: " + msg}
}

func parseYAML(data []byte) (root *node, err error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errEmpty
		}
		return nil, yamlError(err)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, yamlError(err)
	default:
		return nil, &docError{int32(extra.Line), "more than one document; a workload file holds exactly one program"}
	}
	c := &yamlConverter{budget: 10 * countYAML(&doc, 0)}
	if c.budget < 100_000 {
		c.budget = 100_000
	}
	n := &node{}
	if err := c.convert(&doc, n, 0); err != nil {
		return nil, err
	}
	return n, nil
}

// countYAML counts the nodes of a YAML tree, aliases once.
func countYAML(n *yaml.Node, depth int) int {
	if depth > maxDocDepth {
		return 1
	}
	c := 1
	for _, k := range n.Content {
		c += countYAML(k, depth+1)
	}
	return c
}

// yamlConverter turns yaml.v3 nodes into document nodes, expanding aliases
// and merge keys within a budget of nodes (a few aliases can otherwise
// stand for an exponential number of nodes).
type yamlConverter struct {
	budget int
}

func (c *yamlConverter) convert(y *yaml.Node, out *node, depth int) error {
	if depth > maxDocDepth {
		return &docError{int32(y.Line), fmt.Sprintf("nesting deeper than %d levels", maxDocDepth)}
	}
	if c.budget--; c.budget < 0 {
		return &docError{int32(y.Line), "aliases expand to too many values"}
	}
	out.line = int32(y.Line)
	switch y.Kind {
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			return errEmpty
		}
		return c.convert(y.Content[0], out, depth)
	case yaml.AliasNode:
		line := out.line
		if err := c.convert(y.Alias, out, depth+1); err != nil {
			return err
		}
		out.line = line
		return nil
	case yaml.ScalarNode:
		out.kind, out.text = nScalar, y.Value
		switch y.ShortTag() {
		case "!!null":
			out.kind = nNull
		case "!!int":
			out.typ = sInt
		case "!!float":
			out.typ = sFloat
		case "!!bool":
			out.typ = sBool
		}
		return nil
	case yaml.SequenceNode:
		out.kind = nSeq
		out.kids = make([]node, len(y.Content))
		for i, k := range y.Content {
			if err := c.convert(k, &out.kids[i], depth+1); err != nil {
				return err
			}
		}
		return nil
	case yaml.MappingNode:
		out.kind = nMap
		return c.mapping(y, out, depth)
	}
	return &docError{int32(y.Line), "unsupported YAML node"}
}

// mapping converts a YAML mapping: keys are scalars and unique; merge keys
// ("<<: *base") add the merged map's keys that are not given explicitly.
func (c *yamlConverter) mapping(y *yaml.Node, out *node, depth int) error {
	if len(y.Content)%2 != 0 {
		return &docError{int32(y.Line), "malformed mapping"}
	}
	out.kids = make([]node, 0, len(y.Content))
	var merges []*yaml.Node
	for i := 0; i < len(y.Content); i += 2 {
		k, v := y.Content[i], y.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return &docError{int32(k.Line), "a map key must be a plain value"}
		}
		if k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		out.kids = append(out.kids, node{kind: nScalar, line: int32(k.Line), text: k.Value}, node{})
		if err := c.convert(v, &out.kids[len(out.kids)-1], depth+1); err != nil {
			return err
		}
	}
	for _, m := range merges {
		var srcs []*yaml.Node
		switch t := deref(m); t.Kind {
		case yaml.MappingNode:
			srcs = []*yaml.Node{m}
		case yaml.SequenceNode:
			srcs = t.Content
		default:
			return &docError{int32(m.Line), "a merge key (<<) needs a map or a list of maps"}
		}
		for _, s := range srcs {
			if deref(s).Kind != yaml.MappingNode {
				return &docError{int32(s.Line), "a merge key (<<) needs a map or a list of maps"}
			}
			var merged node
			if err := c.convert(s, &merged, depth+1); err != nil {
				return err
			}
			for j := 0; j < len(merged.kids); j += 2 {
				if mapGet(out, merged.kids[j].text) == nil {
					out.kids = append(out.kids, merged.kids[j], merged.kids[j+1])
				}
			}
		}
	}
	return nil
}

func deref(y *yaml.Node) *yaml.Node {
	for i := 0; y.Kind == yaml.AliasNode && y.Alias != nil && i < 100; i++ {
		y = y.Alias
	}
	return y
}

// mapGet returns the value of key in map n, or nil.
func mapGet(n *node, key string) *node {
	for i := 0; i < len(n.kids); i += 2 {
		if n.kids[i].text == key {
			return &n.kids[i+1]
		}
	}
	return nil
}

// ---- JSON ----

// jsonParser is a recursive-descent JSON reader (RFC 8259) that keeps the
// line of every value; strings with escapes are unquoted by encoding/json.
type jsonParser struct {
	data []byte
	pos  int
	line int32
}

func parseJSON(data []byte) (*node, error) {
	p := &jsonParser{data: data, line: 1}
	p.space()
	if p.pos == len(data) {
		return nil, errEmpty
	}
	n := &node{}
	if err := p.value(n, 0); err != nil {
		return nil, err
	}
	p.space()
	if p.pos < len(data) {
		return nil, &docError{p.line, "trailing data after the program object"}
	}
	return n, nil
}

func (p *jsonParser) errorf(format string, args ...any) error {
	return &docError{p.line, "JSON syntax: " + fmt.Sprintf(format, args...)}
}

// unexpected reports the byte at pos.
func (p *jsonParser) unexpected(context string) error {
	if p.pos >= len(p.data) {
		return p.errorf("unexpected end of the document %s", context)
	}
	return p.errorf("invalid character %q %s", p.data[p.pos], context)
}

func (p *jsonParser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case '\n':
			p.line++
		case ' ', '\t', '\r':
		default:
			return
		}
		p.pos++
	}
}

func (p *jsonParser) value(out *node, depth int) error {
	if depth > maxDocDepth {
		return &docError{p.line, fmt.Sprintf("nesting deeper than %d levels", maxDocDepth)}
	}
	p.space()
	out.line = p.line
	if p.pos >= len(p.data) {
		return p.unexpected("looking for a value")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(out, depth)
	case c == '[':
		return p.array(out, depth)
	case c == '"':
		s, err := p.str()
		out.kind, out.typ, out.text = nScalar, sString, s
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number(out)
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if bytes.HasPrefix(p.data[p.pos:], []byte(lit)) {
			p.pos += len(lit)
			if lit == "null" {
				out.kind = nNull
			} else {
				out.kind, out.typ, out.text = nScalar, sBool, lit
			}
			return nil
		}
	}
	return p.unexpected("looking for a value")
}

func (p *jsonParser) object(out *node, depth int) error {
	out.kind = nMap
	p.pos++ // {
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return nil
	}
	for {
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return p.unexpected("looking for an object key")
		}
		line := p.line
		key, err := p.str()
		if err != nil {
			return err
		}
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return p.unexpected("after an object key")
		}
		p.pos++
		out.kids = append(out.kids, node{kind: nScalar, line: line, text: key}, node{})
		if err := p.value(&out.kids[len(out.kids)-1], depth+1); err != nil {
			return err
		}
		p.space()
		if p.pos < len(p.data) && p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.data) && p.data[p.pos] == '}' {
			p.pos++
			return nil
		}
		return p.unexpected("after an object value")
	}
}

func (p *jsonParser) array(out *node, depth int) error {
	out.kind = nSeq
	p.pos++ // [
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return nil
	}
	for {
		out.kids = append(out.kids, node{})
		if err := p.value(&out.kids[len(out.kids)-1], depth+1); err != nil {
			return err
		}
		p.space()
		if p.pos < len(p.data) && p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.data) && p.data[p.pos] == ']' {
			p.pos++
			return nil
		}
		return p.unexpected("after an array element")
	}
}

// str reads a string literal at pos.
func (p *jsonParser) str() (string, error) {
	start := p.pos
	p.pos++ // "
	escaped := false
	for p.pos < len(p.data) {
		switch c := p.data[p.pos]; {
		case c == '"':
			p.pos++
			raw := p.data[start:p.pos]
			if !escaped && utf8.Valid(raw) {
				return string(raw[1 : len(raw)-1]), nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", p.errorf("bad string: %v", err)
			}
			return s, nil
		case c == '\\':
			escaped = true
			p.pos += 2
		case c < 0x20:
			return "", p.errorf("control character %q in a string", c)
		default:
			p.pos++
		}
	}
	return "", p.errorf("unexpected end of the document in a string")
}

// number reads a number literal at pos, checking JSON's grammar.
func (p *jsonParser) number(out *node) error {
	start := p.pos
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.data[p.pos] == '-' {
		p.pos++
	}
	intStart := p.pos
	if digits() == 0 || (p.data[intStart] == '0' && p.pos-intStart > 1) {
		return p.errorf("bad number %q", p.data[start:p.pos])
	}
	typ := sInt
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		typ = sFloat
		if digits() == 0 {
			return p.errorf("bad number %q", p.data[start:p.pos])
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		typ = sFloat
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return p.errorf("bad number %q", p.data[start:p.pos])
		}
	}
	out.kind, out.typ, out.text = nScalar, typ, string(p.data[start:p.pos])
	return nil
}

// ---- scalars ----

// intProblem says why a scalar is not an int64.
type intProblem uint8

const (
	intOK     intProblem = iota
	notInt               // not a number, or not a whole one
	beyondInt            // a whole number beyond int64
)

// integer reads a scalar as an int64: an integer, or a number with no
// fractional part ("1e6", "2.0").
func (n *node) integer() (int64, intProblem) {
	if n.kind != nScalar {
		return 0, notInt
	}
	switch n.typ {
	case sInt:
		v, err := strconv.ParseInt(strings.ReplaceAll(n.text, "_", ""), 0, 64)
		switch {
		case err == nil:
			return v, intOK
		case errors.Is(err, strconv.ErrRange):
			return 0, beyondInt
		}
	case sString:
		// A number too large for a float (YAML leaves "1e400" a string).
		if _, err := strconv.ParseFloat(n.text, 64); errors.Is(err, strconv.ErrRange) {
			return 0, beyondInt
		}
	case sFloat:
		f, ok := n.float()
		switch {
		case !ok || f != math.Trunc(f) || math.IsInf(f, 0):
			return 0, notInt
		case f >= -(1<<63) && f < 1<<63:
			return int64(f), intOK
		default:
			return 0, beyondInt
		}
	}
	return 0, notInt
}

// float reads a numeric scalar; YAML's .inf and .nan included.
func (n *node) float() (float64, bool) {
	if n.kind != nScalar {
		return 0, false
	}
	if n.typ == sString {
		// A number too large for a float (YAML leaves "1e400" a string).
		f, err := strconv.ParseFloat(n.text, 64)
		return f, errors.Is(err, strconv.ErrRange)
	}
	if n.typ != sInt && n.typ != sFloat {
		return 0, false
	}
	switch strings.ToLower(strings.TrimPrefix(n.text, "+")) {
	case ".inf":
		return math.Inf(1), true
	case "-.inf":
		return math.Inf(-1), true
	case ".nan":
		return math.NaN(), true
	}
	plain := strings.ReplaceAll(n.text, "_", "")
	if n.typ == sInt {
		if v, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return float64(v), true
		}
	}
	f, err := strconv.ParseFloat(plain, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, true
}
