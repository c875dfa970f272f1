package samplers_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/jit"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// Every sampler's output on a paper program, byte for byte: a change in
// any mechanism shows up here first. Edge samplers run on callpair with
// Jikes-like yield points; the others on abcuv with strip mining (so that
// safepoint-based samplers get samples once the loop is compiled).
func TestSamplerGoldenOutputs(t *testing.T) {
	for _, info := range samplers.List() {
		t.Run(info.Name, func(t *testing.T) {
			w, edge := "abcuv", info.Name == "cbs" || info.Name == "jikes-timer"
			if edge {
				w = "callpair"
			}
			out := run(t, w, func(c *harness.Config) {
				c.Samplers = []string{info.Name}
				c.Sim.Duration = 300 * sim.Millisecond
				c.JIT.StripMiningIter = 1000
				if edge {
					c.JIT.Flavour, c.JIT.Inline, c.JIT.StripMiningIter = jit.Jikes, false, 0
				}
			})
			var b bytes.Buffer
			p := out.Profiles[info.Name]
			c := out.Costs[info.Name]
			fmt.Fprintf(&b, "sampler %s on %s, 300ms, seed 1, passive\n", info.Name, w)
			fmt.Fprintf(&b, "requested %d taken %d\n", c.Requested, c.Taken)
			keys := make([]samplers.Measure, 0, len(c.Measures))
			for k := range c.Measures {
				keys = append(keys, k)
			}
			sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
			for _, k := range keys {
				fmt.Fprintf(&b, "%s %.3f\n", k, c.Measures[k])
			}
			fmt.Fprintf(&b, "overlap vs truth: methods %.4f contexts %.4f edges %.4f\n",
				profile.OverlapMethods(out.Profiles["truth"], p), profile.OverlapContexts(out.Profiles["truth"], p),
				profile.OverlapEdges(out.Profiles["truth"], p))
			b.WriteString("-- folded --\n")
			require.NoError(t, profile.WriteFolded(&b, p))
			b.WriteString("-- edges --\n")
			for _, e := range p.Edges {
				fmt.Fprintf(&b, "%s:%d -> %s %d\n", p.Functions[e.Caller].Name, e.Site, p.Functions[e.Callee].Name, e.Weight)
			}
			path := filepath.Join("testdata", info.Name+".golden")
			if *update {
				require.NoError(t, os.MkdirAll("testdata", 0o755))
				require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run 'go test ./samplers -update' to create it")
			assert.Equal(t, string(want), b.String())
		})
	}
}
