package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/workloads"
)

func TestIsJavaFrame(t *testing.T) {
	for f, want := range map[string]bool{
		"AntlrDriver.main":                         true,
		"java.lang.Object.<init>":                  true,
		"a.B$$Lambda.run":                          true,
		"org.python.core.PyObject._cmp":            true,
		"jni_GetPrimitiveArrayCritical":            false,
		"JavaFrameAnchor::make_walkable":           false,
		"std::vector<int>::push_back":              false,
		"__slab_alloc.isra.0_[k]":                  false,
		"/usr/lib/x86_64-linux-gnu/libz.so.1.2.13": false,
		"libc.so.6":                                false,
		"vtable stub":                              false,
		"IntArgbSrcMaskFill":                       false,
		"trailing.":                                false,
	} {
		if got := isJavaFrame(f); got != want {
			t.Errorf("isJavaFrame(%q) = %v, want %v", f, got, want)
		}
	}
}

// writeGz writes text gzipped to dir/stacks.folded.gz and returns the path.
func writeGz(t *testing.T, dir, text string) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := io.WriteString(zw, text); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "stacks.folded.gz")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// key is the dist key of the context of methods ms, root first.
func key(ms ...string) string {
	h := uint64(fnvOffset)
	for _, m := range ms {
		h = ctxHash(h, m)
	}
	return ctxKey(h)
}

// TestReadStacks: thread main's stacks by their Java frames (C frames
// left out wherever they are; collect has named the Java frames), equal
// contexts merged, other threads and stacks without Java frames dropped;
// a missing file is no contexts and no error, a bad count an error
// naming the line.
func TestReadStacks(t *testing.T) {
	dir := t.TempDir()
	path := writeGz(t, dir, strings.Join([]string{
		"main;start_thread;JavaMain;a.Main.main;a.B.f;jni_GetPrimitiveArrayCritical 3",
		"main;a.Main.main;a.B.f 2",
		"main;a.Main.main;JavaCalls::call_helper;I2C/C2I adapters(0xb);a.B$$Lambda.run 4",
		"main;start_thread;clone_[k] 9",
		"worker;a.Main.main;a.B.f 5",
		"",
	}, "\n"))
	d, err := readStacks(path)
	if err != nil {
		t.Fatal(err)
	}
	want := dist{key("a.Main.main", "a.B.f"): 5, key("a.Main.main", "a.B$$Lambda.run"): 4}
	if len(d) != len(want) {
		t.Fatalf("%d contexts, want %d", len(d), len(want))
	}
	for k, n := range want {
		if d[k] != n {
			t.Errorf("context %x: %v samples, want %v", k, d[k], n)
		}
	}
	if d, err := readStacks(filepath.Join(dir, "missing.gz")); d != nil || err != nil {
		t.Errorf("missing file: %v, %v; want nil, nil", d, err)
	}
	bad := writeGz(t, t.TempDir(), "main;a.Main.main 3\nmain;a.Main.main x\n")
	if _, err := readStacks(bad); err == nil || !strings.Contains(err.Error(), "stacks.folded.gz:2:") {
		t.Errorf("bad count: error %v, want one naming line 2", err)
	}
}

// TestContextsOfMatchesReadStacks: a model's profile and a real run's
// stacks give one key to one stack of methods, named alike.
func TestContextsOfMatchesReadStacks(t *testing.T) {
	b := profile.NewBuilder("jfr", "nanoseconds", 10_000_000)
	m := b.Func(profile.Function{Name: "a.Main.main([Ljava/lang/String;)V", Class: "a.Main", Method: "main", Signature: "([Ljava/lang/String;)V"})
	f := b.Func(profile.Function{Name: "a.B.f(I)V", Class: "a.B", Method: "f", Signature: "(I)V"})
	g := b.Func(profile.Function{Name: "a.B$$Lambda$7+0x00007f.123.run", Class: "a.B$$Lambda$7+0x00007f.123", Method: "run"})
	b.AddSample([]profile.Frame{{Func: int32(m)}, {Func: int32(f)}}, 3, 30, "main")
	b.AddSample([]profile.Frame{{Func: int32(m)}, {Func: int32(f), Inlined: true}}, 2, 20, "main")
	b.AddSample([]profile.Frame{{Func: int32(m)}, {Func: int32(g)}, {Func: int32(f)}}, 4, 40, "main")
	b.AddSample([]profile.Frame{{Func: int32(m)}}, 7, 70, "worker")
	// A synthetic thread entry above the driver's main is not a frame.
	e := b.Func(profile.Function{Name: "jfr.thread.main", Class: workloads.SyntheticEntryClass, Method: "main"})
	b.AddSample([]profile.Frame{{Func: int32(e)}, {Func: int32(m)}, {Func: int32(f)}}, 1, 10, "main")
	got := contextsOf(b.Build())
	real, err := readStacks(writeGz(t, t.TempDir(), "main;a.Main.main;a.B.f 6\nmain;a.Main.main;a.B$$Lambda.run;a.B.f 4\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(real) != 2 {
		t.Fatalf("model %d contexts, real %d; want 2 and 2", len(got), len(real))
	}
	for k, n := range real {
		if got[k] != n {
			t.Errorf("context %x: model %v samples, real %v", k, got[k], n)
		}
	}
}

// TestCompareContexts: the cell's metrics are the flat profiles' metrics
// over contexts; a real run without stacks leaves the cell out, and
// jfr-dns has no null of its own.
func TestCompareContexts(t *testing.T) {
	a, b := dist{"x": 1, "y": 1}, dist{"x": 1}
	real := []realRun{{Contexts: a}, {Contexts: b}}
	c, ok := compareContexts("app", profSafepoint, real, []dist{b}, []dist{a, a})
	if !ok {
		t.Fatal("no cell")
	}
	if c.Floor != 0.5 || c.Sim != 0.75 || c.NullJFRDNS != 0.75 || c.Reps != 2 || c.Seeds != 2 {
		t.Errorf("cell %+v, want floor 0.5, real vs profsim 0.75, null 0.75, 2 reps, 2 seeds", c)
	}
	if c, _ := compareContexts("app", profJFRDNS, real, []dist{b}, []dist{a}); !math.IsNaN(c.NullJFRDNS) {
		t.Errorf("jfr-dns's null %v, want NaN", c.NullJFRDNS)
	}
	if _, ok := compareContexts("app", profSafepoint, append(real, realRun{}), nil, []dist{a}); ok {
		t.Error("a real run without stacks: want no cell")
	}
	var w strings.Builder
	writeContexts(&w, &results{Profilers: []string{profSafepoint}, Contexts: []contextCell{c}, Settings: modelSettings{Duration: time.Second}})
	if !strings.Contains(w.String(), "| app | safepoint | 2 | 2 | 50.0 % | 75.0 % | 75.0 % |") {
		t.Errorf("table:\n%s", w.String())
	}
}
