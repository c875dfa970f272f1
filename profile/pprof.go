package profile

import (
	"compress/gzip"
	"io"
)

// pprofChunk is how much encoded protobuf WritePprof holds before handing
// it to the compressor.
const pprofChunk = 64 << 10

// WritePprof writes p as a gzip-compressed pprof protobuf, readable by
// `go tool pprof`: the bytes ToPprof(p).Write writes, encoded sample by
// sample as they are compressed. ToPprof holds every sample's locations
// and the whole encoding at once, which for a calling-context truth of
// millions of deep contexts takes gigabytes; this takes a few words per
// context (the physical frames' locations, found through the context
// tree) and a chunk of output.
//
// The encoding follows pprof's own (github.com/google/pprof/profile,
// Profile.preEncode and encode): the string table in preEncode's order,
// a field's packed form where pprof packs it, and the messages in its
// order, so that the two are byte-identical (TestWritePprofMatchesPprof).
func WritePprof(w io.Writer, p *Profile) error {
	if err := p.Validate(); err != nil {
		return err
	}
	zw := gzip.NewWriter(w)
	e := pprofEncoder{w: zw, strings: map[string]int64{}}
	e.encode(p)
	if e.err != nil {
		_ = zw.Close()
		return e.err
	}
	return zw.Close()
}

// pprofEncoder writes one profile's protobuf to w in chunks.
type pprofEncoder struct {
	w   io.Writer
	err error
	out []byte // encoded, not yet written
	msg []byte // the message being encoded, before its length
	// The string table: each string's index, and the strings in order.
	strings map[string]int64
	table   []string
}

// str is s's index in the string table, adding it (pprof's addString).
func (e *pprofEncoder) str(s string) int64 {
	if i, ok := e.strings[s]; ok {
		return i
	}
	i := int64(len(e.table))
	e.strings[s] = i
	e.table = append(e.table, s)
	return i
}

// locationTable is p's physical frames: a location per distinct run of
// frames the JIT compiled into one (a frame and the inlined frames above
// it), numbered as ToPprof numbers them, in the order the samples meet
// them leaf first.
type locationTable struct {
	// group[c] is the location of the physical frame that ends at context
	// c (c's frame and the inlined ones below it up to the first that is
	// not); below[c] is the context under that physical frame.
	group, below []int32
	// A location is its innermost frame and the location of the frames
	// inlined below it (outer, -1 for none).
	outer       []int32
	fn, line    []int32
	index       map[[3]int32]int32
	id          []uint64 // 0 until a sample meets the location
	byID        []int32  // location by id-1
	stackBuffer []uint64
}

func newLocationTable(p *Profile) *locationTable {
	t := &locationTable{group: make([]int32, len(p.Contexts)), below: make([]int32, len(p.Contexts)),
		index: map[[3]int32]int32{}}
	for c := 1; c < len(p.Contexts); c++ {
		ctx := &p.Contexts[c]
		outer, below := int32(-1), ctx.Parent
		if ctx.Frame.Inlined && ctx.Depth > 1 {
			outer, below = t.group[ctx.Parent], t.below[ctx.Parent]
		}
		k := [3]int32{outer, ctx.Frame.Func, ctx.Frame.Line}
		g, ok := t.index[k]
		if !ok {
			g = int32(len(t.outer))
			t.outer = append(t.outer, outer)
			t.fn = append(t.fn, ctx.Frame.Func)
			t.line = append(t.line, ctx.Frame.Line)
			t.index[k] = g
		}
		t.group[c], t.below[c] = g, below
	}
	t.index = nil
	t.id = make([]uint64, len(t.outer))
	return t
}

// stack is the locations' ids of context c's physical frames, leaf first,
// numbering those met for the first time.
func (t *locationTable) stack(p *Profile, c int32) []uint64 {
	s := t.stackBuffer[:0]
	for p.Contexts[c].Depth > 0 {
		g := t.group[c]
		if t.id[g] == 0 {
			t.byID = append(t.byID, g)
			t.id[g] = uint64(len(t.byID))
		}
		s = append(s, t.id[g])
		c = t.below[c]
	}
	t.stackBuffer = s
	return s
}

func (e *pprofEncoder) encode(p *Profile) {
	valueType, valueUnit := "cpu", "nanoseconds"
	if p.Unit == "bytecodes" {
		valueType, valueUnit = "bytecodes", "count"
	}
	e.str("")
	samplesX, countX := e.str("samples"), e.str("count")
	typeX, unitX := e.str(valueType), e.str(valueUnit)
	e.message(1, func() { e.int64Opt(1, samplesX); e.int64Opt(2, countX) })
	e.message(1, func() { e.int64Opt(1, typeX); e.int64Opt(2, unitX) })

	locs := newLocationTable(p)
	// A thread's label, key and value, added to the string table when a
	// sample first names it: none for a thread without a name.
	threadX := make([][2]int64, len(p.Threads)+1)
	for i := range p.Samples {
		s := &p.Samples[i]
		ids := locs.stack(p, s.Context)
		name := p.threadName(s.Thread)
		if name != "" && threadX[s.Thread][0] == 0 {
			threadX[s.Thread] = [2]int64{e.str("thread"), e.str(name)}
		}
		e.message(2, func() {
			e.uint64s(1, ids)
			e.varintField(2, uint64(s.Count))
			e.varintField(2, uint64(s.Weight))
			if name != "" {
				x := threadX[s.Thread]
				e.message(3, func() { e.int64Opt(1, x[0]); e.int64Opt(2, x[1]) })
			}
		})
	}

	fileX, buildX := e.str("profsim"), e.str("")
	e.message(3, func() {
		e.varintField(1, 1) // ID
		e.int64Opt(5, fileX)
		e.int64Opt(6, buildX)
		e.varintField(7, 1) // HasFunctions
	})
	for id, g := range locs.byID {
		e.message(4, func() {
			e.varintField(1, uint64(id+1))
			e.varintField(2, 1) // the mapping
			for l := g; l >= 0; l = locs.outer[l] {
				e.message(4, func() {
					e.varintField(1, uint64(locs.fn[l])+1)
					e.int64Opt(2, int64(locs.line[l]))
				})
			}
		})
	}
	for i := range p.Functions {
		f := &p.Functions[i]
		nameX, systemX, fileX := e.str(f.Name), e.str(f.Class+"."+f.Method+f.Signature), e.str(f.File)
		e.message(5, func() {
			e.varintField(1, uint64(i+1))
			e.int64Opt(2, nameX)
			e.int64Opt(3, systemX)
			e.int64Opt(4, fileX)
		})
	}
	for _, s := range e.table {
		e.tag(6, 2)
		e.varint(uint64(len(s)))
		e.msg = append(e.msg, s...)
		e.flush()
	}
	e.message(11, func() { e.int64Opt(1, typeX); e.int64Opt(2, unitX) }) // the period's type
	e.int64Opt(12, p.PeriodNanos)
	e.varintField(14, 0) // default_sample_type: pprof writes it even when 0
	e.flush()
	e.write(true)
}

// message encodes a length-delimited field tag whose content body encodes.
func (e *pprofEncoder) message(tag int, body func()) {
	start := len(e.msg)
	body()
	n := len(e.msg) - start
	// Move the content after its key and length.
	var head [20]byte
	h := appendVarint(head[:0], uint64(tag)<<3|2)
	h = appendVarint(h, uint64(n))
	e.msg = append(e.msg, h...)
	copy(e.msg[start+len(h):], e.msg[start:start+n])
	copy(e.msg[start:], h)
	if start == 0 {
		e.flush()
	}
}

// flush moves a finished top-level field to the output.
func (e *pprofEncoder) flush() {
	e.out = append(e.out, e.msg...)
	e.msg = e.msg[:0]
	e.write(false)
}

// write hands the output to the compressor: a chunk at a time, all of it
// when final.
func (e *pprofEncoder) write(final bool) {
	if e.err != nil || (!final && len(e.out) < pprofChunk) || len(e.out) == 0 {
		if e.err != nil {
			e.out = e.out[:0]
		}
		return
	}
	_, e.err = e.w.Write(e.out)
	e.out = e.out[:0]
}

func (e *pprofEncoder) tag(tag, wire int) { e.varint(uint64(tag)<<3 | uint64(wire)) }

func (e *pprofEncoder) varint(x uint64) { e.msg = appendVarint(e.msg, x) }

// varintField is pprof's encodeUint64: a varint field, written even when
// 0.
func (e *pprofEncoder) varintField(tag int, x uint64) {
	e.tag(tag, 0)
	e.varint(x)
}

// int64Opt is pprof's encodeInt64Opt: nothing for 0.
func (e *pprofEncoder) int64Opt(tag int, x int64) {
	if x != 0 {
		e.varintField(tag, uint64(x))
	}
}

// uint64s is pprof's encodeUint64s: packed for more than two values.
func (e *pprofEncoder) uint64s(tag int, xs []uint64) {
	if len(xs) <= 2 {
		for _, x := range xs {
			e.varintField(tag, x)
		}
		return
	}
	n := 0
	for _, x := range xs {
		n += varintLen(x)
	}
	e.tag(tag, 2)
	e.varint(uint64(n))
	for _, x := range xs {
		e.varint(x)
	}
}

func appendVarint(b []byte, x uint64) []byte {
	for x >= 0x80 {
		b = append(b, byte(x)|0x80)
		x >>= 7
	}
	return append(b, byte(x))
}

func varintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}
