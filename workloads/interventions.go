package workloads

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/profsim/profsim/program"
)

// Injection adds work to a method, Mytkowicz et al.'s causality analysis
// (§5, §7.2): a Fibonacci-like computation of size F — a counted loop of F
// trips with no call and no allocation, so a JIT removes its poll — at
// statement Position of Method's body (negative: the end). Allocating
// adds the paper's second variant: the computation first allocates an
// array of 1024 ints and its loop adds two of its elements.
type Injection struct {
	Method     string
	F          int64
	Position   int
	Allocating bool
}

// Per-trip cost of the injected loop: iadd, istore, iload, iinc, if_icmp
// — about five bytecodes and five cycles per Fibonacci step.
const (
	injectCycles    = 5
	injectBytecodes = 5
	injectArray     = 4096
)

// InjectedCycles is the compiled-code cost of one execution of the
// injected computation, back-edges excluded: F × 5 cycles.
func (in Injection) InjectedCycles() int64 { return in.F * injectCycles }

// Inject applies in to p (in place) and revalidates it. The size f is a
// loop's trip count: in [1, program.MaxTrips].
func Inject(p *program.Program, in Injection) error {
	if in.F < 1 || in.F > program.MaxTrips {
		return fmt.Errorf("inject %s: size f = %d is not in [1, 10^15]", in.Method, in.F)
	}
	m, err := findMethod(p, in.Method)
	if err != nil {
		return fmt.Errorf("inject: %w", err)
	}
	loop := program.Stmt{Loop: &program.Loop{Trips: program.Const(in.F), Body: []program.Stmt{
		{Work: &program.Work{Cycles: injectCycles, Bytecodes: injectBytecodes}}}}}
	stmts := []program.Stmt{loop}
	if in.Allocating {
		stmts = []program.Stmt{{Alloc: &program.Alloc{Bytes: injectArray}}, loop}
	}
	pos := in.Position
	if pos < 0 || pos > len(m.Body) {
		pos = len(m.Body)
	}
	body := append([]program.Stmt{}, m.Body[:pos]...)
	body = append(body, stmts...)
	m.Body = append(body, m.Body[pos:]...)
	return p.Validate()
}

// SpeedUp scales the cycles of Method's own Work and Native statements
// by Factor (0.5 makes its own code twice as fast, a native method's
// included; callees are untouched): the "virtual speed-up" that tells how
// much optimizing a method would gain. A scaled statement keeps at least
// one cycle and must stay within program.MaxCycles.
type SpeedUp struct {
	Method string
	Factor float64
}

// ApplySpeedUp applies s to p (in place). A factor that would take a
// Work beyond program.MaxCycles is an error naming the statement, and p
// is left unchanged.
func ApplySpeedUp(p *program.Program, s SpeedUp) error {
	if !(s.Factor > 0) || math.IsInf(s.Factor, 0) {
		return fmt.Errorf("speedup %s: factor %v must be a finite number > 0", s.Method, s.Factor)
	}
	i, err := program.NewResolver(p).Resolve(s.Method)
	if err != nil {
		return fmt.Errorf("speedup: %w", err)
	}
	m := &p.Methods[i]
	body, err := scaleWork(m.Body, s.Factor, fmt.Sprintf("methods[%d].body", i))
	if err != nil {
		return fmt.Errorf("speedup %s:%v: %w", s.Method, s.Factor, err)
	}
	m.Body = body
	return p.Validate()
}

// scaleWork returns a copy of body with every Work's and Native's cycles
// scaled by f, rounded, at least 1; path names body in errors.
func scaleWork(body []program.Stmt, f float64, path string) ([]program.Stmt, error) {
	out := append([]program.Stmt(nil), body...)
	var err error
	for i := range out {
		st := &out[i]
		at := fmt.Sprintf("%s[%d]", path, i)
		switch {
		case st.Work != nil:
			w := *st.Work
			scaled := math.Round(float64(w.Cycles) * f)
			if !(scaled <= program.MaxCycles) {
				return nil, fmt.Errorf("%s.work.cycles: %d × %v = %v is not in [1, 10^12]", at, w.Cycles, f, scaled)
			}
			w.Cycles = max(1, int64(scaled))
			st.Work = &w
		case st.Native != nil:
			nt := *st.Native
			scaled := math.Round(float64(nt.Cycles) * f)
			if !(scaled <= program.MaxCycles) {
				return nil, fmt.Errorf("%s.native.cycles: %d × %v = %v is not in [1, 10^12]", at, nt.Cycles, f, scaled)
			}
			nt.Cycles = max(1, int64(scaled))
			st.Native = &nt
		case st.Loop != nil:
			l := *st.Loop
			if l.Body, err = scaleWork(l.Body, f, at+".loop.body"); err != nil {
				return nil, err
			}
			st.Loop = &l
		case st.Branch != nil:
			b := *st.Branch
			if b.Then, err = scaleWork(b.Then, f, at+".branch.then"); err != nil {
				return nil, err
			}
			if b.Else, err = scaleWork(b.Else, f, at+".branch.else"); err != nil {
				return nil, err
			}
			st.Branch = &b
		case st.Block != nil && st.Block.Kind == program.BlockLock:
			b := *st.Block
			if b.Body, err = scaleWork(b.Body, f, at+".block.body"); err != nil {
				return nil, err
			}
			st.Block = &b
		}
	}
	return out, nil
}

func findMethod(p *program.Program, ref string) (*program.Method, error) {
	i, err := program.NewResolver(p).Resolve(ref)
	if err != nil {
		return nil, err
	}
	return &p.Methods[i], nil
}

// ParseInjection reads the CLI form METHOD:f (or METHOD:f:alloc).
func ParseInjection(s string) (Injection, error) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" {
		return Injection{}, fmt.Errorf("--inject %q: want METHOD:f or METHOD:f:alloc", s)
	}
	f, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || f < 1 || f > program.MaxTrips {
		return Injection{}, fmt.Errorf("--inject %q: f must be an integer in [1, 10^15] (a loop's trip count)", s)
	}
	in := Injection{Method: parts[0], F: f, Position: -1}
	if len(parts) == 3 {
		if parts[2] != "alloc" {
			return Injection{}, fmt.Errorf("--inject %q: the third part may only be \"alloc\"", s)
		}
		in.Allocating = true
	}
	return in, nil
}

// ParseSpeedUp reads the CLI form METHOD:factor.
func ParseSpeedUp(s string) (SpeedUp, error) {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 {
		return SpeedUp{}, fmt.Errorf("--speedup %q: want METHOD:factor", s)
	}
	f, err := strconv.ParseFloat(s[i+1:], 64)
	if err != nil || !(f > 0) || math.IsInf(f, 0) {
		return SpeedUp{}, fmt.Errorf("--speedup %q: factor must be a finite number > 0", s)
	}
	return SpeedUp{Method: s[:i], Factor: f}, nil
}
