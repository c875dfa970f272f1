package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/profsim/profsim/program"
)

// addThrows gives every static call of p a model throw (call.throws), of
// depth 1–2 and 0.3–3 throws a call, then makes each thread enter through
// a wrapper method of its own.
func addThrows(p *program.Program, r *rand.Rand) {
	for i := range p.Methods {
		program.Walk(p.Methods[i].Body, func(s *program.Stmt) {
			if s.Call != nil {
				s.Call.Throws = &program.Thrown{Depth: 1 + r.IntN(2), Times: 0.3 + 2.7*r.Float64()}
			}
		})
	}
	// Each thread enters through a method of its own, so that its entry
	// method's throws have a caller to catch them.
	for k := range p.Threads {
		th := &p.Threads[k]
		w := program.Method{Class: "W", Name: fmt.Sprintf("t%d", k), Body: []program.Stmt{{Call: &program.Call{Method: th.Entry}}}}
		p.Methods = append(p.Methods, w)
		th.Entry = "W." + w.Name
	}
}

// modelThrowPrograms is how many generated programs the test runs; a
// tenth of them at least must deoptimize for it to exercise the throws
// (a call is one statement kind of sixteen, so many programs make no
// call below another).
const modelThrowPrograms = 1000

// TestModelThrowsKeepConservationLaws: generated programs with model
// throws, every method given an interpreted version to deoptimize into
// and catch deoptimization on, keep the conservation laws (self time is
// the application's CPU, the threads' state times add up), run the same
// whole and stopped at random instants on one CPU (the deoptimization
// debts carried across the stops), and run the same twice.
func TestModelThrowsKeepConservationLaws(t *testing.T) {
	deopted := 0
	for seed := uint64(0); seed < modelThrowPrograms; seed++ {
		r := rand.New(rand.NewPCG(seed, 0x7e0))
		p := genSmallProgram(r)
		addThrows(p, r)
		if err := p.Validate(); err != nil {
			t.Fatalf("program %d: generated an invalid program: %v", seed, err)
		}
		cfg := genConfig(r)
		img, err := NewImage(p, cfg.Cost)
		if err != nil {
			t.Fatal(err)
		}
		run := func(split bool) (*VM, *Result) {
			vm, err := New(img, cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range img.Base {
				vm.SetInterpreted(Recost(c, cfg.Cost, Interpreted))
			}
			vm.SetCatchDeopt(3100, 470)
			if !split {
				return vm, vm.Run()
			}
			for at := Time(0); vm.RunUntil(at); at += Time(1 + r.Int64N(int64(cfg.Duration/8))) {
			}
			return vm, vm.Result()
		}
		vm, whole := run(false)
		if err := vm.Err(); err != nil {
			t.Fatalf("program %d: run stopped: %v", seed, err)
		}
		if err := checkRun(vm, whole, cfg); err != nil {
			t.Errorf("program %d: %v", seed, err)
		}
		if whole.Truth.Deoptimizations > 0 {
			deopted++
		}
		_, again := run(false)
		if err := compareRuns(img, whole, again); err != nil {
			t.Errorf("program %d: a second run differs: %v", seed, err)
		}
		sv, split := run(true)
		if err := checkRun(sv, split, cfg); err != nil {
			t.Errorf("program %d, split: %v", seed, err)
		}
		if err := compareRuns(img, whole, split); err != nil && cfg.CPUs == 1 {
			t.Errorf("program %d (one CPU): split run differs: %v", seed, err)
		}
	}
	t.Logf("%d of %d programs deoptimized", deopted, modelThrowPrograms)
	if deopted < modelThrowPrograms/10 {
		t.Errorf("only %d of %d programs deoptimized: the test does not exercise the throws", deopted, modelThrowPrograms)
	}
}
