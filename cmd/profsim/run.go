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

	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
)

type runFlags struct {
	workload string
	seed     uint64
	duration time.Duration
	cpus     int
	format   string
	out      string
	top      int
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
		return nil, usagef("run: --workload is required (built-ins: %s)", strings.Join(workloads.Names(), ", "))
	case f.duration <= 0:
		return nil, usagef("run: --duration %v must be > 0", f.duration)
	case f.cpus < 1:
		return nil, usagef("run: --cpus %d must be ≥ 1", f.cpus)
	case f.format != "table" && f.format != "json":
		return nil, usagef("run: --format %q: want table or json", f.format)
	case f.top < 1:
		return nil, usagef("run: --top %d must be ≥ 1", f.top)
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
			return nil, usagef("unknown workload %q: not a built-in (%s) and no such file", ref, strings.Join(workloads.Names(), ", "))
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
	cfg := sim.DefaultConfig()
	cfg.Seed, cfg.Duration, cfg.CPUs = f.seed, sim.Time(f.duration), f.cpus
	img, err := sim.NewImage(p, cfg.Cost)
	if err != nil {
		return usagef("%v", err)
	}
	vm, err := sim.New(img, cfg)
	if err != nil {
		return usagef("%v", err)
	}
	res := vm.Run()
	truth := res.Truth.Profile(img)
	rep := newReport(p.Name, cfg, res, map[string]*profile.Profile{"truth": truth})
	if f.out != "" {
		if err := writeFiles(f.out, "truth", truth); err != nil {
			return err
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
		if f.out != "" {
			fmt.Fprintf(w, "\nwrote %s and %s (open with: go tool pprof -http=: %[1]s)\n",
				filepath.Join(f.out, "truth.pb.gz"), filepath.Join(f.out, "truth.folded"))
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

func cmdWorkloads(args []string, stdout io.Writer) error {
	if len(args) > 0 {
		return usagef("workloads: unexpected argument %q", args[0])
	}
	for _, n := range workloads.Names() {
		p, err := workloads.Get(n)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%-10s %s\n", n, p.Description)
	}
	return nil
}
