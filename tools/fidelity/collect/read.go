package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/profsim/profsim/tools/internal/javaname"
)

// Stack is one sampled stack of a real run: its thread and its frames,
// root first, Java frames named `pkg.Class.method`, other frames
// (async-profiler's C, VM and kernel frames) as the profiler wrote them.
type Stack struct {
	Thread string
	Frames []string
	Count  int64
}

// Run is one real run: what run.sh recorded of it (meta) and its stacks.
type Run struct {
	Dir    string
	Meta   Meta
	Stacks []Stack
	// JFR's own accounts: samples marked biased (jdk.CPUTimeSample's
	// biased: the top frame is not where the timer fired) and samples
	// lost (jdk.CPUTimeSamplesLost's lostSamples).
	Biased, Lost int64
}

// Meta is run.sh's `meta` file: one key=value a line.
type Meta struct {
	Mode, Profiler   string
	Rep              int
	JavaVersion      string
	JVMOptions       string
	AsyncProfiler    string
	Engine           string
	Tool             string
	Started          string
	LoadBefore       [3]float64
	LoadAfter        [3]float64
	WarmupS, WindowS int
}

// metaKeys are the keys a meta file must have.
var metaKeys = []string{"mode", "profiler", "rep", "java_version", "java_home", "jvm_options", "async_profiler",
	"engine", "tool", "warmup_s", "window_s", "started", "load_before", "load_after"}

// ReadMeta parses a meta file's text.
func ReadMeta(r io.Reader) (Meta, error) {
	var m Meta
	kv := map[string]string{}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			return m, fmt.Errorf("line %d: want key=value, got %.60q", line, sc.Text())
		}
		if _, dup := kv[k]; dup {
			return m, fmt.Errorf("line %d: key %q given twice", line, k)
		}
		kv[k] = v
	}
	if err := sc.Err(); err != nil {
		return m, err
	}
	for _, k := range metaKeys {
		if _, ok := kv[k]; !ok {
			return m, fmt.Errorf("no %s= line", k)
		}
	}
	m.Mode, m.Profiler, m.JavaVersion = kv["mode"], kv["profiler"], kv["java_version"]
	m.JVMOptions, m.AsyncProfiler, m.Engine, m.Tool, m.Started = kv["jvm_options"], kv["async_profiler"], kv["engine"], kv["tool"], kv["started"]
	var err error
	for _, n := range []struct {
		key string
		to  *int
	}{{"rep", &m.Rep}, {"warmup_s", &m.WarmupS}, {"window_s", &m.WindowS}} {
		if *n.to, err = strconv.Atoi(kv[n.key]); err != nil || *n.to < 1 {
			return m, fmt.Errorf("%s=%q: want a positive integer", n.key, kv[n.key])
		}
	}
	if m.LoadBefore, err = parseLoad(kv["load_before"]); err != nil {
		return m, fmt.Errorf("load_before: %w", err)
	}
	if m.LoadAfter, err = parseLoad(kv["load_after"]); err != nil {
		return m, fmt.Errorf("load_after: %w", err)
	}
	return m, nil
}

// parseLoad reads the first three fields of /proc/loadavg.
func parseLoad(s string) ([3]float64, error) {
	var l [3]float64
	f := strings.Fields(s)
	if len(f) != 3 {
		return l, fmt.Errorf("%q: want three load averages (1m 5m 15m)", s)
	}
	for i := range l {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil || v < 0 {
			return l, fmt.Errorf("%q: field %d is not a load average", s, i+1)
		}
		l[i] = v
	}
	return l, nil
}

// Raw file names run.sh leaves in a run's directory.
const (
	rawJFR   = "raw.json"      // jfr print --json --events jdk.ExecutionSample|jdk.CPUTimeSample
	rawAsync = "raw.collapsed" // asprof -t -a -o collapsed
)

// ReadRun reads a run's directory: its meta (metaName: "meta", or
// "meta.part" while run.sh checks the run) and raw profile.
func ReadRun(dir, metaName string) (*Run, error) {
	f, err := os.Open(filepath.Join(dir, metaName))
	if err != nil {
		return nil, err
	}
	m, err := ReadMeta(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, metaName), err)
	}
	if _, ok := lookupMode(m.Mode); !ok {
		return nil, fmt.Errorf("%s: mode %q is not one of %s", filepath.Join(dir, metaName), m.Mode, strings.Join(modeNames(), ", "))
	}
	def, ok := lookupProfiler(m.Profiler)
	if !ok {
		return nil, fmt.Errorf("%s: profiler %q is not one of %s", filepath.Join(dir, metaName), m.Profiler, strings.Join(profilerIDs(), ", "))
	}
	name := rawJFR
	if def.Async {
		name = rawAsync
	}
	path := filepath.Join(dir, name)
	rf, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer rf.Close()
	r := &Run{Dir: dir, Meta: m}
	if def.Async {
		r.Stacks, err = ReadAsync(rf)
	} else {
		var acc JFRAccounts
		r.Stacks, acc, err = ReadJFR(rf)
		r.Biased, r.Lost = acc.Biased, acc.Lost
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(r.Stacks) == 0 {
		return nil, fmt.Errorf("%s: no samples", path)
	}
	return r, nil
}

// javaAnnotations are async-profiler's suffixes of Java frames with the
// ann option (frameName.cpp): interpreted, C1, C2, inlined.
var javaAnnotations = []string{"_[0]", "_[1]", "_[j]", "_[i]"}

// ReadAsync reads async-profiler's collapsed output made with the threads
// and ann options: `[NAME tid=N];frame;...;leaf COUNT`.
func ReadAsync(r io.Reader) ([]Stack, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []Stack
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if text == "" {
			continue
		}
		sp := strings.LastIndexByte(text, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("line %d: no count after the stack", line)
		}
		n, err := strconv.ParseInt(text[sp+1:], 10, 64)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("line %d: count %q is not a positive integer", line, text[sp+1:])
		}
		frames := strings.Split(text[:sp], ";")
		th := frames[0]
		if len(frames) < 2 || !strings.HasPrefix(th, "[") || !strings.HasSuffix(th, "]") {
			return nil, fmt.Errorf("line %d: first frame %.60q is not a thread ([NAME tid=N]); run asprof with -t", line, th)
		}
		th = th[1 : len(th)-1]
		if i := strings.LastIndex(th, " tid="); i >= 0 {
			th = th[:i]
		}
		s := Stack{Thread: th, Count: n}
		for _, f := range frames[1:] {
			for _, a := range javaAnnotations {
				if strings.HasSuffix(f, a) {
					f = javaname.Of(strings.TrimSuffix(f, a))
					break
				}
			}
			s.Frames = append(s.Frames, f)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", line+1, err)
	}
	return out, nil
}

// jfrDoc is the part of `jfr print --json` the harness reads.
type jfrDoc struct {
	Recording *struct {
		Events []struct {
			Type   string `json:"type"`
			Values struct {
				EventThread   *jfrThread `json:"eventThread"`
				Biased        bool       `json:"biased"`
				LostSamples   int64      `json:"lostSamples"`
				SampledThread *jfrThread `json:"sampledThread"`
				StackTrace    *struct {
					Frames []struct {
						Method struct {
							Type struct {
								Name string `json:"name"`
							} `json:"type"`
							Name string `json:"name"`
						} `json:"method"`
					} `json:"frames"`
				} `json:"stackTrace"`
			} `json:"values"`
		} `json:"events"`
	} `json:"recording"`
}

type jfrThread struct {
	JavaName string `json:"javaName"`
	OSName   string `json:"osName"`
}

// Sample events the harness reads: JDK 17's and 25's execution samples,
// JDK 25's CPU-time samples (JEP 509).
const (
	eventExecution = "jdk.ExecutionSample"
	eventCPUTime   = "jdk.CPUTimeSample"
	eventLost      = "jdk.CPUTimeSamplesLost"
)

// JFRAccounts are what JFR says of its own samples (Run.Biased, Run.Lost).
type JFRAccounts struct{ Biased, Lost int64 }

// ReadJFR reads `jfr print --json` output and keeps its execution and
// CPU-time samples; the thread is sampledThread (execution samples) or
// eventThread (CPU-time samples), its Java name, else its OS name. It
// counts the CPU-time samples marked biased and the lost samples
// jdk.CPUTimeSamplesLost reports.
func ReadJFR(r io.Reader) ([]Stack, JFRAccounts, error) {
	var doc jfrDoc
	var acc JFRAccounts
	dec := json.NewDecoder(r)
	if err := dec.Decode(&doc); err != nil {
		return nil, acc, fmt.Errorf("not jfr print --json output: %w", err)
	}
	if doc.Recording == nil {
		return nil, acc, errors.New("not jfr print --json output: no \"recording\" object")
	}
	var out []Stack
	for i, e := range doc.Recording.Events {
		if e.Type == eventLost {
			acc.Lost += e.Values.LostSamples
			continue
		}
		if e.Type != eventExecution && e.Type != eventCPUTime {
			continue
		}
		if e.Values.Biased {
			acc.Biased++
		}
		th := e.Values.SampledThread
		if th == nil {
			th = e.Values.EventThread
		}
		if th == nil {
			return nil, acc, fmt.Errorf("event %d (%s): no thread", i, e.Type)
		}
		name := th.JavaName
		if name == "" {
			name = th.OSName
		}
		st := e.Values.StackTrace
		if st == nil || len(st.Frames) == 0 {
			return nil, acc, fmt.Errorf("event %d (%s) on thread %q: no stack", i, e.Type, name)
		}
		s := Stack{Thread: name, Count: 1}
		for k := len(st.Frames) - 1; k >= 0; k-- {
			m := st.Frames[k].Method
			s.Frames = append(s.Frames, javaname.Of(m.Type.Name+"."+m.Name))
		}
		out = append(out, s)
	}
	return out, acc, nil
}
