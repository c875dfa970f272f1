package samplers

import (
	"bufio"
	"encoding/json"
	"io"
	"slices"
	"sort"
	"strconv"

	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/sim"
)

// Trace collects, for a run that asks for it, each thread sample's story:
// when it was requested, where the thread truly was at that moment, how the
// sampler took it and what it recorded — what only a simulator can show. A
// nil *Trace is off: samplers then pay one nil check per sample.
//
// Samplers that request a sample before taking it (the safepoint family,
// sps/isps) report the request with recorder.requestAll; the others take
// the sample at the moment of the request (a signal, a suspension), so the
// request is the sample's own time.
type Trace struct {
	w   *bufio.Writer
	err error
	// bias by sampler label, in the order the labels first sampled.
	bias   map[string]*Bias
	labels []string
	// keep, when set, keeps the records of samples taken in [keepFrom,
	// keepTo) or requested there (KeepWindow).
	keep             bool
	keepFrom, keepTo sim.Time
	kept             []TraceRecord
}

// KeepWindow makes the trace keep, in memory, the records of the samples
// requested or taken in [from, to) (Records): a timeline's window.
func (t *Trace) KeepWindow(from, to sim.Time) {
	t.keep, t.keepFrom, t.keepTo = true, from, to
}

// Records are the records KeepWindow kept, in the order they were taken.
func (t *Trace) Records() []TraceRecord { return t.kept }

// NewTrace starts a trace; w, when not nil, receives one JSON line per
// sample (TraceRecord).
func NewTrace(w io.Writer) *Trace {
	t := &Trace{bias: map[string]*Bias{}}
	if w != nil {
		t.w = bufio.NewWriter(w)
	}
	return t
}

// TraceRecord is one line of a trace file.
type TraceRecord struct {
	Sampler string `json:"sampler"`
	Thread  string `json:"thread"`
	// RequestedNS is when the sampler asked for the sample (a timer
	// tick); TakenNS when it was taken. WaitNS is the difference: the
	// time the thread ran on to the point where it could be sampled.
	RequestedNS int64 `json:"requested_ns"`
	TakenNS     int64 `json:"taken_ns"`
	WaitNS      int64 `json:"wait_ns"`
	// LateNS, for a sampler ticking on a fixed grid (async, the safepoint
	// family's fixed clock), is how late the request's timer tick fired
	// after its grid point: the timer's jitter.
	LateNS int64 `json:"late_ns,omitempty"`
	// True is the thread's exact stack at the request, root first, as
	// "Class.method:line"; TrueMethod its leaf's method.
	True       []string `json:"true"`
	TrueMethod string   `json:"true_method"`
	// Mechanism is how the sample was taken: "signal" (async, tprof: at
	// the thread's position when the signal came), "suspend" (jfr: the
	// thread suspended where it was), "poll:KIND" (at the poll the thread
	// reached after the request: backedge, return, prologue, epilogue,
	// native-exit, transition), "safepoint:KIND" (the same, stopped at a
	// global safepoint), "native" (safe in native code, walked there),
	// "waiting" (blocked, waiting or parked: walked where it waits),
	// "self:KIND" (it walked its own stack at a partial safepoint's poll).
	Mechanism string `json:"mechanism"`
	// Resolved says the top frames were mapped through debug information
	// (async, jfr): Recorded can differ from the exact position.
	Resolved bool `json:"resolved,omitempty"`
	// FramesWalked is the number of frames the sampler recorded.
	FramesWalked int `json:"frames_walked"`
	// Recorded is the stack recorded, root first; RecordedMethod the
	// method the sample is charged to (its leaf).
	Recorded       []string `json:"recorded"`
	RecordedMethod string   `json:"recorded_method"`
	// Skipped, when set, says why no sample came of the request: the
	// thread blocked, parked or ended before it reached a poll; a later
	// request superseded it; the stack walk failed. Recorded is empty.
	Skipped string `json:"skipped,omitempty"`
}

// Reasons a request gave no sample (TraceRecord.Skipped).
const (
	SkipTransition     = "the thread blocked, parked or ended before it reached a poll"
	SkipSuperseded     = "the thread reached no poll before the next request"
	SkipUndecipherable = "the stack walk failed: no debug record at or after the top frame's pc"
	SkipNative         = "the thread was in native code, which JFR's execution sampler does not sample"
	SkipStub           = "the stack walk failed: the thread was in a VM stub, which has no Java frame"
)

// Bias is one sampler's bias matrix: how its samples were charged against
// where the threads truly were when each was requested.
type Bias struct {
	Sampler string
	// Methods are the rows' and columns' methods: every method a sample
	// was truly in or charged to, most truly-sampled first (ties by name).
	Methods []string
	// Counts[i][j] counts samples requested while the thread was in
	// Methods[i] and charged to Methods[j]. A perfect profiler's matrix is
	// diagonal.
	Counts [][]int64
	Total  int64
	// Mechanisms counts samples by TraceRecord.Mechanism.
	Mechanisms map[string]int64
	// Skipped counts the requests that gave no sample, by reason
	// (TraceRecord.Skipped); they are not in Counts.
	Skipped map[string]int64
	// WaitMedian and WaitP90 are the median and 90th percentile of the
	// samples' waits from request to sample (TraceRecord.WaitNS).
	WaitMedian, WaitP90 sim.Time

	waits []int64

	cells map[[2]string]int64
	rows  map[string]int64
	cols  map[string]int64
}

// Diagonal is the share of samples charged to the method the thread was in
// when the sample was requested.
func (b *Bias) Diagonal() float64 {
	if b.Total == 0 {
		return 0
	}
	var d int64
	for i := range b.Methods {
		d += b.Counts[i][i]
	}
	return float64(d) / float64(b.Total)
}

// Share is the share of all samples requested in method truly and charged
// to method charged.
func (b *Bias) Share(truly, charged string) float64 {
	if b.Total == 0 {
		return 0
	}
	return float64(b.cells[[2]string{truly, charged}]) / float64(b.Total)
}

// Charged is the share of all samples charged to method m.
func (b *Bias) Charged(m string) float64 {
	if b.Total == 0 {
		return 0
	}
	return float64(b.cols[m]) / float64(b.Total)
}

func (b *Bias) add(truly, charged, mech string, wait int64) {
	b.waits = append(b.waits, wait)
	b.cells[[2]string{truly, charged}]++
	b.rows[truly]++
	b.cols[charged]++
	b.Mechanisms[mech]++
	b.Total++
}

// finish lays the counts out as a matrix and takes the waits' quantiles.
func (b *Bias) finish() {
	if n := len(b.waits); n > 0 {
		w := slices.Clone(b.waits)
		slices.Sort(w)
		b.WaitMedian, b.WaitP90 = sim.Time(w[(n-1)/2]), sim.Time(w[(n-1)*9/10])
	}
	seen := map[string]bool{}
	b.Methods = b.Methods[:0]
	for m := range b.rows {
		seen[m] = true
		b.Methods = append(b.Methods, m)
	}
	for m := range b.cols {
		if !seen[m] {
			b.Methods = append(b.Methods, m)
		}
	}
	sort.Slice(b.Methods, func(i, j int) bool {
		ri, rj := b.rows[b.Methods[i]], b.rows[b.Methods[j]]
		if ri != rj {
			return ri > rj
		}
		ci, cj := b.cols[b.Methods[i]], b.cols[b.Methods[j]]
		if ci != cj {
			return ci > cj
		}
		return b.Methods[i] < b.Methods[j]
	})
	b.Counts = make([][]int64, len(b.Methods))
	for i, r := range b.Methods {
		b.Counts[i] = make([]int64, len(b.Methods))
		for j, c := range b.Methods {
			b.Counts[i][j] = b.cells[[2]string{r, c}]
		}
	}
}

// Bias returns each sampler's bias matrix, in the order the samplers first
// sampled. Call it after the run.
func (t *Trace) Bias() []*Bias {
	out := make([]*Bias, 0, len(t.labels))
	for _, l := range t.labels {
		b := t.bias[l]
		b.finish()
		out = append(out, b)
	}
	return out
}

// Close flushes the trace file and returns the first write error.
func (t *Trace) Close() error {
	if t.w != nil && t.err == nil {
		t.err = t.w.Flush()
	}
	return t.err
}

func (t *Trace) record(r *TraceRecord) {
	b := t.bias[r.Sampler]
	if b == nil {
		b = &Bias{Sampler: r.Sampler, Mechanisms: map[string]int64{}, Skipped: map[string]int64{},
			cells: map[[2]string]int64{}, rows: map[string]int64{}, cols: map[string]int64{}}
		t.bias[r.Sampler] = b
		t.labels = append(t.labels, r.Sampler)
	}
	if r.Skipped != "" {
		b.Skipped[r.Skipped]++
	} else {
		b.add(r.TrueMethod, r.RecordedMethod, r.Mechanism, r.WaitNS)
	}
	if t.keep && r.TakenNS >= int64(t.keepFrom) && r.RequestedNS < int64(t.keepTo) {
		t.kept = append(t.kept, *r)
	}
	if t.w == nil || t.err != nil {
		return
	}
	line, err := json.Marshal(r)
	if err == nil {
		line = append(line, '\n')
		_, err = t.w.Write(line)
	}
	t.err = err
}

// traceRequest is a thread's outstanding sample request.
type traceRequest struct {
	at    sim.Time
	late  sim.Time
	stack []sim.StackFrame
	set   bool
}

// requestAll notes that a sample of each of ids was requested now (tracing
// only). With superseded, a request of a thread still outstanding is
// traced as skipped (SkipSuperseded); samplers that sample only some of
// the threads they note (sps/isps: K of them) pass false.
func (r *recorder) requestAll(ids []sim.ThreadID, superseded bool) {
	if r.trace == nil {
		return
	}
	for _, id := range ids {
		for int(id) >= len(r.reqs) {
			r.reqs = append(r.reqs, traceRequest{})
		}
		q := &r.reqs[id]
		if q.set && superseded {
			r.skip(id, SkipSuperseded)
		}
		q.at, q.late, q.set = r.vm.Now(), r.late, true
		q.stack = r.vm.Stack(id, q.stack[:0])
	}
}

// skip traces that the request of thread id gave no sample, and why.
func (r *recorder) skip(id sim.ThreadID, why string) {
	if r.trace == nil {
		return
	}
	now := r.vm.Now()
	rec := &TraceRecord{Sampler: r.source, Thread: r.vm.ThreadName(id), RequestedNS: int64(now), TakenNS: int64(now),
		LateNS: int64(r.late), Skipped: why, Recorded: []string{}}
	var truth []sim.StackFrame
	if int(id) < len(r.reqs) && r.reqs[id].set {
		q := &r.reqs[id]
		rec.RequestedNS, rec.LateNS, truth = int64(q.at), int64(q.late), q.stack
		q.set = false
	} else {
		r.buf = r.vm.Stack(id, r.buf[:0])
		truth = r.buf
	}
	rec.WaitNS = rec.TakenNS - rec.RequestedNS
	rec.True, rec.TrueMethod = r.names(truth)
	r.trace.record(rec)
}

// names is a stack as "Class.method:line", root first, and its leaf's
// method.
func (r *recorder) names(stack []sim.StackFrame) ([]string, string) {
	names := r.vm.Image().Names
	out := make([]string, 0, len(stack))
	for _, f := range stack {
		out = append(out, names[f.Method]+":"+strconv.Itoa(int(f.Line)))
	}
	if len(stack) == 0 {
		return out, ""
	}
	return out, names[stack[len(stack)-1].Method]
}

// note traces a sample of thread id just recorded as recorded (root
// first), taken by mech; exact is the thread's exact stack when it was
// taken, resolved says recorded went through debug information. Without
// an outstanding request the sample was requested when it was taken.
func (r *recorder) note(id sim.ThreadID, exact []sim.StackFrame, recorded []profile.Frame, mech string, resolved bool) {
	if r.trace == nil {
		return
	}
	now := r.vm.Now()
	rec := &TraceRecord{Sampler: r.source, Thread: r.vm.ThreadName(id), RequestedNS: int64(now),
		TakenNS: int64(now), Mechanism: mech, Resolved: resolved, FramesWalked: len(recorded)}
	truth := exact
	rec.LateNS = int64(r.late)
	if int(id) < len(r.reqs) && r.reqs[id].set {
		q := &r.reqs[id]
		rec.RequestedNS, rec.LateNS, truth = int64(q.at), int64(q.late), q.stack
		q.set = false
	}
	rec.WaitNS = rec.TakenNS - rec.RequestedNS
	rec.True, rec.TrueMethod = r.names(truth)
	fns := r.b.Functions()
	rec.Recorded = make([]string, 0, len(recorded))
	for _, f := range recorded {
		rec.Recorded = append(rec.Recorded, fns[f.Func].Name+":"+strconv.Itoa(int(f.Line)))
	}
	if len(recorded) > 0 {
		rec.RecordedMethod = fns[recorded[len(recorded)-1].Func].Name
	}
	r.trace.record(rec)
}
