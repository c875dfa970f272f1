package runs

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/profsim/profsim/sweep"
)

// SummaryFile is a sweep's per-cell summary: one row per cell of the
// grid without its seed axis, and profile.
const SummaryFile = "summary.csv"

// summaryRowsShown is how many summary rows a sweep prints; all are in
// summary.csv.
const summaryRowsShown = 40

// cellStat is a streaming mean and variance (Welford) of one cell's
// overlap_vs_truth.
type cellStat struct {
	n        int
	mean, m2 float64
	failed   int
}

func (c *cellStat) add(x float64) {
	c.n++
	d := x - c.mean
	c.mean += d / float64(c.n)
	c.m2 += d * (x - c.mean)
}

// ci is the half-width of the 95 % confidence interval of the mean by
// Student's t (NaN for fewer than two runs), as study.MeanCI.
func (c *cellStat) ci() float64 {
	if c.n < 2 {
		return math.NaN()
	}
	sd := math.Sqrt(c.m2 / float64(c.n-1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(c.n - 1)}.Quantile(0.975)
	return t * sd / math.Sqrt(float64(c.n))
}

// writeSummary reads dir's runs.csv once and writes summary.csv:
// per cell — the grid's axes but seed — and profile, the runs, how many
// failed, and overlap_vs_truth's mean and 95 % CI over the seeds; then
// prints its first rows to w (nil: none). Memory grows with the cells,
// not the runs.
func writeSummary(dir string, m *sweep.Manifest, w io.Writer) error {
	f, err := os.Open(filepath.Join(dir, "runs.csv"))
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.ReuseRecord = true
	head, err := r.Read()
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, "runs.csv"), err)
	}
	col := func(name string) int { return slices.Index(head, name) }
	var cellCols []int
	var cellNames []string
	for _, a := range m.Axes {
		if a == "seed" {
			continue
		}
		if i := col(a); i >= 0 {
			cellCols, cellNames = append(cellCols, i), append(cellNames, a)
		}
	}
	status, prof, ov := col("status"), col("profile"), col("overlap_vs_truth")
	if status < 0 || prof < 0 || ov < 0 {
		return fmt.Errorf("%s: no status, profile or overlap_vs_truth column", filepath.Join(dir, "runs.csv"))
	}
	stats := map[string]*cellStat{}
	var order []string
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(dir, "runs.csv"), err)
		}
		if rec[prof] == "truth" {
			continue
		}
		key := make([]string, 0, len(cellCols)+1)
		for _, i := range cellCols {
			key = append(key, rec[i])
		}
		key = append(key, rec[prof])
		k := strings.Join(key, "\x00")
		s, ok := stats[k]
		if !ok {
			s = &cellStat{}
			stats[k] = s
			order = append(order, k)
		}
		if rec[status] != sweep.StatusOK {
			s.failed++
			continue
		}
		if x, err := strconv.ParseFloat(rec[ov], 64); err == nil {
			s.add(x)
		}
	}
	header := append(slices.Clone(cellNames), "profile", "runs", "failed", "overlap_vs_truth_mean", "overlap_vs_truth_ci95")
	rows := make([][]string, 0, len(order))
	for _, k := range order {
		s := stats[k]
		row := strings.Split(k, "\x00")
		mean, ci := "", ""
		if s.n > 0 {
			mean = strconv.FormatFloat(s.mean, 'g', -1, 64)
			if c := s.ci(); !math.IsNaN(c) {
				ci = strconv.FormatFloat(c, 'g', -1, 64)
			}
		}
		rows = append(rows, append(row, strconv.Itoa(s.n+s.failed), strconv.Itoa(s.failed), mean, ci))
	}
	if err := sweep.WriteAtomic(filepath.Join(dir, SummaryFile), func(sw io.Writer) error {
		cw := csv.NewWriter(sw)
		if err := cw.Write(header); err != nil {
			return err
		}
		if err := cw.WriteAll(rows); err != nil {
			return err
		}
		return cw.Error()
	}); err != nil {
		return err
	}
	if w == nil {
		return nil
	}
	// The table: overlap in % as mean ± CI.
	fmt.Fprintf(w, "overlap with the truth (%%), mean ± 95 %% CI over seeds, per cell and profile:\n")
	widths := make([]int, len(cellNames)+2)
	cells := make([][]string, 0, min(len(rows), summaryRowsShown)+1)
	cells = append(cells, append(slices.Clone(cellNames), "profile", "overlap"))
	for _, row := range rows[:min(len(rows), summaryRowsShown)] {
		s := stats[strings.Join(row[:len(cellNames)+1], "\x00")]
		v := "—"
		if s.n > 0 {
			v = fmt.Sprintf("%.1f", 100*s.mean)
			if c := s.ci(); !math.IsNaN(c) {
				v += fmt.Sprintf(" ± %.1f", 100*c)
			}
			v += fmt.Sprintf(" (n %d)", s.n)
		}
		if s.failed > 0 {
			v += fmt.Sprintf(", %d failed", s.failed)
		}
		cells = append(cells, append(slices.Clone(row[:len(cellNames)+1]), v))
	}
	for _, c := range cells {
		for i, v := range c {
			widths[i] = max(widths[i], len([]rune(v)))
		}
	}
	for _, c := range cells {
		var b strings.Builder
		b.WriteString(" ")
		for i, v := range c {
			b.WriteString(" ")
			b.WriteString(v)
			if i < len(c)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-len([]rune(v))))
			}
		}
		fmt.Fprintln(w, b.String())
	}
	if len(rows) > summaryRowsShown {
		fmt.Fprintf(w, "  … %d more rows in %s\n", len(rows)-summaryRowsShown, filepath.Join(dir, SummaryFile))
	}
	return nil
}
