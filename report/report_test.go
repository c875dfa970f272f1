package report

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shareSumTolerance bounds how far a profile's self shares may sum from 1:
// each share is one correctly rounded division (relative error ≤ 2⁻⁵³)
// and a profile has at most a few hundred rows, so the sum is off by
// < 1e-13; 1e-9 leaves room without hiding a missing row (≥ 1 sample of
// thousands, > 1e-6).
const shareSumTolerance = 1e-9

// runOutcome runs workload w for d with the given samplers.
func runOutcome(t *testing.T, w string, d sim.Time, names []string, tweak func(*harness.Config)) (harness.Config, *harness.Outcome) {
	t.Helper()
	p, err := workloads.Get(w)
	require.NoError(t, err)
	cfg := harness.MustPresetConfig("hotspot6")
	cfg.Sim.Duration = d
	cfg.Samplers = names
	if tweak != nil {
		tweak(&cfg)
	}
	out, err := harness.Run(p, cfg)
	require.NoError(t, err)
	return cfg, out
}

// runReport runs workload w and builds the report, as `profsim run` does.
func runReport(t *testing.T, w string, d sim.Time, names []string, tweak func(*harness.Config)) *Report {
	t.Helper()
	cfg, out := runOutcome(t, w, d, names, tweak)
	return New(w, cfg, out)
}

// edgeRun is cbs and jikes-timer on callpair with Jikes-like yield points
// and no inlining, as samplers/golden_test.go runs them, beside async.
func edgeRun(t *testing.T) *Report {
	return runReport(t, "callpair", 300*sim.Millisecond, []string{"truth", "async", "cbs", "jikes-timer"}, func(c *harness.Config) {
		c.JIT.Flavour, c.JIT.Inline = jit.Jikes, false
	})
}

var tidySettings = []Setting{{"workload", "hotcold"}, {"seed", "1"}, {"duration_ms", "50"}}

// tidyRecord is one parsed CSV row in the columns both layouts share.
type tidyRecord struct {
	profile, method         string
	line                    int
	selfShare, truthShare   float64
	samples                 int64
	overlap                 float64
	hasOverlap, hasLineCell bool
}

// parseTidyCSV parses CSV's output and checks its shape: every row
// as wide as the header, every numeric column a finite float or empty
// where allowed: overlap_vs_truth for truth, and truth_self_share and
// overlap_vs_truth by line when truth records no lines (noTruth).
func parseTidyCSV(t *testing.T, data []byte, byLine, noTruth bool) (header []string, rows []tidyRecord) {
	t.Helper()
	for _, bad := range []string{"NaN", "Inf", "%", "±"} {
		require.NotContains(t, string(data), bad)
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	require.NoError(t, err)
	require.NotEmpty(t, recs)
	header = recs[0]
	col := func(name string) int {
		i := slices.Index(header, name)
		require.GreaterOrEqual(t, i, 0, "column %s", name)
		return i
	}
	numeric := []string{"self_share", "truth_self_share", "samples", "overlap_vs_truth"}
	if byLine {
		numeric = append(numeric, "line")
	} else {
		numeric = append(numeric, "total_share")
	}
	for _, s := range tidySettings {
		if s.Name != "workload" && slices.Contains(header, s.Name) {
			numeric = append(numeric, s.Name)
		}
	}
	for _, rec := range recs[1:] {
		require.Len(t, rec, len(header), "row %v", rec)
		var r tidyRecord
		r.profile, r.method = rec[col("profile")], rec[col("method")]
		for _, name := range numeric {
			v := rec[col(name)]
			if (name == "overlap_vs_truth" || name == "samples") && r.profile == "truth" {
				assert.Empty(t, v, "truth has no overlap with itself, and no samples")
				continue
			}
			if noTruth && (name == "overlap_vs_truth" || name == "truth_self_share") {
				assert.Empty(t, v, "%s without a truth to compare with", name)
				continue
			}
			x, err := strconv.ParseFloat(v, 64)
			require.NoError(t, err, "%s = %q in %v", name, v, rec)
			switch name {
			case "self_share":
				r.selfShare = x
			case "truth_self_share":
				r.truthShare = x
			case "samples":
				r.samples = int64(x)
			case "overlap_vs_truth":
				r.overlap, r.hasOverlap = x, true
			case "line":
				r.line, r.hasLineCell = int(x), true
			}
		}
		rows = append(rows, r)
	}
	return header, rows
}

// checkPython loads the CSV with Python's csv module and asserts every
// numeric cell is a finite float: what pandas or R will see.
func checkPython(t *testing.T, data []byte, numeric []string, noTruth bool) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not on PATH")
	}
	path := filepath.Join(t.TempDir(), "tidy.csv")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	script := `import csv, math, sys
cols = sys.argv[2].split(",")
no_truth = sys.argv[3] == "1"
n = 0
with open(sys.argv[1], newline="") as f:
    for row in csv.DictReader(f):
        for c in cols:
            v = row[c]
            if c in ("overlap_vs_truth", "samples") and row["profile"] == "truth" and v == "":
                continue
            if no_truth and c in ("overlap_vs_truth", "truth_self_share") and v == "":
                continue
            assert math.isfinite(float(v)), (c, v)
        n += 1
assert n > 0
print(n)
`
	out, err := exec.Command(py, "-c", script, path, strings.Join(numeric, ","), strconv.Itoa(boolInt(noTruth))).CombinedOutput()
	require.NoError(t, err, string(out))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// lineTruthReport is hotcold's report with a stand-in truth that records
// source lines: async's profile (the simulator's ground truth keeps none),
// so that line-level comparisons have something to compare with.
func lineTruthReport(t *testing.T, names []string) *Report {
	cfg, out := runOutcome(t, "hotcold", 50*sim.Millisecond, names, nil)
	lt := *out.Profiles["async"]
	lt.Source = "truth"
	out.Profiles["truth"] = &lt
	r := New("hotcold", cfg, out)
	require.True(t, r.Profiles["truth"].hasLines())
	return r
}

func TestTidyCSVLoadsWithoutCleaning(t *testing.T) {
	names := []string{"truth", "safepoint", "async", "tprof"}
	for _, c := range []struct {
		what string
		r    *Report
	}{
		{"sim truth", runReport(t, "hotcold", 50*sim.Millisecond, names, nil)},
		{"line truth", lineTruthReport(t, names)},
	} {
		for _, byLine := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/byLine=%v", c.what, byLine), func(t *testing.T) { checkTidyCSV(t, c.r, byLine) })
		}
	}
}

func checkTidyCSV(t *testing.T, r *Report, byLine bool) {
	noTruth := byLine && !r.Profiles["truth"].hasLines()
	var b bytes.Buffer
	require.NoError(t, r.CSV(&b, tidySettings, byLine))
	header, rows := parseTidyCSV(t, b.Bytes(), byLine, noTruth)
	assert.Equal(t, []string{"workload", "seed", "duration_ms", "profile", "method"}, header[:5], "settings first")

	// Every profile covers the same (method[, line]) rows, and its
	// self shares sum to 1.
	sums := map[string]float64{}
	keys := map[string][]string{}
	for _, row := range rows {
		sums[row.profile] += row.selfShare
		keys[row.profile] = append(keys[row.profile], row.method+":"+strconv.Itoa(row.line))
		if row.profile != "truth" {
			assert.Equal(t, r.Profiles[row.profile].Samples, row.samples, row.profile)
		}
		assert.Equal(t, byLine, row.hasLineCell)
		if row.profile != "truth" && !noTruth {
			require.True(t, row.hasOverlap, row.profile)
			want := r.Profiles[row.profile].OverlapVsTruth
			if byLine {
				want = r.Profiles[row.profile].LineOverlapVsTruth
			}
			assert.Equal(t, *want, row.overlap, row.profile)
		}
	}
	require.Len(t, sums, 4, "byLine %v", byLine)
	for _, n := range r.Order {
		assert.InDelta(t, 1, sums[n], shareSumTolerance, n)
		assert.Equal(t, keys["truth"], keys[n], "%s covers truth's rows", n)
	}

	// truth_self_share is truth's own self share of the row.
	truth := map[string]float64{}
	for _, row := range rows {
		if row.profile == "truth" {
			truth[row.method+":"+strconv.Itoa(row.line)] = row.selfShare
		}
	}
	if byLine {
		for _, l := range r.Profiles["truth"].Lines {
			assert.Equal(t, l.SelfShare, truth[l.label()], l.label())
		}
	} else {
		for _, m := range r.Profiles["truth"].Methods {
			assert.Equal(t, m.SelfShare, truth[m.Method+":0"], m.Method)
		}
	}
	for _, row := range rows {
		if !noTruth {
			assert.Equal(t, truth[row.method+":"+strconv.Itoa(row.line)], row.truthShare, "%s %s:%d", row.profile, row.method, row.line)
		}
	}

	numeric := []string{"seed", "duration_ms", "self_share", "truth_self_share", "samples", "overlap_vs_truth"}
	if byLine {
		numeric = append(numeric, "line")
	} else {
		numeric = append(numeric, "total_share")
	}
	t.Run("python", func(t *testing.T) { checkPython(t, b.Bytes(), numeric, noTruth) })
}

func TestTidyJSONLMatchesCSV(t *testing.T) {
	r := runReport(t, "hotcold", 50*sim.Millisecond, []string{"truth", "safepoint", "async", "tprof"}, nil)
	for _, byLine := range []bool{false, true} {
		var c, j bytes.Buffer
		require.NoError(t, r.CSV(&c, tidySettings, byLine))
		require.NoError(t, r.JSONL(&j, tidySettings, byLine))
		recs, err := csv.NewReader(&c).ReadAll()
		require.NoError(t, err)
		header := recs[0]
		sc := bufio.NewScanner(&j)
		n := 0
		for sc.Scan() {
			n++
			var obj map[string]any
			require.NoError(t, json.Unmarshal(sc.Bytes(), &obj), sc.Text())
			keys := make([]string, 0, len(obj))
			for k := range obj {
				keys = append(keys, k)
			}
			assert.ElementsMatch(t, header, keys)
			rec := recs[n]
			for i, k := range header {
				switch v := obj[k].(type) {
				case nil:
					assert.Empty(t, rec[i], k)
				case string:
					assert.Equal(t, rec[i], v, k)
				case float64:
					want, err := strconv.ParseFloat(rec[i], 64)
					require.NoError(t, err, k)
					assert.Equal(t, want, v, k)
				default:
					t.Fatalf("%s: unexpected %T", k, v)
				}
			}
			assert.IsType(t, float64(0), obj["seed"], "a numeric setting is a JSON number")
			assert.IsType(t, "", obj["workload"])
			assert.IsType(t, float64(0), obj["self_share"])
		}
		require.NoError(t, sc.Err())
		assert.Equal(t, len(recs)-1, n, "one line per CSV row")
	}
}

func TestTidyRejectsSettingNamedLikeAColumn(t *testing.T) {
	r := runReport(t, "hotcold", 20*sim.Millisecond, []string{"truth"}, nil)
	var b bytes.Buffer
	assert.ErrorContains(t, r.CSV(&b, []Setting{{"profile", "x"}}, false), `column "profile" twice`)
	assert.ErrorContains(t, r.JSONL(&b, []Setting{{"seed", "1"}, {"seed", "2"}}, false), `column "seed" twice`)
}

func TestIsJSONNumber(t *testing.T) {
	for _, s := range []string{"7", "-3", "0.05", "1e-3", "0"} {
		assert.True(t, isJSONNumber(s), s)
	}
	for _, s := range []string{"", "NaN", "Inf", "-Inf", "0x10", "1_000", " 7", "7\n", "07", "true", "hotcold", "10ms"} {
		assert.False(t, isJSONNumber(s), s)
	}
}

// sectionLines returns the lines of the table's section titled title,
// its column header first.
func sectionLines(t *testing.T, table, title string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(table, "\n"+title)
	require.True(t, ok, "no section %q in\n%s", title, table)
	section, _, _ := strings.Cut(rest, "\n\n")
	return strings.Split(section, "\n")[1:]
}

// Call-graph profilers record call edges and no stacks: the method table
// leaves them out (instead of all-zero columns with a meaningless
// overlap) and a call-edge section compares them with truth.
func TestEdgeOnlyProfilersGetCallEdgeSection(t *testing.T) {
	r := edgeRun(t)
	for _, n := range []string{"cbs", "jikes-timer"} {
		p := r.Profiles[n]
		assert.True(t, p.EdgeOnly, n)
		assert.Empty(t, p.Methods, n)
		assert.Empty(t, p.Lines, n)
		assert.Nil(t, p.LineOverlapVsTruth, n)
		require.NotNil(t, p.Costs, n)
		assert.Equal(t, p.Costs.Taken, p.Samples, "%s: its samples are its edge samples", n)
		assert.Nil(t, p.Costs.Served, "%s samples at a later yield point: served is unknown", n)
	}
	assert.False(t, r.Profiles["async"].EdgeOnly)
	assert.Equal(t, []string{"truth", "async"}, r.stackNames())
	assert.Equal(t, []string{"cbs", "jikes-timer"}, r.edgeNames())

	var b bytes.Buffer
	r.Table(&b, 10)
	table := b.String()
	methods := sectionLines(t, table, "Self time by method (%)")
	assert.Equal(t, []string{"method", "truth", "async"}, strings.Fields(methods[0]), "no column for edge-only profiles")
	assert.Contains(t, table, "not shown: cbs, jikes-timer (call edges only, below)")

	edges := sectionLines(t, table, "Call edges (share of edge samples, %; truth: of calls)")
	assert.Equal(t, []string{"caller:line", "→", "callee", "truth", "cbs", "jikes-timer"}, strings.Fields(edges[0]))
	var overlapRow, hot string
	for _, l := range edges {
		switch {
		case strings.Contains(l, "overlap vs truth (call graph)"):
			overlapRow = l
		case strings.Contains(l, "CallPair.M:3 → CallPair.call_1"):
			hot = l
		}
	}
	require.NotEmpty(t, hot, "truth's hottest edge is a row")
	require.NotEmpty(t, overlapRow)
	f := strings.Fields(strings.TrimPrefix(overlapRow, "  overlap vs truth (call graph)"))
	require.Len(t, f, 2, "one overlap per edge profiler, none for truth: %q", overlapRow)
	want := strconv.FormatFloat(100**r.Profiles["cbs"].OverlapVsTruth, 'f', 2, 64)
	assert.Equal(t, want, strings.TrimSuffix(f[0], "*"))

	// The tidy output leaves edge-only profiles out.
	var c bytes.Buffer
	require.NoError(t, r.CSV(&c, nil, false))
	_, rows := parseTidyCSV(t, c.Bytes(), false, false)
	var profiles []string
	for _, row := range rows {
		if !slices.Contains(profiles, row.profile) {
			profiles = append(profiles, row.profile)
		}
	}
	assert.Equal(t, []string{"truth", "async"}, profiles)
}

// A profile built from fewer than minSamples samples is flagged, in JSON
// and with a starred overlap and a footnote in the table.
func TestFewSamplesFlagged(t *testing.T) {
	r := runReport(t, "hotcold", 30*sim.Millisecond, []string{"truth", "async"}, nil)
	a := r.Profiles["async"]
	require.Less(t, a.Samples, int64(minSamples), "async at 10 ms for 30 ms")
	assert.True(t, a.FewSamples)
	assert.False(t, r.Profiles["truth"].FewSamples, "truth is exact")

	js, err := json.Marshal(r)
	require.NoError(t, err)
	var back struct {
		Profiles map[string]struct {
			FewSamples *bool `json:"few_samples"`
		} `json:"profiles"`
	}
	require.NoError(t, json.Unmarshal(js, &back))
	require.NotNil(t, back.Profiles["async"].FewSamples)
	assert.True(t, *back.Profiles["async"].FewSamples)
	assert.Nil(t, back.Profiles["truth"].FewSamples, "omitted when false")

	var b bytes.Buffer
	r.Table(&b, 10)
	want := strconv.FormatFloat(100**a.OverlapVsTruth, 'f', 2, 64) + "*"
	assert.Contains(t, b.String(), want)
	assert.Contains(t, b.String(), "* fewer than 30 samples: overlap means little")

	// Enough samples: no star, no footnote.
	r = runReport(t, "hotcold", 400*sim.Millisecond, []string{"truth", "async"}, nil)
	require.GreaterOrEqual(t, r.Profiles["async"].Samples, int64(minSamples))
	assert.False(t, r.Profiles["async"].FewSamples)
	b.Reset()
	r.Table(&b, 10)
	assert.NotContains(t, b.String(), "*")
}

// Served is known for samplers that sample inside their tick and counts
// the ticks with a sample; for the others it is absent.
func TestServedOnlyWhereExact(t *testing.T) {
	r := runReport(t, "hotcold", 100*sim.Millisecond, []string{"truth", "async", "tprof", "safepoint"}, nil)
	for _, n := range []string{"async", "tprof"} {
		c := r.Profiles[n].Costs
		require.NotNil(t, c.Served, n)
		// hotcold's one application thread runs at every tick.
		assert.Equal(t, c.Requested, *c.Served, n)
		assert.LessOrEqual(t, *c.Served, c.Taken, n)
	}
	assert.Nil(t, r.Profiles["safepoint"].Costs.Served, "safepoint samples at a later poll")
	assert.Nil(t, r.Profiles["truth"].Costs)
}

func TestLinesInReportAndLineTable(t *testing.T) {
	r := runReport(t, "hotcold", 50*sim.Millisecond, []string{"truth", "async", "tprof"}, nil)
	for _, n := range r.Order {
		p := r.Profiles[n]
		require.NotEmpty(t, p.Lines, n)
		sum := 0.0
		for i, l := range p.Lines {
			sum += l.SelfShare
			if i > 0 {
				assert.GreaterOrEqual(t, p.Lines[i-1].SelfShare, l.SelfShare, "%s sorted", n)
			}
		}
		assert.InDelta(t, 1, sum, shareSumTolerance, n)
	}
	assert.True(t, r.Profiles["async"].hasLines(), "async resolves lines through debug info")
	assert.False(t, r.Profiles["tprof"].hasLines(), "tprof records no lines")
	// Without lines in the ground truth there is no line overlap to give.
	truthLines := r.Profiles["truth"].hasLines()
	assert.Equal(t, truthLines, r.Profiles["async"].LineOverlapVsTruth != nil)
	var b bytes.Buffer
	r.LineTable(&b, 10)
	assert.Equal(t, !truthLines, strings.Contains(b.String(), "no overlap by line: the ground truth has no lines"))
	assert.Contains(t, b.String(), "tprof")

	// With a truth that records lines (a stand-in: async's own profile).
	r = lineTruthReport(t, []string{"truth", "async", "tprof"})
	require.NotNil(t, r.Profiles["async"].LineOverlapVsTruth)
	assert.InDelta(t, 1, *r.Profiles["async"].LineOverlapVsTruth, shareSumTolerance, "a profile overlaps itself fully")
	require.NotNil(t, r.Profiles["tprof"].LineOverlapVsTruth)
	assert.Zero(t, *r.Profiles["tprof"].LineOverlapVsTruth, "no lines, no line overlap")
	b.Reset()
	r.LineTable(&b, 10)
	table := b.String()
	rows := sectionLines(t, table, "Self time by line (%)")
	assert.Equal(t, []string{"method:line", "truth", "async", "tprof"}, strings.Fields(rows[0]))
	top := r.Profiles["truth"].Lines[0]
	assert.True(t, strings.HasPrefix(strings.TrimSpace(rows[1]), top.label()+" "), "truth's top line first: %q", rows[1])
	assert.Contains(t, table, "overlap vs truth (lines)")
	assert.Contains(t, table, "tprof: no source lines recorded")
	assert.NotContains(t, table, "no overlap by line")
}

// The bias matrix keeps the methods that matter either way: one that
// threads are seldom in but that gets most of the samples (a poll's
// caller) keeps its column when the others fold into (other).
func TestFoldOtherKeepsTheChargedColumn(t *testing.T) {
	b := BiasMatrix{Methods: []string{"A", "B", "C", "D"}, Counts: [][]int64{
		{10, 0, 40, 0}, // truly in A: 50, charged to A 10
		{0, 5, 25, 0},  // B: 30
		{0, 0, 2, 0},   // C: 2 truly, 67 charged
		{0, 0, 0, 3},   // D: 3
	}}
	names, cells := foldOther(b, 2)
	assert.Equal(t, []string{"A", "C", "(other)"}, names)
	assert.Equal(t, [][]int64{{10, 40, 0}, {0, 2, 0}, {0, 25, 8}}, cells)
}

// A sampler of several members (komorium-set) stands in the report as its
// members, each a profile of its own with its overlap: the set's own
// profile is only its first member's, and the others would be silently
// missing from the table, the JSON and a sweep's runs.csv.
func TestMembersAreProfiles(t *testing.T) {
	_, out := runOutcome(t, "sqsum", 100*sim.Millisecond, []string{"truth", "komorium-set,granularities=500/1000,randoms=0/100"}, nil)
	r := New("sqsum", harness.Config{}, out)
	want := []string{"truth", "komorium-set/g500", "komorium-set/g500r100", "komorium-set/g1000", "komorium-set/g1000r100"}
	require.Equal(t, want, r.Order)
	for _, id := range want[1:] {
		p, ok := r.Profiles[id]
		require.True(t, ok, id)
		require.NotNil(t, p.OverlapVsTruth, id)
		assert.Equal(t, out.Costs[id].Taken, p.Costs.Taken, id)
	}
	_, hasSet := r.Profiles["komorium-set"]
	assert.False(t, hasSet, "the set's own profile is its first member's: not a column of its own")
	assert.Greater(t, *r.Profiles["komorium-set/g500r100"].OverlapVsTruth, *r.Profiles["komorium-set/g500"].OverlapVsTruth,
		"the members differ as Binder's grid does: randomized granularity beats constant on sqsum")
}
