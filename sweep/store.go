package sweep

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// The files of a sweep's output directory.
const (
	ResultsFile  = "results.jsonl"
	ManifestFile = "sweep.json"
)

// Manifest describes the grid a directory's results belong to: every
// point of the whole grid with its key, and the shard this directory ran.
// merge and status read it; it is rewritten (atomically) at the start of
// every sweep into the directory.
type Manifest struct {
	Name  string `json:"name"`
	Shard string `json:"shard"`
	// Axes are the grid's axis names, the coordinates' columns.
	Axes   []string        `json:"axes"`
	Points []ManifestPoint `json:"points"`
}

// ManifestPoint is one point of the grid.
type ManifestPoint struct {
	Point  int    `json:"point"`
	Key    string `json:"key"`
	Coords Coords `json:"coords"`
}

// Store is a sweep's results file, opened for appending.
type Store struct {
	dir string
	f   *os.File
	// latest is each key's last record.
	latest map[string]Record
	// Repaired is the number of bytes of a truncated last line that
	// OpenStore discarded.
	Repaired int
}

// OpenStore opens (creating if needed) dir's results file, reads the
// records already there and cuts off a truncated last line — the trace of
// a sweep killed while writing — so that its run is redone.
func OpenStore(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, ResultsFile)
	recs, good, err := readRecords(path)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	s := &Store{dir: dir, f: f, latest: map[string]Record{}}
	if st.Size() > good {
		s.Repaired = int(st.Size() - good)
		if err := f.Truncate(good); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: cutting off a truncated last line: %v", path, err)
		}
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	for _, r := range recs {
		s.latest[r.Key] = r
	}
	return s, nil
}

// Done reports whether key has a successful record.
func (s *Store) Done(key string) bool {
	r, ok := s.latest[key]
	return ok && r.Status == StatusOK
}

// Latest is key's last record.
func (s *Store) Latest(key string) (Record, bool) {
	r, ok := s.latest[key]
	return r, ok
}

// Append writes r as one line, in one write, and syncs it to disk: a
// crash leaves either the whole line or a truncated one that OpenStore
// discards.
func (s *Store) Append(r Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if _, err := s.f.Write(b); err != nil {
		return fmt.Errorf("%s: %v", filepath.Join(s.dir, ResultsFile), err)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("%s: %v", filepath.Join(s.dir, ResultsFile), err)
	}
	s.latest[r.Key] = r
	return nil
}

// Close closes the results file.
func (s *Store) Close() error { return s.f.Close() }

// ReadResults reads a results file's records, in file order, ignoring a
// truncated last line.
func ReadResults(path string) ([]Record, error) {
	recs, _, err := readRecords(path)
	return recs, err
}

// readRecords reads path's records and the length of its well-formed
// prefix. Only the last line may be malformed (a write cut short); a
// malformed line before it is an error, since a record that was once
// whole must never be silently dropped.
func readRecords(path string) ([]Record, int64, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	var recs []Record
	var good int64
	line := 0
	for len(data) > 0 {
		line++
		i := bytes.IndexByte(data, '\n')
		if i < 0 { // no newline: a write cut short
			return recs, good, nil
		}
		var r Record
		if err := json.Unmarshal(data[:i], &r); err != nil || r.Key == "" {
			if i == len(data)-1 {
				return recs, good, nil // a damaged last line
			}
			if err == nil {
				err = errors.New("no key")
			}
			return nil, 0, fmt.Errorf("%s:%d: a corrupt record before the last line (%v); move the file aside to start over", path, line, err)
		}
		recs = append(recs, r)
		good += int64(i + 1)
		data = data[i+1:]
	}
	return recs, good, nil
}

// WriteFileAtomic writes data to path through a temporary file in the
// same directory, renamed into place after a successful sync and close:
// readers see the old file or the new one, never a part.
func WriteFileAtomic(path string, data []byte) error {
	return WriteAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteAtomic is WriteFileAtomic with the content written by fn.
func WriteAtomic(path string, fn func(w io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	bw := bufio.NewWriter(tmp)
	err = fn(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
		return fmt.Errorf("writing %s: %v", path, err)
	}
	return nil
}

// WriteManifest writes dir's manifest atomically.
func WriteManifest(dir string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, ManifestFile), append(b, '\n'))
}

// ReadManifest reads dir's manifest.
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no %s: not a sweep output directory", dir, ManifestFile)
		}
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &m, nil
}

// Collect picks, for each point of m in order, its record from recs: the
// last successful one, else the last failed one. Missing lists the points
// with no record.
func Collect(m *Manifest, recs []Record) (got []Record, missing []int) {
	latest := map[string]Record{}
	for _, r := range recs {
		if prev, ok := latest[r.Key]; ok && prev.Status == StatusOK && r.Status != StatusOK {
			continue
		}
		latest[r.Key] = r
	}
	for _, p := range m.Points {
		r, ok := latest[p.Key]
		if !ok {
			missing = append(missing, p.Point)
			continue
		}
		r.Point, r.Coords = p.Point, p.Coords
		got = append(got, r)
	}
	return got, missing
}
