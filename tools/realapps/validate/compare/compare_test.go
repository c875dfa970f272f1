package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCompareCell(t *testing.T) {
	c := compareCell("app", profSafepoint, []dist{fa, fb}, []dist{fb}, []dist{fc}, []dist{fa})
	near(t, "noise floor", c.NoiseFloor, 0.7)
	near(t, "real vs profsim", c.RealVsSim, (0.6+0.4)/2)
	near(t, "null truth", c.NullTruth, (1+0.7)/2)
	near(t, "null jfr-dns", c.NullJFRDNS, (0.7+1)/2)
	if c.Top1Real != "x" || c.Top1Sim != "x" || !c.Top1Match() {
		t.Errorf("top-1 %q vs %q", c.Top1Real, c.Top1Sim)
	}
	near(t, "top-5", c.Top5, 1.0/5)
	d := compareCell("app", profJFRDNS, []dist{fa}, []dist{fb}, []dist{fb}, []dist{fa})
	if !math.IsNaN(d.NullJFRDNS) || !math.IsNaN(d.NoiseFloor) {
		t.Errorf("jfr-dns with one rep: null %v, floor %v, want NaN", d.NullJFRDNS, d.NoiseFloor)
	}
	if d.Top1Real != "x" || d.Top1Sim != "x" {
		t.Errorf("top-1 %q vs %q", d.Top1Real, d.Top1Sim)
	}
	e := compareCell("app", profJFR, []dist{fb}, nil, []dist{fa}, nil)
	if e.Top1Real != "x" || !e.Top1Match() { // b's x and y tie: the first by name
		t.Errorf("top-1 real %q, want x", e.Top1Real)
	}
}

func TestCompareDisagreement(t *testing.T) {
	d := compareDisagreement("app", profSafepoint, []dist{fa}, []dist{fb, fc}, []dist{fa, fb}, []dist{fc, fc})
	near(t, "real", d.Real, (0.7+0.6)/2)
	near(t, "sim", d.Sim, (0.6+0.4)/2)
	near(t, "diff", d.Diff(), 0.15)
}

func TestCriteria(t *testing.T) {
	if !nearFloor(cell{NoiseFloor: 0.8, RealVsSim: 0.71}) || nearFloor(cell{NoiseFloor: 0.8, RealVsSim: 0.69}) {
		t.Error("nearFloor: 9 points below must pass, 11 fail")
	}
	if !nearFloor(cell{NoiseFloor: 0.6, RealVsSim: 0.9}) {
		t.Error("nearFloor: above the floor must pass")
	}
	if nearFloor(cell{NoiseFloor: math.NaN(), RealVsSim: 0.9}) {
		t.Error("nearFloor without a floor must fail")
	}
	if !beatsNull(cell{RealVsSim: 0.5, NullTruth: 0.39, NullJFRDNS: 0.40}) {
		t.Error("beatsNull: 11 and 10 points above must pass")
	}
	if beatsNull(cell{RealVsSim: 0.5, NullTruth: 0.30, NullJFRDNS: 0.41}) {
		t.Error("beatsNull: 9 points above one null must fail")
	}
	if !beatsNull(cell{RealVsSim: 0.5, NullTruth: 0.30, NullJFRDNS: math.NaN()}) {
		t.Error("beatsNull: a missing null is left out")
	}
	// Nine apps, safepoint: 7 near the floor, hottest right on 6.
	var cells []cell
	var dis []disagreement
	for i := range 9 {
		c := cell{App: string(rune('a' + i)), Profiler: profSafepoint, NoiseFloor: 0.8, RealVsSim: 0.75,
			NullTruth: 0.55, NullJFRDNS: 0.5, Top1Real: "m", Top1Sim: "m"}
		if i >= 7 {
			c.RealVsSim = 0.6 // 20 points below the floor, 5 above a null
		}
		if i >= 6 {
			c.Top1Sim = "n"
		}
		cells = append(cells, c)
		d := disagreement{App: c.App, Profiler: profSafepoint, Real: 0.3, Sim: 0.35}
		if i >= 2 {
			d.Sim = 0.45 // 15 points off
		}
		dis = append(dis, d)
	}
	got := evaluate([]string{profSafepoint}, cells, dis)
	want := []criterion{
		{"real vs profsim within 10 points of the noise floor", profSafepoint, 7, 9},
		{"hottest method matches", profSafepoint, 6, 9},
		{"beats the \"profilers agree\" null by >= 10 points", profSafepoint, 7, 9},
		{"predicted disagreement with jfr-dns within 10 points", profSafepoint, 2, 9},
	}
	if len(got) != len(want) {
		t.Fatalf("evaluate = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("criterion %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if !got[0].Pass() || got[1].Pass() || !got[2].Pass() || got[3].Pass() {
		t.Errorf("pass: %v %v %v %v, want true false true false", got[0].Pass(), got[1].Pass(), got[2].Pass(), got[3].Pass())
	}
}

// TestDeterministicAcrossJobs runs the whole command on a tiny window
// (each model run well under a second) at --jobs 1 and 4: the Markdown
// and the CSV must be byte-identical.
func TestDeterministicAcrossJobs(t *testing.T) {
	dir := t.TempDir()
	w := window{100 * time.Millisecond, 200 * time.Millisecond}
	tsv := "thread\tmethod\tsamples\n" +
		"main\torg.apache.lucene.search.ExactPhraseScorer.phraseFreq\t9\n" +
		"main\torg.apache.lucene.search.DisjunctionScorer.nextDoc\t5\n"
	for _, prof := range allProfilers {
		for _, rep := range []string{"1", "2"} {
			writeRun(t, dir, "lusearch", prof, rep, w, tsv)
		}
	}
	outputs := map[string]string{}
	for _, jobs := range []string{"1", "4"} {
		csvPath := filepath.Join(dir, "out-"+jobs+".csv")
		var out, errw strings.Builder
		err := run(t.Context(), []string{"--data", dir, "--apps", "lusearch", "--seeds", "2", "--jobs", jobs,
			"--warmup", "100ms", "--window", "200ms", "--csv", csvPath, "--per-method", "lusearch"}, &out, &errw)
		if err != nil {
			t.Fatalf("--jobs %s: %v\n%s", jobs, err, errw.String())
		}
		data, err := os.ReadFile(csvPath)
		if err != nil {
			t.Fatal(err)
		}
		outputs[jobs] = out.String() + "\n---\n" + string(data)
	}
	if outputs["1"] != outputs["4"] {
		t.Errorf("--jobs 1 and --jobs 4 differ:\n%s\n=====\n%s", outputs["1"], outputs["4"])
	}
	if !strings.Contains(outputs["1"], "| lusearch | safepoint | 2 | 2 |") ||
		!strings.Contains(outputs["1"], "lusearch,jfr,real_vs_profsim,") {
		t.Errorf("output lacks the lusearch rows:\n%s", outputs["1"])
	}
}
