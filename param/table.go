package param

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// WriteKeys prints keys as an aligned table for people: name, type,
// default, range, then the meaning and the default's source (`profsim
// run --keys`, `profsim samplers NAME`).
func WriteKeys(w io.Writer, keys []Key) {
	rows := [][4]string{{"key", "type", "default", "range"}}
	for _, k := range keys {
		rows = append(rows, [4]string{k.Name, k.Type(), k.Default, RangeText(k.Check)})
	}
	var width [4]int
	for _, r := range rows {
		for c := range r {
			width[c] = max(width[c], utf8.RuneCountInString(r[c]))
		}
	}
	for i, r := range rows {
		for c := range r {
			fmt.Fprintf(w, "  %s%s", r[c], strings.Repeat(" ", width[c]-utf8.RuneCountInString(r[c])))
		}
		if i == 0 {
			fmt.Fprintln(w, "  meaning; source of the default")
			continue
		}
		k := keys[i-1]
		line := k.Doc
		if k.Source != "" {
			line += "; " + k.Source
		}
		fmt.Fprintln(w, "  "+line)
	}
}
