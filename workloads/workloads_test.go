package workloads

import (
	"testing"

	"github.com/profsim/profsim/program"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The issue and the papers fix these method names; later studies look
// them up by name.
func TestBuiltinsHaveThePapersMethods(t *testing.T) {
	want := map[string][]string{
		"hotcold":  {"HotCold.cold", "HotCold.hot"},
		"callpair": {"CallPair.M", "CallPair.call_1", "CallPair.call_2"},
		"sqsum":    {"Foo.sqSum", "Foo.sq"},
		"abcuv":    {"Example.a", "Example.b", "Example.c", "Example.u", "Example.v"},
		"deepcall": {"Deep.descend", "Deep.leafA", "Deep.leafB"},
	}
	assert.Equal(t, []string{"abcuv", "callpair", "deepcall", "hotcold", "sqsum"}, Programs())
	assert.Equal(t, Programs(), Names()[:5], "the papers' programs first, then the stand-ins")
	for name, methods := range want {
		p, err := Get(name)
		require.NoError(t, err, name)
		assert.Equal(t, name, p.Name)
		assert.NotEmpty(t, p.Description, name)
		r := program.NewResolver(p)
		for _, m := range methods {
			_, err := r.Resolve(m)
			assert.NoError(t, err, "%s: %s", name, m)
		}
	}
}

func TestUnknownWorkload(t *testing.T) {
	_, err := Get("nope")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown workload "nope" (paper programs: abcuv, callpair, deepcall, hotcold, sqsum; 69 stand-ins, 9 models of real applications, 9 fidelity twins and 3 studies' programs`)
}

// Get returns a fresh copy: a caller may modify it (as interventions will).
func TestGetReturnsACopy(t *testing.T) {
	a, err := Get("hotcold")
	require.NoError(t, err)
	a.Methods[0].Name = "changed"
	b, err := Get("hotcold")
	require.NoError(t, err)
	assert.Equal(t, "main", b.Methods[0].Name)
}

// IsBuiltin agrees with Names, and is false for anything else.
func TestIsBuiltin(t *testing.T) {
	for _, n := range Names() {
		assert.True(t, IsBuiltin(n), n)
	}
	for _, n := range []string{"", "nope", "programs/hotcold", "hotcold.yaml", "../hotcold", "HotCold"} {
		assert.False(t, IsBuiltin(n), n)
	}
}
