package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/profsim/profsim/sweep"
)

// cmdSweepMerge merges the output directories of a grid's shards into
// one: every point present exactly once, or a report of which are not.
func cmdSweepMerge(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sweep merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "", "directory to write the merged results and tables to")
	dirs, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, sweepUsage)
			return errHelp
		}
		return usagef("sweep merge: %v", err)
	}
	switch {
	case len(dirs) == 0:
		return usagef("sweep merge: no directories (profsim sweep merge DIR... --out DIR)")
	case *out == "":
		return usagef("sweep merge: --out DIR is required")
	}
	var ref *sweep.Manifest
	type found struct {
		rec sweep.Record
		dir string
	}
	byPoint := map[int][]found{}
	failedOnly := map[int]found{}
	for _, dir := range dirs {
		if abs(dir) == abs(*out) {
			return usagef("sweep merge: --out %s is also an input", *out)
		}
		m, err := sweep.ReadManifest(dir)
		if err != nil {
			return usagef("sweep merge: %v", err)
		}
		if ref == nil {
			ref = m
		} else if why := sameGrid(ref, m); why != "" {
			return usagef("sweep merge: %s and %s hold different grids (%s)", dirs[0], dir, why)
		}
		recs, err := sweep.ReadResults(filepath.Join(dir, sweep.ResultsFile))
		if err != nil {
			return err
		}
		mine := *m
		shard, _ := sweep.ParseShard(m.Shard, 0, nil)
		mine.Points = slices.DeleteFunc(slices.Clone(m.Points), func(p sweep.ManifestPoint) bool { return !shard.Contains(p.Point) })
		got, _ := sweep.Collect(&mine, recs)
		for _, r := range got {
			if r.Status == sweep.StatusOK {
				byPoint[r.Point] = append(byPoint[r.Point], found{r, dir})
			} else {
				failedOnly[r.Point] = found{r, dir}
			}
		}
	}
	var merged []sweep.Record
	var missing, dup []string
	for _, p := range ref.Points {
		f := byPoint[p.Point]
		switch {
		case len(f) == 1:
			merged = append(merged, f[0].rec)
		case len(f) > 1:
			var where []string
			for _, x := range f {
				where = append(where, x.dir)
			}
			dup = append(dup, fmt.Sprintf("%d (in %s)", p.Point, strings.Join(where, ", ")))
		default:
			if x, ok := failedOnly[p.Point]; ok {
				merged = append(merged, x.rec)
			} else {
				missing = append(missing, strconv.Itoa(p.Point))
			}
		}
	}
	if len(missing) > 0 || len(dup) > 0 {
		var parts []string
		if len(missing) > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d points missing: %s (a shard not run or not finished? 'profsim sweep status DIR')",
				len(missing), len(ref.Points), listSome(missing)))
		}
		if len(dup) > 0 {
			parts = append(parts, fmt.Sprintf("%d points in more than one directory: %s", len(dup), listSome(dup)))
		}
		return exitCodeError{1, fmt.Errorf("sweep merge: %s; nothing written", strings.Join(parts, "; "))}
	}
	m := *ref
	m.Shard = sweep.Shard{}.String()
	if err := writeMerged(*out, &m, merged); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "profsim sweep merge: %d points from %d directories into %s\n", len(merged), len(dirs), *out)
	return nil
}

func abs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}

// listSome lists up to 20 items.
func listSome(items []string) string {
	if len(items) <= 20 {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:20], ", ") + fmt.Sprintf(", … (%d more)", len(items)-20)
}

// sameGrid says how two manifests' grids differ ("" if they do not).
func sameGrid(a, b *sweep.Manifest) string {
	if !slices.Equal(a.Axes, b.Axes) {
		return fmt.Sprintf("axes %s vs %s", strings.Join(a.Axes, ","), strings.Join(b.Axes, ","))
	}
	if len(a.Points) != len(b.Points) {
		return fmt.Sprintf("%d vs %d points", len(a.Points), len(b.Points))
	}
	for i := range a.Points {
		if a.Points[i].Key != b.Points[i].Key {
			return fmt.Sprintf("point %d has key %s vs %s: a different grid, settings or profsim version", i, a.Points[i].Key, b.Points[i].Key)
		}
	}
	return ""
}

// writeMerged writes a merged directory: the records in point order, the
// manifest and the tables, each file atomically.
func writeMerged(dir string, m *sweep.Manifest, recs []sweep.Record) error {
	if err := mkdirOut(dir); err != nil {
		return err
	}
	var b bytes.Buffer
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := sweep.WriteFileAtomic(filepath.Join(dir, sweep.ResultsFile), b.Bytes()); err != nil {
		return err
	}
	if err := sweep.WriteManifest(dir, m); err != nil {
		return err
	}
	return writeSweepTables(dir, m, recs)
}

// cmdSweepStatus says how far a sweep directory is.
func cmdSweepStatus(args []string, stdout io.Writer) error {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			fmt.Fprint(stdout, sweepUsage)
			return errHelp
		}
		return usagef("sweep status: want one directory (profsim sweep status DIR)")
	}
	dir := args[0]
	m, err := sweep.ReadManifest(dir)
	if err != nil {
		return usagef("sweep status: %v", err)
	}
	recs, err := sweep.ReadResults(filepath.Join(dir, sweep.ResultsFile))
	if err != nil {
		return err
	}
	shard, err := sweep.ParseShard(m.Shard, 0, nil)
	if err != nil {
		return fmt.Errorf("%s: shard: %v", dir, err)
	}
	mine := *m
	mine.Points = slices.DeleteFunc(slices.Clone(m.Points), func(p sweep.ManifestPoint) bool { return !shard.Contains(p.Point) })
	got, missing := sweep.Collect(&mine, recs)
	ok, failed := 0, 0
	for _, r := range got {
		if r.Status == sweep.StatusOK {
			ok++
		} else {
			failed++
		}
	}
	keys := map[string]bool{}
	for _, p := range m.Points {
		keys[p.Key] = true
	}
	stale := 0
	for _, r := range recs {
		if !keys[r.Key] {
			stale++
		}
	}
	fmt.Fprintf(stdout, "grid %s: %d points; this directory runs shard %s: %d points\n", m.Name, len(m.Points), m.Shard, len(mine.Points))
	fmt.Fprintf(stdout, "done %d, failed %d, missing %d\n", ok, failed, len(missing))
	if len(missing) > 0 {
		var ms []string
		for _, p := range missing {
			ms = append(ms, strconv.Itoa(p))
		}
		fmt.Fprintf(stdout, "missing points: %s\n", listSome(ms))
	}
	if stale > 0 {
		fmt.Fprintf(stdout, "%d records of points not in this grid (an earlier grid's; kept, not in the tables)\n", stale)
	}
	return nil
}

func mkdirOut(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usagef("--out: %v", err)
	}
	return nil
}
