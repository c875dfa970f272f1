package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/profsim/profsim"
	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/safepoint"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

// settings are the VM, JIT, GC and safepoint-protocol keys --set takes,
// under the prefixes sim., jit., gc. and safepoint.
type settings struct {
	Sim       sim.Config         `key:"sim"`
	JIT       jit.Config         `key:"jit"`
	GC        safepoint.GCConfig `key:"gc"`
	Safepoint safepoint.Config   `key:"safepoint"`
}

func settingsOf(cfg *harness.Config) *settings {
	st := &settings{Sim: cfg.Sim, JIT: cfg.JIT, GC: safepoint.DefaultGCConfig(), Safepoint: cfg.Safepoint}
	if cfg.GC != nil {
		st.GC = *cfg.GC
	}
	return st
}

func (st *settings) into(cfg *harness.Config) {
	cfg.Sim, cfg.JIT, cfg.Safepoint = st.Sim, st.JIT, st.Safepoint
	if cfg.GC != nil {
		gc := st.GC
		cfg.GC = &gc
	}
}

// runConfig is the JSON result's `config`: everything the run was made
// from, resolved. Two results with equal configs come from equal runs, and
// Args reproduces the run.
type runConfig struct {
	Profsim  versionInfo  `json:"profsim"`
	Workload workloadInfo `json:"workload"`
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
	// Settings is every sim., jit., gc. and safepoint. key with its value.
	Settings   map[string]string `json:"settings"`
	Injections []string          `json:"injections"`
	Speedups   []string          `json:"speedups"`
	Samplers   []samplerConfig   `json:"samplers"`
	// Args is a `profsim run` command line that reproduces this result.
	Args []string `json:"args"`
}

// versionInfo says which profsim made a result. Build is the identity
// of its code (profsim.BuildID), in every build; the version and the VCS
// revision are for people, present when the build recorded them.
type versionInfo struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Build    string `json:"build"`
	Go       string `json:"go"`
}

type workloadInfo struct {
	Name string `json:"name"`
	// Ref is what --workload named: a built-in name or a file path.
	Ref string `json:"ref"`
	// SHA256 is of the program's canonical JSON, before interventions.
	SHA256 string `json:"sha256"`
}

type samplerConfig struct {
	ID     string            `json:"id"`
	Name   string            `json:"name"`
	Label  string            `json:"label,omitempty"`
	Params map[string]string `json:"params"`
	// Spec is the full spec, every key given.
	Spec string `json:"spec"`
}

func version() versionInfo {
	v := versionInfo{Module: "github.com/profsim/profsim", Version: "(unknown)", Build: profsim.BuildID(),
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

// programHash is the SHA-256 of p's canonical JSON, json.Marshal(p),
// hashed a method at a time: a large program's JSON is never held whole.
// The JSON of p without its methods has "methods":[] exactly once (a
// quote inside a string is escaped), where the methods' JSON, comma
// separated, goes.
func programHash(p *program.Program) string {
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

func newRunConfig(f *runFlags, cfg harness.Config, out *harness.Outcome, name, hash string) *runConfig {
	return runConfigOf(f, cfg, out.Names, out.Samplers, name, hash)
}

// runConfigOf is the config of a run with the given profiles (names, in
// order) and resolved samplers: before the run (a sweep's key) or after.
func runConfigOf(f *runFlags, cfg harness.Config, names []string, resolved []*samplers.Resolved, name, hash string) *runConfig {
	rc := &runConfig{
		Profsim:  version(),
		Workload: workloadInfo{Ref: f.workload, SHA256: hash},
		Seed:     cfg.Sim.Seed, Duration: param.FormatDuration(cfg.Sim.Duration), CPUs: cfg.Sim.CPUs,
		Mode: cfg.Mode.String(), VM: f.vm, BaselineOnly: cfg.NoJIT, GC: cfg.GC != nil,
		Settings: map[string]string{}, Injections: []string{}, Speedups: []string{}, Samplers: []samplerConfig{},
	}
	rc.Workload.Name = name
	if cfg.ProfileFrom > 0 {
		rc.Skip = param.FormatDuration(cfg.ProfileFrom)
	}
	rc.Threads = cfg.Sim.ProfileThreads
	if cfg.TruthPerMethod {
		rc.Truth = "methods"
	}
	for _, kv := range param.Values(settingsOf(&cfg)) {
		if cfg.NoJIT && strings.HasPrefix(kv.Key, "jit.") {
			continue // no optimizing JIT: its settings do nothing (and are refused)
		}
		rc.Settings[kv.Key] = kv.Value
	}
	rc.Injections = append(rc.Injections, f.rawInject...)
	rc.Speedups = append(rc.Speedups, f.rawSpeedup...)
	for _, r := range resolved {
		spec := r.Spec()
		sc := samplerConfig{ID: r.ID, Name: r.Name, Label: spec.Label, Params: map[string]string{}, Spec: spec.String()}
		for _, kv := range r.Params {
			sc.Params[kv.Key] = kv.Value
		}
		rc.Samplers = append(rc.Samplers, sc)
	}
	rc.Args = rc.args(names)
	return rc
}

// args is a command line that reproduces the run: every setting given
// explicitly, so that it does not depend on today's defaults.
func (rc *runConfig) args(order []string) []string {
	a := []string{"run", "--workload", rc.Workload.Ref, "--seed", strconv.FormatUint(rc.Seed, 10),
		"--duration", rc.Duration, "--cpus", strconv.Itoa(rc.CPUs), "--mode", rc.Mode, "--vm", rc.VM}
	if rc.Skip != "" {
		a = append(a, "--skip", rc.Skip)
	}
	if rc.Threads != "" {
		a = append(a, "--threads", rc.Threads)
	}
	if rc.BaselineOnly {
		a = append(a, "--baseline-only")
	}
	if !rc.GC {
		a = append(a, "--gc=false")
	}
	if rc.Truth != "" {
		a = append(a, "--truth", rc.Truth)
	}
	for _, k := range sortedKeys(rc.Settings) {
		a = append(a, "--set", k+"="+rc.Settings[k])
	}
	for _, in := range rc.Injections {
		a = append(a, "--inject", in)
	}
	for _, sp := range rc.Speedups {
		a = append(a, "--speedup", sp)
	}
	specs := map[string]string{}
	for _, s := range rc.Samplers {
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

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// columns are the run's settings as tidy-table columns: numbers as plain
// numbers (durations in ns, booleans 0/1).
func (rc *runConfig) columns() []setting {
	dur, _ := param.ParseDuration(rc.Duration)
	var skip sim.Time
	if rc.Skip != "" {
		skip, _ = param.ParseDuration(rc.Skip)
	}
	cols := []setting{
		{"workload", rc.Workload.Name}, {"workload_sha256", rc.Workload.SHA256},
		{"seed", strconv.FormatUint(rc.Seed, 10)}, {"duration_ns", strconv.FormatInt(int64(dur), 10)},
		{"skip_ns", strconv.FormatInt(int64(skip), 10)}, {"threads", rc.Threads},
		{"cpus", strconv.Itoa(rc.CPUs)}, {"mode", rc.Mode}, {"vm", rc.VM},
		{"baseline_only", boolNum(rc.BaselineOnly)}, {"gc", boolNum(rc.GC)},
	}
	var st settings
	for k, v := range rc.Settings {
		if err := param.Set(&st, k, v); err != nil {
			panic("profsim: recorded setting does not set: " + err.Error())
		}
	}
	for _, n := range param.Numbers(&st) {
		name := strings.ReplaceAll(n.Key.Name, ".", "_")
		if n.Key.Kind == param.Duration {
			name += "_ns"
		}
		v := strconv.FormatFloat(n.Value, 'g', -1, 64)
		if n.Key.Kind != param.Float {
			v = strconv.FormatInt(int64(n.Value), 10) // exact below 2^53, and no exponent
		}
		cols = append(cols, setting{name, v})
	}
	cols = append(cols, setting{"profsim_version", rc.Profsim.Version}, setting{"profsim_revision", rc.Profsim.Revision},
		setting{"profsim_build", rc.Profsim.Build})
	return cols
}

func boolNum(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// writeHeader prints the VM and any sampler settings that differ from
// their defaults, above the table.
func (rc *runConfig) writeHeader(w io.Writer) {
	fmt.Fprintf(w, "vm %s", rc.VM)
	if rc.BaselineOnly {
		fmt.Fprint(w, "   baseline only (no optimizing JIT)\n")
	} else {
		fmt.Fprintf(w, "   inline %s   counted-loop polls %s   debug-non-safepoints %s",
			rc.Settings["jit.inline"], stripText(rc.Settings["jit.strip_mining_iter"], rc.Settings["jit.loop_unroll"]), rc.Settings["jit.debug_non_safepoints"])
		fmt.Fprintf(w, "%s\n", safepointText(rc.Settings))
	}
	if rc.Skip != "" {
		fmt.Fprintf(w, "profiled from %s on (--skip): every profile (the truth too) and the run's times and counts are that window's\n", rc.Skip)
	}
	if rc.Threads != "" {
		fmt.Fprintf(w, "threads %s only (--threads): every profile (the truth too) and the application CPU are theirs\n", rc.Threads)
	}
	if rc.Truth != "" {
		fmt.Fprint(w, "truth per method (--truth methods): its contexts are the methods, its stacks one frame deep\n")
	}
	for _, s := range rc.Samplers {
		if set := nonDefault(s); set != "" {
			fmt.Fprintf(w, "%s: %s\n", s.ID, set)
		}
	}
}

// safepointText names the global safepoint's costs when any is set
// (hotspot17's measured ones, or --set safepoint.KEY): the VM thread's
// re-check periods before and after 1 ms and its overhead per safepoint.
func safepointText(set map[string]string) string {
	recheck, late, over := set["safepoint.sync_recheck"], set["safepoint.sync_recheck_late"], set["safepoint.operation_overhead"]
	if recheck == "0s" && over == "0s" {
		return ""
	}
	text := "   safepoint re-check " + recheck
	if late != "0s" {
		text += " (" + late + " past 1ms)"
	}
	return text + ", overhead " + over
}

// stripText says where counted loops poll: every strip of n compiled
// iterations, each unroll source iterations of a small body
// (jit.loop_unroll_max_body).
func stripText(n, unroll string) string {
	if n == "0" {
		return "none"
	}
	text := "every iteration"
	if n != "1" {
		text = "every " + n + " iterations"
	}
	if u, err := strconv.ParseInt(unroll, 10, 64); err == nil && u > 1 {
		if k, err := strconv.ParseInt(n, 10, 64); err == nil {
			text += fmt.Sprintf(" (%d of a small body, unrolled %d×)", k*u, u)
		}
	}
	return text
}

// nonDefault lists a sampler's keys that differ from its defaults.
func nonDefault(s samplerConfig) string {
	def, err := lookupDefaults(s.Name)
	if err != nil {
		return ""
	}
	var parts []string
	for _, kv := range def {
		if v := s.Params[kv.Key]; v != kv.Value {
			parts = append(parts, kv.Key+"="+v)
		}
	}
	return strings.Join(parts, ",")
}

// printSettingKeys lists the keys --set takes.
func printSettingKeys(w io.Writer) {
	cfg := harness.DefaultConfig()
	if err := harness.ApplyPreset(&cfg, defaultVM); err != nil {
		panic(err)
	}
	fmt.Fprintf(w, "Keys of --set KEY=VALUE (defaults of --vm %s):\n", defaultVM)
	writeKeys(w, param.Keys(settingsOf(&cfg)))
}

// writeKeys prints keys as an aligned table.
func writeKeys(w io.Writer, keys []param.Key) {
	rows := [][4]string{{"key", "type", "default", "range"}}
	for _, k := range keys {
		rows = append(rows, [4]string{k.Name, k.Type(), k.Default, param.RangeText(k.Check)})
	}
	var width [4]int
	for _, r := range rows {
		for c := range r {
			width[c] = max(width[c], utf8.RuneCountInString(r[c]))
		}
	}
	for i, r := range rows {
		for c := range r {
			fmt.Fprintf(w, "  %s%s", r[c], strings.Repeat(" ", width[c]-utf8.RuneCountInString(r[c])))
		}
		if i == 0 {
			fmt.Fprintln(w, "  meaning; source of the default")
			continue
		}
		k := keys[i-1]
		line := k.Doc
		if k.Source != "" {
			line += "; " + k.Source
		}
		fmt.Fprintln(w, "  "+line)
	}
}

func presetNames() string {
	var names []string
	for _, p := range harness.Presets() {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}

func runHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "Usage: profsim run --workload NAME|FILE [flags]")
	fmt.Fprintln(w, "\nOn a terminal, stderr shows how far the run has got (simulated time, elapsed, ETA); elsewhere it stays quiet.")
	fmt.Fprintln(w, "\nVM presets (--vm):")
	for _, p := range harness.Presets() {
		fmt.Fprintf(w, "  %-10s %s\n             stands for: %s\n", p.Name, p.Summary, p.StandsFor)
	}
	fmt.Fprintln(w, "\nSettings apply in order: --vm preset, the shorthand flags given (--inline, --strip-mining, --debug-non-safepoints), --jvm-flags, --set.")
	fmt.Fprintln(w, "\nFlags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// lookupDefaults is a sampler's keys with their default values.
func lookupDefaults(name string) ([]param.KV, error) {
	r, err := samplers.Spec{Name: name}.Resolve()
	if err != nil {
		return nil, err
	}
	return r.Params, nil
}
