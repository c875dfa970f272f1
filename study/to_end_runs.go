package study

// causalityBenchmarks are the Mytkowicz stand-ins with iteration counts
// that make a run last about a second of simulated time.
var causalityBenchmarks = []struct {
	name  string
	iters int
}{
	{"antlr", 250}, {"bloat", 100}, {"chart", 70}, {"fop", 150}, {"jython", 20}, {"luindex", 400}, {"pmd", 75},
}

// toEnd is a benchmark sized to run to its end: a stand-in generated with
// iters iterations, or a model (scale > 0) with its entry loops scaled by
// scale (modelProgram).
type toEnd struct {
	name  string
	iters int
	scale float64
}

// toEndSet is the benchmarks o's runs to the end take: the Mytkowicz
// stand-ins (causalityBenchmarks) or, with o.Models, the models of the
// DaCapo-2006 applications at modelRunScale(o).
func toEndSet(o Options) []toEnd {
	var out []toEnd
	if o.Models {
		for _, m := range modelBenches(o) {
			out = append(out, toEnd{name: m, scale: modelRunScale(o)})
		}
		return out
	}
	for _, b := range causalityBenchmarks {
		out = append(out, toEnd{name: b.name, iters: b.iters})
	}
	return out
}
