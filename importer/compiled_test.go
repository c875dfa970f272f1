package importer

import (
	"bytes"
	"maps"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/jfrjson"
	"github.com/profsim/profsim/program"
)

// TestMarksMethodsTheRecordingSawCompiled: a method whose frames are
// mostly JIT compiled or Inlined is marked compiled (it had been compiled
// when the recording began); one mostly Interpreted, or seen only as a
// native frame, is not. The call sites below compiled frames give the
// recorded inlining decisions.
func TestMarksMethodsTheRecordingSawCompiled(t *testing.T) {
	type frame struct {
		name string
		bci  int
		typ  jfrjson.FrameType
	}
	var buf bytes.Buffer
	w := jfrjson.NewWriter(&buf)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	add := func(n int, stack ...frame) { // root first
		for k := 0; k < n; k++ {
			s := &jfrjson.Sample{Time: at, Thread: jfrjson.Thread{Name: "main", JavaID: 1, IsJava: true}}
			for i := len(stack) - 1; i >= 0; i-- {
				f := stack[i]
				s.Frames = append(s.Frames, jfrjson.Frame{Method: jfrjson.Method{Class: "App", Name: f.name, Descriptor: "()V"}, BCI: f.bci, Type: f.typ})
			}
			require.NoError(t, w.Write(&jfrjson.Event{Type: jfrjson.TypeExecutionSample, Sample: s}))
			at = at.Add(time.Millisecond)
		}
	}
	I, C, In, N := jfrjson.Interpreted, jfrjson.JITCompiled, jfrjson.Inlined, jfrjson.Native
	// main: interpreted throughout; hot: compiled, its leaf inlined into
	// it; warm: compiled in 30 samples, interpreted in 70; open0 native.
	add(60, frame{"main", 4, I}, frame{"hot", 7, C}, frame{"leaf", 2, In})
	add(30, frame{"main", 9, I}, frame{"warm", 3, C})
	add(70, frame{"main", 9, I}, frame{"warm", 3, I})
	add(20, frame{"main", 12, I}, frame{"open0", 0, N})
	// Below compiled hot: big called (not inlined), mixed inlined at one
	// site and called at another, open0 native.
	add(10, frame{"main", 4, I}, frame{"hot", 11, C}, frame{"big", 1, C})
	add(10, frame{"main", 4, I}, frame{"hot", 15, C}, frame{"mixed", 1, In})
	add(10, frame{"main", 4, I}, frame{"hot", 19, C}, frame{"mixed", 1, C})
	add(10, frame{"main", 4, I}, frame{"hot", 23, C}, frame{"open0", 0, N})
	// A virtual site: poly1 inlined, poly2 called, each as everywhere.
	add(5, frame{"main", 4, I}, frame{"hot", 27, C}, frame{"poly1", 1, In})
	add(5, frame{"main", 4, I}, frame{"hot", 27, C}, frame{"poly2", 1, C})
	require.NoError(t, w.Close())

	m, err := Import(bytes.NewReader(buf.Bytes()), nil, Options{})
	require.NoError(t, err)
	compiled := map[string]bool{}
	for _, meth := range m.Program.Methods {
		compiled[meth.Name] = meth.Compiled
	}
	assert.Equal(t, map[string]bool{"main": false, "hot": true, "leaf": true, "warm": false, "open0": false,
		"big": true, "mixed": true, "poly1": true, "poly2": true}, compiled)
	assert.Equal(t, map[jfrjson.FrameType]int{I: 300, C: 165, In: 75, N: 30}, m.Report.FrameTypes)
	// The recording's inlining decisions, replayed: leaf was inlined into
	// compiled hot at every sampled site, big at none; mixed, warm (below
	// interpreted code only) and the native open0 are left to the JIT.
	assert.Equal(t, []string{"inline,App.leaf()V", "dontinline,App.big()V", "inline,App.poly1()V", "dontinline,App.poly2()V"},
		m.Program.CompileCommands)
	// mixed's two sites carry their own decisions, inlined at the first
	// and called at the second; the commanded callees' sites and the
	// native's none.
	assert.Equal(t, []string{"App.leaf()V: -", "App.big()V: -", "App.mixed()V: true", "App.mixed()V: false", "App.open0()V: -"}, siteDecisions(m, "hot"))
	// The virtual site carries both receivers' decisions: a compile
	// command does not override a receiver profile.
	assert.Equal(t, map[string]bool{"App.poly1()V": true, "App.poly2()V": false}, virtualDecisions(m, "hot"))
	assert.Equal(t, [2]int{2, 2}, [2]int{m.Report.SitesInlined, m.Report.SitesCalled})

	m, err = Import(bytes.NewReader(buf.Bytes()), nil, Options{IgnoreSiteInlining: true})
	require.NoError(t, err)
	assert.Equal(t, []string{"App.leaf()V: -", "App.big()V: -", "App.mixed()V: -", "App.mixed()V: -", "App.open0()V: -"}, siteDecisions(m, "hot"))
	assert.Nil(t, virtualDecisions(m, "hot"))
	assert.Zero(t, m.Report.SitesInlined+m.Report.SitesCalled)
}

// siteDecisions lists the static calls of method name in code order, each
// with its site's inlining decision (program.Call.Inline; "-" for none).
func siteDecisions(m *Model, name string) []string {
	var out []string
	eachStmt(m, name, func(s *program.Stmt) {
		if s.Call != nil {
			d := "-"
			if s.Call.Inline != nil {
				d = strconv.FormatBool(*s.Call.Inline)
			}
			out = append(out, s.Call.Method+": "+d)
		}
	})
	return out
}

// virtualDecisions is the inlining decisions of method name's virtual
// call sites (program.VirtualCall.Inline), merged.
func virtualDecisions(m *Model, name string) map[string]bool {
	var out map[string]bool
	eachStmt(m, name, func(s *program.Stmt) {
		if s.VirtualCall != nil && s.VirtualCall.Inline != nil {
			if out == nil {
				out = map[string]bool{}
			}
			maps.Copy(out, s.VirtualCall.Inline)
		}
	})
	return out
}

// eachStmt calls f on every statement of method name, nested ones
// included, in code order.
func eachStmt(m *Model, name string, f func(*program.Stmt)) {
	var walk func([]program.Stmt)
	walk = func(body []program.Stmt) {
		for i := range body {
			s := &body[i]
			f(s)
			switch {
			case s.Loop != nil:
				walk(s.Loop.Body)
			case s.Branch != nil:
				walk(s.Branch.Then)
				walk(s.Branch.Else)
			}
		}
	}
	for _, meth := range m.Program.Methods {
		if meth.Name == name {
			walk(meth.Body)
		}
	}
}
