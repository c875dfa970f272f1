package study

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/sim"
)

// TestX4_CooperativeSampling: JDK 25's cooperative sampler takes the top
// frame from the position recorded at the request, so the poll that
// decides *when* the thread walks does not decide *which method* is on
// top; what it still decides is whether a thread is sampled at all. On
// one execution per seed (seeds 1–3):
//   - hotcold without inlining: safepoint charges hot() to cold(), jfr-coop
//     finds it as jfr and async do;
//   - inlined without DebugNonSafepoints: jfr-coop skids as jfr does (the
//     same debug information, X1), and with it finds hot();
//   - a thread whose polls are 40 ms apart beside one polling every
//     microsecond: a request waits for the poll and the rounds pass over a
//     thread with one pending, so the slow-polling thread gets one sample
//     per 40 ms to the other's one per 20 ms (a third, not its half); jfr
//     and async, which walk at the request, give it its half.
func TestX4_CooperativeSampling(t *testing.T) {
	r := measure[*x4Result](t, "x4-cooperative-sampling")
	hot := func(x x4Sampler) float64 { return x.Hot }
	truthHot := func(x *x4Run) float64 { return x.TruthHot }
	const noInline, inl, dns = "hotcold, no inlining", "hotcold, inlined", "hotcold, inlined, DNS"
	assert.LessOrEqual(t, r.Stat(noInline, "safepoint", hot).Mean, x4Skid, "safepoint charges hot() to cold()")
	for _, s := range []string{"jfr-coop", "jfr", "async"} {
		assert.InDelta(t, r.Truth(noInline, truthHot).Mean, r.Stat(noInline, s, hot).Mean, x4TopFramePoints, "%s finds hot()", s)
		assert.LessOrEqual(t, r.Stat(inl, s, hot).Mean, x4Skid, "%s: inlined hot() has no debug record without DNS", s)
		assert.InDelta(t, r.Truth(dns, truthHot).Mean, r.Stat(dns, s, hot).Mean, x4TopFramePoints, "%s finds inlined hot() with DNS", s)
	}
	a := func(x x4Sampler) float64 { return x.ThreadA }
	truthA := r.Truth("pending", func(x *x4Run) float64 { return x.TruthA }).Mean
	require.InDelta(t, 50, truthA, 1, "the premise: two busy threads")
	assert.InDelta(t, x4PendingShare, r.Stat("pending", "jfr-coop", a).Mean, x4PendingPoints, "jfr-coop: the slow-polling thread gets a third")
	for _, s := range []string{"jfr", "async"} {
		assert.InDelta(t, truthA, r.Stat("pending", s, a).Mean, x4PendingPoints, "%s gives it its half", s)
	}
	returned := func(x x4Sampler) float64 { return x.Returned }
	assert.Zero(t, r.Stat("pending", "jfr-coop", returned).Mean, "every compiled return polls and corrects a request in its method")
	// A method with no debug record of its own (returnpoll's callee, not
	// inlined, poll-free but for its return): the request's pc has no
	// PcDesc, so at the return poll compute_top_frame cannot rebuild the
	// frame, the walk starts at the caller (returned), and the callee gets
	// nothing; jfr drops those samples, async names the callee at bci 0.
	callee := func(x x4Sampler) float64 { return x.Callee }
	truthCallee := r.Truth("returnpoll", func(x *x4Run) float64 { return x.TruthCallee }).Mean
	require.Greater(t, truthCallee, 40.0, "the premise: the callee has about half the time")
	assert.LessOrEqual(t, r.Stat("returnpoll", "jfr-coop", callee).Mean, x4Skid, "jfr-coop charges the callee to its caller")
	assert.InDelta(t, truthCallee, r.Stat("returnpoll", "jfr-coop", returned).Mean, x4ReturnedPoints, "jfr-coop: the callee's requests are the returned ones")
	assert.LessOrEqual(t, r.Stat("returnpoll", "jfr", callee).Mean, x4Skid, "jfr drops them")
	assert.Less(t, r.Stat("returnpoll", "jfr", func(x x4Sampler) float64 { return float64(x.Samples) }).Mean,
		r.Stat("returnpoll", "jfr-coop", func(x x4Sampler) float64 { return float64(x.Samples) }).Mean, "jfr takes fewer samples than jfr-coop")
	assert.InDelta(t, truthCallee, r.Stat("returnpoll", "async", callee).Mean, x4ReturnedPoints, "async names the callee at bci 0")
	assert.InDelta(t, truthCallee, r.Stat("returnpoll, DNS", "jfr-coop", callee).Mean, x4ReturnedPoints, "with DNS the callee has its records")
	assert.Zero(t, r.Stat("returnpoll, DNS", "jfr-coop", returned).Mean)
}

// x4ReturnedPoints: three binomial standard deviations of a 46.5 % share
// over three seeds of ≈ 49 jfr-coop samples each (147): 12.3 points.
const x4ReturnedPoints = 12.5

// x4TopFramePoints: three binomial standard deviations of hot()'s share
// (≈ 93 %) pooled over three seeds of ≈ 49 jfr-coop samples each (147):
// 6.3 points.
const x4TopFramePoints = 6.5

// x4Skid: a sampler that cannot name hot() gives it at most its few
// samples from before C2 inlined it (X1's x1NoDNSMax, at this length).
const x4Skid = 5.0

// x4PendingShare: thread a polls every 40 ms, thread b every 1 µs; at a
// 20 ms period a's request waits for its poll and the next round passes a
// over: a is sampled every 40 ms, b every 20 ms, so a has a third.
const x4PendingShare = 100.0 / 3

// x4PendingPoints: about 147 jfr-coop samples over the three seeds; the
// rounds' 375 µs jitter moves a round past a's poll now and then; 3
// points (measured 33.33 on every seed).
const x4PendingPoints = 3.0

// TestX4_Models: on the models of the DaCapo applications (2 s, HotSpot
// 17 defaults, no DebugNonSafepoints) JDK 25's cooperative sampler and
// JDK 17's JFR agree with each other on the models — they name the top
// frame through the same debug information and both skip threads in
// native code — so removing the top frame's safepoint bias moves their
// method profiles little; their error against the truth is the skid and
// the native time (X1, issue 32), where the safepoint sampler, which
// walks threads in native code, is ahead on antlr and chart. A model
// where they differ by more than x4ModelCoopJfr is logged (none does:
// at most 3.2 points, hsqldb-real).
func TestX4_Models(t *testing.T) {
	r := measureModels[*x4Result](t, "x4-cooperative-sampling")
	m := func(x x4Sampler) float64 { return x.Methods }
	agree := 0
	for _, b := range r.Benches {
		coop, jfr := r.Stat(b.Name, "jfr-coop", m).Mean, r.Stat(b.Name, "jfr", m).Mean
		if math.Abs(coop-jfr) <= x4ModelCoopJfr {
			agree++
		} else {
			diverges(t, "%s: jfr-coop's method overlap with the truth is %.1f, jfr's %.1f", b.Name, coop, jfr)
		}
		t.Logf("%s: method overlap jfr-coop %.1f, jfr %.1f, safepoint %.1f, async %.1f", b.Name, coop, jfr, r.Stat(b.Name, "safepoint", m).Mean, r.Stat(b.Name, "async", m).Mean)
	}
	assert.GreaterOrEqual(t, 2*agree, len(r.Benches), "jfr-coop and jfr agree on most models")
}

// x4ModelCoopJfr: jfr and jfr-coop take their rounds on their own jitter
// streams, ≈ 100 samples a seed; their seeds' 95 % CIs are 0.4–8 points
// wide; 5 points between their means (measured ≤ 3.2 on every model).
const x4ModelCoopJfr = 5.0

// An X4 run of a study's own program (x4-pending, a built-in) replayed
// from its `profsim run` arguments gives the same profiles.
func TestX4_SpecArgsReplay(t *testing.T) {
	var b x4Bench
	for _, x := range x4Benches(DefaultOptions()) {
		if x.Prog == x4PendingProg {
			b = x
		}
	}
	require.Equal(t, x4PendingProg, b.Prog)
	b.D = 200 * sim.Millisecond
	out := replaySpec(t, b.spec(2))
	assert.Equal(t, append([]string{"truth"}, x4Samplers...), out.Names)
	for _, s := range x4Samplers {
		assert.Positive(t, out.Profiles[s].TotalCount(), s)
	}
}
