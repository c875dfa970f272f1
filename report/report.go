package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

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

// Report is a run's result: the JSON contract of `profsim run --format
// json` (JSON), and what the table (Table, LineTable), the tidy rows
// (CSV, JSONL, SweepRows) and the page (HTML) show.
type Report struct {
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
	AppCPUNS   int64              `json:"app_cpu_ns"`
	VMCPUNS    int64              `json:"vm_cpu_ns"`
	Statements int64              `json:"statements"`
	Threads    []Thread           `json:"threads"`
	Safepoints Safepoints         `json:"safepoints"`
	Incidents  []string           `json:"incidents"`
	Order      []string           `json:"order"`
	Profiles   map[string]Profile `json:"profiles"`
	// Config is everything the run was made from, resolved
	// (harness.Spec.Describe); New leaves it nil for the caller to set.
	Config *harness.Description `json:"config,omitempty"`
	// Bias are the samplers' bias matrices (--why; NewBias), nil if not
	// asked for.
	Bias *Bias `json:"bias,omitempty"`
}

// Thread is one thread of the run: its life and its time in each state.
type Thread struct {
	Name    string `json:"name"`
	Daemon  bool   `json:"daemon,omitempty"`
	Service bool   `json:"service,omitempty"`
	// Unprofiled: --threads leaves the thread out of every profile.
	Unprofiled bool             `json:"unprofiled,omitempty"`
	StartNS    int64            `json:"start_ns"`
	EndNS      int64            `json:"end_ns,omitempty"`
	StatesNS   map[string]int64 `json:"states_ns"`
}

// Safepoints counts the global safepoints the program stopped for:
// the GC's, and costed samplers' (--mode costed). A passive sampler of the
// safepoint family takes its samples where the threads would stop without
// stopping them, so in passive mode it adds none.
type Safepoints struct {
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

// Profile is one profile of the run (a sampler's, or the truth's):
// its flat views, its call edges and how it compares with the truth.
type Profile struct {
	// Samples is the number of samples; for truth, the number of ns of CPU
	// time (truth is the limit of a sampler with a 1 ns period); for an
	// edge-only profile, the number of edge samples.
	Samples int64    `json:"samples"`
	Methods []Method `json:"methods"`
	// Lines is the flat profile by source line of the leaf frame (line 0:
	// the profiler recorded no position), sorted like Methods.
	Lines []Line `json:"lines"`
	Edges []Edge `json:"edges"`
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
	FewSamples bool   `json:"few_samples,omitempty"`
	Costs      *Costs `json:"costs,omitempty"`
	// Extra holds sampler-specific measurements (pcct's
	// frames_examined_per_sample, pcct_nodes, pcct_bytes, …).
	Extra map[string]float64 `json:"extra,omitempty"`
}

// Costs are what a sampler cost the run and how many samples it asked
// for and took.
type Costs struct {
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

// Method is a method's row of a flat profile: its shares of the
// profile's weight.
type Method struct {
	Method    string  `json:"method"`
	SelfShare float64 `json:"self_share"`
	// TotalShare is null for a truth per method (--truth methods), whose
	// stacks do not hold a method's callers.
	TotalShare *float64 `json:"total_share"`
}

// Line is a source line's row of a flat profile by line.
type Line struct {
	Method    string  `json:"method"`
	Line      int     `json:"line"`
	SelfShare float64 `json:"self_share"`
}

// Edge is a call edge: Count calls (edge samples) from Caller's call
// site Site to Callee.
type Edge struct {
	Caller string `json:"caller"`
	Site   int    `json:"site"`
	Callee string `json:"callee"`
	Count  int64  `json:"count"`
}

// label is how tables and tidy output name a line or an edge.
func (l Line) label() string { return l.Method + ":" + strconv.Itoa(l.Line) }
func (e Edge) label() string {
	return e.Caller + ":" + strconv.Itoa(e.Site) + " → " + e.Callee
}

// hasLines reports whether the profile records any source line (a line
// other than 0, "the method as a whole").
func (pr Profile) hasLines() bool {
	return slices.ContainsFunc(pr.Lines, func(l Line) bool { return l.Line != 0 })
}

// edgeOnly reports whether p is a call-graph profiler's output.
func edgeOnly(p *profile.Profile) bool { return len(p.Samples) == 0 && len(p.Edges) > 0 }

// New summarizes a run's outcome and compares each profile with the
// truth's. workload names the program; cfg is the configuration out was
// run with.
func New(workload string, cfg harness.Config, out *harness.Outcome) *Report {
	res := out.Result
	r := &Report{
		Workload: workload, Seed: cfg.Sim.Seed, SimulatedNS: int64(res.End - res.From), CPUs: cfg.Sim.CPUs, Mode: cfg.Mode.String(),
		AppCPUNS: int64(res.AppCPU()), VMCPUNS: int64(res.VMCPU()), Statements: res.Statements,
		Incidents: append([]string{}, res.Incidents...), Profiles: map[string]Profile{},
		Order: profileOrder(out),
	}
	for i := range res.Threads {
		th := &res.Threads[i]
		tr := Thread{Name: th.Name, Daemon: th.Daemon, Service: th.Service, Unprofiled: th.Unprofiled, StartNS: int64(th.Start), EndNS: int64(th.End), StatesNS: map[string]int64{}}
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
	r.Safepoints = Safepoints{Count: sum.Count, MeanTTSPNS: int64(sum.MeanTTSP), MaxTTSPNS: int64(sum.MaxTTSP), TotalPauseNS: int64(sum.TotalPause)}
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
	var truthReport Profile // summarized once: the truth's views cost the most
	var truthLines []Line
	if truth != nil {
		if truthReport = summarize(truth); truthReport.hasLines() {
			truthLines = truthReport.Lines
		}
	}
	for _, name := range r.Order {
		p := out.Profiles[name]
		var pr Profile
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
			pr.Costs = &Costs{AgentCPUNS: int64(c.AgentCPU), StallNS: int64(c.Stall), PauseNS: int64(c.Pauses), Requested: c.Requested, Taken: c.Taken, Undecipherable: c.Undecipherable}
			// Which tick a sample served is recorded only for a
			// samplers.TickSynchronous; for the others the report does not
			// guess. A Config.Extra sampler, not in the registry, is not
			// known to be one.
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

// profileOrder is the outcome's profiles in the requested order, a
// sampler of several members (samplers.Membered: komorium-set) standing
// as its members (ID/MEMBER), whose profiles it keeps: its own profile is
// its first member's.
func profileOrder(out *harness.Outcome) []string {
	var order []string
	for _, name := range out.Names {
		if ms := out.Members[name]; len(ms) > 0 {
			order = append(order, ms...)
			continue
		}
		order = append(order, name)
	}
	return order
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
func lineShares(ls []Line) []profile.LineShare {
	out := make([]profile.LineShare, len(ls))
	for i, l := range ls {
		out[i] = profile.LineShare(l)
	}
	return out
}

func summarize(p *profile.Profile) Profile {
	pr := Profile{Samples: p.TotalCount(), Methods: []Method{}, Lines: []Line{}, Edges: []Edge{}, EdgeOnly: edgeOnly(p)}
	for _, m := range p.Flat() {
		pr.Methods = append(pr.Methods, Method{Method: m.Name, SelfShare: m.SelfShare, TotalShare: &m.TotalShare})
	}
	for _, l := range p.Lines() {
		pr.Lines = append(pr.Lines, Line{Method: l.Method, Line: l.Line, SelfShare: l.SelfShare})
	}
	for _, e := range p.Edges {
		pr.Edges = append(pr.Edges, Edge{Caller: p.Functions[e.Caller].Name, Site: e.Site,
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

// JSON writes the report as `profsim run --format json` prints it: one
// object, indented by two spaces, and a line end.
func (r *Report) JSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// jitOff is what the JIT's explanations say of a run without one.
const jitOff = "JIT: off (--no-jit): every method runs its base compiled version\n"

// ExplainJIT is the JSON's explain_jit: each compiled method's tier,
// inlining tree and polls, in the order compiled.
func ExplainJIT(out *harness.Outcome) string {
	if out.JIT == nil {
		return jitOff
	}
	return out.JIT.Explain()
}

// JIT prints ExplainJIT as a section of the table.
func JIT(w io.Writer, out *harness.Outcome) {
	if out.JIT == nil {
		fmt.Fprint(w, "\n"+jitOff)
		return
	}
	fmt.Fprintf(w, "\nJIT (%s): compilations in order\n", out.JIT.Config().Flavour)
	for _, line := range strings.Split(strings.TrimRight(out.JIT.Explain(), "\n"), "\n") {
		fmt.Fprintln(w, "  "+line)
	}
}
