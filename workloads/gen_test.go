package workloads

import (
	"encoding/json"
	"testing"

	"github.com/profsim/profsim/program"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func jsonOf(t *testing.T, p *program.Program) string {
	b, err := json.Marshal(p)
	require.NoError(t, err)
	return string(b)
}

func TestEveryStandInValidatesAndIsReproducible(t *testing.T) {
	require.GreaterOrEqual(t, len(StandIns()), 40)
	for _, s := range StandIns() {
		a, err := Get(s.Name)
		require.NoError(t, err, s.Name)
		b, err := Get(s.Name)
		require.NoError(t, err)
		assert.Equal(t, jsonOf(t, a), jsonOf(t, b), s.Name)
		assert.Contains(t, a.Description, "synthetic stand-in for", s.Name)
		assert.NotEmpty(t, s.Matters, s.Name)
	}
}

func TestGeneratorSeedsAndKnobs(t *testing.T) {
	k := base(50, 5)
	a, err := Generate("x", k, 1)
	require.NoError(t, err)
	b, err := Generate("x", k, 2)
	require.NoError(t, err)
	assert.NotEqual(t, jsonOf(t, a), jsonOf(t, b), "another seed, another program")
	assert.Len(t, a.Methods, 50+2) // + unit and main
	k.Threads = 4
	c, err := Generate("x", k, 1)
	require.NoError(t, err)
	found := false
	for _, m := range c.Methods {
		if m.Name == "worker" {
			found = true
		}
	}
	assert.True(t, found, "a pool of workers")
}

func TestSmallAndLargeInputsShareTheProgram(t *testing.T) {
	small, err := Get("javac-small")
	require.NoError(t, err)
	large, err := Get("javac-large")
	require.NoError(t, err)
	// Same generated methods; the driver differs (coverage, iterations).
	for i := range small.Methods[:len(small.Methods)-3] {
		assert.Equal(t, jsonOf(t, &program.Program{Methods: small.Methods[i : i+1]}), jsonOf(t, &program.Program{Methods: large.Methods[i : i+1]}))
	}
}

func TestKnobValidation(t *testing.T) {
	for _, c := range []struct {
		f    func(*Knobs)
		want string
	}{
		{func(k *Knobs) { k.Methods = 1 }, "knobs.methods"},
		{func(k *Knobs) { k.Depth = 0 }, "knobs.depth"},
		{func(k *Knobs) { k.Virtual = 2 }, "shares and rates"},
		{func(k *Knobs) { k.Threads = 0 }, "knobs.threads"},
		{func(k *Knobs) { k.Input = "huge" }, "knobs.input"},
		{func(k *Knobs) { k.BlockingShare = 1 }, "blocking_share < 1"},
	} {
		k := base(20, 3)
		c.f(&k)
		_, err := Generate("x", k, 1)
		assert.ErrorContains(t, err, c.want)
	}
}

func TestParseInterventions(t *testing.T) {
	in, err := ParseInjection("HotCold.hot:300")
	require.NoError(t, err)
	assert.Equal(t, Injection{Method: "HotCold.hot", F: 300, Position: -1}, in)
	in, err = ParseInjection("A.b:5:alloc")
	require.NoError(t, err)
	assert.True(t, in.Allocating)
	for _, bad := range []string{"A.b", "A.b:0", "A.b:x", ":3", "A.b:3:heap"} {
		_, err := ParseInjection(bad)
		assert.Error(t, err, bad)
	}
	sp, err := ParseSpeedUp("A.b(I)V:0.5")
	require.NoError(t, err)
	assert.Equal(t, SpeedUp{Method: "A.b(I)V", Factor: 0.5}, sp)
	for _, bad := range []string{"A.b", "A.b:0", "A.b:-1", "A.b:fast"} {
		_, err := ParseSpeedUp(bad)
		assert.Error(t, err, bad)
	}
	p, err := Get("hotcold")
	require.NoError(t, err)
	assert.ErrorContains(t, Inject(p, Injection{Method: "Nope.x", F: 3}), `unknown method "Nope.x"`)
	assert.ErrorContains(t, ApplySpeedUp(p, SpeedUp{Method: "HotCold.hot", Factor: 0}), "factor 0 must be a finite number > 0")
}
