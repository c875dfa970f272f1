package profile

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// ExportBytes charges a profile exportFixedBytes and each of its calling
// contexts exportContextBytes: two samples of depth 1 and 3 (identical
// ones merged into one) make four contexts, the root included.
func TestExportBytesPerContext(t *testing.T) {
	b := NewBuilder("test", "nanoseconds", 1)
	m, c, h := b.Func(Function{Name: "A.main"}), b.Func(Function{Name: "A.cold"}), b.Func(Function{Name: "A.hot"})
	b.AddSample([]Frame{{Func: int32(m)}}, 1, 1, "main")
	b.AddSample([]Frame{{Func: int32(m)}, {Func: int32(c)}, {Func: int32(h)}}, 1, 1, "main")
	b.AddSample([]Frame{{Func: int32(m)}, {Func: int32(c)}, {Func: int32(h)}}, 1, 1, "main")
	p := b.Build()
	assert.Len(t, p.Samples, 2)
	assert.EqualValues(t, exportFixedBytes+4*exportContextBytes, p.ExportBytes())
	assert.Zero(t, NewBuilder("empty", "nanoseconds", 1).Build().ExportBytes())
}
