package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/sim"
)

// report is the JSON contract of `profsim run --format json`; the table
// prints the same data.
type report struct {
	Workload    string `json:"workload"`
	Seed        uint64 `json:"seed"`
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
	names      []string
}

type threadReport struct {
	Name     string           `json:"name"`
	Daemon   bool             `json:"daemon,omitempty"`
	Service  bool             `json:"service,omitempty"`
	StartNS  int64            `json:"start_ns"`
	EndNS    int64            `json:"end_ns,omitempty"`
	StatesNS map[string]int64 `json:"states_ns"`
}

type safepointReport struct {
	Count        int   `json:"count"`
	MeanTTSPNS   int64 `json:"mean_ttsp_ns"`
	MaxTTSPNS    int64 `json:"max_ttsp_ns"`
	TotalPauseNS int64 `json:"total_pause_ns"`
	GCs          int   `json:"gcs"`
}

type profileReport struct {
	// Samples is the number of samples; for truth, the number of ns of CPU
	// time (truth is the limit of a sampler with a 1 ns period).
	Samples int64          `json:"samples"`
	Methods []methodReport `json:"methods"`
	Edges   []edgeReport   `json:"edges"`
	// OverlapVsTruth is the overlap of the flat profile (self share per
	// method) with truth's, in [0, 1] (absent for truth itself); for
	// call-graph profilers (cbs, jikes-timer) the overlap of the dynamic
	// call graphs (Arnold & Grove's accuracy).
	OverlapVsTruth *float64    `json:"overlap_vs_truth,omitempty"`
	Costs          *costReport `json:"costs,omitempty"`
	// Extra holds sampler-specific measurements (pcct's
	// frames_examined_per_sample, pcct_nodes, pcct_bytes, …).
	Extra map[string]float64 `json:"extra,omitempty"`
}

type costReport struct {
	AgentCPUNS int64 `json:"agent_cpu_ns"`
	StallNS    int64 `json:"stall_ns"`
	PauseNS    int64 `json:"pause_ns"`
	Requested  int64 `json:"requested"`
	Taken      int64 `json:"taken"`
}

type methodReport struct {
	Method     string  `json:"method"`
	SelfShare  float64 `json:"self_share"`
	TotalShare float64 `json:"total_share"`
}

type edgeReport struct {
	Caller string `json:"caller"`
	Site   int    `json:"site"`
	Callee string `json:"callee"`
	Count  int64  `json:"count"`
}

func newReport(workload string, cfg harness.Config, out *harness.Outcome) *report {
	res := out.Result
	r := &report{
		Workload: workload, Seed: cfg.Sim.Seed, SimulatedNS: int64(res.End), CPUs: cfg.Sim.CPUs, Mode: cfg.Mode.String(),
		AppCPUNS: int64(res.AppCPU()), VMCPUNS: int64(res.VMCPU()), Statements: res.Statements,
		Incidents: append([]string{}, res.Incidents...), Profiles: map[string]profileReport{},
		Order: out.Names, names: out.Names,
	}
	for i := range res.Threads {
		th := &res.Threads[i]
		tr := threadReport{Name: th.Name, Daemon: th.Daemon, Service: th.Service, StartNS: int64(th.Start), EndNS: int64(th.End), StatesNS: map[string]int64{}}
		for s := sim.ThreadState(0); int(s) < len(th.States); s++ {
			if th.States[s] > 0 {
				tr.StatesNS[s.String()] = int64(th.States[s])
			}
		}
		r.Threads = append(r.Threads, tr)
	}
	sum := out.Safepoints.Summarize()
	r.Safepoints = safepointReport{Count: sum.Count, MeanTTSPNS: int64(sum.MeanTTSP), MaxTTSPNS: int64(sum.MaxTTSP), TotalPauseNS: int64(sum.TotalPause)}
	if out.GC != nil {
		r.Safepoints.GCs = out.GC.Collections
	}
	truth := out.Profiles["truth"]
	for _, name := range out.Names {
		p := out.Profiles[name]
		pr := summarize(p)
		if name != "truth" {
			o := profile.OverlapMethods(truth, p)
			if len(p.Samples) == 0 && len(p.Edges) > 0 {
				o = profile.OverlapEdges(truth, p) // a call-graph profiler: compare call graphs
			}
			pr.OverlapVsTruth = &o
			c := out.Costs[name]
			pr.Costs = &costReport{AgentCPUNS: int64(c.AgentCPU), StallNS: int64(c.Stall), PauseNS: int64(c.Pauses), Requested: c.Requested, Taken: c.Taken}
			pr.Extra = c.Extra
		}
		r.Profiles[name] = pr
	}
	return r
}

func summarize(p *profile.Profile) profileReport {
	pr := profileReport{Samples: p.TotalCount(), Methods: []methodReport{}, Edges: []edgeReport{}}
	for _, m := range p.Flat() {
		pr.Methods = append(pr.Methods, methodReport{Method: m.Name, SelfShare: m.SelfShare, TotalShare: m.TotalShare})
	}
	for _, e := range p.Edges {
		pr.Edges = append(pr.Edges, edgeReport{Caller: p.Functions[e.Caller].Name, Site: e.Site,
			Callee: p.Functions[e.Callee].Name, Count: e.Weight})
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

func (r *report) writeTable(w io.Writer, top int) {
	fmt.Fprintf(w, "workload %s   seed %d   cpus %d   simulated %v   mode %s\n", r.Workload, r.Seed, r.CPUs, sim.Time(r.SimulatedNS), r.Mode)
	fmt.Fprintf(w, "application CPU %v   VM CPU %v   statements %d   threads %d\n", sim.Time(r.AppCPUNS), sim.Time(r.VMCPUNS), r.Statements, len(r.Threads))
	if sp := r.Safepoints; sp.Count > 0 {
		fmt.Fprintf(w, "safepoints %d (GCs %d)   time to safepoint mean %v max %v   total pause %v\n",
			sp.Count, sp.GCs, sim.Time(sp.MeanTTSPNS), sim.Time(sp.MaxTTSPNS), sim.Time(sp.TotalPauseNS))
	}
	for _, inc := range r.Incidents {
		fmt.Fprintf(w, "incident: %s\n", inc)
	}

	// Methods side by side: the union of each profile's top methods, in
	// truth's order, one self% column per profile.
	share := map[string]map[string]float64{}
	var rows []string
	seen := map[string]bool{}
	for _, n := range r.names {
		share[n] = map[string]float64{}
		for i, m := range r.Profiles[n].Methods {
			share[n][m.Method] = m.SelfShare
			if i < top && !seen[m.Method] && m.SelfShare > 0 {
				seen[m.Method] = true
				rows = append(rows, m.Method)
			}
		}
	}
	truth := share["truth"]
	sort.SliceStable(rows, func(i, j int) bool { return truth[rows[i]] > truth[rows[j]] })
	width := len("method")
	if len(r.names) > 1 {
		width = len("samples taken/requested")
	}
	for _, m := range rows {
		width = max(width, len(m))
	}
	fmt.Fprintf(w, "\nSelf time by method (%%)\n  %-*s", width, "method")
	for _, n := range r.names {
		fmt.Fprintf(w, " %10s", n)
	}
	fmt.Fprintln(w)
	for _, m := range rows {
		fmt.Fprintf(w, "  %-*s", width, m)
		for _, n := range r.names {
			fmt.Fprintf(w, " %10.2f", 100*share[n][m])
		}
		fmt.Fprintln(w)
	}
	if len(r.names) > 1 {
		fmt.Fprintf(w, "  %-*s", width, "overlap vs truth")
		for _, n := range r.names {
			if o := r.Profiles[n].OverlapVsTruth; o != nil {
				fmt.Fprintf(w, " %10.2f", 100**o)
			} else {
				fmt.Fprintf(w, " %10s", "")
			}
		}
		fmt.Fprintf(w, "\n  %-*s", width, "samples taken/requested")
		for _, n := range r.names {
			if c := r.Profiles[n].Costs; c != nil {
				fmt.Fprintf(w, " %10s", fmt.Sprintf("%d/%d", c.Taken, c.Requested))
			} else {
				fmt.Fprintf(w, " %10s", "")
			}
		}
		fmt.Fprintln(w)
		if r.Mode == "costed" {
			for _, n := range r.names {
				if c := r.Profiles[n].Costs; c != nil {
					fmt.Fprintf(w, "  costs of %s: agent CPU %v, stalls %v, safepoint pauses %v\n", n,
						sim.Time(c.AgentCPUNS), sim.Time(c.StallNS), sim.Time(c.PauseNS))
				}
			}
		}
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
		fmt.Fprintf(w, "  %12d  %s:%d → %s\n", e.Count, e.Caller, e.Site, e.Callee)
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
