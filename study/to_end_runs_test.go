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
	cfg := harness.MustPresetConfig("hotspot6")
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
		cfg := harness.MustPresetConfig("hotspot6")
		cfg.Sim.Duration = 300 * sim.Millisecond
		out, err := harness.Run(p, cfg)
		require.NoError(t, err)
		flat := out.Profiles["truth"].Flat()
		require.GreaterOrEqual(t, len(flat), 2, s.Name)
		t.Logf("%s: %s %.1f %%, %s %.1f %%", s.Name, flat[0].Name, 100*flat[0].SelfShare, flat[1].Name, 100*flat[1].SelfShare)
		assert.GreaterOrEqual(t, flat[1].SelfShare, 0.03, s.Name)
	}
}
