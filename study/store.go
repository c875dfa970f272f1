package study

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/profsim/profsim"
	"github.com/profsim/profsim/sweep"
	"github.com/profsim/profsim/workloads"
)

// Store keeps an experiment's runs on disk (Options.Store), so that a
// study resumes where it stopped, splits over the machines of a cluster
// (SetShard: each machine makes the runs whose key hashes to its shard,
// into one shared directory) and renders from the stored runs alone
// (OpenStoreReadOnly: profsim study NAME --from DIR).
//
// A run is stored whole — the value its key's run method returns, which
// is everything the experiment reads from it — in DIR/runs/HASH.gob,
// HASH a SHA-256 over the store's identity, the key's type and the key's
// value (keyText). The identity is the build's (profsim.BuildID) and the
// built-in workloads' content (workloads.ContentHash): a directory holds
// the runs of one build over one set of workloads, and another build's
// is refused, as a sweep's is (docs/SWEEPS.md), so that results of
// different code never mix. The key's value names the run completely
// (runKey): equal keys are equal runs, whichever experiment, seeds or
// size asked for them.
type Store struct {
	dir      string
	id       string
	shard    sweep.Shard
	readOnly bool

	made, loaded, missing atomic.Int64
}

// StoreManifest is DIR/study-store.json: whose runs the directory holds.
type StoreManifest struct {
	Build     string `json:"build"`
	Workloads string `json:"workloads"`
}

// StoreManifestFile is the manifest's name in a store's directory.
const StoreManifestFile = "study-store.json"

// ErrIncomplete is what an experiment's error wraps when runs it needs
// are in no store yet: those of other shards (SetShard), or any with a
// read-only store. An experiment that makes its runs in batches, each
// planned from the last one's results, stops at the first incomplete
// batch.
var ErrIncomplete = errors.New("runs missing from the store")

// errMissing marks one run that is not in the store and not this
// process's to make.
var errMissing = fmt.Errorf("%w: a run not in the store", ErrIncomplete)

// storeID is this build's identity over its workloads.
func storeID() StoreManifest {
	return StoreManifest{Build: profsim.BuildID(), Workloads: workloads.ContentHash()}
}

// OpenStore opens dir as a store, creating it (and its manifest) if
// needed. A directory whose manifest names another build or other
// workloads is refused.
func OpenStore(dir string) (*Store, error) {
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o777); err != nil {
		return nil, fmt.Errorf("study store: %w", err)
	}
	id := storeID()
	m, err := readStoreManifest(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := writeStoreManifest(dir, id); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	default:
		if err := checkStoreManifest(dir, m, id); err != nil {
			return nil, err
		}
	}
	return &Store{dir: dir, id: id.Build + "/" + id.Workloads}, nil
}

// OpenStoreReadOnly opens an existing store to read its runs and make
// none: a run the experiment needs that it does not hold is an
// ErrIncomplete.
func OpenStoreReadOnly(dir string) (*Store, error) {
	m, err := readStoreManifest(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("study store: %s is not a study store (no %s): make it with 'profsim study NAME --store %s' first", dir, StoreManifestFile, dir)
	}
	if err != nil {
		return nil, err
	}
	id := storeID()
	if err := checkStoreManifest(dir, m, id); err != nil {
		return nil, err
	}
	return &Store{dir: dir, id: id.Build + "/" + id.Workloads, readOnly: true}, nil
}

func readStoreManifest(dir string) (StoreManifest, error) {
	var m StoreManifest
	b, err := os.ReadFile(filepath.Join(dir, StoreManifestFile))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return m, err
		}
		return m, fmt.Errorf("study store: %w", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("study store: %s: %w", filepath.Join(dir, StoreManifestFile), err)
	}
	if m.Build == "" || m.Workloads == "" {
		return m, fmt.Errorf("study store: %s: build and workloads must be set", filepath.Join(dir, StoreManifestFile))
	}
	return m, nil
}

func writeStoreManifest(dir string, m StoreManifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(dir, StoreManifestFile, append(b, '\n'))
}

func checkStoreManifest(dir string, have, want StoreManifest) error {
	if have == want {
		return nil
	}
	return fmt.Errorf("study store: %s holds runs of build %s over workloads %s; this profsim is build %s over workloads %s ('profsim version'): "+
		"results of different code must not mix; use a new directory", dir, have.Build, have.Workloads, want.Build, want.Workloads)
}

// SetShard makes the store's process make only the runs whose key hashes
// to sh (1 ≤ sh.I ≤ sh.N); the others it reads from the directory, where
// other processes store them, or counts as missing.
func (s *Store) SetShard(sh sweep.Shard) { s.shard = sh }

// Counts are the runs this process made and stored, read from the store,
// and needed but missing (another shard's, or any with a read-only
// store).
func (s *Store) Counts() (made, loaded, missing int) {
	return int(s.made.Load()), int(s.loaded.Load()), int(s.missing.Load())
}

// storedRun is a run's file: the key's text, checked on reading, and the
// run's value.
type storedRun[R any] struct {
	Key   string
	Value R
}

// storeRun returns k's run from the store, or makes and stores it when it
// is this process's to make; a run that is neither is errMissing.
func storeRun[K runKey[R], R any](s *Store, k K) (R, error) {
	var zero R
	text, err := keyText(k)
	if err != nil {
		return zero, err
	}
	sum := sha256.Sum256([]byte(s.id + "\n" + text))
	name := hex.EncodeToString(sum[:]) + ".gob"
	path := filepath.Join(s.dir, "runs", name)
	if b, err := os.ReadFile(path); err == nil {
		var r storedRun[R]
		if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&r); err != nil {
			return zero, fmt.Errorf("study store: %s: %w", path, err)
		}
		if r.Key != text {
			return zero, fmt.Errorf("study store: %s holds run %s, not %s", path, r.Key, text)
		}
		s.loaded.Add(1)
		return r.Value, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return zero, fmt.Errorf("study store: %w", err)
	}
	if s.readOnly || s.shard.N > 1 && !s.shard.Contains(int(binary.BigEndian.Uint64(sum[:8])%uint64(s.shard.N))) {
		s.missing.Add(1)
		return zero, errMissing
	}
	v, err := k.run()
	if err != nil {
		return zero, err
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(storedRun[R]{Key: text, Value: v}); err != nil {
		return zero, fmt.Errorf("study store: run %s: %w", text, err)
	}
	if err := writeAtomic(filepath.Join(s.dir, "runs"), name, buf.Bytes()); err != nil {
		return zero, err
	}
	s.made.Add(1)
	return v, nil
}

// writeAtomic writes data to dir/name through a temporary file synced
// and renamed into place (sweep.WriteAtomic, as a sweep's files): a
// reader, or a process killed half-way, never sees a partial file under
// the name, and the file is readable by the other processes of a shared
// store.
func writeAtomic(dir, name string, data []byte) error {
	err := sweep.WriteAtomic(filepath.Join(dir, name), func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return fmt.Errorf("study store: %w", err)
	}
	return nil
}

// keyText is a run key's canonical text: its type, then every field by
// name, recursively, floats by their bits. A key (a comparable value)
// holding a pointer, channel or function, whose value is an address, has
// no text: it could not name the same run in two processes.
func keyText(k any) (string, error) {
	var b strings.Builder
	v := reflect.ValueOf(k)
	b.WriteString(v.Type().String())
	if err := writeKeyValue(&b, v); err != nil {
		return "", fmt.Errorf("study store: key %s: %w", v.Type(), err)
	}
	return b.String(), nil
}

func writeKeyValue(b *strings.Builder, v reflect.Value) error {
	switch v.Kind() {
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		b.WriteString("0x" + strconv.FormatUint(math.Float64bits(v.Float()), 16))
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		fmt.Fprintf(b, "0x%x,0x%x", math.Float64bits(real(c)), math.Float64bits(imag(c)))
	case reflect.String:
		b.WriteString(strconv.Quote(v.String()))
	case reflect.Array:
		b.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				b.WriteByte(' ')
			}
			if err := writeKeyValue(b, v.Index(i)); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case reflect.Struct:
		b.WriteByte('{')
		for i := range v.NumField() {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(v.Type().Field(i).Name + ":")
			if err := writeKeyValue(b, v.Field(i)); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return nil
		}
		b.WriteString(v.Elem().Type().String() + "(")
		if err := writeKeyValue(b, v.Elem()); err != nil {
			return err
		}
		b.WriteByte(')')
	default:
		return fmt.Errorf("a %s (%s) has no value outside this process", v.Kind(), v.Type())
	}
	return nil
}

// checkStorable refuses a run's type that gob would not keep whole: an
// unexported struct field (gob drops it silently), an interface, a
// channel or a function, unless the type encodes itself
// (gob.GobEncoder).
func checkStorable(t reflect.Type) error {
	return storable(t, map[reflect.Type]bool{})
}

var gobEncoder = reflect.TypeFor[gob.GobEncoder]()

func storable(t reflect.Type, seen map[reflect.Type]bool) error {
	if seen[t] {
		return nil
	}
	seen[t] = true
	if t.Implements(gobEncoder) || reflect.PointerTo(t).Implements(gobEncoder) {
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return storable(t.Elem(), seen)
	case reflect.Map:
		if err := storable(t.Key(), seen); err != nil {
			return err
		}
		return storable(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				return fmt.Errorf("%s's field %s is unexported: a stored run would lose it", t, f.Name)
			}
			if err := storable(f.Type, seen); err != nil {
				return err
			}
		}
	case reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return fmt.Errorf("%s holds a %s, which a stored run cannot keep", t, t.Kind())
	}
	return nil
}
