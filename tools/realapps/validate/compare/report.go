package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// results is everything the report prints.
type results struct {
	Apps, Profilers []string
	Real            map[string]map[string][]realRun
	Cells           []cell
	Dis             []disagreement
	Criteria        []criterion
	// Contexts compares calling contexts where the real runs kept their
	// stacks.
	Contexts []contextCell
	Settings modelSettings
	// Ends holds, per app, the seeds' program ends inside the window
	// (simResult.Ends).
	Ends map[string][]time.Duration
	// From is the --csv file the results were read from (--from), where
	// the real runs, settings and ends are not known.
	From string
}

// pct prints an overlap fraction as a percentage, "—" for NaN.
func pct(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%.1f %%", points(x))
}

// pts prints a difference of fractions as points.
func pts(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%.1f", points(x))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// code quotes a method name for a Markdown table ("—" if none).
func code(m string) string {
	if m == "" {
		return "—"
	}
	return "`" + strings.ReplaceAll(m, "|", "\\|") + "`"
}

// writeMarkdown writes the report's tables.
func writeMarkdown(w io.Writer, r *results) {
	fmt.Fprintf(w, "# profsim models vs real profilers\n\n")
	if r.From != "" {
		fmt.Fprintf(w, "Results read from %s (a previous `compare --csv`): the real runs' machine and the models' settings are not in it.\n\n", code(r.From))
	} else {
		writeSettings(w, r)
	}
	writeTables(w, r)
}

// writeSettings says which models ran how, and on what real runs.
func writeSettings(w io.Writer, r *results) {
	from := "the built-in `<app>-real`"
	if r.Settings.Models != "" {
		from = "`" + filepath.ToSlash(filepath.Join(r.Settings.Models, "<app>-real.yaml")) + "`"
	}
	fmt.Fprintf(w, "Models: %s, driver loops ×%v, `--vm %s`, %d CPUs, `--skip %v`, duration %v, thread `main`, seeds 1..%d; self time by method, overlap = Σ min(share).\n\n",
		from, r.Settings.LoopScale, modelVM, r.Settings.CPUs, r.Settings.Skip, r.Settings.Duration, r.Settings.Seeds)
	writeMachine(w, r)
	writeEnds(w, r)
}

// writeTables writes the comparison's tables.
func writeTables(w io.Writer, r *results) {
	fmt.Fprintf(w, "## Per application and profiler\n\n")
	fmt.Fprintf(w, "| app | profiler | reps | seeds | noise floor | real vs profsim | null: model's truth | null: real jfr-dns | top-1 real | top-1 profsim | top-1 match | top-5 agreement |\n")
	fmt.Fprintf(w, "|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range r.Cells {
		fmt.Fprintf(w, "| %s | %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %.0f %% |\n",
			c.App, c.Profiler, c.Reps, c.Seeds, pct(c.NoiseFloor), pct(c.RealVsSim), pct(c.NullTruth), pct(c.NullJFRDNS),
			code(c.Top1Real), code(c.Top1Sim), yesNo(c.Top1Match()), 100*c.Top5)
	}

	fmt.Fprintf(w, "\n## Summary per profiler (mean over applications)\n\n")
	fmt.Fprintf(w, "| profiler | apps | noise floor | real vs profsim | null: model's truth | null: real jfr-dns | hottest method right | top-5 agreement |\n")
	fmt.Fprintf(w, "|---|---|---|---|---|---|---|---|\n")
	for _, prof := range r.Profilers {
		var cs []cell
		for _, c := range r.Cells {
			if c.Profiler == prof {
				cs = append(cs, c)
			}
		}
		m := func(f func(cell) float64) float64 {
			var xs []float64
			for _, c := range cs {
				xs = append(xs, f(c))
			}
			return meanOf(xs)
		}
		hot := 0
		for _, c := range cs {
			if c.Top1Match() {
				hot++
			}
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %d of %d | %s |\n", prof, len(cs),
			pct(m(func(c cell) float64 { return c.NoiseFloor })), pct(m(func(c cell) float64 { return c.RealVsSim })),
			pct(m(func(c cell) float64 { return c.NullTruth })), pct(m(func(c cell) float64 { return c.NullJFRDNS })),
			hot, len(cs), pct(m(func(c cell) float64 { return c.Top5 })))
	}

	if len(r.Dis) > 0 {
		fmt.Fprintf(w, "\n## Predicted vs real disagreement (overlap with jfr-dns)\n\n")
		fmt.Fprintf(w, "| app | pair | real | profsim | \\|difference\\| (points) |\n|---|---|---|---|---|\n")
		for _, d := range r.Dis {
			fmt.Fprintf(w, "| %s | %s vs jfr-dns | %s | %s | %s |\n", d.App, d.Profiler, pct(d.Real), pct(d.Sim), pts(d.Diff()))
		}
		for _, prof := range []string{profSafepoint, profJFR} {
			var re, si []float64
			for _, d := range r.Dis {
				if d.Profiler == prof {
					re, si = append(re, d.Real), append(si, d.Sim)
				}
			}
			if len(re) > 0 {
				fmt.Fprintf(w, "| mean | %s vs jfr-dns | %s | %s | %s |\n", prof, pct(meanOf(re)), pct(meanOf(si)), pts(math.Abs(meanOf(re)-meanOf(si))))
			}
		}
	}

	fmt.Fprintf(w, "\n## Issue 32's \"Done when\" criteria\n\n")
	fmt.Fprintf(w, "| criterion | profiler | applications meeting it | need | pass |\n|---|---|---|---|---|\n")
	for _, c := range r.Criteria {
		fmt.Fprintf(w, "| %s | %s | %d of %d | %d of 9 | %s |\n", c.What, c.Profiler, c.Count, c.Of, needApps, yesNo(c.Pass()))
	}
	writeContexts(w, r)
}

// meanOf is the mean of xs' numbers, NaNs left out; NaN if none.
func meanOf(xs []float64) float64 {
	s, n := 0.0, 0
	for _, x := range xs {
		if !math.IsNaN(x) {
			s += x
			n++
		}
	}
	return mean(s, n)
}

// writeEnds names the models whose program ended inside the window: their
// profiles cover less than the real runs' window.
func writeEnds(w io.Writer, r *results) {
	var notes []string
	for _, app := range r.Apps {
		for i, end := range r.Ends[app] {
			if end > 0 {
				notes = append(notes, fmt.Sprintf("%s-real seed %d ended at %v", app, i+1, end.Round(time.Millisecond)))
			}
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "Models whose program ended inside the window (%v to %v), so that their profiles cover less of it: %s.\n\n",
			r.Settings.Skip, r.Settings.Duration, strings.Join(notes, "; "))
	}
}

// writeMachine reports the real runs' Java versions and machine load.
func writeMachine(w io.Writer, r *results) {
	fmt.Fprintf(w, "## Real runs: Java and machine load\n\n")
	fmt.Fprintf(w, "| app | profiler | reps | java | load 1m before (min–max) | load 1m after (min–max) | samples on main (mean) | engine |\n")
	fmt.Fprintf(w, "|---|---|---|---|---|---|---|---|\n")
	for _, app := range r.Apps {
		for _, prof := range r.Profilers {
			runs := r.Real[app][prof]
			var java, engines []string
			lb, la := []float64{}, []float64{}
			main := 0.0
			for _, run := range runs {
				if !slices.Contains(java, run.Meta.JavaVersion) {
					java = append(java, run.Meta.JavaVersion)
				}
				if e := run.Meta.Engine; e != "" && !slices.Contains(engines, e) {
					engines = append(engines, e)
				}
				lb = append(lb, run.Meta.LoadBefore[0])
				la = append(la, run.Meta.LoadAfter[0])
				main += float64(run.Meta.SamplesMain)
			}
			if len(runs) == 0 {
				continue
			}
			fmt.Fprintf(w, "| %s | %s | %d | %s | %.2f–%.2f | %.2f–%.2f | %.0f | %s |\n", app, prof, len(runs),
				strings.Join(java, ", "), slices.Min(lb), slices.Max(lb), slices.Min(la), slices.Max(la),
				main/float64(len(runs)), orDash(strings.Join(engines, ", ")))
		}
	}
	fmt.Fprintln(w)
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// writeCSV writes one tidy row per (app, profiler, metric): value is a
// number (overlaps in percent, counts as counts), method the name for
// the top-1 rows.
func writeCSV(w io.Writer, r *results) error {
	cw := csv.NewWriter(w)
	row := func(app, prof, metric string, v float64, method string) {
		val := ""
		if !math.IsNaN(v) {
			val = strconv.FormatFloat(v, 'f', 4, 64)
		}
		cw.Write([]string{app, prof, metric, val, method})
	}
	cw.Write([]string{"app", "profiler", "metric", "value", "method"})
	for _, c := range r.Cells {
		row(c.App, c.Profiler, "reps", float64(c.Reps), "")
		row(c.App, c.Profiler, "seeds", float64(c.Seeds), "")
		row(c.App, c.Profiler, "noise_floor", points(c.NoiseFloor), "")
		row(c.App, c.Profiler, "real_vs_profsim", points(c.RealVsSim), "")
		row(c.App, c.Profiler, "null_truth", points(c.NullTruth), "")
		row(c.App, c.Profiler, "null_real_jfr_dns", points(c.NullJFRDNS), "")
		row(c.App, c.Profiler, "top1_real", math.NaN(), c.Top1Real)
		row(c.App, c.Profiler, "top1_profsim", math.NaN(), c.Top1Sim)
		m := 0.0
		if c.Top1Match() {
			m = 1
		}
		row(c.App, c.Profiler, "top1_match", m, "")
		row(c.App, c.Profiler, "top5_agreement", 100*c.Top5, "")
	}
	for _, d := range r.Dis {
		row(d.App, d.Profiler, "disagreement_real", points(d.Real), "")
		row(d.App, d.Profiler, "disagreement_profsim", points(d.Sim), "")
		row(d.App, d.Profiler, "disagreement_absdiff", points(d.Diff()), "")
	}
	for _, c := range r.Contexts {
		row(c.App, c.Profiler, "context_reps", float64(c.Reps), "")
		row(c.App, c.Profiler, "context_seeds", float64(c.Seeds), "")
		row(c.App, c.Profiler, "context_noise_floor", points(c.Floor), "")
		row(c.App, c.Profiler, "context_real_vs_profsim", points(c.Sim), "")
		row(c.App, c.Profiler, "context_null_real_jfr_dns", points(c.NullJFRDNS), "")
	}
	cw.Flush()
	return cw.Error()
}

// perMethodRows is how many methods --per-method lists.
const perMethodRows = 15

// writePerMethod lists, per profiler, app's 15 methods with the largest
// pooled share in the real runs or the model (whichever is larger), the
// real, profsim and truth shares side by side.
func writePerMethod(w io.Writer, app string, profilers []string, real map[string][]realRun, sim *simResult) {
	fmt.Fprintf(w, "\n## %s: top %d methods, real vs profsim (pooled runs and seeds)\n", app, perMethodRows)
	for _, prof := range profilers {
		var rd []dist
		for _, run := range real[prof] {
			rd = append(rd, run.Self)
		}
		pr, ps, pt := pool(rd), pool(sim.Profiles[prof]), pool(sim.Truth[prof])
		tr, ts, tt := pr.total(), ps.total(), pt.total()
		share := func(d dist, t float64, m string) float64 {
			if t <= 0 {
				return 0
			}
			return d[m] / t
		}
		big := dist{}
		for _, m := range pr.methods() {
			big[m] = share(pr, tr, m)
		}
		for _, m := range ps.methods() {
			big[m] = math.Max(big[m], share(ps, ts, m))
		}
		fmt.Fprintf(w, "\n### %s\n\n| method | real | profsim | model's truth |\n|---|---|---|---|\n", prof)
		for _, m := range top(big, perMethodRows) {
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", code(m), pct(share(pr, tr, m)), pct(share(ps, ts, m)), pct(share(pt, tt, m)))
		}
	}
}
