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
