package runs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/profsim/profsim/sweep"
)

// IncompleteError is a merge whose directories do not hold every point
// of the grid exactly once: nothing was written.
type IncompleteError struct{ Err error }

func (e *IncompleteError) Error() string { return e.Err.Error() }
func (e *IncompleteError) Unwrap() error { return e.Err }

// Merge merges dirs, the output directories of a grid's shards, into
// out: every point present exactly once (else an *IncompleteError), its
// records in point order, the tables and the summary, printed to
// summary if it is not nil. It returns the number of points merged.
// allowMixed merges the results of different builds of profsim.
func Merge(dirs []string, out string, allowMixed bool, summary io.Writer) (int, error) {
	switch {
	case len(dirs) == 0:
		return 0, inputf("sweep merge: no directories (profsim sweep merge DIR... --out DIR)")
	case out == "":
		return 0, inputf("sweep merge: --out DIR is required")
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
	// The grid's points as the directories' manifests give them, each
	// with the directory that gave it first, and the workload files'
	// hashes.
	type listed struct {
		p     sweep.ManifestPoint
		dir   string
		build string
	}
	points := map[int]listed{}
	workloads := map[string]string{}
	workloadDir := map[string]string{}
	for _, dir := range dirs {
		if abs(dir) == abs(out) {
			return 0, inputf("sweep merge: --out %s is also an input", out)
		}
		m, err := sweep.ReadManifest(dir)
		if err != nil {
			return 0, inputf("sweep merge: %v", err)
		}
		if ref == nil {
			ref = m
		} else if m.Build != ref.Build && !allowMixed {
			return 0, inputf("sweep merge: %s holds results of %s and %s of %s: results of different code must not mix "+
				"(run the shards with one build, or add --allow-mixed-builds to merge them anyway; each record keeps its build)",
				dirs[0], describeBuild(ref.Build), dir, describeBuild(m.Build))
		} else if why := sameGrid(ref, m, m.Build != ref.Build); why != "" {
			return 0, inputf("sweep merge: %s and %s hold different grids (%s)", dirs[0], dir, why)
		}
		manifests = append(manifests, m)
		for ref, h := range m.Workloads {
			if prev, ok := workloads[ref]; ok && prev != h {
				return 0, inputf("sweep merge: %s and %s hold different grids (workload %s changed between them)", workloadDir[ref], dir, ref)
			}
			workloads[ref], workloadDir[ref] = h, dir
		}
		mine := shardOf(m)
		for _, p := range mine.Points {
			q, ok := points[p.Point]
			switch {
			case !ok:
				points[p.Point] = listed{p, dir, m.Build}
			case q.build == m.Build && q.p.Key != p.Key:
				return 0, inputf("sweep merge: %s and %s hold different grids (point %d has key %s vs %s: a different grid or settings)", q.dir, dir, p.Point, q.p.Key, p.Key)
			case q.build != m.Build:
				// Other builds' keys differ: the coordinates must not.
				ca, _ := q.p.Coords.MarshalJSON()
				cb, _ := p.Coords.MarshalJSON()
				if !bytes.Equal(ca, cb) {
					return 0, inputf("sweep merge: %s and %s hold different grids (point %d is %s vs %s)", q.dir, dir, p.Point, ca, cb)
				}
			}
		}
		ix, err := sweep.ReadIndex(filepath.Join(dir, sweep.ResultsFile))
		if err != nil {
			return 0, inputf("sweep merge: %v", err)
		}
		got, _ := sweep.Collect(mine, ix)
		for _, l := range got {
			if l.Status == sweep.StatusOK {
				byPoint[l.Point] = append(byPoint[l.Point], source{ix, dir, l.Key})
			} else {
				failedOnly[l.Point] = source{ix, dir, l.Key}
			}
		}
	}
	m := *ref
	m.Shard = sweep.Shard{}.String()
	m.Size = ref.GridSize()
	m.Workloads = workloads
	m.Points = nil
	var chosen []source
	var missing, dup []string
	for i := range m.Size {
		f := byPoint[i]
		switch {
		case len(f) == 1:
			chosen = append(chosen, f[0])
		case len(f) > 1:
			var where []string
			for _, x := range f {
				where = append(where, x.dir)
			}
			dup = append(dup, fmt.Sprintf("%d (in %s)", i, strings.Join(where, ", ")))
			continue
		default:
			if x, ok := failedOnly[i]; ok {
				chosen = append(chosen, x)
			} else {
				missing = append(missing, strconv.Itoa(i))
				continue
			}
		}
		m.Points = append(m.Points, points[i].p)
	}
	if len(missing) > 0 || len(dup) > 0 {
		var parts []string
		if len(missing) > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d points missing: %s (a shard not run or not finished? 'profsim sweep status DIR')",
				len(missing), m.Size, listSome(missing)))
		}
		if len(dup) > 0 {
			parts = append(parts, fmt.Sprintf("%d points in more than one directory: %s", len(dup), listSome(dup)))
		}
		return 0, &IncompleteError{fmt.Errorf("sweep merge: %s; nothing written", strings.Join(parts, "; "))}
	}
	m.Build = mergedBuild(manifests)
	for i := range m.Points {
		m.Points[i].Key = chosen[i].key // each build's key for its point
	}
	if len(m.Points) > 0 {
		m.FirstKey = m.Points[0].Key // point 0's as merged (another build's, mixed)
	}
	lock, err := sweep.LockDir(out, "profsim sweep merge")
	if err != nil {
		return 0, lockError("sweep merge", err)
	}
	defer lock.Unlock()
	// The merged results: each point's record, in point order.
	err = sweep.WriteAtomic(filepath.Join(out, sweep.ResultsFile), func(w io.Writer) error {
		for i, p := range m.Points {
			r, err := chosen[i].ix.Record(p.Key)
			if err != nil {
				return inputf("%v", err) // a record that does not decode
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
		return 0, err
	}
	if err := sweep.WriteManifest(out, &m); err != nil {
		return 0, err
	}
	ix, err := sweep.ReadIndex(filepath.Join(out, sweep.ResultsFile))
	if err != nil {
		return 0, err
	}
	got, _ := sweep.Collect(&m, ix)
	if err := writeTables(out, &m, got, ix, nil); err != nil {
		return 0, err
	}
	if err := writeSummary(out, &m, summary); err != nil {
		return 0, err
	}
	return len(got), nil
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

// sameGrid says how two manifests' grids differ ("" if they do not); the
// keys of the points both list are compared as merge reads them.
// Manifests of different builds (mixed) have different keys: point 0's
// is not compared.
func sameGrid(a, b *sweep.Manifest, mixed bool) string {
	switch {
	case !slices.Equal(a.Axes, b.Axes):
		return fmt.Sprintf("axes %s vs %s", strings.Join(a.Axes, ","), strings.Join(b.Axes, ","))
	case a.GridSize() != b.GridSize():
		return fmt.Sprintf("%d vs %d points", a.GridSize(), b.GridSize())
	case a.Grid != b.Grid:
		return "different settings or levels"
	case !mixed && a.FirstKey != b.FirstKey:
		return fmt.Sprintf("point 0 has key %s vs %s: a different grid or settings", a.FirstKey, b.FirstKey)
	}
	return ""
}

// StatusReport is how far a sweep directory is.
type StatusReport struct {
	// Name is the grid's name, GridSize its points; the directory runs
	// shard Shard, InShard points of them.
	Name              string
	GridSize, InShard int
	Shard             string
	// Done and Failed count the shard's points with a run that
	// succeeded or failed; Missing are the points with none.
	Done, Failed int
	Missing      []int
	// Stale counts the runs of points not in this grid (an earlier
	// grid's).
	Stale int
	// Build is the build of the directory's results against this
	// profsim's, as a sentence.
	Build string
}

// Status reads dir's manifest and results and says how far it is.
func Status(dir string) (*StatusReport, error) {
	m, err := sweep.ReadManifest(dir)
	if err != nil {
		return nil, inputf("sweep status: %v", err)
	}
	ix, err := sweep.ReadIndex(filepath.Join(dir, sweep.ResultsFile))
	if err != nil {
		return nil, inputf("sweep status: %v", err)
	}
	mine := shardOf(m)
	got, missing := sweep.Collect(mine, ix)
	r := &StatusReport{Name: m.Name, GridSize: m.GridSize(), InShard: len(mine.Points), Shard: m.Shard, Missing: missing, Build: buildNote(m)}
	for _, l := range got {
		if l.Status == sweep.StatusOK {
			r.Done++
		} else {
			r.Failed++
		}
	}
	keys := map[string]bool{}
	for _, p := range m.Points {
		keys[p.Key] = true
	}
	for _, k := range ix.Keys() {
		if !keys[k] {
			r.Stale++
		}
	}
	return r, nil
}

// MissingList lists the missing points, the first 20 of them.
func (r *StatusReport) MissingList() string {
	var ms []string
	for _, p := range r.Missing {
		ms = append(ms, strconv.Itoa(p))
	}
	return listSome(ms)
}
