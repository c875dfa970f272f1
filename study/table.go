// Package study runs the papers' experiments on the simulator: each is a
// plain function returning a Table, asserted by a test named after its
// claim in CLAIMS.md (TestM1_…) that prints the table it checks.
package study

import (
	"fmt"
	"strings"
)

// Table is an experiment's result: rows of formatted cells.
type Table struct {
	Title   string
	Columns []string
	Rows    [][]string
	// Notes are printed under the table (configuration, paper figures).
	Notes []string
}

// AddRow appends a row; values are formatted with %v, floats with %.2f.
func (t *Table) AddRow(cells ...any) {
	row := make([]string, len(cells))
	for i, c := range cells {
		switch v := c.(type) {
		case float64:
			row[i] = fmt.Sprintf("%.2f", v)
		default:
			row[i] = fmt.Sprint(v)
		}
	}
	t.Rows = append(t.Rows, row)
}

// Markdown renders the table as GitHub markdown.
func (t *Table) Markdown() string {
	var b strings.Builder
	if t.Title != "" {
		fmt.Fprintf(&b, "### %s\n\n", t.Title)
	}
	b.WriteString("| " + strings.Join(t.Columns, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat("---|", len(t.Columns)) + "\n")
	for _, r := range t.Rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	for _, n := range t.Notes {
		b.WriteString("\n" + n + "\n")
	}
	return b.String()
}
