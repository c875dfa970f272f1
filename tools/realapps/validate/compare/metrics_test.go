package main

import (
	"math"
	"slices"
	"testing"
)

// Hand-computed: a's shares are x .6, y .3, z .1; b's x .4, y .4, w .2;
// c is all x.
var (
	fa = dist{"x": 6, "y": 3, "z": 1}
	fb = dist{"x": 2, "y": 2, "w": 1}
	fc = dist{"x": 1}
)

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func TestOverlap(t *testing.T) {
	near(t, "overlap(a,b)", overlap(fa, fb), 0.7) // min(.6,.4) + min(.3,.4)
	near(t, "overlap(b,a)", overlap(fb, fa), 0.7)
	near(t, "overlap(a,c)", overlap(fa, fc), 0.6)
	near(t, "overlap(a,a)", overlap(fa, fa), 1)
	near(t, "overlap(a,{})", overlap(fa, dist{}), 0)
	near(t, "overlap(a,{w})", overlap(fa, dist{"w": 5}), 0)
}

func TestNoiseFloor(t *testing.T) {
	near(t, "noiseFloor(a,b,c)", noiseFloor([]dist{fa, fb, fc}), (0.7+0.6+0.4)/3)
	if !math.IsNaN(noiseFloor([]dist{fa})) {
		t.Error("noiseFloor of one run is not NaN")
	}
}

func TestCrossAndPairedOverlap(t *testing.T) {
	near(t, "crossOverlap([a,b],[c])", crossOverlap([]dist{fa, fb}, []dist{fc}), (0.6+0.4)/2)
	near(t, "crossOverlap([a,b],[b,c])", crossOverlap([]dist{fa, fb}, []dist{fb, fc}), (0.7+0.6+1+0.4)/4)
	near(t, "pairedOverlap([a,b],[b,c])", pairedOverlap([]dist{fa, fb}, []dist{fb, fc}), (0.7+0.4)/2)
	if !math.IsNaN(crossOverlap(nil, []dist{fa})) {
		t.Error("crossOverlap with no runs is not NaN")
	}
}

func TestPoolTopAndTop5(t *testing.T) {
	p := pool([]dist{fa, fb})
	want := dist{"x": 8, "y": 5, "z": 1, "w": 1}
	for m, w := range want {
		if p[m] != w {
			t.Errorf("pool[%s] = %v, want %v", m, p[m], w)
		}
	}
	if got := top(p, 3); !slices.Equal(got, []string{"x", "y", "w"}) { // w and z tie: by name
		t.Errorf("top(pool, 3) = %v", got)
	}
	if got := top(dist{"b": 1, "a": 1, "c": 2}, 10); !slices.Equal(got, []string{"c", "a", "b"}) {
		t.Errorf("top with ties = %v", got)
	}
	near(t, "topSetAgreement(a,b,5)", topSetAgreement(fa, fb, 5), 2.0/5) // {x,y,z} ∩ {x,y,w}
	near(t, "topSetAgreement(a,a,5)", topSetAgreement(fa, fa, 5), 3.0/5)
	near(t, "share", fa.share("y"), 0.3)
}
