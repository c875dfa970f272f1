// Package calibrate holds the measurements behind profsim's cost defaults:
// Calibrate.java and jvmti/agent.c measure them on the installed JVM (run.sh),
// calibration.csv is their result on the machine machine.txt describes, and
// the test below checks that the defaults in code are that file's values.
// It needs neither Java nor a C compiler.
package calibrate

import (
	"encoding/csv"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/importer"
	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/samplers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// calibratedPreset is the VM preset whose VM, JIT and safepoint defaults
// come from calibration.csv (profsim run's default VM).
const calibratedPreset = "hotspot17"

// significant is how many significant figures a default keeps of its
// measured median: the repetitions of one measurement spread by more than
// a few per cent (calibration.csv's min and max), so further digits are
// noise.
const significant = 2

// row is one line of calibration.csv.
type row struct {
	Quantity      string
	Keys          []string // settings the median is the default of
	Median        float64
	Med, Min, Max string // as written
	Reps          string
	Unit, How     string
}

func readRows(t *testing.T) []row {
	f, err := os.Open("calibration.csv")
	require.NoError(t, err)
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.NotEmpty(t, recs)
	require.Equal(t, []string{"quantity", "model_key", "median", "min", "max", "reps", "unit", "how"}, recs[0])
	var out []row
	for _, r := range recs[1:] {
		m, err := strconv.ParseFloat(r[2], 64)
		require.NoError(t, err, "median of %s", r[0])
		out = append(out, row{Quantity: r[0], Keys: strings.Fields(r[1]), Median: m, Med: r[2], Min: r[3], Max: r[4], Reps: r[5], Unit: r[6], How: r[7]})
	}
	return out
}

// roundSig rounds x to n significant figures.
func roundSig(x float64, n int) float64 {
	if x == 0 {
		return 0
	}
	p := math.Pow(10, float64(n)-math.Ceil(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}

// defaultOf is the default value of a setting: sim.KEY, jit.KEY and
// safepoint.KEY of the calibrated preset as --set names them, or
// sampler:NAME.KEY, KEY of sampler NAME's registered defaults as
// --sampler NAME,KEY=V sets it, or import:KEY, a cost profsim import
// takes (importDefaults).
//
// isInt says the setting is an integer (not a duration): its default is
// the rounded median rounded again to a whole number.
func defaultOf(t *testing.T, name string) (value float64, isInt bool) {
	if key, ok := strings.CutPrefix(name, "import:"); ok {
		v, ok := importDefaults[key]
		require.True(t, ok, "setting %q: no import default %q", name, key)
		return v, false
	}
	if sampler, ok := strings.CutPrefix(name, "sampler:"); ok {
		sname, key, ok := strings.Cut(sampler, ".")
		require.True(t, ok, "setting %q: no KEY after the sampler's name", name)
		info, err := samplers.Lookup(sname)
		require.NoError(t, err, "setting %q", name)
		return numberOf(t, name, info.Config(), key)
	}
	prefix, key, ok := strings.Cut(name, ".")
	require.True(t, ok, "setting %q has no prefix", name)
	cfg, err := harness.PresetConfig(calibratedPreset)
	require.NoError(t, err)
	var ptr any
	switch prefix {
	case "sim":
		ptr = &cfg.Sim
	case "jit":
		ptr = &cfg.JIT
	case "safepoint":
		ptr = &cfg.Safepoint
	default:
		t.Fatalf("setting %q: prefix %q is none of sim, jit, safepoint, sampler:", name, prefix)
	}
	return numberOf(t, name, ptr, key)
}

// importDefaults are the import's measured costs (calibration.csv names
// them import:KEY), in ns.
var importDefaults = map[string]float64{
	"throw_walk_fixed":     importer.DefaultThrowWalkFixed,
	"throw_walk_per_frame": importer.DefaultThrowWalkPerFrame,
}

func numberOf(t *testing.T, name string, ptr any, key string) (value float64, isInt bool) {
	for _, kv := range param.Numbers(ptr) {
		if kv.Key.Name == key {
			return kv.Value, kv.Key.Kind == param.Int
		}
	}
	t.Fatalf("setting %q: no numeric key %q", name, key)
	return 0, false
}

func TestDefaultsAreTheCalibration(t *testing.T) {
	n := 0
	for _, r := range readRows(t) {
		for _, k := range r.Keys {
			got, isInt := defaultOf(t, k)
			want := roundSig(r.Median, significant)
			if isInt {
				want = math.Round(want)
			}
			assert.Equal(t, want, got, "%s's default is %s's median %g to %d significant figures", k, r.Quantity, r.Median, significant)
			n++
		}
	}
	assert.Positive(t, n, "calibration.csv sets no default")
}

// table renders calibration.csv as the Markdown table docs/CALIBRATION.md
// shows.
func table(rows []row) string {
	var b strings.Builder
	b.WriteString("| quantity | median | min – max | unit | setting | how |\n|---|---|---|---|---|---|\n")
	for _, r := range rows {
		keys := "—"
		if len(r.Keys) > 0 {
			keys = "`" + strings.Join(r.Keys, "`, `") + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s – %s | %s | %s | %s |\n", r.Quantity, r.Med, r.Min, r.Max, r.Unit, keys, r.How)
	}
	return b.String()
}

var update = flag.Bool("update", false, "rewrite docs/CALIBRATION.md's table from calibration.csv")

// docPath is the page that shows the table, between tableStart and tableEnd.
const (
	docPath    = "../../docs/CALIBRATION.md"
	tableStart = "<!-- calibration.csv: go test ./tools/calibrate -update -->\n"
	tableEnd   = "<!-- end of calibration.csv -->\n"
)

// TestDocShowsTheCalibration: docs/CALIBRATION.md shows calibration.csv
// as it is.
func TestDocShowsTheCalibration(t *testing.T) {
	raw, err := os.ReadFile(docPath)
	require.NoError(t, err)
	doc := string(raw)
	i, j := strings.Index(doc, tableStart), strings.Index(doc, tableEnd)
	require.True(t, i >= 0 && j > i, "%s: no %q … %q section", docPath, tableStart, tableEnd)
	want := table(readRows(t))
	if *update {
		doc = doc[:i+len(tableStart)] + want + doc[j:]
		require.NoError(t, os.WriteFile(docPath, []byte(doc), 0o644))
		return
	}
	assert.Equal(t, want, doc[i+len(tableStart):j], "docs/CALIBRATION.md's table is not calibration.csv's; regenerate with: go test ./tools/calibrate -update")
}

func TestRoundSig(t *testing.T) {
	assert.Equal(t, 110000.0, roundSig(108450, 2))
	assert.Equal(t, 9.1, roundSig(9.12, 2))
	assert.Equal(t, 120.0, roundSig(123.4, 2))
	assert.Equal(t, -0.0015, roundSig(-0.00148, 2))
}
