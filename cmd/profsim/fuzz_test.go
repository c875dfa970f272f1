package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
)

// runFlagSeeds are run's command lines, issue 14's extremes among them
// (2^31, 2^63−1, 1e308, a duration without a unit, a spaced boolean).
var runFlagSeeds = [][]string{
	{"--workload", "hotcold"},
	{"--workload", "hotcold", "--duration", "5"},
	{"--workload", "hotcold", "--duration", "2562047h47m16.854775807s"},
	{"--workload", "hotcold", "--inline", "false", "--gc", "false"},
	{"--workload", "hotcold", "--strip-mining", "4294967396"},
	{"--workload", "hotcold", "--strip-mining", "2147483648"},
	{"--workload", "hotcold", "--speedup", "HotCold.hot:1e17"},
	{"--workload", "hotcold", "--speedup", "HotCold.hot:1e308", "--inject", "HotCold.hot:9223372036854775807"},
	{"--workload", "hotcold", "--inject", "HotCold.cold:2147483648:alloc"},
	{"--workload", "hotcold", "--cpus", "2147483648", "--seed", "18446744073709551615"},
	{"--workload", "hotcold", "--cpus", "1024", "--duration", "1ms"},
	{"--workload", "hotcold", "--set", "sim.cost.poll_cycles=9223372036854775807"},
	{"--workload", "hotcold", "--set", "sim.max_step=0", "--set", "sim.time_slice=1000000h", "--set", "sim.cost.speed_percent=1"},
	{"--workload", "hotcold", "--set", "jit.strip_mining_iter=4294967295", "--set", "sim.cost.interp_factor=1000"},
	{"--workload", "hotcold", "--jvm-flags", "-XX:LoopStripMiningIter=4294967295 -XX:CompileThreshold=1"},
	{"--workload", "hotcold", "--vm", "jikes", "--samplers", "cbs,jikes-timer", "--mode", "costed"},
	{"--workload", "callpair", "--sampler", "async:a,interval=1ns", "--sampler", "jfr:j,period=1e308ms", "--mode", "costed"},
	{"--workload", "hotcold", "--max-threads", "2147483647", "--max-memory", "1e308"},
	{"--workload", "hotcold", "--top", "-1", "--by", "line", "--format", "json"},
	{"--keys"},
	{"--help"},
}

// FuzzRunFlags parses run's flags (arguments separated by NUL) and, for
// a command line that parses, builds its configuration and simulates a
// millisecond of a built-in program with it. Bad flags are usage errors
// (exit 2), never panics; a configuration that builds runs, stops at a
// limit, or is refused with an error.
func FuzzRunFlags(f *testing.F) {
	for _, args := range runFlagSeeds {
		f.Add(strings.Join(args, "\x00"))
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Split(s, "\x00")
		fl, err := parseRunFlags(args, io.Discard)
		if err != nil {
			var ue usageError
			if !errors.Is(err, errHelp) && !errors.As(err, &ue) {
				t.Fatalf("%q: not a usage error: %v", args, err)
			}
			return
		}
		cfg, err := buildConfig(fl)
		if err != nil {
			var ue usageError
			if !errors.As(err, &ue) {
				t.Fatalf("%q: building the configuration: not a usage error: %v", args, err)
			}
			return
		}
		// The flags' workload may be any file: run a built-in one, with
		// the flags' interventions where they apply, for a millisecond.
		p, err := workloads.Get("callpair")
		if err != nil {
			t.Fatal(err)
		}
		_ = fl.spec.Intervene(p)
		cfg.Sim.Duration = min(cfg.Sim.Duration, sim.Millisecond)
		cfg.Sim.Limits = sim.Limits{MaxThreads: 1000, MaxMemory: 256 << 20}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		out, err := harness.RunContext(ctx, p, cfg)
		if ctx.Err() != nil {
			t.Fatalf("%q: a millisecond of simulated time took over 30 s", args)
		}
		if err == nil && out.Result.AppCPU() != out.Result.Truth.SelfTotal() {
			t.Fatalf("%q: self time %v ≠ application CPU %v", args, out.Result.Truth.SelfTotal(), out.Result.AppCPU())
		}
	})
}
