package harness

import (
	"testing"

	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// spinners is two threads that never stop computing: on 2 CPUs with no
// JIT, GC or costed sampler, both CPUs are busy with them all the time.
const spinners = `
name: spinners
methods:
  - {class: A, name: spin, body: [{loop: {trips: 1000000000, body: [{work: {cycles: 1000, bytecodes: 10}}]}}]}
threads: [{name: s, entry: A.spin, count: 2}]
`

// phases runs A.early for 70 ms and then A.late until the end.
const phases = `
name: phases
methods:
  - {class: A, name: main, body: [{call: {method: A.early}}, {call: {method: A.late}}]}
  - {class: A, name: early, body: [{loop: {trips: 70, body: [{work: {cycles: 1000000, bytecodes: 10}}]}}]}
  - {class: A, name: late, body: [{loop: {trips: 1000000000, body: [{work: {cycles: 1000000, bytecodes: 10}}]}}]}
threads: [{name: main, entry: A.main}]
`

func parse(t *testing.T, yaml string) *program.Program {
	t.Helper()
	p, err := program.Parse([]byte(yaml), program.YAML)
	require.NoError(t, err)
	return p
}

// total is a profile's summed sample weight.
func total(p *profile.Profile) int64 {
	var n int64
	for _, s := range p.Samples {
		n += s.Weight
	}
	return n
}

// selfOf is method name's summed self weight in p.
func selfOf(p *profile.Profile, name string) int64 {
	var n int64
	for _, s := range p.Samples {
		c := p.Contexts[s.Context]
		if p.Functions[c.Frame.Func].Name == name {
			n += s.Weight
		}
	}
	return n
}

// With ProfileFrom, the truth holds exactly the window's CPU: (duration −
// skip) × the busy CPUs.
func TestProfileFromTruthIsTheWindow(t *testing.T) {
	cfg := MustPresetConfig("hotspot6")
	cfg.NoJIT, cfg.GC = true, nil
	cfg.Sim.CPUs, cfg.Sim.Duration = 2, 100*sim.Millisecond
	// The threads start 5 µs into the run; from then on both CPUs are
	// theirs.
	for _, skip := range []sim.Time{sim.Millisecond, 37 * sim.Millisecond, 99 * sim.Millisecond} {
		cfg.ProfileFrom = skip
		out, err := Run(parse(t, spinners), cfg)
		require.NoError(t, err)
		want := int64(2 * (cfg.Sim.Duration - skip))
		assert.Equal(t, want, total(out.Profiles["truth"]), "skip %v: truth", skip)
		assert.Equal(t, want, int64(out.Result.AppCPU()), "skip %v: application CPU", skip)
		assert.Equal(t, want, int64(out.Result.Truth.SelfTotal()), "skip %v: truth's self total", skip)
		assert.Equal(t, skip, out.Result.From)
		for _, th := range out.Result.Threads {
			if th.Service {
				continue
			}
			assert.Equal(t, cfg.Sim.Duration-skip, th.CPU(), "skip %v: thread %s's CPU", skip, th.Name)
		}
	}
}

// The window splits a run with JIT, GC and costed samplers exactly too:
// the application's CPU is the truth's, and the run itself is the run
// without a window (the same statements by the end).
func TestProfileFromKeepsTheInvariantAndTheRun(t *testing.T) {
	p, err := workloads.Get("jython")
	require.NoError(t, err)
	cfg := MustPresetConfig("hotspot6")
	cfg.Sim.Duration = 200 * sim.Millisecond
	whole, err := Run(p, cfg)
	require.NoError(t, err)
	cfg.ProfileFrom = 80 * sim.Millisecond
	win, err := Run(p, cfg)
	require.NoError(t, err)
	assert.Equal(t, win.Result.AppCPU(), win.Result.Truth.SelfTotal())
	assert.Equal(t, win.Result.AppCPU(), sim.Time(total(win.Profiles["truth"])))
	assert.Less(t, win.Result.AppCPU(), whole.Result.AppCPU())
	assert.Equal(t, whole.Result.End, win.Result.End, "the run is the same run")

	cfg.Samplers, cfg.Mode = []string{"async", "jfr", "safepoint"}, samplers.Costed
	costed, err := Run(p, cfg)
	require.NoError(t, err)
	assert.Equal(t, costed.Result.AppCPU(), costed.Result.Truth.SelfTotal())
	for _, name := range cfg.Samplers {
		for _, at := range costed.Costs[name].SampleTimes {
			require.GreaterOrEqual(t, at, int64(cfg.ProfileFrom), "%s sampled before the window", name)
		}
	}
}

// A sampler starts at ProfileFrom: on a perfect clock its ticks are the
// grid points after it, so its requests and samples are the window's.
func TestProfileFromStartsTheSamplers(t *testing.T) {
	cfg := MustPresetConfig("hotspot6")
	cfg.NoJIT, cfg.GC = true, nil
	cfg.Sim.CPUs, cfg.Sim.Duration = 2, 100*sim.Millisecond
	cfg.Samplers = []string{"async,engine=wall,interval=1ms,jitter=0", "jfr:perfect,jitter=0"}
	run := func(skip sim.Time) *Outcome {
		cfg.ProfileFrom = skip
		out, err := Run(parse(t, spinners), cfg)
		require.NoError(t, err)
		return out
	}
	const skip = 60 * sim.Millisecond
	whole, win := run(0), run(skip)
	// async's wall engine signals both spinners every period from a
	// period after its start; jfr takes one request a round.
	for _, c := range []struct {
		name    string
		period  sim.Time
		perTick int64
	}{{"async", sim.Millisecond, 2}, {"jfr:perfect", 20 * sim.Millisecond, 1}} {
		w, s := whole.Costs[c.name], win.Costs[c.name]
		// skip is a whole number of periods: the window's ticks are the
		// whole run's after it, and so are its samples.
		assert.Equal(t, w.Requested-c.perTick*int64(skip/c.period), s.Requested, c.name)
		var after []int64
		for _, at := range w.SampleTimes {
			if at > int64(skip) {
				after = append(after, at)
			}
		}
		require.NotEmpty(t, after, c.name)
		assert.Equal(t, after, s.SampleTimes, c.name)
		assert.Equal(t, int64(len(after)), s.Taken, c.name)
		var n int64
		for _, smp := range win.Profiles[c.name].Samples {
			n += smp.Count
		}
		assert.Equal(t, s.Taken, n, c.name)
	}
	// async's wall engine samples both threads at every tick: its count
	// scales with the window, 39 ticks of 1 ms in (60 ms, 100 ms) against
	// 99.
	assert.Equal(t, int64(2*99), whole.Costs["async"].Taken)
	assert.Equal(t, int64(2*39), win.Costs["async"].Taken)
}

// A program whose behaviour changes over time: the truth's hottest method
// is the early phase's over the whole run and the late one's past the
// change, where the early phase has no time at all.
func TestProfileFromSeesTheLaterPhase(t *testing.T) {
	cfg := MustPresetConfig("hotspot6")
	cfg.NoJIT, cfg.GC = true, nil
	cfg.Sim.CPUs, cfg.Sim.Duration = 1, 100*sim.Millisecond
	cfg.Samplers = []string{"async"}
	out, err := Run(parse(t, phases), cfg)
	require.NoError(t, err)
	truth := out.Profiles["truth"]
	assert.Greater(t, selfOf(truth, "A.early"), selfOf(truth, "A.late"))

	cfg.ProfileFrom = 80 * sim.Millisecond
	out, err = Run(parse(t, phases), cfg)
	require.NoError(t, err)
	for _, name := range []string{"truth", "async"} {
		p := out.Profiles[name]
		assert.Zero(t, selfOf(p, "A.early"), "%s: the early phase is over by the window", name)
		assert.Equal(t, total(p), selfOf(p, "A.late"), name)
	}
	assert.Equal(t, int64(20*sim.Millisecond), selfOf(out.Profiles["truth"], "A.late"))
}

// Config.Window's windows start at ProfileFrom.
func TestProfileFromStartsTheWindows(t *testing.T) {
	cfg := MustPresetConfig("hotspot6")
	cfg.NoJIT, cfg.GC = true, nil
	cfg.Sim.CPUs, cfg.Sim.Duration = 2, 100*sim.Millisecond
	cfg.Samplers = []string{"async,interval=1ms,jitter=0"}
	cfg.ProfileFrom, cfg.Window = 60*sim.Millisecond, 10*sim.Millisecond
	out, err := Run(parse(t, spinners), cfg)
	require.NoError(t, err)
	ws := out.Windows["async"]
	require.Len(t, ws, 4, "40 ms in windows of 10 ms")
	for i, w := range ws {
		assert.NotEmpty(t, w.Samples, "window %d", i)
	}
}

// ProfileFrom outside the run, or with what cannot start late, is refused.
func TestProfileFromRefused(t *testing.T) {
	for _, c := range []struct {
		from     sim.Time
		samplers []string
		inline   string
		want     string
	}{
		{from: -1, want: "profile_from: -1ns must be ≥ 0"},
		{from: 100 * sim.Millisecond, want: "profile_from: 100ms must be before the end of the run"},
		{from: sim.Millisecond, samplers: []string{"komorium"}, want: "profile_from: sampler komorium instruments the program"},
		{from: sim.Millisecond, samplers: []string{"cbs"}, inline: "cbs", want: "profile_from: the JIT's inlining reads sampler cbs"},
	} {
		cfg := MustPresetConfig("jikes")
		cfg.Sim.Duration = 100 * sim.Millisecond
		cfg.ProfileFrom, cfg.Samplers, cfg.InlineFrom = c.from, c.samplers, c.inline
		err := cfg.Validate()
		require.Error(t, err, c.want)
		assert.Contains(t, err.Error(), c.want)
	}
}

// The window's copy of the counts is in the run's memory estimate from
// when it is made, and a run it takes over --max-memory stops there.
func TestProfileFromCountsItsMark(t *testing.T) {
	p, err := workloads.Get("jython")
	require.NoError(t, err)
	cfg := MustPresetConfig("hotspot6")
	cfg.Sim.Duration, cfg.ProfileFrom = 100*sim.Millisecond, 50*sim.Millisecond
	// Without a truth profile the estimate is what the run checks as it
	// goes (the profile's share is counted at its end).
	cfg.NoTruthProfile = true
	r, err := Build(p, cfg)
	require.NoError(t, err)
	r.RunUntil(cfg.ProfileFrom - 1)
	before := r.VM().Footprint()
	assert.Zero(t, before.MarkBytes)
	r.RunUntil(cfg.ProfileFrom + 1)
	after := r.VM().Footprint()
	// A line cell is 16 bytes: the mark holds at least the truth's.
	assert.Greater(t, after.MarkBytes, 16*before.Lines)
	assert.GreaterOrEqual(t, after.Bytes()-before.Bytes(), after.MarkBytes)

	cfg.Sim.Limits.MaxMemory = before.Bytes() + after.MarkBytes/2
	_, err = Run(p, cfg)
	var le *sim.LimitError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "memory", le.Limit)
	assert.Equal(t, cfg.ProfileFrom, le.At)
}

// A program that ends before ProfileFrom leaves nothing to profile:
// Collect says so with an EmptyWindowError (it dereferenced the samplers
// that never attached), for samplers of every kind.
func TestProfileFromAfterTheProgramEnds(t *testing.T) {
	const short = `
name: short
methods:
  - {class: A, name: main, body: [{loop: {trips: 10, body: [{work: {cycles: 100000, bytecodes: 10}}]}}]}
threads: [{name: main, entry: A.main}]
`
	cfg := MustPresetConfig("hotspot6")
	cfg.Sim.Duration = 100 * sim.Millisecond
	cfg.ProfileFrom = 50 * sim.Millisecond
	cfg.Samplers = []string{"async", "jfr", "safepoint", "sps", "hprof"}
	_, err := Run(parse(t, short), cfg)
	var we *EmptyWindowError
	require.ErrorAs(t, err, &we)
	assert.Equal(t, cfg.ProfileFrom, we.From)
	assert.Less(t, we.End, cfg.ProfileFrom, "the program ended first")
	assert.Contains(t, err.Error(), "profile_from")
}
