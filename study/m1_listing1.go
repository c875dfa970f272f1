package study

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "m1-listing1", Claim: "M1", Title: "Mytkowicz Listing 1: hot() vs cold() by profiler", Run: typed(measureM1)})
}

// listingOneConfig is one JVM configuration of the Listing 1 experiment.
type listingOneConfig struct {
	Name        string
	Inline      bool
	StripMining int64
	DNS         bool
}

// listingOneConfigs are the configurations M1 and X1 look at: the paper's
// tprof setup (inlining off, as Mytkowicz et al. ran tprof), and a modern
// HotSpot (inlining, loop strip mining, DebugNonSafepoints) — without strip
// mining the inlined counted loop has no poll at all and a safepoint
// sampler gets no sample.
var listingOneConfigs = []listingOneConfig{
	{Name: "no inlining", Inline: false},
	{Name: "inlining+strip mining+DNS", Inline: true, StripMining: 1000, DNS: true},
}

// listingOneRow is one (configuration, seed) run: each profile's share of
// self time for HotCold.hot and HotCold.cold, in percent.
type listingOneRow struct {
	Config   listingOneConfig
	Seed     uint64
	Hot      keyed[string, float64]
	Cold     keyed[string, float64]
	Samples  keyed[string, int64]
	Profiles map[string]*profile.Profile
}

// listingOneSamplers are the profilers observing each run (passively).
var listingOneSamplers = []string{"truth", "safepoint", "hprof", "xprof", "tprof", "async"}

// listingOneRuns runs Listing 1 under each configuration for every seed
// of o, with every sampler observing the same execution.
func listingOneRuns(o Options, configs []listingOneConfig, duration sim.Time) ([]listingOneRow, error) {
	var keys []listingOneKey
	for _, c := range configs {
		for _, seed := range o.Seeds {
			keys = append(keys, listingOneKey{c, seed, duration})
		}
	}
	rows, err := runAll(o, keys)
	if err != nil {
		return nil, err
	}
	out := make([]listingOneRow, len(rows))
	for i, r := range rows {
		out[i] = *r
	}
	return out, nil
}

// listingOneKey is one Listing 1 run: hotcold under config for d.
type listingOneKey struct {
	config listingOneConfig
	seed   uint64
	d      sim.Time
}

// spec is the run's harness.Spec: Listing 1 on the papers' HotSpot
// (hotspot6) with the configuration's JIT flags.
func (k listingOneKey) spec() harness.Spec {
	c := k.config
	s := harness.DefaultSpec()
	s.Workload, s.Seed, s.Duration, s.VM = "hotcold", k.seed, time.Duration(k.d), "hotspot6"
	s.Inline, s.StripMining, s.DebugNonSafepoints = &c.Inline, &c.StripMining, &c.DNS
	s.Samplers, s.Mode = slices.Clone(listingOneSamplers), samplers.Passive
	return s
}

func (k listingOneKey) run() (*listingOneRow, error) {
	c := k.config
	out, err := runSpec(k.spec())
	if err != nil {
		return nil, err
	}
	r := &listingOneRow{Config: c, Seed: k.seed, Hot: keyed[string, float64]{}, Cold: keyed[string, float64]{},
		Samples: keyed[string, int64]{}, Profiles: out.Profiles}
	for _, s := range listingOneSamplers {
		r.Hot[s] = profile.Hotness(out.Profiles[s], "HotCold.hot")
		r.Cold[s] = profile.Hotness(out.Profiles[s], "HotCold.cold")
		r.Samples[s] = out.Profiles[s].TotalCount()
	}
	return r, nil
}

// listingOneTable is the runs' presentation table: a row per
// (configuration, seed, method), a column per sampler.
func listingOneTable(rows []listingOneRow, duration sim.Time) *Table {
	t := &Table{Title: "M1: hot() vs cold() self time (%) by profiler, Mytkowicz et al. Listing 1",
		Columns: append([]string{"config", "seed", "method"}, listingOneSamplers...)}
	for _, r := range rows {
		for _, m := range []string{"hot", "cold"} {
			cells := []any{r.Config.Name, r.Seed, "HotCold." + m}
			for _, s := range listingOneSamplers {
				v := r.Hot[s]
				if m == "cold" {
					v = r.Cold[s]
				}
				cells = append(cells, v)
			}
			t.AddRow(cells...)
		}
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Paper: xprof attributes 99.8 %% of the time to cold() (Mytkowicz et al. 2010, §6.3). %v simulated per run, samplers passive on one execution.", duration))
	return t
}

// listingOneObservation is one tidy observation of Listing 1: a profiler's share
// of a method's self time in one run.
type listingOneObservation struct {
	Config   string
	Seed     uint64
	Profiler string
	Method   string
	SharePct float64 `tidy:"share_pct"`
	// Samples is the profile's total count in the run.
	Samples int64
}

// listingOneObs lists the runs' observations.
func listingOneObs(rows []listingOneRow) []listingOneObservation {
	var obs []listingOneObservation
	for _, r := range rows {
		for _, s := range listingOneSamplers {
			n := r.Samples[s]
			obs = append(obs, listingOneObservation{r.Config.Name, r.Seed, s, "HotCold.hot", r.Hot[s], n},
				listingOneObservation{r.Config.Name, r.Seed, s, "HotCold.cold", r.Cold[s], n})
		}
	}
	return obs
}

// pooledShare is a profiler's share (%) for method m pooled over runs,
// weighting each run by its samples.
func pooledShare(rows []listingOneRow, config, sampler, method string) float64 {
	var num, den float64
	for _, r := range rows {
		if r.Config.Name != config {
			continue
		}
		share := r.Hot.At(sampler)
		if method == "cold" {
			share = r.Cold.At(sampler)
		}
		n := float64(r.Samples.At(sampler))
		if sampler == "truth" {
			n = 1
		}
		num += share * n
		den += n
	}
	if den == 0 {
		return math.NaN()
	}
	return num / den
}

// m1Result is Listing 1 under each of listingOneConfigs, every seed.
type m1Result struct {
	Duration sim.Time
	Rows     []listingOneRow
}

// measureM1 runs Listing 1 for M1.
func measureM1(o Options) (*m1Result, error) {
	d := 2 * sim.Second
	rows, err := listingOneRuns(o, listingOneConfigs, d)
	if err != nil {
		return nil, err
	}
	return &m1Result{Duration: d, Rows: rows}, nil
}

// Pooled is sampler's share (%) of method ("hot" or "cold") under config,
// pooled over the seeds (pooledShare).
func (r *m1Result) Pooled(config listingOneConfig, sampler, method string) float64 {
	return pooledShare(r.Rows, config.Name, sampler, method)
}

func (r *m1Result) render() (*Result, error) {
	res := &Result{Table: listingOneTable(r.Rows, r.Duration), Tidy: tidyOf(listingOneObs(r.Rows))}
	// Figure: each sampler's share of hot() per configuration, mean and
	// 95 % CI over seeds.
	p := plot.New()
	p.Title.Text = "M1: share of self time in hot() by profiler (Listing 1)"
	p.Y.Label.Text = "hot() (% of self time)"
	for ci, c := range listingOneConfigs {
		var pts errPoints
		for i, s := range listingOneSamplers {
			var xs []float64
			for _, row := range r.Rows {
				if row.Config.Name == c.Name {
					xs = append(xs, row.Hot.At(s))
				}
			}
			st := newStat(xs)
			pts.add(float64(i)+0.3*(float64(ci)-0.5), st)
		}
		if err := pts.percent().addTo(p, series{Label: listingOneLegend(c.Name), Style: ci}); err != nil {
			return nil, err
		}
	}
	p.NominalX(listingOneSamplers...)
	p.X.Min, p.X.Max = -0.6, float64(len(listingOneSamplers))-0.4
	p.Y.Min, p.Y.Max = 0, 100
	res.Figure = newFigure("Listing 1 (hot() and cold() in one loop): the share of self time each profiler gives hot(), mean ± CI over seeds, without inlining and with inlining, loop strip mining and DNS. DNS = DebugNonSafepoints, the HotSpot flag that records where inlined code is between safepoints, which async needs to place it. "+captionMytkowicz+" "+captionCI, p)
	return res, nil
}

// listingOneLegend is a configuration's name in the figure's legend, its
// parts listed ("inlining, strip mining, DNS"; the caption spells out DNS).
func listingOneLegend(name string) string {
	return strings.ReplaceAll(name, "+", ", ")
}
