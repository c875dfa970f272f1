package harness

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/sim"
)

// parseRunSeeds are valid programs at the edges of the documented ranges
// (program/limits.go) and issue 14's extremes the decoders accept or
// reject; FuzzParseThenRun mutates them.
var parseRunSeeds = []string{
	`name: all
methods:
  - class: A
    name: main
    body:
      - spawn: {name: w, entry: A.work, count: 3, join: true}
      - loop:
          trips: {uniform: [1, 300]}
          body:
            - work: {cycles: 10, bytecodes: 4}
            - call: {method: A.f}
            - virtual_call: {receivers: {A.f: 3, B.f: 1}}
            - branch: {probability: 0.5, then: [{alloc: {bytes: 16}}], else: [{native: {cycles: 5}}]}
            - block: {kind: sleep, duration: 2us}
            - block: {kind: io, duration: {exponential: 1us}}
            - block: {kind: lock, lock: L, body: [{work: {cycles: 1, bytecodes: 1}}]}
            - throw: {depth: 0}
  - {class: A, name: f, recursion_limit: 3, body: [{work: {cycles: 5, bytecodes: 2}}, {branch: {probability: 0.3, then: [{call: {method: A.f}}]}}, {throw: {depth: 2}}]}
  - {class: B, name: f, body: [{work: {cycles: 5, bytecodes: 2}}]}
  - {class: A, name: work, body: [{loop: {trips: 100, body: [{call: {method: A.f}}, {block: {kind: lock, lock: L, body: [{alloc: {bytes: 1024}}]}}]}}]}
threads: [{name: main, entry: A.main}, {name: d, entry: B.f, daemon: true, count: 2, start: 5us}]
`,
	"name: x\nmethods:\n  - {class: A, name: main, body: [{loop: {trips: 1000000000000000, body: [{work: {cycles: 1000000000000, bytecodes: 65535}}]}}]}\nthreads: [{name: main, entry: A.main, count: 4}]\n",
	"name: x\nmethods:\n  - {class: A, name: main, body: [{loop: {trips: 1000000000000000, body: [{work: {cycles: 1, bytecodes: 65535}}]}}]}\nthreads: [{name: main, entry: A.main, count: 8}]\n",
	"name: x\nmethods:\n  - {class: A, name: main, body: [{block: {kind: sleep, duration: 1000000000000000000}}, {block: {kind: io, duration: {normal: [1000000000000000000, 1000000000000000000]}}}]}\nthreads: [{name: main, entry: A.main, start: 1000000000000000000}]\n",
	"name: x\nmethods:\n  - {class: A, name: main, body: [{call: {method: A.f}}, {throw: {depth: 2147483647}}]}\n  - {class: A, name: f, body: [{throw: {depth: 2147483647}}]}\nthreads: [{name: main, entry: A.main, count: 2147483647}]\n",
	"name: x\nmethods:\n  - {class: A, name: main, body: [{loop: {trips: 1000000, body: [{alloc: {bytes: 17179869184}}]}}]}\nthreads: [{name: main, entry: A.main}]\n",
	"name: x\nmethods:\n  - {class: A, name: main, body: [{loop: {trips: 1000000000000000, body: [{virtual_call: {receivers: {A.f: 1e307, A.g: 1e307}}}]}}]}\n  - {class: A, name: f, body: []}\n  - {class: A, name: g, body: [{work: {cycles: 1, bytecodes: 1}}]}\nthreads: [{name: main, entry: A.main}]\n",
	"name: x\nmethods:\n  - {class: A, name: main, body: [{loop: {trips: 1000000000000000, body: [{branch: {probability: 0.5}}]}}]}\nthreads: [{name: main, entry: A.main}]\n",
	"name: x\nmethods:\n  - {class: A, name: main, body: [{loop: {trips: 1000000000000000, body: [{spawn: {name: t, entry: A.g, count: 2147483647}}]}}]}\n  - {class: A, name: g, body: [{work: {cycles: 1, bytecodes: 1}}]}\nthreads: [{name: main, entry: A.main}]\n",
	"name: x\nmethods:\n  - {class: A, name: main, recursion_limit: 2147483647, body: [{call: {method: A.main}}]}\nthreads: [{name: main, entry: A.main}]\n",
	"name: x\nmethods:\n  - {class: A, name: main, body: [{work: {cycles: 9223372036854775807, bytecodes: 1}}, {throw: {depth: 2147483648}}]}\nthreads: [{name: main, entry: A.main, count: 0}]\n",
}

// fuzzRunTimeout bounds one input's run: a millisecond of simulated time
// takes milliseconds; a run that does not end within this is a hang.
const fuzzRunTimeout = 30 * time.Second

// FuzzParseThenRun decodes a workload and simulates what the decoder
// accepts for a millisecond, with the JIT, safepoints, the GC and two
// samplers: the executor sees whatever a file can say. A run ends, or
// stops at a limit or on a loop that costs nothing; its ground truth is
// conserved (self time = application CPU, no negative total).
func FuzzParseThenRun(f *testing.F) {
	for _, s := range parseRunSeeds {
		f.Add([]byte(s), true)
		if p, err := program.Decode([]byte(s), program.YAML); err == nil {
			if b, err := json.Marshal(p); err == nil {
				f.Add(b, false)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, isYAML bool) {
		format := program.JSON
		if isYAML {
			format = program.YAML
		}
		p, err := program.Parse(data, format)
		if err != nil {
			return // the decoders' own fuzz targets check their errors
		}
		cfg := MustPresetConfig("hotspot6")
		cfg.Sim.Duration = sim.Millisecond
		cfg.Sim.Limits = sim.Limits{MaxThreads: 1000, MaxMemory: 256 << 20}
		cfg.Samplers = []string{"async", "safepoint"}
		ctx, cancel := context.WithTimeout(context.Background(), fuzzRunTimeout)
		defer cancel()
		out, err := RunContext(ctx, p, cfg)
		if ctx.Err() != nil {
			t.Fatalf("a millisecond of simulated time took over %v", fuzzRunTimeout)
		}
		if err != nil {
			var le *sim.LimitError
			var zt *sim.ZeroTimeLoopError
			if errors.As(err, &le) || errors.As(err, &zt) {
				return
			}
			t.Fatalf("a valid program failed to run: %v", err)
		}
		r := out.Result
		if r.AppCPU() != r.Truth.SelfTotal() {
			t.Fatalf("self time %v ≠ application CPU %v", r.Truth.SelfTotal(), r.AppCPU())
		}
		for _, n := range r.Truth.Nodes() {
			if n.Self < 0 || n.Bytecodes < 0 || n.AllocBytes < 0 || n.Calls < 0 {
				t.Fatalf("negative total in context %+v", n)
			}
		}
	})
}
