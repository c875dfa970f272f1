package main

// A sweep's tidy tables: runs.csv (one row per run and profile) and
// methods.csv (one row per run, profile and method), built from the
// records alone, in point order, so that they do not depend on --jobs,
// on shards, or on the order runs finished in.

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/profsim/profsim/sweep"
)

// axisColumns are the coordinate columns: each axis by its name, its
// values as written in the grid; an axis all of whose values are
// durations ("1ms") also gets NAME_ns, the value in nanoseconds.
func axisColumns(m *sweep.Manifest) (names []string, ns []bool) {
	if m.Durations != nil {
		return m.Axes, m.Durations
	}
	for _, a := range m.Axes {
		isDur := len(m.Points) > 0
		for _, p := range m.Points {
			v := coordValue(p.Coords, a)
			if _, err := time.ParseDuration(v); err != nil || v == "0" {
				isDur = false
				break
			}
		}
		names = append(names, a)
		ns = append(ns, isDur)
	}
	return names, ns
}

func coordValue(cs sweep.Coords, name string) string {
	for _, c := range cs {
		if c.Name == name {
			return c.Value.String()
		}
	}
	return ""
}

// pointCells are a record's leading cells: point, key, status, error,
// then the coordinates.
func pointCells(r sweep.Record, axes []string, ns []bool) []tidyCell {
	cells := []tidyCell{{"point", int64(r.Point)}, {"key", r.Key}, {"status", r.Status}, {"error", r.Error}}
	for i, a := range axes {
		v := coordValue(r.Coords, a)
		cells = append(cells, tidyCell{a, v})
		if ns[i] {
			d, _ := time.ParseDuration(v)
			cells = append(cells, tidyCell{a + "_ns", int64(d)})
		}
	}
	return cells
}

// runColumns are runs.csv's columns after the point cells.
var runColumns = []string{
	"profile", "sampler", "samples", "requested", "taken", "served", "undecipherable", "few_samples",
	"overlap_vs_truth", "line_overlap_vs_truth", "hot_edge_coverage_vs_truth",
	"top_method", "truth_top_method", "top_method_agrees",
	"agent_cpu_ns", "stall_ns", "pause_ns", "overhead",
	"simulated_ns", "app_cpu_ns", "vm_cpu_ns", "safepoints", "mean_ttsp_ns", "gcs",
}

// tableRecord is a record as the tables read it: the result decoded in
// the same pass, only what the tables use (the threads and the profiles'
// lines and edges are skipped).
type tableRecord struct {
	sweep.Record
	Result struct {
		report
		Threads  json.RawMessage `json:"threads"`
		Profiles map[string]struct {
			profileReport
			Lines json.RawMessage `json:"lines"`
			Edges json.RawMessage `json:"edges"`
		} `json:"profiles"`
	} `json:"result"`
}

// report is the record's result as a report (nil for a failed run).
func (t *tableRecord) report() *report {
	if t.Status != sweep.StatusOK {
		return nil
	}
	rep := t.Result.report
	rep.Profiles = map[string]profileReport{}
	for name, p := range t.Result.Profiles {
		rep.Profiles[name] = p.profileReport
	}
	rep.names = rep.Order
	return &rep
}

// runTails are a run's rows of runs.csv after the point cells: one per
// profile in the run's order; a failed run (rep nil) one empty row.
func runTails(rep *report) [][]tidyCell {
	if rep == nil {
		var row []tidyCell
		for _, c := range runColumns {
			row = append(row, tidyCell{c, nil})
		}
		return [][]tidyCell{row}
	}
	var rows [][]tidyCell
	truthTop := topMethod(rep.Profiles["truth"])
	for _, name := range rep.Order {
		p := rep.Profiles[name]
		var row []tidyCell
		row = append(row, tidyCell{"profile", name}, tidyCell{"sampler", samplerName(name)}, tidyCell{"samples", samplesCell(name, p.Samples)})
		var req, taken, served, undecipherable any
		var agent, stall, pause, overhead any
		if c := p.Costs; c != nil {
			req, taken, undecipherable = c.Requested, c.Taken, c.Undecipherable
			if c.Served != nil {
				served = *c.Served
			}
			agent, stall, pause = c.AgentCPUNS, c.StallNS, c.PauseNS
			if rep.AppCPUNS > 0 {
				overhead = float64(c.AgentCPUNS+c.StallNS+c.PauseNS) / float64(rep.AppCPUNS)
			}
		}
		few := int64(0)
		if p.FewSamples {
			few = 1
		}
		var top, agrees any
		if t := topMethod(p); t != "" {
			top = t
			if truthTop != "" {
				agrees = flag01(t == truthTop)
			}
		}
		var tt any
		if truthTop != "" {
			tt = truthTop
		}
		row = append(row,
			tidyCell{"requested", req}, tidyCell{"taken", taken}, tidyCell{"served", served}, tidyCell{"undecipherable", undecipherable}, tidyCell{"few_samples", few},
			tidyCell{"overlap_vs_truth", optFloat(p.OverlapVsTruth)}, tidyCell{"line_overlap_vs_truth", optFloat(p.LineOverlapVsTruth)},
			tidyCell{"hot_edge_coverage_vs_truth", optFloat(p.HotEdgeCoverageVsTruth)},
			tidyCell{"top_method", top}, tidyCell{"truth_top_method", tt}, tidyCell{"top_method_agrees", agrees},
			tidyCell{"agent_cpu_ns", agent}, tidyCell{"stall_ns", stall}, tidyCell{"pause_ns", pause}, tidyCell{"overhead", overhead},
			tidyCell{"simulated_ns", rep.SimulatedNS}, tidyCell{"app_cpu_ns", rep.AppCPUNS}, tidyCell{"vm_cpu_ns", rep.VMCPUNS},
			tidyCell{"safepoints", int64(rep.Safepoints.Count)}, tidyCell{"mean_ttsp_ns", rep.Safepoints.MeanTTSPNS}, tidyCell{"gcs", int64(rep.Safepoints.GCs)})
		rows = append(rows, row)
	}
	return rows
}

// topMethod is the method with the largest self share ("" for none: an
// edge-only or empty profile). Methods are sorted by self share, ties by
// name (profile.Flat).
func topMethod(p profileReport) string {
	if len(p.Methods) == 0 || p.Methods[0].SelfShare == 0 {
		return ""
	}
	return p.Methods[0].Method
}

func optFloat(x *float64) any {
	if x == nil {
		return nil
	}
	return *x
}

func flag01(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// renderedRows are a run's table rows after the point cells, as CSV text
// (each row's fields joined, without a line end): what the tables need of
// a run, whichever point it is written under.
type renderedRows struct {
	runs, methods []string
}

// renderRows renders a run's rows (rep nil: a failed run).
func renderRows(rep *report) (*renderedRows, error) {
	rr := &renderedRows{}
	var err error
	if rr.runs, err = csvLines(runTails(rep)); err != nil || rep == nil {
		return rr, err
	}
	_, rows, err := tidyRows(rep, nil, false)
	if err != nil {
		return nil, err
	}
	rr.methods, err = csvLines(rows)
	return rr, err
}

func (rr *renderedRows) size() int64 {
	n := int64(len(rr.runs)+len(rr.methods)) * 16
	for _, l := range rr.runs {
		n += int64(len(l))
	}
	for _, l := range rr.methods {
		n += int64(len(l))
	}
	return n
}

// csvLines is each row as one CSV line without its line end, with
// encoding/csv's quoting (fields quote one by one, so lines of cells
// join with ','). The lines are slices of one string, written by one
// csv.Writer.
func csvLines(rows [][]tidyCell) ([]string, error) {
	var b bytes.Buffer
	if len(rows) > 0 {
		b.Grow(len(rows) * 24 * len(rows[0])) // about a float's digits per cell
	}
	cw := csv.NewWriter(&b)
	ends := make([]int, 0, len(rows))
	var rec []string
	for _, row := range rows {
		rec = rec[:0]
		for _, c := range row {
			s, err := cellText(c)
			if err != nil {
				return nil, err
			}
			rec = append(rec, s)
		}
		if err := cw.Write(rec); err != nil {
			return nil, err
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return nil, err
		}
		ends = append(ends, b.Len())
	}
	text := b.String()
	out := make([]string, len(ends))
	start := 0
	for i, end := range ends {
		out[i] = strings.TrimSuffix(text[start:end], "\n")
		start = end
	}
	return out, nil
}

// csvLine encodes cells as one CSV line without a line end.
func csvLine(cells []tidyCell) (string, error) {
	lines, err := csvLines([][]tidyCell{cells})
	if err != nil {
		return "", err
	}
	return lines[0], nil
}

// rowCache keeps the rendered rows of runs made by this process, up to a
// byte budget, so that the tables need not decode their results again;
// past the budget, runs are decoded from results.jsonl. The budget bounds
// a sweep's memory whatever its size.
type rowCache struct {
	mu     sync.Mutex
	budget int64
	used   int64
	rows   map[string]*renderedRows
}

// rowCacheBudget is the rendered rows a sweep keeps in memory: 256 MiB,
// the tables of about 5 000 runs of a stand-in with three profilers.
const rowCacheBudget = 256 << 20

func newRowCache(budget int64) *rowCache {
	return &rowCache{budget: budget, rows: map[string]*renderedRows{}}
}

func (c *rowCache) put(key string, rr *renderedRows) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := rr.size(); c.used+n <= c.budget {
		c.rows[key] = rr
		c.used += n
	}
}

func (c *rowCache) get(key string) *renderedRows {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rows[key]
}

// writeSweepTables writes dir's runs.csv and methods.csv for the located
// points, in point order, each file atomically: a run's rows come from
// cache if it holds them, else from its record in the results file,
// decoded in one pass (none kept).
func writeSweepTables(dir string, m *sweep.Manifest, locs []sweep.Located, ix *sweep.Index, cache *rowCache) error {
	axes, ns := axisColumns(m)
	var leadNames []string
	for _, c := range pointCells(sweep.Record{}, axes, ns) {
		leadNames = append(leadNames, c.name)
	}
	methodHeader, _, err := tidyRows(&report{}, nil, false)
	if err != nil {
		return err
	}
	return sweep.WriteAtomic(filepath.Join(dir, "runs.csv"), func(rw io.Writer) error {
		return sweep.WriteAtomic(filepath.Join(dir, "methods.csv"), func(mw io.Writer) error {
			if err := writeHeaderLine(rw, append(slices.Clone(leadNames), runColumns...)); err != nil {
				return err
			}
			if err := writeHeaderLine(mw, append(slices.Clone(leadNames), methodHeader...)); err != nil {
				return err
			}
			for _, l := range locs {
				rr := cache.get(l.Key)
				status, errText := l.Status, ""
				if rr == nil || l.Status != sweep.StatusOK {
					var t tableRecord
					if err := ix.Decode(l.Key, &t); err != nil {
						return usagef("%v", err) // a record that does not decode
					}
					status, errText = t.Status, t.Error
					if rr, err = renderRows(t.report()); err != nil {
						return err
					}
				}
				lead, err := csvLine(pointCells(sweep.Record{Point: l.Point, Key: l.Key, Coords: l.Coords, Status: status, Error: errText}, axes, ns))
				if err != nil {
					return err
				}
				for _, f := range []struct {
					w     io.Writer
					lines []string
				}{{rw, rr.runs}, {mw, rr.methods}} {
					for _, line := range f.lines {
						for _, part := range [...]string{lead, ",", line, "\n"} {
							if _, err := io.WriteString(f.w, part); err != nil {
								return err
							}
						}
					}
				}
			}
			return nil
		})
	})
}

// writeHeaderLine writes a CSV header row.
func writeHeaderLine(w io.Writer, names []string) error {
	cells := make([]tidyCell, len(names))
	for i, n := range names {
		cells[i] = tidyCell{n, n}
	}
	line, err := csvLine(cells)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, line+"\n")
	return err
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
