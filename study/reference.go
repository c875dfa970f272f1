package study

import (
	"encoding/csv"
	"os"
	"path/filepath"
)

// referencesOff hides the papers' tables from referenceDir: the golden
// tables (study/testdata/tables) are rendered without them, so that they
// do not depend on ../shared being present. Only tests set it, between
// runs (no render runs concurrently with it set).
var referencesOff bool

// referenceDir holds the papers' tables as CSV (../shared/reference from
// the repository root); experiments print them beside their results when
// present.
func referenceDir() string {
	if referencesOff {
		return ""
	}
	for _, d := range []string{"../shared/reference", "../../shared/reference", "../../../shared/reference"} {
		if _, err := os.Stat(d); err == nil {
			return d
		}
	}
	return ""
}

// readReference reads a reference CSV into rows keyed by the first two
// columns ("antlr/CharBuffer.fill"), or nil if it is not there.
func readReference(file string) (header []string, rows map[string][]string) {
	d := referenceDir()
	if d == "" {
		return nil, nil
	}
	f, err := os.Open(filepath.Join(d, file))
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	if err != nil || len(all) == 0 {
		return nil, nil
	}
	rows = map[string][]string{}
	for _, r := range all[1:] {
		rows[r[0]+"/"+r[1]] = r
	}
	return all[0], rows
}
