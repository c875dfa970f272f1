package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two Stores appending to one results file at once, with no lock, leave
// only whole lines, and each Store's index finds its own records.
func TestStoresAppendingAtOnceWriteWholeLines(t *testing.T) {
	dir := t.TempDir()
	const writers, perWriter = 2, 300
	stores := make([]*Store, writers)
	for w := range stores {
		s, err := OpenStore(dir)
		require.NoError(t, err)
		stores[w] = s
	}
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for w, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				// Records of different lengths, some longer than a page.
				res, _ := json.Marshal(map[string]string{"pad": strings.Repeat("x", (i*37+w*1000)%9000)})
				r := Record{Key: fmt.Sprintf("w%d-%03d", w, i), Point: i, Status: StatusOK, Result: res}
				if err := s.Append(r); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for w, s := range stores {
		require.NoError(t, errs[w])
		// Each index locates its own records, wherever the other's went.
		for _, i := range []int{0, perWriter / 2, perWriter - 1} {
			key := fmt.Sprintf("w%d-%03d", w, i)
			r, err := s.Index().Record(key)
			require.NoError(t, err, key)
			assert.Equal(t, key, r.Key)
		}
		require.NoError(t, s.Close())
	}
	data, err := os.ReadFile(filepath.Join(dir, ResultsFile))
	require.NoError(t, err)
	require.True(t, bytes.HasSuffix(data, []byte("\n")))
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	require.Len(t, lines, writers*perWriter)
	seen := map[string]bool{}
	for i, l := range lines {
		var r Record
		require.NoError(t, json.Unmarshal(l, &r), "line %d is not one whole record", i+1)
		seen[r.Key] = true
	}
	assert.Len(t, seen, writers*perWriter)
	ix, err := ReadIndex(filepath.Join(dir, ResultsFile))
	require.NoError(t, err)
	assert.Len(t, ix.Keys(), writers*perWriter)
}

// FuzzReadIndex feeds arbitrary results.jsonl files to the store's
// readers: ReadIndex, ReadResults and OpenStore return an error or read
// the file, never panic; every indexed key's record reads back (or is an
// error); and a store that opens is one a record appends to and a fresh
// index then finds, whatever damaged tail it cut off.
func FuzzReadIndex(f *testing.F) {
	ok := `{"key":"k1","point":0,"coords":{"seed":"1"},"status":"ok","wall_ns":5,"result":{"x":1}}` + "\n"
	failed := `{"key":"k2","point":1,"coords":{"a":["x","y"]},"status":"failed","error":"boom","wall_ns":0}` + "\n"
	for _, s := range []string{
		"", ok, ok + failed, ok + failed + `{"key":"k3","po`, ok + "garbage\n", ok + "garbage\n" + failed,
		"{}\n" + ok, `{"key":"k1","status":"ok","coords":5}` + "\n", ok + ok + failed + ok, "\n\n", `{"key":""}` + "\n",
		`{"key":"k","status":"ok","result":` + strings.Repeat("[", 200) + "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, ResultsFile)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ReadResults(path) // an error or records, no panic
		ix, err := ReadIndex(path)
		if err != nil {
			if _, serr := OpenStore(dir); serr == nil {
				t.Fatalf("ReadIndex failed (%v) but OpenStore did not", err)
			}
			return
		}
		if ix.size > int64(len(data)) {
			t.Fatalf("indexed %d bytes of %d", ix.size, len(data))
		}
		for _, k := range ix.Keys() {
			if _, ok := ix.Status(k); !ok {
				t.Fatalf("key %q listed but without status", k)
			}
			ix.Record(k) // an error or the record, no panic
		}
		ix.Close()
		s, err := OpenStore(dir)
		if err != nil {
			t.Fatalf("ReadIndex read the file but OpenStore failed: %v", err)
		}
		if want := len(data) - int(ix.size); s.Repaired != want {
			t.Fatalf("repaired %d bytes, want the %d after the indexed prefix", s.Repaired, want)
		}
		s.fsync = func() error { return nil } // the disk is not under test
		const key = "fuzz-appended"
		if err := s.Append(Record{Key: key, Point: 7, Status: StatusOK}); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		ix2, err := ReadIndex(path)
		if err != nil {
			t.Fatalf("after repair and append: %v", err)
		}
		defer ix2.Close()
		if st, _ := ix2.Status(key); st != StatusOK {
			t.Fatalf("the appended record is not indexed (status %q)", st)
		}
		r, err := ix2.Record(key)
		if err != nil || r.Point != 7 {
			t.Fatalf("the appended record reads back as %+v, %v", r, err)
		}
	})
}

// A line over the record limit is never held: before the last line it is
// an error naming it, as the last (a damaged tail with no newline, say a
// crash's zeros) it is cut off like any cut-short line.
func TestReadIndexBoundsALine(t *testing.T) {
	defer func(l int) { recordLimit = l }(recordLimit)
	recordLimit = 1024
	ok := func(k string) string {
		return `{"key":"` + k + `","point":0,"coords":{},"status":"ok","wall_ns":0}` + "\n"
	}
	long := strings.Repeat("\x00", 5000)
	dir := t.TempDir()
	path := filepath.Join(dir, ResultsFile)

	require.NoError(t, os.WriteFile(path, []byte(ok("a")+long+"\n"+ok("b")), 0o644))
	_, err := ReadIndex(path)
	assert.ErrorContains(t, err, "results.jsonl:2: a corrupt record before the last line (a line of 5001 bytes, over the 1024 a record may have)")

	for _, tail := range []string{long, long + "\n"} {
		require.NoError(t, os.WriteFile(path, []byte(ok("a")+tail), 0o644))
		s, err := OpenStore(dir)
		require.NoError(t, err)
		assert.Equal(t, len(tail), s.Repaired)
		assert.True(t, s.Done("a"))
		require.NoError(t, s.Append(Record{Key: "c", Status: StatusOK}))
		require.NoError(t, s.Close())
		ix, err := ReadIndex(path)
		require.NoError(t, err)
		assert.Equal(t, []string{"a", "c"}, ix.Keys())
	}
}
