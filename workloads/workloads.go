// Package workloads holds profsim's built-in programs: the papers' own
// listings as embedded YAML (and, later, the synthetic stand-ins for their
// benchmarks). It contains no simulator logic.
package workloads

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/profsim/profsim/program"
)

//go:embed programs/*.yaml
var files embed.FS

// Names lists the built-in workloads, sorted.
func Names() []string {
	entries, err := fs.ReadDir(files, "programs")
	if err != nil {
		panic(err) // the embedded directory always exists
	}
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(names)
	return names
}

// Source returns a built-in workload's YAML text.
func Source(name string) ([]byte, error) {
	data, err := files.ReadFile(path.Join("programs", name+".yaml"))
	if err != nil {
		return nil, fmt.Errorf("unknown workload %q (built-ins: %s)", name, strings.Join(Names(), ", "))
	}
	return data, nil
}

// Get returns a fresh, validated copy of a built-in workload.
func Get(name string) (*program.Program, error) {
	data, err := Source(name)
	if err != nil {
		return nil, err
	}
	p, err := program.Parse(data, program.YAML)
	if err != nil {
		return nil, fmt.Errorf("built-in workload %s: %w", name, err)
	}
	return p, nil
}
