package main

import (
	"fmt"
	"io"
	"sort"

	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/sim"
)

// report is the JSON contract of `profsim run --format json`; the table
// prints the same data. Later samplers add entries to Profiles.
type report struct {
	Workload    string `json:"workload"`
	Seed        uint64 `json:"seed"`
	SimulatedNS int64  `json:"simulated_ns"`
	CPUs        int    `json:"cpus"`
	// AppCPUNS is the application threads' CPU time (= truth's total).
	AppCPUNS   int64                    `json:"app_cpu_ns"`
	Statements int64                    `json:"statements"`
	Threads    []threadReport           `json:"threads"`
	Incidents  []string                 `json:"incidents"`
	Profiles   map[string]profileReport `json:"profiles"`
}

type threadReport struct {
	Name     string           `json:"name"`
	Daemon   bool             `json:"daemon,omitempty"`
	StartNS  int64            `json:"start_ns"`
	EndNS    int64            `json:"end_ns,omitempty"`
	StatesNS map[string]int64 `json:"states_ns"`
}

type profileReport struct {
	// Samples is the number of samples; for truth, the number of ns of CPU
	// time (truth is the limit of a sampler with a 1 ns period).
	Samples int64          `json:"samples"`
	Methods []methodReport `json:"methods"`
	Edges   []edgeReport   `json:"edges"`
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

func newReport(workload string, cfg sim.Config, res *sim.Result, profiles map[string]*profile.Profile) *report {
	r := &report{
		Workload: workload, Seed: cfg.Seed, SimulatedNS: int64(res.End), CPUs: cfg.CPUs,
		AppCPUNS: int64(res.AppCPU()), Statements: res.Statements,
		Incidents: append([]string{}, res.Incidents...), Profiles: map[string]profileReport{},
	}
	for i := range res.Threads {
		th := &res.Threads[i]
		tr := threadReport{Name: th.Name, Daemon: th.Daemon, StartNS: int64(th.Start), EndNS: int64(th.End), StatesNS: map[string]int64{}}
		for s := sim.ThreadState(0); int(s) < len(th.States); s++ {
			if th.States[s] > 0 {
				tr.StatesNS[s.String()] = int64(th.States[s])
			}
		}
		r.Threads = append(r.Threads, tr)
	}
	for name, p := range profiles {
		r.Profiles[name] = summarize(p)
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
	fmt.Fprintf(w, "workload %s   seed %d   cpus %d   simulated %v\n", r.Workload, r.Seed, r.CPUs, sim.Time(r.SimulatedNS))
	fmt.Fprintf(w, "application CPU %v   statements %d   threads %d\n", sim.Time(r.AppCPUNS), r.Statements, len(r.Threads))
	for _, inc := range r.Incidents {
		fmt.Fprintf(w, "incident: %s\n", inc)
	}
	names := make([]string, 0, len(r.Profiles))
	for n := range r.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := r.Profiles[n]
		fmt.Fprintf(w, "\nTop methods (%s)\n  %7s %7s  %s\n", n, "self%", "total%", "method")
		for i, m := range p.Methods {
			if i == top {
				fmt.Fprintf(w, "  ... %d more\n", len(p.Methods)-top)
				break
			}
			fmt.Fprintf(w, "  %7.2f %7.2f  %s\n", 100*m.SelfShare, 100*m.TotalShare, m.Method)
		}
		if len(p.Edges) == 0 {
			continue
		}
		fmt.Fprintf(w, "\nTop call edges (%s)\n  %12s  %s\n", n, "count", "caller:line → callee")
		for i, e := range p.Edges {
			if i == top {
				fmt.Fprintf(w, "  ... %d more\n", len(p.Edges)-top)
				break
			}
			fmt.Fprintf(w, "  %12d  %s:%d → %s\n", e.Count, e.Caller, e.Site, e.Callee)
		}
	}
}
