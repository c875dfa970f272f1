package harness

import (
	"errors"
	"testing"

	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pair is two threads, a and b, each computing all the time in a method
// of its own.
const pair = `
name: pair
methods:
  - {class: A, name: run, body: [{loop: {trips: 1000000000, body: [{work: {cycles: 1000, bytecodes: 10}}]}}]}
  - {class: B, name: run, body: [{loop: {trips: 1000000000, body: [{work: {cycles: 1000, bytecodes: 10}}]}}]}
threads: [{name: a, entry: A.run}, {name: b, entry: B.run}]
`

// ProfileThreads restricts the truth and the samplers to the matching
// threads; with passive samplers the run is the same run.
func TestProfileThreadsRestrictsEveryProfile(t *testing.T) {
	cfg := MustPresetConfig("hotspot6")
	cfg.NoJIT, cfg.GC = true, nil
	cfg.Sim.CPUs, cfg.Sim.Duration = 2, 100*sim.Millisecond
	cfg.Samplers = []string{"async,interval=1ms,jitter=0", "jvmti", "sps"}
	whole, err := Run(parse(t, pair), cfg)
	require.NoError(t, err)
	cfg.Sim.ProfileThreads = "a"
	only, err := Run(parse(t, pair), cfg)
	require.NoError(t, err)

	assert.Equal(t, whole.Result.End, only.Result.End)
	assert.Equal(t, whole.Result.Statements, only.Result.Statements, "the same run")
	var aCPU sim.Time
	for i, th := range only.Result.Threads {
		assert.Equal(t, whole.Result.Threads[i].States, th.States, "thread %s", th.Name)
		assert.Equal(t, th.Name != "a" && !th.Service, th.Unprofiled, th.Name)
		if th.Name == "a" {
			aCPU = th.CPU()
		}
	}
	require.Greater(t, aCPU, sim.Time(0))
	assert.Equal(t, aCPU, only.Result.AppCPU(), "the application CPU is a's")
	assert.Equal(t, aCPU, only.Result.Truth.SelfTotal())
	truth := only.Profiles["truth"]
	assert.Equal(t, int64(aCPU), total(truth))
	assert.Zero(t, selfOf(truth, "B.run"))
	assert.Equal(t, total(truth), selfOf(truth, "A.run"))
	assert.Equal(t, 2*total(truth), total(whole.Profiles["truth"]), "b ran as long as a")
	for _, name := range []string{"async", "jvmti", "sps"} {
		p := only.Profiles[name]
		require.NotEmpty(t, p.Samples, name)
		assert.Zero(t, selfOf(p, "B.run"), name)
		for i := range p.Samples {
			assert.Equal(t, "a", p.ThreadName(i), name)
		}
		assert.Greater(t, selfOf(whole.Profiles[name], "B.run"), int64(0), name)
	}
	assert.Equal(t, whole.Costs["async"].Taken/2, only.Costs["async"].Taken, "async samples one of the two threads")

	// Costed, the samplers' handlers run on a only: b is never stalled.
	cfg.Mode = samplers.Costed
	costed, err := Run(parse(t, pair), cfg)
	require.NoError(t, err)
	for _, th := range costed.Result.Threads {
		switch th.Name {
		case "a":
			assert.Greater(t, th.States[sim.Stalled], sim.Time(0))
		case "b":
			assert.Zero(t, th.States[sim.Stalled])
		}
	}
	assert.Equal(t, costed.Result.AppCPU(), costed.Result.Truth.SelfTotal())
}

// A pattern that matches none of the program's threads is refused
// before the run, listing them; one that may match a spawned thread is
// checked when the run is over.
func TestProfileThreadsMatchingNone(t *testing.T) {
	cfg := MustPresetConfig("hotspot6")
	cfg.Sim.Duration = 10 * sim.Millisecond
	cfg.Sim.ProfileThreads = "c*,x"
	_, err := Build(parse(t, pair), cfg)
	var te *ThreadsError
	require.True(t, errors.As(err, &te), "%v", err)
	assert.Equal(t, []string{"a", "b"}, te.Names)
	assert.Contains(t, err.Error(), `profile_threads: "c*,x" matches none of the application threads: a, b`)

	spawner := `
name: spawner
methods:
  - {class: A, name: main, body: [{spawn: {name: w, entry: A.run, count: 2, join: true}}]}
  - {class: A, name: run, body: [{loop: {trips: 1000, body: [{work: {cycles: 1000, bytecodes: 10}}]}}]}
threads: [{name: main, entry: A.main}]
`
	cfg.Sim.ProfileThreads = "w-5"
	_, err = Run(parse(t, spawner), cfg)
	require.True(t, errors.As(err, &te), "%v", err)
	assert.Equal(t, []string{"main", "w-0", "w-1"}, te.Names)
	cfg.Sim.ProfileThreads = "w-1"
	out, err := Run(parse(t, spawner), cfg)
	require.NoError(t, err)
	assert.Equal(t, out.Result.AppCPU(), sim.Time(total(out.Profiles["truth"])))
	assert.Greater(t, out.Result.AppCPU(), sim.Time(0))

	for _, bad := range []string{"a,,b", "[a", " "} {
		cfg.Sim.ProfileThreads = bad
		err := cfg.Validate()
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "profile_threads: ")
	}
	cfg.Sim.ProfileThreads, cfg.Samplers = "a", []string{"komorium"}
	err = cfg.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "profile_threads: sampler komorium counts every thread's bytecodes")
}
