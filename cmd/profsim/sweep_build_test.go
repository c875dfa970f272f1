package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/profsim/profsim/harness"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/sweep"
)

// twoPointGrid is a grid of two short runs.
const twoPointGrid = `name: builds
run:
  duration: 5ms
  sampler: [truth, safepoint]
grid:
  workload: [hotcold, callpair]
`

// setManifestBuild rewrites dir's manifest as if build had written it.
func setManifestBuild(t *testing.T, dir, build string) {
	t.Helper()
	m, err := sweep.ReadManifest(dir)
	require.NoError(t, err)
	m.Build = build
	require.NoError(t, sweep.WriteManifest(dir, m))
}

func TestSweepRefusesToResumeAnotherBuildsDirectory(t *testing.T) {
	grid := writeGrid(t, twoPointGrid)
	dir := filepath.Join(t.TempDir(), "out")
	code, _, stderr := sweepMain(t, "sweep", grid, "--out", dir)
	require.Equal(t, 0, code, stderr)
	m, err := sweep.ReadManifest(dir)
	require.NoError(t, err)
	require.Equal(t, harness.CurrentVersion().Build, m.Build, "the manifest names the build that made its keys")
	results := filepath.Join(dir, sweep.ResultsFile)
	before, err := os.ReadFile(results)
	require.NoError(t, err)

	const other = "0123456789abcdef"
	setManifestBuild(t, dir, other)
	code, _, stderr = sweepMain(t, "sweep", grid, "--out", dir)
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "profsim: sweep: ")
	assert.Contains(t, stderr, "build "+other)
	assert.Contains(t, stderr, "this profsim is build "+harness.CurrentVersion().Build)
	assert.Contains(t, stderr, "--allow-mixed-builds")
	after, err := os.ReadFile(results)
	require.NoError(t, err)
	assert.Equal(t, before, after, "a refused resume writes nothing")

	// A manifest of a profsim that recorded no build is another build too.
	setManifestBuild(t, dir, "")
	code, _, stderr = sweepMain(t, "sweep", grid, "--out", dir)
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "unknown build")

	// With no manifest, the records' configs say whose they are.
	require.NoError(t, os.Remove(filepath.Join(dir, sweep.ManifestFile)))
	require.NoError(t, os.WriteFile(results, bytes.ReplaceAll(before, []byte(`"build":"`+harness.CurrentVersion().Build+`"`), []byte(`"build":"`+other+`"`)), 0o644))
	code, _, stderr = sweepMain(t, "sweep", grid, "--out", dir)
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "build "+other)

	// Asked to, the sweep goes on with this build (whose keys the
	// records here still hold: TestSweepTwoBuilds shows another build's
	// points run again).
	code, _, stderr = sweepMain(t, "sweep", grid, "--out", dir, "--allow-mixed-builds")
	require.Equal(t, 0, code, stderr)
	m, err = sweep.ReadManifest(dir)
	require.NoError(t, err)
	assert.Equal(t, harness.CurrentVersion().Build, m.Build)
	code, _, stderr = sweepMain(t, "sweep", grid, "--out", dir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "0 run now, 2 already done", "the directory is this build's now")
	code, stdout, _ := sweepMain(t, "sweep", "status", dir)
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, "results of build "+harness.CurrentVersion().Build+" (this profsim's)")
}

func TestSweepMergeRefusesMixedBuilds(t *testing.T) {
	grid := writeGrid(t, twoPointGrid)
	tmp := t.TempDir()
	d1, d2, out := filepath.Join(tmp, "s1"), filepath.Join(tmp, "s2"), filepath.Join(tmp, "merged")
	for i, d := range []string{d1, d2} {
		code, _, stderr := sweepMain(t, "sweep", grid, "--out", d, "--shard", fmt.Sprintf("%d/2", i+1))
		require.Equal(t, 0, code, stderr)
	}
	const other = "fedcba9876543210"
	setManifestBuild(t, d2, other)
	code, _, stderr := sweepMain(t, "sweep", "merge", d1, d2, "--out", out)
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "profsim: sweep merge: ")
	assert.Contains(t, stderr, "build "+other)
	assert.Contains(t, stderr, "--allow-mixed-builds")
	assert.NoFileExists(t, filepath.Join(out, sweep.ResultsFile))

	code, _, stderr = sweepMain(t, "sweep", "merge", d1, d2, "--out", out, "--allow-mixed-builds")
	require.Equal(t, 0, code, stderr)
	m, err := sweep.ReadManifest(out)
	require.NoError(t, err)
	builds := []string{harness.CurrentVersion().Build, other}
	if builds[1] < builds[0] {
		builds[0], builds[1] = builds[1], builds[0]
	}
	assert.Equal(t, builds[0]+sweep.MixedBuildSep+builds[1], m.Build, "a mixed merge names every build")
	code, stdout, _ := sweepMain(t, "sweep", "status", out)
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, "merged with --allow-mixed-builds")
	// A sweep does not resume into a mixed directory unasked.
	code, _, stderr = sweepMain(t, "sweep", grid, "--out", out)
	assert.Equal(t, 2, code, stderr)
}

// goTool is the go command that built this test, or "" with none.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return ""
}

// buildWithMarker builds profsim with one more constant,
// buildMarker = value, added through an overlay (the tree is not
// touched).
func buildWithMarker(t *testing.T, gotool, dir string, value int) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	marker := filepath.Join(dir, fmt.Sprintf("marker%d.go", value))
	require.NoError(t, os.WriteFile(marker, fmt.Appendf(nil, "package main\n\n// buildMarker differs between the builds of TestSweepTwoBuilds.\nconst buildMarker = %d\n", value), 0o644))
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(root, "cmd", "profsim", "zz_buildmarker.go"): marker}})
	require.NoError(t, err)
	ov := filepath.Join(dir, fmt.Sprintf("overlay%d.json", value))
	require.NoError(t, os.WriteFile(ov, overlay, 0o644))
	bin := filepath.Join(dir, fmt.Sprintf("profsim%d", value))
	// -buildvcs=false: a checkout whose git is missing or whose
	// ownership git refuses would fail the build, and the identity does
	// not read the VCS.
	cmd := exec.Command(gotool, "build", "-buildvcs=false", "-overlay", ov, "-o", bin, "./cmd/profsim")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// profsimExec runs a profsim binary.
func profsimExec(t *testing.T, bin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), o.String(), e.String()
	}
	require.NoError(t, err)
	return 0, o.String(), e.String()
}

// Two builds that differ by one constant: the second refuses to resume
// the first's directory, or, told to, runs every point again; equal code
// builds to an equal identity.
func TestSweepTwoBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds profsim twice (about 5 s)")
	}
	gotool := goTool()
	if gotool == "" {
		t.Skip("no go command to build profsim with")
	}
	tmp := t.TempDir()
	a := buildWithMarker(t, gotool, tmp, 1)
	b := buildWithMarker(t, gotool, tmp, 2)
	buildOf := func(bin string) string {
		code, stdout, stderr := profsimExec(t, bin, "version", "--format", "json")
		require.Equal(t, 0, code, stderr)
		var v harness.Version
		require.NoError(t, json.Unmarshal([]byte(stdout), &v))
		require.Len(t, v.Build, 16)
		return v.Build
	}
	buildA, buildB := buildOf(a), buildOf(b)
	require.NotEqual(t, buildA, buildB, "one changed constant is other code")
	require.NoError(t, os.Rename(a, a+".first"))
	assert.Equal(t, buildA, buildOf(buildWithMarker(t, gotool, tmp, 1)), "equal code, equal identity")
	a += ".first"

	grid := writeGrid(t, twoPointGrid)
	dir := filepath.Join(tmp, "out")
	code, _, stderr := profsimExec(t, a, "sweep", grid, "--out", dir)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "2 run now, 0 already done")
	code, _, stderr = profsimExec(t, a, "sweep", grid, "--out", dir)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "0 run now, 2 already done", "a build resumes its own results")

	code, _, stderr = profsimExec(t, b, "sweep", grid, "--out", dir)
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "holds results of build "+buildA+"; this profsim is build "+buildB)
	assert.NotContains(t, stderr, "already done")

	code, _, stderr = profsimExec(t, b, "sweep", grid, "--out", dir, "--allow-mixed-builds")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "2 run now, 0 already done", "another build's results are not this build's")
	recs, err := sweep.ReadResults(filepath.Join(dir, sweep.ResultsFile))
	require.NoError(t, err)
	require.Len(t, recs, 4)
	keys := map[string][]string{}
	for _, r := range recs {
		var rc harness.Description
		require.NoError(t, json.Unmarshal(r.Config, &rc))
		keys[rc.Profsim.Build] = append(keys[rc.Profsim.Build], r.Key)
		assert.Equal(t, rc.Key(), r.Key)
	}
	require.Len(t, keys[buildA], 2, "each record keeps its build")
	require.Len(t, keys[buildB], 2)
	runs, err := os.ReadFile(filepath.Join(dir, "runs.csv"))
	require.NoError(t, err)
	for i := range 2 {
		assert.Contains(t, string(runs), ","+keys[buildB][i]+",")
		assert.NotContains(t, string(runs), keys[buildA][i], "the tables hold this build's results only")
	}

	code, _, stderr = profsimExec(t, a, "sweep", grid, "--out", dir)
	assert.Equal(t, 2, code, stderr)
	assert.True(t, strings.Contains(stderr, "holds results of build "+buildB), stderr)
}

func TestVersionCommand(t *testing.T) {
	code, stdout, stderr := sweepMain(t, "version")
	require.Equal(t, 0, code, stderr)
	v := harness.CurrentVersion()
	assert.Contains(t, stdout, "build    "+v.Build+" (the identity in run keys)")
	assert.Contains(t, stdout, "go       "+runtime.Version())
	if v.Revision == "" {
		assert.Contains(t, stdout, "revision unknown", "a build without VCS stamps says so")
	}
	code, stdout, stderr = sweepMain(t, "version", "--format", "json")
	require.Equal(t, 0, code, stderr)
	var got harness.Version
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	assert.Equal(t, v, got)
	code, _, stderr = sweepMain(t, "version", "--format", "yaml")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "profsim: version: --format")
	code, _, _ = sweepMain(t, "version", "extra")
	assert.Equal(t, 2, code)
	code, stdout, _ = sweepMain(t, "version", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "Usage: profsim version")

	// A run's config holds the build, and its key depends on the build
	// alone of what describes profsim.
	rc := harness.Description{Profsim: v, Workload: harness.WorkloadInfo{Name: "w", SHA256: "x"}}
	k := rc.Key()
	rc.Profsim.Revision, rc.Profsim.Version, rc.Profsim.Go = "abc", "v9", "go0"
	assert.Equal(t, k, rc.Key(), "how a build is described is not what ran")
	rc.Profsim.Build = "0000000000000000"
	assert.NotEqual(t, k, rc.Key(), "other code, other key")
}
