package program

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// prog wraps one statement list as method A.main of a one-thread program;
// the statements start on line 5.
func prog(body string) string {
	return "name: x\nmethods:\n  - class: A\n    name: main\n    body:\n" + body +
		"  - {class: A, name: g, body: [{work: {cycles: 1, bytecodes: 1}}]}\n" +
		"  - {class: A, name: h, body: [{work: {cycles: 1, bytecodes: 1}}]}\nthreads: [{name: main, entry: A.main}]\n"
}

// jsonProg is prog for JSON: one statement, on line 2.
func jsonProg(stmt string) string {
	return "{\"name\": \"x\", \"methods\": [{\"class\": \"A\", \"name\": \"main\", \"body\": [\n" + stmt +
		"]}, {\"class\": \"A\", \"name\": \"g\", \"body\": []}], \"threads\": [{\"name\": \"main\", \"entry\": \"A.main\"}]}\n"
}

// Every bad or extreme input of issue 14's classes 1, 2 and 6 that a
// workload file can carry: an error naming the path, the line and the
// problem, never a panic or a silent default.
func TestBadInputNamesPathAndLine(t *testing.T) {
	cases := []struct {
		name, src string
		format    Format
		want      string
	}{
		// Class 1: values that crashed the simulator.
		{"sleep near int64 max", prog("      - block: {kind: sleep, duration: 9223372036854775000}\n"), YAML,
			"line 6: methods[0].body[0].block.duration: 9223372036854775000 is not in [0, 10^18]"},
		{"io uniform near int64 max", prog("      - block: {kind: io, duration: {uniform: [1, 9223372036854775807]}}\n"), YAML,
			"line 6: methods[0].body[0].block.duration.uniform[1]: 9223372036854775807 is not in [0, 10^18]"},
		{"exponential mean near int64 max", prog("      - block: {kind: io, duration: {exponential: 9223372036854775807}}\n"), YAML,
			"methods[0].body[0].block.duration.exponential: 9223372036854775807 is not in [1, 10^18]"},
		{"throw depth 2^31", prog("      - throw: {depth: 2147483648}\n"), YAML,
			"line 6: methods[0].body[0].throw.depth: 2147483648 is not in [0, 2^31−1]"},
		{"model throw times not a number", prog("      - call: {method: A.g, throws: {depth: 1, times: many}}\n"), YAML,
			"line 6: methods[0].body[0].call.throws.times: \"many\" is not a number"},
		{"model throw unknown key", prog("      - call: {method: A.g, throws: {depth: 1, times: 1, by: A.h}}\n"), YAML,
			"line 6: methods[0].body[0].call.throws: unknown key \"by\""},
		{"site inlining not a boolean", prog("      - call: {method: A.g, inline: sometimes}\n"), YAML,
			"line 6: methods[0].body[0].call.inline: \"sometimes\" is not true or false"},
		{"virtual site inlining not a map", prog("      - virtual_call: {receivers: {A.g: 1, A.h: 1}, inline: true}\n"), YAML,
			"line 6: methods[0].body[0].virtual_call.inline: want a map of method → true or false, got a value"},
		{"start near int64 max", strings.Replace(prog(""), "entry: A.main}", "entry: A.main, start: 9223372036854775807}", 1), YAML,
			"threads[0].start: 9223372036854775807 is not in [0, 10^18]"},

		// Class 2: silent overflow and truncation.
		{"cycles int64 max", prog("      - work: {cycles: 9223372036854775807, bytecodes: 1}\n"), YAML,
			"line 6: methods[0].body[0].work.cycles: 9223372036854775807 is not in [1, 10^12]"},
		{"cycles 2^62 in a loop", prog("      - loop:\n          trips: 1000\n          body: [{work: {cycles: 4611686018427387904, bytecodes: 1}}]\n"), YAML,
			"line 8: methods[0].body[0].loop.body[0].work.cycles: 4611686018427387904 is not in [1, 10^12]"},
		{"cycles not an integer (YAML)", prog("      - work: {cycles: 2.5, bytecodes: 1}\n"), YAML,
			"line 6: methods[0].body[0].work.cycles: 2.5 is not an integer"},
		{"cycles not an integer (JSON)", jsonProg(`{"work": {"cycles": 2.5, "bytecodes": 1}}`), JSON,
			"line 2: methods[0].body[0].work.cycles: 2.5 is not an integer"},
		{"cycles as a string", prog("      - work: {cycles: \"ten\", bytecodes: 1}\n"), YAML,
			`line 6: methods[0].body[0].work.cycles: "ten" is not an integer`},
		{"native cycles 1e308", prog("      - native: {cycles: 1e308}\n"), YAML,
			"line 6: methods[0].body[0].native.cycles: 1e308 is not in [1, 10^12]"},
		{"bytecodes beyond a method", prog("      - work: {cycles: 10, bytecodes: 65536}\n"), YAML,
			"methods[0].body[0].work.bytecodes: 65536 is not in [0, 65535]"},
		{"alloc bytes int64 max", prog("      - alloc: {bytes: 9223372036854775807}\n"), YAML,
			"line 6: methods[0].body[0].alloc.bytes: 9223372036854775807 is not in [1, 2^34]"},
		{"trips 1e20", prog("      - loop: {trips: 1e20, body: [{work: {cycles: 1, bytecodes: 1}}]}\n"), YAML,
			"line 6: methods[0].body[0].loop.trips: 1e20 is not in [0, 10^15]"},
		{"trips 2^63-1 (JSON)", jsonProg(`{"loop": {"trips": 9223372036854775807, "body": [{"work": {"cycles": 1, "bytecodes": 1}}]}}`), JSON,
			"line 2: methods[0].body[0].loop.trips: 9223372036854775807 is not in [0, 10^15]"},
		{"trips beyond int64 (JSON)", jsonProg(`{"loop": {"trips": 99999999999999999999, "body": []}}`), JSON,
			"line 2: methods[0].body[0].loop.trips: 99999999999999999999 is not in [0, 10^15]"},
		{"receiver weights overflow their sum", prog("      - virtual_call: {receivers: {A.h: 1.7e308, A.g: 1.7e308}}\n"), YAML,
			"line 6: methods[0].body[0].virtual_call.receivers: weights sum to +Inf; want a finite sum"},
		{"receiver weight vanishes", prog("      - virtual_call: {receivers: {A.h: 1e300, A.g: 1}}\n"), YAML,
			"methods[0].body[0].virtual_call.receivers[A.g]: weight 1 is too small next to the sum 1e+300 to ever be drawn"},
		{"receiver weight 1e400", prog("      - virtual_call: {receivers: {A.g: 1e400}}\n"), YAML,
			"line 6: methods[0].body[0].virtual_call.receivers[A.g]: 1e400 is not a finite number"},
		{"thread count 0", strings.Replace(prog(""), "entry: A.main}", "entry: A.main, count: 0}", 1), YAML,
			"threads[0].count: 0 is not in [1, 2^31−1]"},
		{"spawn count 0", prog("      - spawn: {name: w, entry: A.g, count: 0}\n"), YAML,
			"line 6: methods[0].body[0].spawn.count: 0 is not in [1, 2^31−1]"},
		{"recursion limit 2^31", strings.Replace(prog(""), "name: main\n", "name: main\n    recursion_limit: 2147483648\n", 1), YAML,
			"line 5: methods[0].recursion_limit: 2147483648 is not in [0, 2^31−1]"},
		{"duplicate JSON key", `{"name": "x", "name": "y", "methods": [], "threads": []}`, JSON,
			`line 1: name: key repeated (first at line 1)`},
		{"duplicate JSON key nested", jsonProg(`{"work": {"cycles": 1,` + "\n" + `"cycles": 2, "bytecodes": 1}}`), JSON,
			`line 3: methods[0].body[0].work.cycles: key repeated (first at line 2)`},
		{"duplicate YAML key", "name: x\nname: y\nmethods: []\nthreads: []\n", YAML,
			`line 2: name: key repeated (first at line 1)`},
		{"duplicate receiver", prog("      - virtual_call: {receivers: {A.g: 1, A.g: 2}}\n"), YAML,
			`line 6: methods[0].body[0].virtual_call.receivers[A.g]: key repeated (first at line 6)`},

		// Class 6: decoder messages.
		{"unknown key suggests", prog("      - work: {cycles: 10, bytecode: 1}\n"), YAML,
			`line 6: methods[0].body[0].work: unknown key "bytecode"; did you mean "bytecodes"?`},
		{"unknown statement kind suggests", prog("      - wrok: {cycles: 10}\n"), YAML,
			`line 6: methods[0].body[0]: unknown statement kind "wrok"; did you mean "work"?`},
		{"unknown key lists the valid ones", "name: x\ncolour: red\nmethods: []\nthreads: []\n", YAML,
			`line 2: (top level): unknown key "colour"; valid keys: name, description, methods, threads`},
		{"unknown JSON key suggests", `{"name": "x", "method": [], "threads": []}`, JSON,
			`line 1: (top level): unknown key "method"; did you mean "methods"?`},
		{"wrong type", "name: x\nmethods: {class: A}\nthreads: []\n", YAML,
			"line 2: methods: want a list, got a map"},
		{"unknown distribution", prog("      - loop: {trips: {poisson: 3}, body: []}\n"), YAML,
			`line 6: methods[0].body[0].loop.trips: unknown distribution "poisson"; valid: constant, uniform, exponential, normal`},
		{"trips as a duration", prog("      - loop: {trips: 5ms, body: []}\n"), YAML,
			`line 6: methods[0].body[0].loop.trips: "5ms" is not an integer`},
		{"bad duration", prog("      - block: {kind: sleep, duration: 5 lightyears}\n"), YAML,
			`line 6: methods[0].body[0].block.duration: "5 lightyears" is neither an integer (ns) nor a duration like "5ms"`},
		{"JSON syntax", "{\"name\": \"x\",\n  \"methods\": [,]}", JSON, "line 2: JSON syntax: invalid character ','"},
		{"YAML syntax", "name: x\nmethods: [\n", YAML, "line 2: YAML syntax: did not find expected node content"},
		{"JSON trailing data", `{"name": "x", "methods": [], "threads": []} {}`, JSON, "line 1: trailing data after the program"},
		{"JSON top level not an object", `[1, 2]`, JSON, "line 1: (top level): want a map, got a list"},
		{"empty document", "", YAML, "empty workload document"},
		{"second YAML document", "name: x\n---\nname: y\n", YAML, "line 2: more than one document"},
		{"nesting too deep", strings.Repeat("[", 2000) + strings.Repeat("]", 2000), JSON, "line 1: nesting deeper than 1000 levels"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.src), c.format)
			require.Error(t, err)
			var ve *ValidationError
			require.True(t, errors.As(err, &ve), "want a ValidationError, got %T: %v", err, err)
			assert.Contains(t, err.Error(), c.want)
			assert.NotContains(t, err.Error(), "unmarshal", "raw decoder message")
		})
	}
}

// The extreme values of each range are accepted, and just beyond them
// rejected: the documented ranges are the checked ones.
func TestRangesAreInclusive(t *testing.T) {
	ok := []string{
		"      - work: {cycles: 1000000000000, bytecodes: 65535}\n",
		"      - work: {cycles: 1, bytecodes: 0}\n",
		"      - native: {cycles: 1000000000000}\n",
		"      - stub: {cycles: 1000000000000, name: arraycopy}\n",
		"      - alloc: {bytes: 17179869184}\n",
		"      - loop: {trips: 1000000000000000, body: [{work: {cycles: 1, bytecodes: 1}}]}\n",
		"      - loop: {trips: {uniform: [0, 1000000000000000]}, body: [{work: {cycles: 1, bytecodes: 1}}]}\n",
		"      - block: {kind: sleep, duration: 1000000000000000000}\n",
		"      - block: {kind: io, duration: {normal: [1000000000000000000, 1000000000000000000]}}\n",
		"      - block: {kind: io, duration: {exponential: 1000000000000000000}}\n",
		"      - throw: {depth: 2147483647}\n",
		"      - spawn: {name: w, entry: A.g, count: 2147483647}\n",
		"      - virtual_call: {receivers: {A.h: 1e307, A.g: 1e307}}\n",
		"      - work: {cycles: 1e3, bytecodes: 2.0}\n",
		"      - work: {cycles: 0x10, bytecodes: 1_000}\n",
	}
	for _, body := range ok {
		_, err := Parse([]byte(prog(body)), YAML)
		assert.NoError(t, err, body)
	}
	bad := []string{
		"      - work: {cycles: 1000000000001, bytecodes: 1}\n",
		"      - native: {cycles: 0}\n",
		"      - stub: {cycles: 0}\n",
		"      - alloc: {bytes: 17179869185}\n",
		"      - loop: {trips: 1000000000000001, body: [{work: {cycles: 1, bytecodes: 1}}]}\n",
		"      - block: {kind: sleep, duration: 1000000000000000001}\n",
		"      - block: {kind: io, duration: {exponential: 0}}\n",
		"      - throw: {depth: -1}\n",
		"      - spawn: {name: w, entry: A.g, count: 2147483648}\n",
		"      - branch: {probability: .nan}\n",
	}
	for _, body := range bad {
		_, err := Parse([]byte(prog(body)), YAML)
		assert.Error(t, err, body)
	}
}

// A missing count means one thread; the decoded program says so.
func TestCountDefaultsToOne(t *testing.T) {
	p, err := Parse([]byte(prog("      - spawn: {name: w, entry: A.g}\n")), YAML)
	require.NoError(t, err)
	assert.Equal(t, 1, p.Threads[0].Count)
	assert.Equal(t, 1, p.Methods[0].Body[0].Spawn.Count)
}

// Validation errors of a decoded program carry the line of what they
// name; several problems are all reported.
func TestValidationErrorsCarryLines(t *testing.T) {
	src := prog("      - call: {method: A.nope}\n      - loop: {body: []}\n")
	_, err := Parse([]byte(src), YAML)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `line 6: methods[0].body[0].call.method: unknown method "A.nope"`)
	assert.Contains(t, err.Error(), `line 7: methods[0].body[1].loop.trips: missing`)
}

// A 40 000-deep spawn chain, a 40 000-deep call chain and a method with
// 100 000 call sites validate in well under a second each (issue 14: the
// spawn chain did not validate in 60 s).
func TestValidationIsNearLinear(t *testing.T) {
	const n = 40000
	chain := func(kind string) *Program {
		p := &Program{Name: "chain", Threads: []Thread{{Name: "main", Entry: "C.m0", Count: 1}}}
		for i := 0; i < n; i++ {
			m := Method{Class: "C", Name: fmt.Sprintf("m%d", i), Body: []Stmt{{Work: &Work{Cycles: 1}}}}
			if i+1 < n {
				next := fmt.Sprintf("C.m%d", i+1)
				if kind == "spawn" {
					m.Body = append(m.Body, Stmt{Spawn: &Spawn{Name: "t", Entry: next, Count: 1, Join: true}})
				} else {
					m.Body = append(m.Body, Stmt{Call: &Call{Method: next}})
				}
			}
			p.Methods = append(p.Methods, m)
		}
		return p
	}
	wide := &Program{Name: "wide", Threads: []Thread{{Name: "main", Entry: "W.main", Count: 1}}}
	var body []Stmt
	for i := 0; i < 100000; i++ {
		name := fmt.Sprintf("c%d", i)
		wide.Methods = append(wide.Methods, Method{Class: "W", Name: name, Body: []Stmt{{Work: &Work{Cycles: 1}}}})
		body = append(body, Stmt{Call: &Call{Method: "W." + name}})
	}
	wide.Methods = append(wide.Methods, Method{Class: "W", Name: "main", Body: body})
	for name, p := range map[string]*Program{"spawn chain": chain("spawn"), "call chain": chain("call"), "wide": wide} {
		start := time.Now()
		require.NoError(t, p.Validate(), name)
		// Linear work on 10⁵ items takes milliseconds; the bound leaves
		// room for a loaded 2-core machine and the race detector.
		assert.Less(t, time.Since(start), 3*time.Second, name)
	}
	// A spawn cycle closed at the end of the chain is still found.
	p := chain("spawn")
	p.Methods[n-1].Body = append(p.Methods[n-1].Body, Stmt{Spawn: &Spawn{Name: "t", Entry: "C.m0", Count: 1}})
	err := p.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "spawn cycle C.m0 → C.m1 → ")
}
