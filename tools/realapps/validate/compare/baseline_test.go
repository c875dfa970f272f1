package main

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sampleResults() *results {
	nan := math.NaN()
	r := &results{
		Apps:      []string{"a", "b"},
		Profilers: []string{profSafepoint, profJFRDNS},
		Cells: []cell{
			{App: "a", Profiler: profSafepoint, Reps: 3, Seeds: 2, NoiseFloor: 0.8, RealVsSim: 0.5, NullTruth: 0.3, NullJFRDNS: 0.2, Top1Real: "x", Top1Sim: "x", Top5: 0.6},
			{App: "a", Profiler: profJFRDNS, Reps: 3, Seeds: 2, NoiseFloor: 0.7, RealVsSim: 0.65, NullTruth: 0.6, NullJFRDNS: nan, Top1Real: "y", Top1Sim: "z", Top5: 0.4},
			{App: "b", Profiler: profSafepoint, Reps: 1, Seeds: 2, NoiseFloor: nan, RealVsSim: 0.4, NullTruth: 0.35, NullJFRDNS: 0.1, Top1Real: "x", Top1Sim: "w", Top5: 0.2},
		},
		Dis: []disagreement{{App: "a", Profiler: profSafepoint, Real: 0.25, Sim: 0.4}},
		Contexts: []contextCell{
			{App: "a", Profiler: profSafepoint, Reps: 3, Seeds: 2, Floor: 0.55, Sim: 0.2, NullJFRDNS: 0.1},
			{App: "a", Profiler: profJFRDNS, Reps: 3, Seeds: 2, Floor: 0.4, Sim: 0.3, NullJFRDNS: nan},
		},
	}
	r.Criteria = evaluate(r.Profilers, r.Cells, r.Dis)
	return r
}

// What --csv writes, --from and --baseline read back: every cell, NaNs
// included, and the criteria evaluated again come out the same.
func TestCSVRoundTrip(t *testing.T) {
	want := sampleResults()
	var b strings.Builder
	if err := writeCSV(&b, want); err != nil {
		t.Fatal(err)
	}
	got, err := parseCSV(strings.NewReader(b.String()), "x.csv")
	if err != nil {
		t.Fatal(err)
	}
	same := func(x, y float64) bool { return math.IsNaN(x) && math.IsNaN(y) || math.Abs(x-y) < 1e-9 }
	if len(got.Cells) != len(want.Cells) || len(got.Dis) != len(want.Dis) {
		t.Fatalf("read %d cells and %d disagreements, want %d and %d", len(got.Cells), len(got.Dis), len(want.Cells), len(want.Dis))
	}
	for i, w := range want.Cells {
		g := got.Cells[i]
		if g.App != w.App || g.Profiler != w.Profiler || g.Reps != w.Reps || g.Seeds != w.Seeds || g.Top1Real != w.Top1Real || g.Top1Sim != w.Top1Sim ||
			!same(g.NoiseFloor, w.NoiseFloor) || !same(g.RealVsSim, w.RealVsSim) || !same(g.NullTruth, w.NullTruth) ||
			!same(g.NullJFRDNS, w.NullJFRDNS) || !same(g.Top5, w.Top5) {
			t.Errorf("cell %d = %+v, want %+v", i, g, w)
		}
	}
	if d := got.Dis[0]; d.App != "a" || !same(d.Real, 0.25) || !same(d.Sim, 0.4) {
		t.Errorf("disagreement = %+v", d)
	}
	if len(got.Contexts) != len(want.Contexts) {
		t.Fatalf("read %d context cells, want %d", len(got.Contexts), len(want.Contexts))
	}
	for i, w := range want.Contexts {
		g := got.Contexts[i]
		if g.App != w.App || g.Profiler != w.Profiler || g.Reps != w.Reps || g.Seeds != w.Seeds ||
			!same(g.Floor, w.Floor) || !same(g.Sim, w.Sim) || !same(g.NullJFRDNS, w.NullJFRDNS) {
			t.Errorf("context cell %d = %+v, want %+v", i, g, w)
		}
	}
	if len(got.Criteria) != len(want.Criteria) {
		t.Fatalf("criteria %+v, want %+v", got.Criteria, want.Criteria)
	}
	for i := range want.Criteria {
		if got.Criteria[i] != want.Criteria[i] {
			t.Errorf("criterion %d = %+v, want %+v", i, got.Criteria[i], want.Criteria[i])
		}
	}
}

func TestParseCSVErrors(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"header", "a,b,c\n", "not a compare --csv file"},
		{"metric", "app,profiler,metric,value,method\na,safepoint,overlap,1,\n", `x.csv:2: unknown metric "overlap"`},
		{"value", "app,profiler,metric,value,method\na,safepoint,noise_floor,high,\n", `x.csv:2: value "high"`},
	} {
		_, err := parseCSV(strings.NewReader(c.in), "x.csv")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

// --baseline lists each pair's change, the means and the criteria,
// baseline → now, and names a pair that only one of the two has.
func TestWriteAgainst(t *testing.T) {
	base := sampleResults()
	now := sampleResults()
	now.Cells[0].RealVsSim = 0.6
	now.Cells[0].Top1Sim = "v"
	now.Cells = now.Cells[:2] // b's pair: baseline only
	now.Criteria = evaluate(now.Profilers, now.Cells, now.Dis)
	now.Contexts[0].Sim = 0.35
	var b strings.Builder
	writeAgainst(&b, "old.csv", base, now)
	out := b.String()
	for _, want := range []string{
		"| a | safepoint | 50.0 % → 60.0 % | +10.0 | yes → no |",
		"| a | jfr-dns | 65.0 % → 65.0 % | 0.0 | no → no |",
		"| safepoint | 1 | 50.0 % → 60.0 % | 1 → 0 |",
		"| hottest method matches | safepoint | 1 of 2 → 0 of 1 |",
		"In one of the two only: b safepoint (baseline only).",
		"| a | safepoint | 20.0 % → 35.0 % | +15.0 |",
		"| jfr-dns | 1 | 30.0 % → 30.0 % |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// --from takes no flag that would choose what to run.
func TestFromRefusesRunFlags(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.csv")
	var b strings.Builder
	if err := writeCSV(&b, sampleResults()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o666); err != nil {
		t.Fatal(err)
	}
	var out, errw strings.Builder
	err := run(t.Context(), []string{"--from", path, "--seeds", "2"}, &out, &errw)
	var ue *usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--seeds") {
		t.Errorf("--from with --seeds: err = %v, want a usage error naming --seeds", err)
	}
	out.Reset()
	if err := run(t.Context(), []string{"--from", path, "--baseline", path}, &out, &errw); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Results read from") || !strings.Contains(out.String(), "| a | safepoint | 50.0 % → 50.0 % | 0.0 | yes → yes |") {
		t.Errorf("--from --baseline output:\n%s", out.String())
	}
}
