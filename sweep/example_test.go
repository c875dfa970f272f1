package sweep_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/sweep"
	"github.com/profsim/profsim/workloads"
)

// A Go program that sweeps a grid with its own meaning for the settings:
// here `interval` and `seed` become a harness.Config directly, and each
// run's result is the safepoint sampler's overlap with the truth on
// hotcold (Mytkowicz et al.'s Listing 1), where it blames the wrong
// method.
func Example() {
	g, err := sweep.Parse("grid.yaml", []byte(`
grid:
  interval: [1ms, 10ms]
  seed: 1..2
`))
	if err != nil {
		panic(err)
	}
	var jobs []sweep.Job
	for _, p := range g.Points() {
		cfg := harness.MustPresetConfig("hotspot6")
		cfg.Sim.Duration = 50 * sim.Millisecond
		cfg.JIT.Inline = false // as Mytkowicz et al. ran hotcold
		interval := "1ms"
		for _, s := range p.Settings {
			switch s.Name {
			case "interval":
				interval = s.Value[0]
			case "seed":
				seed, err := strconv.ParseUint(s.Value[0], 10, 64)
				if err != nil {
					panic(err)
				}
				cfg.Sim.Seed = seed
			}
		}
		cfg.Samplers = []string{"truth", "safepoint,interval=" + interval}
		key, _ := json.Marshal(cfg.Samplers)
		jobs = append(jobs, sweep.Job{
			Point: p,
			Key:   fmt.Sprintf("%s/%d", key, cfg.Sim.Seed),
			Run: func(context.Context) (json.RawMessage, error) {
				prog, err := workloads.Get("hotcold")
				if err != nil {
					return nil, err
				}
				out, err := harness.Run(prog, cfg)
				if err != nil {
					return nil, err
				}
				return json.Marshal(profile.OverlapMethods(out.Profiles["truth"], out.Profiles["safepoint"]))
			},
		})
	}
	results := make([]string, len(jobs))
	_, err = sweep.Execute(context.Background(), jobs, sweep.Options{Jobs: 2}, func(r sweep.Record) error {
		var overlap float64 // records arrive as runs finish
		if err := json.Unmarshal(r.Result, &overlap); err != nil {
			return fmt.Errorf("point %d: %s %s", r.Point, r.Status, r.Error)
		}
		results[r.Point] = fmt.Sprintf("%v: overlap %.2f", r.Coords, overlap)
		return nil
	})
	if err != nil {
		panic(err)
	}
	for _, line := range results {
		fmt.Println(line)
	}
	// Output:
	// [{interval 1ms} {seed 1}]: overlap 0.27
	// [{interval 1ms} {seed 2}]: overlap 0.27
	// [{interval 10ms} {seed 1}]: overlap 0.32
	// [{interval 10ms} {seed 2}]: overlap 0.32
}
