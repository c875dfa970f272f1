package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
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
	allowMixed := fs.Bool("allow-mixed-builds", false, "merge results that different builds of profsim made (each record keeps its build)")
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
	var manifests []*sweep.Manifest
	// source is where a point's record is: a directory's index and the
	// point's key there.
	type source struct {
		ix  *sweep.Index
		dir string
		key string
	}
	byPoint := map[int][]source{}
	failedOnly := map[int]source{}
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
		} else if m.Build != ref.Build && !*allowMixed {
			return usagef("sweep merge: %s holds results of %s and %s of %s: results of different code must not mix "+
				"(run the shards with one build, or add --allow-mixed-builds to merge them anyway; each record keeps its build)",
				dirs[0], describeBuild(ref.Build), dir, describeBuild(m.Build))
		} else if why := sameGrid(ref, m, m.Build != ref.Build); why != "" {
			return usagef("sweep merge: %s and %s hold different grids (%s)", dirs[0], dir, why)
		}
		manifests = append(manifests, m)
		ix, err := sweep.ReadIndex(filepath.Join(dir, sweep.ResultsFile))
		if err != nil {
			return usagef("sweep merge: %v", err)
		}
		got, _ := sweep.Collect(shardOf(m), ix)
		for _, l := range got {
			if l.Status == sweep.StatusOK {
				byPoint[l.Point] = append(byPoint[l.Point], source{ix, dir, l.Key})
			} else {
				failedOnly[l.Point] = source{ix, dir, l.Key}
			}
		}
	}
	var chosen []source
	var missing, dup []string
	for _, p := range ref.Points {
		f := byPoint[p.Point]
		switch {
		case len(f) == 1:
			chosen = append(chosen, f[0])
		case len(f) > 1:
			var where []string
			for _, x := range f {
				where = append(where, x.dir)
			}
			dup = append(dup, fmt.Sprintf("%d (in %s)", p.Point, strings.Join(where, ", ")))
		default:
			if x, ok := failedOnly[p.Point]; ok {
				chosen = append(chosen, x)
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
	m.Build = mergedBuild(manifests)
	m.Points = slices.Clone(ref.Points)
	for i := range m.Points {
		m.Points[i].Key = chosen[i].key // each build's key for its point
	}
	lock, err := sweep.LockDir(*out, "profsim sweep merge")
	if err != nil {
		return lockError("sweep merge", err)
	}
	defer lock.Unlock()
	// The merged results: each point's record, in point order.
	err = sweep.WriteAtomic(filepath.Join(*out, sweep.ResultsFile), func(w io.Writer) error {
		for i, p := range m.Points {
			r, err := chosen[i].ix.Record(p.Key)
			if err != nil {
				return usagef("%v", err) // a record that does not decode
			}
			r.Point, r.Coords = p.Point, p.Coords
			line, err := json.Marshal(r)
			if err != nil {
				return err
			}
			if _, err := w.Write(append(line, '\n')); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := sweep.WriteManifest(*out, &m); err != nil {
		return err
	}
	ix, err := sweep.ReadIndex(filepath.Join(*out, sweep.ResultsFile))
	if err != nil {
		return err
	}
	got, _ := sweep.Collect(&m, ix)
	if err := writeSweepTables(*out, &m, got, ix, nil); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "profsim sweep merge: %d points from %d directories into %s\n", len(got), len(dirs), *out)
	return nil
}

// shardOf is m with only the points of the shard its directory ran.
func shardOf(m *sweep.Manifest) *sweep.Manifest {
	shard, _ := sweep.ParseShard(m.Shard, 0, nil)
	mine := *m
	mine.Points = slices.DeleteFunc(slices.Clone(m.Points), func(p sweep.ManifestPoint) bool { return !shard.Contains(p.Point) })
	return &mine
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
// Manifests of different builds have different keys: byCoords compares
// their points' coordinates instead.
func sameGrid(a, b *sweep.Manifest, byCoords bool) string {
	if !slices.Equal(a.Axes, b.Axes) {
		return fmt.Sprintf("axes %s vs %s", strings.Join(a.Axes, ","), strings.Join(b.Axes, ","))
	}
	if len(a.Points) != len(b.Points) {
		return fmt.Sprintf("%d vs %d points", len(a.Points), len(b.Points))
	}
	for i := range a.Points {
		if byCoords {
			ca, _ := a.Points[i].Coords.MarshalJSON()
			cb, _ := b.Points[i].Coords.MarshalJSON()
			if !bytes.Equal(ca, cb) {
				return fmt.Sprintf("point %d is %s vs %s", i, ca, cb)
			}
			continue
		}
		if a.Points[i].Key != b.Points[i].Key {
			return fmt.Sprintf("point %d has key %s vs %s: a different grid, settings or profsim version", i, a.Points[i].Key, b.Points[i].Key)
		}
	}
	return ""
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
	ix, err := sweep.ReadIndex(filepath.Join(dir, sweep.ResultsFile))
	if err != nil {
		return usagef("sweep status: %v", err)
	}
	mine := shardOf(m)
	got, missing := sweep.Collect(mine, ix)
	ok, failed := 0, 0
	for _, l := range got {
		if l.Status == sweep.StatusOK {
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
	for _, k := range ix.Keys() {
		if !keys[k] {
			stale++
		}
	}
	fmt.Fprintf(stdout, "grid %s: %d points; this directory runs shard %s: %d points\n", m.Name, len(m.Points), m.Shard, len(mine.Points))
	fmt.Fprintf(stdout, "results of %s\n", buildNote(m))
	fmt.Fprintf(stdout, "done %d, failed %d, missing %d\n", ok, failed, len(missing))
	if len(missing) > 0 {
		var ms []string
		for _, p := range missing {
			ms = append(ms, strconv.Itoa(p))
		}
		fmt.Fprintf(stdout, "missing points: %s\n", listSome(ms))
	}
	if stale > 0 {
		fmt.Fprintf(stdout, "%d runs of points not in this grid (an earlier grid's; kept, not in the tables)\n", stale)
	}
	return nil
}
