package study

import (
	"flag"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/harness"
)

// replaySpec runs s as the study does (collect included), then parses the
// run's Description.Args as `profsim run` parses its command line and
// runs that Spec the same way: the two runs must have the same key and
// the same profiles, member profiles (Outcome.Members) included. It
// returns the study's outcome.
func replaySpec(t *testing.T, s harness.Spec, collect ...func(*harness.Config)) *harness.Outcome {
	t.Helper()
	run := func(s harness.Spec) (*harness.Description, *harness.Outcome) {
		p, hash, err := s.Load()
		require.NoError(t, err)
		cfg, err := s.Config()
		require.NoError(t, err)
		out, err := runSpec(s, collect...)
		require.NoError(t, err)
		return s.Describe(cfg, out.Names, out.Samplers, harness.WorkloadInfo{Name: p.Name, Ref: s.Workload, SHA256: hash}), out
	}
	d, out := run(s)
	require.Equal(t, "run", d.Args[0])
	replayed := harness.DefaultSpec()
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	sf := replayed.Bind(fs)
	require.NoError(t, fs.Parse(d.Args[1:]), "%q", d.Args)
	require.NoError(t, sf.Finish())
	d2, out2 := run(replayed)
	assert.Equal(t, d.Key(), d2.Key())
	require.Equal(t, out.Names, out2.Names)
	require.Equal(t, out.Members, out2.Members)
	for _, n := range out.Names {
		assert.Equal(t, out.Profiles[n].Samples, out2.Profiles[n].Samples, n)
	}
	for _, ms := range out.Members {
		for _, m := range ms {
			assert.Equal(t, out.Profiles[m].Samples, out2.Profiles[m].Samples, m)
		}
	}
	return out
}
