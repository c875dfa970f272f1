package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeRun writes one real run's self.tsv (text as given) and a valid
// meta.json of the window w under dir/app/prof/rep.
func writeRun(t *testing.T, dir, app, prof, rep string, w window, tsv string) string {
	t.Helper()
	rdir := filepath.Join(dir, app, prof, rep)
	if err := os.MkdirAll(rdir, 0o755); err != nil {
		t.Fatal(err)
	}
	m := map[string]any{"app": app, "profiler": prof, "rep": rep, "java_version": "17.0.15",
		"jvm_options": []string{}, "interval_ns": 10_000_000, "warmup_ns": int64(w.Warmup), "window_ns": int64(w.Window),
		"started": "2026-11-28T18:00:00Z", "load_before": []float64{0.5, 0.4, 0.3}, "load_after": []float64{1, 0.5, 0.3},
		"samples_total": 10, "samples_main": 9, "samples_native_leaf": 0, "tool": "test"}
	data, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(rdir, "meta.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rdir, "self.tsv"), []byte(tsv), 0o644); err != nil {
		t.Fatal(err)
	}
	return rdir
}

const goodTSV = "thread\tmethod\tsamples\n" +
	"Reference Handler\tjava.lang.ref.Reference.wait\t7\n" +
	"main\ta.B.hot\t6\n" +
	"main\tx.Y$$Lambda$12/0x0000000800c3a000.run\t2\n" +
	"main\tx.Y$$Lambda$13/0x0000000800c3b000.run\t1\n" +
	"main\ta.B.zero\t0\n"

func TestReadSelfTSV(t *testing.T) {
	dir := writeRun(t, t.TempDir(), "lusearch", "jfr", "1", window{time.Second, time.Second}, goodTSV)
	d, err := readSelfTSV(filepath.Join(dir, "self.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	// main only; the two lambdas are one normalised method; zero rows dropped.
	want := dist{"a.B.hot": 6, "x.Y$$Lambda.run": 3}
	if len(d) != len(want) {
		t.Errorf("read %v, want %v", d, want)
	}
	for m, w := range want {
		if d[m] != w {
			t.Errorf("%s: %v samples, want %v", m, d[m], w)
		}
	}
}

func TestReadSelfTSVErrors(t *testing.T) {
	cases := []struct{ name, tsv, want string }{
		{"header", "thread\tmethod\tcount\nmain\ta.B.c\t1\n", "self.tsv:1: header"},
		{"empty", "", "self.tsv: empty file"},
		{"fields", "thread\tmethod\tsamples\nmain\ta.B.c\t1\nmain\ta.B.d\n", "self.tsv:3: 2 tab-separated fields"},
		{"samples", "thread\tmethod\tsamples\nmain\ta.B.c\tmany\n", "self.tsv:2: samples \"many\""},
		{"negative", "thread\tmethod\tsamples\nmain\ta.B.c\t-1\n", "self.tsv:2: samples \"-1\""},
		{"duplicate", "thread\tmethod\tsamples\nmain\ta.B.c\t3\nmain\ta.B.c\t1\n", "self.tsv:3: thread \"main\" method \"a.B.c\" listed again (first on line 2)"},
		{"blank", "thread\tmethod\tsamples\n\nmain\ta.B.c\t1\n", "self.tsv:2: empty line"},
		{"method", "thread\tmethod\tsamples\nmain\t\t1\n", "self.tsv:2: empty method"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeRun(t, t.TempDir(), "lusearch", "jfr", "1", window{time.Second, time.Second}, c.tsv)
			_, err := readSelfTSV(filepath.Join(dir, "self.tsv"))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestReadRealRefusesOtherWindow(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "lusearch", "jfr", "1", window{8 * time.Second, 10 * time.Second}, goodTSV)
	_, err := readReal(dir, []string{"lusearch"}, []string{"jfr"}, window{time.Second, 10 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "warmup_ns is 8s, but --warmup is 1s") {
		t.Errorf("warm-up mismatch: error %v", err)
	}
	_, err = readReal(dir, []string{"lusearch"}, []string{"jfr"}, window{8 * time.Second, 3 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "window_ns is 10s, but --window is 3s") {
		t.Errorf("window mismatch: error %v", err)
	}
	_, err = readReal(dir, []string{"lusearch"}, []string{"async"}, window{8 * time.Second, 10 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "no real runs of lusearch under async") {
		t.Errorf("missing profiler: error %v", err)
	}
	runs, err := readReal(dir, []string{"lusearch"}, []string{"jfr"}, window{8 * time.Second, 10 * time.Second})
	if err != nil || len(runs["lusearch"]["jfr"]) != 1 || runs["lusearch"]["jfr"][0].Meta.JavaVersion != "17.0.15" {
		t.Errorf("readReal = %v, %v", runs, err)
	}
}

func TestReadMetaErrors(t *testing.T) {
	dir := t.TempDir()
	rdir := writeRun(t, dir, "lusearch", "jfr", "1", window{time.Second, time.Second}, goodTSV)
	path := filepath.Join(rdir, "meta.json")
	if _, err := readMeta(path, "antlr", "jfr"); err == nil || !strings.Contains(err.Error(), `app "lusearch", but the run is in the directory of "antlr"`) {
		t.Errorf("app mismatch: %v", err)
	}
	if _, err := readMeta(path, "lusearch", "async"); err == nil || !strings.Contains(err.Error(), `profiler "jfr"`) {
		t.Errorf("profiler mismatch: %v", err)
	}
	os.WriteFile(path, []byte(`{"app":"lusearch",`), 0o644)
	if _, err := readMeta(path, "lusearch", "jfr"); err == nil || !strings.Contains(err.Error(), "meta.json") {
		t.Errorf("bad JSON: %v", err)
	}
	os.WriteFile(path, []byte(`{"app":"lusearch","profiler":"jfr","warmup_ns":1,"window_ns":1,"interval_ns":1,"load_before":[1],"load_after":[1,2,3]}`), 0o644)
	if _, err := readMeta(path, "lusearch", "jfr"); err == nil || !strings.Contains(err.Error(), "load_before and load_after") {
		t.Errorf("short load: %v", err)
	}
}

func TestRunBadInputIsUsageError(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "lusearch", "jfr", "1", window{time.Second, time.Second}, "thread\tmethod\tsamples\nmain\ta.B.c\tx\n")
	for _, args := range [][]string{
		{"--data", dir, "--apps", "lusearch", "--profilers", "jfr", "--warmup", "1s", "--window", "1s"},
		{"--apps", "nosuch"},
		{"--profilers", "jfr,jfr"},
		{"--seeds", "0"},
		{"--jobs", "0"},
		{"--warmup", "2s", "--duration", "1s"},
		{"--apps", "lusearch", "--per-method", "antlr"},
		{"--bogus"},
		{"extra"},
	} {
		var out, errw strings.Builder
		err := run(t.Context(), args, &out, &errw)
		var ue *usageError
		if !errors.As(err, &ue) {
			t.Errorf("run %v: error %v, want a usage error (exit 2)", args, err)
		}
	}
}
