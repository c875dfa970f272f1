package workloads

import (
	"fmt"
	"io"
)

// WriteList prints each of names with its description, one a line (profsim
// workloads); with all, the models, the fidelity twins and the studies'
// programs after them under their own headings.
func WriteList(w io.Writer, names []string, all bool) error {
	list := func(names []string) error {
		for _, n := range names {
			p, err := Get(n)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%-16s %s\n", n, p.Description)
		}
		return nil
	}
	if err := list(names); err != nil || !all {
		return err
	}
	fmt.Fprintf(w, "\nModels of real applications (workloads/models, profsim import of JFR recordings):\n")
	if err := list(Models()); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nTwins of the fidelity micro-programs (workloads/fidelity, tools/fidelity/Fidelity.java):\n")
	if err := list(Twins()); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nThe studies' own programs (workloads/experiments):\n")
	return list(Experiments())
}
