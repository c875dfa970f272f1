package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/jfrjson"
)

// TestReportComparesRecordedAndModelledInlining: a pair the recording
// inlined and the model calls counts as a disagreement with its weight;
// one both inline does not; one below interpreted code is not counted; one
// the model never shows is missing.
func TestReportComparesRecordedAndModelledInlining(t *testing.T) {
	dir := t.TempDir()
	var rec bytes.Buffer
	w := jfrjson.NewWriter(&rec)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	add := func(n int, frames ...jfrjson.Frame) { // leaf first
		for range n {
			require.NoError(t, w.Write(&jfrjson.Event{Type: jfrjson.TypeExecutionSample,
				Sample: &jfrjson.Sample{Time: at, Thread: jfrjson.Thread{Name: "main", JavaID: 1, IsJava: true}, Frames: frames}}))
			at = at.Add(time.Millisecond)
		}
	}
	f := func(name string, typ jfrjson.FrameType) jfrjson.Frame {
		return jfrjson.Frame{Method: jfrjson.Method{Class: "p/A", Name: name, Descriptor: "()V"}, Type: typ}
	}
	add(6, f("leaf", jfrjson.Inlined), f("mid", jfrjson.JITCompiled), f("main", jfrjson.Interpreted))
	add(3, f("same", jfrjson.Inlined), f("mid", jfrjson.JITCompiled), f("main", jfrjson.Interpreted))
	add(1, f("gone", jfrjson.JITCompiled), f("mid", jfrjson.JITCompiled), f("main", jfrjson.Interpreted))
	require.NoError(t, w.Close())
	recPath := filepath.Join(dir, "rec.json")
	require.NoError(t, os.WriteFile(recPath, rec.Bytes(), 0o666))

	// The model: mid calls leaf (two locations), inlines same (one).
	fn := map[string]*profile.Function{}
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}}}
	for i, name := range []string{"p.A.main", "p.A.mid", "p.A.leaf", "p.A.same()V"} {
		fn[name] = &profile.Function{ID: uint64(i + 1), Name: name}
		p.Function = append(p.Function, fn[name])
	}
	loc := func(id uint64, names ...string) *profile.Location { // innermost first
		l := &profile.Location{ID: id}
		for _, n := range names {
			l.Line = append(l.Line, profile.Line{Function: fn[n]})
		}
		p.Location = append(p.Location, l)
		return l
	}
	main, mid, leaf, midSame := loc(1, "p.A.main"), loc(2, "p.A.mid"), loc(3, "p.A.leaf"), loc(4, "p.A.same()V", "p.A.mid")
	p.Sample = []*profile.Sample{
		{Location: []*profile.Location{leaf, mid, main}, Value: []int64{4}},
		{Location: []*profile.Location{midSame, main}, Value: []int64{2}},
	}
	var pb bytes.Buffer
	require.NoError(t, p.Write(&pb))
	pbPath := filepath.Join(dir, "jfr.pb.gz")
	require.NoError(t, os.WriteFile(pbPath, pb.Bytes(), 0o666))

	r, err := recorded(recPath)
	require.NoError(t, err)
	assert.Equal(t, map[pair]counts{{"p.A.mid", "p.A.leaf"}: {0, 6}, {"p.A.mid", "p.A.same"}: {0, 3}, {"p.A.mid", "p.A.gone"}: {1, 0}}, r,
		"pairs below interpreted main are not counted")
	m, err := modelled(pbPath)
	require.NoError(t, err)
	var out bytes.Buffer
	report(&out, r, m)
	assert.Equal(t, "pairs: weight 10; mean |recorded - modelled| inlined share 0.600; unanimous in the recording, mostly the other way in the model 0.600; not in the model's profile 0.100\n"+
		"  p.A.mid -> p.A.leaf: weight 6, recorded inlined 1.00, modelled 0.00\n", out.String())
}
