package importer

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/jfrjson"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/workloads"
)

// jfrJSON writes samples as jfr print's JSON: each stack root first as
// "Class.method@bci" frames, one sample per ms on thread.
func jfrJSON(t testing.TB, samples []struct {
	thread string
	stack  []string
	n      int
}) []byte {
	t.Helper()
	return jfrJSONDesc(t, samples, nil)
}

// jfrJSONDesc is jfrJSON with the descriptors of methods by name ("()V"
// for the others).
func jfrJSONDesc(t testing.TB, samples []struct {
	thread string
	stack  []string
	n      int
}, desc map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := jfrjson.NewWriter(&buf)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, s := range samples {
		for k := 0; k < s.n; k++ {
			smp := &jfrjson.Sample{Time: at, Thread: jfrjson.Thread{Name: s.thread, JavaID: int64(len(s.thread)), IsJava: true}}
			for i := len(s.stack) - 1; i >= 0; i-- {
				cm, bci, _ := strings.Cut(s.stack[i], "@")
				class, name, _ := strings.Cut(cm, ".")
				b := 0
				for _, c := range bci {
					b = 10*b + int(c-'0')
				}
				d := desc[name]
				if d == "" {
					d = "()V"
				}
				smp.Frames = append(smp.Frames, jfrjson.Frame{Method: jfrjson.Method{Class: class, Name: name, Descriptor: d}, BCI: b, Type: jfrjson.JITCompiled})
			}
			require.NoError(t, w.Write(&jfrjson.Event{Type: jfrjson.TypeExecutionSample, Sample: smp}))
			at = at.Add(time.Millisecond)
		}
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// Without class files every method is modelled from its samples: calls at
// their sampled bytecode indices, a loop of its own where a site needs
// more calls than its method's executions. Two roots on one thread get a
// synthetic entry; recursion gets the deepest recorded depth as its limit.
func TestWithoutClassFiles(t *testing.T) {
	data := jfrJSON(t, []struct {
		thread string
		stack  []string
		n      int
	}{
		{"main", []string{"App.main@4", "App.work@10", "App.leaf@3"}, 60},
		{"main", []string{"App.main@4", "App.work@10"}, 20},
		{"main", []string{"App.main@9", "App.rec@2", "App.rec@2", "App.rec@5"}, 15},
		{"main", []string{"Boot.init@0"}, 5}, // a second root
		{"worker 1", []string{"W.run@1", "App.leaf@3"}, 30},
	})
	m, err := Import(bytes.NewReader(data), nil, Options{})
	require.NoError(t, err)
	r := m.Report
	assert.Equal(t, 130, r.Samples)
	assert.Equal(t, 2, r.Threads)
	assert.Len(t, r.NoClassFile, 6)
	assert.Equal(t, time.Millisecond, r.Period)
	p := m.Program
	require.NoError(t, p.Validate())
	require.Len(t, p.Threads, 2)
	assert.Equal(t, SyntheticClass+".main()V", p.Threads[0].Entry)
	assert.Equal(t, "worker 1", p.Threads[1].Name)
	assert.Equal(t, "W.run()V", p.Threads[1].Entry)
	for _, pm := range p.Methods {
		if pm.Name == "rec" {
			assert.Equal(t, 3, pm.RecursionLimit)
		}
	}
	// The model's call counts here are tiny (main runs once, rec's
	// recursion is a few draws), so one run is a coin toss: the expectation
	// is what the fit sets, checked on the truth summed over ten seeds.
	sum := map[string]float64{}
	for seed := uint64(2); seed < 12; seed++ {
		cfg := RunToEnd(harnessDefault(), &m.Report)
		cfg.Sim.Seed = seed
		truth, err := runHarness(m, cfg)
		require.NoError(t, err)
		for k, v := range truth.MethodWeights() {
			sum[k] += v
		}
	}
	_, x, y := profile.Align(sum, m.Recorded.MethodWeights())
	o := profile.Overlap(x, y)
	t.Logf("method overlap of the mean truth %.3f, refinement runs %v", o, m.Report.Refinement)
	assert.GreaterOrEqual(t, o, MinMethodOverlap)
}

func TestImportErrors(t *testing.T) {
	_, err := Import(strings.NewReader(`{"recording": {"events": []}}`), nil, Options{})
	require.ErrorContains(t, err, "no usable execution samples")
	_, err = Import(strings.NewReader(`{`), nil, Options{})
	require.ErrorIs(t, err, jfrjson.ErrShape)
	_, err = Import(strings.NewReader(`{"recording": {"events": []}}`), nil, Options{NanosPerByte: -1})
	require.ErrorContains(t, err, "nanos per byte")
	// Stacks cut at jfr print's default depth.
	deep := []string{"A.a@0", "A.b@0", "A.c@0", "A.d@0", "A.e@0", "A.f@0", "A.g@0"}
	data := jfrJSON(t, []struct {
		thread string
		stack  []string
		n      int
	}{{"main", deep[2:], 30}})
	_, err = Import(bytes.NewReader(data), nil, Options{})
	require.ErrorContains(t, err, "--stack-depth")
}

func TestEstimatePeriod(t *testing.T) {
	ms := int64(time.Millisecond)
	// Ticks every 1.5 ms, two threads sampled 20 µs apart in each.
	var times []int64
	for k := int64(0); k < 100; k++ {
		times = append(times, k*3*ms/2, k*3*ms/2+20_000)
	}
	assert.Equal(t, 3*time.Millisecond/2, EstimatePeriod(times))
	assert.Equal(t, 10*time.Millisecond, EstimatePeriod(times[:1]))
}

func TestRealizeTrips(t *testing.T) {
	for _, tc := range []struct {
		t, mean float64
		kind    string
	}{{1, 1, "constant"}, {1.2, 1, "constant"}, {1.3, 1.5, "uniform"}, {2.5, 2.5, "uniform"}, {7.8, 8, "constant"}, {1e6 + 0.4, 1e6 + 0.5, "uniform"}} {
		d, mean := realizeTrips(tc.t)
		assert.Equal(t, tc.mean, mean, "%v", tc.t)
		assert.Equal(t, tc.kind, d.Kind.String(), "%v", tc.t)
		assert.Equal(t, tc.mean, d.Mean(), "%v", tc.t)
	}
}

// workloads.ScaleEntryLoops recognises the import's synthetic entries by
// their class.
func TestSyntheticClassIsWorkloads(t *testing.T) {
	assert.Equal(t, SyntheticClass, workloads.SyntheticEntryClass)
}

// The recorder's own threads (IsRecorderThread: JDK 17's exact names and
// the event streams' prefix) are left out by default and counted in the
// report; an application thread whose name merely starts with "JFR" is
// kept; KeepRecorderThreads models them all.
func TestRecorderThreadsDropped(t *testing.T) {
	data := jfrJSON(t, []struct {
		thread string
		stack  []string
		n      int
	}{
		{"main", []string{"App.main@4", "App.work@10"}, 40},
		{"JFR Periodic Tasks", []string{"jdk.jfr.internal.PlatformRecorder.periodicTask@7"}, 6},
		{"JFR Recording Scheduler", []string{"java.util.TimerThread.run@1"}, 3},
		{"JFR Event Stream 2", []string{"jdk.jfr.internal.consumer.EventDirectoryStream.process@5"}, 2},
		{"JFR exporter", []string{"App.export@3"}, 4}, // the application's
	})
	m, err := Import(bytes.NewReader(data), nil, Options{})
	require.NoError(t, err)
	var names []string
	for _, th := range m.Program.Threads {
		names = append(names, th.Name)
	}
	assert.Equal(t, []string{"main", "JFR exporter"}, names)
	assert.Equal(t, []string{"JFR Periodic Tasks", "JFR Recording Scheduler", "JFR Event Stream 2"}, m.Report.Recorder)
	assert.Equal(t, 11, m.Report.RecorderSamples)
	assert.Equal(t, 44, m.Report.Samples)
	assert.Equal(t, 2, m.Report.Threads)
	assert.Equal(t, time.Millisecond, m.Report.Period, "the recorder's samples still mark sampling ticks")
	for _, pm := range m.Program.Methods {
		assert.NotContains(t, pm.Class, "jdk.jfr", "a recorder thread's method is in the model")
	}
	assert.Equal(t, 44*int64(time.Millisecond), m.Recorded.TotalWeight())

	m, err = Import(bytes.NewReader(data), nil, Options{KeepRecorderThreads: true})
	require.NoError(t, err)
	assert.Len(t, m.Program.Threads, 5)
	assert.Empty(t, m.Report.Recorder)
	assert.Equal(t, 55, m.Report.Samples)

	// A recording of the recorder alone has nothing to model.
	only := jfrJSON(t, []struct {
		thread string
		stack  []string
		n      int
	}{{"JFR Periodic Tasks", []string{"jdk.jfr.internal.PlatformRecorder.periodicTask@7"}, 6}})
	_, err = Import(bytes.NewReader(only), nil, Options{})
	require.ErrorContains(t, err, "6 of the recorder's own threads (JFR Periodic Tasks: --keep-recorder-threads models them)")
}
