package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/workloads"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func runMain(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = Main(args, &o, &e)
	return code, o.String(), e.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run 'go test ./cmd/profsim -update' to create it")
	assert.Equal(t, string(want), got)
}

func TestRunTableGolden(t *testing.T) {
	code, out, errOut := runMain("run", "--workload", "hotcold", "--duration", "100ms", "--seed", "7",
		"--samplers", "truth,safepoint,tprof,async", "--inline=false", "--explain-jit")
	require.Equal(t, 0, code, errOut)
	golden(t, "run_hotcold.txt", out)
	code, out, errOut = runMain("run", "--workload", "callpair", "--duration", "200ms", "--samplers", "hprof", "--mode", "costed", "--strip-mining", "1000")
	require.Equal(t, 0, code, errOut)
	golden(t, "run_callpair_costed.txt", out)
}

func TestRunJSONContract(t *testing.T) {
	code, out, errOut := runMain("run", "--workload", "hotcold", "--duration", "20ms", "--format", "json", "--samplers", "truth,safepoint,async")
	require.Equal(t, 0, code, errOut)
	var rep struct {
		Workload    string `json:"workload"`
		Seed        uint64 `json:"seed"`
		SimulatedNS int64  `json:"simulated_ns"`
		Profiles    map[string]struct {
			Samples int64 `json:"samples"`
			Methods []struct {
				Method     string  `json:"method"`
				SelfShare  float64 `json:"self_share"`
				TotalShare float64 `json:"total_share"`
			} `json:"methods"`
			Edges []struct {
				Caller, Callee string
				Count          int64
			} `json:"edges"`
			OverlapVsTruth *float64 `json:"overlap_vs_truth"`
		} `json:"profiles"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, "hotcold", rep.Workload)
	assert.Equal(t, uint64(1), rep.Seed)
	assert.Equal(t, int64(20_000_000), rep.SimulatedNS)
	truth := rep.Profiles["truth"]
	require.NotEmpty(t, truth.Methods)
	assert.Equal(t, "HotCold.hot", truth.Methods[0].Method)
	assert.GreaterOrEqual(t, truth.Methods[0].SelfShare, 0.9)
	for i := 1; i < len(truth.Methods); i++ {
		assert.GreaterOrEqual(t, truth.Methods[i-1].SelfShare, truth.Methods[i].SelfShare, "sorted by self_share")
	}
	require.NotEmpty(t, truth.Edges)
	assert.Equal(t, "HotCold.cold", truth.Edges[0].Caller)
	assert.Equal(t, "HotCold.hot", truth.Edges[0].Callee)
	assert.Positive(t, truth.Samples)
	assert.Nil(t, truth.OverlapVsTruth)
	for _, s := range []string{"safepoint", "async"} {
		p, ok := rep.Profiles[s]
		require.True(t, ok, s)
		require.NotNil(t, p.OverlapVsTruth, s)
		assert.True(t, *p.OverlapVsTruth >= 0 && *p.OverlapVsTruth <= 1, s)
		assert.Positive(t, p.Samples, s)
	}
}

// --truth methods records the truth per method: every per-method figure
// and overlap is the calling-context tree's, the config says so and its
// args reproduce it.
func TestRunTruthPerMethod(t *testing.T) {
	type report struct {
		Profiles map[string]struct {
			Samples int64 `json:"samples"`
			Methods []struct {
				Method     string   `json:"method"`
				SelfShare  float64  `json:"self_share"`
				TotalShare *float64 `json:"total_share"`
			} `json:"methods"`
			OverlapVsTruth     *float64 `json:"overlap_vs_truth"`
			LineOverlapVsTruth *float64 `json:"line_overlap_vs_truth"`
			HotEdgeCoverage    *float64 `json:"hot_edge_coverage_vs_truth"`
		} `json:"profiles"`
		Config struct {
			Truth string   `json:"truth"`
			Args  []string `json:"args"`
		} `json:"config"`
	}
	run := func(extra ...string) report {
		args := append([]string{"run", "--workload", "jython", "--duration", "30ms", "--format", "json", "--samplers", "truth,async,safepoint"}, extra...)
		code, out, errOut := runMain(args...)
		require.Equal(t, 0, code, errOut)
		var r report
		require.NoError(t, json.Unmarshal([]byte(out), &r))
		return r
	}
	tree, flat := run(), run("--truth", "methods")
	assert.Empty(t, tree.Config.Truth)
	assert.NotContains(t, tree.Config.Args, "--truth")
	assert.Equal(t, "methods", flat.Config.Truth)
	assert.Contains(t, strings.Join(flat.Config.Args, " "), "--truth methods")
	require.NotEmpty(t, tree.Profiles["truth"].Methods)
	for _, m := range flat.Profiles["truth"].Methods {
		assert.Nil(t, m.TotalShare, "a truth per method has no total shares: %s", m.Method)
	}
	for name, p := range tree.Profiles {
		for i, m := range p.Methods {
			require.NotNil(t, m.TotalShare, "%s %s", name, m.Method)
			if name != "truth" {
				assert.Equal(t, m, flat.Profiles[name].Methods[i])
			}
			f := flat.Profiles[name].Methods[i]
			assert.Equal(t, m.Method, f.Method)
			assert.Equal(t, m.SelfShare, f.SelfShare)
		}
		assert.Equal(t, p.Samples, flat.Profiles[name].Samples)
		assert.Equal(t, p.OverlapVsTruth, flat.Profiles[name].OverlapVsTruth, name)
		assert.Equal(t, p.LineOverlapVsTruth, flat.Profiles[name].LineOverlapVsTruth, name)
		if name != "truth" {
			assert.NotNil(t, p.HotEdgeCoverage, name)
			assert.Nil(t, flat.Profiles[name].HotEdgeCoverage, "%s: calling-context edges need the tree", name)
		}
	}

	code, out, errOut := runMain("run", "--workload", "jython", "--duration", "30ms", "--format", "csv", "--samplers", "truth,async", "--truth", "methods")
	require.Equal(t, 0, code, errOut)
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, r := range rows[1:] {
		assert.Equal(t, r[col["profile"]] == "truth", r[col["total_share"]] == "", "total_share of %s %s", r[col["profile"]], r[col["method"]])
	}
}

// Same seed and configuration → byte-identical JSON, for every workload.
func TestRunJSONIsDeterministic(t *testing.T) {
	for _, w := range []string{"hotcold", "callpair", "sqsum", "abcuv", "deepcall", "testdata/threads.yaml"} {
		args := []string{"run", "--workload", w, "--duration", "10ms", "--samplers", "truth,tprof,safepoint", "--format", "json", "--seed", "11", "--cpus", "2"}
		_, a, _ := runMain(args...)
		_, b, _ := runMain(args...)
		require.NotEmpty(t, a, w)
		assert.Equal(t, a, b, w)
		args[len(args)-3] = "12"
		if w == "hotcold" || w == "abcuv" || w == "callpair" || w == "sqsum" {
			continue // no random choices at 10 ms beyond tprof's first tick
		}
		_, c, _ := runMain(args...)
		if strings.HasSuffix(w, ".yaml") || w == "deepcall" { // these draw random numbers
			assert.NotEqual(t, a, c, "%s: another seed, another run", w)
		}
	}
}

func TestRunWritesPprofAndFolded(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := runMain("run", "--workload", "abcuv", "--duration", "10ms", "--out", dir)
	require.Equal(t, 0, code, errOut)
	f, err := os.Open(filepath.Join(dir, "truth.pb.gz"))
	require.NoError(t, err)
	defer f.Close()
	p, err := profile.Parse(f)
	require.NoError(t, err)
	require.NoError(t, p.CheckValid())
	assert.NotEmpty(t, p.Sample)
	folded, err := os.ReadFile(filepath.Join(dir, "truth.folded"))
	require.NoError(t, err)
	assert.Contains(t, string(folded), "Main.main;Example.a;Example.b;Example.u;Example.v ")
	if testing.Short() {
		return
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	out, err := exec.Command("go", "tool", "pprof", "-top", filepath.Join(dir, "truth.pb.gz")).CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "Example.v")
}

func TestBadInputExitsTwoWithOneLine(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("name: bad\nmethods: [{class: A, name: a, body: [{loop: {body: [{work: {cycles: 1, bytecodes: 1}}]}}]}]\nthreads: [{name: m, entry: A.a}]\n"), 0o644))
	garbage := filepath.Join(dir, "garbage.json")
	require.NoError(t, os.WriteFile(garbage, []byte("{not json"), 0o644))
	txt := filepath.Join(dir, "prog.txt")
	require.NoError(t, os.WriteFile(txt, []byte("x"), 0o644))
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--workload", "nosuch"}, `unknown workload "nosuch"`},
		{[]string{"run", "--workload", "hotcld"}, `unknown workload "hotcld": did you mean "hotcold"?`},
		{[]string{"rnu"}, `unknown command "rnu"; did you mean "run"?`},
		{[]string{"run", "--workload", "hotcold", "-e", "cpu"}, `async-profiler's -e EVENT is --sampler async,engine=cpu|ctimer|itimer|wall`},
		{[]string{"run", "--workload", "hotcold", "--duraton", "1s"}, `did you mean --duration?`},
		{[]string{"study", "m1-listng1"}, `unknown experiment "m1-listng1"; did you mean "m1-listing1"?`},
		{[]string{"run", "--workload", "hotcold", "--vm", "hotspt17"}, `unknown VM preset "hotspt17"; did you mean "hotspot17"?`},
		{[]string{"run", "--workload", "HotCold"}, `did you mean "hotcold"?`},
		{[]string{"run", "--workload", "lusearch-rael"}, `did you mean "lusearch-real"?`},
		{[]string{"run", "--workload", "hotcold", "--sampler", "safepiont"}, `did you mean "safepoint"?`},
		{[]string{"run", "--workload", "hotcold", "--sampler", "jfr,stackdepth=64"}, `did you mean "depth"?`},
		{[]string{"run"}, "--workload is required"},
		{[]string{"run", "--workload", "hotcold", "--duration", "-1s"}, "--duration -1s must be > 0 and at most 277777h46m40s (10^18 ns)"},
		{[]string{"run", "--workload", "hotcold", "--duration", "soon"}, `--duration "soon": not a duration`},
		{[]string{"run", "--workload", "hotcold", "--duration", "100000000h"}, `--duration 100000000h: beyond the model's maximum time (10¹⁸ns, 277777h46m40s)`},
		{[]string{"run", "--workload", "hotcold", "--set", "sim.time_slice=99999999h"}, `sim.time_slice: "99999999h" is beyond the model's maximum time`},
		{[]string{"run", "--workload", "hotcold", "--seed", "-1"}, `--seed "-1": want a whole number in [0, 18446744073709551615]`},
		{[]string{"run", "--workload", "hotcold", "--cpus", "two"}, `--cpus "two": want a whole number`},
		{[]string{"run", "--workload", "hotcold", "--cpus", "0"}, "--cpus 0 must be in [1, 1024]"},
		{[]string{"run", "--workload", "hotcold", "--format", "xml"}, `--format "xml": want table, json, csv or jsonl`},
		{[]string{"run", "--workload", "hotcold", "--by", "file"}, `--by "file": want method or line`},
		{[]string{"run", "--workload", "hotcold", "--truth", "stacks"}, `--truth "stacks": want contexts or methods`},
		{[]string{"run", "--workload", "hotcold", "--sampler", "async,intervl=1ms"}, `sampler async: unknown key "intervl" (valid: engine, handler_base, handler_per_frame, interval, jitter, jstackdepth, oracle, threads_per_tick, tick_interval)`},
		{[]string{"run", "--workload", "hotcold", "--sampler", "async:x,interval=soon"}, `sampler async:x: interval: "soon" is not a duration`},
		{[]string{"run", "--workload", "hotcold", "--sampler", "jfr,period=-1ms"}, "sampler jfr: period: -1ms must be in [1us, 10¹⁸ns]"},
		{[]string{"run", "--workload", "hotcold", "--sampler", "async", "--sampler", "async"}, `"async" listed twice (give each instance its own label`},
		{[]string{"run", "--workload", "hotcold", "--sampler", "truth:x"}, "truth takes no label or keys"},
		{[]string{"run", "--workload", "hotcold", "--samplers", "async:x"}, "plain names only"},
		{[]string{"run", "--workload", "hotcold", "--jvm-flags", "-XX:+UseZGC"}, "-XX:+UseZGC: not an option profsim models (supported: -XX:±Inline"},
		{[]string{"run", "--workload", "hotcold", "--jvm-flags", "-XX:LoopStripMiningIter=x"}, "-XX:LoopStripMiningIter=x"},
		{[]string{"run", "--workload", "hotcold", "--set", "jit.inlin=false"}, `unknown key "jit.inlin" (valid: gc.eden_bytes`},
		{[]string{"run", "--workload", "hotcold", "--set", "sim.time_slice=0"}, "sim.time_slice: 0s must be in [100us, 10¹⁸ns]"},
		{[]string{"run", "--workload", "hotcold", "--set", "jit.inline"}, `"jit.inline" is not KEY=VALUE`},
		{[]string{"samplers", "gprof"}, `unknown sampler "gprof"`},
		{[]string{"run", "--workload", "hotcold", "--seed", "-3"}, `--seed "-3": want a whole number in [0, 18446744073709551615]`},
		{[]string{"run", "--workload", "hotcold", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"run", "--workload", bad}, "methods[0].body[0].loop.trips: missing"},
		{[]string{"run", "--workload", garbage}, "garbage.json: invalid program: line 1: JSON syntax:"},
		{[]string{"run", "--workload", txt}, `unknown workload file extension ".txt"`},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"run", "--workload", "hotcold", "--samplers", "truth,gprof"}, `unknown sampler "gprof"`},
		{[]string{"run", "--workload", "hotcold", "--samplers", "tprof,tprof"}, `"tprof" listed twice`},
		{[]string{"run", "--workload", "hotcold", "--samplers", "truth", "--mode", "costed"}, "--mode costed needs a sampler besides truth"},
		{[]string{"run", "--workload", "hotcold", "--mode", "lazy"}, `--mode "lazy"`},
		{[]string{"run", "--workload", "hotcold", "--vm", "dalvik"}, `unknown VM preset "dalvik"`},
		{[]string{"run", "--workload", "hotcold", "--strip-mining", "-1"}, "--strip-mining -1 must be in [0, 4294967295]"},
		{[]string{"samplers", "async", "x"}, `unexpected argument "x"`},
		{[]string{"workloads", "extra"}, `unexpected argument "extra"`},
	}
	for _, c := range cases {
		code, out, errOut := runMain(c.args...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Empty(t, out, "%v", c.args)
		assert.Contains(t, errOut, c.want, "%v", c.args)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "%v: one line, got %q", c.args, errOut)
	}
}

func TestWorkloadsListsEveryBuiltin(t *testing.T) {
	code, out, _ := runMain("workloads")
	require.Equal(t, 0, code)
	golden(t, "workloads.txt", out)
	for _, w := range []string{"hotcold", "callpair", "sqsum", "abcuv", "deepcall"} {
		assert.Contains(t, out, w)
	}
	for _, m := range workloads.Models() {
		assert.Contains(t, out, "\n"+m+" ", "the models of real applications are listed")
	}
	for _, e := range workloads.Experiments() {
		assert.Contains(t, out, "\n"+e+" ", "the studies' programs are listed")
	}
}

func TestSamplersListsEveryProfiler(t *testing.T) {
	code, out, _ := runMain("samplers")
	require.Equal(t, 0, code)
	golden(t, "samplers.txt", out)
	for _, s := range []string{"truth", "safepoint", "hprof", "xprof", "jprofile", "yourkit", "tprof", "async"} {
		assert.Contains(t, out, s+" ")
	}
}

func TestHelp(t *testing.T) {
	code, out, _ := runMain("run", "-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "-workload")
}

// The complete example in docs/WORKLOADS.md must be a valid, runnable
// workload: the doc and the code cannot drift apart.
func TestWorkloadsDocExampleRuns(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "WORKLOADS.md"))
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(doc), "```yaml\n")
	require.True(t, ok, "no yaml block in WORKLOADS.md")
	example, _, ok := strings.Cut(rest, "```")
	require.True(t, ok)
	path := filepath.Join(t.TempDir(), "shop.yaml")
	require.NoError(t, os.WriteFile(path, []byte(example), 0o644))
	code, out, errOut := runMain("run", "--workload", path, "--duration", "50ms")
	require.Equal(t, 0, code, errOut)
	for _, m := range []string{"Book.price", "Toy.price", "Shop.parse", "Shop.walk"} {
		assert.Contains(t, out, m)
	}
}

// docs/STANDINS.md is generated: it must be what the command prints.
func TestStandInsDocIsGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("measures every workload")
	}
	code, out, errOut := runMain("workloads", "--doc")
	require.Equal(t, 0, code, errOut)
	path := filepath.Join("..", "..", "docs", "STANDINS.md")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run 'go test ./cmd/profsim -update' to create it")
	assert.Equal(t, string(want), out, "regenerate with: go run ./cmd/profsim workloads --doc > docs/STANDINS.md")
}

func TestStudyCommand(t *testing.T) {
	code, out, _ := runMain("study")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "m2-causality")
	dir := t.TempDir()
	code, out, errOut := runMain("study", "a1-callpair", "--seeds", "1", "--out", dir)
	require.Equal(t, 0, code, errOut)
	assert.Empty(t, errOut, "no progress display when stderr is not a terminal")
	assert.Contains(t, out, "jikes-timer")
	for _, ext := range []string{".csv", ".md", ".data.csv", ".svg"} {
		info, err := os.Stat(filepath.Join(dir, "a1-callpair"+ext))
		require.NoError(t, err, ext)
		assert.Positive(t, info.Size(), ext)
	}
	code, _, errOut = runMain("study", "z9-nothing")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `unknown experiment "z9-nothing"`)
	code, _, errOut = runMain("study", "a1-callpair", "--seeds", "0")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--seeds 0 must be ≥ 1")
	// --size: the value, its combination with --full and whether the
	// experiment has a paper-length version are usage errors (status 2)
	// found before any run.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"a1-callpair", "--size", "huge"}, `--size "huge": want test, full or paper`},
		{[]string{"a1-callpair", "--size", "paper"}, "a1-callpair: --size paper: run length does not limit this experiment; the experiments with a paper-length version are b1-constant, b2-randomized"},
		{[]string{"b1-constant", "--full", "--size", "paper"}, "--full is --size full; it does not combine with --size paper"},
	} {
		code, _, errOut = runMain(append([]string{"study"}, c.args...)...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Contains(t, errOut, c.want, "%v", c.args)
	}
}

// --models runs an experiment on the models of real applications; an
// experiment without a version on them refuses it with status 2, naming
// the flag and those with one.
// TestStudyTooFewSeeds: W2's precision correlates runs of two seeds; one
// seed is bad input (exit 2, the reason), not a panic.
func TestStudyTooFewSeeds(t *testing.T) {
	code, _, errOut := runMain("study", "w2-overhead-precision", "--seeds", "1", "--out", t.TempDir())
	assert.Equal(t, 2, code, errOut)
	assert.Contains(t, errOut, "needs at least 2 seeds, got 1")
	assert.NotContains(t, errOut, "panic")
}

func TestStudyModelsFlag(t *testing.T) {
	code, _, errOut := runMain("study", "b1-constant", "--models")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--models: b1-constant has no version on the models")
	assert.Contains(t, errOut, "m2-causality, m3-disagreement, m4-innocuous, m5-autocorrelation, m6-observer, m7-no-inlining, m8-overhead, m9-actionable")
	code, out, _ := runMain("study", "m2-causality", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "-models")
}
