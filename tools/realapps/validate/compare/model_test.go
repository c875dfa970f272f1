package main

import (
	"testing"

	"github.com/profsim/profsim/profile"
)

func TestSelfByMethod(t *testing.T) {
	b := profile.NewBuilder("jfr", "nanoseconds", 10_000_000)
	f := b.Func(profile.Function{Name: "a.B.f(I)V", Class: "a.B", Method: "f", Signature: "(I)V"})
	g := b.Func(profile.Function{Name: "a.B$$Lambda$7+0x00007f.123.run", Class: "a.B$$Lambda$7+0x00007f.123", Method: "run"})
	b.AddSample([]profile.Frame{{Func: int32(g)}, {Func: int32(f)}}, 3, 30, "main") // leaf f
	b.AddSample([]profile.Frame{{Func: int32(g)}}, 2, 20, "main")
	b.AddSample([]profile.Frame{{Func: int32(f)}}, 5, 50, "worker")
	b.AddSample([]profile.Frame{{Func: int32(f)}}, 7, 70, "")
	p := b.Build()
	s := selfByMethod(p, false)
	if len(s) != 2 || s["a.B.f"] != 3 || s["a.B$$Lambda.run"] != 2 {
		t.Errorf("sampler: %v, want a.B.f 3 and a.B$$Lambda.run 2 (main only, counts)", s)
	}
	tr := selfByMethod(p, true)
	if len(tr) != 2 || tr["a.B.f"] != 30+70 || tr["a.B$$Lambda.run"] != 20 {
		t.Errorf("truth: %v, want a.B.f 100 and a.B$$Lambda.run 20 (main and no thread, weights)", tr)
	}
}
