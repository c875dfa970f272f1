package study

import (
	"encoding/csv"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// full runs the paper-sized version of each experiment.
var full = flag.Bool("study.full", false, "run paper-sized experiments (slow)")

// paper runs the experiments that have a paper-length version at the
// paper's run length (Options.Paper, Experiment.Paper; the others at
// test size): minutes each. The TestDivergence_ pins describe the test
// size and may not hold at paper length (REPRODUCTIONS.md gives both).
var paper = flag.Bool("study.paper", false, "run the experiments run length limits at the paper's run length (minutes each)")

// pngDir, when set, receives each experiment's figure as NAME.png, to be
// looked at.
var pngDir = flag.String("study.png", "", "write each experiment's figure as NAME.png into this directory")

// updateTables rewrites the tables' goldens (testdata/tables/NAME.md)
// from this run: for a change of results that is meant, said why in its
// commit.
var updateTables = flag.Bool("study.update-tables", false, "rewrite testdata/tables/NAME.md from this run's tables (a meant change of results)")

// shortSeeds are the claim tests' seeds under -short: one run per
// configuration, the smallest size at which a claim asserted run by run,
// or on means over stand-ins, is still the claim. A claim that rests on
// a 95 % CI over seeds, or on pairs of seeds, cannot be read from one
// seed: its test skips under -short (needsSeeds) rather than assert less.
// The tables' goldens are at the default seeds, so -short checks none.
var shortSeeds = []uint64{1}

// seeds are the claim tests' seeds: 1–10 with -study.full, shortSeeds
// with -short, else DefaultOptions' 1–3.
func seeds() []uint64 {
	switch {
	case *full:
		return []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	case testing.Short():
		return shortSeeds
	}
	return DefaultOptions().Seeds
}

// testOptions are DefaultOptions with the claim tests' seeds.
func testOptions() Options {
	o := DefaultOptions()
	o.Seeds = seeds()
	return o
}

// needsSeeds skips t under -short, whose one seed cannot give what the
// claim rests on (why: a CI over seeds, pairs of seeds, ...).
func needsSeeds(t *testing.T, why string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short runs one seed (shortSeeds); the claim rests on %s", why)
	}
}

var (
	resultsMu sync.Mutex
	results   = map[string]*Result{}
)

// runExperiment runs the named experiment once per test process (later
// calls, e.g. a claim test and its divergence pin, share the result),
// prints its table and checks its tidy data: written by Result.Write,
// read back as CSV, every numeric cell parses as a number.
func runExperiment(t *testing.T, name string) *Result {
	t.Helper()
	return runExperimentOn(t, name, false)
}

// runExperimentOn is runExperiment on the stand-ins or, with models, on
// the models of real applications (Options.Models).
func runExperimentOn(t *testing.T, name string, models bool) *Result {
	t.Helper()
	resultsMu.Lock()
	defer resultsMu.Unlock()
	key := name
	if models {
		key += " --models"
	}
	if r, ok := results[key]; ok {
		t.Logf("(%s: the result of an earlier test in this run)", key)
		return r
	}
	e, ok := Lookup(name)
	require.True(t, ok, name)
	require.False(t, *full && *paper, "-study.full and -study.paper do not combine")
	o := testOptions()
	o.Full, o.Models = *full, models
	o.Paper = *paper && e.Paper != ""
	r, err := e.Run(o)
	require.NoError(t, err)
	t.Log("\n" + r.Table.Markdown())
	if !models && !*full && !o.Paper && !testing.Short() {
		checkTableGolden(t, name, r)
	}
	require.NotNil(t, r.Data, "%s: a typed result", name)
	require.NotNil(t, r.Tidy, "%s: a typed result writes tidy data", name)
	checkTidy(t, r, name)
	if *pngDir != "" && r.Figure != nil {
		require.NoError(t, os.MkdirAll(*pngDir, 0o755))
		require.NoError(t, r.Figure.Save(filepath.Join(*pngDir, name+".png")))
	}
	results[key] = r
	return r
}

// checkTidy writes r (without its figure under -short) and reads
// NAME.data.csv back: the header is the data's columns, every row has
// every cell, every numeric cell parses; a figure written is checked.
func checkTidy(t *testing.T, r *Result, name string) {
	t.Helper()
	dir := t.TempDir()
	if testing.Short() && r.Figure != nil {
		// -short writes and checks the table and tidy data only: the
		// full suite renders and checks every experiment's figure, and
		// TestFigure_Slides two under -short. Rendering them all held
		// the -short study binary 3 s longer (52.9–53.1 s wall against
		// 49.6–49.8, two alternating pairs, 2026-11-30).
		tablesOnly := *r
		tablesOnly.Figure = nil
		r = &tablesOnly
	}
	require.NoError(t, r.Write(dir, name))
	if r.Figure != nil {
		checkFigure(t, r, dir, name)
	}
	f, err := os.Open(filepath.Join(dir, name+".data.csv"))
	require.NoError(t, err)
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.NotEmpty(t, all)
	require.Equal(t, r.Tidy.Columns, all[0], "%s.data.csv header", name)
	require.Greater(t, len(all), 1, "%s.data.csv has observations", name)
	for i, row := range all[1:] {
		for j, cell := range row {
			if r.Tidy.Numeric[j] {
				_, err := strconv.ParseFloat(cell, 64)
				require.NoError(t, err, "%s.data.csv row %d column %s", name, i+1, all[0][j])
			}
		}
	}
}

// measure runs the named experiment (runExperiment) and returns its typed
// result.
func measure[T any](t *testing.T, name string) T {
	t.Helper()
	r := runExperiment(t, name)
	d, ok := r.Data.(T)
	require.True(t, ok, "%s: result is %T", name, r.Data)
	return d
}

// diverges records, in the test's output, a part of a claim the model
// does not meet; the divergence is pinned by a TestDivergence_ test and
// described in REPRODUCTIONS.md.
func diverges(t *testing.T, format string, args ...any) {
	t.Helper()
	t.Logf("DIVERGES from the claim: "+format, args...)
}

// checkTableGolden compares an experiment's table at the test's default
// options (the stand-ins, seeds 1-3, the test sizes) with its golden,
// testdata/tables/NAME.md: same seeds, same table, byte for byte, so a
// change that moves any number of any experiment shows, however small.
// The table is rendered again from r.Data without the papers' reference
// columns (referencesOff), which depend on ../shared being present.
// -study.update-tables rewrites it.
func checkTableGolden(t *testing.T, name string, r *Result) {
	t.Helper()
	rd, ok := r.Data.(renderer)
	require.True(t, ok, "%s: a typed result renders its table", name)
	referencesOff = true
	rr, err := rd.render()
	referencesOff = false
	require.NoError(t, err, name)
	table := rr.Table.Markdown()
	path := filepath.Join("testdata", "tables", name+".md")
	if *updateTables {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(table), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "%s has no golden table: go test ./study -run ... -study.update-tables writes it", name)
	assert.Equal(t, string(want), table, "%s's table changed: if that is meant, regenerate with go test ./study -study.update-tables and say why in the commit", name)
}

var (
	ms10, ms1, us100 = 10 * sim.Millisecond, sim.Millisecond, 100 * sim.Microsecond
)

// onModels runs the Mytkowicz claim tests on the models of the DaCapo-2006
// applications too (Options.Models): minutes of CPU each, so not in the
// normal test run.
var onModels = flag.Bool("study.models", false, "also run the Mytkowicz claim tests on the models of real applications (slow: 20 s to 2.5 min of CPU each)")

// measureModels is measure on the models (Options.Models); it skips the
// test unless -study.models is given.
func measureModels[T any](t *testing.T, name string) T {
	t.Helper()
	if !*onModels {
		t.Skip("the claim tests on the models run with -study.models (minutes of CPU)")
	}
	r := runExperimentOn(t, name, true)
	d, ok := r.Data.(T)
	require.True(t, ok, "%s --models: result is %T", name, r.Data)
	return d
}
