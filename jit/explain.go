package jit

import (
	"fmt"
	"strings"

	"github.com/profsim/profsim/sim"
)

// Explain describes every compilation so far: when it was queued and
// installed, and the installed code's inlining tree with its polls.
func (j *JIT) Explain() string {
	var b strings.Builder
	if len(j.events) == 0 {
		b.WriteString("no method was compiled (everything stayed interpreted)\n")
	}
	for _, e := range j.events {
		if e.Reason == reasonRecorded {
			fmt.Fprintf(&b, "%s: %s, installed before the run, %d bytecodes, %d inlined\n",
				j.img.Names[e.Method], e.Reason, e.Size, e.Inlined)
		} else if e.Done == 0 && e.Reason != "startup" {
			// Queued (or compiling) when the run ended: nothing installed.
			fmt.Fprintf(&b, "%s: %s, queued %v, never installed (the run ended first)\n",
				j.img.Names[e.Method], e.Reason, e.Queued)
			continue
		} else {
			fmt.Fprintf(&b, "%s: %s, queued %v, installed %v, %d bytecodes, %d inlined\n",
				j.img.Names[e.Method], e.Reason, e.Queued, e.Done, e.Size, e.Inlined)
		}
		j.explainCode(&b, j.vm.Code(e.Method), "    ", false)
	}
	for _, c := range j.cmds {
		var matched []string
		for m, meth := range j.img.Methods {
			if c.Matches(meth) {
				matched = append(matched, j.img.Names[m])
			}
		}
		if len(matched) == 0 {
			matched = []string{"no method"}
		}
		fmt.Fprintf(&b, "CompileCommand %s matches %s\n", c, strings.Join(matched, ", "))
	}
	for m, ex := range j.oracle.exclude {
		if ex {
			fmt.Fprintf(&b, "%s: excluded by CompileCommand, never compiled (interpreted)\n", j.img.Names[m])
		}
	}
	return b.String()
}

func (j *JIT) explainCode(b *strings.Builder, c *sim.Code, indent string, inlined bool) {
	fmt.Fprintf(b, "%s%s [%v] polls: %s\n", indent, j.img.Names[c.Method], c.Tier, strings.Join(describePolls(j.img, c, inlined), ", "))
	if c.Inline == nil {
		return
	}
	for pc, vs := range c.Inline {
		for _, v := range vs {
			fmt.Fprintf(b, "%s  inlined at line %d:\n", indent, c.Instrs[pc].Line)
			j.explainCode(b, v, indent+"    ", true)
		}
	}
}

func describePolls(img *sim.Image, c *sim.Code, inlined bool) []string {
	var out []string
	if c.PollEntry && !inlined {
		out = append(out, "prologue")
	}
	for pc, in := range c.Instrs {
		switch in.Op {
		case sim.OpLoopBack:
			switch {
			case in.Flags&sim.FlagPoll != 0:
				out = append(out, fmt.Sprintf("back-edge of loop at line %d", in.Line))
			case in.StripLength() > 0:
				if trips, ok := img.LiteralTrips(&c.Instrs[in.LoopEnterPC()]); ok && trips <= int64(in.StripLength()) {
					out = append(out, fmt.Sprintf("exit of counted loop at line %d (one strip)", in.Line))
				} else if in.StripLength() == 1 {
					out = append(out, fmt.Sprintf("counted loop at line %d every iteration", in.Line))
				} else {
					out = append(out, fmt.Sprintf("counted loop at line %d every %d iterations and at its exit (strip mined)", in.Line, in.StripLength()))
				}
			case callsEveryTrip(c, in.LoopEnterPC()+1, int32(pc)):
				out = append(out, fmt.Sprintf("none in loop at line %d (a call on every trip)", in.Line))
			default:
				out = append(out, fmt.Sprintf("none in counted loop at line %d", in.Line))
			}
		case sim.OpReturn:
			if in.Flags&sim.FlagPoll != 0 && !inlined {
				if c.EpiloguePoll {
					out = append(out, "epilogue")
				} else {
					out = append(out, "return (after the pop)")
				}
			}
		}
	}
	if len(out) == 0 {
		out = append(out, "none")
	}
	return out
}

// PollSites counts the yield points of a code version and of everything
// inlined into it: prologue, returns and back-edges that poll (strip-mined
// ones included). An inlined callee's return does not poll.
func PollSites(c *sim.Code) int {
	return pollSites(c, false)
}

func pollSites(c *sim.Code, inlined bool) int {
	n := 0
	if c.PollEntry && !inlined {
		n++
	}
	for _, in := range c.Instrs {
		switch in.Op {
		case sim.OpLoopBack:
			if in.Flags&sim.FlagPoll != 0 || in.StripLength() > 0 {
				n++
			}
		case sim.OpReturn:
			if in.Flags&sim.FlagPoll != 0 && !inlined {
				n++
			}
		}
	}
	for _, vs := range c.Inline {
		for _, v := range vs {
			n += pollSites(v, true)
		}
	}
	return n
}

// CompiledCode returns the compiled version now installed for method m,
// or nil while it is interpreted.
func (j *JIT) CompiledCode(m int32) *sim.Code {
	if c := j.vm.Code(m); c.Tier == sim.Compiled {
		return c
	}
	return nil
}

// Method returns the index of the method whose display name is name
// ("Class.method", or "Class.method(Ljava/lang/String;)V" for an overload).
func (j *JIT) Method(name string) (int32, bool) {
	for i, n := range j.img.Names {
		if n == name {
			return int32(i), true
		}
	}
	return 0, false
}
