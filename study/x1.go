package study

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "x1-debug-info", Claim: "X1", Title: "Beyond the papers: async without DebugNonSafepoints moves inlined hot() to cold(); with it, async matches the truth", Run: runX1})
}

// x1Configs differ only in DebugNonSafepoints: hot() inlined into cold(),
// strip mining so the inlined counted loop keeps a poll (without one a
// safepoint sampler would see nothing, and async no record in the loop).
var x1Configs = []ListingOneConfig{
	{Name: "inlining, no DNS", Inline: true, StripMining: 1000, DNS: false},
	{Name: "inlining, DNS", Inline: true, StripMining: 1000, DNS: true},
}

func runX1(o Options) (*Result, error) {
	d := 2 * sim.Second
	if o.Full {
		d = 10 * sim.Second
	}
	rows, t, err := ListingOne(x1Configs, o.Seeds, d)
	if err != nil {
		return nil, err
	}
	t.Title = "X1: hot() vs cold() self time (%) by profiler, hot() inlined into cold(), with and without DebugNonSafepoints"
	t.Notes = []string{fmt.Sprintf("%v simulated per run, seeds %v; all samplers passive on one execution per (configuration, seed), so the two configurations differ only in the debug information the JIT records.", d, o.Seeds)}
	t.Notes = append(t.Notes, "Mechanism: async stops a thread at its exact position but names it through the JIT's debug information. Without DebugNonSafepoints, records (PcDescs) exist only at polls, remaining calls and runtime calls: the inlined hot() body has none, so a position inside it resolves, as AsyncGetCallTrace's pc_desc_near(pc + 1) does, to the first record after it — cold()'s strip-mined loop poll, whose scope chain has no hot() frame — the bias Burchell & Marr 2025 found in real profilers (tools/debuginfo shows it on OpenJDK 17). With DNS every statement has a record and async sees what the truth sees. The safepoint samplers stop at polls, where records always exist, so DNS changes nothing for them.")
	res := &Result{Table: t, Values: map[string]float64{}}
	res.Values["truth"] = PooledShare(rows, x1Configs[0].Name, "truth", "hot")
	res.Values["truth_dns"] = PooledShare(rows, x1Configs[1].Name, "truth", "hot")
	res.Values["async_no_dns"] = PooledShare(rows, x1Configs[0].Name, "async", "hot")
	res.Values["async_dns"] = PooledShare(rows, x1Configs[1].Name, "async", "hot")
	res.Values["safepoint_no_dns"] = PooledShare(rows, x1Configs[0].Name, "safepoint", "hot")
	res.Values["safepoint_dns"] = PooledShare(rows, x1Configs[1].Name, "safepoint", "hot")
	// Worst seed, so a test can require every run, not just the pool.
	res.Values["async_no_dns_max"], res.Values["async_dns_min"] = 0, 100
	for _, r := range rows {
		if r.Config.Name == x1Configs[0].Name {
			res.Values["async_no_dns_max"] = max(res.Values["async_no_dns_max"], r.Hot["async"])
		} else {
			res.Values["async_dns_min"] = min(res.Values["async_dns_min"], r.Hot["async"])
		}
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Pooled over seeds %v (weighted by samples): truth %.2f %%, async without DNS %.2f %%, with DNS %.2f %%.",
		o.Seeds, res.Values["truth"], res.Values["async_no_dns"], res.Values["async_dns"]))

	p := plot.New()
	p.Title.Text = "X1: share of self time in hot() (%), hot() inlined into cold()"
	p.Y.Label.Text = "hot() (%)"
	vals := plotter.Values{res.Values["truth"], res.Values["async_no_dns"], res.Values["async_dns"], res.Values["safepoint_no_dns"], res.Values["safepoint_dns"]}
	bars, err := plotter.NewBarChart(vals, vg.Points(20))
	if err != nil {
		return nil, err
	}
	p.Add(bars)
	p.NominalX("truth", "async, no DNS", "async, DNS", "safepoint, no DNS", "safepoint, DNS")
	p.Y.Min, p.Y.Max = 0, 100
	res.Figure = p
	return res, nil
}
