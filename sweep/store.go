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
	"slices"
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

// Store is a sweep's results file, opened for appending. It holds an
// Index, not the records: a sweep's memory does not grow with its
// results.
type Store struct {
	dir string
	f   *os.File
	ix  *Index
	// Repaired is the number of bytes of a truncated last line that
	// OpenStore discarded.
	Repaired int
}

// OpenStore opens (creating if needed) dir's results file, indexes the
// records already there and cuts off a truncated last line — the trace
// of a sweep killed while writing — so that its run is redone.
func OpenStore(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, ResultsFile)
	ix, err := ReadIndex(path)
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
	s := &Store{dir: dir, f: f, ix: ix}
	if st.Size() > ix.size {
		s.Repaired = int(st.Size() - ix.size)
		if err := f.Truncate(ix.size); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: cutting off a truncated last line: %v", path, err)
		}
	}
	if _, err := f.Seek(ix.size, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

// Done reports whether key has a successful record.
func (s *Store) Done(key string) bool {
	st, ok := s.ix.Status(key)
	return ok && st == StatusOK
}

// Index is the store's index, kept up to date by Append.
func (s *Store) Index() *Index { return s.ix }

// Append writes r as one line, in one write, and syncs it to disk: a
// crash leaves either the whole line or a truncated one that OpenStore
// discards.
func (s *Store) Append(r Record) error {
	b, err := marshalRecord(r)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	path := filepath.Join(s.dir, ResultsFile)
	if _, err := s.f.Write(b); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	s.ix.add(r.Key, r.Status, s.ix.size, len(b)-1)
	s.ix.size += int64(len(b))
	return nil
}

// marshalRecord is json.Marshal(r) without re-encoding the result, which
// the encoder would compact into a copy: the result is checked and
// spliced in as given.
func marshalRecord(r Record) ([]byte, error) {
	res := r.Result
	r.Result = nil
	b, err := json.Marshal(r)
	if err != nil || len(res) == 0 {
		return b, err
	}
	if !json.Valid(res) { // a scan without the copy
		return nil, fmt.Errorf("record %s: the result is not valid JSON", r.Key)
	}
	b = append(b[:len(b)-1], `,"result":`...)
	b = append(b, res...)
	return append(b, '}'), nil
}

// Close closes the results file and the index's reader.
func (s *Store) Close() error {
	s.ix.Close()
	return s.f.Close()
}

// Index locates each key's chosen record in a results file — its last
// successful one, else its last failed one — without holding records.
type Index struct {
	path  string
	r     *os.File // opened by Record, closed by Close
	spans map[string]span
	// size is the length of the file's well-formed prefix.
	size int64
}

type span struct {
	off    int64
	n      int
	status string
}

func (ix *Index) add(key, status string, off int64, n int) {
	if prev, ok := ix.spans[key]; ok && prev.status == StatusOK && status != StatusOK {
		return // a success is not undone by a later failure
	}
	ix.spans[key] = span{off, n, status}
}

// Status is key's chosen record's status.
func (ix *Index) Status(key string) (string, bool) {
	sp, ok := ix.spans[key]
	return sp.status, ok
}

// Keys are the keys with a record, sorted.
func (ix *Index) Keys() []string {
	keys := make([]string, 0, len(ix.spans))
	for k := range ix.spans {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Record reads key's chosen record from the file.
func (ix *Index) Record(key string) (Record, error) {
	var r Record
	err := ix.Decode(key, &r)
	return r, err
}

// Decode reads key's chosen record from the file into v, with
// json.Unmarshal: v may be a struct with Record's fields and its own
// type for the result, decoded in one pass.
func (ix *Index) Decode(key string, v any) error {
	sp, ok := ix.spans[key]
	if !ok {
		return fmt.Errorf("%s: no record of key %s", ix.path, key)
	}
	if ix.r == nil {
		f, err := os.Open(ix.path)
		if err != nil {
			return err
		}
		ix.r = f
	}
	b := make([]byte, sp.n)
	if _, err := ix.r.ReadAt(b, sp.off); err != nil {
		return fmt.Errorf("%s: %v", ix.path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: the record of key %s: %v", ix.path, key, err)
	}
	return nil
}

// Close closes the file Record reads from (if open).
func (ix *Index) Close() error {
	if ix.r == nil {
		return nil
	}
	err := ix.r.Close()
	ix.r = nil
	return err
}

// ReadIndex indexes a results file (a missing file is an empty index). Only
// the last line may be malformed (a write cut short) and is left out; a
// malformed line before it is an error, since a record that was once
// whole must never be silently dropped.
func ReadIndex(path string) (*Index, error) {
	ix := &Index{path: path, spans: map[string]span{}}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return ix, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	var off int64
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if err == io.EOF { // no newline: a write cut short (or the end)
			return ix, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		var head struct {
			Key    string `json:"key"`
			Status string `json:"status"`
		}
		if err := json.Unmarshal(b, &head); err != nil || head.Key == "" {
			if _, perr := br.Peek(1); perr == io.EOF {
				return ix, nil // a damaged last line
			}
			if err == nil {
				err = errors.New("no key")
			}
			return nil, fmt.Errorf("%s:%d: a corrupt record before the last line (%v); move the file aside to start over", path, line, err)
		}
		ix.add(head.Key, head.Status, off, len(b)-1)
		off += int64(len(b))
		ix.size = off
	}
}

// Located is a point of a manifest and the key of its record.
type Located struct {
	Point  int
	Coords Coords
	Key    string
	Status string
}

// Collect locates, for each point of m in order, its record in ix.
// Missing lists the points with none.
func Collect(m *Manifest, ix *Index) (got []Located, missing []int) {
	for _, p := range m.Points {
		st, ok := ix.Status(p.Key)
		if !ok {
			missing = append(missing, p.Point)
			continue
		}
		got = append(got, Located{Point: p.Point, Coords: p.Coords, Key: p.Key, Status: st})
	}
	return got, missing
}

// ReadResults reads a results file's records, in file order, ignoring a
// truncated last line. It holds them all: for small files and tests.
func ReadResults(path string) ([]Record, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var recs []Record
	lines := bytes.SplitAfter(data, []byte("\n"))
	for i, line := range lines {
		if len(line) == 0 || line[len(line)-1] != '\n' {
			break // a write cut short
		}
		var r Record
		if err := json.Unmarshal(line, &r); err != nil {
			if i == len(lines)-2 { // the last line (SplitAfter leaves "" after it)
				break
			}
			return nil, fmt.Errorf("%s:%d: a corrupt record before the last line (%v)", path, i+1, err)
		}
		recs = append(recs, r)
	}
	return recs, nil
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
	mode := os.FileMode(0o644) // CreateTemp's is 0600; keep an existing file's
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	bw := bufio.NewWriter(tmp)
	err = fn(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = tmp.Chmod(mode)
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
