package report

// Tidy output: the report in long format, one row per (profile, method)
// or (profile, method, line), unrounded, for pandas or R to load without
// cleaning — every numeric cell a plain number or empty, never "NaN",
// "Inf", "%" or "±".

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Setting is one run setting written as a column of every row (workload,
// seed, duration, ...). Value is already formatted; numeric settings are
// plain numbers ("7", "0.1"), which JSONL writes as JSON numbers.
type Setting struct{ Name, Value string }

// tidyCell is one cell of a tidy row: a string, an int64, a float64, or
// nil (missing: an empty CSV cell, JSON null).
type tidyCell struct {
	name  string
	value any
}

// number is a cell value already formatted by formatFloat: a value that
// repeats over many rows (the truth's share of a method, a profile's
// overlap) is formatted once.
type number string

// tidyRows lays the report out in long format. Per profile (in the
// report's order) one row per method of the union over all profiles, so
// that every profile covers the same methods (share 0 where it saw none);
// with byLine one row per (method, line) instead. Methods are in truth's
// order (self share descending), then by name (and line).
//
// Edge-only profiles (cbs, jikes-timer) have no stack samples and so no
// method or line rows: they are left out (their call graphs are in the
// JSON report's edges).
//
// Columns: the settings, then profile, method, [line,] self_share,
// [total_share,] truth_self_share, samples, overlap_vs_truth (by line
// with byLine). truth_self_share is empty without truth, and by line when
// truth records no source lines (then overlap_vs_truth is empty too: see
// Profile.LineOverlapVsTruth); overlap_vs_truth is empty for truth.
func tidyRows(r *Report, settings []Setting, byLine bool) (header []string, rows [][]tidyCell, err error) {
	for _, s := range settings {
		header = append(header, s.Name)
	}
	if byLine {
		header = append(header, "profile", "method", "line", "self_share", "truth_self_share", "samples", "overlap_vs_truth")
	} else {
		header = append(header, "profile", "method", "self_share", "total_share", "truth_self_share", "samples", "overlap_vs_truth")
	}
	for i, h := range header {
		if slices.Contains(header[:i], h) {
			return nil, nil, fmt.Errorf("tidy output: column %q twice (a setting named like a column?)", h)
		}
	}

	type key struct {
		method string
		line   int
	}
	type shares struct{ self, total float64 }
	// noTotal marks the profiles without total shares (a truth per method).
	noTotal := map[string]bool{}
	names := r.stackNames()
	byProfile := make([]map[key]shares, len(names))
	var keys []key
	seen := map[key]bool{}
	for i, n := range names {
		p := r.Profiles[n]
		byProfile[i] = map[key]shares{}
		add := func(k key, s shares) {
			byProfile[i][k] = s
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
		if byLine {
			for _, l := range p.Lines {
				add(key{l.Method, l.Line}, shares{self: l.SelfShare})
			}
		} else {
			for _, m := range p.Methods {
				if m.TotalShare == nil {
					noTotal[n] = true
					add(key{m.Method, 0}, shares{self: m.SelfShare})
					continue
				}
				add(key{m.Method, 0}, shares{self: m.SelfShare, total: *m.TotalShare})
			}
		}
	}
	truth := slices.Index(names, "truth")
	if byLine && truth >= 0 && !r.Profiles["truth"].hasLines() {
		truth = -1 // truth records no lines: no truth share by line to give
	}
	truthShare := func(k key) float64 {
		if truth < 0 {
			return 0
		}
		return byProfile[truth][k].self
	}
	sort.SliceStable(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if sa, sb := truthShare(a), truthShare(b); sa != sb {
			return sa > sb
		}
		if a.method != b.method {
			return a.method < b.method
		}
		return a.line < b.line
	})

	// The truth's share of each key, formatted once for every profile.
	var truthText []any
	if truth >= 0 {
		truthText = make([]any, len(keys))
		for j, k := range keys {
			t, err := formatFloat("truth_self_share", truthShare(k))
			if err != nil {
				return nil, nil, err
			}
			truthText[j] = number(t)
		}
	}
	// One backing array for every row's cells.
	cells := make([]tidyCell, 0, len(names)*len(keys)*len(header))
	for i, n := range names {
		p := r.Profiles[n]
		overlap := p.OverlapVsTruth
		if byLine {
			overlap = p.LineOverlapVsTruth
		}
		var o any // missing for truth
		if overlap != nil {
			t, err := formatFloat("overlap_vs_truth", *overlap)
			if err != nil {
				return nil, nil, err
			}
			o = number(t)
		}
		for j, k := range keys {
			row := cells[len(cells):len(cells):cap(cells)]
			for _, s := range settings {
				row = append(row, tidyCell{s.Name, s.Value})
			}
			s := byProfile[i][k]
			row = append(row, tidyCell{"profile", n}, tidyCell{"method", k.method})
			if byLine {
				row = append(row, tidyCell{"line", int64(k.line)}, tidyCell{"self_share", s.self})
			} else {
				var total any = s.total
				if noTotal[n] {
					total = nil
				}
				row = append(row, tidyCell{"self_share", s.self}, tidyCell{"total_share", total})
			}
			var ts any // missing without truth
			if truth >= 0 {
				ts = truthText[j]
			}
			row = append(row, tidyCell{"truth_self_share", ts}, tidyCell{"samples", samplesCell(n, p.Samples)}, tidyCell{"overlap_vs_truth", o})
			cells = cells[:len(cells)+len(row)]
			rows = append(rows, row[:len(row):len(row)])
		}
	}
	return header, rows, nil
}

// formatFloat is the shortest decimal that parses back to x; a
// non-finite x (which no share or overlap should be) is an error rather
// than "NaN" in a file meant to load without cleaning.
func formatFloat(col string, x float64) (string, error) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "", fmt.Errorf("tidy output: %s is %v", col, x)
	}
	return strconv.FormatFloat(x, 'g', -1, 64), nil
}

// CSV writes the report in long format as CSV (RFC 4180, encoding/csv):
// a header, then per stack-sampling profile one row per method of the
// union over all profiles (byLine: per method and line), each row led by
// the settings (Settings) as columns.
func (r *Report) CSV(w io.Writer, settings []Setting, byLine bool) error {
	header, rows, err := tidyRows(r, settings, byLine)
	if err != nil {
		return err
	}
	return writeTidyCSV(w, header, rows)
}

// cellText is a cell as CSV text: "" when missing, numbers unrounded.
func cellText(c tidyCell) (string, error) {
	switch v := c.value.(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case float64:
		return formatFloat(c.name, v)
	case number:
		return string(v), nil
	}
	panic(fmt.Sprintf("tidy: cell %s of type %T", c.name, c.value))
}

// JSONL writes the rows of CSV as JSON Lines: one object per line, keys
// in the CSV header's order, numbers as JSON numbers, missing values as
// null. A setting whose value is a JSON number literal ("7", "0.05",
// "1e-3") is written as a number, any other as a string.
func (r *Report) JSONL(w io.Writer, settings []Setting, byLine bool) error {
	_, rows, err := tidyRows(r, settings, byLine)
	if err != nil {
		return err
	}
	numeric := make([]bool, len(settings))
	for i, s := range settings {
		numeric[i] = isJSONNumber(s.Value)
	}
	var b bytes.Buffer
	for _, row := range rows {
		b.Reset()
		b.WriteByte('{')
		for i, c := range row {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(c.name)
			b.Write(k)
			b.WriteByte(':')
			switch v := c.value.(type) {
			case nil:
				b.WriteString("null")
			case string:
				if i < len(settings) && numeric[i] {
					b.WriteString(v)
					break
				}
				s, _ := json.Marshal(v)
				b.Write(s)
			case int64:
				b.WriteString(strconv.FormatInt(v, 10))
			case number:
				b.WriteString(string(v))
			case float64:
				s, err := formatFloat(c.name, v)
				if err != nil {
					return err
				}
				b.WriteString(s)
			default:
				panic(fmt.Sprintf("tidy: cell %s of type %T", c.name, v))
			}
		}
		b.WriteString("}\n")
		if _, err := w.Write(b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// isJSONNumber reports whether s is a JSON number literal (so not "Inf",
// "NaN", "0x10", "1_000" or " 7").
func isJSONNumber(s string) bool {
	if s == "" || s != strings.TrimSpace(s) || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return false
	}
	return json.Valid([]byte(s))
}

// samplesCell is a profile's samples for the tidy tables: the truth has
// none (its count is nanoseconds of CPU), so its cell is empty.
func samplesCell(profile string, samples int64) any {
	if profile == "truth" {
		return nil
	}
	return samples
}

// writeTidyCSV writes a header and tidy rows as CSV.
func writeTidyCSV(w io.Writer, header []string, rows [][]tidyCell) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	rec := make([]string, len(header))
	for _, row := range rows {
		for i, c := range row {
			s, err := cellText(c)
			if err != nil {
				return err
			}
			rec[i] = s
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
