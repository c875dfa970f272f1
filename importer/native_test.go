package importer

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/jfrjson"
	"github.com/profsim/profsim/program"
)

// nativeRecording is 100 sampling ticks 1 ms apart of thread main: at
// three ticks of five it runs Java code (App.main@4 → App.work, an
// execution sample), at the other two it is in the native method
// App.nat called at App.main@9 (a native method sample). withIdle adds a
// thread "idle" seen only in native code, at main's native ticks.
func nativeRecording(t testing.TB, withNative, withIdle bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := jfrjson.NewWriter(&buf)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	main := jfrjson.Thread{Name: "main", JavaID: 1, IsJava: true}
	frame := func(class, name string, bci int, typ jfrjson.FrameType) jfrjson.Frame {
		return jfrjson.Frame{Method: jfrjson.Method{Class: class, Name: name, Descriptor: "()V"}, BCI: bci, Type: typ}
	}
	for k := 0; k < 100; k++ {
		tick := at.Add(time.Duration(k) * time.Millisecond)
		if k%5 < 3 {
			s := &jfrjson.Sample{Time: tick, Thread: main, Frames: []jfrjson.Frame{frame("App", "work", 2, jfrjson.JITCompiled), frame("App", "main", 4, jfrjson.JITCompiled)}}
			require.NoError(t, w.Write(&jfrjson.Event{Type: jfrjson.TypeExecutionSample, Sample: s}))
			continue
		}
		if !withNative {
			continue
		}
		s := &jfrjson.Sample{Time: tick, Thread: main, Frames: []jfrjson.Frame{frame("App", "nat", 0, jfrjson.Native), frame("App", "main", 9, jfrjson.JITCompiled)}}
		require.NoError(t, w.Write(&jfrjson.Event{NativeSample: s}))
		if withIdle {
			s := &jfrjson.Sample{Time: tick.Add(20 * time.Microsecond), Thread: jfrjson.Thread{Name: "idle", JavaID: 2, IsJava: true},
				Frames: []jfrjson.Frame{frame("Idle", "accept", 0, jfrjson.Native), frame("Idle", "run", 7, jfrjson.Interpreted)}}
			require.NoError(t, w.Write(&jfrjson.Event{NativeSample: s}))
		}
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// A native method sample of a model thread becomes native time of its
// native method, called at its Java caller's call site; the native
// samples' ticks are sampling ticks; a thread seen only in native code is
// not modelled.
func TestNativeMethodSamples(t *testing.T) {
	// Two refinement runs: App.work, called once, never compiles and runs
	// at the interpreter's ten times its cost until they rescale it.
	m, err := Import(bytes.NewReader(nativeRecording(t, true, true)), nil, Options{Refine: 2})
	require.NoError(t, err)
	r := m.Report
	assert.Equal(t, 60, r.Samples)
	assert.Equal(t, 40, r.NativeSamples)
	assert.Equal(t, 40, r.NativeOther)
	assert.Equal(t, []string{"idle"}, r.NativeOtherThreads)
	// 100 ticks over 99 ms: without the native ticks, 60 ticks over 97 ms
	// (1.64 ms a sample) would give main's Java code its native time.
	assert.Equal(t, time.Millisecond, r.Period)
	assert.Equal(t, 100, r.Ticks)
	require.NotEmpty(t, r.Warnings)
	assert.Contains(t, r.Warnings[len(r.Warnings)-1], `40 native method samples of 1 threads without execution samples (idle)`)

	p := m.Program
	require.Len(t, p.Threads, 1, "idle is not a model thread")
	assert.Equal(t, "main", p.Threads[0].Name)
	var nat *program.Method
	for i := range p.Methods {
		if p.Methods[i].Name == "nat" {
			nat = &p.Methods[i]
		}
		assert.NotEqual(t, "Idle", p.Methods[i].Class)
	}
	require.NotNil(t, nat)
	// Its body is native code worth its 40 samples over its calls.
	var cycles float64
	var walk func(stmts []program.Stmt, x float64)
	walk = func(stmts []program.Stmt, x float64) {
		for _, s := range stmts {
			require.Nil(t, s.Work, "a native method has no bytecode work")
			switch {
			case s.Native != nil:
				cycles += x * float64(s.Native.Cycles)
			case s.Branch != nil:
				walk(s.Branch.Then, x*s.Branch.Probability)
			}
		}
	}
	walk(nat.Body, 1)
	require.Positive(t, cycles)
	// main is called once and calls nat once (a site outside loops).
	assert.InDelta(t, float64(40*time.Millisecond), cycles, 1)

	// The recording's profile holds the native time: 40 %.
	w := m.Recorded.MethodWeights()
	var total float64
	for _, v := range w {
		total += v
	}
	assert.InDelta(t, 0.4, w["App.nat"]/total, 1e-9)

	// The model runs it: the truth's share of App.nat is the recording's.
	truth, err := runHarness(m, RunToEnd(harnessDefault(), &m.Report))
	require.NoError(t, err)
	tw := truth.MethodWeights()
	var tt float64
	for _, v := range tw {
		tt += v
	}
	assert.InDelta(t, 0.4, tw["App.nat"]/tt, nativeShareTolerance)
}

// nativeShareTolerance bounds a one-run truth share against the
// recording's after refinement: main runs once and calls each callee
// once, so nothing is drawn and only the refinement's rescaling of
// App.work (to its recorded time less the run's fixed costs) can leave a
// difference, of a few cycles in 10^8.
const nativeShareTolerance = 1e-6

// A recording without native method samples imports as it did before
// they were read: nothing native, the period from the execution samples'
// ticks alone.
func TestNoNativeSamplesNoNativeTime(t *testing.T) {
	m, err := Import(bytes.NewReader(nativeRecording(t, false, false)), nil, Options{})
	require.NoError(t, err)
	assert.Zero(t, m.Report.NativeSamples)
	assert.Equal(t, 60, m.Report.Ticks)
	for _, pm := range m.Program.Methods {
		assert.NotEqual(t, "nat", pm.Name)
		program.Walk(pm.Body, func(s *program.Stmt) { assert.Nil(t, s.Native, pm.Name) })
	}
}

// A tick at which the thread's Java code could not be walked leaves no
// sample: that time is Java code's, not shared with native code. Here 40
// of 100 ticks find main in native code, 20 in Java code, and 40 (in Java
// code, the walk failing) leave nothing: native code is 40 % of main's
// time, not the 67 % that weighing every sample alike would give. Main's
// samples span ticks 0 to 97: 98 ms, of which 40 native.
func TestFailedTicksAreJavaTime(t *testing.T) {
	var buf bytes.Buffer
	w := jfrjson.NewWriter(&buf)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	main := jfrjson.Thread{Name: "main", JavaID: 1, IsJava: true}
	frame := func(name string, bci int, typ jfrjson.FrameType) jfrjson.Frame {
		return jfrjson.Frame{Method: jfrjson.Method{Class: "App", Name: name, Descriptor: "()V"}, BCI: bci, Type: typ}
	}
	for k := 0; k < 100; k++ {
		tick := at.Add(time.Duration(k) * time.Millisecond)
		switch k % 5 {
		case 0, 1:
			s := &jfrjson.Sample{Time: tick, Thread: main, Frames: []jfrjson.Frame{frame("nat", 0, jfrjson.Native), frame("main", 9, jfrjson.JITCompiled)}}
			require.NoError(t, w.Write(&jfrjson.Event{NativeSample: s}))
		case 2:
			s := &jfrjson.Sample{Time: tick, Thread: main, Frames: []jfrjson.Frame{frame("work", 2, jfrjson.JITCompiled), frame("main", 4, jfrjson.JITCompiled)}}
			require.NoError(t, w.Write(&jfrjson.Event{Sample: s}))
		}
	}
	require.NoError(t, w.Close())
	m, err := Import(bytes.NewReader(buf.Bytes()), nil, Options{})
	require.NoError(t, err)
	r := m.Report
	assert.Equal(t, time.Millisecond, r.Tick, "the gaps are 1, 1 and 3 ms: the sampler's period is the short one")
	assert.Equal(t, 2900*time.Microsecond, r.Period, "(98 ms − 40 native ticks) / 20 execution samples")
	assert.Equal(t, 40, r.NativeSamples)
	assert.Equal(t, 14, r.NativeModelled, "40 ticks of 1 ms in samples of 2.9 ms, rounded")
	wts := m.Recorded.MethodWeights()
	assert.InDelta(t, 14.0/34, wts["App.nat"]/(wts["App.nat"]+wts["App.work"]), 1e-9, "40/98 = 0.408 but for the rounding")
}
