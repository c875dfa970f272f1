package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/program"
)

// interpretedNoteShare is the share of the application's CPU time spent
// interpreted above which the table prints a note: "most of the time",
// the majority, as issue 18 asks ("show it in the table when most time
// is interpreted").
const interpretedNoteShare = 0.5

// noteMethods is how many of the interpreted methods a note names, and
// noteMethodMin the least share of the CPU time a named one has (the note
// prints whole percents: a smaller share would read "0 %").
const (
	noteMethods   = 3
	noteMethodMin = 0.005
)

// WriteNotes prints the table's notes on the two traps new users hit:
// a run spent mostly in interpreted code (interpreted: InterpretedNote's,
// made from the recorder before Collect releases it), and a spawn that
// joins before the next spawn starts (docs/WORKLOADS.md).
func WriteNotes(w io.Writer, p *program.Program, interpreted []string) {
	for _, n := range append(interpreted, spawnJoinNotes(p)...) {
		fmt.Fprintf(w, "\n%s\n", wrapNote("note: "+n))
	}
}

// noteWidth is the width notes are wrapped at: the table's own lines
// with four samplers, readable on a projector.
const noteWidth = 100

// wrapNote breaks text between words into lines of at most noteWidth
// characters (a longer word stays whole), indenting every line but the
// first by six spaces, under the text after "note: ".
func wrapNote(text string) string {
	var b strings.Builder
	line := 0
	for i, word := range strings.Fields(text) {
		n := utf8.RuneCountInString(word)
		switch {
		case i == 0:
		case line+1+n > noteWidth:
			b.WriteString("\n      ")
			line = 6
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += n
	}
	return b.String()
}

// InterpretedNote is a note when more than interpretedNoteShare of the
// application's CPU time ran in calling contexts no method of which the
// JIT compiled during the run. Such a context can only run interpreted:
// compiled code, its inlined callees included, exists only for compiled
// methods. It is a lower bound — time a method spent interpreted before
// it was compiled is not counted — and none with the optimizing JIT off
// (--baseline-only: no interpreter) or with every method interpreted on
// purpose (-Xint, jit.interpret_only). It reads the finished run's
// recorder, before Collect.
func InterpretedNote(cfg harness.Config, rig *harness.Rig) []string {
	if rig.JIT() == nil || cfg.JIT.InterpretOnly || rig.VM().Truth() == nil {
		return nil
	}
	tr := rig.VM().Truth()
	total := tr.SelfTotal()
	if total <= 0 {
		return nil
	}
	compiled := map[int32]bool{}
	isCompiled := func(m int32) bool {
		c, ok := compiled[m]
		if !ok {
			c = rig.JIT().CompiledCode(m) != nil
			compiled[m] = c
		}
		return c
	}
	n := tr.NodeCount()
	interp := make([]bool, n) // node i's context has no compiled method
	interp[0] = true          // the root
	bySelf := map[int32]int64{}
	var sum int64
	for i := 1; i < n; i++ {
		node := tr.Node(int32(i))
		interp[i] = interp[node.Parent] && !isCompiled(node.Method)
		if interp[i] && node.Self > 0 {
			sum += int64(node.Self)
			bySelf[node.Method] += int64(node.Self)
		}
	}
	share := float64(sum) / float64(total)
	if share <= interpretedNoteShare {
		return nil
	}
	methods := make([]int32, 0, len(bySelf))
	for m := range bySelf {
		methods = append(methods, m)
	}
	slices.SortFunc(methods, func(a, b int32) int {
		return cmp.Or(cmp.Compare(bySelf[b], bySelf[a]), cmp.Compare(a, b))
	})
	var named []string
	for _, m := range methods[:min(noteMethods, len(methods))] {
		if s := float64(bySelf[m]) / float64(total); s >= noteMethodMin {
			named = append(named, fmt.Sprintf("%s %.0f %%", rig.Image().Names[m], 100*s))
		}
	}
	if more := len(methods) - len(named); more > 0 {
		named = append(named, fmt.Sprintf("%d more", more))
	}
	j := cfg.JIT
	return []string{fmt.Sprintf("%.0f %% of the application's CPU time ran interpreted, in methods the JIT never compiled (%s). "+
		"A method is compiled after %d calls (jit.compile_threshold) or %d loop back-edges (jit.backedge_threshold); "+
		"until then it runs %d× slower and polls at every back-edge and return, so the profiles show the interpreter, not compiled code. "+
		"Run longer (--duration), call the method more often, or lower the thresholds: --jvm-flags -XX:CompileThreshold=N "+
		"(or --set jit.compile_threshold=N --set jit.backedge_threshold=N)",
		100*share, strings.Join(named, ", "), j.CompileThreshold, j.BackedgeThreshold, cfg.Sim.Cost.InterpFactor)}
}

// spawnJoinNotes notes every spawn with join: true followed, in the same
// statement list, by another spawn: the spawner waits at the first until
// its threads have ended, so the two sets of threads never run at the
// same time — a common surprise, since Java's Thread.start() returns at
// once and join() is a separate call. A joined spawn followed by other
// statements (fork, then join, then use the results) is the usual
// fork-join and is not noted.
func spawnJoinNotes(p *program.Program) []string {
	var notes []string
	var walk func(m *program.Method, path string, body []program.Stmt)
	walk = func(m *program.Method, path string, body []program.Stmt) {
		for i := range body {
			s := &body[i]
			at := fmt.Sprintf("%s[%d]", path, i)
			switch {
			case s.Spawn != nil && s.Spawn.Join:
				for k := i + 1; k < len(body); k++ {
					if next := body[k].Spawn; next != nil {
						notes = append(notes, fmt.Sprintf("%s: %s.%s spawns %s with join: true, which waits at once until its threads have ended; "+
							"the threads of the next spawn (%s, %s[%d]) start only then, so the two never run together. "+
							"To run them at the same time, leave join out of every spawn but the last (threads that are not daemons keep the run going)",
							at+".spawn", m.Class, m.Name, s.Spawn.Name, next.Name, path, k))
						break
					}
				}
			case s.Loop != nil:
				walk(m, at+".loop.body", s.Loop.Body)
			case s.Branch != nil:
				walk(m, at+".branch.then", s.Branch.Then)
				walk(m, at+".branch.else", s.Branch.Else)
			case s.Block != nil:
				walk(m, at+".block.body", s.Block.Body)
			}
		}
	}
	for i := range p.Methods {
		walk(&p.Methods[i], fmt.Sprintf("methods[%d].body", i), p.Methods[i].Body)
	}
	return notes
}
