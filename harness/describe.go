package harness

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/profsim/profsim"
	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/samplers"
)

// Description is a Spec in its canonical form, everything resolved: the
// `config` of `profsim run --format json` and of a sweep's records. Two
// runs with equal Keys are equal runs, and Args reproduces the run.
type Description struct {
	Profsim  Version      `json:"profsim"`
	Workload WorkloadInfo `json:"workload"`
	Seed     uint64       `json:"seed"`
	Duration string       `json:"duration"`
	// Skip is where the profiles start (--skip), absent for 0: the
	// report's profiles, times and counts are those of [Skip, the end).
	Skip string `json:"skip,omitempty"`
	// Threads is --threads, the patterns of the threads profiled, absent
	// for all of them.
	Threads string `json:"threads,omitempty"`
	CPUs    int    `json:"cpus"`
	Mode    string `json:"mode"`
	// VM is the preset the settings started from; Settings are what
	// the preset, shorthand flags, --jvm-flags and --set resolved to (how
	// a setting was given is not recorded: equal settings, equal runs).
	VM string `json:"vm"`
	// BaselineOnly: no optimizing JIT (--baseline-only).
	BaselineOnly bool `json:"baseline_only"`
	GC           bool `json:"gc"`
	// Truth is "methods" for a truth per method (--truth methods), absent
	// for the calling-context tree.
	Truth string `json:"truth,omitempty"`
	// Iterations and LoopScale are --iterations and --loop-scale, absent
	// when not given (Workload.SHA256 is of the workload before them).
	Iterations int     `json:"iterations,omitempty"`
	LoopScale  float64 `json:"loop_scale,omitempty"`
	// InlineFrom and RecompileAt are --inline-from and --recompile-at,
	// absent when not given.
	InlineFrom  string `json:"inline_from,omitempty"`
	RecompileAt string `json:"recompile_at,omitempty"`
	// Settings is every sim., jit., gc. and safepoint. key with its value.
	Settings   map[string]string `json:"settings"`
	Injections []string          `json:"injections"`
	Speedups   []string          `json:"speedups"`
	// Slowdowns are the --slowdown flags, absent when none.
	Slowdowns []string        `json:"slowdowns,omitempty"`
	Samplers  []SamplerConfig `json:"samplers"`
	// Args is a `profsim run` command line that reproduces this result.
	Args []string `json:"args"`
}

// Version says which profsim made a result. Build is the identity of its
// code (profsim.BuildID), in every build; the version and the VCS
// revision are for people, present when the build recorded them.
type Version struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Build    string `json:"build"`
	Go       string `json:"go"`
}

// WorkloadInfo names a run's program.
type WorkloadInfo struct {
	Name string `json:"name"`
	// Ref is what --workload named: a built-in name or a file path.
	Ref string `json:"ref"`
	// SHA256 is of the program's canonical JSON, before interventions
	// (ProgramHash).
	SHA256 string `json:"sha256"`
}

// SamplerConfig is one attached sampler, resolved.
type SamplerConfig struct {
	ID     string            `json:"id"`
	Name   string            `json:"name"`
	Label  string            `json:"label,omitempty"`
	Params map[string]string `json:"params"`
	// Spec is the full spec, every key given.
	Spec string `json:"spec"`
}

// String is v for people, a line each (profsim version): the version,
// the module, the VCS revision ("unknown" when the build recorded none),
// the Go toolchain and target, and the build identity.
func (v Version) String() string {
	rev := v.Revision
	if rev == "" {
		rev = "unknown"
	} else if v.Modified {
		rev += " (modified)"
	}
	return fmt.Sprintf("profsim %s\nmodule   %s\nrevision %s\ngo       %s\nbuild    %s (the identity in run keys)\n",
		v.Version, v.Module, rev, v.Go, v.Build)
}

// CurrentVersion is this profsim's Version.
func CurrentVersion() Version {
	v := Version{Module: "github.com/profsim/profsim", Version: "(unknown)", Build: profsim.BuildID(),
		Go: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if profsim.Version != "" {
		v.Version = profsim.Version
	} else if ok && bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	if !ok {
		return v
	}
	if bi.Main.Path != "" {
		v.Module = bi.Main.Path
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// ProgramHash is the SHA-256 of p's canonical JSON, json.Marshal(p),
// hashed a method at a time: a large program's JSON is never held whole.
// The JSON of p without its methods has "methods":[] exactly once (a
// quote inside a string is escaped), where the methods' JSON, comma
// separated, goes.
func ProgramHash(p *program.Program) string {
	must := func(b []byte, err error) []byte {
		if err != nil {
			panic("profsim: program does not encode: " + err.Error())
		}
		return b
	}
	if p.Methods == nil {
		b := must(json.Marshal(p))
		h := sha256.Sum256(b)
		return hex.EncodeToString(h[:])
	}
	shell := *p
	shell.Methods = []program.Method{}
	b := must(json.Marshal(&shell))
	head, tail, ok := bytes.Cut(b, []byte(`"methods":[]`))
	if !ok {
		panic("profsim: program JSON without its methods key")
	}
	h := sha256.New()
	h.Write(head)
	h.Write([]byte(`"methods":[`))
	for i := range p.Methods {
		if i > 0 {
			h.Write([]byte{','})
		}
		h.Write(must(json.Marshal(&p.Methods[i])))
	}
	h.Write([]byte{']'})
	h.Write(tail)
	return hex.EncodeToString(h.Sum(nil))
}

// Describe is the Description of s run as cfg (s.Config()) with the given
// profiles (names, in order; Outcome.Names, or Config.PlanSamplers'
// before the run) and resolved samplers, on the program w names.
func (s Spec) Describe(cfg Config, names []string, resolved []*samplers.Resolved, w WorkloadInfo) *Description {
	d := &Description{
		Profsim:  CurrentVersion(),
		Workload: w,
		Seed:     cfg.Sim.Seed, Duration: param.FormatDuration(cfg.Sim.Duration), CPUs: cfg.Sim.CPUs,
		Mode: cfg.Mode.String(), VM: s.VM, BaselineOnly: cfg.NoJIT, GC: cfg.GC != nil,
		Settings: map[string]string{}, Injections: []string{}, Speedups: []string{}, Samplers: []SamplerConfig{},
	}
	if cfg.ProfileFrom > 0 {
		d.Skip = param.FormatDuration(cfg.ProfileFrom)
	}
	d.Threads = cfg.Sim.ProfileThreads
	if cfg.TruthPerMethod {
		d.Truth = "methods"
	}
	d.Iterations, d.LoopScale = s.Iterations, s.LoopScale
	d.InlineFrom = cfg.InlineFrom
	if cfg.RecompileAt > 0 {
		d.RecompileAt = param.FormatDuration(cfg.RecompileAt)
	}
	for _, kv := range param.Values(SettingsOf(&cfg)) {
		if cfg.NoJIT && strings.HasPrefix(kv.Key, "jit.") {
			continue // no optimizing JIT: its settings do nothing (and are refused)
		}
		d.Settings[kv.Key] = kv.Value
	}
	d.Injections = append(d.Injections, s.Injections...)
	d.Speedups = append(d.Speedups, s.SpeedUps...)
	d.Slowdowns = append(d.Slowdowns, s.SlowDowns...)
	for _, r := range resolved {
		spec := r.Spec()
		sc := SamplerConfig{ID: r.ID, Name: r.Name, Label: spec.Label, Params: map[string]string{}, Spec: spec.String()}
		for _, kv := range r.Params {
			sc.Params[kv.Key] = kv.Value
		}
		d.Samplers = append(d.Samplers, sc)
	}
	d.Args = d.args(names)
	return d
}

// args is a command line that reproduces the run: every setting given
// explicitly, so that it does not depend on today's defaults.
func (d *Description) args(order []string) []string {
	a := []string{"run", "--workload", d.Workload.Ref, "--seed", strconv.FormatUint(d.Seed, 10),
		"--duration", d.Duration, "--cpus", strconv.Itoa(d.CPUs), "--mode", d.Mode, "--vm", d.VM}
	if d.Skip != "" {
		a = append(a, "--skip", d.Skip)
	}
	if d.Threads != "" {
		a = append(a, "--threads", d.Threads)
	}
	if d.BaselineOnly {
		a = append(a, "--baseline-only")
	}
	if !d.GC {
		a = append(a, "--gc=false")
	}
	if d.Truth != "" {
		a = append(a, "--truth", d.Truth)
	}
	if d.Iterations > 0 {
		a = append(a, "--iterations", strconv.Itoa(d.Iterations))
	}
	if d.LoopScale > 0 {
		a = append(a, "--loop-scale", strconv.FormatFloat(d.LoopScale, 'g', -1, 64))
	}
	if d.InlineFrom != "" {
		a = append(a, "--inline-from", d.InlineFrom)
	}
	if d.RecompileAt != "" {
		a = append(a, "--recompile-at", d.RecompileAt)
	}
	keys := make([]string, 0, len(d.Settings))
	for k := range d.Settings {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		a = append(a, "--set", k+"="+d.Settings[k])
	}
	for _, in := range d.Injections {
		a = append(a, "--inject", in)
	}
	for _, sp := range d.Speedups {
		a = append(a, "--speedup", sp)
	}
	for _, sd := range d.Slowdowns {
		a = append(a, "--slowdown", sd)
	}
	specs := map[string]string{}
	for _, s := range d.Samplers {
		specs[s.ID] = s.Spec
	}
	for _, id := range order {
		if id == "truth" {
			a = append(a, "--sampler", "truth")
		} else {
			a = append(a, "--sampler", specs[id])
		}
	}
	return a
}

// Key names a run by its Description: the SHA-256 of its JSON without the
// fields that say how it was asked for rather than what ran (Args and the
// workload's path: the workload is its content hash), so that a sweep
// resumes from another directory, and without the fields that describe
// profsim to people (version, VCS revision, Go version): its code is its
// build identity, which is kept, so a build from a checkout with .git and
// one without share keys and any change of code gives new ones. 16 hex
// digits: 64 bits, a collision chance of about n²/2⁶⁵ for n runs.
func (d *Description) Key() string {
	c := *d
	c.Args = nil
	c.Profsim = Version{Build: d.Profsim.Build}
	if c.Workload.SHA256 != "" { // a workload that did not load is named by its path
		c.Workload.Ref = ""
	}
	b, err := json.Marshal(&c)
	if err != nil {
		panic("profsim: config does not encode: " + err.Error())
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}
