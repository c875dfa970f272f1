package report

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profsim/profsim/sim"
)

// A sweep renders a run's rows from its report when it has just made it
// and from the stored JSON (decoded into Lean) when it resumes: both give
// the same rows.
func TestSweepRowsFromLeanMatchTheReport(t *testing.T) {
	r := runReport(t, "hotcold", 50*sim.Millisecond, []string{"truth", "safepoint", "async"}, nil)
	want, err := SweepRows(r)
	require.NoError(t, err)
	require.Len(t, want.Runs, len(r.Order), "one runs.csv row per profile")
	require.NotEmpty(t, want.Methods)

	js, err := json.Marshal(r)
	require.NoError(t, err)
	var l Lean
	require.NoError(t, json.Unmarshal(js, &l))
	got, err := SweepRows(l.Report())
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Nil(t, l.Report().Threads, "the tables skip the threads")

	for _, line := range want.Runs {
		assert.Equal(t, len(RunColumns()), strings.Count(line, ",")+1, "a cell per column: %s", line)
	}
	for _, line := range want.Methods {
		assert.Equal(t, len(MethodColumns()), strings.Count(line, ",")+1, "a cell per column: %s", line)
	}
}

// A failed run has one runs.csv row, all empty, and no method rows.
func TestSweepRowsOfAFailedRun(t *testing.T) {
	rr, err := SweepRows(nil)
	require.NoError(t, err)
	assert.Equal(t, []string{strings.Repeat(",", len(RunColumns())-1)}, rr.Runs)
	assert.Empty(t, rr.Methods)
}

// Every key of the JSON result is snake_case: the contract's readers
// (pandas, jq, the sweep's tables) match keys exactly.
func TestJSONKeysAreSnakeCase(t *testing.T) {
	key := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Map {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] || ty.PkgPath() != reflect.TypeFor[Report]().PkgPath() {
			return
		}
		seen[ty] = true
		for f := range ty.Fields() {
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			assert.Regexp(t, key, name, "%s.%s", ty.Name(), f.Name)
			walk(f.Type)
		}
	}
	walk(reflect.TypeFor[Report]())
	assert.True(t, seen[reflect.TypeFor[Untraced]()], "the walk reaches the bias matrices")
}
