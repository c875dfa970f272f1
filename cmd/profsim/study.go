package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/profsim/profsim/study"
)

func cmdStudy(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		for _, e := range study.Experiments() {
			fmt.Fprintf(stdout, "%-20s %-3s %s\n", e.Name, e.Claim, e.Title)
		}
		return nil
	}
	name := args[0]
	e, ok := study.Lookup(name)
	if !ok {
		if name == "-h" || name == "--help" || name == "-help" {
			fmt.Fprintln(stdout, "Usage: profsim study [NAME [--out DIR] [--seeds N] [--full]]")
			fmt.Fprintln(stdout, "\nRuns one paper reproduction and writes NAME.csv, NAME.md and NAME.svg; 'profsim study NAME --help' for its flags.\nThe claim tests: go test ./study -run TestM1 -v (see REPRODUCTIONS.md).\n\nExperiments:")
			for _, e := range study.Experiments() {
				fmt.Fprintf(stdout, "  %-20s %-3s %s\n", e.Name, e.Claim, e.Title)
			}
			return errHelp
		}
		return usagef("study: unknown experiment %q (see 'profsim study')", name)
	}
	fs := flag.NewFlagSet("study", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "out/study", "directory for NAME.csv, NAME.md and NAME.svg")
	seeds := fs.Int("seeds", 3, "seeds per configuration (1, 2, …)")
	full := fs.Bool("full", false, "the paper-sized version (slow)")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, "Usage: profsim study NAME [--out DIR] [--seeds N] [--full]")
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return errHelp
		}
		return usagef("study: %v", err)
	}
	if fs.NArg() > 0 {
		return usagef("study: unexpected argument %q", fs.Arg(0))
	}
	if *seeds < 1 {
		return usagef("study: --seeds %d must be ≥ 1", *seeds)
	}
	o := study.Options{Full: *full}
	for s := 1; s <= *seeds; s++ {
		o.Seeds = append(o.Seeds, uint64(s))
	}
	start := time.Now()
	r, err := e.Run(o)
	if err != nil {
		return err
	}
	if err := r.Write(*out, name); err != nil {
		return fmt.Errorf("study %s: writing results: %w", name, err)
	}
	fmt.Fprint(stdout, r.Table.Markdown())
	fmt.Fprintf(stdout, "\nwrote %s.csv, %s.md and %s.svg in %s (%v)\n", name, name, name, *out, time.Since(start).Round(time.Millisecond))
	return nil
}
