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
	"strconv"
	"sync"
	"time"
)

// The files of a sweep's output directory.
const (
	ResultsFile  = "results.jsonl"
	ManifestFile = "sweep.json"
)

// Manifest describes the grid a directory's results belong to and the
// points of the shard the directory ran, with their keys. It holds no
// more than the shard's points, so a one-point shard of a huge grid
// writes (and merge and status read) a small manifest; what identifies
// the whole grid is Size, Grid and FirstKey. merge and status read it;
// it is rewritten (atomically) at the start of every sweep into the
// directory.
type Manifest struct {
	Name  string `json:"name"`
	Shard string `json:"shard"`
	// Build is the identity of the code that computed the keys (a
	// sweep's keys hold it); empty in a manifest of a profsim that did
	// not record it. A merge of several builds' results lists them all,
	// joined by MixedBuildSep.
	Build string `json:"build,omitempty"`
	// Size is the number of points of the whole grid; 0 in a manifest
	// that lists every point (GridSize).
	Size int `json:"size,omitempty"`
	// Grid is the grid's Digest: equal for the same settings and axes.
	Grid string `json:"grid,omitempty"`
	// FirstKey is point 0's key, whichever shard runs it: a key hashes
	// the resolved config, profsim's identity with it, so directories
	// with equal Grid and FirstKey hold one grid planned alike.
	FirstKey string `json:"first_key,omitempty"`
	// Axes are the grid's axis names, the coordinates' columns.
	Axes []string `json:"axes"`
	// Durations[i] says every level of Axes[i] is a duration (the
	// tables add its value in ns); nil: decide from Points.
	Durations []bool `json:"durations,omitempty"`
	// Workloads are the content hashes of the workload files the points
	// load, by their names as the grid writes them (a relative one is
	// loaded from the grid file's directory).
	Workloads map[string]string `json:"workloads,omitempty"`
	// Points are the points of the directory's shard, in order.
	Points []ManifestPoint `json:"points"`
}

// GridSize is the number of points of the whole grid.
func (m *Manifest) GridSize() int {
	if m.Size > 0 {
		return m.Size
	}
	return len(m.Points)
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
	f   *os.File // opened O_APPEND
	ix  *Index
	// wmu makes a write and the offset after it one step.
	wmu sync.Mutex
	// mu guards the sync state: lastSync is when the file was last
	// synced, dirty says records were appended since, and timer syncs
	// them within SyncInterval when no later Append does.
	mu       sync.Mutex
	lastSync time.Time
	dirty    bool
	timer    *time.Timer
	syncErr  error // a timer's sync failed: the next Append or Sync reports it
	// now is the clock (tests); nil: time.Now.
	now func() time.Time
	// fsync syncs the file (tests: a no-op); nil: f.Sync.
	fsync func() error
	// Repaired is the number of bytes of a truncated last line that
	// OpenStore discarded.
	Repaired int
}

// OpenStore opens (creating if needed) dir's results file, indexes the
// records already there and cuts off a truncated last line — the trace
// of a sweep killed while writing — so that its run is redone.
//
// Records are appended with O_APPEND, each in one write(2): two Stores
// (two processes) appending to one file at once produce whole lines,
// never one record inside another. Two sweeps in one directory still run
// the same points twice and race to cut off a last line: a sweep holds
// the directory's LockDir while its Store is open.
func OpenStore(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, ResultsFile)
	ix, err := ReadIndex(path)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	s := &Store{dir: dir, f: f, ix: ix}
	if err := s.cutTail(); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: cutting off a truncated last line: %v", path, err)
	}
	return s, nil
}

// cutTail cuts off what follows the file's indexed prefix if it is one
// damaged or unfinished line. More than one line there was appended
// since ReadIndex by another writer, and is left alone.
func (s *Store) cutTail() error {
	st, err := s.f.Stat()
	if err != nil {
		return err
	}
	n := st.Size() - s.ix.size
	if n <= 0 {
		return nil
	}
	r, err := os.Open(s.ix.path)
	if err != nil {
		return err
	}
	defer r.Close()
	// Read the tail in pieces: it may be a long damaged line.
	br := bufio.NewReaderSize(io.NewSectionReader(r, s.ix.size, n), 1<<16)
	var read int64
	for {
		chunk, err := br.ReadSlice('\n')
		read += int64(len(chunk))
		if err == nil && read < n {
			return nil // several lines: another writer's
		}
		if err == io.EOF || err == nil {
			break
		}
		if err != bufio.ErrBufferFull {
			return err
		}
	}
	if err := s.f.Truncate(s.ix.size); err != nil {
		return err
	}
	s.Repaired = int(n)
	return nil
}

// MaxRecordBytes bounds a line of a results file: a longer line is not a
// record, so that a damaged file (a tail of zeros after a crash, say) is
// never read whole into memory. A run's record is rarely over a few MiB
// (its result lists each profile's methods and lines).
const MaxRecordBytes = 256 << 20

// recordLimit is MaxRecordBytes (tests lower it).
var recordLimit = MaxRecordBytes

// Done reports whether key has a successful record.
func (s *Store) Done(key string) bool {
	st, ok := s.ix.Status(key)
	return ok && st == StatusOK
}

// Index is the store's index, kept up to date by Append.
func (s *Store) Index() *Index { return s.ix }

// SyncInterval bounds how often Append syncs the results file: at most
// once per interval, and always by Sync and Close. A record is written in
// one write as its run ends, so a killed process leaves whole lines (the
// kernel holds them); an operating-system crash loses at most the records
// of the last interval, whose runs a resume redoes. A sync per record
// cost 0.25 ms of CPU, 1.3 % of a 100 ms-simulated run
// (BenchmarkSweepOverhead).
const SyncInterval = 100 * time.Millisecond

// Append writes r as one line, in one write, and syncs the file if
// SyncInterval has passed since its last sync: a crash leaves whole lines
// and at most a truncated last one, which OpenStore discards.
func (s *Store) Append(r Record) error {
	b, err := marshalRecord(r)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	path := filepath.Join(s.dir, ResultsFile)
	s.wmu.Lock()
	// One write(2) with O_APPEND: the kernel puts the whole record at the
	// file's end, whoever else appends; the file offset after it is the
	// record's end, wherever another writer's records put it.
	_, err = s.f.Write(b)
	var end int64
	if err == nil {
		end, err = s.f.Seek(0, io.SeekCurrent)
	}
	s.wmu.Unlock()
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if err := s.appended(); err != nil {
		return err
	}
	s.ix.add(r.Key, r.Status, end-int64(len(b)), len(b)-1)
	s.ix.size = max(s.ix.size, end)
	return nil
}

// marshalRecord is json.Marshal(r), written field by field so that the
// raw config and result are compacted (which checks them) and
// HTML-escaped as the encoder does, or, for a record of a Job.Compact
// job, copied as they are.
func marshalRecord(r Record) ([]byte, error) {
	b := make([]byte, 0, 256+len(r.Config)+len(r.Result))
	str := func(name, v string) {
		s, _ := json.Marshal(v) // a string always encodes
		b = append(append(append(b, ',', '"'), name...), '"', ':')
		b = append(b, s...)
	}
	raw := func(name string, v json.RawMessage) error {
		b = append(append(append(b, ',', '"'), name...), '"', ':')
		if r.compact {
			b = append(b, v...)
			return nil
		}
		var c, e bytes.Buffer
		if err := json.Compact(&c, v); err != nil {
			return fmt.Errorf("record %s: the %s is not valid JSON: %v", r.Key, name, err)
		}
		json.HTMLEscape(&e, c.Bytes()) // as the encoder escapes a RawMessage
		b = append(b, e.Bytes()...)
		return nil
	}
	key, _ := json.Marshal(r.Key)
	b = append(append(b, `{"key":`...), key...)
	b = strconv.AppendInt(append(b, `,"point":`...), int64(r.Point), 10)
	coords, err := r.Coords.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var c bytes.Buffer
	if err := json.Compact(&c, coords); err != nil {
		return nil, err
	}
	b = append(append(b, `,"coords":`...), c.Bytes()...)
	if len(r.Config) > 0 {
		if err := raw("config", r.Config); err != nil {
			return nil, err
		}
	}
	str("status", r.Status)
	if r.Error != "" {
		str("error", r.Error)
	}
	b = strconv.AppendInt(append(b, `,"wall_ns":`...), r.WallNS, 10)
	if len(r.Result) > 0 {
		if err := raw("result", r.Result); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appended notes a record written: it syncs the file now if
// SyncInterval has passed since the last sync, else makes sure a timer
// syncs it when the interval is over.
func (s *Store) appended() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dirty = true
	wait := SyncInterval - s.clock().Sub(s.lastSync)
	if wait <= 0 {
		return s.syncLocked()
	}
	if s.timer == nil {
		s.timer = time.AfterFunc(wait, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.timer = nil
			s.syncErr = s.syncLocked()
		})
	}
	return s.syncErr
}

// Sync syncs the results file to disk if records were appended since
// its last sync.
func (s *Store) Sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	if err := s.syncLocked(); err != nil {
		return err
	}
	return s.syncErr
}

func (s *Store) syncLocked() error {
	if !s.dirty {
		return nil
	}
	fsync := s.f.Sync
	if s.fsync != nil {
		fsync = s.fsync
	}
	if err := fsync(); err != nil {
		return fmt.Errorf("%s: %v", filepath.Join(s.dir, ResultsFile), err)
	}
	s.dirty, s.lastSync = false, s.clock()
	return nil
}

func (s *Store) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

// Close syncs and closes the results file and the index's reader.
func (s *Store) Close() error {
	err := s.Sync()
	s.ix.Close()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Index locates each key's chosen record in a results file — its last
// successful one, else its last failed one — without holding records.
type Index struct {
	path  string
	r     *os.File // opened by Record, closed by Close
	spans map[string]span
	// size is the length of the file's well-formed prefix when it was
	// read, then the end of the last record Append wrote.
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
	var buf []byte
	for line := 1; ; line++ {
		b, n, err := readLine(br, buf, recordLimit)
		if b != nil {
			buf = b
		}
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
		if b == nil {
			err = fmt.Errorf("a line of %d bytes, over the %d a record may have", n, recordLimit)
		} else if err = json.Unmarshal(b, &head); err == nil && head.Key == "" {
			err = errors.New("no key")
		}
		if err != nil {
			if _, perr := br.Peek(1); perr == io.EOF {
				return ix, nil // a damaged last line
			}
			return nil, fmt.Errorf("%s:%d: a corrupt record before the last line (%v); move the file aside to start over", path, line, err)
		}
		ix.add(head.Key, head.Status, off, len(b)-1)
		off += n
		ix.size = off
	}
}

// readLine reads the next line, with its newline, appending it to buf: n
// is its length, and line is nil if n is over max (the rest is read but
// not kept). err is io.EOF if the file ends before a newline.
func readLine(br *bufio.Reader, buf []byte, max int) (line []byte, n int64, err error) {
	line = buf[:0]
	for {
		chunk, err := br.ReadSlice('\n')
		n += int64(len(chunk))
		if n <= int64(max) {
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if n > int64(max) {
			line = nil
		}
		return line, n, err
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

// WriteAtomic is WriteFileAtomic with the content written by fn. An
// error of fn is returned as it is (an error writing to w names path).
func WriteAtomic(path string, fn func(w io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	name := tmp.Name()
	mode := os.FileMode(0o644) // CreateTemp's is 0600; keep an existing file's
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	bw := bufio.NewWriter(pathWriter{tmp, path})
	err = fn(bw)
	if err == nil {
		err = bw.Flush()
	}
	var ferr error
	if err == nil {
		ferr = tmp.Chmod(mode)
	}
	if err == nil && ferr == nil {
		ferr = tmp.Sync()
	}
	if cerr := tmp.Close(); ferr == nil {
		ferr = cerr
	}
	if err == nil && ferr == nil {
		ferr = os.Rename(name, path)
	}
	if ferr != nil && err == nil {
		err = fmt.Errorf("writing %s: %w", path, ferr)
	}
	if err != nil {
		os.Remove(name)
		return err
	}
	return nil
}

// pathWriter names the file a write failed on.
type pathWriter struct {
	w    io.Writer
	path string
}

func (p pathWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if err != nil {
		err = fmt.Errorf("writing %s: %w", p.path, err)
	}
	return n, err
}

// MixedBuildSep joins the builds of a manifest of merged results made
// by several builds.
const MixedBuildSep = "+"

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
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &m, nil
}

// check checks what merge and status rely on: a shard I/N, and points
// in increasing order, each with a key.
func (m *Manifest) check() error {
	if m.Shard == "auto" {
		return fmt.Errorf("shard %q: want I/N", m.Shard)
	}
	if _, err := ParseShard(m.Shard, 0, nil); err != nil {
		return fmt.Errorf("shard %q: want I/N", m.Shard)
	}
	if m.Size < 0 {
		return fmt.Errorf("size %d: want ≥ 0", m.Size)
	}
	if m.Durations != nil && len(m.Durations) != len(m.Axes) {
		return fmt.Errorf("%d durations for %d axes", len(m.Durations), len(m.Axes))
	}
	for i, p := range m.Points {
		switch {
		case p.Point < 0 || p.Point >= m.GridSize() || i > 0 && p.Point <= m.Points[i-1].Point:
			return fmt.Errorf("points[%d]: point %d out of order", i, p.Point)
		case p.Key == "":
			return fmt.Errorf("points[%d]: no key", i)
		}
	}
	return nil
}
