package study

import (
	"testing"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const injectee = `
name: injectee
methods:
  - {class: I, name: main, body: [{loop: {trips: 1000, body: [{call: {method: I.target}}, {call: {method: I.other}}]}}]}
  - {class: I, name: target, body: [{work: {cycles: 100, bytecodes: 40}}]}
  - {class: I, name: other, body: [{work: {cycles: 50, bytecodes: 20}}]}
threads: [{name: main, entry: I.main}]
`

func selfOf(t *testing.T, p *program.Program, method string) (sim.Time, sim.Time) {
	cfg := harness.DefaultConfig()
	cfg.NoJIT, cfg.GC = true, nil // base code: the loop's back-edge polls are in the cost
	cfg.Sim.Duration = 10 * sim.Second
	out, err := harness.Run(p, cfg)
	require.NoError(t, err)
	var self sim.Time
	for _, n := range out.Result.Truth.Nodes() {
		if n.Method >= 0 && out.Result.Image.Names[n.Method] == method {
			self += n.Self
		}
	}
	return self, out.Result.End
}

// Injection of size f adds exactly its cost to the target's self time
// (f × 5 cycles of work and f − 1 back-edge polls per call); virtual
// speed-up scales the target's own work.
func TestInterventionsAreExact(t *testing.T) {
	parse := func() *program.Program {
		p, err := program.Parse([]byte(injectee), program.YAML)
		require.NoError(t, err)
		return p
	}
	before, end0 := selfOf(t, parse(), "I.target")
	for _, f := range []int64{1, 100, 300} {
		p := parse()
		in := workloads.Injection{Method: "I.target", F: f, Position: -1}
		require.NoError(t, workloads.Inject(p, in))
		after, end := selfOf(t, p, "I.target")
		poll := sim.DefaultCostModel().PollCycles
		want := sim.Time(1000 * (in.InjectedCycles() + (f-1)*poll))
		assert.Equal(t, want, after-before, "f = %d", f)
		assert.Equal(t, want, end-end0, "the program's run time grows by the same")
	}
	p := parse()
	require.NoError(t, workloads.Inject(p, workloads.Injection{Method: "I.target", F: 10, Position: 0, Allocating: true}))
	after, _ := selfOf(t, p, "I.target")
	c := sim.DefaultCostModel()
	assert.Equal(t, sim.Time(1000*(10*5+9*c.PollCycles+c.AllocCycles)), after-before, "allocating variant")
	p = parse()
	require.NoError(t, workloads.ApplySpeedUp(p, workloads.SpeedUp{Method: "I.target", Factor: 0.5}))
	after, _ = selfOf(t, p, "I.target")
	assert.Equal(t, before-sim.Time(1000*50), after, "half of its 100 cycles")
}

// The stand-ins have the properties their documentation claims.
func TestStandInCharacteristics(t *testing.T) {
	type check func(c Characteristics) bool
	cases := []struct {
		name, claim string
		ok          check
	}{
		{"kiama", "stacks deeper than 256 frames", func(c Characteristics) bool { return c.MaxDepth > 256 }},
		{"scalac", "stacks deeper than 256 frames", func(c Characteristics) bool { return c.MaxDepth > 256 }},
		{"tmt", "many short-lived threads", func(c Characteristics) bool { return c.Threads > 100 }},
		{"tradebeans", "many threads, mostly waiting", func(c Characteristics) bool { return c.Threads >= 33 && c.Blocking > 0.3 }},
		{"actors", "many threads", func(c Characteristics) bool { return c.Threads >= 33 }},
		{"lusearch", "CPU-heavy, poll-free hot loops", func(c Characteristics) bool { return c.PollFreeShare > 0.8 && c.Blocking < 0.05 }},
		{"sunflow", "CPU-heavy, poll-free hot loops", func(c Characteristics) bool { return c.PollFreeShare > 0.8 }},
		{"xalan", "CPU-heavy, poll-free hot loops", func(c Characteristics) bool { return c.PollFreeShare > 0.8 }},
		{"compress", "loop-dominated", func(c Characteristics) bool { return c.PollFreeShare > 0.8 }},
		{"jack", "exception-heavy", func(c Characteristics) bool { return c.ExceptionsPerSecond > 1e4 }},
		{"mpegaudio", "large basic blocks", func(c Characteristics) bool { return c.LargestBlock >= 100 }},
		{"mtrt", "two worker threads", func(c Characteristics) bool { return c.Threads == 3 }},
		{"javac", "deep and call-heavy", func(c Characteristics) bool { return c.MeanDepth > 10 && c.CallsPerSecond > 5e6 }},
		{"antlr", "single-threaded", func(c Characteristics) bool { return c.Threads == 1 && c.Blocking == 0 }},
		{"avrora", "waiting threads", func(c Characteristics) bool { return c.Blocking > 0.2 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Measure(c.name, 300*sim.Millisecond)
			require.NoError(t, err)
			assert.True(t, c.ok(m), "%s should be %s: %+v", c.name, c.claim, m)
		})
	}
}

// Every stand-in runs deterministically: two short runs, identical truth.
func TestStandInsRunDeterministically(t *testing.T) {
	for _, s := range workloads.StandIns() {
		run := func() *harness.Outcome {
			p, err := workloads.Get(s.Name)
			require.NoError(t, err)
			cfg := harness.DefaultConfig()
			cfg.Sim.Duration = 15 * sim.Millisecond
			out, err := harness.Run(p, cfg)
			require.NoError(t, err)
			return out
		}
		a, b := run(), run()
		require.Positive(t, a.Result.AppCPU(), s.Name)
		assert.Equal(t, a.Result.Truth.Nodes(), b.Result.Truth.Nodes(), s.Name)
		assert.Empty(t, a.Result.Incidents, s.Name)
	}
}

// Mytkowicz's causality analysis injects into two hot methods of each
// benchmark: every stand-in of theirs has at least two methods with ≥ 3 %
// of the self time.
func TestMytkowiczStandInsHaveTwoHotMethods(t *testing.T) {
	for _, s := range workloads.StandIns() {
		if s.Paper != "Mytkowicz 2010" {
			continue
		}
		p, err := workloads.Get(s.Name)
		require.NoError(t, err)
		cfg := harness.DefaultConfig()
		cfg.Sim.Duration = 300 * sim.Millisecond
		out, err := harness.Run(p, cfg)
		require.NoError(t, err)
		flat := out.Profiles["truth"].Flat()
		require.GreaterOrEqual(t, len(flat), 2, s.Name)
		t.Logf("%s: %s %.1f %%, %s %.1f %%", s.Name, flat[0].Name, 100*flat[0].SelfShare, flat[1].Name, 100*flat[1].SelfShare)
		assert.GreaterOrEqual(t, flat[1].SelfShare, 0.03, s.Name)
	}
}
