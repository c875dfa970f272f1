package runs

// A sweep's tidy tables: runs.csv (one row per run and profile) and
// methods.csv (one row per run, profile and method), built from the
// records alone, in point order, so that they do not depend on --jobs,
// on shards, or on the order runs finished in.

import (
	"encoding/csv"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/profsim/profsim/report"
	"github.com/profsim/profsim/sweep"
)

// axisColumns are the coordinate columns: each axis by its name, its
// values as written in the grid; an axis all of whose values are
// durations ("1ms") also gets NAME_ns, the value in nanoseconds.
func axisColumns(m *sweep.Manifest) (names []string, ns []bool) {
	if m.Durations != nil {
		return m.Axes, m.Durations
	}
	for _, a := range m.Axes {
		isDur := len(m.Points) > 0
		for _, p := range m.Points {
			v := coordValue(p.Coords, a)
			if _, err := time.ParseDuration(v); err != nil || v == "0" {
				isDur = false
				break
			}
		}
		names = append(names, a)
		ns = append(ns, isDur)
	}
	return names, ns
}

func coordValue(cs sweep.Coords, name string) string {
	for _, c := range cs {
		if c.Name == name {
			return c.Value.String()
		}
	}
	return ""
}

// pointCells are a record's leading cells, named: point, key, status,
// error, then the coordinates.
func pointCells(r sweep.Record, axes []string, ns []bool) (names, values []string) {
	names = []string{"point", "key", "status", "error"}
	values = []string{strconv.Itoa(r.Point), r.Key, r.Status, r.Error}
	for i, a := range axes {
		v := coordValue(r.Coords, a)
		names, values = append(names, a), append(values, v)
		if ns[i] {
			d, _ := time.ParseDuration(v)
			names, values = append(names, a+"_ns"), append(values, strconv.FormatInt(int64(d), 10))
		}
	}
	return names, values
}

// csvLine encodes fields as one CSV line without a line end.
func csvLine(fields []string) (string, error) {
	var b strings.Builder
	cw := csv.NewWriter(&b)
	if err := cw.Write(fields); err != nil {
		return "", err
	}
	cw.Flush()
	return strings.TrimSuffix(b.String(), "\n"), cw.Error()
}

// tableRecord is a record as the tables read it: the result decoded in
// the same pass, only what the tables use.
type tableRecord struct {
	sweep.Record
	Result report.Lean `json:"result"`
}

// report is the record's result as a report (nil for a failed run).
func (t *tableRecord) report() *report.Report {
	if t.Status != sweep.StatusOK {
		return nil
	}
	return t.Result.Report()
}

// rowCache keeps the rendered rows of runs made by this process, up to a
// byte budget, so that the tables need not decode their results again;
// past the budget, runs are decoded from results.jsonl. The budget bounds
// a sweep's memory whatever its size.
type rowCache struct {
	mu     sync.Mutex
	budget int64
	used   int64
	rows   map[string]*report.Rows
}

// rowCacheBudget is the rendered rows a sweep keeps in memory: 256 MiB,
// the tables of about 5 000 runs of a stand-in with three profilers.
const rowCacheBudget = 256 << 20

func newRowCache(budget int64) *rowCache {
	return &rowCache{budget: budget, rows: map[string]*report.Rows{}}
}

func (c *rowCache) put(key string, rr *report.Rows) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := rr.Size(); c.used+n <= c.budget {
		c.rows[key] = rr
		c.used += n
	}
}

func (c *rowCache) get(key string) *report.Rows {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rows[key]
}

// writeTables writes dir's runs.csv and methods.csv for the located
// points, in point order, each file atomically: a run's rows come from
// cache if it holds them, else from its record in the results file,
// decoded in one pass (none kept).
func writeTables(dir string, m *sweep.Manifest, locs []sweep.Located, ix *sweep.Index, cache *rowCache) error {
	axes, ns := axisColumns(m)
	leadNames, _ := pointCells(sweep.Record{}, axes, ns)
	return sweep.WriteAtomic(filepath.Join(dir, "runs.csv"), func(rw io.Writer) error {
		return sweep.WriteAtomic(filepath.Join(dir, "methods.csv"), func(mw io.Writer) error {
			if err := writeHeaderLine(rw, append(slices.Clone(leadNames), report.RunColumns()...)); err != nil {
				return err
			}
			if err := writeHeaderLine(mw, append(slices.Clone(leadNames), report.MethodColumns()...)); err != nil {
				return err
			}
			for _, l := range locs {
				rr := cache.get(l.Key)
				status, errText := l.Status, ""
				if rr == nil || l.Status != sweep.StatusOK {
					var t tableRecord
					if err := ix.Decode(l.Key, &t); err != nil {
						return inputf("%v", err) // a record that does not decode
					}
					status, errText = t.Status, t.Error
					var err error
					if rr, err = report.SweepRows(t.report()); err != nil {
						return err
					}
				}
				_, cells := pointCells(sweep.Record{Point: l.Point, Key: l.Key, Coords: l.Coords, Status: status, Error: errText}, axes, ns)
				lead, err := csvLine(cells)
				if err != nil {
					return err
				}
				for _, f := range []struct {
					w     io.Writer
					lines []string
				}{{rw, rr.Runs}, {mw, rr.Methods}} {
					for _, line := range f.lines {
						for _, part := range [...]string{lead, ",", line, "\n"} {
							if _, err := io.WriteString(f.w, part); err != nil {
								return err
							}
						}
					}
				}
			}
			return nil
		})
	})
}

// writeHeaderLine writes a CSV header row.
func writeHeaderLine(w io.Writer, names []string) error {
	line, err := csvLine(names)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, line+"\n")
	return err
}
