package jit

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/profsim/profsim/sim"
)

// countsHost is a CompilerHost that answers only the inliner's two
// questions: a method's invocation counter and a call edge's count.
type countsHost struct {
	sim.CompilerHost
	invocations int64 // of method 0, the caller
	site        int64 // of edge 0
}

func (h countsHost) Counter(int32, sim.CounterKind) int64 { return h.invocations }
func (h countsHost) EdgeCount(int) int64                  { return h.site }

// TestCallSiteFrequencyRules: HotSpot 17 calls a site hot after
// InlineFrequencyCount (100) calls; with hot_call_ratio (after JDK 17,
// hotspot25: InlineFrequencyRatio 0.25) it is hot at 0.25 calls per
// invocation of its caller, whatever the count, and with min_call_ratio
// (MinInlineFrequencyRatio 0.0085) a site below that inlines no callee
// larger than MaxTrivialSize, unless a compile command forces it, the
// counts are not used (tiered=false) or a sampled profile decides.
func TestCallSiteFrequencyRules(t *testing.T) {
	jdk17 := DefaultConfig()
	oneEdge := &sim.Image{Edges: []sim.CallEdge{{Caller: 0, Callee: 1}}} // no site decision
	jdk25 := DefaultConfig()
	jdk25.HotCallRatio, jdk25.MinCallRatio = 0.25, 0.0085
	const mid, small, trivial = 100, 30, 6 // callee sizes: above MaxInlineSize, below it, trivial
	for _, c := range []struct {
		name              string
		invocations, site int64
		size              int64
		want17, want25    bool
	}{
		{"hot by ratio only: 20 calls in 20 invocations", 20, 20, mid, false, true},
		{"hot by count only: 150 calls in 10000 invocations", 10000, 150, mid, true, false},
		{"hot by both", 10000, 10000, mid, true, true},
		{"ratio just at 0.25", 400, 100, mid, true, true},
		{"ratio just below 0.25", 401, 100, mid, true, false},
		{"entry method, never counted: invocations taken as 1", 0, 1, mid, false, true},
		{"low frequency: 80 calls in 10000 invocations", 10000, 80, small, true, false},
		{"at the minimum frequency: 85 calls in 10000", 10000, 85, small, true, true},
		{"low frequency but trivial callee", 10000, 80, trivial, true, true},
		{"never called: too rare for 25", 10000, 0, small, true, false},
	} {
		for _, v := range []struct {
			jdk  string
			cfg  Config
			want bool
		}{{"17", jdk17, c.want17}, {"25", jdk25, c.want25}} {
			j := &JIT{cfg: v.cfg, vm: countsHost{invocations: c.invocations, site: c.site}, img: oneEdge,
				sizes: []int64{50, c.size}, oracle: oracle{make([]bool, 2), make([]bool, 2), make([]bool, 2)}}
			assert.Equal(t, v.want, j.shouldInline(1, []int32{0}, 0), "JDK %s: %s", v.jdk, c.name)
		}
	}

	// What the low-frequency rule leaves alone.
	rare := countsHost{invocations: 10000, site: 1}
	newJIT := func(cfg Config) *JIT {
		return &JIT{cfg: cfg, vm: rare, sizes: []int64{50, small}, img: oneEdge,
			oracle: oracle{make([]bool, 2), make([]bool, 2), make([]bool, 2)}}
	}
	assert.False(t, newJIT(jdk25).shouldInline(1, []int32{0}, 0), "rare site, counts used")
	j := newJIT(jdk25)
	j.oracle.forceInline[1] = true
	assert.True(t, j.shouldInline(1, []int32{0}, 0), "CompileCommand inline comes first")
	xcomp := jdk25
	xcomp.Tiered = false
	assert.True(t, newJIT(xcomp).shouldInline(1, []int32{0}, 0), "tiered=false (-Xcomp): counts not used")
	j = newJIT(jdk25)
	j.SetProfile(fixedProfile{0: 1})
	assert.True(t, j.shouldInline(1, []int32{0}, 0), "a sampled profile decides, not the VM's counts")
}
