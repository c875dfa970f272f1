package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

// Bias is the samplers' bias matrices (NewBias; `profsim run --why`).
type Bias struct {
	Samplers []BiasMatrix `json:"samplers"`
	// Untraced lists the samplers that have no per-sample story, with why.
	Untraced []Untraced `json:"untraced,omitempty"`
}

// Untraced is a sampler without a bias matrix, and why.
type Untraced struct {
	Sampler string `json:"sampler"`
	Reason  string `json:"reason"`
}

// BiasMatrix is one sampler's bias matrix: Counts[i][j] samples were
// requested while the thread was in Methods[i] and charged to Methods[j].
type BiasMatrix struct {
	Sampler    string           `json:"sampler"`
	Samples    int64            `json:"samples"`
	Diagonal   float64          `json:"diagonal"`
	Methods    []string         `json:"methods"`
	Counts     [][]int64        `json:"counts"`
	Mechanisms map[string]int64 `json:"mechanisms"`
	// Skipped counts the requests that gave no sample, by reason.
	Skipped map[string]int64 `json:"skipped,omitempty"`
	// WaitMedianNS and WaitP90NS are the median and 90th percentile of
	// the samples' waits from request to sample.
	WaitMedianNS int64 `json:"wait_median_ns"`
	WaitP90NS    int64 `json:"wait_p90_ns"`
}

// NewBias makes the bias matrices of the samplers of out from tr, the
// trace the run recorded (harness.Config.Trace).
func NewBias(tr *samplers.Trace, out *harness.Outcome) *Bias {
	rep := &Bias{Samplers: []BiasMatrix{}}
	byID := map[string]*samplers.Bias{}
	for _, b := range tr.Bias() {
		byID[b.Sampler] = b
	}
	for _, r := range out.Samplers {
		if b := byID[r.ID]; b != nil {
			rep.Samplers = append(rep.Samplers, BiasMatrix{Sampler: b.Sampler, Samples: b.Total, Diagonal: b.Diagonal(),
				Methods: b.Methods, Counts: b.Counts, Mechanisms: b.Mechanisms, Skipped: b.Skipped,
				WaitMedianNS: int64(b.WaitMedian), WaitP90NS: int64(b.WaitP90)})
			continue
		}
		reason := "took no sample"
		if s, err := samplers.New(r.Name); err == nil {
			if _, ok := s.(samplers.Traceable); !ok {
				reason = "aggregates without per-sample times (no trace)"
			}
		}
		rep.Untraced = append(rep.Untraced, Untraced{r.ID, reason})
	}
	return rep
}

// Why prints the bias matrices: rows are where threads truly were
// when samples were requested, columns where the samples were charged,
// cells the share of the sampler's samples; at most top methods, the rest
// as (other).
func (r *Report) Why(w io.Writer, top int) {
	if r.Bias == nil {
		return
	}
	fmt.Fprintf(w, "\nWhy: each sampler's bias matrix — rows: the method a thread was truly in when its sample\nwas requested; columns: the method the sample was charged to; %% of the sampler's samples.\nA perfect profiler is diagonal.\n")
	for _, b := range r.Bias.Samplers {
		fmt.Fprintf(w, "\n%s: %d samples, %.1f %% on the diagonal; taken by %s\n", b.Sampler, b.Samples, 100*b.Diagonal, mechanisms(b))
		fmt.Fprintf(w, "  wait from request to sample: median %v, 90th percentile %v\n", sim.Time(b.WaitMedianNS), sim.Time(b.WaitP90NS))
		if len(b.Skipped) > 0 {
			fmt.Fprintf(w, "  requests that gave no sample: %s\n", skipped(b.Skipped))
		}
		names, cells := foldOther(b, top)
		width := len("truly in \\ charged to")
		for _, n := range names {
			width = max(width, len(n))
		}
		fmt.Fprintf(w, "  %-*s", width, "truly in \\ charged to")
		for _, n := range names {
			fmt.Fprintf(w, "  %*s", max(len(n), 6), n)
		}
		fmt.Fprintln(w)
		for i, n := range names {
			fmt.Fprintf(w, "  %-*s", width, n)
			for j, c := range names {
				fmt.Fprintf(w, "  %*s", max(len(c), 6), pct(cells[i][j], b.Samples))
			}
			fmt.Fprintln(w)
		}
	}
	for _, u := range r.Bias.Untraced {
		fmt.Fprintf(w, "\n%s: no bias matrix: %s\n", u.Sampler, u.Reason)
	}
}

// foldOther keeps the top methods of b that matter most either way —
// the largest of the samples truly in a method and the samples charged to
// it — in b's order (most truly-sampled first), and adds the rest up as
// "(other)": a method the sampler charges but threads are rarely in (a
// poll's caller) keeps its column.
func foldOther(b BiasMatrix, top int) ([]string, [][]int64) {
	n := len(b.Methods)
	if top <= 0 || n <= top {
		return b.Methods, b.Counts
	}
	weight := make([]int64, n)
	for i := range n {
		var row, col int64
		for j := range n {
			row += b.Counts[i][j]
			col += b.Counts[j][i]
		}
		weight[i] = max(row, col)
	}
	byWeight := make([]int, n)
	for i := range byWeight {
		byWeight[i] = i
	}
	sort.SliceStable(byWeight, func(x, y int) bool { return weight[byWeight[x]] > weight[byWeight[y]] })
	keep := make([]bool, n)
	for _, i := range byWeight[:top] {
		keep[i] = true
	}
	slot := make([]int, n) // method index → its row/column, top for (other)
	var names []string
	for i, m := range b.Methods {
		slot[i] = top
		if keep[i] {
			slot[i] = len(names)
			names = append(names, m)
		}
	}
	names = append(names, "(other)")
	cells := make([][]int64, top+1)
	for i := range cells {
		cells[i] = make([]int64, top+1)
	}
	for i := range n {
		for j := range n {
			cells[slot[i]][slot[j]] += b.Counts[i][j]
		}
	}
	return names, cells
}

func pct(n, total int64) string {
	if n == 0 {
		return "."
	}
	return fmt.Sprintf("%.1f", 100*float64(n)/float64(total))
}

// mechanisms lists how a sampler's samples were taken, most first.
func mechanisms(b BiasMatrix) string {
	parts := byCount(b.Mechanisms)
	for i, e := range parts {
		parts[i] = fmt.Sprintf("%s %.1f %%", e, 100*float64(b.Mechanisms[e])/float64(b.Samples))
	}
	return strings.Join(parts, ", ")
}

// skipped lists the reasons requests gave no sample, most first.
func skipped(m map[string]int64) string {
	parts := byCount(m)
	for i, e := range parts {
		parts[i] = fmt.Sprintf("%d: %s", m[e], e)
	}
	return strings.Join(parts, "; ")
}

// byCount is m's keys, largest count first (ties by key).
func byCount(m map[string]int64) []string {
	type kv struct {
		k string
		n int64
	}
	var all []kv
	for k, n := range m {
		all = append(all, kv{k, n})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].n != all[j].n {
			return all[i].n > all[j].n
		}
		return all[i].k < all[j].k
	})
	keys := make([]string, len(all))
	for i, e := range all {
		keys[i] = e.k
	}
	return keys
}
