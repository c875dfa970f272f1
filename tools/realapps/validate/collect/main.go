// Command collect turns one real profiler run's raw output into the
// validation harness's files (tools/realapps/validate/README.md and the
// contract spec/VALIDATE-FORMAT.md): stacks.folded, self.tsv and meta.json.
//
//	go run ./tools/realapps/validate/collect --format agent|async|jfr --in RAW --out DIR \
//	    --app A --profiler P --rep N [--java-version V] [--jvm-option O]... \
//	    [--interval D] [--warmup D] [--window D] [--started T] \
//	    [--load-before "1m 5m 15m"] [--load-after "..."] [--engine E] [--tool T]
//
// RAW ("-": standard input) is the safepoint agent's folded file (agent), async-profiler's
// collapsed output with thread names and annotations (async: `-t -a -o
// collapsed`) or `jfr print --json --events jdk.ExecutionSample` (jfr). A
// run without a sample is an error: exit status 1, nothing written.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/profsim/profsim/jfrjson"
	"github.com/profsim/profsim/tools/internal/javaname"
)

// Formats of raw input.
const (
	FormatAgent = "agent"
	FormatAsync = "async"
	FormatJFR   = "jfr"
)

// MainThread is the thread every driver runs its work on.
const MainThread = "main"

// Stack is one folded stack: the thread and the frames, root first, each
// named as the contract says (Java frames `pkg.Class.method`).
type Stack struct {
	Thread string
	Frames []string
	// Method is the innermost Java frame (or, when the stack has none,
	// its leaf frame); NativeLeaf says frames that are not Java code
	// (C/VM/kernel frames, or a native Java method's own code) are above it.
	Method     string
	NativeLeaf bool
	Count      int64
}

// Profile is the stacks of one run.
type Profile struct {
	Stacks []Stack
	// Note is what the profiler said of itself (the agent's ticks,
	// overruns and mean tick time), for the progress line.
	Note string
}

// Totals are the counts meta.json reports: samples_total (all threads),
// samples_main and samples_native_leaf (thread main's samples with a
// native leaf: the other threads' are mostly threads waiting in native
// code, which only the safepoint sampler sees).
type Totals struct {
	Total, Main, NativeLeaf int64
}

// Totals sums the samples of p.
func (p *Profile) Totals() Totals {
	var t Totals
	for _, s := range p.Stacks {
		t.Total += s.Count
		if s.Thread == MainThread {
			t.Main += s.Count
		}
		if s.NativeLeaf && s.Thread == MainThread {
			t.NativeLeaf += s.Count
		}
	}
	return t
}

// SelfRow is one row of self.tsv.
type SelfRow struct {
	Thread, Method string
	Samples        int64
}

// Self charges each stack to its thread and innermost Java method and
// sorts the rows by thread, then samples descending, then method.
func (p *Profile) Self() []SelfRow {
	type key struct{ thread, method string }
	sums := map[key]int64{}
	for _, s := range p.Stacks {
		sums[key{s.Thread, s.Method}] += s.Count
	}
	rows := make([]SelfRow, 0, len(sums))
	for k, n := range sums {
		rows = append(rows, SelfRow{Thread: k.thread, Method: k.method, Samples: n})
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Thread != b.Thread {
			return a.Thread < b.Thread
		}
		if a.Samples != b.Samples {
			return a.Samples > b.Samples
		}
		return a.Method < b.Method
	})
	return rows
}

// Folded is the stacks in folded form (`THREAD;root;...;leaf COUNT`), equal
// stacks merged, lines sorted.
func (p *Profile) Folded() []string {
	sums := map[string]int64{}
	for _, s := range p.Stacks {
		sums[strings.Join(append([]string{s.Thread}, s.Frames...), ";")] += s.Count
	}
	lines := make([]string, 0, len(sums))
	for k, n := range sums {
		lines = append(lines, k+" "+strconv.FormatInt(n, 10))
	}
	sort.Strings(lines)
	return lines
}

// foldedLine splits "a;b;c 12" into its frames and count.
func foldedLine(line string) ([]string, int64, error) {
	sp := strings.LastIndexByte(line, ' ')
	if sp < 0 {
		return nil, 0, errors.New("no count after the stack")
	}
	n, err := strconv.ParseInt(line[sp+1:], 10, 64)
	if err != nil || n <= 0 {
		return nil, 0, fmt.Errorf("count %q is not a positive integer", line[sp+1:])
	}
	frames := strings.Split(line[:sp], ";")
	if len(frames) < 2 || frames[0] == "" {
		return nil, 0, errors.New("want THREAD;frame;... COUNT")
	}
	return frames, n, nil
}

// nativeSuffix marks a native Java method in the agent's output.
const nativeSuffix = "_[n]"

// ReadAgent reads the safepoint agent's output: a "# safepoint-agent ..."
// line, then `THREAD;frame;...;leaf COUNT`, all frames Java methods, a
// native one suffixed "_[n]", the leaf followed by "@BCI:LINE" when the
// agent ran with lines=1 (dropped here). A native method at the leaf makes a native
// leaf (the thread was in native code, RUNNABLE to JVMTI).
func ReadAgent(r io.Reader) (*Profile, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	p := &Profile{}
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if line == 1 {
			if !strings.HasPrefix(text, "# safepoint-agent ") {
				return nil, fmt.Errorf("line 1: want the \"# safepoint-agent\" header, got %.60q", text)
			}
			h := map[string]string{}
			for _, kv := range strings.Fields(text)[2:] {
				if k, v, ok := strings.Cut(kv, "="); ok {
					h[k] = v
				}
			}
			if h["dropped"] != "0" {
				return nil, fmt.Errorf("line 1: the agent dropped %s samples (its stack table overflowed, or the header has no dropped=)", h["dropped"])
			}
			tick, _ := strconv.ParseFloat(h["mean_tick_ns"], 64)
			p.Note = fmt.Sprintf("agent: ticks %s, overruns %s, mean tick %.2f ms", h["ticks"], h["overruns"], tick/1e6)
			continue
		}
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		frames, n, err := foldedLine(text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		s := Stack{Thread: frames[0], Count: n}
		for i, f := range frames[1:] {
			if i == len(frames)-2 {
				// lines=1: the leaf's "@BCI:LINE", not part of its name.
				if at := strings.LastIndex(f, "@"); at > 0 && strings.Contains(f[at:], ":") {
					f = f[:at]
				}
			}
			native := strings.HasSuffix(f, nativeSuffix)
			f = javaname.Of(strings.TrimSuffix(f, nativeSuffix))
			s.Frames = append(s.Frames, f)
			if i == len(frames)-2 {
				s.Method, s.NativeLeaf = f, native
			}
		}
		p.Stacks = append(p.Stacks, s)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if line == 0 {
		return nil, errors.New("empty file: the agent wrote nothing (did the JVM end before the window did?)")
	}
	return p, nil
}

// javaAnnotations are async-profiler's `ann` suffixes of Java frames
// (frameName.cpp FrameName::typeSuffix): interpreted, C1, C2, inlined.
var javaAnnotations = []string{"_[0]", "_[1]", "_[j]", "_[i]"}

// asyncThread parses async-profiler's thread frame "[NAME tid=N]".
func asyncThread(f string) (string, error) {
	if !strings.HasPrefix(f, "[") || !strings.HasSuffix(f, "]") {
		return "", fmt.Errorf("first frame %q is not a thread ([NAME tid=N]); run with the threads option", f)
	}
	in := f[1 : len(f)-1]
	if i := strings.LastIndex(in, " tid="); i >= 0 {
		return in[:i], nil
	}
	return in, nil // "[tid=N]": a thread without a name
}

// ReadAsync reads async-profiler's collapsed output made with the threads
// and ann options. Java frames end in an annotation and are renamed by
// javaname.Of; other frames (C, C++, kernel, async-profiler's own "[...]")
// stay as they are. The method is the innermost Java frame; frames above
// it make a native leaf; a stack without a Java frame is charged to its
// leaf frame and is a native leaf.
func ReadAsync(r io.Reader) (*Profile, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	p := &Profile{}
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if text == "" {
			continue
		}
		frames, n, err := foldedLine(text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		thread, err := asyncThread(frames[0])
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		s := Stack{Thread: thread, Count: n}
		java := -1
		for i, f := range frames[1:] {
			for _, a := range javaAnnotations {
				if strings.HasSuffix(f, a) {
					f = javaname.Of(strings.TrimSuffix(f, a))
					java = i
					break
				}
			}
			s.Frames = append(s.Frames, f)
		}
		if java >= 0 {
			s.Method = s.Frames[java]
		} else {
			s.Method = s.Frames[len(s.Frames)-1]
		}
		s.NativeLeaf = java != len(s.Frames)-1
		p.Stacks = append(p.Stacks, s)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return p, nil
}

// ReadJFR reads `jfr print --json` output and keeps its
// jdk.ExecutionSample events. A leaf frame of type Native makes a native
// leaf.
func ReadJFR(r io.Reader) (*Profile, error) {
	p := &Profile{}
	err := jfrjson.Read(r, func(e *jfrjson.Event) error {
		s := e.Sample
		if e.Type != jfrjson.TypeExecutionSample || s == nil {
			return nil
		}
		if len(s.Frames) == 0 {
			return fmt.Errorf("execution sample at %s on thread %q has no frames", s.Time.Format(time.RFC3339Nano), s.Thread.Name)
		}
		st := Stack{Thread: strings.ReplaceAll(s.Thread.Name, ";", "_"), Count: 1}
		for i := len(s.Frames) - 1; i >= 0; i-- {
			m := s.Frames[i].Method
			st.Frames = append(st.Frames, javaname.Of(m.Class+"."+m.Name))
		}
		st.Method = st.Frames[len(st.Frames)-1]
		st.NativeLeaf = s.Frames[0].Type == jfrjson.Native
		p.Stacks = append(p.Stacks, st)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Meta is meta.json.
type Meta struct {
	App               string     `json:"app"`
	Profiler          string     `json:"profiler"`
	Rep               int        `json:"rep"`
	JavaVersion       string     `json:"java_version"`
	JVMOptions        []string   `json:"jvm_options"`
	IntervalNS        int64      `json:"interval_ns"`
	WarmupNS          int64      `json:"warmup_ns"`
	WindowNS          int64      `json:"window_ns"`
	Started           string     `json:"started"`
	LoadBefore        [3]float64 `json:"load_before"`
	LoadAfter         [3]float64 `json:"load_after"`
	SamplesTotal      int64      `json:"samples_total"`
	SamplesMain       int64      `json:"samples_main"`
	SamplesNativeLeaf int64      `json:"samples_native_leaf"`
	Engine            string     `json:"engine,omitempty"`
	Tool              string     `json:"tool"`
}

// Profilers are the contract's profiler ids and the raw format of each.
var Profilers = map[string]string{
	"safepoint": FormatAgent,
	"jfr":       FormatJFR,
	"jfr-dns":   FormatJFR,
	"async":     FormatAsync,
}

// Write writes stacks.folded, self.tsv and meta.json into dir.
func Write(dir string, p *Profile, m Meta) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var folded strings.Builder
	for _, l := range p.Folded() {
		folded.WriteString(l)
		folded.WriteByte('\n')
	}
	var self strings.Builder
	self.WriteString("thread\tmethod\tsamples\n")
	for _, r := range p.Self() {
		fmt.Fprintf(&self, "%s\t%s\t%d\n", r.Thread, r.Method, r.Samples)
	}
	meta, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	// meta.json last: its presence says the run is complete.
	for _, f := range []struct {
		name, data string
	}{{"stacks.folded", folded.String()}, {"self.tsv", self.String()}, {"meta.json", string(meta) + "\n"}} {
		if err := os.WriteFile(filepath.Join(dir, f.name), []byte(f.data), 0o644); err != nil {
			return err
		}
	}
	return nil
}

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// parseLoad reads the first three fields of /proc/loadavg.
func parseLoad(name, s string) ([3]float64, error) {
	var l [3]float64
	f := strings.Fields(s)
	if len(f) < 3 {
		return l, fmt.Errorf("--%s %q: want three load averages (1m 5m 15m)", name, s)
	}
	for i := range l {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil || v < 0 {
			return l, fmt.Errorf("--%s %q: field %d is not a load average", name, s, i+1)
		}
		l[i] = v
	}
	return l, nil
}

// usageError is bad input: exit status 2.
type usageError struct{ error }

func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("collect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		m                      Meta
		in, out, format, rep   string
		interval, warmup, wind time.Duration
		loadBefore, loadAfter  string
		opts                   listFlag
	)
	fs.StringVar(&in, "in", "", "raw profiler output (- for standard input)")
	fs.StringVar(&out, "out", "", "directory for stacks.folded, self.tsv, meta.json")
	fs.StringVar(&format, "format", "", "raw format: agent, async or jfr (default: the profiler's)")
	fs.StringVar(&m.App, "app", "", "application")
	fs.StringVar(&m.Profiler, "profiler", "", "profiler id: safepoint, jfr, jfr-dns, async")
	fs.StringVar(&rep, "rep", "", "repetition number (1, 2, ...)")
	fs.StringVar(&m.JavaVersion, "java-version", "", "java.version of the JVM")
	fs.Var(&opts, "jvm-option", "a JVM option of the run (repeat)")
	fs.DurationVar(&interval, "interval", 10*time.Millisecond, "sampling interval")
	fs.DurationVar(&warmup, "warmup", 8*time.Second, "time from JVM start to the window")
	fs.DurationVar(&wind, "window", 10*time.Second, "profiling window")
	fs.StringVar(&m.Started, "started", "", "RFC 3339 time the JVM started")
	fs.StringVar(&loadBefore, "load-before", "", "/proc/loadavg before the run")
	fs.StringVar(&loadAfter, "load-after", "", "/proc/loadavg after the run")
	fs.StringVar(&m.Engine, "engine", "", "async-profiler's engine (async only)")
	fs.StringVar(&m.Tool, "tool", "", "the profiler and its version")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	for _, req := range []struct{ name, v string }{{"in", in}, {"out", out}, {"app", m.App}, {"profiler", m.Profiler}, {"rep", rep}, {"started", m.Started}, {"tool", m.Tool}} {
		if req.v == "" {
			return usageError{fmt.Errorf("--%s is required", req.name)}
		}
	}
	want, ok := Profilers[m.Profiler]
	if !ok {
		return usageError{fmt.Errorf("--profiler %q: want safepoint, jfr, jfr-dns or async", m.Profiler)}
	}
	if format == "" {
		format = want
	}
	if format != want {
		return usageError{fmt.Errorf("--format %q: profiler %s writes %s", format, m.Profiler, want)}
	}
	if (m.Engine != "") != (m.Profiler == "async") {
		return usageError{errors.New("--engine is required for async and only for async")}
	}
	var err error
	if m.Rep, err = strconv.Atoi(rep); err != nil || m.Rep < 1 {
		return usageError{fmt.Errorf("--rep %q: want a positive integer", rep)}
	}
	if _, err := time.Parse(time.RFC3339, m.Started); err != nil {
		return usageError{fmt.Errorf("--started %q: want RFC 3339", m.Started)}
	}
	if interval <= 0 || warmup < 0 || wind <= 0 {
		return usageError{errors.New("--interval and --window must be positive, --warmup not negative")}
	}
	m.IntervalNS, m.WarmupNS, m.WindowNS = int64(interval), int64(warmup), int64(wind)
	if m.LoadBefore, err = parseLoad("load-before", loadBefore); err != nil {
		return usageError{err}
	}
	if m.LoadAfter, err = parseLoad("load-after", loadAfter); err != nil {
		return usageError{err}
	}
	m.JVMOptions = append([]string{}, opts...)

	f := os.Stdin
	if in != "-" {
		if f, err = os.Open(in); err != nil {
			return err
		}
		defer f.Close()
	}
	var p *Profile
	switch format {
	case FormatAgent:
		p, err = ReadAgent(f)
	case FormatAsync:
		p, err = ReadAsync(f)
	case FormatJFR:
		p, err = ReadJFR(f)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	t := p.Totals()
	if t.Total == 0 {
		return fmt.Errorf("%s: no samples", in)
	}
	if t.Main == 0 {
		return fmt.Errorf("%s: %d samples, none on thread %q", in, t.Total, MainThread)
	}
	m.SamplesTotal, m.SamplesMain, m.SamplesNativeLeaf = t.Total, t.Main, t.NativeLeaf
	if err := Write(out, p, m); err != nil {
		return err
	}
	note := ""
	if p.Note != "" {
		note = "; " + p.Note
	}
	fmt.Fprintf(stderr, "%d samples (main %d, native leaf on main %d)%s\n", t.Total, t.Main, t.NativeLeaf, note)
	return nil
}

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "collect:", err)
		var u usageError
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}
