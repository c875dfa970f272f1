package report

// The table: `profsim run`'s side-by-side view of the profiles.

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

// stackNames are the profiles with stack samples, in order: the columns
// of the method and line tables. edgeNames are the edge-only ones.
func (r *Report) stackNames() []string {
	var out []string
	for _, n := range r.Order {
		if !r.Profiles[n].EdgeOnly {
			out = append(out, n)
		}
	}
	return out
}

func (r *Report) edgeNames() []string {
	var out []string
	for _, n := range r.Order {
		if r.Profiles[n].EdgeOnly {
			out = append(out, n)
		}
	}
	return out
}

func (r *Report) writeHeader(w io.Writer) {
	fmt.Fprintf(w, "workload %s   seed %d   cpus %d   simulated %v   mode %s\n", r.Workload, r.Seed, r.CPUs, sim.Time(r.SimulatedNS), r.Mode)
	if r.Config != nil {
		writeConfigHeader(w, r.Config)
	}
	fmt.Fprintf(w, "application CPU %v   VM CPU %v   statements %d   threads %d\n", sim.Time(r.AppCPUNS), sim.Time(r.VMCPUNS), r.Statements, len(r.Threads))
	if sp := r.Safepoints; sp.Count > 0 {
		fmt.Fprintf(w, "safepoints %d (GCs %d)   time to safepoint mean %v max %v   total pause %v\n",
			sp.Count, sp.GCs, sim.Time(sp.MeanTTSPNS), sim.Time(sp.MaxTTSPNS), sim.Time(sp.TotalPauseNS))
	}
	if sp := r.Safepoints; sp.PassiveRequests > 0 {
		fmt.Fprintf(w, "passive: the %d global safepoints the safepoint samplers requested stopped no thread (each sample was taken at the thread's next poll; --mode costed runs them)\n", sp.PassiveRequests)
	}
	for _, inc := range r.Incidents {
		fmt.Fprintf(w, "incident: %s\n", inc)
	}
}

// shareRow is one row of a share table: its label and each profile's
// share (missing: 0).
type shareRow struct {
	label string
	share map[string]float64
}

// shareTable is a section of the table: one share column per profile,
// rows in truth's order, then the overlap and sample counts.
type shareTable struct {
	title, head  string
	cols         []string
	rows         []shareRow
	overlapLabel string
	overlap      func(Profile) *float64
}

// topRows collects the union of each column's first top labels with a
// positive share, sorted by truth's share (descending), ties in the order
// first seen. each lists a profile's (label, share) rows, best first.
func topRows(cols []string, top int, each func(name string) (labels []string, shares []float64)) []shareRow {
	var rows []shareRow
	index := map[string]int{}
	for _, n := range cols {
		labels, shares := each(n)
		for i := 0; i < len(labels) && i < top; i++ {
			if _, ok := index[labels[i]]; !ok && shares[i] > 0 {
				index[labels[i]] = len(rows)
				rows = append(rows, shareRow{label: labels[i], share: map[string]float64{}})
			}
		}
	}
	for _, n := range cols {
		labels, shares := each(n)
		for i, l := range labels {
			if k, ok := index[l]; ok {
				rows[k].share[n] = shares[i]
			}
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].share["truth"] > rows[j].share["truth"] })
	return rows
}

func (r *Report) writeShares(w io.Writer, t shareTable) {
	if len(t.cols) == 0 {
		return
	}
	sampled := len(t.cols) > 1 || t.cols[0] != "truth"
	// fmt pads to a width in runes ("→" is one).
	width := utf8.RuneCountInString(t.head)
	if sampled {
		width = max(width, utf8.RuneCountInString(t.overlapLabel))
	}
	for _, row := range t.rows {
		width = max(width, utf8.RuneCountInString(row.label))
	}
	cw := make([]int, len(t.cols))
	for i, n := range t.cols {
		cw[i] = max(10, utf8.RuneCountInString(n))
	}
	fmt.Fprintf(w, "\n%s\n  %-*s", t.title, width, t.head)
	for i, n := range t.cols {
		fmt.Fprintf(w, " %*s", cw[i], n)
	}
	fmt.Fprintln(w)
	for _, row := range t.rows {
		fmt.Fprintf(w, "  %-*s", width, row.label)
		for i, n := range t.cols {
			fmt.Fprintf(w, " %*.2f", cw[i], 100*row.share[n])
		}
		fmt.Fprintln(w)
	}
	if !sampled {
		return
	}
	line := func(label string, cell func(Profile) string) {
		fmt.Fprintf(w, "  %-*s", width, label)
		for i, n := range t.cols {
			fmt.Fprintf(w, " %*s", cw[i], cell(r.Profiles[n]))
		}
		fmt.Fprintln(w)
	}
	few, anyOverlap, anyServed := false, false, false
	for _, n := range t.cols {
		anyOverlap = anyOverlap || t.overlap(r.Profiles[n]) != nil
	}
	if anyOverlap {
		line(t.overlapLabel, func(p Profile) string {
			o := t.overlap(p)
			if o == nil {
				return ""
			}
			if p.FewSamples {
				few = true
				return fmt.Sprintf("%.2f*", 100**o)
			}
			return fmt.Sprintf("%.2f", 100**o)
		})
	}
	count := func(f func(*Costs) *int64) func(Profile) string {
		return func(p Profile) string {
			if p.Costs == nil {
				return ""
			}
			if v := f(p.Costs); v != nil {
				return strconv.FormatInt(*v, 10)
			}
			return ""
		}
	}
	line("requested", count(func(c *Costs) *int64 { return &c.Requested }))
	// Served is shown where it is known and differs from requested for
	// some profile: otherwise it repeats the requested row.
	for _, n := range t.cols {
		if c := r.Profiles[n].Costs; c != nil && c.Served != nil && *c.Served != c.Requested {
			anyServed = true
		}
	}
	if anyServed {
		line("served", count(func(c *Costs) *int64 { return c.Served }))
	}
	line("samples", count(func(c *Costs) *int64 { return &c.Taken }))
	anyUndecipherable := false
	for _, n := range t.cols {
		if c := r.Profiles[n].Costs; c != nil && c.Undecipherable > 0 {
			anyUndecipherable = true
		}
	}
	if anyUndecipherable {
		line("undecipherable", count(func(c *Costs) *int64 { return &c.Undecipherable }))
	}
	if few {
		fmt.Fprintf(w, "  * fewer than %d samples: overlap means little\n", minSamples)
	}
	if anyUndecipherable {
		fmt.Fprintf(w, "  undecipherable: in compiled code with no debug record at or after the pc (async records the method at bci 0, jfr drops the sample), or, for jfr, in a VM stub\n")
	}
	if anyServed {
		fmt.Fprintf(w, "  served: ticks with at least one sample; known only for samplers that sample within the tick (%s)\n", strings.Join(samplers.TickSynchronousNames(), ", "))
	}
}

func (r *Report) methodTable(top int) shareTable {
	cols := r.stackNames()
	return shareTable{
		title: "Self time by method (%)", head: "method", cols: cols,
		rows: topRows(cols, top, func(n string) ([]string, []float64) {
			var l []string
			var s []float64
			for _, m := range r.Profiles[n].Methods {
				l, s = append(l, m.Method), append(s, m.SelfShare)
			}
			return l, s
		}),
		overlapLabel: "overlap vs truth",
		overlap:      func(p Profile) *float64 { return p.OverlapVsTruth },
	}
}

func (r *Report) lineTable(top int) shareTable {
	cols := r.stackNames()
	return shareTable{
		title: "Self time by line (%)", head: "method:line", cols: cols,
		rows: topRows(cols, top, func(n string) ([]string, []float64) {
			var l []string
			var s []float64
			for _, x := range r.Profiles[n].Lines {
				l, s = append(l, x.label()), append(s, x.SelfShare)
			}
			return l, s
		}),
		overlapLabel: "overlap vs truth (lines)",
		overlap:      func(p Profile) *float64 { return p.LineOverlapVsTruth },
	}
}

// edgeTable compares call graphs: truth's and each edge-only profile's
// share of its edge samples (for truth, of its call counts).
func (r *Report) edgeTable(top int) shareTable {
	var cols []string
	if slices.Contains(r.Order, "truth") {
		cols = append(cols, "truth")
	}
	cols = append(cols, r.edgeNames()...)
	return shareTable{
		title: "Call edges (share of edge samples, %; truth: of calls)", head: "caller:line → callee", cols: cols,
		rows: topRows(cols, top, func(n string) ([]string, []float64) {
			edges := r.Profiles[n].Edges
			var total int64
			for _, e := range edges {
				total += e.Count
			}
			var l []string
			var s []float64
			for _, e := range edges {
				if total > 0 {
					l, s = append(l, e.label()), append(s, float64(e.Count)/float64(total))
				}
			}
			return l, s
		}),
		overlapLabel: "overlap vs truth (call graph)",
		overlap:      func(p Profile) *float64 { return p.OverlapVsTruth },
	}
}

// Table prints the run: the header, self time by method side by
// side, and the call edges.
func (r *Report) Table(w io.Writer, top int) {
	r.writeHeader(w)
	r.writeShares(w, r.methodTable(top))
	r.writeTail(w, top)
}

// LineTable is Table with self time by source line of the leaf
// frame (Method:line) instead of by method.
func (r *Report) LineTable(w io.Writer, top int) {
	r.writeHeader(w)
	t := r.lineTable(top)
	r.writeShares(w, t)
	var none []string
	for _, n := range t.cols {
		if p := r.Profiles[n]; len(p.Lines) > 0 && !p.hasLines() {
			none = append(none, n)
		}
	}
	if len(none) > 0 {
		fmt.Fprintf(w, "  %s: no source lines recorded (line 0: the method as a whole)\n", strings.Join(none, ", "))
	}
	if slices.Contains(none, "truth") {
		fmt.Fprintln(w, "  no overlap by line: the ground truth has no lines to compare with")
	}
	r.writeTail(w, top)
}

// writeTail prints what follows the stack-sample table: which profiles it
// left out, the call edges, and the costs.
func (r *Report) writeTail(w io.Writer, top int) {
	edges := r.edgeNames()
	if len(edges) > 0 && len(r.stackNames()) > 0 {
		fmt.Fprintf(w, "  not shown: %s (call edges only, below)\n", strings.Join(edges, ", "))
	}
	if len(edges) > 0 {
		r.writeShares(w, r.edgeTable(top))
	}
	if r.Mode == "costed" {
		for _, n := range r.Order {
			if c := r.Profiles[n].Costs; c != nil {
				fmt.Fprintf(w, "  costs of %s: agent CPU %v, stalls %v, safepoint pauses %v\n", n,
					sim.Time(c.AgentCPUNS), sim.Time(c.StallNS), sim.Time(c.PauseNS))
			}
		}
	}
	if len(edges) > 0 || !slices.Contains(r.Order, "truth") {
		return
	}
	p := r.Profiles["truth"]
	if len(p.Edges) == 0 {
		return
	}
	fmt.Fprintf(w, "\nTop call edges (truth)\n  %12s  %s\n", "count", "caller:line → callee")
	for i, e := range p.Edges {
		if i == top {
			fmt.Fprintf(w, "  ... %d more\n", len(p.Edges)-top)
			break
		}
		fmt.Fprintf(w, "  %12d  %s\n", e.Count, e.label())
	}
}
