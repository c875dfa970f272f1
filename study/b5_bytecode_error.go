package study

import (
	"fmt"
)

func init() {
	register(Experiment{Name: "b5-bytecode-error", Claim: "B5", Title: "Binder Table I: error of the bytecode count the agent reports", Run: typed(measureB5), Paper: binderPaperNote})
}

// b5Result is Table I: δb per stand-in and constant granularity.
type b5Result struct{ binderGridData }

// measureB5 reads δb, the relative error of the total bytecode count the
// agent was told, from the grid.
func measureB5(o Options) (*b5Result, error) {
	g, err := measureBinderGrid(o)
	return &b5Result{g}, err
}

func (r *b5Result) render() (*Result, error) {
	benches := r.Benches
	hdr, rows := readReference("binder2006_tableI_bytecode_error.csv")
	ref := map[string][]string{} // by granularity
	for _, row := range rows {
		ref[row[0]] = row
	}
	col := map[string]int{}
	for i, h := range hdr {
		col[h] = i
	}
	cols := []string{"granularity"}
	for _, b := range benches {
		cols = append(cols, b, b+" (paper)")
	}
	t := &Table{Title: "δb = (reported − executed) / executed bytecodes, constant granularity (mean over seeds)", Columns: cols}
	for _, g := range binderGrans {
		cells := []any{g}
		for _, b := range benches {
			paper := ""
			if row, ok := ref[fmt.Sprint(g)]; ok {
				if i, ok := col[b]; ok && i < len(row) {
					paper = row[i]
				}
			}
			cells = append(cells, fmt.Sprintf("%.1e", r.DeltaB(b, g)), paper)
		}
		t.AddRow(cells...)
	}
	t.Notes = append(t.Notes, discussion("b5-bytecode-error")...)
	return &Result{Table: t, Tidy: tidyOf(r.obs(false))}, nil
}
