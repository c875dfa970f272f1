package program

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

func (d *Dist) fromYAMLText(s string) error { return yaml.Unmarshal([]byte(s), d) }

const valid = `
name: demo
methods:
  - class: A
    name: main
    body:
      - loop:
          trips: {uniform: [1, 3]}
          body:
            - work: {cycles: 10, bytecodes: 4}
            - call: {method: A.f}
            - virtual_call: {receivers: {A.f: 3, B.f: 1}, by_caller: {B.f: {B.f: 1}}}
            - branch: {probability: 0.5, by_caller: {B.f: 0.25}, then: [{alloc: {bytes: 16}}], else: [{native: {cycles: 5}}, {stub: {cycles: 7, name: arraycopy}}]}
            - block: {kind: sleep, duration: 2ms}
            - block: {kind: io, duration: {exponential: 1us}}
            - block: {kind: lock, lock: L, body: [{work: {cycles: 1, bytecodes: 1}}]}
            - throw: {depth: 0}
      - spawn: {name: w, entry: "B.f", count: 2, join: true}
  - class: A
    name: f
    signature: "()V"
    body: [{work: {cycles: 5, bytecodes: 2}}]
  - class: B
    name: f
    body: [{work: {cycles: 5, bytecodes: 2}}]
threads:
  - {name: main, entry: A.main, start: 1ms}
`

func TestParseValidYAML(t *testing.T) {
	p, err := Parse([]byte(valid), YAML)
	require.NoError(t, err)
	assert.Equal(t, "demo", p.Name)
	assert.Len(t, p.Methods, 3)
	assert.Equal(t, Duration(1_000_000), p.Threads[0].Start)
	loop := p.Methods[0].Body[0].Loop
	assert.Equal(t, Dist{Kind: Uniform, A: 1, B: 3}, *loop.Trips)
	assert.Equal(t, map[string]float64{"B.f": 0.25}, loop.Body[3].Branch.ByCaller)
	assert.Equal(t, Stub{Cycles: 7, Name: "arraycopy"}, *loop.Body[3].Branch.Else[1].Stub)
	assert.Equal(t, map[string]map[string]float64{"B.f": {"B.f": 1}}, loop.Body[2].VirtualCall.ByCaller)
	assert.Equal(t, Dist{Kind: Constant, A: 2_000_000}, *loop.Body[4].Block.Duration)
	assert.Equal(t, Dist{Kind: Exponential, A: 1000}, *loop.Body[5].Block.Duration)
}

// YAML → JSON → program gives the same program.
func TestJSONRoundTrip(t *testing.T) {
	p, err := Parse([]byte(valid), YAML)
	require.NoError(t, err)
	data, err := json.Marshal(p)
	require.NoError(t, err)
	q, err := Parse(data, JSON)
	require.NoError(t, err)
	assert.Equal(t, p, q)
	var buf bytes.Buffer
	require.NoError(t, EncodeYAML(&buf, p))
	r, err := Parse(buf.Bytes(), YAML)
	require.NoError(t, err)
	assert.Equal(t, p, r)
}

func TestValidationErrorsNameThePath(t *testing.T) {
	base := func(body string) string {
		return "name: x\nmethods:\n  - class: A\n    name: main\n    body:\n" + body +
			"  - class: A\n    name: g\n    body: [{work: {cycles: 1, bytecodes: 1}}]\nthreads: [{name: main, entry: A.main}]\n"
	}
	cases := []struct{ name, src, want string }{
		{"unknown callee", base("      - call: {method: A.nope}\n"), `methods[0].body[0].call.method: unknown method "A.nope"`},
		{"zero cycles", base("      - work: {cycles: 0, bytecodes: 1}\n"), "methods[0].body[0].work.cycles: 0 is not in [1, 10^12]"},
		{"negative bytecodes", base("      - work: {cycles: 1, bytecodes: -2}\n"), "methods[0].body[0].work.bytecodes: -2 is not in [0, 65535]"},
		{"loop without trips", base("      - loop: {body: [{call: {method: A.g}}]}\n"), "methods[0].body[0].loop.trips: missing"},
		{"unbounded loop", base("      - loop: {trips: {exponential: 10}, body: [{call: {method: A.g}}]}\n"), "methods[0].body[0].loop.trips: exponential(mean 10) is unbounded"},
		{"nested path", base("      - loop:\n          trips: 3\n          body:\n            - branch: {probability: 0.5, then: [{alloc: {bytes: 0}}]}\n"),
			"methods[0].body[0].loop.body[0].branch.then[0].alloc.bytes: 0 is not in [1, 2^34]"},
		{"probability", base("      - branch: {probability: 1.5}\n"), "methods[0].body[0].branch.probability: 1.5 is not in [0, 1]"},
		{"empty statement", base("      - {}\n"), "methods[0].body[0]: empty statement"},
		{"two kinds", base("      - {work: {cycles: 1, bytecodes: 1}, call: {method: A.g}}\n"), "methods[0].body[0]: statement sets 2 kinds"},
		{"block kind", base("      - block: {kind: disk, duration: 5}\n"), `methods[0].body[0].block.kind: unknown block kind "disk"`},
		{"sleep without duration", base("      - block: {kind: sleep}\n"), "methods[0].body[0].block.duration: missing"},
		{"lock with duration", base("      - block: {kind: lock, lock: L, duration: 5}\n"), "methods[0].body[0].block.duration: not allowed on lock blocks"},
		{"negative native", base("      - native: {cycles: -1}\n"), "methods[0].body[0].native.cycles: -1 is not in [1, 10^12]"},
		{"stub without cycles", base("      - stub: {name: dpow}\n"), "methods[0].body[0].stub.cycles: 0 is not in [1, 10^12]"},
		{"stub name", base("      - stub: {cycles: 5, name: \"a b\"}\n"), `methods[0].body[0].stub.name: "a b" has whitespace`},
		{"stub key", base("      - stub: {cycles: 5, bytecodes: 3}\n"), "bytecodes"},
		{"throw depth", base("      - throw: {depth: -1}\n"), "methods[0].body[0].throw.depth: -1 is not in [0, 2^31−1]"},
		{"model throw depth", base("      - call: {method: A.g, throws: {depth: 0, times: 1}}\n"), "methods[0].body[0].call.throws.depth: 0 is not in [1, 2^31−1]"},
		{"model throw times", base("      - call: {method: A.g, throws: {depth: 1, times: 0}}\n"), "methods[0].body[0].call.throws.times: 0 is not in (0, 1e+09]"},
		{"model throw times missing", base("      - call: {method: A.g, throws: {depth: 1}}\n"), "methods[0].body[0].call.throws.times: 0 is not in (0, 1e+09]"},
		{"spawn entry", base("      - spawn: {name: w, entry: B.x}\n"), `methods[0].body[0].spawn.entry: unknown method "B.x"`},
		{"virtual inline not a receiver", base("      - virtual_call: {receivers: {A.g: 1}, inline: {A.h: true}}\n"), `methods[0].body[0].virtual_call.inline[A.h]: "A.h" is not one of the site's receivers`},
		{"by_caller unknown", base("      - branch: {probability: 0.5, by_caller: {A.nope: 1}}\n"), `methods[0].body[0].branch.by_caller[A.nope]: unknown method "A.nope"`},
		{"by_caller probability", base("      - branch: {probability: 0.5, by_caller: {A.g: 2}}\n"), "methods[0].body[0].branch.by_caller[A.g]: 2 is not in [0, 1]"},
		{"virtual by_caller not a receiver", base("      - virtual_call: {receivers: {A.g: 1}, by_caller: {A.g: {A.main: 1}}}\n"), `methods[0].body[0].virtual_call.by_caller[A.g][A.main]: "A.main" is not one of the site's receivers`},
		{"virtual by_caller unknown caller", base("      - virtual_call: {receivers: {A.g: 1}, by_caller: {A.nope: {A.g: 1}}}\n"), `methods[0].body[0].virtual_call.by_caller[A.nope]: unknown method "A.nope"`},
		{"virtual by_caller zero sum", base("      - virtual_call: {receivers: {A.g: 1}, by_caller: {A.g: {A.g: 0}}}\n"), "methods[0].body[0].virtual_call.by_caller[A.g]: weights sum to 0; want a positive finite sum"},
		{"virtual by_caller negative", base("      - virtual_call: {receivers: {A.g: 1}, by_caller: {A.g: {A.g: -1}}}\n"), "methods[0].body[0].virtual_call.by_caller[A.g][A.g]: weight -1 must be a finite number ≥ 0"},
		{"by_depth without a limit", base("      - branch: {probability: 0.5, by_depth: [1, 0]}\n"), "methods[0].body[0].branch.by_depth: A.main has no recursion_limit: the simulator counts a method's frames, which by_depth reads, only with one"},
		{"virtual by_depth without a limit", base("      - virtual_call: {receivers: {A.g: 1}, by_depth: [{A.g: 1}]}\n"), "methods[0].body[0].virtual_call.by_depth: A.main has no recursion_limit: the simulator counts a method's frames, which by_depth reads, only with one"},
		{"virtual weight", base("      - virtual_call: {receivers: {A.g: 0}}\n"), "methods[0].body[0].virtual_call.receivers[A.g]: weight 0 must be a positive finite number"},
		{"runtime_bound on an uncounted loop", base("      - loop: {trips: 3, uncounted: true, runtime_bound: true, body: [{call: {method: A.g}}]}\n"), "methods[0].body[0].loop.runtime_bound: an uncounted loop keeps its back-edge poll whatever its bound; runtime_bound is for counted loops"},
		{"uniform order", base("      - loop: {trips: {uniform: [5, 2]}, body: [{call: {method: A.g}}]}\n"), "methods[0].body[0].loop.trips: uniform [5, 2] needs min ≤ max"},
		{"unbounded recursion", base("      - call: {method: A.main}\n"), "methods[0].recursion_limit: unbounded recursion A.main → A.main"},
		{"mutual recursion", "name: x\nmethods:\n  - {class: A, name: a, body: [{call: {method: A.b}}]}\n  - {class: A, name: b, body: [{call: {method: A.a}}]}\nthreads: [{name: m, entry: A.a}]\n",
			"unbounded recursion A.a → A.b → A.a"},
		{"spawn cycle", "name: x\nmethods:\n  - {class: A, name: a, body: [{spawn: {name: w, entry: A.a}}]}\nthreads: [{name: m, entry: A.a}]\n",
			"methods[0]: spawn cycle A.a → A.a"},
		{"no methods", "name: x\nmethods: []\nthreads: []\n", "methods: program has no methods"},
		{"no threads", "name: x\nmethods: [{class: A, name: a, body: []}]\nthreads: []\n", "threads: program has no threads"},
		{"thread entry", "name: x\nmethods: [{class: A, name: a, body: []}]\nthreads: [{name: m, entry: A.b}]\n", `threads[0].entry: unknown method "A.b"`},
		{"duplicate method", "name: x\nmethods: [{class: A, name: a, body: []}, {class: A, name: a, body: []}]\nthreads: [{name: m, entry: A.a}]\n", "methods[1]: duplicate method A.a"},
		{"ambiguous overload", "name: x\nmethods: [{class: A, name: a, signature: (I)V, body: []}, {class: A, name: a, signature: ()V, body: []}]\nthreads: [{name: m, entry: A.a}]\n",
			`threads[0].entry: ambiguous method "A.a": 2 overloads`},
		{"bad name", "name: x\nmethods: [{class: A, name: 'a;b', body: []}]\nthreads: [{name: m, entry: A.a}]\n", `methods[0].name: "a;b" contains one of ;`},
		{"negative start", "name: x\nmethods: [{class: A, name: a, body: []}]\nthreads: [{name: m, entry: A.a, start: -5}]\n", "threads[0].start: -5 is not in [0, 10^18]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.src), YAML)
			require.Error(t, err)
			var ve *ValidationError
			require.True(t, errors.As(err, &ve), "want a ValidationError, got %v", err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func TestBoundedRecursionIsValid(t *testing.T) {
	src := "name: x\nmethods:\n  - {class: A, name: a, recursion_limit: 5, body: [{call: {method: A.b}}]}\n  - {class: A, name: b, body: [{call: {method: A.a}}]}\nthreads: [{name: m, entry: A.a}]\n"
	_, err := Parse([]byte(src), YAML)
	require.NoError(t, err)
}

func TestOverloadsAreDistinct(t *testing.T) {
	src := "name: x\nmethods:\n  - {class: A, name: a, signature: (I)V, body: []}\n  - {class: A, name: a, signature: ()V, body: [{call: {method: A.a(I)V}}]}\nthreads: [{name: m, entry: A.a()V}]\n"
	p, err := Parse([]byte(src), YAML)
	require.NoError(t, err)
	r := NewResolver(p)
	i, err := r.Resolve("A.a(I)V")
	require.NoError(t, err)
	assert.Equal(t, 0, i)
	assert.Equal(t, "A.a()V", r.DisplayName(&p.Methods[1]))
}

// An overload's name carries its JVM descriptor as Java writes it, ';'
// and all; a method that is not overloaded shows no descriptor.
func TestDisplayNameIsJavas(t *testing.T) {
	src := `name: x
methods:
  - {class: p.A, name: a, signature: "(Ljava/lang/String;I)[Ljava/lang/Object;", body: []}
  - {class: p.A, name: a, signature: "(Lp/B;)V", body: []}
  - {class: p.A, name: main, signature: "([Ljava/lang/String;)V", body: [{call: {method: "p.A.a(Lp/B;)V"}}, {call: {method: "p.A.a(Ljava/lang/String;I)[Ljava/lang/Object;"}}]}
threads: [{name: m, entry: p.A.main}]
`
	p, err := Parse([]byte(src), YAML)
	require.NoError(t, err)
	r := NewResolver(p)
	assert.Equal(t, "p.A.a(Ljava/lang/String;I)[Ljava/lang/Object;", r.DisplayName(&p.Methods[0]))
	assert.Equal(t, "p.A.a(Lp/B;)V", r.DisplayName(&p.Methods[1]))
	assert.Equal(t, "p.A.main", r.DisplayName(&p.Methods[2]))
	for i := range p.Methods {
		j, err := r.Resolve(r.DisplayName(&p.Methods[i]))
		require.NoError(t, err)
		assert.Equal(t, i, j, "a display name resolves to its method")
	}
}

func TestDecodeRejectsUnknownFields(t *testing.T) {
	_, err := Parse([]byte("name: x\nmethods: [{class: A, name: a, body: [], colour: red}]\nthreads: [{name: m, entry: A.a}]\n"), YAML)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "colour")
	_, err = Parse([]byte(`{"name":"x","methods":[{"class":"A","name":"a","body":[]}],"threads":[{"name":"m","entry":"A.a"}],"extra":1}`), JSON)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "extra")
}

func TestDistSampling(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	u := Dist{Kind: Uniform, A: 3, B: 5}
	seen := map[int64]bool{}
	for i := 0; i < 1000; i++ {
		v := u.Sample(r)
		require.True(t, v >= 3 && v <= 5)
		seen[v] = true
	}
	assert.Len(t, seen, 3)
	e := Dist{Kind: Exponential, A: 1000}
	sum := 0.0
	for i := 0; i < 20000; i++ {
		sum += float64(e.Sample(r))
	}
	assert.InDelta(t, 1000, sum/20000, 30) // ~3 standard errors (σ/√n ≈ 7)
	n := Dist{Kind: Normal, A: 5, B: 100}
	for i := 0; i < 1000; i++ {
		require.GreaterOrEqual(t, n.Sample(r), int64(0))
	}
}

func TestDistDecodeErrors(t *testing.T) {
	for _, src := range []string{
		`{uniform: [1]}`, `{uniform: 3}`, `{poisson: 3}`, `{uniform: [1, 2], constant: 3}`, `"soon"`, `1.5`,
	} {
		var d Dist
		err := d.fromYAMLText(src)
		assert.Error(t, err, src)
	}
}

// Walk visits every statement, nested ones after the one holding them,
// in source order.
func TestWalk(t *testing.T) {
	body := []Stmt{
		{Work: &Work{Cycles: 1}},
		{Loop: &Loop{Trips: Const(2), Body: []Stmt{{Work: &Work{Cycles: 2}}}}},
		{Branch: &Branch{Probability: 0.5, Then: []Stmt{{Work: &Work{Cycles: 3}}}, Else: []Stmt{{Work: &Work{Cycles: 4}}}}},
		{Block: &Block{Kind: BlockLock, Lock: "L", Body: []Stmt{{Work: &Work{Cycles: 5}}}}},
	}
	var kinds []string
	Walk(body, func(s *Stmt) {
		k := s.Kind()
		if s.Work != nil {
			k += fmt.Sprint(s.Work.Cycles)
			s.Work.Cycles *= 10
		}
		kinds = append(kinds, k)
	})
	assert.Equal(t, []string{"work1", "loop", "work2", "branch", "work3", "work4", "block", "work5"}, kinds)
	assert.Equal(t, int64(50), body[3].Block.Body[0].Work.Cycles, "f changes the statement itself")
}
