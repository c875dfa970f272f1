package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The overloads of testdata/overloads.yaml as Java names them: class,
// method and, for overloads, the JVM descriptor, ';' and all.
const (
	ovMain   = "app.Main.main"
	ovString = "app.Util.fmt(Ljava/lang/String;I)Ljava/lang/String;"
	ovObject = "app.Util.fmt(Ljava/lang/Object;)V"
)

var ovArgs = []string{"--workload", filepath.Join("testdata", "overloads.yaml"), "--duration", "50ms", "--samplers", "truth,safepoint,async"}

// TestJavaNamesInEveryOutput: overloaded methods whose descriptors hold
// object types are named as Java does in the table, json, csv, jsonl,
// --why, --trace, --explain-jit, pprof, the HTML report and folded files,
// whose lines read back as the frames they stand for.
func TestJavaNamesInEveryOutput(t *testing.T) {
	names := []string{ovMain, ovObject, ovString}
	run := func(extra ...string) string {
		t.Helper()
		code, out, errOut := runMain(append(append([]string{"run"}, ovArgs...), extra...)...)
		require.Equal(t, 0, code, errOut)
		return out
	}

	// Table, with --why and --explain-jit (thresholds low enough that
	// both overloads compile).
	table := run("--why", "--explain-jit", "--set", "jit.compile_threshold=100", "--set", "jit.backedge_threshold=100")
	rows := map[string]bool{}
	for _, l := range strings.Split(table, "\n") {
		if f := strings.Fields(l); len(f) == 4 && strings.HasPrefix(f[0], "app.") {
			rows[f[0]] = true
		}
	}
	assert.Equal(t, map[string]bool{ovMain: true, ovString: true, ovObject: true}, rows, "self-time rows:\n%s", table)
	assert.Contains(t, table, "  "+ovString+": invocations, queued")
	assert.Contains(t, table, "      "+ovObject+" [compiled] polls:")
	assert.Regexp(t, `(?m)^  truly in \\ charged to +`+regexp.QuoteMeta(ovString), table)
	assert.NotContains(t, table, "Ljava/lang/String,", "no ',' for ';'")

	// json
	var rep struct {
		Profiles map[string]struct {
			Methods []struct {
				Method string `json:"method"`
			} `json:"methods"`
		} `json:"profiles"`
	}
	require.NoError(t, json.Unmarshal([]byte(run("--format", "json")), &rep))
	var got []string
	for _, m := range rep.Profiles["truth"].Methods {
		got = append(got, m.Method)
	}
	slices.Sort(got)
	assert.Equal(t, names, got, "json")

	// csv and jsonl: the method column
	recs, err := csv.NewReader(strings.NewReader(run("--format", "csv"))).ReadAll()
	require.NoError(t, err)
	col := slices.Index(recs[0], "method")
	require.GreaterOrEqual(t, col, 0)
	got = nil
	for _, r := range recs[1:] {
		if r[slices.Index(recs[0], "profile")] == "truth" {
			got = append(got, r[col])
		}
	}
	slices.Sort(got)
	assert.Equal(t, names, got, "csv")
	got = nil
	for _, l := range strings.Split(strings.TrimSpace(run("--format", "jsonl")), "\n") {
		var row struct{ Profile, Method string }
		require.NoError(t, json.Unmarshal([]byte(l), &row))
		if row.Profile == "truth" {
			got = append(got, row.Method)
		}
	}
	slices.Sort(got)
	assert.Equal(t, names, got, "jsonl")

	// --trace and --out
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.jsonl")
	run("--out", dir, "--trace", trace)
	f, err := os.Open(trace)
	require.NoError(t, err)
	defer f.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var s struct {
			True       []string `json:"true"`
			TrueMethod string   `json:"true_method"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &s))
		seen[s.TrueMethod] = true
		require.NotEmpty(t, s.True)
		leaf := s.True[len(s.True)-1]
		assert.Equal(t, s.TrueMethod, leaf[:strings.LastIndexByte(leaf, ':')], "a frame is method:line")
	}
	require.NoError(t, sc.Err())
	assert.True(t, seen[ovString], "trace: %v", seen)

	pf, err := os.Open(filepath.Join(dir, "truth.pb.gz"))
	require.NoError(t, err)
	defer pf.Close()
	pp, err := pprof.Parse(pf)
	require.NoError(t, err)
	fn := map[string]string{}
	for _, x := range pp.Function {
		fn[x.Name] = x.SystemName
	}
	assert.Equal(t, map[string]string{
		ovMain:   ovMain + "([Ljava/lang/String;)V",
		ovString: ovString,
		ovObject: ovObject,
	}, fn, "pprof function names and system names")

	// Folded: frames without descriptors, the overloads merged into one
	// frame, every line "frame;…;frame weight".
	folded, err := os.ReadFile(filepath.Join(dir, "truth.folded"))
	require.NoError(t, err)
	var stacks [][]string
	var total int64
	for _, l := range strings.Split(strings.TrimSuffix(string(folded), "\n"), "\n") {
		i := strings.LastIndexByte(l, ' ')
		require.Positive(t, i, "line %q", l)
		w, err := strconv.ParseInt(l[i+1:], 10, 64)
		require.NoError(t, err, "line %q", l)
		total += w
		stacks = append(stacks, strings.Split(l[:i], ";"))
	}
	assert.Equal(t, [][]string{{ovMain}, {ovMain, "app.Util.fmt"}}, stacks, "folded:\n%s", folded)
	var tw int64
	for _, s := range pp.Sample {
		tw += s.Value[1]
	}
	assert.Equal(t, tw, total, "folded weights sum to the profile's")

	// The HTML report: table and flame graph.
	page := filepath.Join(dir, "r.html")
	code, _, errOut := runMain(append([]string{"report", "--html", page}, ovArgs...)...)
	require.Equal(t, 0, code, errOut)
	b, err := os.ReadFile(page)
	require.NoError(t, err)
	text := html.UnescapeString(string(b))
	assert.Contains(t, text, ovString)
	assert.Contains(t, text, "<title>"+ovMain+" → "+ovObject+" (")
	assert.NotContains(t, text, "Ljava/lang/String,")
}
