package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// withinPoints is the bar: a cell agrees when |real median −
// profsim median| is at most 10 points (issue 35, "Done when").
const withinPoints = 10.0

// Row is one cell of the table: a mode's key under one profiler.
type Row struct {
	Mode, Profiler string
	Key            Key
	// Real shares, one per rep (points), and samples per rep in scope.
	Real    []float64
	Samples []int64
	// Sim shares, one per seed; SimNA says why there are none.
	Sim        []float64
	SimSamples []int64
	SimNA      string
}

// Median of xs (the mean of the middle two when even); NaN if empty.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Diff is |real median − sim median|; ok is false when either side has
// nothing.
func (r Row) Diff() (float64, bool) {
	if len(r.Real) == 0 || len(r.Sim) == 0 {
		return 0, false
	}
	return math.Abs(Median(r.Real) - Median(r.Sim)), true
}

// Within is "yes", "no" or "—" (no comparison).
func (r Row) Within() string {
	d, ok := r.Diff()
	switch {
	case !ok:
		return "—"
	case d <= withinPoints:
		return "yes"
	}
	return "no"
}

func fmtRange(xs []float64) string {
	if len(xs) == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f [%.1f–%.1f]", Median(xs), slices.Min(xs), slices.Max(xs))
}

// Real renders the real side: median [min–max].
func (r Row) RealText() string { return fmtRange(r.Real) }

// SimText renders the simulated side.
func (r Row) SimText() string {
	if r.SimNA != "" {
		return r.SimNA
	}
	return fmtRange(r.Sim)
}

// BuildRows makes every cell of modes × profilers × keys from the real
// runs (by mode, profiler: one Shares per rep) and the simulated cells.
func BuildRows(modes []Mode, profs []Profiler, real map[string]map[string][]Shares, sims *SimResult) []Row {
	var rows []Row
	for _, m := range modes {
		for _, k := range m.Keys {
			for _, p := range profs {
				r := Row{Mode: m.Name, Profiler: p.ID, Key: k}
				for _, sh := range real[m.Name][p.ID] {
					r.Real = append(r.Real, sh.Of[k])
					r.Samples = append(r.Samples, sh.Total)
				}
				if sims != nil {
					c := sims.Cells[m.Name][p.ID]
					if c.NA != "" {
						r.SimNA = c.NA
					} else {
						for _, sh := range c.Seeds {
							r.Sim = append(r.Sim, sh.Of[k])
							r.SimSamples = append(r.SimSamples, sh.Total)
						}
					}
				} else {
					r.SimNA = "n/a (--no-sim)"
				}
				rows = append(rows, r)
			}
		}
	}
	return rows
}

// Header is what the table says of the runs it was made from.
type Header struct {
	Versions []string // distinct "profiler: java_version" and async-profiler versions
	Loads    string
	Notes    []string
	Reps     int
	Seeds    int
	Warmup   int
	Window   int
}

// HeaderOf summarises the runs' versions and loads.
func HeaderOf(runs []*Run) Header {
	var h Header
	seen := map[string]bool{}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range runs {
		for _, v := range []string{"JDK " + r.Meta.JavaVersion, r.Meta.AsyncProfiler} {
			if strings.HasPrefix(r.Meta.Profiler, "jfr") && v == r.Meta.AsyncProfiler {
				continue
			}
			if !seen[v] {
				seen[v] = true
				h.Versions = append(h.Versions, v)
			}
		}
		for _, l := range []float64{r.Meta.LoadBefore[0], r.Meta.LoadAfter[0]} {
			lo, hi = math.Min(lo, l), math.Max(hi, l)
		}
		h.Warmup, h.Window = r.Meta.WarmupS, r.Meta.WindowS
	}
	sort.Strings(h.Versions)
	if len(runs) > 0 {
		h.Loads = fmt.Sprintf("%.2f–%.2f", lo, hi)
	}
	return h
}

// WriteMarkdown writes the table.
func WriteMarkdown(w io.Writer, h Header, rows []Row) {
	fmt.Fprintf(w, "# Fidelity: real profilers against profsim's twins\n\n")
	fmt.Fprintf(w, "Runs: %d reps of %d s after %d s of warm-up; versions: %s; 1-minute load average before/after the runs %s. ",
		h.Reps, h.Window, h.Warmup, strings.Join(h.Versions, ", "), h.Loads)
	fmt.Fprintf(w, "profsim: seeds 1–%d. Cells are shares of the samples on the program's threads, in points: median [min–max]; within = |real median − profsim median| ≤ %.0f.\n\n", h.Seeds, withinPoints)
	for _, n := range h.Notes {
		fmt.Fprintf(w, "- note: %s\n", n)
	}
	if len(h.Notes) > 0 {
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "| mode | share of | profiler | real | samples/run | profsim | samples/run | \\|diff\\| | within 10 |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		diff := "—"
		if d, ok := r.Diff(); ok {
			diff = fmt.Sprintf("%.1f", d)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Mode, r.Key, r.Profiler, r.RealText(), medianCount(r.Samples), r.SimText(), medianCount(r.SimSamples), diff, r.Within())
	}
	var yes, no, none int
	for _, r := range rows {
		switch r.Within() {
		case "yes":
			yes++
		case "no":
			no++
		default:
			none++
		}
	}
	fmt.Fprintf(w, "\n%d cells within %.0f points, %d not, %d without both sides.\n", yes, withinPoints, no, none)
}

// medianCount renders the median of counts, "—" if there are none.
func medianCount(ns []int64) string {
	if len(ns) == 0 {
		return "—"
	}
	var fs []float64
	for _, n := range ns {
		fs = append(fs, float64(n))
	}
	return fmt.Sprintf("%.0f", Median(fs))
}

// WriteCSV writes one row per cell.
func WriteCSV(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
	if err := cw.Write([]string{"mode", "key", "profiler", "real_median", "real_min", "real_max", "real_reps", "samples_median",
		"profsim_median", "profsim_min", "profsim_max", "profsim_seeds", "profsim_samples_median", "profsim_na", "abs_diff", "within_10"}); err != nil {
		return err
	}
	for _, r := range rows {
		rec := []string{r.Mode, r.Key.String(), r.Profiler}
		if len(r.Real) > 0 {
			var ns []float64
			for _, n := range r.Samples {
				ns = append(ns, float64(n))
			}
			rec = append(rec, f(Median(r.Real)), f(slices.Min(r.Real)), f(slices.Max(r.Real)), strconv.Itoa(len(r.Real)), f(Median(ns)))
		} else {
			rec = append(rec, "", "", "", "0", "")
		}
		if len(r.Sim) > 0 {
			var ns []float64
			for _, n := range r.SimSamples {
				ns = append(ns, float64(n))
			}
			rec = append(rec, f(Median(r.Sim)), f(slices.Min(r.Sim)), f(slices.Max(r.Sim)), strconv.Itoa(len(r.Sim)), f(Median(ns)), "")
		} else {
			rec = append(rec, "", "", "", "0", "", r.SimNA)
		}
		if d, ok := r.Diff(); ok {
			rec = append(rec, f(d))
		} else {
			rec = append(rec, "")
		}
		rec = append(rec, r.Within())
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
