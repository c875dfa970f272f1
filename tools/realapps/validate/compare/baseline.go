package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// readCSV reads the results a previous run wrote with --csv (writeCSV):
// every cell and disagreement, the criteria evaluated again. The real
// runs, the model settings and the program ends are not in the file.
func readCSV(path string) (*results, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseCSV(f, path)
}

func parseCSV(r io.Reader, name string) (*results, error) {
	rows, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(rows) == 0 || !slices.Equal(rows[0], []string{"app", "profiler", "metric", "value", "method"}) {
		return nil, fmt.Errorf("%s: not a compare --csv file (want the header app,profiler,metric,value,method)", name)
	}
	res := &results{}
	type key struct{ app, prof string }
	cells := map[key]*cell{}
	dis := map[key]*disagreement{}
	ctxs := map[key]*contextCell{}
	var cellOrder, disOrder, ctxOrder []key
	for i, row := range rows[1:] {
		line := i + 2
		k := key{row[0], row[1]}
		if !slices.Contains(res.Apps, k.app) {
			res.Apps = append(res.Apps, k.app)
		}
		v := math.NaN()
		if row[3] != "" {
			if v, err = strconv.ParseFloat(row[3], 64); err != nil {
				return nil, fmt.Errorf("%s:%d: value %q: %v", name, line, row[3], err)
			}
		}
		metric := row[2]
		switch metric {
		case "context_reps", "context_seeds", "context_noise_floor", "context_real_vs_profsim", "context_null_real_jfr_dns":
			c := ctxs[k]
			if c == nil {
				c = &contextCell{App: k.app, Profiler: k.prof, Floor: math.NaN(), Sim: math.NaN(), NullJFRDNS: math.NaN()}
				ctxs[k] = c
				ctxOrder = append(ctxOrder, k)
			}
			switch metric {
			case "context_reps":
				c.Reps = int(v)
			case "context_seeds":
				c.Seeds = int(v)
			case "context_noise_floor":
				c.Floor = v / 100
			case "context_real_vs_profsim":
				c.Sim = v / 100
			case "context_null_real_jfr_dns":
				c.NullJFRDNS = v / 100
			}
			continue
		case "disagreement_real", "disagreement_profsim", "disagreement_absdiff":
			d := dis[k]
			if d == nil {
				d = &disagreement{App: k.app, Profiler: k.prof, Real: math.NaN(), Sim: math.NaN()}
				dis[k] = d
				disOrder = append(disOrder, k)
			}
			switch metric {
			case "disagreement_real":
				d.Real = v / 100
			case "disagreement_profsim":
				d.Sim = v / 100
			}
			continue
		}
		if !slices.Contains(res.Profilers, k.prof) {
			res.Profilers = append(res.Profilers, k.prof)
		}
		c := cells[k]
		if c == nil {
			c = &cell{App: k.app, Profiler: k.prof, NoiseFloor: math.NaN(), RealVsSim: math.NaN(), NullTruth: math.NaN(), NullJFRDNS: math.NaN(), Top5: math.NaN()}
			cells[k] = c
			cellOrder = append(cellOrder, k)
		}
		switch metric {
		case "reps":
			c.Reps = int(v)
		case "seeds":
			c.Seeds = int(v)
		case "noise_floor":
			c.NoiseFloor = v / 100
		case "real_vs_profsim":
			c.RealVsSim = v / 100
		case "null_truth":
			c.NullTruth = v / 100
		case "null_real_jfr_dns":
			c.NullJFRDNS = v / 100
		case "top1_real":
			c.Top1Real = row[4]
		case "top1_profsim":
			c.Top1Sim = row[4]
		case "top1_match":
			// Top1Match is computed from the two names.
		case "top5_agreement":
			c.Top5 = v / 100
		default:
			return nil, fmt.Errorf("%s:%d: unknown metric %q", name, line, metric)
		}
	}
	for _, k := range cellOrder {
		res.Cells = append(res.Cells, *cells[k])
	}
	for _, k := range disOrder {
		res.Dis = append(res.Dis, *dis[k])
	}
	for _, k := range ctxOrder {
		res.Contexts = append(res.Contexts, *ctxs[k])
	}
	res.Criteria = evaluate(res.Profilers, res.Cells, res.Dis)
	return res, nil
}

// writeAgainst compares the results now with a baseline's (a previous
// --csv, base), pair by pair: what a change to a model or the import
// moved. A pair in one of the two only is listed, not dropped.
func writeAgainst(w io.Writer, name string, base, now *results) {
	fmt.Fprintf(w, "\n## Against the baseline %s\n\n", code(name))
	type key struct{ app, prof string }
	before := map[key]cell{}
	for _, c := range base.Cells {
		before[key{c.App, c.Profiler}] = c
	}
	seen := map[key]bool{}
	fmt.Fprintf(w, "| app | profiler | real vs profsim: baseline → now | change (points) | top-1 match: baseline → now |\n|---|---|---|---|---|\n")
	type sum struct {
		b, n       []float64
		hotB, hotN int
		apps       int
	}
	sums := map[string]*sum{}
	var only []string
	for _, c := range now.Cells {
		k := key{c.App, c.Profiler}
		seen[k] = true
		b, ok := before[k]
		if !ok {
			only = append(only, fmt.Sprintf("%s %s (now only)", c.App, c.Profiler))
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %s → %s | %s | %s → %s |\n", c.App, c.Profiler, pct(b.RealVsSim), pct(c.RealVsSim),
			signedPts(c.RealVsSim-b.RealVsSim), yesNo(b.Top1Match()), yesNo(c.Top1Match()))
		s := sums[c.Profiler]
		if s == nil {
			s = &sum{}
			sums[c.Profiler] = s
		}
		s.b, s.n = append(s.b, b.RealVsSim), append(s.n, c.RealVsSim)
		s.apps++
		if b.Top1Match() {
			s.hotB++
		}
		if c.Top1Match() {
			s.hotN++
		}
	}
	for _, c := range base.Cells {
		if !seen[key{c.App, c.Profiler}] {
			only = append(only, fmt.Sprintf("%s %s (baseline only)", c.App, c.Profiler))
		}
	}
	fmt.Fprintf(w, "\n| profiler | apps in both | real vs profsim, mean: baseline → now | hottest method right: baseline → now |\n|---|---|---|---|\n")
	for _, prof := range now.Profilers {
		if s := sums[prof]; s != nil {
			fmt.Fprintf(w, "| %s | %d | %s → %s | %d → %d |\n", prof, s.apps, pct(meanOf(s.b)), pct(meanOf(s.n)), s.hotB, s.hotN)
		}
	}
	fmt.Fprintf(w, "\n| criterion | profiler | applications meeting it: baseline → now |\n|---|---|---|\n")
	for _, c := range now.Criteria {
		b := "—"
		for _, bc := range base.Criteria {
			if bc.What == c.What && bc.Profiler == c.Profiler {
				b = fmt.Sprintf("%d of %d", bc.Count, bc.Of)
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s → %d of %d |\n", c.What, c.Profiler, b, c.Count, c.Of)
	}
	writeContextsAgainst(w, base, now)
	if len(only) > 0 {
		fmt.Fprintf(w, "\nIn one of the two only: %s.\n", strings.Join(only, "; "))
	}
}

// writeContextsAgainst compares the calling contexts' real vs profsim,
// pair by pair and in the mean per profiler, where both results have
// them.
func writeContextsAgainst(w io.Writer, base, now *results) {
	type key struct{ app, prof string }
	before := map[key]contextCell{}
	for _, c := range base.Contexts {
		before[key{c.App, c.Profiler}] = c
	}
	var pairs []string
	means := map[string][2][]float64{}
	for _, c := range now.Contexts {
		b, ok := before[key{c.App, c.Profiler}]
		if !ok {
			continue
		}
		pairs = append(pairs, fmt.Sprintf("| %s | %s | %s → %s | %s |\n", c.App, c.Profiler, pct(b.Sim), pct(c.Sim), signedPts(c.Sim-b.Sim)))
		m := means[c.Profiler]
		m[0], m[1] = append(m[0], b.Sim), append(m[1], c.Sim)
		means[c.Profiler] = m
	}
	if len(pairs) == 0 {
		return
	}
	fmt.Fprintf(w, "\n| app | profiler | calling contexts, real vs profsim: baseline → now | change (points) |\n|---|---|---|---|\n%s", strings.Join(pairs, ""))
	fmt.Fprintf(w, "\n| profiler | apps in both | calling contexts, real vs profsim, mean: baseline → now |\n|---|---|---|\n")
	for _, prof := range now.Profilers {
		if m, ok := means[prof]; ok {
			fmt.Fprintf(w, "| %s | %d | %s → %s |\n", prof, len(m[0]), pct(meanOf(m[0])), pct(meanOf(m[1])))
		}
	}
}

// signedPts prints a change of fractions in points with its sign.
func signedPts(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	p := math.Round(points(x)*10) / 10
	if p == 0 {
		return "0.0" // not −0.0 for a change that rounds away
	}
	return fmt.Sprintf("%+.1f", p)
}
