package sweep

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// marshalRecord writes what json.Marshal writes, byte for byte: raw
// values compacted (and checked) unless the job vouches for them.
func TestMarshalRecordIsJSONMarshal(t *testing.T) {
	for _, r := range []Record{
		{Key: "k", Status: StatusOK},
		{Key: "0123", Point: 7, Coords: Coords{{Name: "seed", Value: []string{"1"}}, {Name: "w<&>", Value: []string{"a", "b\n"}}},
			Config: json.RawMessage(`{ "a" : [1, 2],
			"b": "x<y" }`), Status: StatusFailed, Error: "bad \"input\" <here>", WallNS: -1},
		{Key: "k", Point: 1, Config: json.RawMessage(`{}`), Status: StatusOK, WallNS: 41523311, Result: json.RawMessage(` {"x": 1e308, "y": null} `)},
	} {
		want, err := json.Marshal(r)
		require.NoError(t, err)
		got, err := marshalRecord(r)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got))

		// A Job.Compact record is written as given: from json.Marshal,
		// that is the same.
		c := r
		c.compact = true
		if len(r.Config) > 0 {
			c.Config = compactJSON(t, r.Config)
		}
		if len(r.Result) > 0 {
			c.Result = compactJSON(t, r.Result)
		}
		got, err = marshalRecord(c)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got))
	}
	_, err := marshalRecord(Record{Key: "k", Status: StatusOK, Result: json.RawMessage(`{"x":`)})
	assert.ErrorContains(t, err, "record k: the result is not valid JSON")
	_, err = marshalRecord(Record{Key: "k", Status: StatusOK, Config: json.RawMessage(`nope`)})
	assert.ErrorContains(t, err, "record k: the config is not valid JSON")
}

// compactJSON is raw as json.Marshal writes it.
func compactJSON(t *testing.T, raw json.RawMessage) json.RawMessage {
	b, err := json.Marshal(raw)
	require.NoError(t, err)
	return b
}

// Append syncs at most once per SyncInterval; a record it leaves unsynced
// is synced by a timer within the interval, or by Sync.
func TestStoreSyncsWithinTheInterval(t *testing.T) {
	s, err := OpenStore(t.TempDir())
	require.NoError(t, err)
	defer s.Close()
	clock := time.Unix(0, 0)
	s.now = func() time.Time { return clock }
	state := func() (bool, bool) {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.dirty, s.timer != nil
	}
	rec := func(k string) Record { return Record{Key: k, Status: StatusOK, Result: json.RawMessage(`{}`)} }

	require.NoError(t, s.Append(rec("a")))
	dirty, timed := state()
	assert.False(t, dirty, "the first record is synced at once")
	assert.False(t, timed)

	clock = clock.Add(SyncInterval / 10)
	require.NoError(t, s.Append(rec("b")))
	dirty, timed = state()
	assert.True(t, dirty, "within the interval: not synced yet")
	assert.True(t, timed, "but a timer will")
	assert.Eventually(t, func() bool { d, _ := state(); return !d }, 20*SyncInterval, SyncInterval/10, "the timer syncs it")

	clock = clock.Add(SyncInterval / 10)
	require.NoError(t, s.Append(rec("c")))
	require.NoError(t, s.Sync())
	dirty, timed = state()
	assert.False(t, dirty, "Sync syncs")
	assert.False(t, timed, "and stops the timer")

	clock = clock.Add(SyncInterval)
	require.NoError(t, s.Append(rec("d")))
	dirty, _ = state()
	assert.False(t, dirty, "an interval later: synced at once")
}
