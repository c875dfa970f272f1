// Package workloads holds profsim's built-in programs: the papers' own
// listings as embedded YAML, a seeded program generator, the synthetic
// stand-ins for the papers' benchmarks (named knob sets), and the
// interventions studies apply (injection, virtual speed-up). It contains
// no simulator logic.
package workloads

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/profsim/profsim/program"
)

//go:embed programs/*.yaml
var files embed.FS

//go:embed models/*.yaml
var modelFiles embed.FS

//go:embed fidelity/*.yaml
var twinFiles embed.FS

//go:embed experiments/*.yaml
var experimentFiles embed.FS

// Models lists the imported models of real applications
// (models/*.yaml: profsim import of a JFR recording, tools/realapps),
// sorted. They are built-in workloads too (Get, IsBuiltin) but not in
// Names, which the tests and studies iterate.
func Models() []string { return yamlNames(modelFiles, "models") }

// Twins lists the profsim twins of tools/fidelity's micro-programs
// (fidelity/*.yaml, named fid-MODE), sorted. They are built-in workloads
// (Get, IsBuiltin) but not in Names, which the tests and studies iterate.
func Twins() []string { return yamlNames(twinFiles, "fidelity") }

// Experiments lists the studies' own programs (experiments/*.yaml, named
// by the experiment that runs them, x4-pending), sorted. They are
// built-in workloads (Get, IsBuiltin), so that `profsim run` reproduces
// a study's run, but not in Names, which the tests and studies iterate.
func Experiments() []string { return yamlNames(experimentFiles, "experiments") }

// Programs lists the papers' own programs (embedded YAML), sorted.
func Programs() []string { return yamlNames(files, "programs") }

// yamlNames lists the .yaml files of an embedded directory by name,
// sorted.
func yamlNames(fsys embed.FS, dir string) []string {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		panic(err) // the embedded directories always exist
	}
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(names)
	return names
}

// Names lists every built-in workload: the papers' programs, then the
// synthetic stand-ins, each group sorted.
func Names() []string {
	names := Programs()
	for _, s := range StandIns() {
		names = append(names, s.Name)
	}
	return names
}

// IsBuiltin reports whether name is a built-in workload (one of Names),
// without listing them.
func IsBuiltin(name string) bool {
	if _, ok := standIns[name]; ok {
		return true
	}
	if name == "" || strings.ContainsAny(name, "/\\") {
		return false
	}
	if _, err := fs.Stat(files, path.Join("programs", name+".yaml")); err == nil {
		return true
	}
	if _, err := fs.Stat(twinFiles, path.Join("fidelity", name+".yaml")); err == nil {
		return true
	}
	if _, err := fs.Stat(experimentFiles, path.Join("experiments", name+".yaml")); err == nil {
		return true
	}
	_, err := fs.Stat(modelFiles, path.Join("models", name+".yaml"))
	return err == nil
}

// Get returns a fresh, validated copy of a built-in workload: a paper
// program or a generated stand-in.
func Get(name string) (*program.Program, error) {
	if s, ok := LookupStandIn(name); ok {
		return s.Program()
	}
	data, err := files.ReadFile(path.Join("programs", name+".yaml"))
	if err != nil && !strings.ContainsAny(name, "/\\") {
		data, err = modelFiles.ReadFile(path.Join("models", name+".yaml"))
	}
	if err != nil && !strings.ContainsAny(name, "/\\") {
		data, err = twinFiles.ReadFile(path.Join("fidelity", name+".yaml"))
	}
	if err != nil && !strings.ContainsAny(name, "/\\") {
		data, err = experimentFiles.ReadFile(path.Join("experiments", name+".yaml"))
	}
	if err != nil {
		return nil, fmt.Errorf("unknown workload %q (paper programs: %s; %d stand-ins, %d models of real applications, %d fidelity twins and %d studies' programs, see 'profsim workloads')",
			name, strings.Join(Programs(), ", "), len(standIns), len(Models()), len(Twins()), len(Experiments()))
	}
	p, err := program.Parse(data, program.YAML)
	if err != nil {
		return nil, fmt.Errorf("built-in workload %s: %w", name, err)
	}
	return p, nil
}

// ContentHash is the first 16 hex digits of a SHA-256 over every embedded
// workload file (each directory's files by name: its path, length and
// bytes). The build identity (profsim.BuildID) covers the Go sources, not
// these files, so what keeps runs of built-in workloads by name — the
// study's store — holds both.
var ContentHash = sync.OnceValue(func() string {
	h := sha256.New()
	for _, d := range []struct {
		fsys embed.FS
		dir  string
	}{{files, "programs"}, {modelFiles, "models"}, {twinFiles, "fidelity"}, {experimentFiles, "experiments"}} {
		entries, err := fs.ReadDir(d.fsys, d.dir)
		if err != nil {
			panic(err) // the embedded directories always exist
		}
		for _, e := range entries { // ReadDir sorts by name
			data, err := d.fsys.ReadFile(path.Join(d.dir, e.Name()))
			if err != nil {
				panic(err)
			}
			fmt.Fprintf(h, "%s/%s %d\n", d.dir, e.Name(), len(data))
			h.Write(data)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
})
