package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/profsim/profsim/sweep/runs"
)

// cmdSweepMerge merges the output directories of a grid's shards into
// one (runs.Merge).
func cmdSweepMerge(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sweep merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "", "directory to write the merged results and tables to")
	allowMixed := fs.Bool("allow-mixed-builds", false, "merge results that different builds of profsim made (each record keeps its build)")
	dirs, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, sweepUsage)
			return errHelp
		}
		return usagef("sweep merge: %v", err)
	}
	n, err := runs.Merge(dirs, *out, *allowMixed, stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "profsim sweep merge: %d points from %d directories into %s\n", n, len(dirs), *out)
	return nil
}

// cmdSweepStatus says how far a sweep directory is (runs.Status).
func cmdSweepStatus(args []string, stdout io.Writer) error {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			fmt.Fprint(stdout, sweepUsage)
			return errHelp
		}
		return usagef("sweep status: want one directory (profsim sweep status DIR)")
	}
	r, err := runs.Status(args[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "grid %s: %d points; this directory runs shard %s: %d points\n", r.Name, r.GridSize, r.Shard, r.InShard)
	fmt.Fprintf(stdout, "results of %s\n", r.Build)
	fmt.Fprintf(stdout, "done %d, failed %d, missing %d\n", r.Done, r.Failed, len(r.Missing))
	if len(r.Missing) > 0 {
		fmt.Fprintf(stdout, "missing points: %s\n", r.MissingList())
	}
	if r.Stale > 0 {
		fmt.Fprintf(stdout, "%d runs of points not in this grid (an earlier grid's; kept, not in the tables)\n", r.Stale)
	}
	return nil
}
