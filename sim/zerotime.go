package sim

import (
	"fmt"

	"github.com/profsim/profsim/program"
)

// MaxZeroTimeIterations is how many times in a row a loop may take its
// back-edge without simulated time advancing but for its polls. Only a body of statements
// that cost nothing — branches, loops of zero trips, inlined calls of
// empty methods, zero-length blocks, with a cost model whose costs are
// 0 — does that; iterating such a loop would never reach any horizon
// (issue 14: a hang that not even SIGINT stopped). 10⁶ iterations take
// 10 ms to 1 s of wall time, depending on what the body does.
const MaxZeroTimeIterations = 1_000_000

// ZeroTimeLoopError stops a run whose loop iterated MaxZeroTimeIterations
// times in zero simulated time: the program is meaningless (infinitely
// fast code), like one that fails validation.
type ZeroTimeLoopError struct {
	Thread string
	// Path is the loop statement's document path
	// ("methods[0].body[2].loop"); Method its method's display name.
	Path, Method string
	At           Time
}

func (e *ZeroTimeLoopError) Error() string {
	return fmt.Sprintf("%s: the loop in %s iterated %d times without simulated time advancing but for its polls (thread %s, at %v): every statement of its body costs nothing; give it work",
		e.Path, e.Method, MaxZeroTimeIterations, e.Thread, e.At)
}

// zeroTimeBackEdge counts t's back-edge at in, taken at clock (its poll
// included): free says the body since the previous back-edge — of any
// loop, across scheduling rounds — cost nothing. Back-edge polls are the
// loop's overhead, not its body: a body that costs nothing iterates as
// fast with a poll per iteration (10⁹ iterations per simulated second)
// or a poll per strip as without one. It reports whether the run must
// stop (it has then set vm.err).
func (vm *VM) zeroTimeBackEdge(t *Thread, f *frame, in *Instr, free bool, clock Time) bool {
	t.zeroClock = clock
	if !free {
		t.zeroIters = 0
		return false
	}
	if t.zeroIters++; t.zeroIters < MaxZeroTimeIterations {
		return false
	}
	m := f.code.Method
	vm.err = &ZeroTimeLoopError{Thread: t.Name, Path: stmtPath(vm.img.Prog, int(m), int(in.Line)),
		Method: vm.img.Names[m], At: clock}
	vm.done = true
	return true
}

// stmtPath is the document path of method m's statement with ordinal
// line (Instr.Line: statements numbered from 1 in source order).
func stmtPath(p *program.Program, m, line int) string {
	n := 0
	var walk func(path string, body []program.Stmt) string
	walk = func(path string, body []program.Stmt) string {
		for i := range body {
			s := &body[i]
			at := fmt.Sprintf("%s[%d].%s", path, i, s.Kind())
			if n++; n == line {
				return at
			}
			var found string
			switch {
			case s.Loop != nil:
				found = walk(at+".body", s.Loop.Body)
			case s.Branch != nil:
				if found = walk(at+".then", s.Branch.Then); found == "" {
					found = walk(at+".else", s.Branch.Else)
				}
			case s.Block != nil:
				found = walk(at+".body", s.Block.Body)
			}
			if found != "" {
				return found
			}
		}
		return ""
	}
	if found := walk(fmt.Sprintf("methods[%d].body", m), p.Methods[m].Body); found != "" {
		return found
	}
	return fmt.Sprintf("methods[%d] line %d", m, line)
}
