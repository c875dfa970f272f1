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
// and lets validation errors carry lines. The top-level list of methods is
// read one method at a time (itemSink), so that a large program's tree is
// never held whole.

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
	// streamed marks the top-level methods list whose items the parser
	// gave to an itemSink one at a time instead of keeping them in kids.
	streamed bool
}

// itemSink receives the items of the top-level "methods" list, in order,
// as the parser reads them, so that a large program's document tree never
// exists whole: each item's tree lives only during the call. reset undoes
// every item given so far (the parser then reads the document again,
// keeping the items in the tree).
type itemSink interface {
	item(i int, n *node)
	reset()
}

// collector is the itemSink that keeps the items, for the whole tree.
type collector struct{ items []node }

func (c *collector) item(_ int, n *node) { c.items = append(c.items, *n) }
func (c *collector) reset()              { c.items = nil }

// streamedList returns the value of root's streamed methods list, or nil.
func streamedList(root *node) *node {
	if root == nil || root.kind != nMap {
		return nil
	}
	for i := 1; i < len(root.kids); i += 2 {
		if root.kids[i].streamed {
			return &root.kids[i]
		}
	}
	return nil
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
	c := &collector{}
	root, err := parseStream(data, f, c)
	if err != nil {
		return nil, err
	}
	if l := streamedList(root); l != nil {
		l.kids, l.streamed = c.items, false
	}
	return root, nil
}

// parseStream reads data in format f into a document tree, giving the
// items of the top-level methods list to sink when it can: the tree then
// holds that list as a node with streamed set and no kids.
func parseStream(data []byte, f Format, sink itemSink) (*node, error) {
	switch f {
	case YAML:
		if root, ok := parseYAMLChunks(data, sink); ok {
			return root, nil
		}
		sink.reset()
		return parseYAML(data)
	case JSON:
		return parseJSONStream(data, sink)
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
	doc, err := yamlDocument(data)
	if err != nil {
		return nil, err
	}
	c := &yamlConverter{budget: aliasBudget}
	n := &node{}
	if err := c.piece(doc, n, 0); err != nil {
		return nil, err
	}
	return n, nil
}

// yamlDocument reads data's one YAML document.
func yamlDocument(data []byte) (*yaml.Node, error) {
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
	return &doc, nil
}

// aliasBudget is how many values aliases may add to a document besides
// ten per value written: a document of n values converts to at most
// aliasBudget + 10n nodes, however its aliases nest.
const aliasBudget = 100_000

// piece converts doc, one document read whole or one piece of it (a
// chunk), whose first line is line lineOffset+1 of the file, within the
// budget, which grows by ten nodes per value of doc.
func (c *yamlConverter) piece(doc *yaml.Node, out *node, lineOffset int32) error {
	c.budget += 10 * countYAML(doc, 0)
	c.lineOffset = lineOffset
	return c.convert(doc, out, 0)
}

// parseYAMLChunks reads a document whose top level is a block map with a
// block list of methods ("methods:" alone on its line at column 0, then
// items "- ..." at one indentation) one method at a time: the methods'
// lines are cut into one chunk per item, each parsed by itself and given
// to sink, and the rest of the document (the skeleton: the methods'
// lines left blank) is parsed as the root. yaml.v3 holds a whole
// document's tree of yaml.Nodes, 150 bytes a value before its strings,
// so a document of 10⁶ statements parsed whole holds gigabytes; this
// way it holds one method's at a time.
//
// Cutting by lines is exact only when no construct spans the cuts: a
// quoted or flow value running past an item's end, an alias to an anchor
// of another item, a tag handle declared at the top. Each of those makes
// a chunk or the skeleton fail to parse alone, or leaves the skeleton
// without the methods key at its line; ok is then false, with whatever
// was given to sink to be reset, and the document must be read whole.
func parseYAMLChunks(data []byte, sink itemSink) (root *node, ok bool) {
	cuts, keyLine, ok := methodChunks(data)
	if !ok {
		return nil, false
	}
	first, end := cuts[0].start, cuts[len(cuts)-1].end
	skeleton := make([]byte, 0, first+(len(data)-end)+int(cuts[len(cuts)-1].line-cuts[0].line)+1)
	skeleton = append(skeleton, data[:first]...)
	skeleton = append(skeleton, bytes.Repeat([]byte{'\n'}, bytes.Count(data[first:end], []byte{'\n'}))...)
	skeleton = append(skeleton, data[end:]...)
	doc, err := yamlDocument(skeleton)
	if err != nil {
		return nil, false
	}
	c := &yamlConverter{budget: aliasBudget}
	root = &node{}
	if c.piece(doc, root, 0) != nil || root.kind != nMap {
		return nil, false
	}
	var list *node
	for i := 0; i < len(root.kids); i += 2 {
		if k := &root.kids[i]; k.text == "methods" && k.line == keyLine {
			list = &root.kids[i+1]
		}
	}
	if list == nil || list.kind != nNull {
		return nil, false
	}
	*list = node{kind: nSeq, line: cuts[0].line, streamed: true}
	for i, cut := range cuts {
		doc, err := yamlDocument(data[cut.start:cut.end])
		if err != nil {
			return nil, false
		}
		var seq node
		if c.piece(doc, &seq, cut.line-1) != nil || seq.kind != nSeq || len(seq.kids) != 1 {
			return nil, false
		}
		sink.item(i, &seq.kids[0])
	}
	return root, true
}

// chunk is one item of the methods list: data[start:end], from line line.
type chunk struct {
	start, end int
	line       int32
}

// methodChunks finds the items of the methods list of a document laid
// out as parseYAMLChunks reads, and the line of its "methods:" key.
func methodChunks(data []byte) (cuts []chunk, keyLine int32, ok bool) {
	if otherBreaks(data) {
		return nil, 0, false // its lines are not those counted here
	}
	indent := -1 // the items' indentation, once the first is found
	inList := false
	line := int32(0)
	for pos := 0; pos < len(data); {
		line++
		next := bytes.IndexByte(data[pos:], '\n')
		if next < 0 {
			next = len(data)
		} else {
			next += pos + 1
		}
		text := bytes.TrimRight(data[pos:next], "\r\n")
		content := bytes.TrimLeft(text, " ")
		n := len(text) - len(content)
		blank := len(bytes.TrimSpace(content)) == 0 || content[0] == '#'
		switch {
		case blank:
		case n == 0 && isMethodsKey(content):
			if keyLine != 0 {
				return nil, 0, false // twice: leave it to the whole document
			}
			keyLine, inList = line, true
		case inList && isItem(content) && (indent < 0 || n == indent):
			if indent < 0 {
				indent = n
			}
			if len(cuts) > 0 {
				cuts[len(cuts)-1].end = pos
			}
			cuts = append(cuts, chunk{start: pos, line: line})
		case inList && indent >= 0 && n > indent:
		case inList && indent >= 0 && n == 0:
			// The list ends at the next top-level key (or document
			// marker).
			cuts[len(cuts)-1].end = pos
			inList = false
		case inList:
			// Not a block list, or a line between the list's items and
			// the top level, which the document read whole reports.
			return nil, 0, false
		}
		pos = next
	}
	if inList && len(cuts) > 0 {
		cuts[len(cuts)-1].end = len(data)
	}
	return cuts, keyLine, len(cuts) > 0
}

// otherBreaks reports whether data has a line break other than "\n" and
// "\r\n": a lone "\r" or a Unicode NEL, LS or PS, which YAML counts too.
func otherBreaks(data []byte) bool {
	for _, b := range [][]byte{[]byte("\u0085"), []byte("\u2028"), []byte("\u2029")} {
		if bytes.Contains(data, b) {
			return true
		}
	}
	for i := bytes.IndexByte(data, '\r'); i >= 0; {
		if i+1 == len(data) || data[i+1] != '\n' {
			return true
		}
		j := bytes.IndexByte(data[i+1:], '\r')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// isMethodsKey reports whether a line is "methods:" with nothing after
// it but blanks and a comment.
func isMethodsKey(content []byte) bool {
	rest, ok := bytes.CutPrefix(content, []byte("methods:"))
	if !ok {
		return false
	}
	rest = bytes.TrimLeft(rest, " \t")
	return len(rest) == 0 || rest[0] == '#'
}

// isItem reports whether a line starts a block list's item.
func isItem(content []byte) bool {
	return len(content) > 0 && content[0] == '-' && (len(content) == 1 || content[1] == ' ')
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
	// lineOffset is added to every line: the lines before the piece
	// converted.
	lineOffset int32
}

// line is y's line in the file.
func (c *yamlConverter) line(y *yaml.Node) int32 { return int32(y.Line) + c.lineOffset }

func (c *yamlConverter) convert(y *yaml.Node, out *node, depth int) error {
	if depth > maxDocDepth {
		return &docError{c.line(y), fmt.Sprintf("nesting deeper than %d levels", maxDocDepth)}
	}
	if c.budget--; c.budget < 0 {
		return &docError{c.line(y), "aliases expand to too many values"}
	}
	out.line = c.line(y)
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
	return &docError{c.line(y), "unsupported YAML node"}
}

// mapping converts a YAML mapping: keys are scalars and unique; merge keys
// ("<<: *base") add the merged map's keys that are not given explicitly.
func (c *yamlConverter) mapping(y *yaml.Node, out *node, depth int) error {
	if len(y.Content)%2 != 0 {
		return &docError{c.line(y), "malformed mapping"}
	}
	out.kids = make([]node, 0, len(y.Content))
	var merges []*yaml.Node
	for i := 0; i < len(y.Content); i += 2 {
		k, v := y.Content[i], y.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return &docError{c.line(k), "a map key must be a plain value"}
		}
		if k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		out.kids = append(out.kids, node{kind: nScalar, line: c.line(k), text: k.Value}, node{})
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
			return &docError{c.line(m), "a merge key (<<) needs a map or a list of maps"}
		}
		for _, s := range srcs {
			if deref(s).Kind != yaml.MappingNode {
				return &docError{c.line(s), "a merge key (<<) needs a map or a list of maps"}
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
	// sink, when not nil, is given the items of the top-level methods
	// array one at a time (itemSink).
	sink itemSink
}

func parseJSON(data []byte) (*node, error) { return parseJSONStream(data, nil) }

// parseJSONStream is parseJSON giving the items of the top-level methods
// array (its first, if the key is repeated) to sink, when not nil.
func parseJSONStream(data []byte, sink itemSink) (*node, error) {
	p := &jsonParser{data: data, line: 1, sink: sink}
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
		v := &out.kids[len(out.kids)-1]
		if depth == 0 && key == "methods" && p.sink != nil && p.startsArray() {
			if err := p.stream(v, depth+1); err != nil {
				return err
			}
		} else if err := p.value(v, depth+1); err != nil {
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

func (p *jsonParser) array(out *node, depth int) error { return p.items(out, depth, nil) }

// startsArray reports whether the next value is an array.
func (p *jsonParser) startsArray() bool {
	p.space()
	return p.pos < len(p.data) && p.data[p.pos] == '['
}

// stream reads an array like array, giving each item to the sink instead
// of keeping it in out, which it marks streamed. Only one array is
// streamed: a repeated key is kept whole, for the decoder to report.
func (p *jsonParser) stream(out *node, depth int) error {
	sink := p.sink
	p.sink = nil
	out.line, out.streamed = p.line, true
	return p.items(out, depth, sink)
}

// items reads the array at pos into out, keeping its items in out.kids,
// or, when sink is not nil, giving each to sink instead.
func (p *jsonParser) items(out *node, depth int, sink itemSink) error {
	out.kind = nSeq
	p.pos++ // [
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return nil
	}
	for i := 0; ; i++ {
		var item node
		if err := p.value(&item, depth+1); err != nil {
			return err
		}
		if sink != nil {
			sink.item(i, &item)
		} else {
			out.kids = append(out.kids, item)
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
