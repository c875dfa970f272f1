// Command sizing measures how a model of a real application changes when
// its driver loop is shortened (docs/IMPORT.md, "Sizing a model for the
// studies"): each DaCapo-2006 model of workloads/models, its recorder
// threads dropped, is run to its end at seed 1 under the hotspot6 preset
// at entry-loop scales 1, 0.1, 0.2 and 0.4 (workloads.ScaleEntryLoops); it
// prints when each run ended and the method overlap of each shortened
// run's truth with the full run's, as a Markdown table.
//
//	go run ./tools/realapps/sizing            # about a minute of CPU
package main

import (
	"fmt"
	"os"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
)

// models are the DaCapo-2006 applications the studies run (javac's model
// is not one: SPECjvm98's).

var models = []string{"antlr", "chart", "fop", "hsqldb", "jython", "luindex", "lusearch", "xalan"}

var scales = []float64{0.1, 0.2, 0.4}

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "usage: go run ./tools/realapps/sizing (no arguments)")
		os.Exit(2)
	}
	fmt.Println("| model | end at scale 1 | 0.1 | 0.2 | 0.4 | method overlap at 0.1 / 0.2 / 0.4 |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, m := range models {
		full, end, err := run(m, 1)
		if err != nil {
			fmt.Fprintln(os.Stderr, "sizing:", err)
			os.Exit(1)
		}
		row := fmt.Sprintf("| %s-real | %.2f s", m, end.Seconds())
		ov := ""
		for i, s := range scales {
			p, e, err := run(m, s)
			if err != nil {
				fmt.Fprintln(os.Stderr, "sizing:", err)
				os.Exit(1)
			}
			row += fmt.Sprintf(" | %.2f s", e.Seconds())
			if i > 0 {
				ov += " / "
			}
			ov += fmt.Sprintf("%.3f", profile.OverlapMethods(p, full))
		}
		fmt.Println(row + " | " + ov + " |")
		fmt.Fprintf(os.Stderr, "sizing: %s done\n", m)
	}
}

// run plays model m at scale s to its end and returns its truth and when
// it ended.
func run(m string, s float64) (*profile.Profile, sim.Time, error) {
	p, err := workloads.Get(m + "-real")
	if err != nil {
		return nil, 0, err
	}
	if _, err := workloads.DropRecorderThreads(p); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", m, err)
	}
	if s != 1 {
		if _, err := workloads.ScaleEntryLoops(p, s); err != nil {
			return nil, 0, fmt.Errorf("%s: %w", m, err)
		}
	}
	return runToEnd(p, m)
}

func runToEnd(p *program.Program, m string) (*profile.Profile, sim.Time, error) {
	cfg := harness.MustPresetConfig("hotspot6")
	cfg.Sim.Seed = 1
	cfg.TruthPerMethod = true
	cfg.Sim.Duration = 60 * sim.Second
	out, err := harness.Run(p, cfg)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", m, err)
	}
	if out.Result.End >= cfg.Sim.Duration {
		return nil, 0, fmt.Errorf("%s: still running after %v", m, cfg.Sim.Duration)
	}
	return out.Profiles["truth"], out.Result.End, nil
}
