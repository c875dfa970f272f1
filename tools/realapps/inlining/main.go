// Command inlining measures how closely a model's inlining follows the
// recording it was imported from: over the recording's execution samples,
// every caller → callee frame pair whose caller ran compiled (JIT compiled
// or Inlined) tells whether C2 had inlined the callee there; a profile of
// the model taken by the simulated jfr sampler with DebugNonSafepoints
// (profsim run --samplers jfr --debug-non-safepoints --out DIR) tells
// whether the model's JIT had. Pairs are methods without descriptors,
// weighted by the recording's samples.
//
//	go run ./tools/realapps/inlining REC.json DIR/jfr.pb.gz
//
// It prints the pairs' weight, the mean |recorded − modelled| share of
// inlined frames, the share of the weight where the recording is
// unanimous and the model mostly decides the other way, the share of
// pairs the model's profile never shows, and the ten heaviest
// disagreements.
package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/profsim/profsim/jfrjson"
)

type pair struct{ caller, callee string }

// counts is [frames not inlined, frames inlined].
type counts [2]float64

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: inlining REC.json PROFILE.pb.gz")
		os.Exit(2)
	}
	rec, err := recorded(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "inlining:", err)
		os.Exit(2)
	}
	mod, err := modelled(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "inlining:", err)
		os.Exit(2)
	}
	report(os.Stdout, rec, mod)
}

func short(name string) string {
	if i := strings.IndexByte(name, '('); i >= 0 {
		return name[:i]
	}
	return name
}

// name is a recorded method as the model's profile names it, without
// its descriptor.
func name(m jfrjson.Method) string {
	return strings.ReplaceAll(m.Class, "/", ".") + "." + m.Name
}

func recorded(path string) (map[pair]counts, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[pair]counts{}
	err = jfrjson.Read(f, func(e *jfrjson.Event) error {
		s := e.Sample
		if e.Type != jfrjson.TypeExecutionSample || s == nil || s.Truncated {
			return nil
		}
		for i := 0; i+1 < len(s.Frames); i++ { // Frames[i+1] calls Frames[i]
			callee, caller := s.Frames[i], s.Frames[i+1]
			if caller.Type != jfrjson.JITCompiled && caller.Type != jfrjson.Inlined || callee.Type == jfrjson.Native {
				continue
			}
			k := pair{name(caller.Method), name(callee.Method)}
			c := out[k]
			if callee.Type == jfrjson.Inlined {
				c[1]++
			} else {
				c[0]++
			}
			out[k] = c
		}
		return nil
	})
	return out, err
}

func modelled(path string) (map[pair]counts, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, err
	}
	out := map[pair]counts{}
	for _, s := range p.Sample {
		var names []string
		var inlined []bool // inlined[i]: frame i inlined into frame i+1
		for _, loc := range s.Location {
			for li, ln := range loc.Line {
				names = append(names, short(ln.Function.Name))
				inlined = append(inlined, li < len(loc.Line)-1)
			}
		}
		for i := 0; i+1 < len(names); i++ {
			k := pair{names[i+1], names[i]}
			c := out[k]
			if inlined[i] {
				c[1] += float64(s.Value[0])
			} else {
				c[0] += float64(s.Value[0])
			}
			out[k] = c
		}
	}
	return out, nil
}

func report(w io.Writer, rec, mod map[pair]counts) {
	type row struct {
		k         pair
		w, r, m   float64
		disagrees bool
	}
	var rows []row
	var total, absErr, wrong, missing float64
	for k, c := range rec {
		wt := c[0] + c[1]
		r := c[1] / wt
		total += wt
		mc, ok := mod[k]
		if !ok {
			missing += wt
			continue
		}
		m := mc[1] / (mc[0] + mc[1])
		absErr += wt * math.Abs(r-m)
		dis := (r == 0 || r == 1) && math.Abs(r-m) > 0.5
		if dis {
			wrong += wt
		}
		rows = append(rows, row{k, wt, r, m, dis})
	}
	if total == 0 {
		fmt.Fprintln(w, "no frame pair below compiled code in the recording")
		return
	}
	fmt.Fprintf(w, "pairs: weight %.0f; mean |recorded - modelled| inlined share %.3f; unanimous in the recording, mostly the other way in the model %.3f; not in the model's profile %.3f\n",
		total, absErr/total, wrong/total, missing/total)
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].disagrees != rows[j].disagrees {
			return rows[i].disagrees
		}
		if rows[i].w != rows[j].w {
			return rows[i].w > rows[j].w
		}
		return rows[i].k.caller+rows[i].k.callee < rows[j].k.caller+rows[j].k.callee
	})
	for _, r := range rows[:min(10, len(rows))] {
		if !r.disagrees {
			break
		}
		fmt.Fprintf(w, "  %s -> %s: weight %.0f, recorded inlined %.2f, modelled %.2f\n", r.k.caller, r.k.callee, r.w, r.r, r.m)
	}
}
