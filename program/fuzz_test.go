package program

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// fuzzSeeds are documents both decoders start from: a valid program using
// every statement kind, and issue 14's extreme and malformed values
// (2^31, 2^63−1, 1e308, beyond int64, non-integers, repeated keys, typos),
// in YAML; the JSON target gets their JSON forms too.
func fuzzSeeds() []string {
	stmt := func(s string) string { return prog("      - " + s + "\n") }
	seeds := []string{valid}
	for _, s := range []string{
		"work: {cycles: 2147483648, bytecodes: 2147483647}",
		"work: {cycles: 9223372036854775807, bytecodes: 1}",
		"work: {cycles: 9223372036854775808, bytecodes: 1}",
		"work: {cycles: 1e308, bytecodes: 1}",
		"work: {cycles: 2.5, bytecodes: 1}",
		"work: {cycles: -0, bytecodes: 1_000}",
		"work: {cycles: 10, bytecode: 1}",
		"work: {cycles: 10, cycles: 11}",
		"native: {cycles: 0x7fffffffffffffff}",
		"alloc: {bytes: 9223372036854775807}",
		"alloc: {bytes: 17179869184}",
		"loop: {trips: 4611686018427387904, body: [{work: {cycles: 1, bytecodes: 1}}]}",
		"loop: {trips: {uniform: [0, 1000000000000000]}, body: [{work: {cycles: 1000000000000, bytecodes: 65535}}]}",
		"loop: {trips: 1e20, body: []}",
		"loop: {trips: 1000000000000000, body: [{branch: {probability: 0.5}}]}",
		"block: {kind: sleep, duration: 9223372036854775000}",
		"block: {kind: io, duration: {exponential: 1000000000000000000}}",
		"block: {kind: io, duration: {normal: [1000000000000000000, 9223372036854775807]}}",
		"block: {kind: sleep, duration: 2562047h}",
		"block: {kind: lock, lock: L, body: [{throw: {depth: 2147483647}}]}",
		"throw: {depth: 2147483648}",
		"call: {method: A.g, throws: {depth: 2147483647, times: 1e9}}",
		"call: {method: A.g, throws: {depth: 1, times: 1e308}}",
		"call: {method: A.g, throws: {depth: 1, times: .nan}}",
		"spawn: {name: w, entry: A.g, count: 0}",
		"spawn: {name: w, entry: A.g, count: 2147483647, join: true}",
		"virtual_call: {receivers: {A.g: 1.7e308, A.h: 1.7e308}}",
		"virtual_call: {receivers: {A.g: 1e300, A.h: 1e-300}}",
		"virtual_call: {receivers: {A.g: 1e400}}",
		"branch: {probability: .nan}",
		"wrok: {cycles: 1}",
	} {
		seeds = append(seeds, stmt(s))
	}
	seeds = append(seeds,
		strings.Replace(prog(""), "entry: A.main}", "entry: A.main, count: 0, start: 9223372036854775807}", 1),
		strings.Replace(prog(""), "name: main\n", "name: main\n    recursion_limit: 2147483648\n", 1),
		"name: x\nname: y\nmethods: []\nthreads: []\n",
		"name: x\n---\nname: y\n",
		"a: &a [*a, *a]\n",
		"base: &b {cycles: 1, bytecodes: 1}\nname: x\n",
	)
	return seeds
}

// checkDecoded is what both decoders promise: a problem is a
// *ValidationError naming lines, never a panic; a program they accept is
// valid and survives JSON and YAML round trips unchanged.
func checkDecoded(t *testing.T, p *Program, err error) {
	if err != nil {
		var ve *ValidationError
		if !errors.As(err, &ve) || len(ve.Errors) == 0 {
			t.Fatalf("decode error %T is not a ValidationError with problems: %v", err, err)
		}
		for _, fe := range ve.Errors {
			if fe.Line < 0 || fe.Problem == "" {
				t.Fatalf("malformed problem %+v", fe)
			}
		}
		return
	}
	out, err := json.Marshal(p)
	if err != nil {
		t.Fatalf("a valid program does not encode: %v", err)
	}
	q, err := Parse(out, JSON)
	if err != nil {
		t.Fatalf("re-parsing %s: %v", out, err)
	}
	again, _ := json.Marshal(q)
	if !bytes.Equal(out, again) {
		t.Fatalf("JSON round trip changed the program:\n%s\n%s", out, again)
	}
	var y bytes.Buffer
	if err := EncodeYAML(&y, p); err != nil {
		t.Fatalf("a valid program does not encode as YAML: %v", err)
	}
	r, err := Parse(y.Bytes(), YAML)
	if err != nil {
		t.Fatalf("re-parsing YAML %s: %v", y.Bytes(), err)
	}
	if again, _ := json.Marshal(r); !bytes.Equal(out, again) {
		t.Fatalf("YAML round trip changed the program:\n%s\n%s", out, again)
	}
}

func FuzzDecodeYAML(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data, YAML)
		checkDecoded(t, p, err)
	})
}

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range fuzzSeeds() {
		if p, err := Decode([]byte(s), YAML); err == nil {
			if b, err := json.Marshal(p); err == nil {
				f.Add(b)
			}
		}
	}
	for _, s := range []string{
		`{"name":"x","name":"y","methods":[],"threads":[]}`,
		`{"name":"x","methods":[{"class":"A","name":"a","body":[{"loop":{"trips":9223372036854775807,"body":[{"work":{"cycles":1,"bytecodes":1}}]}}]}],"threads":[{"name":"m","entry":"A.a"}]}`,
		`{"name":"x","methods":[{"class":"A","name":"a","body":[{"work":{"cycles":99999999999999999999,"bytecodes":1e308}}]}],"threads":[{"name":"m","entry":"A.a","count":2147483648}]}`,
		`{"name":"x","methods":[{"class":"A","name":"a","body":[{"work":{"cycles":2.5,"bytecodes":-0.0}}]}],"threads":[{"name":"m","entry":"A.a"}]}`,
		`{"name":"\u00e9\ud800","methods":[],"threads":[]} `,
		`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]`,
		`{"name": "x", "methods": [,]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data, JSON)
		checkDecoded(t, p, err)
	})
}
