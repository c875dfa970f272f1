package study

import (
	"embed"
	"strings"
)

// notes holds the papers' discussion printed under the experiments'
// tables, one file per experiment (notes/NAME.md), kept out of the code.
//
//go:embed notes/*.md
var notes embed.FS

// discussion is the discussion printed under experiment name's table:
// each paragraph of notes/NAME.md is one of the table's notes, its lines
// joined by single spaces. It panics on a missing file (a programming
// error the experiment's test meets at once).
func discussion(name string) []string {
	b, err := notes.ReadFile("notes/" + name + ".md")
	if err != nil {
		panic("study: no discussion for " + name + ": " + err.Error())
	}
	var out []string
	for _, p := range strings.Split(strings.TrimSpace(string(b)), "\n\n") {
		out = append(out, strings.ReplaceAll(p, "\n", " "))
	}
	return out
}
