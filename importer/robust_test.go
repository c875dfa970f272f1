package importer

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/classfile"
	"github.com/profsim/profsim/jfrjson"
)

// stacks is jfrJSON's input: per entry, n samples of one stack.
type stacks = []struct {
	thread string
	stack  []string
	n      int
}

// Two calls of a method without a class file one byte apart: each site
// is given an invoke's 3 bytes, so the second overlaps the first and is
// moved past it. Its callers' entries and the site map must still agree
// (a nil site in fitCalls before).
func TestOverlappingCallSites(t *testing.T) {
	data := jfrJSON(t, stacks{
		{"main", []string{"A.main@0", "B.b@0"}, 10},
		{"main", []string{"A.main@1", "C.c@0"}, 10},
		{"main", []string{"A.main@2", "C.c@4", "D.d@7"}, 10},
		{"main", []string{"A.main@3"}, 10},
	})
	m, err := Import(bytes.NewReader(data), nil, Options{})
	require.NoError(t, err)
	require.NoError(t, m.Program.Validate())
	for i := range m.Recorded.Samples {
		for _, f := range m.Recorded.Stack(i, nil) {
			assert.NotZero(t, f.Line, "every recorded frame maps to a statement")
		}
	}
}

// deepStackFrames is the depth the report used.
const deepStackFrames = 100_000

// deepStackTime bounds the import of two 100 000-frame stacks (37 MB of
// JSON): 1.3 s measured on the 2-core test machine, so 20 s only fails on
// a super-linear cost.
const deepStackTime = 20 * time.Second

// 100 000-frame stacks, a recursion of seven methods through varying
// bytecode indices (overlapping sites, as above), import without a panic
// and in time linear in the frames.
func TestDeepStacks(t *testing.T) {
	st := []string{"A.main@0"}
	for i := 0; i < deepStackFrames; i++ {
		st = append(st, fmt.Sprintf("M%d.m@%d", i%7, (i*13)%11))
	}
	data := jfrJSON(t, stacks{{"main", st, 3}, {"main", st[:5000], 2}})
	start := time.Now()
	m, err := Import(bytes.NewReader(data), nil, Options{})
	require.NoError(t, err)
	took := time.Since(start)
	t.Logf("%d bytes of JSON imported in %v", len(data), took)
	assert.Less(t, took, deepStackTime)
	require.NoError(t, m.Program.Validate())
	assert.Equal(t, 5, m.Report.Samples)
	assert.Equal(t, deepStackFrames+1, m.Report.Deepest)
	require.Len(t, m.Report.Warnings, 1)
	assert.Contains(t, m.Report.Warnings[0], "more than the simulator's max_stack_depth 4096")
}

// at is a sample time: ms milliseconds after the recordings' origin.
func at(ms float64) time.Time {
	return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(ms * float64(time.Millisecond)))
}

// sample is one execution sample on thread, its stack root first as
// "Class.method@bci" frames of type ft.
func sample(when time.Time, thread string, ft jfrjson.FrameType, stack ...string) *jfrjson.Sample {
	s := &jfrjson.Sample{Time: when, Thread: jfrjson.Thread{Name: thread, JavaID: int64(len(thread)), IsJava: true}}
	for i := len(stack) - 1; i >= 0; i-- {
		cm, bci, _ := strings.Cut(stack[i], "@")
		class, name, _ := strings.Cut(cm, ".")
		b, _ := strconv.Atoi(bci)
		s.Frames = append(s.Frames, jfrjson.Frame{Method: jfrjson.Method{Class: class, Name: name, Descriptor: "()V"}, BCI: b, Type: ft})
	}
	return s
}

// recordingOf writes samples as jfr print's JSON.
func recordingOf(t testing.TB, samples ...*jfrjson.Sample) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := jfrjson.NewWriter(&buf)
	for _, s := range samples {
		require.NoError(t, w.Write(&jfrjson.Event{Type: jfrjson.TypeExecutionSample, Sample: s}))
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// modelSpendsRecordedTime runs m to its end and checks that its truth
// holds the recording's CPU time: within modelTimeTolerance of samples ×
// period.
func modelSpendsRecordedTime(t *testing.T, m *Model) {
	t.Helper()
	truth, err := runHarness(m, RunToEnd(harnessDefault(), &m.Report))
	require.NoError(t, err)
	want := float64(m.Report.Samples) * float64(m.Report.Period)
	got := float64(truth.TotalWeight())
	t.Logf("truth %v, recorded %v", time.Duration(got), time.Duration(want))
	assert.InDelta(t, 1, got/want, modelTimeTolerance, "truth %v against %v recorded", time.Duration(got), time.Duration(want))
}

// modelTimeTolerance: after one refinement run a model of these few
// straight-line methods spends its recorded time but for a few fixed
// costs of calls and polls (measured: 22 ns in 12 ms, 2e-6).
const modelTimeTolerance = 0.001

// Every degenerate recording is refused with an error that names the
// problem, or imported with a warning that says what was assumed.
func TestDegenerateRecordings(t *testing.T) {
	const n = 6
	var oneInstant, oneSample, oneTick, backwards, native, idle []*jfrjson.Sample
	for i := 0; i < n; i++ {
		oneInstant = append(oneInstant, sample(at(0), fmt.Sprintf("t%d", i%2), jfrjson.JITCompiled, "A.main@0", "A.work@3"))
		oneTick = append(oneTick, sample(at(0.01*float64(i)), "main", jfrjson.JITCompiled, "A.main@0", "A.work@3"))
		// Before 1970 and in reverse order.
		backwards = append(backwards, sample(time.Unix(0, 0).Add(-time.Duration(i)*time.Millisecond), "main", jfrjson.JITCompiled, "A.main@0", "A.work@3"))
		native = append(native, sample(at(float64(i)), "main", jfrjson.Native, "N.root@0", "N.leaf@0"))
		idle = append(idle, sample(at(float64(i)), "main", jfrjson.JITCompiled, "A.main@0"))
		idle = append(idle, &jfrjson.Sample{Time: at(float64(i)), Thread: jfrjson.Thread{Name: "idle", JavaID: 9, IsJava: true}})
	}
	oneSample = oneInstant[:1]
	empty := []*jfrjson.Sample{{Time: at(0), Thread: jfrjson.Thread{Name: "main", JavaID: 1, IsJava: true}}, {Time: at(1), Thread: jfrjson.Thread{Name: "main", JavaID: 1, IsJava: true}}}
	truncated := []*jfrjson.Sample{sample(at(0), "main", jfrjson.JITCompiled, "A.main@0"), sample(at(1), "main", jfrjson.JITCompiled, "A.main@0")}
	for _, s := range truncated {
		s.Truncated = true
	}
	monthApart := []*jfrjson.Sample{sample(at(0), "main", jfrjson.JITCompiled, "A.main@0"), sample(at(0).Add(MaxRecorded+time.Hour), "main", jfrjson.JITCompiled, "A.main@0")}

	for _, tc := range []struct {
		name    string
		samples []*jfrjson.Sample
		opt     Options
		err     string       // refused with this error
		from    PeriodSource // else imported with this period
		period  time.Duration
		warn    string // and this warning
	}{
		{name: "no samples", err: "no usable execution samples (jdk.ExecutionSample): 0 truncated, 0 with no frames"},
		{name: "no frames", samples: empty, err: "0 truncated, 2 with no frames"},
		{name: "all truncated", samples: truncated, err: "2 truncated, 0 with no frames"},
		{name: "one instant", samples: oneInstant, from: PeriodDefault, period: DefaultPeriod, warn: "all 6 samples fall in one sampling tick"},
		{name: "one sample", samples: oneSample, from: PeriodDefault, period: DefaultPeriod, warn: "all 1 samples fall in one sampling tick"},
		{name: "one tick", samples: oneTick, from: PeriodDefault, period: DefaultPeriod, warn: "all 6 samples fall in one sampling tick (50µs"},
		{name: "one instant, period given", samples: oneInstant, opt: Options{Period: 2 * time.Millisecond}, from: PeriodGiven, period: 2 * time.Millisecond},
		{name: "backwards before 1970", samples: backwards, from: PeriodEstimated, period: time.Millisecond},
		{name: "native frames only", samples: native, from: PeriodEstimated, period: time.Millisecond, warn: "6 of 6 samples have no Java frame"},
		{name: "a thread never usable", samples: idle, from: PeriodEstimated, period: time.Millisecond, warn: `thread "idle": none of its samples has a usable stack`},
		{name: "period below the floor", samples: oneInstant, opt: Options{Period: time.Nanosecond}, err: "period: 1ns is below 1µs"},
		{name: "span beyond the limit", samples: monthApart, err: "the samples span 721h0m0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.Refine = 1 // the fit's expectation assumes compiled code; these run interpreted
			m, err := Import(bytes.NewReader(recordingOf(t, tc.samples...)), nil, tc.opt)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			r := &m.Report
			assert.Equal(t, tc.from, r.PeriodFrom)
			assert.Equal(t, tc.period, r.Period)
			if tc.warn == "" {
				assert.Empty(t, r.Warnings)
			} else {
				require.Len(t, r.Warnings, 1)
				assert.Contains(t, r.Warnings[0], tc.warn)
			}
			require.NoError(t, m.Program.Validate())
			modelSpendsRecordedTime(t, m)
		})
	}
}

// cancelLatency bounds how long a refinement takes to notice its
// context is done: the simulator looks once per scheduling round
// (sim.VM.SetContext), so a few ms; 2 s allows a loaded machine.
const cancelLatency = 2 * time.Second

// A refinement run stops once the context is done: ImportContext
// returns the context's error promptly, not after the remaining runs
// (before: 100 runs of the hsqldb model, 35 s, and no error).
func TestRefineStopsOnCancel(t *testing.T) {
	data, err := os.ReadFile("testdata/hsqldb/hsqldb.json")
	require.NoError(t, err)
	cp, err := classfile.OpenClasspath("testdata/hsqldb/classes")
	require.NoError(t, err)
	defer cp.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelled := make(chan time.Time, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		cancelled <- time.Now()
		cancel()
	}()
	// Ten times the estimated period: each run plays out 9 s, about 3 s
	// of CPU, so the cancel lands inside one.
	m, err := ImportContext(ctx, bytes.NewReader(data), cp, Options{Refine: 100, Period: 30 * time.Millisecond})
	end := time.Now()
	require.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, m)
	assert.Less(t, end.Sub(<-cancelled), cancelLatency)

	// A context done before the import: not a single event is used.
	_, err = ImportContext(ctx, bytes.NewReader(data), nil, Options{})
	require.ErrorIs(t, err, context.Canceled)
}
