package workloads

import (
	"fmt"
	"math"
	"strings"

	"github.com/profsim/profsim/program"
)

// SyntheticEntryClass is the class of the entry methods profsim import
// makes for a thread whose samples have several root methods
// (importer.SyntheticClass): such an entry only calls the roots in turn.
const SyntheticEntryClass = "jfr.thread"

// RecorderThreadPrefix starts the names of the JDK Flight Recorder's own
// threads ("JFR Recording Scheduler", "JFR Periodic Tasks"): a model of a
// recording carries them when JFR sampled them, but they are the
// recorder's work, not the application's.
const RecorderThreadPrefix = "JFR "

// DropRecorderThreads removes p's recorder threads (RecorderThreadPrefix)
// in place and returns how many it removed. Their methods stay in p,
// unused. A program with no other thread is left as it is, with 0.
func DropRecorderThreads(p *program.Program) (int, error) {
	var keep []program.Thread
	for _, t := range p.Threads {
		if !strings.HasPrefix(t.Name, RecorderThreadPrefix) {
			keep = append(keep, t)
		}
	}
	if len(keep) == 0 || len(keep) == len(p.Threads) {
		return 0, nil
	}
	n := len(p.Threads) - len(keep)
	p.Threads = keep
	return n, p.Validate()
}

// ScaleEntryLoops scales the trip counts of every thread's entry loops by
// s (in place) and revalidates p: the loops at the top level of the
// thread's entry method or, when the entry is a synthetic one
// (SyntheticEntryClass), of the first method it calls: the root sampled
// first, the driver's main; the later roots are stacks whose walk lost
// their bottom frames, and their loops are the application's. In a model of a
// recording these are the driver's loops that repeat the application's
// work for the recording's length (AntlrDriver.main's, …), so s scales
// the run's length and leaves what one repetition does as it is. A
// constant trip count becomes round(s × trips), a uniform range each end
// scaled so; a loop keeps at least one trip, so a set-up loop of one
// trip stays one. It returns how many loops it scaled; s must be a
// finite number > 0.
func ScaleEntryLoops(p *program.Program, s float64) (int, error) {
	if !(s > 0) || math.IsInf(s, 0) {
		return 0, fmt.Errorf("scale entry loops: factor %v must be a finite number > 0", s)
	}
	r := program.NewResolver(p)
	var entries []int
	seen := map[int]bool{}
	add := func(ref string) error {
		i, err := r.Resolve(ref)
		if err != nil {
			return fmt.Errorf("scale entry loops: %w", err)
		}
		if !seen[i] {
			seen[i] = true
			entries = append(entries, i)
		}
		return nil
	}
	for _, t := range p.Threads {
		i, err := r.Resolve(t.Entry)
		if err != nil {
			return 0, fmt.Errorf("scale entry loops: thread %s: %w", t.Name, err)
		}
		if p.Methods[i].Class != SyntheticEntryClass {
			if err := add(t.Entry); err != nil {
				return 0, err
			}
			continue
		}
		for _, st := range p.Methods[i].Body {
			if st.Call != nil {
				if err := add(st.Call.Method); err != nil {
					return 0, err
				}
				break
			}
		}
	}
	scale := func(v int64) int64 {
		return max(1, min(program.MaxTrips, int64(math.Round(float64(v)*s))))
	}
	n := 0
	for _, i := range entries {
		m := &p.Methods[i]
		body := append([]program.Stmt(nil), m.Body...)
		for j := range body {
			l := body[j].Loop
			if l == nil || l.Trips == nil || !l.Trips.Bounded() {
				continue
			}
			d := *l.Trips
			d.A = scale(d.A)
			if d.Kind == program.Uniform {
				d.B = max(d.A, scale(d.B))
			}
			nl := *l
			nl.Trips = &d
			body[j].Loop = &nl
			n++
		}
		m.Body = body
	}
	return n, p.Validate()
}
