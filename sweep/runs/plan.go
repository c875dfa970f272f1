// Package runs is profsim's side of a sweep: a grid file's points
// planned as harness.Spec runs, executed through the generic engine of
// package sweep into an output directory, and the directory's tidy
// tables (runs.csv, methods.csv) and per-cell summary (summary.csv)
// written from its records. Merge joins the directories of a grid's
// shards; Status says how far one is; both, and a resumed sweep, refuse
// to mix the results of different builds of profsim. docs/SWEEPS.md
// describes the grid files and the outputs.
//
// Errors that are the user's input (a bad grid, a bad directory, a
// directory another sweep holds) are *InputError.
package runs

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/internal/filekind"
	"github.com/profsim/profsim/internal/flagerr"
	"github.com/profsim/profsim/internal/nearest"
	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/sweep"
	"github.com/profsim/profsim/workloads"
)

// InputError is an error in the user's input: the grid file, a setting
// at a point, an output or input directory.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputf(format string, args ...any) error {
	return &InputError{fmt.Errorf(format, args...)}
}

// SettingNames are the `profsim run` flags a grid may set — the
// flags of a harness.Spec — and the repeatable ones among them. Output
// flags (format, out, ...) are the sweep's own business.
func SettingNames() (names []string, repeatable map[string]bool) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	spec := harness.DefaultSpec()
	spec.Bind(fs)
	fs.VisitAll(func(fl *flag.Flag) { names = append(names, fl.Name) })
	repeatable = map[string]bool{}
	for _, n := range harness.RepeatableFlags {
		repeatable[n] = true
	}
	return names, repeatable
}

// OutputFlags are the `profsim run` flags about presenting one result,
// which a grid may not set.
var OutputFlags = []string{"by", "explain-jit", "format", "keys", "out", "top", "trace", "why"}

// setPrefixes are the --set key prefixes: a grid setting sim.X, jit.X,
// gc.X or safepoint.X is --set X=...; any other dotted name is LABEL.KEY
// of a sampler. "safepoint" also names a sampler: safepoint.X is the VM
// key when there is one (sync_recheck, …; no sampler has a key of those
// names, cmd/profsim's TestSweepSafepointPrefix) and the sampler's key otherwise
// (safepoint.interval).
var setPrefixes = []string{"sim.", "jit.", "gc.", "safepoint."}

// vmKeys are the --set keys.
var vmKeys = param.Names(harness.SettingsOf(&harness.Config{}))

// isVMKey reports whether a grid setting's name is a --set key.
func isVMKey(name string) bool { return slices.Contains(vmKeys, name) }

// isSamplerPrefixed reports whether name's prefix, before its last dot,
// names a sampler, so that a name that is not a VM key may be LABEL.KEY.
func isSamplerPrefixed(name string) bool {
	i := strings.LastIndex(name, ".")
	if i < 0 {
		return false
	}
	_, err := samplers.Lookup(name[:i])
	return err == nil
}

// Plan is a shard of a grid resolved into jobs, one per point.
//
// A job holds its point's index, coordinates and key, not its resolved
// run: that is planned again when the job is dispatched (replan), so a
// plan's memory is a few hundred bytes per point, not the 14 KB of a
// resolved run and its config.
type Plan struct {
	file     string
	grid     *sweep.Grid
	shard    sweep.Shard
	jobs     []sweep.Job
	manifest *sweep.Manifest

	// mu guards the workload cache, which replan reads from the workers.
	mu      sync.Mutex
	loaded  map[string]harness.WorkloadInfo
	loadErr map[string]error
}

// plannedRun is one point as a `profsim run`.
type plannedRun struct {
	spec   harness.Spec
	cfg    harness.Config
	config *harness.Description
	key    string // config.Key()
	// keep writes its profiles into keepDir (nil: none kept).
	keep    func(dir, id string, p *profile.Profile) error
	keepDir string
	// cache receives the run's table rows (nil: none kept).
	cache *rowCache
}

// New reads and checks a grid file and resolves the shard's
// points: bad names and values fail here, before anything runs, naming
// the grid path; a workload that does not load is that point's failure.
func New(file string, shard sweep.Shard) (*Plan, error) {
	// A grid file has the workloads' input limit: YAML decodes to tens
	// of times its size.
	data, err := readInput(file, harness.DefaultMaxInput)
	if err != nil {
		return nil, inputf("sweep: %v", err)
	}
	g, err := sweep.Parse(file, data)
	if err != nil {
		return nil, inputf("sweep: %v", err)
	}
	names, repeatable := SettingNames()
	// checkName checks a setting's name, reported at its name's path;
	// checkValue that a list is given only to a repeatable setting.
	checkName := func(s sweep.Setting) error {
		switch {
		case slices.Contains(names, s.Name):
		case slices.Contains(OutputFlags, s.Name):
			return fmt.Errorf("%s:%d: %s: --%s is about presenting one run; a sweep writes its own tables", file, s.Line, s.NamePath, s.Name)
		case isVMKey(s.Name):
		case hasSetPrefix(s.Name) && !isSamplerPrefixed(s.Name):
			return fmt.Errorf("%s:%d: %s: unknown VM setting%s (see 'profsim run --keys')", file, s.Line, s.NamePath, sweep.Suggest(s.Name, vmKeys))
		case strings.Contains(s.Name, "."):
			// LABEL.KEY: checked per point, where the samplers are known.
		default:
			return fmt.Errorf("%s:%d: %s: unknown setting%s; a grid sets `profsim run` flags by long name (%s), VM keys (jit.X, sim.X, gc.X, safepoint.X) or a sampler's keys as LABEL.KEY",
				file, s.Line, s.NamePath, sweep.Suggest(s.Name, names), strings.Join(names, ", "))
		}
		return nil
	}
	checkValue := func(s sweep.Setting) error {
		if len(s.Value) > 1 && !repeatable[s.Name] {
			return fmt.Errorf("%s:%d: %s: %s takes one value, not a list", file, s.Line, s.Path, s.Name)
		}
		if s.Name == "workload" && len(s.Value) == 1 {
			if err := checkWorkloadName(s.Value[0]); err != nil {
				return fmt.Errorf("%s:%d: %s: %w", file, s.Line, s.Path, err)
			}
		}
		return nil
	}
	for _, s := range g.Run {
		if err := checkName(s); err != nil {
			return nil, inputf("sweep: %v", err)
		}
		if err := checkValue(s); err != nil {
			return nil, inputf("sweep: %v", err)
		}
	}
	for _, a := range g.Axes {
		for i := range a.Len() {
			if i > 0 && a.IsRange() {
				break // single integers: one value each, names checked at level 0
			}
			for j := range a.Names {
				s := a.Setting(i, j)
				if i == 0 {
					if err := checkName(s); err != nil {
						return nil, inputf("sweep: %v", err)
					}
				}
				if err := checkValue(s); err != nil {
					return nil, inputf("sweep: %v", err)
				}
			}
		}
	}
	if g.Name == "" {
		g.Name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	size := g.Size()
	plan := &Plan{file: file, grid: g, shard: shard, manifest: &sweep.Manifest{Name: g.Name, Shard: shard.String(), Size: size,
		Grid: g.Digest(), Axes: g.AxisNames(), Durations: durationAxes(g), Workloads: map[string]string{}, Build: harness.CurrentVersion().Build},
		loaded: map[string]harness.WorkloadInfo{}, loadErr: map[string]error{}}
	planJob := plan.planJob
	// Only the shard's points are planned and kept: memory grows with the
	// shard, not the grid. Besides them, point 0 (its key identifies the
	// plan: FirstKey) and every axis level with the other axes at their
	// first — a range at its ends — are planned and dropped, so that a
	// bad value stops every shard before anything runs.
	check := []int{0}
	for a, ax := range g.Axes {
		for l := 1; l < ax.Len(); l++ {
			if ax.IsRange() && l < ax.Len()-1 {
				l = ax.Len() - 1
			}
			check = append(check, l*g.Stride(a))
		}
	}
	for _, i := range check {
		if shard.Contains(i) && i != 0 {
			continue // planned below
		}
		job, _, err := planJob(g.Point(i))
		if err != nil {
			return nil, err
		}
		if i == 0 {
			plan.manifest.FirstKey = job.Key
		}
	}
	first, step := 0, 1
	if shard.N > 1 {
		first, step = shard.I-1, shard.N
	}
	for i := first; i < size; i += step {
		pt := g.Point(i)
		job, _, err := planJob(pt)
		if err != nil {
			return nil, err
		}
		// What replan needs to plan it again, and the record.
		plan.jobs = append(plan.jobs, sweep.Job{Point: sweep.Point{Index: pt.Index, Coords: pt.Coords}, Key: job.Key, Compact: true})
		plan.manifest.Points = append(plan.manifest.Points, sweep.ManifestPoint{Point: pt.Index, Key: job.Key, Coords: pt.Coords})
	}
	return plan, nil
}

// planJob resolves one point into its job (its config and key, Err if
// its workload does not load) and its run. It may be called from several
// goroutines.
func (plan *Plan) planJob(pt sweep.Point) (sweep.Job, *plannedRun, error) {
	job := sweep.Job{Point: pt, Compact: true} // config and results from json.Marshal
	pr, err := planPoint(plan.file, filepath.Dir(plan.file), pt)
	if err != nil {
		return job, nil, err
	}
	ref := pr.spec.Workload
	// A workload over the point's --max-memory is not read: the point
	// fails, as at its run, and its key is of the workload's path.
	memErr := harness.CheckWorkloadMemory(ref, pr.spec.MaxInput, pr.spec.MaxMemory)
	plan.mu.Lock()
	if _, ok := plan.loaded[ref]; !ok && plan.loadErr[ref] == nil && memErr == nil {
		if p, err := harness.LoadWorkload(ref, pr.spec.MaxInput); err != nil {
			plan.loadErr[ref] = err
		} else {
			plan.loaded[ref] = harness.WorkloadInfo{Name: p.Name, Ref: ref, SHA256: harness.ProgramHash(p)}
			if !workloads.IsBuiltin(ref) {
				plan.manifest.Workloads[gridWorkload(pt)] = plan.loaded[ref].SHA256
			}
		}
	}
	w, loadErr := plan.loaded[ref], plan.loadErr[ref]
	plan.mu.Unlock()
	if memErr != nil {
		w, loadErr = harness.WorkloadInfo{}, memErr
	}
	// The samplers as the run will attach them: a list the run refuses
	// stops the sweep here.
	names, resolved, err := pr.cfg.PlanSamplers()
	if err != nil {
		return job, nil, pointError(plan.file, pt, err)
	}
	pr.config = pr.spec.Describe(pr.cfg, names, resolved, harness.WorkloadInfo{Name: w.Name, Ref: ref, SHA256: w.SHA256})
	job.Config, err = json.Marshal(pr.config)
	if err != nil {
		return job, nil, err
	}
	job.Key = pr.config.Key()
	pr.key = job.Key
	job.Err = loadErr
	return job, pr, nil
}

// gridWorkload is the point's workload as its grid writes it: the
// manifest's name for it, equal in every shard of one grid text wherever
// the grid file lies and whatever the directory the sweep ran from (the
// path it is loaded from is relative to both).
func gridWorkload(pt sweep.Point) string {
	for _, s := range pt.Settings {
		if s.Name == "workload" {
			return s.Value[0]
		}
	}
	return ""
}

// replan plans job's point again, as New did: its config and run.
func (plan *Plan) replan(job sweep.Job) (sweep.Job, *plannedRun, error) {
	j, pr, err := plan.planJob(plan.grid.Point(job.Point.Index))
	if err == nil && j.Key != job.Key {
		err = fmt.Errorf("profsim: internal error: point %d planned again has key %s, not %s", job.Point.Index, j.Key, job.Key)
	}
	return j, pr, err
}

// durationAxes says, for each axis setting (Grid.AxisNames), whether all
// its levels are durations ("1ms"): the tables then add their values in
// ns.
func durationAxes(g *sweep.Grid) []bool {
	var out []bool
	for _, a := range g.Axes {
		for j := range a.Names {
			// An integer is no duration (but 0, which is no duration
			// column either): a range is not one.
			isDur := a.Len() > 0 && !a.IsRange()
			for l := range a.Len() {
				v := a.Setting(l, j).Value.String()
				if _, err := time.ParseDuration(v); err != nil || v == "0" {
					isDur = false
					break
				}
			}
			out = append(out, isDur)
		}
	}
	return out
}

func hasSetPrefix(name string) bool {
	return slices.ContainsFunc(setPrefixes, func(p string) bool { return strings.HasPrefix(name, p) })
}

// planPoint turns a point's settings into its run's harness.Spec: each
// sets the Spec's flag of its name (harness.Spec.Bind), a VM key is one
// --set, LABEL.KEY a key of that sampler's spec.
func planPoint(file, dir string, pt sweep.Point) (*plannedRun, error) {
	var specs []samplers.Spec
	var specPaths []string
	spec := harness.DefaultSpec()
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	sf := spec.Bind(fs)
	set := func(name, value string) error {
		if err := fs.Set(name, value); err != nil {
			if fs.Lookup(name) == nil {
				return fmt.Errorf("flag provided but not defined: -%s", name)
			}
			return flagerr.Explain(fs, fmt.Errorf("invalid value %q for flag -%s: %v", value, name, err))
		}
		return nil
	}
	var labelKeys []sweep.Setting
	for _, s := range pt.Settings {
		switch {
		case s.Name == "samplers":
			for _, n := range strings.Split(s.Value[0], ",") {
				specs = append(specs, samplers.Spec{Name: strings.TrimSpace(n)})
				specPaths = append(specPaths, s.Path)
			}
		case s.Name == "sampler":
			for i, text := range s.Value {
				sp, err := samplers.ParseSpec(text)
				path := s.Path
				if len(s.Value) > 1 {
					path = fmt.Sprintf("%s[%d]", s.Path, i)
				}
				if err != nil {
					return nil, inputf("sweep: %s:%d: %s: %v", file, s.Line, path, err)
				}
				specs = append(specs, sp)
				specPaths = append(specPaths, path)
			}
		case isVMKey(s.Name):
			if err := set("set", s.Name+"="+s.Value[0]); err != nil {
				return nil, pointError(file, pt, fmt.Errorf("run: %v", err))
			}
		case strings.Contains(s.Name, "."):
			labelKeys = append(labelKeys, s)
		case s.Name == "workload":
			ref := s.Value[0]
			if !workloads.IsBuiltin(ref) && !filepath.IsAbs(ref) {
				ref = filepath.Join(dir, ref) // a file, relative to the grid file
			}
			if err := set("workload", ref); err != nil {
				return nil, pointError(file, pt, fmt.Errorf("run: %v", err))
			}
		default:
			for _, v := range s.Value {
				if err := set(s.Name, v); err != nil {
					return nil, pointError(file, pt, fmt.Errorf("run: %v", err))
				}
			}
		}
	}
	for _, s := range labelKeys {
		i := strings.LastIndex(s.Name, ".")
		label, key := s.Name[:i], s.Name[i+1:]
		var match []int
		var ids []string
		for j, sp := range specs {
			ids = append(ids, sp.ID())
			if sp.Label == label || (sp.Label == "" && sp.Name == label) || sp.ID() == label {
				match = append(match, j)
			}
		}
		// A name like safepoint.X that is neither: say which VM keys
		// there are too.
		var vmHint string
		if hasSetPrefix(s.Name) {
			vmHint = fmt.Sprintf("; nor is it a VM setting%s (see 'profsim run --keys')", sweep.Suggest(s.Name, vmKeys))
		}
		switch len(match) {
		case 0:
			return nil, inputf("sweep: %s:%d: %s: no sampler labelled %q at point %d, whose samplers are %s (LABEL.KEY sets a key of the sampler with that label or name)%s",
				file, s.Line, s.NamePath, label, pt.Index, strings.Join(ids, ", "), vmHint)
		case 1:
		default:
			return nil, inputf("sweep: %s:%d: %s: %q names several samplers at point %d (%s); label them apart", file, s.Line, s.NamePath, label, pt.Index, strings.Join(ids, ", "))
		}
		sp := &specs[match[0]]
		info, err := samplers.Lookup(sp.Name)
		if err != nil {
			return nil, inputf("sweep: %s: %s: %v", file, specPaths[match[0]], err)
		}
		var keys []string
		for _, k := range info.Keys() {
			keys = append(keys, k.Name)
		}
		if !slices.Contains(keys, key) {
			return nil, inputf("sweep: %s:%d: %s: sampler %s has no key %q%s; its keys: %s%s", file, s.Line, s.NamePath, sp.ID(), key, sweep.Suggest(key, keys), strings.Join(keys, ", "), vmHint)
		}
		replaced := false
		for k := range sp.Set {
			if sp.Set[k].Key == key {
				sp.Set[k].Value, replaced = s.Value[0], true
			}
		}
		if !replaced {
			sp.Set = append(sp.Set, param.KV{Key: key, Value: s.Value[0]})
		}
	}
	for _, sp := range specs {
		if err := set("sampler", sp.String()); err != nil {
			return nil, pointError(file, pt, fmt.Errorf("run: %v", err))
		}
	}
	if err := sf.Finish(); err != nil {
		return nil, pointError(file, pt, err)
	}
	cfg, err := spec.Config()
	if err != nil {
		return nil, pointError(file, pt, err)
	}
	return &plannedRun{spec: spec, cfg: cfg}, nil
}

// pointError is a bad value at a point: the whole sweep stops before
// running, naming the point and the settings given there.
func pointError(file string, pt sweep.Point, err error) error {
	var where []string
	for _, s := range pt.Settings {
		where = append(where, fmt.Sprintf("%s=%s", s.Path, s.Value.String()))
	}
	msg := strings.TrimPrefix(err.Error(), "run: ")
	return inputf("sweep: %s: point %d: %s (settings: %s)", file, pt.Index, msg, strings.Join(where, " "))
}

// readInput reads a regular file of at most max bytes: the size is
// checked before anything is read (a 100 GB sparse file is refused at
// once), and the read stops past max should the file grow meanwhile.
func readInput(path string, max int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s)", path, filekind.Of(st.Mode()))
	}
	tooBig := func(size int64) error {
		return fmt.Errorf("%s: %s is over the input limit of %s", path, sim.FormatBytes(size), sim.FormatBytes(max))
	}
	if st.Size() > max {
		return nil, tooBig(st.Size())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if int64(len(data)) > max {
		return nil, tooBig(int64(len(data)))
	}
	return data, nil
}

// checkWorkloadName refuses a workload reference that names no built-in
// and cannot be a file (no directory, no workload file extension): a
// misspelt built-in, which would otherwise fail every point it is in
// after the grid has run. A file that does not load is a point's failure.
func checkWorkloadName(ref string) error {
	if workloads.IsBuiltin(ref) || strings.ContainsAny(ref, "/\\") {
		return nil
	}
	switch strings.ToLower(filepath.Ext(ref)) {
	case ".yaml", ".yml", ".json":
		return nil
	}
	if s := nearest.Name(ref, slices.Concat(workloads.Names(), workloads.Models(), workloads.Twins(), workloads.Experiments())); s != "" {
		return fmt.Errorf("unknown workload %q: did you mean %q?", ref, s)
	}
	return fmt.Errorf("unknown workload %q: not a built-in ('profsim workloads' lists them) nor a workload file (.yaml, .json)", ref)
}
