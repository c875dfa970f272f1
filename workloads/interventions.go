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

// scaleWork returns a copy of body with every Work's, Native's and Stub's cycles
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
			if w.Cycles, err = scaleCycles(w.Cycles, f, at+".work.cycles"); err != nil {
				return nil, err
			}
			st.Work = &w
		case st.Native != nil:
			nt := *st.Native
			if nt.Cycles, err = scaleCycles(nt.Cycles, f, at+".native.cycles"); err != nil {
				return nil, err
			}
			st.Native = &nt
		case st.Stub != nil:
			sb := *st.Stub
			if sb.Cycles, err = scaleCycles(sb.Cycles, f, at+".stub.cycles"); err != nil {
				return nil, err
			}
			st.Stub = &sb
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

// SlowDown scales the cycles of the Work and Native statements on lines
// From … To of Method (the lines profiles and `profsim show` number: a
// method's statements 1, 2, 3, … in the order they are written, a loop's,
// branch's or block's own line before its body's) by Factor ≥ 1: the
// block-level slowdown of Burchell & Marr's "Divining Profiler Accuracy"
// (OOPSLA'25), which asks whether a profiler's shares move as the
// truth's do. From = To = 0 is the whole method; Method "*" is every
// method (a uniform slowdown; no range). Calls, polls, allocations and
// the VM's own costs keep their cycles: only the code the statements
// stand for is slower.
type SlowDown struct {
	Method   string
	From, To int
	Factor   float64
}

// AllMethods is SlowDown.Method for every method of the program.
const AllMethods = "*"

// String is s in the CLI form ParseSlowDown reads.
func (s SlowDown) String() string {
	f := strconv.FormatFloat(s.Factor, 'g', -1, 64)
	switch {
	case s.From == 0:
		return s.Method + ":" + f
	case s.From == s.To:
		return fmt.Sprintf("%s:%d:%s", s.Method, s.From, f)
	}
	return fmt.Sprintf("%s:%d-%d:%s", s.Method, s.From, s.To, f)
}

// ParseSlowDown reads the CLI forms METHOD:factor, METHOD:LINE-LINE:factor
// (METHOD:LINE:factor for one line) and *:factor. Whether the lines are
// the method's is ApplySlowDown's to check: it has the program.
func ParseSlowDown(s string) (SlowDown, error) {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 {
		return SlowDown{}, fmt.Errorf("--slowdown %q: want METHOD:factor, METHOD:LINE-LINE:factor or *:factor", s)
	}
	f, err := strconv.ParseFloat(s[i+1:], 64)
	if err != nil || !(f >= 1) || math.IsInf(f, 0) {
		return SlowDown{}, fmt.Errorf("--slowdown %q: factor must be a finite number ≥ 1 (2: twice as slow)", s)
	}
	sd := SlowDown{Method: s[:i], Factor: f}
	if j := strings.LastIndexByte(sd.Method, ':'); j >= 0 {
		lines := sd.Method[j+1:]
		sd.Method = sd.Method[:j]
		from, to, ok := strings.Cut(lines, "-")
		if !ok {
			to = from
		}
		a, errA := strconv.Atoi(from)
		b, errB := strconv.Atoi(to)
		if errA != nil || errB != nil {
			return SlowDown{}, fmt.Errorf("--slowdown %q: lines %q must be LINE or LINE-LINE, whole numbers", s, lines)
		}
		if a < 1 || b < a {
			return SlowDown{}, fmt.Errorf("--slowdown %q: lines %d-%d must be a range 1 ≤ first ≤ last", s, a, b)
		}
		sd.From, sd.To = a, b
	}
	switch {
	case sd.Method == "":
		return SlowDown{}, fmt.Errorf("--slowdown %q: no method (* for every method)", s)
	case sd.Method == AllMethods && sd.From > 0:
		return SlowDown{}, fmt.Errorf("--slowdown %q: a line range needs one method, not *", s)
	}
	return sd, nil
}

// ApplySlowDown applies s to p (in place). Lines beyond the method's
// last, a method or range with no Work or Native statement (nothing to
// slow: a call's cost is its callee's), or a factor that takes a
// statement beyond program.MaxCycles are errors naming them, and p is
// left unchanged.
func ApplySlowDown(p *program.Program, s SlowDown) error {
	if !(s.Factor >= 1) || math.IsInf(s.Factor, 0) {
		return fmt.Errorf("slowdown %s: factor %v must be a finite number ≥ 1", s.Method, s.Factor)
	}
	if s.From < 0 || s.To < s.From || (s.From == 0) != (s.To == 0) {
		return fmt.Errorf("slowdown %s: lines %d-%d must be a range 1 ≤ first ≤ last", s, s.From, s.To)
	}
	var targets []int
	if s.Method == AllMethods {
		if s.From > 0 {
			return fmt.Errorf("slowdown %s: a line range needs one method, not *", s)
		}
		for i := range p.Methods {
			targets = append(targets, i)
		}
	} else {
		i, err := program.NewResolver(p).Resolve(s.Method)
		if err != nil {
			return fmt.Errorf("slowdown: %w", err)
		}
		targets = []int{i}
	}
	bodies := make([][]program.Stmt, len(targets))
	scaled := 0
	for k, i := range targets {
		m := &p.Methods[i]
		from, to := s.From, s.To
		if from == 0 {
			from, to = 1, math.MaxInt
		}
		line, n := 0, 0
		body, err := scaleLines(m.Body, s.Factor, fmt.Sprintf("methods[%d].body", i), &line, from, to, &n)
		if err != nil {
			return fmt.Errorf("slowdown %s: %w", s, err)
		}
		if s.From > 0 && s.To > line {
			return fmt.Errorf("slowdown %s: %s has lines 1-%d ('profsim show' lists them)", s, s.Method, line)
		}
		if n == 0 && s.Method != AllMethods {
			where := "in " + s.Method
			if s.From > 0 {
				where = fmt.Sprintf("on lines %d-%d of %s", s.From, s.To, s.Method)
			}
			return fmt.Errorf("slowdown %s: no work or native statement to slow %s (a call's cost is its callee's: slow the callee)", s, where)
		}
		bodies[k], scaled = body, scaled+n
	}
	if scaled == 0 {
		return fmt.Errorf("slowdown %s: the program has no work or native statement to slow", s)
	}
	for k, i := range targets {
		p.Methods[i].Body = bodies[k]
	}
	return p.Validate()
}

// scaleLines returns a copy of body with the cycles of every Work,
// Native and Stub on a line in [from, to] scaled by f, rounded, at least 1,
// numbering lines as program.WriteListing does from *line on; *n counts
// the statements scaled. path names body in errors.
func scaleLines(body []program.Stmt, f float64, path string, line *int, from, to int, n *int) ([]program.Stmt, error) {
	out := append([]program.Stmt(nil), body...)
	var err error
	for i := range out {
		st := &out[i]
		*line++
		in := *line >= from && *line <= to
		at := fmt.Sprintf("%s[%d]", path, i)
		switch {
		case st.Work != nil && in:
			w := *st.Work
			if w.Cycles, err = scaleCycles(w.Cycles, f, at+".work.cycles"); err != nil {
				return nil, err
			}
			st.Work = &w
			*n++
		case st.Native != nil && in:
			nt := *st.Native
			if nt.Cycles, err = scaleCycles(nt.Cycles, f, at+".native.cycles"); err != nil {
				return nil, err
			}
			st.Native = &nt
			*n++
		case st.Stub != nil && in:
			sb := *st.Stub
			if sb.Cycles, err = scaleCycles(sb.Cycles, f, at+".stub.cycles"); err != nil {
				return nil, err
			}
			st.Stub = &sb
			*n++
		case st.Loop != nil:
			l := *st.Loop
			if l.Body, err = scaleLines(l.Body, f, at+".loop.body", line, from, to, n); err != nil {
				return nil, err
			}
			st.Loop = &l
		case st.Branch != nil:
			b := *st.Branch
			if b.Then, err = scaleLines(b.Then, f, at+".branch.then", line, from, to, n); err != nil {
				return nil, err
			}
			if b.Else, err = scaleLines(b.Else, f, at+".branch.else", line, from, to, n); err != nil {
				return nil, err
			}
			st.Branch = &b
		case st.Block != nil && len(st.Block.Body) > 0:
			b := *st.Block
			if b.Body, err = scaleLines(b.Body, f, at+".block.body", line, from, to, n); err != nil {
				return nil, err
			}
			st.Block = &b
		}
	}
	return out, nil
}

// scaleCycles is c × f rounded, at least 1, or an error naming at when
// that is beyond program.MaxCycles.
func scaleCycles(c int64, f float64, at string) (int64, error) {
	scaled := math.Round(float64(c) * f)
	if !(scaled <= program.MaxCycles) {
		return 0, fmt.Errorf("%s: %d × %v = %v is not in [1, 10^12]", at, c, f, scaled)
	}
	return max(1, int64(scaled)), nil
}
