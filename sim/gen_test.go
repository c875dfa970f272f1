package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/workloads"
	"github.com/stretchr/testify/require"
)

// randomProgram builds a valid program exercising every statement kind:
// method i only calls methods after it (plus bounded self-recursion), so it
// terminates; threads contend for two locks, block, spawn and throw.
func randomProgram(seed uint64, methods int) *program.Program {
	return genProgram(seed, methods, true)
}

// genProgram is randomProgram; without blocking it leaves out sleeps,
// locks and spawns, for a CPU-bound program that measures the executor.
func genProgram(seed uint64, methods int, blocking bool) *program.Program {
	r := rand.New(rand.NewPCG(seed, 99))
	p := &program.Program{Name: fmt.Sprintf("random%d", seed)}
	name := func(i int) string { return fmt.Sprintf("C%d.m%d", i%3, i) }
	var body func(i, depth int) []program.Stmt
	body = func(i, depth int) []program.Stmt {
		n := 1 + r.IntN(4)
		var out []program.Stmt
		for k := 0; k < n; k++ {
			var s program.Stmt
			switch c := r.IntN(14); {
			case c < 4 || depth > 2:
				s.Work = &program.Work{Cycles: 1 + r.Int64N(200), Bytecodes: r.Int64N(50)}
			case c < 6 && i+1 < methods:
				s.Call = &program.Call{Method: name(i + 1 + r.IntN(methods-i-1))}
			case c == 6 && i+2 < methods:
				s.VirtualCall = &program.VirtualCall{Receivers: map[string]float64{
					name(i + 1): 1 + r.Float64(), name(methods - 1): 1}}
			case c == 7:
				s.Loop = &program.Loop{Trips: &program.Dist{Kind: program.Uniform, A: 0, B: r.Int64N(20)},
					Body: body(i, depth+1)}
			case c == 8:
				s.Branch = &program.Branch{Probability: r.Float64(), Then: body(i, depth+1), Else: body(i, depth+1)}
			case c == 9:
				s.Alloc = &program.Alloc{Bytes: 8 + r.Int64N(100)}
			case c == 10 && blocking:
				s.Block = &program.Block{Kind: program.BlockLock, Lock: fmt.Sprintf("L%d", r.IntN(2)), Body: body(i, depth+1)}
			case c == 11 && blocking:
				s.Block = &program.Block{Kind: program.BlockSleep, Duration: &program.Dist{Kind: program.Exponential, A: 20000}}
			case c == 12:
				s.Throw = &program.Throw{Depth: r.IntN(3)}
			default:
				s.Native = &program.Native{Cycles: 1 + r.Int64N(300)}
			}
			out = append(out, s)
		}
		return out
	}
	for i := 0; i < methods; i++ {
		m := program.Method{Class: fmt.Sprintf("C%d", i%3), Name: fmt.Sprintf("m%d", i), Body: body(i, 0)}
		if i == 1 {
			m.RecursionLimit = 3
			m.Body = append(m.Body, program.Stmt{Branch: &program.Branch{Probability: 0.5,
				Then: []program.Stmt{{Call: &program.Call{Method: name(1)}}}}})
		}
		p.Methods = append(p.Methods, m)
	}
	mainBody := []program.Stmt{
		{Loop: &program.Loop{Trips: program.Const(50), Body: []program.Stmt{{Call: &program.Call{Method: name(0)}}}}},
	}
	if blocking {
		mainBody = append([]program.Stmt{{Spawn: &program.Spawn{Name: "worker", Entry: name(0), Count: 2, Join: true}}}, mainBody...)
	} else {
		mainBody[0].Loop.Trips = program.Const(1 << 40) // runs until the duration
	}
	p.Methods = append(p.Methods, program.Method{Class: "Main", Name: "main", Body: mainBody})
	p.Threads = []program.Thread{
		{Name: "main", Entry: "Main.main", Count: 1},
		{Name: "bg", Entry: name(0), Count: 2, Start: 1000},
		{Name: "daemon", Entry: name(methods - 1), Count: 1, Daemon: true},
	}
	return p
}

func TestRandomProgramsAreValid(t *testing.T) {
	for seed := uint64(0); seed < 50; seed++ {
		require.NoError(t, randomProgram(seed, 8).Validate(), "seed %d", seed)
	}
}

// newVM builds a VM for a program with a config tweak.
func newVM(t testing.TB, p *program.Program, tweak func(*Config)) *VM {
	t.Helper()
	cfg := DefaultConfig()
	if tweak != nil {
		tweak(&cfg)
	}
	img, err := NewImage(p, cfg.Cost)
	require.NoError(t, err)
	vm, err := New(img, cfg)
	require.NoError(t, err)
	return vm
}

func builtin(t testing.TB, name string) *program.Program {
	t.Helper()
	p, err := workloads.Get(name)
	require.NoError(t, err)
	return p
}

func parse(t testing.TB, src string) *program.Program {
	t.Helper()
	p, err := program.Parse([]byte(src), program.YAML)
	require.NoError(t, err)
	return p
}
