package main

import (
	"errors"
	"fmt"
	"github.com/profsim/profsim/workloads"
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
	_, err = io.WriteString(fh, workloads.Template(name))
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
