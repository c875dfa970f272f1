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
