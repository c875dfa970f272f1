package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// mainThread is the only thread compared: every driver runs its work on
// the Java thread named main (the contract).
const mainThread = "main"

// meta is a real run's meta.json (the contract's fields the comparison
// reads or reports; others are ignored).
type meta struct {
	App          string    `json:"app"`
	Profiler     string    `json:"profiler"`
	JavaVersion  string    `json:"java_version"`
	JVMOptions   []string  `json:"jvm_options"`
	IntervalNs   int64     `json:"interval_ns"`
	WarmupNs     int64     `json:"warmup_ns"`
	WindowNs     int64     `json:"window_ns"`
	Started      string    `json:"started"`
	LoadBefore   []float64 `json:"load_before"`
	LoadAfter    []float64 `json:"load_after"`
	SamplesTotal int64     `json:"samples_total"`
	SamplesMain  int64     `json:"samples_main"`
	SamplesNativ int64     `json:"samples_native_leaf"`
	Engine       string    `json:"engine"`
	Tool         string    `json:"tool"`
}

// realRun is one real run: its directory, its meta, its self time on
// thread main and its samples there by calling context (nil when the run
// kept no stacks.folded.gz).
type realRun struct {
	Dir      string
	Rep      string
	Meta     meta
	Self     dist
	Contexts dist
}

// readSelfTSV reads a self.tsv: the header `thread\tmethod\tsamples`, then
// (thread, method, samples) rows. It returns thread main's samples by
// normalised method. Errors name the file and line.
func readSelfTSV(path string) (dist, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	d := dist{}
	seen := map[[2]string]int{}
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSuffix(sc.Text(), "\r")
		if line == 1 {
			if text != "thread\tmethod\tsamples" {
				return nil, fmt.Errorf("%s:1: header %q, want \"thread\\tmethod\\tsamples\"", path, text)
			}
			continue
		}
		if text == "" {
			return nil, fmt.Errorf("%s:%d: empty line", path, line)
		}
		fields := strings.Split(text, "\t")
		if len(fields) != 3 {
			return nil, fmt.Errorf("%s:%d: %d tab-separated fields, want 3 (thread, method, samples)", path, line, len(fields))
		}
		thread, method := fields[0], fields[1]
		if method == "" {
			return nil, fmt.Errorf("%s:%d: empty method", path, line)
		}
		n, err := strconv.ParseInt(fields[2], 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%s:%d: samples %q is not a whole number ≥ 0", path, line, fields[2])
		}
		key := [2]string{thread, method}
		if first, dup := seen[key]; dup {
			return nil, fmt.Errorf("%s:%d: thread %q method %q listed again (first on line %d)", path, line, thread, method, first)
		}
		seen[key] = line
		if thread == mainThread && n > 0 {
			d[normalizeMethod(method)] += float64(n)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", path, line+1, err)
	}
	if line == 0 {
		return nil, fmt.Errorf("%s: empty file (want the header thread\\tmethod\\tsamples)", path)
	}
	return d, nil
}

// readMeta reads a meta.json and checks it against where it was found.
func readMeta(path, app, profiler string) (meta, error) {
	var m meta
	data, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("%s: %v", path, err)
	}
	switch {
	case m.App != app:
		return m, fmt.Errorf("%s: app %q, but the run is in the directory of %q", path, m.App, app)
	case m.Profiler != profiler:
		return m, fmt.Errorf("%s: profiler %q, but the run is in the directory of %q", path, m.Profiler, profiler)
	case m.WarmupNs <= 0:
		return m, fmt.Errorf("%s: warmup_ns %d must be > 0", path, m.WarmupNs)
	case m.WindowNs <= 0:
		return m, fmt.Errorf("%s: window_ns %d must be > 0", path, m.WindowNs)
	case m.IntervalNs <= 0:
		return m, fmt.Errorf("%s: interval_ns %d must be > 0", path, m.IntervalNs)
	case len(m.LoadBefore) != 3 || len(m.LoadAfter) != 3:
		return m, fmt.Errorf("%s: load_before and load_after must be [1m, 5m, 15m], have %d and %d numbers", path, len(m.LoadBefore), len(m.LoadAfter))
	}
	return m, nil
}

// window is the profiled window the real runs and the models share.
type window struct {
	Warmup, Window time.Duration
}

// readReal reads dir/<app>/<profiler>/<rep>/ for each app and profiler:
// every rep directory, sorted by name. A missing (app, profiler)
// directory or one without runs is an error; every run's meta must have
// the window w.
func readReal(dir string, apps, profilers []string, w window) (map[string]map[string][]realRun, error) {
	out := map[string]map[string][]realRun{}
	for _, app := range apps {
		out[app] = map[string][]realRun{}
		for _, prof := range profilers {
			pdir := filepath.Join(dir, app, prof)
			entries, err := os.ReadDir(pdir)
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%s: no real runs of %s under %s (want %s/<rep>/self.tsv and meta.json)", pdir, app, prof, pdir)
			}
			if err != nil {
				return nil, err
			}
			var reps []string
			for _, e := range entries {
				if e.IsDir() {
					reps = append(reps, e.Name())
				}
			}
			slices.Sort(reps)
			if len(reps) == 0 {
				return nil, fmt.Errorf("%s: no rep directories", pdir)
			}
			for _, rep := range reps {
				rdir := filepath.Join(pdir, rep)
				m, err := readMeta(filepath.Join(rdir, "meta.json"), app, prof)
				if err != nil {
					return nil, err
				}
				if got := time.Duration(m.WarmupNs); got != w.Warmup {
					return nil, fmt.Errorf("%s: warmup_ns is %v, but --warmup is %v: the models must skip what the real run skipped", filepath.Join(rdir, "meta.json"), got, w.Warmup)
				}
				if got := time.Duration(m.WindowNs); got != w.Window {
					return nil, fmt.Errorf("%s: window_ns is %v, but --window is %v: the models must profile what the real run profiled", filepath.Join(rdir, "meta.json"), got, w.Window)
				}
				self, err := readSelfTSV(filepath.Join(rdir, "self.tsv"))
				if err != nil {
					return nil, err
				}
				ctxs, err := readStacks(filepath.Join(rdir, "stacks.folded.gz"))
				if err != nil {
					return nil, err
				}
				out[app][prof] = append(out[app][prof], realRun{Dir: rdir, Rep: rep, Meta: m, Self: self, Contexts: ctxs})
			}
		}
	}
	return out, nil
}
