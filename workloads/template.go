package workloads

import "strings"

// Template is the commented starter workload `profsim init name` writes
// (name: a letter, then letters, digits, '-' or '_'). It runs as it is
// (cmd/profsim's TestInitTemplateRuns) and spends its time in compiled
// code.
func Template(name string) string {
	r := strings.NewReplacer("NAME", name, "Cls", className(name))
	return r.Replace(`# NAME: a workload for profsim, written by 'profsim init NAME'.
#
# Run it:
#   profsim run --workload NAME.yaml --samplers truth,safepoint,async
#   profsim run --workload NAME.yaml --samplers truth,safepoint,async --by line --explain-jit
#
# A workload is methods made of statements, and threads that run them. Every
# key is described in docs/WORKLOADS.md; unknown keys are errors. Each
# statement gets a line: its position in its method, from 1, in source
# order (a loop's line comes before its body's), which --by line reports.
#
# Two traps:
#  - A method is compiled only after 10000 calls or 14000 loop back-edges
#    (jit.compile_threshold, jit.backedge_threshold); until then it runs
#    interpreted: 8 times slower under the default --vm hotspot17, with a
#    poll at every back-edge and return. Call rare methods from a loop,
#    run longer, or lower the thresholds (--jvm-flags -XX:CompileThreshold=1000).
#  - 'spawn: {name: w, entry: Cls.work, join: true}' waits for the new
#    threads at once, before the next statement: to run them alongside
#    the spawner's own work, leave join out.
name: NAME                                  # the program's name in the output
description: "a loop calling a small method: edit me"
methods:
  - class: Cls                              # Cls.main: class + name identify a method
    name: main
    signature: "([Ljava/lang/String;)V"     # optional JVM signature
    body:
      - loop:                               # line 1: a counted loop
          trips: 20000000                   #   20 million trips, about 2 s: --duration (default 2s) ends the run first
          body:
            - work: {cycles: 20, bytecodes: 8}    # line 2: straight-line code, no calls: 20 ns once compiled (1 cycle = 1 ns)
            - call: {method: Cls.step}            # line 3: a static call; the JIT inlines small callees
  - class: Cls                              # Cls.step: the callee
    name: step
    signature: "()V"
    body:
      - work: {cycles: 80, bytecodes: 30}   # line 1: its work, 80 ns
      # Other statements (docs/WORKLOADS.md, Statements):
      #   - branch: {probability: 0.1, then: [{work: {cycles: 500, bytecodes: 40}}]}
      #   - alloc: {bytes: 64}
      #   - block: {kind: io, duration: 50us}
      #   - block: {kind: lock, lock: L, body: [{work: {cycles: 100, bytecodes: 10}}]}
      #   - native: {cycles: 200}
threads:
  - name: main                              # a thread running Cls.main from time 0
    entry: Cls.main
`)
}
