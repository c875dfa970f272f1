package study

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
)

// The study's models are the checked-in models of DaCapo-2006
// applications, each a built-in workload.
func TestDaCapoModelsAreModels(t *testing.T) {
	for _, m := range daCapoModels {
		assert.True(t, isModel(m), m)
	}
	assert.False(t, isModel("antlr"), "a stand-in is not a model")
	assert.Equal(t, "antlr", paperBench("antlr-real"))
}

// plumbingModel is the cheapest model to simulate (xalan-real: 0.27 s of
// CPU per simulated second), plumbingScale and plumbingDuration keep its
// runs to about a second of simulated time, most of it the JIT's warm-up.
const (
	plumbingModel    = "xalan-real"
	plumbingScale    = 0.01
	plumbingDuration = 100 * sim.Millisecond
	// plumbingM5 gives M5 more intervals than its 100 lags.
	plumbingM5 = 1200 * sim.Millisecond
)

// Each experiment with a version on the models runs one model through
// its plumbing — its runs, typed result, table and tidy data — and names
// the model in its benchmark column; an experiment without refuses
// Options.Models.
func TestModelsThroughEachExperiment(t *testing.T) {
	o := Options{Seeds: []uint64{1}, Models: true, models: []string{plumbingModel}, modelScale: plumbingScale, modelDuration: plumbingDuration}
	var names []string
	for _, e := range Experiments() {
		if !e.Models {
			_, err := e.Run(o)
			assert.ErrorContains(t, err, "no version on the models", e.Name)
			continue
		}
		names = append(names, e.Name)
		oe := o
		if e.Name == "m5-autocorrelation" {
			oe.modelDuration = plumbingM5
		}
		r, err := e.Run(oe)
		require.NoError(t, err, e.Name)
		require.NotNil(t, r.Tidy, e.Name)
		checkTidy(t, r, e.Name)
		if i := slices.Index(r.Tidy.Columns, "benchmark"); i >= 0 {
			for _, row := range r.Tidy.Rows {
				assert.Equal(t, plumbingModel, row[i], e.Name)
			}
		}
		switch d := r.Data.(type) {
		case *causalityResult:
			assert.True(t, d.Models, e.Name)
			require.NotEmpty(t, d.Rows, e.Name)
			for _, row := range d.Rows {
				assert.Equal(t, plumbingModel, row.Benchmark)
			}
		case *m9Result:
			assert.Equal(t, []string{plumbingModel}, d.Benchmarks)
			assert.NotEmpty(t, d.Obs)
		case *m8Result:
			assert.True(t, d.Models, e.Name)
			assert.Equal(t, []string{plumbingModel}, d.Benchmarks)
			assert.Len(t, d.Obs, len(m8Profilers))
		case *m3Result:
			assert.Equal(t, []string{plumbingModel}, d.Benchmarks)
		case *m4Result:
			assert.True(t, d.Models)
		case *m5Result:
			assert.Equal(t, plumbingModel, d.Benchmark)
		case *m6Result:
			require.Len(t, d.Benches, 1)
			assert.Equal(t, plumbingModel, d.Benches[0].Benchmark)
		case *x4Result:
			assert.True(t, d.Models, e.Name)
			require.Len(t, d.Benches, 1)
			assert.Equal(t, plumbingModel, d.Benches[0].Name)
		default:
			t.Errorf("%s: unexpected result %T", e.Name, r.Data)
		}
	}
	assert.Equal(t, []string{"m2-causality", "m3-disagreement", "m4-innocuous", "m5-autocorrelation", "m6-observer", "m7-no-inlining", "m8-overhead", "m9-actionable", "x4-cooperative-sampling"}, names)
}

// A model runs for the study without the recorder's threads, and its
// entry loops scaled make its run to the end shorter.
func TestModelProgram(t *testing.T) {
	raw, err := workloads.Get(plumbingModel)
	require.NoError(t, err)
	p, err := modelProgram(plumbingModel, 1)
	require.NoError(t, err)
	// profsim import drops the recorder's threads itself; modelProgram
	// drops those of a model imported with --keep-recorder-threads.
	kept := 0
	for _, th := range raw.Threads {
		if !strings.Contains(th.Name, "JFR") {
			kept++
		}
	}
	assert.Len(t, p.Threads, kept, "only the recorder's threads dropped")
	for _, th := range p.Threads {
		assert.NotContains(t, th.Name, "JFR")
	}
	q, err := modelProgram(plumbingModel, 0.5)
	require.NoError(t, err)
	assert.NotEqual(t, p.Methods, q.Methods)
}
