package study

import (
	"fmt"
	"strconv"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/sim"
)

func init() {
	register(Experiment{Name: "b9-reproducible", Claim: "B9", Title: "Binder §1/§7: the same granularity gives the same profile on any CPU and load", Run: typed(measureB9)})
}

// b9Variants are the CPUs B9 runs on: speed (percent of 1 GHz, the
// sim.cost.speed_percent key) and count. The first is the reference, and
// the key takes only the speeds at which every cycle count converts to
// whole nanoseconds (the divisors of 100), so that each variant runs the
// same program, each cost scaled exactly: one twice as fast as the
// reference, one 2.5 times slower, and the reference's speed on one CPU.
var b9Variants = []struct {
	name  string
	speed int64
	cpus  int
}{{"500 MHz, 4 CPUs", 50, 4}, {"1 GHz, 4 CPUs", 100, 4}, {"200 MHz, 4 CPUs", 20, 4}, {"500 MHz, 1 CPU", 50, 1}}

// b9Obs is one tidy observation of B9: the run of Program with Seed on
// Variant, each profiler's CCT overlap (%) with its profile on the first
// variant and whether it is identical (same stacks, same counts).
type b9Obs struct {
	Program           string
	Seed              uint64
	Variant           string
	KomoriumPct       float64 `tidy:"komorium_pct"`
	KomoriumIdentical bool
	TprofPct          float64 `tidy:"tprof_pct"`
	TprofIdentical    bool
}

// b9Result is B9's runs.
type b9Result struct {
	Seeds []uint64
	Obs   []b9Obs
}

// Compared lists the observations on the variants after the first.
func (r *b9Result) Compared() []b9Obs {
	return where(r.Obs, func(x b9Obs) bool { return x.Variant != b9Variants[0].name })
}

// measureB9: Komorium at constant granularity gives identical profiles
// under different CPU speeds and loads (one CPU shared with the VM's
// threads); tprof's differ. The programs run to their end, so every
// variant executes the same bytecodes.
func measureB9(o Options) (*b9Result, error) {
	progs := []string{"sqsum", "deepcall"}
	var keys []b9Key
	for _, prog := range progs {
		for _, seed := range o.Seeds {
			for vi := range b9Variants {
				keys = append(keys, b9Key{prog, seed, vi})
			}
		}
	}
	runs, err := runAll(o, keys)
	if err != nil {
		return nil, err
	}
	res := &b9Result{Seeds: o.Seeds}
	var ref *b9Run
	for i, k := range keys {
		r := runs[i]
		if k.variant == 0 {
			ref = r
		}
		res.Obs = append(res.Obs, b9Obs{k.prog, k.seed, b9Variants[k.variant].name, 100 * profile.OverlapContexts(ref.Komorium, r.Komorium), sameSamples(ref.Komorium, r.Komorium),
			100 * profile.OverlapContexts(ref.Tprof, r.Tprof), sameSamples(ref.Tprof, r.Tprof)})
	}
	return res, nil
}

// b9Key is one B9 run: prog to its end on b9Variants[variant] with
// komorium and tprof.
type b9Key struct {
	prog    string
	seed    uint64
	variant int
}

// b9Run is a B9 run's two profiles.
type b9Run struct{ Komorium, Tprof *profile.Profile }

// spec is the run: the program to its end on the variant's CPUs, with
// komorium and tprof, the truth only by method.
func (k b9Key) spec() harness.Spec {
	v := b9Variants[k.variant]
	s := paperSpec(k.prog, k.seed, 20*sim.Second) // to the end
	s.CPUs, s.Truth = v.cpus, "methods"
	s.Sets = []param.KV{{Key: "sim.cost.speed_percent", Value: strconv.FormatInt(v.speed, 10)}}
	s.Samplers = []string{"komorium", "tprof"}
	return s
}

func (k b9Key) run() (*b9Run, error) {
	out, err := runSpec(k.spec(), func(cfg *harness.Config) {
		cfg.NoTruthProfile = true // only the samplers' profiles are compared
	})
	if err != nil {
		return nil, err
	}
	return &b9Run{out.Profiles["komorium"], out.Profiles["tprof"]}, nil
}

func (r *b9Result) render() (*Result, error) {
	t := &Table{Title: "Does the profile change with the CPU? (CCT overlap with the first variant's profile, %)", Columns: []string{"program", "variant", "komorium 10 000", "komorium identical", "tprof 10 ms"}}
	for _, x := range r.Obs {
		if x.Seed == r.Seeds[0] {
			t.AddRow(x.Program, x.Variant, fmt.Sprintf("%.2f", x.KomoriumPct), fmt.Sprint(x.KomoriumIdentical), fmt.Sprintf("%.2f", x.TprofPct))
		}
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Binder's sqSum and a deep call chain, run to their end; seeds %v (rows for the first). 'identical': the same stacks with the same sample counts.", r.Seeds))
	return &Result{Table: t, Tidy: tidyOf(r.Obs)}, nil
}

// sameSamples reports whether two profiles hold the same stacks with the
// same counts.
func sameSamples(a, b *profile.Profile) bool {
	ca, cb := a.ContextWeights(), b.ContextWeights()
	if len(ca) != len(cb) {
		return false
	}
	for k, v := range ca {
		if cb[k] != v {
			return false
		}
	}
	return true
}
