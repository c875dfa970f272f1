package study

import "fmt"

// where lists the observations in obs that keep holds (a benchmark, and
// whatever else picks one cell of an experiment's grid), in their order;
// nil when none does. It is the one filter every experiment's accessors
// read their observations through.
func where[T any](obs []T, keep func(T) bool) []T {
	var out []T
	for _, x := range obs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

// mustWhere is where for accessors that ask only for cells the
// experiment's runs fill: it panics, "study: " and the formatted message
// (which names the cell), when none does.
func mustWhere[T any](obs []T, keep func(T) bool, format string, args ...any) []T {
	out := where(obs, keep)
	if out == nil {
		panic("study: " + fmt.Sprintf(format, args...))
	}
	return out
}

// values is v of each observation, in order (nil for none).
func values[T any](obs []T, v func(T) float64) []float64 {
	var out []float64
	for _, x := range obs {
		out = append(out, v(x))
	}
	return out
}
