// Command contexts measures how much of a recording's calling contexts a
// model that conditions each method's calls on its k nearest callers can
// reproduce. The recording's execution samples (all threads, frames by
// method, no lines) are split in two, alternate samples; an order-k chain
// is fitted to the first half — from the last k frames of a stack, the
// next frame or the end of the stack, in the shares the half's samples
// pass through them — and its distribution over stacks is compared with
// the second half's (overlap = Σ min(share)); so is an order-2 chain
// whose state also holds how many frames of its last method the stack
// holds (a recursion's depth). Order 1 is a program whose
// methods call the same way in every calling context (profsim import
// --no-callers), order 2 one whose methods call by their caller, what the
// import's calls by caller aim at; the first half itself against the
// second is what an exact model reaches on a recording of that length.
//
//	go run ./tools/realapps/contexts [--max-order K] REC.json...
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/profsim/profsim/jfrjson"
)

const (
	end = "\x00end" // the chain's step past a stack's leaf
	sep = "\x01"    // between frames: a descriptor holds ";"
)

func main() {
	maxOrder := flag.Int("max-order", 4, "the highest order k to fit (≥ 1)")
	flag.Parse()
	if flag.NArg() == 0 || *maxOrder < 1 {
		fmt.Fprintln(os.Stderr, "usage: contexts [--max-order K ≥ 1] REC.json...")
		os.Exit(2)
	}
	fmt.Printf("| recording | samples | contexts |")
	for k := 1; k <= *maxOrder; k++ {
		fmt.Printf(" order %d |", k)
	}
	fmt.Printf(" order 2 and depth | half against half |\n|---|---|---|%s\n", strings.Repeat("---|", *maxOrder+2))
	for _, path := range flag.Args() {
		stacks, err := readFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "contexts:", err)
			os.Exit(1)
		}
		orders, depth, exact := measure(stacks, *maxOrder)
		fmt.Printf("| %s | %d | %d |", path, len(stacks), len(shares(stacks)))
		for _, o := range orders {
			fmt.Printf(" %.3f |", o)
		}
		fmt.Printf(" %.3f | %.3f |\n", depth, exact)
	}
}

// measure splits stacks into alternate halves and returns, for k = 1 …
// maxOrder, the overlap of the order-k chain fitted to the first half
// with the second half, that of the order-2 chain that also knows the
// depth of a recursion, and the overlap of the halves.
func measure(stacks []string, maxOrder int) (orders []float64, depth, exact float64) {
	var a, b []string
	for i, s := range stacks {
		if i%2 == 0 {
			a = append(a, s)
		} else {
			b = append(b, s)
		}
	}
	ra, rb := shares(a), shares(b)
	overlap := func(m *chain) (o float64) {
		for s, w := range rb {
			o += min(w, m.prob(s))
		}
		return o
	}
	for k := 1; k <= maxOrder; k++ {
		orders = append(orders, overlap(fit(a, lastK(k))))
	}
	depth = overlap(fit(a, lastTwoAndDepth))
	for s, w := range rb {
		exact += min(w, ra[s])
	}
	return orders, depth, exact
}

func readFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	stacks, err := read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return stacks, nil
}

// read is the recording's execution samples' stacks, root first, each
// frame its method.
func read(r io.Reader) ([]string, error) {
	var out []string
	err := jfrjson.Read(r, func(e *jfrjson.Event) error {
		if e.Sample == nil {
			return nil
		}
		fr := e.Sample.Frames
		names := make([]string, len(fr))
		for i := range fr {
			names[len(fr)-1-i] = fr[i].Method.String()
		}
		out = append(out, strings.Join(names, sep))
		return nil
	})
	return out, err
}

// shares is each distinct stack's share of stacks.
func shares(stacks []string) map[string]float64 {
	m := map[string]float64{}
	for _, s := range stacks {
		m[s] += 1 / float64(len(stacks))
	}
	return m
}

// chain is a chain over a stack's frames, root first: from a state of
// the frames so far, the next frame or the stack's end.
type chain struct {
	state func(frames []string) string
	next  map[string]map[string]float64 // state → next frame (or end) → samples
	tot   map[string]float64            // state → samples
}

// lastK is the order-k state: the last k of frames.
func lastK(k int) func([]string) string {
	return func(frames []string) string {
		if len(frames) > k {
			frames = frames[len(frames)-k:]
		}
		return strings.Join(frames, sep)
	}
}

// lastTwoAndDepth is the order-2 state with how many frames of the last
// frame's method the stack holds: a recursion's depth.
func lastTwoAndDepth(frames []string) string {
	if len(frames) == 0 {
		return ""
	}
	n := 0
	for _, f := range frames {
		if f == frames[len(frames)-1] {
			n++
		}
	}
	return fmt.Sprintf("%s%s%d", lastK(2)(frames), sep, n)
}

// steps calls fn with each step of stack s: the state before it and the
// frame it adds (end past the leaf).
func steps(s string, state func([]string) string, fn func(st, next string)) {
	fr := strings.Split(s, sep)
	for i := 0; i <= len(fr); i++ {
		nx := end
		if i < len(fr) {
			nx = fr[i]
		}
		fn(state(fr[:i]), nx)
	}
}

func fit(stacks []string, state func([]string) string) *chain {
	c := &chain{state: state, next: map[string]map[string]float64{}, tot: map[string]float64{}}
	for _, s := range stacks {
		steps(s, state, func(st, nx string) {
			if c.next[st] == nil {
				c.next[st] = map[string]float64{}
			}
			c.next[st][nx]++
			c.tot[st]++
		})
	}
	return c
}

// prob is the chain's probability of stack s.
func (c *chain) prob(s string) float64 {
	p := 1.0
	steps(s, c.state, func(st, nx string) {
		if c.tot[st] == 0 {
			p = 0
			return
		}
		p *= c.next[st][nx] / c.tot[st]
	})
	return p
}
