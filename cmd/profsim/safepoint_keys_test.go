package main

import (
	"encoding/json"
	"github.com/profsim/profsim/harness"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/safepoint"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sweep"
)

// safepointResult is the part of the JSON result these tests read.
type safepointResult struct {
	Safepoints struct {
		Count        int   `json:"count"`
		MaxTTSPNS    int64 `json:"max_ttsp_ns"`
		TotalPauseNS int64 `json:"total_pause_ns"`
	} `json:"safepoints"`
	Config struct {
		Settings map[string]string `json:"settings"`
		Args     []string          `json:"args"`
	} `json:"config"`
}

func runSafepointJSON(t *testing.T, args ...string) safepointResult {
	t.Helper()
	base := []string{"run", "--workload", "hotcold", "--duration", "50ms", "--samplers", "safepoint", "--mode", "costed", "--format", "json"}
	code, out, errOut := runMain(append(base, args...)...)
	require.Equal(t, 0, code, errOut)
	var r safepointResult
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	return r
}

func TestSetSafepointKeysReachTheRun(t *testing.T) {
	const recheckNS = 10_000
	h17 := runSafepointJSON(t)
	for k, v := range map[string]string{"safepoint.sync_recheck": "100us", "safepoint.sync_recheck_late": "1.1ms", "safepoint.operation_overhead": "53us"} {
		assert.Equal(t, v, h17.Config.Settings[k], "%s: recorded at hotspot17's calibrated value", k)
	}
	// hotspot6 has neither cost: the settings' effect shows against it.
	def := runSafepointJSON(t, "--vm", "hotspot6")
	for _, k := range []string{"safepoint.sync_recheck", "safepoint.sync_recheck_late", "safepoint.operation_overhead"} {
		assert.Equal(t, "0s", def.Config.Settings[k], "%s: recorded at hotspot6's value", k)
	}
	r := runSafepointJSON(t, "--vm", "hotspot6", "--set", "safepoint.sync_recheck=10us", "--set", "safepoint.operation_overhead=5us")
	assert.Equal(t, "10us", r.Config.Settings["safepoint.sync_recheck"])
	assert.Equal(t, "5us", r.Config.Settings["safepoint.operation_overhead"])
	assert.Contains(t, r.Config.Args, "safepoint.sync_recheck=10us", "config.args reproduces it")
	require.Equal(t, def.Safepoints.Count, r.Safepoints.Count, "the sampler's safepoints, as many either way")
	require.Positive(t, r.Safepoints.Count)
	assert.Positive(t, r.Safepoints.MaxTTSPNS)
	assert.Zero(t, r.Safepoints.MaxTTSPNS%recheckNS, "every TTSP ends at a 10 µs re-check (%d ns)", r.Safepoints.MaxTTSPNS)
	assert.NotEqual(t, def.Safepoints.MaxTTSPNS, r.Safepoints.MaxTTSPNS)
	assert.Greater(t, r.Safepoints.TotalPauseNS, def.Safepoints.TotalPauseNS, "detection and overhead lengthen the pauses")
}

func TestSetSafepointBadValuesExit2NamingTheKey(t *testing.T) {
	for _, c := range []struct{ set, want string }{
		{"safepoint.sync_recheck=-10us", "safepoint.sync_recheck: -10us must be in [0, 10¹⁸ns]"},
		{"safepoint.sync_recheck_late=-1ms", "safepoint.sync_recheck_late: -1ms must be in [0, 10¹⁸ns]"},
		{"safepoint.operation_overhead=soon", `safepoint.operation_overhead: "soon" is not a duration`},
		{"safepoint.sync_recheck_late=1ms", "safepoint.sync_recheck_late: 1ms needs safepoint.sync_recheck > 0"},
		{"safepoint.sync_rechek=1ms", `unknown key "safepoint.sync_rechek"`},
	} {
		code, out, errOut := runMain("run", "--workload", "hotcold", "--duration", "10ms", "--vm", "hotspot6", "--set", c.set)
		assert.Equal(t, 2, code, c.set)
		assert.Empty(t, out, c.set)
		assert.Contains(t, errOut, c.want, c.set)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "%s: one line, got %q", c.set, errOut)
	}
}

func TestKeysListTheSafepointKeys(t *testing.T) {
	code, out, errOut := runMain("run", "--keys")
	require.Equal(t, 0, code, errOut)
	for _, k := range []string{"safepoint.sync_recheck ", "safepoint.sync_recheck_late ", "safepoint.operation_overhead "} {
		assert.Contains(t, out, k)
	}
}

// TestSweepSafepointPrefix: "safepoint" prefixes both the protocol's VM
// keys and the safepoint sampler's keys (LABEL.KEY); a grid name is the VM
// key when there is one, which needs no sampler key to share a VM key's
// name.
func TestSweepSafepointPrefix(t *testing.T) {
	var vm []string
	for _, k := range param.Keys(&safepoint.Config{}) {
		vm = append(vm, k.Name)
	}
	for _, info := range samplers.List() {
		for _, k := range info.Keys() {
			assert.False(t, slices.Contains(vm, k.Name), "sampler %s's key %q is also safepoint.%s", info.Name, k.Name, k.Name)
		}
	}

	grid := writeGrid(t, `run:
  workload: hotcold
  duration: 10ms
  samplers: truth,safepoint
  safepoint.depth: 7
  safepoint.sync_recheck_late: 0s
zip:
  safepoint.sync_recheck: [0s, 10us]
  safepoint.interval: [1ms, 2ms]
`)
	dir := filepath.Join(t.TempDir(), "o")
	code, _, stderr := sweepMain(t, "sweep", grid, "--out", dir)
	require.Equal(t, 0, code, stderr)
	recs, err := sweep.ReadResults(filepath.Join(dir, sweep.ResultsFile))
	require.NoError(t, err)
	require.Len(t, recs, 2)
	slices.SortFunc(recs, func(a, b sweep.Record) int { return a.Point - b.Point })
	for i, want := range []struct{ recheck, interval string }{{"0s", "1ms"}, {"10us", "2ms"}} {
		var rc harness.Description
		require.NoError(t, json.Unmarshal(recs[i].Config, &rc))
		assert.Equal(t, want.recheck, rc.Settings["safepoint.sync_recheck"], "the VM key reached --set")
		require.Len(t, rc.Samplers, 1)
		assert.Equal(t, want.interval, rc.Samplers[0].Params["interval"], "the sampler's key reached the sampler")
		assert.Equal(t, "7", rc.Samplers[0].Params["depth"])
	}

	for _, c := range []struct{ grid, want string }{
		{"run: {workload: hotcold, duration: 10ms}\ngrid: {safepoint.sync_rechek: [1us]}",
			`grid["safepoint.sync_rechek"]: no sampler labelled "safepoint" at point 0`},
		{"run: {workload: hotcold, duration: 10ms}\ngrid: {safepoint.sync_rechek: [1us]}",
			`(LABEL.KEY sets a key of the sampler with that label or name); nor is it a VM setting (did you mean "safepoint.sync_recheck"?) (see 'profsim run --keys')`},
		{"run: {workload: hotcold, duration: 10ms, sampler: [safepoint]}\ngrid: {safepoint.sync_rechek: [1us]}",
			`grid["safepoint.sync_rechek"]: sampler safepoint has no key "sync_rechek"`},
		{"run: {workload: hotcold, duration: 10ms, sampler: [safepoint]}\ngrid: {safepoint.sync_rechek: [1us]}",
			`nor is it a VM setting (did you mean "safepoint.sync_recheck"?)`},
		{"run: {workload: hotcold, duration: 10ms}\ngrid: {safepoint.sync_recheck: [1us, -1us]}", `point 1: --set: safepoint.sync_recheck: -1us must be in [0, 10¹⁸ns]`},
	} {
		grid := writeGrid(t, c.grid)
		code, _, stderr := sweepMain(t, "sweep", grid, "--out", filepath.Join(t.TempDir(), "o"))
		assert.Equal(t, 2, code, c.grid)
		assert.Contains(t, stderr, c.want, c.grid)
		assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "one line: %s", stderr)
	}
}

// In passive mode a safepoint sampler's requests stop nothing: the run's
// safepoints count none of them, and passive_requests says how many there
// were; in costed mode they are the safepoints and passive_requests is
// absent.
func TestPassiveSafepointRequests(t *testing.T) {
	type result struct {
		Safepoints struct {
			Count           int    `json:"count"`
			PassiveRequests *int64 `json:"passive_requests"`
		} `json:"safepoints"`
		Profiles map[string]struct {
			Costs struct {
				Requested int64 `json:"requested"`
			} `json:"costs"`
		} `json:"profiles"`
	}
	run := func(mode string) result {
		code, out, errOut := runMain("run", "--workload", "hotcold", "--duration", "50ms", "--samplers", "safepoint,async", "--mode", mode, "--format", "json")
		require.Equal(t, 0, code, errOut)
		var r result
		require.NoError(t, json.Unmarshal([]byte(out), &r))
		return r
	}
	p := run("passive")
	assert.Zero(t, p.Safepoints.Count)
	require.NotNil(t, p.Safepoints.PassiveRequests)
	assert.Positive(t, *p.Safepoints.PassiveRequests)
	assert.Equal(t, p.Profiles["safepoint"].Costs.Requested, *p.Safepoints.PassiveRequests, "the safepoint sampler's requests, not async's")
	c := run("costed")
	assert.Positive(t, c.Safepoints.Count)
	assert.Nil(t, c.Safepoints.PassiveRequests)
}
