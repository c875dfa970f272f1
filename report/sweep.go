package report

// A sweep's tidy tables, by run: runs.csv's rows (one per profile) and
// methods.csv's (one per profile and method), rendered as CSV lines that
// the sweep writes after each point's own cells.

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
)

// runColumns are runs.csv's columns after the point cells.
var runColumns = []string{
	"profile", "sampler", "samples", "requested", "taken", "served", "undecipherable", "few_samples",
	"overlap_vs_truth", "line_overlap_vs_truth", "hot_edge_coverage_vs_truth",
	"top_method", "truth_top_method", "top_method_agrees",
	"agent_cpu_ns", "stall_ns", "pause_ns", "overhead",
	"simulated_ns", "app_cpu_ns", "vm_cpu_ns", "safepoints", "mean_ttsp_ns", "gcs",
}

// RunColumns are the columns of a sweep's runs.csv that SweepRows' Runs
// fill, after the point's own.
func RunColumns() []string { return slices.Clone(runColumns) }

// MethodColumns are the columns of a sweep's methods.csv that SweepRows'
// Methods fill, after the point's own: the CSV's columns without
// settings.
func MethodColumns() []string {
	header, _, _ := tidyRows(&Report{}, nil, false)
	return header
}

// fullReport names the Report that Lean embeds, so that Lean can have a
// method Report.
type fullReport = Report

// Lean is a Report as the sweep's tables decode it from JSON, in the same
// pass as the record around it: only what the tables use (the threads
// and the profiles' lines and edges are skipped).
type Lean struct {
	fullReport
	Threads  json.RawMessage `json:"threads"`
	Profiles map[string]struct {
		Profile
		Lines json.RawMessage `json:"lines"`
		Edges json.RawMessage `json:"edges"`
	} `json:"profiles"`
}

// Report is l as a Report, without threads, lines or edges.
func (l *Lean) Report() *Report {
	rep := l.fullReport
	rep.Profiles = map[string]Profile{}
	for name, p := range l.Profiles {
		rep.Profiles[name] = p.Profile
	}
	return &rep
}

// runTails are a run's rows of runs.csv after the point cells: one per
// profile in the run's order; a failed run (rep nil) one empty row.
func runTails(rep *Report) [][]tidyCell {
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
			tidyCell{"requested", req}, tidyCell{"taken", taken}, tidyCell{"served", served}, tidyCell{"undecipherable", undecipherable}, tidyCell{"few_samples", flag01(p.FewSamples)},
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
func topMethod(p Profile) string {
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

// Rows are a run's table rows after the point cells, as CSV text
// (each row's fields joined, without a line end): what the tables need of
// a run, whichever point it is written under.
type Rows struct {
	Runs, Methods []string
}

// SweepRows renders a run's rows of the sweep's tables (rep nil: a
// failed run, one empty row of runs.csv and none of methods.csv).
func SweepRows(rep *Report) (*Rows, error) {
	rr := &Rows{}
	var err error
	if rr.Runs, err = csvLines(runTails(rep)); err != nil || rep == nil {
		return rr, err
	}
	_, rows, err := tidyRows(rep, nil, false)
	if err != nil {
		return nil, err
	}
	rr.Methods, err = csvLines(rows)
	return rr, err
}

// Size is about the bytes rr holds in memory.
func (rr *Rows) Size() int64 {
	n := int64(len(rr.Runs)+len(rr.Methods)) * 16
	for _, l := range rr.Runs {
		n += int64(len(l))
	}
	for _, l := range rr.Methods {
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
