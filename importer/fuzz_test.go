package importer

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/classfile"
	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/jfrjson"
	"github.com/profsim/profsim/sim"
)

// fuzzRun is how long each imported model runs in FuzzImport: long
// enough to call through the model's first statements, short enough
// for thousands of inputs a second.
const fuzzRun = 2 * sim.Millisecond

// FuzzImport runs the whole import on a recording and a class file: it
// must never panic, and a model it builds must validate and run.
func FuzzImport(f *testing.F) {
	class, err := os.ReadFile("testdata/hotcold/HotCold.class")
	require.NoError(f, err)
	// The HotCold recording's first samples, written compactly.
	hc, err := os.Open("testdata/hotcold/hotcold.json")
	require.NoError(f, err)
	events, err := jfrjson.ReadAll(hc)
	hc.Close()
	require.NoError(f, err)
	var small bytes.Buffer
	w := jfrjson.NewWriter(&small)
	for _, e := range events[:12] {
		require.NoError(f, w.Write(e))
	}
	require.NoError(f, w.Close())
	f.Add(small.Bytes(), class)
	for _, s := range []stacks{
		{{"main", []string{"HotCold.main@0", "HotCold.cold@7"}, 3}, {"main", []string{"HotCold.main@1", "HotCold.hot@2"}, 2}},
		{{"main", []string{"A.main@0", "B.b@0"}, 2}, {"main", []string{"A.main@1", "C.c@0"}, 2}},
		{{"main", []string{"A.main@4", "A.rec@2", "A.rec@2", "A.rec@5"}, 3}, {"w", []string{"Boot.init@0"}, 1}},
	} {
		f.Add(jfrJSON(f, s), class)
	}
	f.Add(recordingOf(f, sample(at(0), "main", jfrjson.Native, "N.root@0", "N.leaf@0"), sample(at(0), "t", jfrjson.Interpreted, "HotCold.main@0")), class)
	f.Add(nativeRecording(f, true, true), class) // native method samples, of a model thread and another
	f.Add([]byte(`{"recording": {"events": []}}`), []byte{})
	f.Fuzz(func(t *testing.T, rec, class []byte) {
		var cp *classfile.Classpath
		if c, err := classfile.Parse(class); err == nil {
			cp = classfile.ClasspathOf(c)
		}
		m, err := Import(bytes.NewReader(rec), cp, Options{})
		if err != nil {
			return
		}
		if err := m.Program.Validate(); err != nil {
			t.Fatalf("imported program: %v", err)
		}
		if m.Recorded.TotalWeight() <= 0 {
			t.Fatalf("recorded profile of %d samples weighs %d", m.Report.Samples, m.Recorded.TotalWeight())
		}
		cfg := harness.MustPresetConfig("hotspot6")
		cfg.Sim.Duration = fuzzRun
		if _, err := harness.Run(m.Program, cfg); err != nil {
			t.Fatalf("running the model: %v", err)
		}
	})
}
