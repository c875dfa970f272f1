package program

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// wholeDecode is what Decode did before it streamed the methods: the
// whole document tree first, read by yaml.v3 in one piece, then the
// program from it.
func wholeDecode(data []byte, f Format) (*Program, error) {
	var root *node
	var err error
	if f == YAML {
		root, err = parseYAML(data)
	} else {
		root, err = parseJSON(data)
	}
	if err != nil {
		return nil, treeError(err)
	}
	d := &decoder{}
	p := d.program(root)
	if len(d.errs) > 0 {
		return nil, &ValidationError{Errors: d.errs}
	}
	return p, nil
}

// checkChunks checks that data read in chunks, when it can be, is the
// document read whole: the same tree, lines included, the same program
// and the same problems. It reports whether data was read in chunks.
func checkChunks(t *testing.T, data []byte) bool {
	t.Helper()
	c := &collector{}
	root, ok := parseYAMLChunks(data, c)
	if ok {
		whole, err := parseYAML(data)
		if err != nil {
			t.Fatalf("read in chunks, but whole it fails: %v\n%s", err, data)
		}
		l := streamedList(root)
		if l == nil {
			t.Fatalf("read in chunks without a streamed list:\n%s", data)
		}
		l.kids, l.streamed = c.items, false
		if !reflect.DeepEqual(root, whole) {
			t.Fatalf("the tree read in chunks differs from the whole one:\n%+v\n%+v\n%s", root, whole, data)
		}
	}
	p, err := Decode(data, YAML)
	q, werr := wholeDecode(data, YAML)
	if (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
		t.Fatalf("Decode: %v; whole: %v\n%s", err, werr, data)
	}
	if !reflect.DeepEqual(p, q) {
		t.Fatalf("Decode's program differs from the whole document's:\n%+v\n%+v", p, q)
	}
	return ok
}

// TestChunksReadAsWhole: every workload file the project ships, its
// examples and this package's test programs read the same in chunks as
// whole, in YAML and as JSON.
func TestChunksReadAsWhole(t *testing.T) {
	files, _ := filepath.Glob("../workloads/programs/*.yaml")
	ex, _ := filepath.Glob("../examples/*.yaml")
	models, _ := filepath.Glob("../workloads/models/*.yaml")
	ex = append(ex, models...)
	files = append(files, ex...)
	if len(files) < 5 {
		t.Fatalf("found only %d workload files", len(files))
	}
	docs := map[string][]byte{"valid": []byte(valid)}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs[f] = b
	}
	for name, data := range docs {
		if !checkChunks(t, data) {
			t.Errorf("%s: not read in chunks", name)
		}
		p, err := Decode(data, YAML)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		j, _ := json.MarshalIndent(p, "", " ")
		q, err := Decode(j, JSON)
		if err != nil {
			t.Fatalf("%s as JSON: %v", name, err)
		}
		if w, err := wholeDecode(j, JSON); err != nil || !reflect.DeepEqual(q, w) {
			t.Fatalf("%s as JSON: streamed and whole differ (%v)", name, err)
		}
	}
}

// chunkCases are documents whose lines cannot all be cut at the methods'
// items, each with whether it is read in chunks.
var chunkCases = []struct {
	name    string
	doc     string
	chunked bool
}{
	{"items at column 0", "name: x\nmethods:\n- {class: A, name: m}\n# c\n- class: B\n  name: m\nthreads: [{name: t, entry: A.m}]\n", true},
	{"comments and blank lines", "methods:   # the methods\n\n  # first\n  - class: A\n\n    name: m\n  - class: B\n    name: m\n\nthreads:\n  - {name: t, entry: A.m}\n", true},
	{"CRLF", "methods:\r\n  - class: A\r\n    name: m\r\nthreads: [{name: t, entry: A.m}]\r\n", true},
	{"anchor used in a later item", "methods:\n  - class: &c A\n    name: m\n  - class: *c\n    name: n\nthreads: [{name: t, entry: A.m}]\n", false},
	{"anchor within an item", "methods:\n  - class: &c A\n    name: m\n    signature: *c\nthreads: [{name: t, entry: A.m}]\n", true},
	{"anchor above the methods", "name: &c A\nmethods:\n  - class: *c\n    name: m\nthreads: [{name: t, entry: A.m}]\n", false},
	{"anchor in a method used below", "methods:\n  - class: &c A\n    name: m\nthreads: [{name: t, entry: *c}]\n", false},
	{"quoted string across items", "methods:\n  - class: \"A\n  - B\"\n    name: m\nthreads: [{name: t, entry: A.m}]\n", false},
	{"flow list across items", "methods:\n  - [a,\n  - b]\nthreads: []\n", false},
	{"methods inside a quoted string", "description: \"x\nmethods:\n- a\"\nname: y\n", false},
	{"methods in flow", "methods: [{class: A, name: m}]\nthreads: []\n", false},
	{"methods twice", "methods:\n  - class: A\nmethods:\n  - class: B\n", false},
	{"methods with a tag", "methods: !!seq\n  - class: A\n", false},
	{"not a list", "methods:\n  class: A\n", false},
	{"tag handle declared above", "%TAG !e! tag:example.com,2000:\n---\nmethods:\n  - class: !e!x A\n    name: m\n", false},
	{"two documents", "methods:\n  - class: A\n    name: m\n---\nname: y\n", false},
	{"merge key from an item", "methods:\n  - &m {class: A, name: m}\n  - <<: *m\n    name: n\n", false},
	{"syntax error in an item", "methods:\n  - class: A\n    name: [\n  - class: B\nthreads: []\n", false},
	{"empty item", "methods:\n  -\n  - class: B\n    name: m\n", true},
	{"a line between the items and the top level", "0: 0\nmethods:\n  - 0: 0\n    0: 0\n  !", false},
	{"a lone carriage return", "methods:\n- {\r}\n0:", false},
	{"a Unicode line separator", "methods:\n- {\u2028}\n0:", false},
	{"block scalar", "methods:\n  - class: A\n    name: |\n      - not an item\n      # nor a comment\n    signature: x\n", true},
}

// TestChunkCases: a document is read in chunks only when that reads it as
// whole would, and otherwise whole.
func TestChunkCases(t *testing.T) {
	for _, c := range chunkCases {
		t.Run(c.name, func(t *testing.T) {
			if got := checkChunks(t, []byte(c.doc)); got != c.chunked {
				t.Errorf("read in chunks: %v, want %v", got, c.chunked)
			}
		})
	}
}

// TestChunksKeepProblemLines: problems found in chunks and by validation
// name the lines of the file.
func TestChunksKeepProblemLines(t *testing.T) {
	doc := "name: x\nmethods:\n  - class: A\n    name: m\n    body:\n      - work: {cycles: 1, bytecodes: 1}\n  - class: B\n    name: m\n    body:\n      - call: {method: C.m}\n      - wrok: {cycles: 1}\nthreads: [{name: t, entry: A.m}]\n"
	_, err := Parse([]byte(doc), YAML)
	if err == nil {
		t.Fatal("accepted")
	}
	want := "invalid program: line 11: methods[1].body[1]: unknown statement kind \"wrok\"; did you mean \"work\"?"
	if err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
	doc = "name: x\nmethods:\n  - class: A\n    name: m\n    body:\n      - work: {cycles: 1, bytecodes: 1}\n  - class: B\n    name: m\n    body:\n      - call: {method: C.m}\nthreads: [{name: t, entry: A.m}]\n"
	_, err = Parse([]byte(doc), YAML)
	want = "invalid program: line 10: methods[1].body[0].call.method: unknown method \"C.m\""
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
}

func FuzzChunks(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add([]byte(s))
	}
	for _, c := range chunkCases {
		f.Add([]byte(c.doc))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkChunks(t, data) })
}
