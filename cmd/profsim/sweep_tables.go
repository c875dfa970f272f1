package main

// A sweep's tidy tables: runs.csv (one row per run and profile) and
// methods.csv (one row per run, profile and method), built from the
// records alone, in point order, so that they do not depend on --jobs,
// on shards, or on the order runs finished in.

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"path/filepath"
	"strconv"
	"time"

	"github.com/profsim/profsim/sweep"
)

// axisColumns are the coordinate columns: each axis by its name, its
// values as written in the grid; an axis all of whose values are
// durations ("1ms") also gets NAME_ns, the value in nanoseconds.
func axisColumns(m *sweep.Manifest) (names []string, ns []bool) {
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
	"profile", "sampler", "samples", "requested", "taken", "served", "few_samples",
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

// runHeader is runs.csv's header.
func runHeader(axes []string, ns []bool) []string {
	var header []string
	for _, c := range pointCells(sweep.Record{}, axes, ns) {
		header = append(header, c.name)
	}
	return append(header, runColumns...)
}

// runRows are a record's rows of runs.csv: one per profile in the run's
// order; a failed run (rep nil) is one row with its error and no profile.
func runRows(r sweep.Record, rep *report, axes []string, ns []bool) [][]tidyCell {
	lead := pointCells(r, axes, ns)
	if rep == nil {
		row := append([]tidyCell{}, lead...)
		for _, c := range runColumns {
			row = append(row, tidyCell{c, nil})
		}
		return [][]tidyCell{row}
	}
	var rows [][]tidyCell
	truthTop := topMethod(rep.Profiles["truth"])
	for _, name := range rep.Order {
		p := rep.Profiles[name]
		row := append([]tidyCell{}, lead...)
		row = append(row, tidyCell{"profile", name}, tidyCell{"sampler", samplerName(name)}, tidyCell{"samples", p.Samples})
		var req, taken, served any
		var agent, stall, pause, overhead any
		if c := p.Costs; c != nil {
			req, taken = c.Requested, c.Taken
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
			tidyCell{"requested", req}, tidyCell{"taken", taken}, tidyCell{"served", served}, tidyCell{"few_samples", few},
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

// methodSettings are a record's leading cells of methods.csv, as the
// settings tidyRows puts first.
func methodSettings(r sweep.Record, axes []string, ns []bool) []setting {
	var settings []setting
	for _, c := range pointCells(r, axes, ns) {
		settings = append(settings, setting{c.name, cellString(c)})
	}
	return settings
}

// cellString is a point cell's text (they are strings and integers).
func cellString(c tidyCell) string {
	switch v := c.value.(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case string:
		return v
	}
	return ""
}

// writeSweepTables writes dir's runs.csv and methods.csv from the records
// of the located points, in point order, one record at a time (read from
// the results file and decoded in one pass, none kept), each file
// atomically.
func writeSweepTables(dir string, m *sweep.Manifest, locs []sweep.Located, ix *sweep.Index) error {
	axes, ns := axisColumns(m)
	methodHeader, _, err := tidyRows(&report{}, methodSettings(sweep.Record{}, axes, ns), false)
	if err != nil {
		return err
	}
	return sweep.WriteAtomic(filepath.Join(dir, "runs.csv"), func(rw io.Writer) error {
		return sweep.WriteAtomic(filepath.Join(dir, "methods.csv"), func(mw io.Writer) error {
			runs, methods := csv.NewWriter(rw), csv.NewWriter(mw)
			if err := runs.Write(runHeader(axes, ns)); err != nil {
				return err
			}
			if err := methods.Write(methodHeader); err != nil {
				return err
			}
			for _, l := range locs {
				var t tableRecord
				if err := ix.Decode(l.Key, &t); err != nil {
					return err
				}
				r := t.Record
				r.Point, r.Coords = l.Point, l.Coords // a run shared by points of equal config
				rep := t.report()
				if err := writeRows(runs, runRows(r, rep, axes, ns)); err != nil {
					return err
				}
				if rep == nil {
					continue
				}
				_, rows, err := tidyRows(rep, methodSettings(r, axes, ns), false)
				if err != nil {
					return err
				}
				if err := writeRows(methods, rows); err != nil {
					return err
				}
			}
			runs.Flush()
			methods.Flush()
			if err := runs.Error(); err != nil {
				return err
			}
			return methods.Error()
		})
	})
}

// writeRows writes tidy rows as CSV records.
func writeRows(cw *csv.Writer, rows [][]tidyCell) error {
	for _, row := range rows {
		rec := make([]string, len(row))
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
	return nil
}

// writeTidyCSV writes a header and tidy rows as CSV.
func writeTidyCSV(w io.Writer, header []string, rows [][]tidyCell) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	if err := writeRows(cw, rows); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}
