package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxInitName is the longest NAME `profsim init` takes: a file name and a
// Java class name of that length fit every file system and tool.
const maxInitName = 64

// cmdInit is `profsim init NAME`: it writes NAME.yaml, a commented
// template workload that `profsim run --workload NAME.yaml` runs as it is,
// and never overwrites a file.
func cmdInit(args []string, stdout io.Writer) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		fmt.Fprintln(stdout, "Usage: profsim init NAME\n\nWrites NAME.yaml in the current directory: a commented template workload\n(methods, a loop, a call, a thread) that 'profsim run --workload NAME.yaml'\nruns as it is. NAME is a letter, then letters, digits, '-' or '_' (at most\n64); an existing NAME.yaml is never overwritten. The format: docs/WORKLOADS.md.")
		return errHelp
	}
	switch {
	case len(args) == 0:
		return usagef("init: NAME is required: profsim init NAME writes NAME.yaml")
	case len(args) > 1:
		return usagef("init: unexpected argument %q (one NAME only)", args[1])
	}
	name := args[0]
	if err := checkInitName(name); err != nil {
		return err
	}
	file := name + ".yaml"
	fh, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return usagef("init: %s exists; profsim init never overwrites a file (choose another NAME or remove it)", file)
		}
		return usagef("init: %s: %v", file, bare(err))
	}
	_, err = io.WriteString(fh, initTemplate(name))
	if err == nil {
		err = fh.Sync()
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(file) // only ever the file this call created
		return fmt.Errorf("writing %s: %w", file, bare(err))
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		abs = file
	}
	fmt.Fprintf(stdout, "wrote %s\nrun it with: profsim run --workload %s --samplers truth,safepoint,async\n", abs, file)
	return nil
}

// checkInitName accepts a letter, then letters, digits, '-' or '_': a
// file name on every system, a program name the workload format accepts
// (no spaces or ; | ( ), program/validate.go), and the source of a Java
// class name.
func checkInitName(name string) error {
	switch {
	case name == "":
		return usagef("init: NAME is empty")
	case strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") || strings.HasSuffix(name, ".json"):
		return usagef("init: NAME %q: give it without the extension (profsim init %s writes %s.yaml)", name, strings.TrimSuffix(name, filepath.Ext(name)), strings.TrimSuffix(name, filepath.Ext(name)))
	case len(name) > maxInitName:
		return usagef("init: NAME %q is %d characters, over %d", name, len(name), maxInitName)
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r >= '0' && r <= '9' || r == '-' || r == '_')
		if !ok {
			if i == 0 {
				return usagef("init: NAME %q must start with a letter (then letters, digits, '-' or '_')", name)
			}
			return usagef("init: NAME %q contains %q: use letters, digits, '-' or '_' (it names a file in the current directory and the program)", name, r)
		}
	}
	return nil
}

// className is a Java class name from name: its parts between '-' and
// '_', each capitalised ("my-lab" → "MyLab").
func className(name string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == '_' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// initTemplate is the workload `profsim init name` writes. It runs as it
// is (TestInitTemplateRuns) and spends its time in compiled code.
func initTemplate(name string) string {
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
