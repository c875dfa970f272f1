package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/study"
	"github.com/profsim/profsim/workloads"
)

type runFlags struct {
	workload   string
	seed       uint64
	duration   time.Duration
	cpus       int
	format     string
	out        string
	top        int
	samplers   []string
	mode       samplers.Mode
	flavour    jit.Flavour
	inline     bool
	strip      int64
	dns        bool
	noJIT      bool
	gc         bool
	explainJIT bool
	injections []workloads.Injection
	speedups   []workloads.SpeedUp
}

func parseRunFlags(args []string, stdout io.Writer) (*runFlags, error) {
	def := sim.DefaultConfig()
	f := &runFlags{}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.workload, "workload", "", "built-in workload NAME (see 'profsim workloads') or a .yaml/.json FILE")
	fs.Uint64Var(&f.seed, "seed", def.Seed, "master seed: same seed, same output")
	fs.DurationVar(&f.duration, "duration", time.Duration(def.Duration), "simulated time limit (the run ends earlier if the program does)")
	fs.IntVar(&f.cpus, "cpus", def.CPUs, "simulated CPUs")
	fs.StringVar(&f.format, "format", "table", "output format: table or json")
	fs.StringVar(&f.out, "out", "", "directory to write truth.pb.gz (pprof) and truth.folded to")
	fs.IntVar(&f.top, "top", 10, "rows of methods and edges in the table")
	samplerList := fs.String("samplers", "truth", "comma-separated profilers to run on the same execution (see 'profsim samplers')")
	mode := fs.String("mode", "passive", "passive: samplers observe at no cost; costed: each sampler's costs and observer effect applied (several together perturb each other)")
	vmFlavour := fs.String("vm", "hotspot", "yield-point placement: hotspot or jikes")
	fs.BoolVar(&f.inline, "inline", true, "let the JIT inline")
	fs.Int64Var(&f.strip, "strip-mining", 0, "keep one poll every N iterations of counted loops (0: none, the papers' JVMs)")
	fs.BoolVar(&f.dns, "debug-non-safepoints", false, "record debug information at every statement (-XX:+DebugNonSafepoints)")
	fs.BoolVar(&f.noJIT, "no-jit", false, "no JIT: every method runs compiled from the start, polls at every return and back-edge, nothing inlined")
	fs.BoolVar(&f.gc, "gc", true, "allocation-driven garbage collection at safepoints")
	fs.BoolVar(&f.explainJIT, "explain-jit", false, "print each compiled method's tier, inlining tree and polls")
	fs.Func("inject", "inject a Fibonacci-like poll-free loop of size f at the end of METHOD: METHOD:f, or METHOD:f:alloc for the allocating variant (repeatable)", func(v string) error {
		in, err := workloads.ParseInjection(v)
		if err == nil {
			f.injections = append(f.injections, in)
		}
		return err
	})
	fs.Func("speedup", "scale METHOD's own work by factor (0.5: twice as fast): METHOD:factor (repeatable)", func(v string) error {
		sp, err := workloads.ParseSpeedUp(v)
		if err == nil {
			f.speedups = append(f.speedups, sp)
		}
		return err
	})
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, "Usage: profsim run --workload NAME|FILE [flags]")
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return nil, errHelp
		}
		return nil, usagef("run: %v", err)
	}
	switch {
	case fs.NArg() > 0:
		return nil, usagef("run: unexpected argument %q (flags only)", fs.Arg(0))
	case f.workload == "":
		return nil, usagef("run: --workload is required (paper programs: %s; stand-ins: see 'profsim workloads')", strings.Join(workloads.Programs(), ", "))
	case f.duration <= 0:
		return nil, usagef("run: --duration %v must be > 0", f.duration)
	case f.cpus < 1:
		return nil, usagef("run: --cpus %d must be ≥ 1", f.cpus)
	case f.format != "table" && f.format != "json":
		return nil, usagef("run: --format %q: want table or json", f.format)
	case f.top < 1:
		return nil, usagef("run: --top %d must be ≥ 1", f.top)
	case f.strip < 0:
		return nil, usagef("run: --strip-mining %d must be ≥ 0", f.strip)
	}
	switch *mode {
	case "passive":
		f.mode = samplers.Passive
	case "costed":
		f.mode = samplers.Costed
	default:
		return nil, usagef("run: --mode %q: want passive or costed", *mode)
	}
	var err error
	if f.flavour, err = jit.ParseFlavour(*vmFlavour); err != nil {
		return nil, usagef("run: --vm: %v", err)
	}
	for _, name := range strings.Split(*samplerList, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, usagef("run: --samplers %q: empty name", *samplerList)
		}
		if name != "truth" {
			if _, err := samplers.New(name); err != nil {
				return nil, usagef("run: --samplers: %v", err)
			}
		}
		if slices.Contains(f.samplers, name) {
			return nil, usagef("run: --samplers: %q listed twice", name)
		}
		f.samplers = append(f.samplers, name)
	}
	if f.mode == samplers.Costed {
		n := len(f.samplers)
		if slices.Contains(f.samplers, "truth") {
			n--
		}
		if n == 0 {
			return nil, usagef("run: --mode costed needs a sampler besides truth (--samplers)")
		}
	}
	return f, nil
}

// loadWorkload resolves a built-in name first, then a file path.
func loadWorkload(ref string) (*program.Program, error) {
	if slices.Contains(workloads.Names(), ref) {
		p, err := workloads.Get(ref)
		if err != nil {
			return nil, err // a broken built-in is our bug, not the user's
		}
		return p, nil
	}
	if _, err := os.Stat(ref); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, usagef("unknown workload %q: not a built-in (%s, or a stand-in from 'profsim workloads') and no such file", ref, strings.Join(workloads.Programs(), ", "))
		}
		return nil, usagef("workload %s: %v", ref, err)
	}
	p, err := program.Load(ref)
	if err != nil {
		return nil, usagef("%v", err)
	}
	return p, nil
}

func cmdRun(args []string, stdout io.Writer) error {
	f, err := parseRunFlags(args, stdout)
	if err != nil {
		return err
	}
	p, err := loadWorkload(f.workload)
	if err != nil {
		return err
	}
	for _, in := range f.injections {
		if err := workloads.Inject(p, in); err != nil {
			return usagef("%v", err)
		}
	}
	for _, sp := range f.speedups {
		if err := workloads.ApplySpeedUp(p, sp); err != nil {
			return usagef("%v", err)
		}
	}
	cfg := harness.DefaultConfig()
	cfg.Sim.Seed, cfg.Sim.Duration, cfg.Sim.CPUs = f.seed, sim.Time(f.duration), f.cpus
	cfg.JIT.Flavour, cfg.JIT.Inline, cfg.JIT.StripMiningIter, cfg.JIT.DebugNonSafepoints = f.flavour, f.inline, f.strip, f.dns
	cfg.NoJIT = f.noJIT
	if !f.gc {
		cfg.GC = nil
	}
	cfg.Samplers, cfg.Mode = f.samplers, f.mode
	out, err := harness.Run(p, cfg)
	if err != nil {
		return usagef("%v", err)
	}
	rep := newReport(p.Name, cfg, out)
	if f.out != "" {
		for _, name := range out.Names {
			if err := writeFiles(f.out, name, out.Profiles[name]); err != nil {
				return err
			}
		}
	}
	w := bufio.NewWriter(stdout)
	if f.format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		rep.writeTable(w, f.top)
		if f.explainJIT {
			explainJIT(w, out)
		}
		if f.out != "" {
			fmt.Fprintf(w, "\nwrote <profile>.pb.gz and <profile>.folded for %s in %s (open with: go tool pprof -http=: %s)\n",
				strings.Join(out.Names, ", "), f.out, filepath.Join(f.out, out.Names[0]+".pb.gz"))
		}
	}
	return w.Flush()
}

// writeFiles writes name.pb.gz and name.folded into dir.
func writeFiles(dir, name string, p *profile.Profile) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usagef("--out: %v", err)
	}
	write := func(file string, fn func(io.Writer, *profile.Profile) error) error {
		path := filepath.Join(dir, file)
		fh, err := os.Create(path)
		if err != nil {
			return usagef("--out: %v", err)
		}
		bw := bufio.NewWriter(fh)
		if err := fn(bw, p); err != nil {
			fh.Close()
			return fmt.Errorf("writing %s: %w", path, err)
		}
		if err := bw.Flush(); err != nil {
			fh.Close()
			return fmt.Errorf("writing %s: %w", path, err)
		}
		return fh.Close()
	}
	if err := write(name+".pb.gz", profile.WritePprof); err != nil {
		return err
	}
	return write(name+".folded", profile.WriteFolded)
}

func cmdSamplers(args []string, stdout io.Writer) error {
	if len(args) > 0 {
		return usagef("samplers: unexpected argument %q", args[0])
	}
	fmt.Fprintf(stdout, "%-10s %s\n", "truth", "the exact ground truth: every ns of CPU in its calling context (always computed)")
	for _, i := range samplers.List() {
		fmt.Fprintf(stdout, "%-10s %s\n", i.Name, i.Description)
	}
	return nil
}

func cmdWorkloads(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("workloads", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	measure := fs.Bool("measure", false, "run each workload and print its measured characteristics as a markdown table")
	doc := fs.Bool("doc", false, "print docs/STANDINS.md: every stand-in and the measured table of all workloads")
	duration := fs.Duration("duration", 300*time.Millisecond, "simulated time per workload for --measure")
	only := fs.String("only", "", "comma-separated workloads to list or measure (default: all)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, "Usage: profsim workloads [--measure [--duration D]] [--only a,b]")
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return errHelp
		}
		return usagef("workloads: %v", err)
	}
	if fs.NArg() > 0 {
		return usagef("workloads: unexpected argument %q", fs.Arg(0))
	}
	if *duration <= 0 {
		return usagef("workloads: --duration %v must be > 0", *duration)
	}
	names := workloads.Names()
	if *only != "" {
		names = nil
		for _, n := range strings.Split(*only, ",") {
			if !slices.Contains(workloads.Names(), n) {
				return usagef("workloads: --only: unknown workload %q", n)
			}
			names = append(names, n)
		}
	}
	if *doc {
		return standInsDoc(stdout, sim.Time(*duration))
	}
	if *measure {
		t, _, err := study.CharacteristicsTable(names, sim.Time(*duration))
		if err != nil {
			return err
		}
		_, err = io.WriteString(stdout, t.Markdown())
		return err
	}
	for _, n := range names {
		p, err := workloads.Get(n)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%-16s %s\n", n, p.Description)
	}
	return nil
}

// standInsDoc renders docs/STANDINS.md: every stand-in with what it
// imitates and which knobs carry which claim, then the measured table.
func standInsDoc(w io.Writer, d sim.Time) error {
	fmt.Fprintf(w, "# Stand-ins\n\nGenerated by `profsim workloads --doc` (and checked by `go test ./cmd/profsim`); do not edit by hand.\n\n")
	fmt.Fprintf(w, "Every stand-in is a **synthetic** program from the seeded generator in `workloads/gen.go`, named after the benchmark whose properties it carries; it is not that benchmark. Its knobs are in `workloads/standins.go`.\n\n")
	fmt.Fprintf(w, "| stand-in | imitates | paper | what matters for which claim |\n|---|---|---|---|\n")
	for _, s := range workloads.StandIns() {
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", s.Name, s.Imitates, s.Paper, s.Matters)
	}
	fmt.Fprintln(w)
	t, _, err := study.CharacteristicsTable(nil, d)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, t.Markdown())
	return err
}
