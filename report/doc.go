// Package report presents a run's result: New summarizes a
// harness.Outcome and compares every profile with the truth's, and the
// Report prints itself as the side-by-side table (Table, LineTable, Why),
// as JSON (the contract of `profsim run --format json`), as tidy rows
// (CSV, JSONL; SweepRows for a sweep's tables) and as one self-contained
// page (HTML).
package report
