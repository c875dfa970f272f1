package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

// minSamples is the fewest samples a profile may be built from before its
// overlap is flagged as meaning little. A share p estimated from n
// samples has the binomial standard error √(p(1−p)/n); at p = 0.5 and
// n = 30 that is 0.5/√30 ≈ 0.091, about 9 points of share, and more below.
// 30 is the usual rule of thumb for when the normal approximation to a
// sample mean becomes usable (e.g. Walpole, Myers, Myers and Ye,
// Probability and Statistics for Engineers and Scientists, on the central
// limit theorem: "generally good if n ≥ 30").
const minSamples = 30

// report is the JSON contract of `profsim run --format json`; the table
// prints the same data.
type report struct {
	Workload string `json:"workload"`
	// ExplainJIT is --explain-jit's text: each compilation, its inlining
	// tree and polls.
	ExplainJIT string `json:"explain_jit,omitempty"`
	Seed       uint64 `json:"seed"`
	// SimulatedNS is the profiled window's length: the run's, less
	// config.skip (--skip). The CPU times, statements, threads' states
	// and every profile count the same window.
	SimulatedNS int64  `json:"simulated_ns"`
	CPUs        int    `json:"cpus"`
	Mode        string `json:"mode"`
	// AppCPUNS is the application threads' CPU time (= truth's total);
	// VMCPUNS the VM's own threads' (compiler, VM thread, agents).
	AppCPUNS   int64                    `json:"app_cpu_ns"`
	VMCPUNS    int64                    `json:"vm_cpu_ns"`
	Statements int64                    `json:"statements"`
	Threads    []threadReport           `json:"threads"`
	Safepoints safepointReport          `json:"safepoints"`
	Incidents  []string                 `json:"incidents"`
	Order      []string                 `json:"order"`
	Profiles   map[string]profileReport `json:"profiles"`
	// Config is everything the run was made from, resolved (config.go;
	// set by cmdRun).
	Config *harness.Description `json:"config,omitempty"`
	// Bias are the samplers' bias matrices (--why).
	Bias  *biasReport `json:"bias,omitempty"`
	names []string
}

type threadReport struct {
	Name    string `json:"name"`
	Daemon  bool   `json:"daemon,omitempty"`
	Service bool   `json:"service,omitempty"`
	// Unprofiled: --threads leaves the thread out of every profile.
	Unprofiled bool             `json:"unprofiled,omitempty"`
	StartNS    int64            `json:"start_ns"`
	EndNS      int64            `json:"end_ns,omitempty"`
	StatesNS   map[string]int64 `json:"states_ns"`
}

// safepointReport counts the global safepoints the program stopped for:
// the GC's, and costed samplers' (--mode costed). A passive sampler of the
// safepoint family takes its samples where the threads would stop without
// stopping them, so in passive mode it adds none.
type safepointReport struct {
	Count        int   `json:"count"`
	MeanTTSPNS   int64 `json:"mean_ttsp_ns"`
	MaxTTSPNS    int64 `json:"max_ttsp_ns"`
	TotalPauseNS int64 `json:"total_pause_ns"`
	GCs          int   `json:"gcs"`
	// PassiveRequests counts, in passive mode, the global safepoints the
	// safepoint family's samplers requested (samplers.GlobalSafepointer),
	// which stopped nothing and are not in Count: each sample was taken
	// at the thread's next poll.
	PassiveRequests int64 `json:"passive_requests,omitempty"`
}

type profileReport struct {
	// Samples is the number of samples; for truth, the number of ns of CPU
	// time (truth is the limit of a sampler with a 1 ns period); for an
	// edge-only profile, the number of edge samples.
	Samples int64          `json:"samples"`
	Methods []methodReport `json:"methods"`
	// Lines is the flat profile by source line of the leaf frame (line 0:
	// the profiler recorded no position), sorted like Methods.
	Lines []lineReport `json:"lines"`
	Edges []edgeReport `json:"edges"`
	// EdgeOnly marks a call-graph profiler's profile (cbs, jikes-timer):
	// call edges and no stack samples, so Methods and Lines are empty and
	// OverlapVsTruth compares call graphs.
	EdgeOnly bool `json:"edge_only,omitempty"`
	// OverlapVsTruth is the overlap of the flat profile (self share per
	// method) with truth's, in [0, 1] (absent for truth itself); for
	// call-graph profilers (EdgeOnly) the overlap of the dynamic call
	// graphs (Arnold & Grove's accuracy).
	OverlapVsTruth *float64 `json:"overlap_vs_truth,omitempty"`
	// LineOverlapVsTruth is the same overlap by (method, line) of the
	// leaf; absent for truth, for edge-only profiles, and when truth
	// records no source lines (sim's ground truth keeps self time per
	// calling context of methods: every truth line is 0).
	LineOverlapVsTruth *float64 `json:"line_overlap_vs_truth,omitempty"`
	// HotEdgeCoverageVsTruth is the share of truth's hot calling-context
	// edges that are hot in this profile too (profile.HotEdgeCoverage, T =
	// profile.HotEdgeThreshold); for call-graph profilers (EdgeOnly) the same over
	// call-graph edges. Absent for truth.
	HotEdgeCoverageVsTruth *float64 `json:"hot_edge_coverage_vs_truth,omitempty"`
	// FewSamples: the profile was built from fewer than minSamples (30)
	// samples, so its overlap means little.
	FewSamples bool        `json:"few_samples,omitempty"`
	Costs      *costReport `json:"costs,omitempty"`
	// Extra holds sampler-specific measurements (pcct's
	// frames_examined_per_sample, pcct_nodes, pcct_bytes, …).
	Extra map[string]float64 `json:"extra,omitempty"`
}

type costReport struct {
	AgentCPUNS int64 `json:"agent_cpu_ns"`
	StallNS    int64 `json:"stall_ns"`
	PauseNS    int64 `json:"pause_ns"`
	// Requested counts sample requests (timer ticks); Taken the thread
	// samples (edge samples for call-graph profilers) recorded.
	Requested int64 `json:"requested"`
	Taken     int64 `json:"taken"`
	// Served counts the ticks that produced at least one sample; present
	// only where that is known exactly (samplers.TickSynchronous).
	Served *int64 `json:"served,omitempty"`
	// Undecipherable counts thread samples whose top compiled frame had no
	// debug record at or after its position (samplers.ResolveDebugInfo):
	// async records them as the method at bci 0, jfr drops them (they are
	// not in Taken). 0 for samplers that do not resolve debug information.
	Undecipherable int64 `json:"undecipherable"`
}

type methodReport struct {
	Method    string  `json:"method"`
	SelfShare float64 `json:"self_share"`
	// TotalShare is null for a truth per method (--truth methods), whose
	// stacks do not hold a method's callers.
	TotalShare *float64 `json:"total_share"`
}

type lineReport struct {
	Method    string  `json:"method"`
	Line      int     `json:"line"`
	SelfShare float64 `json:"self_share"`
}

type edgeReport struct {
	Caller string `json:"caller"`
	Site   int    `json:"site"`
	Callee string `json:"callee"`
	Count  int64  `json:"count"`
}

// label is how tables and tidy output name a line or an edge.
func (l lineReport) label() string { return l.Method + ":" + strconv.Itoa(l.Line) }
func (e edgeReport) label() string {
	return e.Caller + ":" + strconv.Itoa(e.Site) + " → " + e.Callee
}

// hasLines reports whether the profile records any source line (a line
// other than 0, "the method as a whole").
func (pr profileReport) hasLines() bool {
	return slices.ContainsFunc(pr.Lines, func(l lineReport) bool { return l.Line != 0 })
}

// edgeOnly reports whether p is a call-graph profiler's output.
func edgeOnly(p *profile.Profile) bool { return len(p.Samples) == 0 && len(p.Edges) > 0 }

func newReport(workload string, cfg harness.Config, out *harness.Outcome) *report {
	res := out.Result
	r := &report{
		Workload: workload, Seed: cfg.Sim.Seed, SimulatedNS: int64(res.End - res.From), CPUs: cfg.Sim.CPUs, Mode: cfg.Mode.String(),
		AppCPUNS: int64(res.AppCPU()), VMCPUNS: int64(res.VMCPU()), Statements: res.Statements,
		Incidents: append([]string{}, res.Incidents...), Profiles: map[string]profileReport{},
		Order: out.Names, names: out.Names,
	}
	for i := range res.Threads {
		th := &res.Threads[i]
		tr := threadReport{Name: th.Name, Daemon: th.Daemon, Service: th.Service, Unprofiled: th.Unprofiled, StartNS: int64(th.Start), EndNS: int64(th.End), StatesNS: map[string]int64{}}
		for s := sim.ThreadState(0); int(s) < len(th.States); s++ {
			if th.States[s] > 0 {
				tr.StatesNS[s.String()] = int64(th.States[s])
			}
		}
		r.Threads = append(r.Threads, tr)
	}
	// The safepoints requested in the profiled window (all without
	// --skip), and the collections among them.
	sum := out.Safepoints.SummarizeFrom(res.From)
	r.Safepoints = safepointReport{Count: sum.Count, MeanTTSPNS: int64(sum.MeanTTSP), MaxTTSPNS: int64(sum.MaxTTSP), TotalPauseNS: int64(sum.TotalPause)}
	if out.GC != nil {
		r.Safepoints.GCs = out.GC.Collections
		if res.From > 0 {
			r.Safepoints.GCs = 0
			for _, rec := range out.Safepoints.Records() {
				if rec.Reason == "gc" && rec.Requested >= res.From {
					r.Safepoints.GCs++
				}
			}
		}
	}
	if r.Mode == "passive" {
		for _, rs := range out.Samplers {
			if _, ok := rs.New().(samplers.GlobalSafepointer); ok {
				r.Safepoints.PassiveRequests += out.Costs[rs.ID].Requested
			}
		}
	}
	truth := out.Profiles["truth"]
	var truthReport profileReport // summarized once: the truth's views cost the most
	var truthLines []lineReport
	if truth != nil {
		if truthReport = summarize(truth); truthReport.hasLines() {
			truthLines = truthReport.Lines
		}
	}
	for _, name := range out.Names {
		p := out.Profiles[name]
		var pr profileReport
		if name == "truth" && truth != nil {
			pr = truthReport
		} else {
			pr = summarize(p)
		}
		if name == "truth" && out.Result.Truth.PerMethod() {
			for i := range pr.Methods {
				pr.Methods[i].TotalShare = nil // the stacks are one frame deep
			}
		}
		if name != "truth" {
			if truth != nil {
				var o float64
				if pr.EdgeOnly {
					o = profile.OverlapEdges(truth, p) // a call-graph profiler: compare call graphs
				} else {
					o = profile.OverlapMethods(truth, p)
					if truthLines != nil {
						lo := profile.OverlapLines(lineShares(truthLines), lineShares(pr.Lines))
						pr.LineOverlapVsTruth = &lo
					}
				}
				pr.OverlapVsTruth = &o
				switch {
				case pr.EdgeOnly:
					_, x, y := profile.Align(truth.EdgeWeights(), p.EdgeWeights())
					hc := profile.HotEdgeCoverage(x, y, profile.HotEdgeThreshold)
					pr.HotEdgeCoverageVsTruth = &hc
				case !out.Result.Truth.PerMethod(): // a truth per method has no calling contexts
					hc := profile.HotEdgeCoverageContexts(truth, p, profile.HotEdgeThreshold)
					pr.HotEdgeCoverageVsTruth = &hc
				}
			}
			pr.FewSamples = pr.Samples < minSamples
			c := out.Costs[name]
			pr.Costs = &costReport{AgentCPUNS: int64(c.AgentCPU), StallNS: int64(c.Stall), PauseNS: int64(c.Pauses), Requested: c.Requested, Taken: c.Taken, Undecipherable: c.Undecipherable}
			// Which tick a sample served is recorded only for a
			// samplers.TickSynchronous; for the others the report does not
			// guess. Every profile but the truth's is a registered
			// sampler's: cmd attaches no Config.Extra sampler.
			if ts, err := samplers.IsTickSynchronous(samplerName(name)); err == nil && ts {
				pr.Costs.Served = served(c)
			}
			if len(c.Measures) > 0 {
				pr.Extra = map[string]float64{}
				for m, v := range c.Measures {
					pr.Extra[m.String()] = v
				}
			}
		}
		r.Profiles[name] = pr
	}
	return r
}

// samplerName is the registry name in a profile's key, NAME or
// NAME:LABEL (samplers.Spec.ID).
func samplerName(id string) string {
	name, _, _ := strings.Cut(id, ":")
	return name
}

// served counts the ticks at whose time at least one sample was taken,
// for a tick-synchronous sampler; nil if some sample was not taken at a
// tick's time (then the premise fails and the count is unknown).
func served(c samplers.Costs) *int64 {
	ticks := slices.Clone(c.Ticks)
	slices.Sort(ticks)
	var n int64
	hit := make([]bool, len(ticks))
	for _, t := range c.SampleTimes {
		i, ok := slices.BinarySearch(ticks, t)
		if !ok {
			return nil
		}
		if !hit[i] {
			hit[i] = true
			n++
		}
	}
	return &n
}

// lineShares are a report's line rows as profile.LineShare.
func lineShares(ls []lineReport) []profile.LineShare {
	out := make([]profile.LineShare, len(ls))
	for i, l := range ls {
		out[i] = profile.LineShare(l)
	}
	return out
}

func summarize(p *profile.Profile) profileReport {
	pr := profileReport{Samples: p.TotalCount(), Methods: []methodReport{}, Lines: []lineReport{}, Edges: []edgeReport{}, EdgeOnly: edgeOnly(p)}
	for _, m := range p.Flat() {
		pr.Methods = append(pr.Methods, methodReport{Method: m.Name, SelfShare: m.SelfShare, TotalShare: &m.TotalShare})
	}
	for _, l := range p.Lines() {
		pr.Lines = append(pr.Lines, lineReport{Method: l.Method, Line: l.Line, SelfShare: l.SelfShare})
	}
	for _, e := range p.Edges {
		pr.Edges = append(pr.Edges, edgeReport{Caller: p.Functions[e.Caller].Name, Site: e.Site,
			Callee: p.Functions[e.Callee].Name, Count: e.Weight})
		if pr.EdgeOnly {
			pr.Samples += e.Weight // an edge sample per unit of weight (cbs.go: AddEdge(…, 1))
		}
	}
	sort.SliceStable(pr.Edges, func(i, j int) bool {
		a, b := pr.Edges[i], pr.Edges[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		if a.Caller != b.Caller {
			return a.Caller < b.Caller
		}
		if a.Site != b.Site {
			return a.Site < b.Site
		}
		return a.Callee < b.Callee
	})
	return pr
}

// stackNames are the profiles with stack samples, in order: the columns
// of the method and line tables. edgeNames are the edge-only ones.
func (r *report) stackNames() []string {
	var out []string
	for _, n := range r.names {
		if !r.Profiles[n].EdgeOnly {
			out = append(out, n)
		}
	}
	return out
}

func (r *report) edgeNames() []string {
	var out []string
	for _, n := range r.names {
		if r.Profiles[n].EdgeOnly {
			out = append(out, n)
		}
	}
	return out
}

func (r *report) writeHeader(w io.Writer) {
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
	overlap      func(profileReport) *float64
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

func (r *report) writeShares(w io.Writer, t shareTable) {
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
	line := func(label string, cell func(profileReport) string) {
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
		line(t.overlapLabel, func(p profileReport) string {
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
	count := func(f func(*costReport) *int64) func(profileReport) string {
		return func(p profileReport) string {
			if p.Costs == nil {
				return ""
			}
			if v := f(p.Costs); v != nil {
				return strconv.FormatInt(*v, 10)
			}
			return ""
		}
	}
	line("requested", count(func(c *costReport) *int64 { return &c.Requested }))
	// Served is shown where it is known and differs from requested for
	// some profile: otherwise it repeats the requested row.
	for _, n := range t.cols {
		if c := r.Profiles[n].Costs; c != nil && c.Served != nil && *c.Served != c.Requested {
			anyServed = true
		}
	}
	if anyServed {
		line("served", count(func(c *costReport) *int64 { return c.Served }))
	}
	line("samples", count(func(c *costReport) *int64 { return &c.Taken }))
	anyUndecipherable := false
	for _, n := range t.cols {
		if c := r.Profiles[n].Costs; c != nil && c.Undecipherable > 0 {
			anyUndecipherable = true
		}
	}
	if anyUndecipherable {
		line("undecipherable", count(func(c *costReport) *int64 { return &c.Undecipherable }))
	}
	if few {
		fmt.Fprintf(w, "  * fewer than %d samples: overlap means little\n", minSamples)
	}
	if anyUndecipherable {
		fmt.Fprintf(w, "  undecipherable: in compiled code with no debug record at or after the pc; async records the method at bci 0, jfr drops the sample\n")
	}
	if anyServed {
		fmt.Fprintf(w, "  served: ticks with at least one sample; known only for samplers that sample within the tick (%s)\n", strings.Join(samplers.TickSynchronousNames(), ", "))
	}
}

func (r *report) methodTable(top int) shareTable {
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
		overlap:      func(p profileReport) *float64 { return p.OverlapVsTruth },
	}
}

func (r *report) lineTable(top int) shareTable {
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
		overlap:      func(p profileReport) *float64 { return p.LineOverlapVsTruth },
	}
}

// edgeTable compares call graphs: truth's and each edge-only profile's
// share of its edge samples (for truth, of its call counts).
func (r *report) edgeTable(top int) shareTable {
	var cols []string
	if slices.Contains(r.names, "truth") {
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
		overlap:      func(p profileReport) *float64 { return p.OverlapVsTruth },
	}
}

// writeTable prints the run: the header, self time by method side by
// side, and the call edges.
func (r *report) writeTable(w io.Writer, top int) {
	r.writeHeader(w)
	r.writeShares(w, r.methodTable(top))
	r.writeTail(w, top)
}

// writeLineTable is writeTable with self time by source line of the leaf
// frame (Method:line) instead of by method.
func (r *report) writeLineTable(w io.Writer, top int) {
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
func (r *report) writeTail(w io.Writer, top int) {
	edges := r.edgeNames()
	if len(edges) > 0 && len(r.stackNames()) > 0 {
		fmt.Fprintf(w, "  not shown: %s (call edges only, below)\n", strings.Join(edges, ", "))
	}
	if len(edges) > 0 {
		r.writeShares(w, r.edgeTable(top))
	}
	if r.Mode == "costed" {
		for _, n := range r.names {
			if c := r.Profiles[n].Costs; c != nil {
				fmt.Fprintf(w, "  costs of %s: agent CPU %v, stalls %v, safepoint pauses %v\n", n,
					sim.Time(c.AgentCPUNS), sim.Time(c.StallNS), sim.Time(c.PauseNS))
			}
		}
	}
	if len(edges) > 0 || !slices.Contains(r.names, "truth") {
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

// explainJIT prints each compiled method's tier, inlining tree and polls.
func explainJIT(w io.Writer, out *harness.Outcome) {
	if out.JIT == nil {
		fmt.Fprintln(w, "\nJIT: off (--no-jit): every method runs its base compiled version")
		return
	}
	fmt.Fprintf(w, "\nJIT (%s): compilations in order\n", out.JIT.Config().Flavour)
	for _, line := range strings.Split(strings.TrimRight(out.JIT.Explain(), "\n"), "\n") {
		fmt.Fprintln(w, "  "+line)
	}
}
