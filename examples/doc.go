// Package examples holds starter workload files for students, each
// commented line by line, and the tests that keep the behaviour each one
// is there to show true:
//
//   - pollfree.yaml: a hot poll-free loop that a safepoint-biased
//     profiler blames on its caller;
//   - periodic.yaml: a loop of exactly 2 ms frames that a sampler on a
//     perfect 10 ms clock aliases with;
//   - lock.yaml: two threads contending for one monitor.
//
// Run one with `profsim run --workload examples/NAME.yaml`; write a new
// one from a template with `profsim init NAME`. The package has no code:
// its files are data.
package examples
