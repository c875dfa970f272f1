package program

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// WriteListing writes every method of p with its statements numbered as
// profiles number lines: each method's statements 1, 2, 3, … in the
// order they are written, a loop's, branch's or block's own line before
// its body's (sim's flattening, which profiles and --by line report).
// display names a method as profiles do (Resolver.DisplayName).
func (p *Program) WriteListing(w io.Writer) error {
	r := NewResolver(p)
	for i := range p.Methods {
		m := &p.Methods[i]
		if _, err := fmt.Fprintf(w, "%s\n", r.DisplayName(m)); err != nil {
			return err
		}
		line := 0
		if err := listStmts(w, m.Body, 1, &line); err != nil {
			return err
		}
	}
	return nil
}

func listStmts(w io.Writer, body []Stmt, depth int, line *int) error {
	for i := range body {
		s := &body[i]
		*line++
		if _, err := fmt.Fprintf(w, "%5d  %s%s\n", *line, strings.Repeat("  ", depth), stmtSummary(s)); err != nil {
			return err
		}
		var err error
		switch {
		case s.Loop != nil:
			err = listStmts(w, s.Loop.Body, depth+1, line)
		case s.Branch != nil:
			if err = listStmts(w, s.Branch.Then, depth+1, line); err == nil && len(s.Branch.Else) > 0 {
				if _, err = fmt.Fprintf(w, "%5s  %selse\n", "", strings.Repeat("  ", depth)); err == nil {
					err = listStmts(w, s.Branch.Else, depth+1, line)
				}
			}
		case s.Block != nil:
			err = listStmts(w, s.Block.Body, depth+1, line)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// inlineNote shows a call site's inlining decision (Call.Inline).
func inlineNote(d *bool) string {
	switch {
	case d == nil:
		return ""
	case *d:
		return " (inlined here)"
	default:
		return " (never inlined here)"
	}
}

// stmtSummary is one statement on one line.
func stmtSummary(s *Stmt) string {
	switch {
	case s.Work != nil:
		return fmt.Sprintf("work %d cycles, %d bytecodes", s.Work.Cycles, s.Work.Bytecodes)
	case s.Native != nil:
		return fmt.Sprintf("native %d cycles", s.Native.Cycles)
	case s.Stub != nil:
		if s.Stub.Name == "" {
			return fmt.Sprintf("stub %d cycles", s.Stub.Cycles)
		}
		return fmt.Sprintf("stub %s %d cycles", s.Stub.Name, s.Stub.Cycles)
	case s.Call != nil:
		c := "call " + s.Call.Method + inlineNote(s.Call.Inline)
		if t := s.Call.Throws; t != nil {
			c += fmt.Sprintf(", then throw (caught %d up, ×%.3g; the model's flow goes on)", t.Depth, t.Times)
		}
		return c
	case s.VirtualCall != nil:
		var rs []string
		for r := range s.VirtualCall.Receivers {
			rs = append(rs, r)
		}
		sort.Strings(rs)
		for i, r := range rs {
			if d, ok := s.VirtualCall.Inline[r]; ok {
				rs[i] += inlineNote(&d)
			}
		}
		line := "virtual_call " + strings.Join(rs, " | ")
		switch n := len(s.VirtualCall.ByCaller); n {
		case 0:
		case 1:
			line += " (receivers by 1 caller)"
		default:
			line += fmt.Sprintf(" (receivers by %d callers)", n)
		}
		if n := len(s.VirtualCall.ByDepth); n > 0 {
			line += fmt.Sprintf(" (receivers by depth, %d)", n)
		}
		return line
	case s.Loop != nil:
		if s.Loop.Uncounted {
			return fmt.Sprintf("loop, trips %v, uncounted", s.Loop.Trips)
		}
		if s.Loop.RuntimeBound {
			return fmt.Sprintf("loop, trips %v, bound at run time", s.Loop.Trips)
		}
		return fmt.Sprintf("loop, trips %v", s.Loop.Trips)
	case s.Branch != nil:
		var by []string
		for _, ref := range sortedKeys(s.Branch.ByCaller) {
			by = append(by, fmt.Sprintf("%g from %s", s.Branch.ByCaller[ref], ref))
		}
		for i, p := range s.Branch.ByDepth {
			by = append(by, fmt.Sprintf("%g at depth %d", p, i+1))
		}
		if len(by) > 0 {
			return fmt.Sprintf("branch, probability %g (%s)", s.Branch.Probability, strings.Join(by, ", "))
		}
		return fmt.Sprintf("branch, probability %g", s.Branch.Probability)
	case s.Alloc != nil:
		return fmt.Sprintf("alloc %d bytes", s.Alloc.Bytes)
	case s.Block != nil:
		b := "block " + s.Block.Kind
		if s.Block.Lock != "" {
			b += " " + s.Block.Lock
		}
		if s.Block.Duration != nil {
			b += fmt.Sprintf(", %v", s.Block.Duration)
		}
		return b
	case s.Spawn != nil:
		return fmt.Sprintf("spawn %s (%s)", s.Spawn.Name, s.Spawn.Entry)
	case s.Throw != nil:
		return fmt.Sprintf("throw to depth %d", s.Throw.Depth)
	}
	return "(empty)"
}
