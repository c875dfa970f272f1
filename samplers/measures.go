package samplers

import (
	"fmt"
	"sort"
)

// Measure names a sampler-specific measurement in Costs.Measures. Its
// values are the variables below, so a misspelt measure is a compile
// error, not a lookup that reads 0; as text (JSON keys, tidy columns) it
// is its snake_case name.
type Measure struct{ name string }

// The measures, with the samplers that report them.
var (
	// FramesDecodedPerSample: sps, isps — stack frames decoded per sample.
	FramesDecodedPerSample = Measure{"frames_decoded_per_sample"}
	// ThreadEndRetrieves: isps — retrieve operations at thread ends.
	ThreadEndRetrieves = Measure{"thread_end_retrieves"}
	// YieldPointsTaken: cbs — yield points that took a sample.
	YieldPointsTaken = Measure{"yield_points_taken"}
	// ApproxTotalBytecodes: komorium — the bytecodes the agent was told
	// were executed (it misses each thread's count since its last check).
	ApproxTotalBytecodes = Measure{"approx_total_bytecodes"}
	// FramesWalkedPerSample: komorium — frames reified per sample.
	FramesWalkedPerSample = Measure{"frames_walked_per_sample"}
	// Samples: komorium — samples taken (its profile weighs bytecodes).
	Samples = Measure{"samples"}
	// FramesExaminedPerSample: pcct, hotmethods — frames examined per
	// sample by the upward walk.
	FramesExaminedPerSample = Measure{"frames_examined_per_sample"}
	// PCCTNodes and PCCTBytes: pcct, hotmethods — the partial calling
	// context tree's nodes and their size.
	PCCTNodes = Measure{"pcct_nodes"}
	PCCTBytes = Measure{"pcct_bytes"}
	// DepthLimitedSamples: pcct, hotmethods — samples whose walk stopped
	// at the depth limit.
	DepthLimitedSamples = Measure{"depth_limited_samples"}
	// UnmatchedExits: instrument — exit probes with no entry on the
	// shadow stack (a compiled unit entered by on-stack replacement).
	UnmatchedExits = Measure{"unmatched_exits"}
	// StaleActivations: instrument — activations closed at the thread's
	// next probe or end because their exit probe did not run (an
	// exception unwound them, or they left their compiled unit).
	StaleActivations = Measure{"stale_activations"}
)

// measures are every Measure by name.
var measures = map[string]Measure{}

func init() {
	for _, m := range []Measure{FramesDecodedPerSample, ThreadEndRetrieves, YieldPointsTaken, ApproxTotalBytecodes,
		FramesWalkedPerSample, Samples, FramesExaminedPerSample, PCCTNodes, PCCTBytes, DepthLimitedSamples,
		UnmatchedExits, StaleActivations} {
		measures[m.name] = m
	}
}

// String is the measure's name.
func (m Measure) String() string { return m.name }

// MarshalText writes the measure's name.
func (m Measure) MarshalText() ([]byte, error) {
	if m.name == "" {
		return nil, fmt.Errorf("samplers: the zero Measure has no name")
	}
	return []byte(m.name), nil
}

// UnmarshalText reads a measure's name; an unknown name is an error
// listing the known ones.
func (m *Measure) UnmarshalText(b []byte) error {
	v, ok := measures[string(b)]
	if !ok {
		return fmt.Errorf("samplers: unknown measure %q (known: %v)", b, MeasureNames())
	}
	*m = v
	return nil
}

// MeasureNames lists every measure's name, sorted.
func MeasureNames() []string {
	var out []string
	for n := range measures {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// GobEncode writes the measure's name (gob, for stored runs).
func (m Measure) GobEncode() ([]byte, error) { return m.MarshalText() }

// GobDecode reads a measure's name, as UnmarshalText.
func (m *Measure) GobDecode(b []byte) error { return m.UnmarshalText(b) }
