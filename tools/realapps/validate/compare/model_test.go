package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/program"
)

func TestSelfByMethod(t *testing.T) {
	b := profile.NewBuilder("jfr", "nanoseconds", 10_000_000)
	f := b.Func(profile.Function{Name: "a.B.f(I)V", Class: "a.B", Method: "f", Signature: "(I)V"})
	g := b.Func(profile.Function{Name: "a.B$$Lambda$7+0x00007f.123.run", Class: "a.B$$Lambda$7+0x00007f.123", Method: "run"})
	b.AddSample([]profile.Frame{{Func: int32(g)}, {Func: int32(f)}}, 3, 30, "main") // leaf f
	b.AddSample([]profile.Frame{{Func: int32(g)}}, 2, 20, "main")
	b.AddSample([]profile.Frame{{Func: int32(f)}}, 5, 50, "worker")
	b.AddSample([]profile.Frame{{Func: int32(f)}}, 7, 70, "")
	p := b.Build()
	s := selfByMethod(p, false)
	if len(s) != 2 || s["a.B.f"] != 3 || s["a.B$$Lambda.run"] != 2 {
		t.Errorf("sampler: %v, want a.B.f 3 and a.B$$Lambda.run 2 (main only, counts)", s)
	}
	tr := selfByMethod(p, true)
	if len(tr) != 2 || tr["a.B.f"] != 30+70 || tr["a.B$$Lambda.run"] != 20 {
		t.Errorf("truth: %v, want a.B.f 100 and a.B$$Lambda.run 20 (main and no thread, weights)", tr)
	}
}

// shortProgram is a thread main whose loop ends after 10⁷ cycles (80 ms
// simulated under hotspot17: it runs interpreted).
const shortProgram = `
name: short
methods:
  - class: a.Main
    name: main
    body:
      - loop:
          trips: 1000
          body:
            - work: {cycles: 10000, bytecodes: 6}
threads:
  - name: main
    entry: a.Main.main
`

// TestModelEndingBeforeWindowRefused: a model whose program ends before
// --warmup has no profile in the window; the run says so (exit 2)
// rather than crashing in Collect on samplers that never attached.
func TestModelEndingBeforeWindowRefused(t *testing.T) {
	old := getModel
	defer func() { getModel = old }()
	getModel = func(string) (*program.Program, error) { return program.Parse([]byte(shortProgram), program.YAML) }
	ms := modelSettings{Skip: 100 * time.Millisecond, Duration: 200 * time.Millisecond, Seeds: 1, Jobs: 1}
	_, err := runModels(t.Context(), []string{"lusearch"}, []string{profSafepoint}, ms, io.Discard)
	var ue *usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "model lusearch-real seed 1 ends at 80ms simulated, before the window starts at --warmup 100ms") {
		t.Errorf("error %v, want a usage error naming the end and the warm-up", err)
	}
	// Ending inside the window is kept, and recorded.
	ms.Skip = 50 * time.Millisecond
	res, err := runModels(t.Context(), []string{"lusearch"}, []string{profSafepoint}, ms, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if got := res["lusearch"].Ends[0]; got < 50*time.Millisecond || got > 100*time.Millisecond {
		t.Errorf("Ends[0] = %v, want the program's end, about 80ms", got)
	}
	var b strings.Builder
	writeEnds(&b, &results{Apps: []string{"lusearch"}, Settings: ms, Ends: map[string][]time.Duration{"lusearch": res["lusearch"].Ends}})
	if !strings.Contains(b.String(), "lusearch-real seed 1 ended at 80ms") {
		t.Errorf("the report does not name the early end: %q", b.String())
	}
	if len(res["lusearch"].Profiles[profSafepoint][0]) == 0 {
		t.Error("no safepoint samples in the 30 ms the window held")
	}
}

// TestLoopScaleAndModelsDir: --models reads <app>-real.yaml from a
// directory, and --loop-scale lengthens its driver loop: the short
// program (80 ms) ends inside a 300 ms run unscaled and runs past it ×5.
func TestLoopScaleAndModelsDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lusearch-real.yaml"), []byte(shortProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	ms := modelSettings{Skip: 50 * time.Millisecond, Duration: 300 * time.Millisecond, Seeds: 1, Jobs: 1, Models: dir}
	res, err := runModels(t.Context(), []string{"lusearch"}, []string{profSafepoint}, ms, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if got := res["lusearch"].Ends[0]; got == 0 || got > 100*time.Millisecond {
		t.Errorf("unscaled: Ends[0] = %v, want the program's end at about 80ms", got)
	}
	ms.LoopScale = 5
	if res, err = runModels(t.Context(), []string{"lusearch"}, []string{profSafepoint}, ms, io.Discard); err != nil {
		t.Fatal(err)
	}
	if got := res["lusearch"].Ends[0]; got != 0 {
		t.Errorf("×5: the program ended at %v, want it to outlast the 300 ms run", got)
	}
	ms.Models = filepath.Join(dir, "missing")
	if _, err := runModels(t.Context(), []string{"lusearch"}, []string{profSafepoint}, ms, io.Discard); err == nil || !strings.Contains(err.Error(), "lusearch-real.yaml") {
		t.Errorf("a missing model file: error %v, want one naming the file", err)
	}
}
