package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 31: settings outside the range where the simulation is exact
// (speed_percent that rounds costs) or affordable (a 1 ns time slice, a
// 1 ns sampling interval) are usage errors naming the key, the value and
// the range; the values at the edges of the ranges run.
func TestSettingsOutsideTheirRangeAreRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--set", "sim.cost.speed_percent=100000000000000"}, "sim.cost.speed_percent: 100000000000000 must be a divisor of 100"},
		{[]string{"--set", "sim.cost.speed_percent=1000"}, "sim.cost.speed_percent: 1000 must be a divisor of 100"},
		{[]string{"--set", "sim.cost.speed_percent=99"}, "sim.cost.speed_percent: 99 must be a divisor of 100"},
		{[]string{"--set", "sim.time_slice=1ns"}, "sim.time_slice: 1ns must be in [100us, 10¹⁸ns]"},
		{[]string{"--set", "sim.max_step=10ns"}, "sim.max_step: 10ns must be 0 or in [1us, 10¹⁸ns]"},
		{[]string{"--set", "sim.cost.interp_factor=1001"}, "sim.cost.interp_factor: 1001 must be in [1, 1000]"},
		{[]string{"--set", "gc.eden_bytes=1099511627777"}, "gc.eden_bytes: 1099511627777 must be in [1, 1_099_511_627_776]"},
		{[]string{"--set", "gc.pause_per_mb=2s"}, "gc.pause_per_mb: 2s must be in [0, 1s]"},
		{[]string{"--set", "jit.compile_nanos_per_bytecode=1000001"}, "jit.compile_nanos_per_bytecode: 1000001 must be in [0, 1_000_000]"},
		{[]string{"--set", "jit.receiver_dominance=0"}, "jit.receiver_dominance: 0 must be in (0, 1]"},
		{[]string{"--sampler", "async,interval=1ns"}, "sampler async: interval: 1ns must be in [1us, 10¹⁸ns]"},
		{[]string{"--sampler", "safepoint,jitter=2h"}, "sampler safepoint: jitter: 2h0m0s must be in [0, 1h]"},
	} {
		args := append([]string{"run", "--workload", "hotcold", "--duration", "1ms"}, tc.args...)
		code, out, errOut := runMain(args...)
		name := strings.Join(tc.args, " ")
		assert.Equal(t, 2, code, name)
		assert.Empty(t, out, name)
		assert.Contains(t, errOut, tc.want, name)
	}
	for _, set := range [][]string{
		{"--set", "sim.cost.speed_percent=25"},
		{"--set", "sim.cost.speed_percent=1"},
		{"--set", "sim.time_slice=100us"},
		{"--set", "sim.max_step=0"},
		{"--set", "sim.max_step=1us"},
		{"--sampler", "async,interval=1us"},
	} {
		args := append([]string{"run", "--workload", "hotcold", "--duration", "1ms"}, set...)
		code, _, errOut := runMain(args...)
		assert.Equal(t, 0, code, "%v: %s", set, errOut)
	}
}

// --keys shows every key's range, the new bounds included.
func TestKeysListShowsRanges(t *testing.T) {
	code, out, errOut := runMain("run", "--keys")
	require.Equal(t, 0, code, errOut)
	for key, rng := range map[string]string{
		"sim.cost.speed_percent": "a divisor of 100",
		"sim.time_slice":         "in [100us, 10¹⁸ns]",
		"sim.max_step":           "0 or in [1us, 10¹⁸ns]",
		"gc.pause_per_mb":        "in [0, 1s]",
	} {
		var line string
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) > 0 && f[0] == key {
				line = l
			}
		}
		assert.Contains(t, line, rng, key)
	}
}
