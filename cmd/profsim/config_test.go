package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"github.com/profsim/profsim/samplers"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
)

// jsonResult is the part of the JSON contract these tests read.
type jsonResult struct {
	Order    []string `json:"order"`
	Profiles map[string]struct {
		Samples int64 `json:"samples"`
		Costs   *struct {
			Requested      int64 `json:"requested"`
			Taken          int64 `json:"taken"`
			Undecipherable int64 `json:"undecipherable"`
		} `json:"costs"`
	} `json:"profiles"`
	Config struct {
		VM       string            `json:"vm"`
		Seed     uint64            `json:"seed"`
		Settings map[string]string `json:"settings"`
		Workload struct {
			Name, Ref, SHA256 string
		} `json:"workload"`
		Samplers []struct {
			ID     string            `json:"id"`
			Name   string            `json:"name"`
			Label  string            `json:"label"`
			Params map[string]string `json:"params"`
			Spec   string            `json:"spec"`
		} `json:"samplers"`
		Args []string `json:"args"`
	} `json:"config"`
}

func runJSON(t *testing.T, args ...string) (jsonResult, string) {
	t.Helper()
	code, out, errOut := runMain(append(args, "--format", "json")...)
	require.Equal(t, 0, code, errOut)
	var r jsonResult
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	return r, out
}

// intervalRatioTolerance: two async instances at 1 ms and 7 ms on one
// single-threaded run take "about 7×" as many samples (the words);
// the only slack is the ticks that fall after the program ends.
const intervalRatioTolerance = 0.1

func TestTwoInstancesOfOneSamplerWatchOneRun(t *testing.T) {
	r, _ := runJSON(t, "run", "--workload", "hotcold", "--duration", "500ms",
		"--sampler", "async:fast,interval=1ms", "--sampler", "async:slow,interval=7ms")
	assert.Equal(t, []string{"truth", "async:fast", "async:slow"}, r.Order)
	fast, slow := r.Profiles["async:fast"], r.Profiles["async:slow"]
	require.Positive(t, slow.Samples)
	assert.InEpsilon(t, 7, float64(fast.Samples)/float64(slow.Samples), intervalRatioTolerance)
	require.Len(t, r.Config.Samplers, 2)
	assert.Equal(t, "async", r.Config.Samplers[0].Name)
	assert.Equal(t, "fast", r.Config.Samplers[0].Label)
	assert.Equal(t, "1ms", r.Config.Samplers[0].Params["interval"])
	assert.Equal(t, "7ms", r.Config.Samplers[1].Params["interval"])
	assert.Equal(t, "2048", r.Config.Samplers[1].Params["jstackdepth"], "defaults are recorded too")

	dir := t.TempDir()
	code, _, errOut := runMain("run", "--workload", "hotcold", "--duration", "50ms", "--sampler", "async:fast,interval=1ms", "--out", dir)
	require.Equal(t, 0, code, errOut)
	for _, f := range []string{"truth.pb.gz", "async-fast.pb.gz", "async-fast.folded"} {
		_, err := os.Stat(filepath.Join(dir, f))
		assert.NoError(t, err, f)
	}
}

// A real HotSpot option and its shorthand resolve to the same settings,
// so the whole output is the same, byte for byte.
func TestJVMFlagsEqualTheirShorthands(t *testing.T) {
	for _, pair := range [][2][]string{
		{{"--inline=false"}, {"--jvm-flags", "-XX:-Inline"}},
		{{"--strip-mining", "0"}, {"--jvm-flags", "-XX:-UseCountedLoopSafepoints"}},
		{{"--strip-mining", "100"}, {"--jvm-flags", "-XX:LoopStripMiningIter=100"}},
		{{"--debug-non-safepoints"}, {"--jvm-flags", "-XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints"}},
		{{"--set", "jit.inline=false"}, {"--jvm-flags", "-XX:-Inline"}},
	} {
		for _, format := range []string{"table", "json"} {
			base := []string{"run", "--workload", "hotcold", "--duration", "100ms", "--samplers", "truth,safepoint,async", "--format", format}
			code, a, errOut := runMain(append(base, pair[0]...)...)
			require.Equal(t, 0, code, errOut)
			code, b, errOut := runMain(append(base, pair[1]...)...)
			require.Equal(t, 0, code, errOut)
			assert.Equal(t, a, b, "%v vs %v (%s)", pair[0], pair[1], format)
		}
	}
}

// The JSON config round-trips: its args, run again, give the same result
// byte for byte, and the config's own fields say the same as its args.
func TestConfigRoundTrips(t *testing.T) {
	prog := filepath.Join("testdata", "threads.yaml")
	for _, args := range [][]string{
		{"run", "--workload", "hotcold", "--duration", "100ms", "--jvm-flags", "-XX:-Inline", "--sampler", "async:fast,interval=1ms", "--samplers", "truth,safepoint"},
		{"run", "--workload", "callpair", "--duration", "100ms", "--vm", "jikes", "--inline=false", "--samplers", "cbs,jikes-timer", "--sampler", "cbs:wide,stride=7,samples=16"},
		{"run", "--workload", "deepcall", "--duration", "50ms", "--cpus", "2", "--seed", "5", "--mode", "costed", "--sampler", "safepoint,depth=8", "--sampler", "tprof,random=1ms", "--set", "sim.time_slice=5ms", "--gc=false"},
		{"run", "--workload", prog, "--duration", "50ms", "--baseline-only", "--vm", "hotspot6", "--samplers", "jfr,komorium", "--sampler", "jfr:fast,period=1ms,max_threads=1"},
		{"run", "--workload", "hotcold", "--duration", "50ms", "--inject", "HotCold.hot:100", "--speedup", "HotCold.cold:0.5", "--samplers", "truth,tprof"},
		{"run", "--workload", "hotcold", "--duration", "50ms", "--slowdown", "HotCold.cold:2:1.5", "--slowdown", "*:2", "--samplers", "truth,async"},
	} {
		r, first := runJSON(t, args...)
		require.NotEmpty(t, r.Config.Args, "%v", args)
		assert.Equal(t, "run", r.Config.Args[0])
		_, again := runJSON(t, r.Config.Args...)
		assert.Equal(t, first, again, "%v: replaying config.args", args)

		// The args are built from the fields: a script that builds its own
		// command line from config gets the same.
		var fromFields []string
		for _, s := range r.Config.Samplers {
			fromFields = append(fromFields, "--sampler", s.Spec)
		}
		for k, v := range r.Config.Settings {
			fromFields = append(fromFields, "--set", k+"="+v)
		}
		for _, want := range fromFields {
			assert.Contains(t, r.Config.Args, want, "%v", args)
		}
		if slices.Contains(args, "--baseline-only") {
			// Without the optimizing JIT its settings do nothing, and
			// --set refuses them: the config leaves them out.
			for k := range r.Config.Settings {
				assert.False(t, strings.HasPrefix(k, "jit."), "%v: %s in a baseline run's config", args, k)
			}
		}
	}
}

// Every numeric field of --format csv parses as a float, and the run's
// settings are columns.
func TestCSVIsTidy(t *testing.T) {
	for _, by := range []string{"method", "line"} {
		code, out, errOut := runMain("run", "--workload", "hotcold", "--duration", "50ms", "--samplers", "truth,safepoint,async", "--format", "csv", "--by", by)
		require.Equal(t, 0, code, errOut)
		rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		require.NoError(t, err)
		require.Greater(t, len(rows), 2)
		header := rows[0]
		col := map[string]int{}
		for i, h := range header {
			col[h] = i
		}
		for _, c := range []string{"workload", "seed", "duration_ns", "vm", "jit_strip_mining_iter", "sim_time_slice_ns", "profile", "method", "self_share", "truth_self_share"} {
			assert.Contains(t, col, c, by)
		}
		text := map[string]bool{"workload": true, "workload_sha256": true, "mode": true, "vm": true, "profile": true, "method": true, "profsim_version": true, "profsim_revision": true, "profsim_build": true}
		for _, row := range rows[1:] {
			require.Len(t, row, len(header))
			for i, v := range row {
				if text[header[i]] || v == "" {
					continue
				}
				_, err := strconv.ParseFloat(v, 64)
				assert.NoError(t, err, "%s column %s = %q", by, header[i], v)
			}
			assert.Equal(t, "1000", row[col["jit_strip_mining_iter"]], "hotspot17's strip mining")
		}
	}
}

func TestSubcommandHelp(t *testing.T) {
	for args, want := range map[string]string{
		"samplers --help":  "profsim samplers [NAME]",
		"study --help":     "m2-causality",
		"workloads --help": "--measure",
		"run --help":       "hotspot17",
		"run --keys":       "jit.strip_mining_iter",
		"samplers async":   "oracle",
	} {
		code, out, errOut := runMain(strings.Fields(args)...)
		assert.Equal(t, 0, code, "%s: %s", args, errOut)
		assert.Contains(t, out, want, args)
	}
}

// docs/SAMPLERS.md's key tables are generated: they must be what the
// command prints.
func TestSamplerKeysDocIsGenerated(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, samplers.WriteKeysDoc(&b))
	path := filepath.Join("..", "..", "docs", "SAMPLERS.md")
	doc, err := os.ReadFile(path)
	require.NoError(t, err)
	const begin, end = "<!-- keys:begin -->\n", "<!-- keys:end -->"
	head, rest, ok := strings.Cut(string(doc), begin)
	require.True(t, ok, "SAMPLERS.md has no %q marker", begin)
	_, tail, ok := strings.Cut(rest, end)
	require.True(t, ok)
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(head+begin+b.String()+end+tail), 0o644))
		return
	}
	assert.Equal(t, b.String(), strings.SplitN(rest, end, 2)[0], "regenerate with: go test ./cmd/profsim -run TestSamplerKeysDocIsGenerated -update")
}

// The header says what the JIT does: where counted loops poll, unrolling
// included; a baseline run has no JIT settings to show.
func TestRunHeaderDescribesTheJIT(t *testing.T) {
	code, out, errOut := runMain("run", "--workload", "hotcold", "--duration", "5ms", "--vm", "hotspot17")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "counted-loop polls every 1000 iterations (8000 of a small body, unrolled 8×)")
	assert.Contains(t, out, "   safepoint re-check 100us (1.1ms past 1ms), overhead 53us\n", "hotspot17's measured safepoint costs")
	code, out, errOut = runMain("run", "--workload", "hotcold", "--duration", "5ms", "--vm", "hotspot6")
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, out, "safepoint re-check", "hotspot6 has no safepoint costs")
	code, out, errOut = runMain("run", "--workload", "hotcold", "--duration", "5ms", "--vm", "hotspot6", "--set", "safepoint.operation_overhead=7us")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "   safepoint re-check 0s, overhead 7us\n")
	code, out, errOut = runMain("run", "--workload", "hotcold", "--duration", "5ms", "--strip-mining", "0")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "counted-loop polls none")
	code, out, errOut = runMain("run", "--workload", "hotcold", "--duration", "5ms", "--baseline-only")
	require.Equal(t, 0, code, errOut)
	header, _, _ := strings.Cut(out, "\n\n")
	assert.Contains(t, header, "vm hotspot17   baseline only (no optimizing JIT)\n")
	assert.NotContains(t, header, "inline", "no JIT: no JIT settings")
}

// Samples that debug information cannot resolve are counted in the JSON
// result: without inlining an arithmetic-only leaf (HotCold.hot without
// its uncommon traps) has no debug record at all
// (samplers.TestDebugInfoUndecipherableFrame), so async records such
// samples at bci 0 and jfr drops them.
func TestUndecipherableSamplesAreReported(t *testing.T) {
	file := filepath.Join(t.TempDir(), "leaf.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`
name: leaf
methods:
  - {class: L, name: main, body: [{loop: {trips: 1000000000, body: [{work: {cycles: 2, bytecodes: 4}}, {call: {method: L.hot}}]}}]}
  - {class: L, name: hot, body: [{work: {cycles: 100, bytecodes: 30}}]}
threads: [{name: main, entry: L.main}]
`), 0o644))
	r, _ := runJSON(t, "run", "--workload", file, "--duration", "300ms", "--inline=false", "--samplers", "async,jfr,safepoint")
	async, jfr, sp := r.Profiles["async"].Costs, r.Profiles["jfr"].Costs, r.Profiles["safepoint"].Costs
	assert.Positive(t, async.Undecipherable)
	assert.LessOrEqual(t, async.Undecipherable, async.Taken, "async keeps them")
	assert.Positive(t, jfr.Undecipherable)
	assert.Zero(t, sp.Undecipherable, "the safepoint sampler resolves no debug information")
}

// `profsim workloads --lines` numbers statements as the run numbers
// lines: for every built-in program, stand-in and fidelity twin, each
// statement's first instruction in the image is on the line the listing
// gives it, and of the listing's kind.
func TestWorkloadLinesAreTheRunsLines(t *testing.T) {
	kinds := map[sim.Op]string{sim.OpWork: "work", sim.OpNative: "native", sim.OpCall: "call", sim.OpVirtualCall: "virtual_call",
		sim.OpLoopEnter: "loop", sim.OpAlloc: "alloc", sim.OpSpawn: "spawn", sim.OpThrow: "throw"}
	for _, name := range slices.Concat(workloads.Names(), workloads.Twins()) {
		code, out, errOut := runMain("workloads", "--lines", name)
		require.Equal(t, 0, code, errOut)
		listed := map[string]map[int]string{} // method → line → kind
		var method string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if !strings.HasPrefix(l, " ") {
				method, listed[l] = l, map[int]string{}
				continue
			}
			f := strings.Fields(l)
			if n, err := strconv.Atoi(f[0]); err == nil {
				listed[method][n] = strings.TrimSuffix(f[1], ",")
			}
		}
		p, err := workloads.Get(name)
		require.NoError(t, err)
		img, err := sim.NewImage(p, sim.DefaultCostModel())
		require.NoError(t, err, name)
		checked := 0
		for i, c := range img.Base {
			for _, in := range c.Instrs {
				if k, ok := kinds[in.Op]; ok {
					assert.Equal(t, k, listed[img.Names[i]][int(in.Line)], "%s %s line %d", name, img.Names[i], in.Line)
					checked++
				}
			}
		}
		require.Positive(t, checked, name)
	}
}

// --explain-jit says when a queued compilation was never installed (the
// run ended first), and prints no install time or size for it.
func TestExplainJITSaysNeverInstalled(t *testing.T) {
	code, out, errOut := runMain("run", "--workload", "javac", "--duration", "300ms", "--samplers", "truth", "--explain-jit")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "never installed (the run ended first)")
	assert.NotContains(t, out, "installed 0s, 0 bytecodes")
}

// --explain-jit with --format json puts the JIT's decisions in the JSON.
func TestExplainJITInJSON(t *testing.T) {
	code, out, errOut := runMain("run", "--workload", "hotcold", "--duration", "50ms", "--explain-jit", "--format", "json")
	require.Equal(t, 0, code, errOut)
	var r struct {
		ExplainJIT string `json:"explain_jit"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	assert.Contains(t, r.ExplainJIT, "HotCold.hot [compiled] polls: return (after the pop)")
	code, out, _ = runMain("run", "--workload", "hotcold", "--duration", "50ms", "--format", "json")
	require.Equal(t, 0, code)
	assert.NotContains(t, out, "explain_jit", "only when asked")
}

// `profsim show NAME` is `profsim workloads --lines NAME`: the same
// listing, the same refusals, exit status 2 for a missing or extra
// argument or a flag.
func TestShowIsTheListing(t *testing.T) {
	code, want, errOut := runMain("workloads", "--lines", "hotcold")
	require.Equal(t, 0, code, errOut)
	code, got, errOut := runMain("show", "hotcold")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, want, got)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"show"}, "show: want one workload (a built-in name or a file), got 0 arguments"},
		{[]string{"show", "hotcold", "callpair"}, "got 2 arguments"},
		{[]string{"show", "--measure"}, `show: unknown flag "--measure"`},
		{[]string{"show", "hotcld"}, `unknown workload "hotcld": did you mean "hotcold"?`},
		{[]string{"shw", "hotcold"}, `did you mean "show"?`},
	} {
		code, _, errOut := runMain(c.args...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Contains(t, errOut, c.want, "%v", c.args)
	}
	code, out, _ := runMain("show", "-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "Usage: profsim show NAME|FILE")
}
