package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/report"
	"github.com/profsim/profsim/samplers"
)

// whyColumnMin: on Listing 1 (claim M1: the safepoint profiler blames
// cold() for hot()'s time; the truth has 98 % in hot()), at least nine
// tenths of the safepoint sampler's samples are requested in hot() and
// charged to cold().
const whyColumnMin = 0.9

func TestWhyPrintsAndExportsTheBiasMatrices(t *testing.T) {
	args := []string{"run", "--workload", "hotcold", "--duration", "300ms", "--why",
		"--sampler", "safepoint,interval=1ms", "--sampler", "async:exact,interval=1ms,oracle=true", "--samplers", "pcct"}
	code, out, errOut := runMain(args...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "\nsafepoint: ")
	assert.Contains(t, out, "async:exact: ")
	assert.Contains(t, out, "truly in \\ charged to")
	assert.Contains(t, out, "pcct: no bias matrix: aggregates without per-sample times")

	code, js, errOut := runMain(append(args, "--format", "json")...)
	require.Equal(t, 0, code, errOut)
	var r struct {
		Bias report.Bias `json:"bias"`
	}
	require.NoError(t, json.Unmarshal([]byte(js), &r))
	require.Len(t, r.Bias.Samplers, 2)
	sp, exact := r.Bias.Samplers[0], r.Bias.Samplers[1]
	assert.Equal(t, "safepoint", sp.Sampler, "in the requested order")
	assert.Equal(t, 1.0, exact.Diagonal, "an exact sampler's matrix is the identity")
	hot, cold := index(sp.Methods, "HotCold.hot"), index(sp.Methods, "HotCold.cold")
	require.True(t, hot >= 0 && cold >= 0, "%v", sp.Methods)
	assert.Greater(t, float64(sp.Counts[hot][cold])/float64(sp.Samples), whyColumnMin)
	var sum int64
	for _, row := range sp.Counts {
		for _, c := range row {
			sum += c
		}
	}
	assert.Equal(t, sp.Samples, sum)
	assert.Equal(t, []report.Untraced{{Sampler: "pcct", Reason: "aggregates without per-sample times (no trace)"}}, r.Bias.Untraced)
}

func index(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

func TestTraceWritesOneLinePerSample(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	code, js, errOut := runMain("run", "--workload", "hotcold", "--duration", "100ms", "--format", "json",
		"--samplers", "safepoint,async,jfr,tprof,sps", "--trace", path)
	require.Equal(t, 0, code, errOut)
	var r struct {
		Profiles map[string]struct {
			Samples int64 `json:"samples"`
		} `json:"profiles"`
	}
	require.NoError(t, json.Unmarshal([]byte(js), &r))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	per := map[string]int64{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec samplers.TraceRecord
		require.NoError(t, json.Unmarshal(sc.Bytes(), &rec))
		per[rec.Sampler]++
		assert.NotEmpty(t, rec.True)
		assert.NotEmpty(t, rec.Mechanism)
	}
	require.NoError(t, sc.Err())
	for _, name := range []string{"safepoint", "async", "jfr", "tprof", "sps"} {
		assert.Equal(t, r.Profiles[name].Samples, per[name], "%s: one line per sample", name)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left")
}

func TestTraceAndWhyRefuseBadUse(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--why", "--format", "csv"}, "--why adds the bias matrices to the table and json"},
		{[]string{"--trace", filepath.Join(dir, "missing", "t.jsonl")}, "does not exist"},
		{[]string{"--trace", dir}, "not a regular file"},
	} {
		args := append([]string{"run", "--workload", "hotcold", "--duration", "10ms", "--samplers", "async"}, c.args...)
		code, _, errOut := runMain(args...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Contains(t, errOut, c.want, "%v", c.args)
		assert.False(t, strings.Contains(errOut, "panic"))
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing left behind")
}
