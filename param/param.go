// Package param names the fields of configuration structs as keys, so that
// every setting of a sampler, the JIT, the VM and the GC can be set from the
// command line, listed with its documentation and range, and recorded in a
// result, from one description: the field's struct tags.
//
// A field is a key when it carries a `key` tag:
//
//		Interval sim.Time `key:"interval" check:">0" doc:"sampling period" src:"async-profiler -i default"`
//
//	  - key: the key's name (snake_case). A struct-typed field with a key tag
//	    contributes its own keys prefixed by "NAME."; a struct-typed field
//	    with no tag contributes them unprefixed (embedding a shared part).
//	  - check: the valid range, enforced by Set and Check: an interval
//	    "LO..HI", closed unless "(" opens it before LO or ")" after HI
//	    ("0..1)", "(0..1"); either end may be left out ("1us..": at least
//	    1 us). LO and HI are written as the key's values are (Go durations
//	    for sim.Time, "_" allowed in integers); a sim.Time's HI may be
//	    "max", the model's maximum time (sim.MaxTime). "0|LO..HI" also admits 0
//	    (a setting whose 0 means "off"); "divides:N" admits the positive
//	    divisors of N. ">0", ">=0" and ">=1" are short for "(0..", "0.."
//	    and "1..".
//	  - unit: shown with the value ("bytes", "bytecodes", "cycles"); sim.Time
//	    fields are durations in Go syntax and need none.
//	  - doc: one line on what the key does; src: where the default comes from
//	    (a paper section, a real tool's default).
//
// Fields without a key tag are not settings (state, or derived values).
package param

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/profsim/profsim/sim"
)

// Kind is a key's value type.
type Kind uint8

// Kinds.
const (
	Duration Kind = iota
	Int
	Float
	Bool
	String
)

func (k Kind) String() string {
	return [...]string{"duration", "int", "float", "bool", "string"}[k]
}

// Key describes one setting.
type Key struct {
	Name   string
	Kind   Kind
	Unit   string
	Check  string
	Doc    string
	Source string
	// Default is the value in the struct Keys was called on, formatted.
	Default string
	index   []int
	rng     valueRange
}

var timeType = reflect.TypeOf(sim.Time(0))

// Type is the key's kind with its unit: "int (frames)".
func (k Key) Type() string {
	if k.Unit == "" {
		return k.Kind.String()
	}
	return k.Kind.String() + " (" + k.Unit + ")"
}

// Keys lists the keys of the struct ptr points to, in field order, with
// the struct's current values as defaults.
func Keys(ptr any) []Key {
	v := structValue(ptr)
	keys := keysOf(v.Type())
	out := make([]Key, len(keys))
	for i, k := range keys {
		k.Default = format(v.FieldByIndex(k.index), k.Kind)
		out[i] = k
	}
	return out
}

// typeKeys caches keysOf: reading the struct tags of a configuration
// type on every Set, Check and Values was a few per cent of a sweep's
// planning.
var typeKeys sync.Map // reflect.Type → []Key

// keysOf lists the keys of struct type t, without defaults. The slice
// is shared: callers must not modify it.
func keysOf(t reflect.Type) []Key {
	if ks, ok := typeKeys.Load(t); ok {
		return ks.([]Key)
	}
	var out []Key
	walk(t, nil, "", func(k Key) { out = append(out, k) })
	typeKeys.Store(t, out)
	return out
}

func structValue(ptr any) reflect.Value {
	v := reflect.ValueOf(ptr)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("param: %T is not a pointer to a struct", ptr))
	}
	return v.Elem()
}

func walk(t reflect.Type, index []int, prefix string, fn func(Key)) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		idx := append(append([]int{}, index...), i)
		name, tagged := f.Tag.Lookup("key")
		if f.Type.Kind() == reflect.Struct && f.Type != timeType {
			p := prefix
			if tagged {
				p = prefix + name + "."
			}
			walk(f.Type, idx, p, fn)
			continue
		}
		if !tagged {
			continue
		}
		k := Key{Name: prefix + name, Unit: f.Tag.Get("unit"), Check: f.Tag.Get("check"), Doc: f.Tag.Get("doc"), Source: f.Tag.Get("src"), index: idx}
		switch {
		case f.Type == timeType:
			k.Kind = Duration
		case f.Type.Kind() == reflect.Bool:
			k.Kind = Bool
		case f.Type.Kind() == reflect.Float64:
			k.Kind = Float
		case f.Type.Kind() == reflect.String:
			k.Kind = String
		case f.Type.Kind() >= reflect.Int && f.Type.Kind() <= reflect.Int64:
			k.Kind = Int
		default:
			panic(fmt.Sprintf("param: field %s of %s has unsupported type %s", f.Name, t, f.Type))
		}
		if k.Check != "" {
			if k.Kind == Bool || k.Kind == String {
				panic("param: check on a non-numeric key " + k.Name)
			}
			r, err := parseRange(k.Check, k.Kind)
			if err != nil {
				panic(fmt.Sprintf("param: key %s: %v", k.Name, err))
			}
			k.rng = r
		}
		fn(k)
	}
}

// Names lists the key names of the struct ptr points to.
func Names(ptr any) []string {
	var out []string
	for _, k := range keysOf(structValue(ptr).Type()) {
		out = append(out, k.Name)
	}
	return out
}

func lookup(ptr any, key string) (reflect.Value, Key, error) {
	v := structValue(ptr)
	for _, k := range keysOf(v.Type()) {
		if k.Name == key {
			return v.FieldByIndex(k.index), k, nil
		}
	}
	return reflect.Value{}, Key{}, &UnknownKeyError{Key: key, Valid: Names(ptr)}
}

// UnknownKeyError is a key the struct does not have.
type UnknownKeyError struct {
	Key   string
	Valid []string
}

func (e *UnknownKeyError) Error() string {
	valid := append([]string{}, e.Valid...)
	sort.Strings(valid)
	return fmt.Sprintf("unknown key %q (valid: %s)", e.Key, strings.Join(valid, ", "))
}

// Set parses value into the field named key, and checks its range.
func Set(ptr any, key, value string) error {
	f, k, err := lookup(ptr, key)
	if err != nil {
		return err
	}
	switch k.Kind {
	case Duration:
		d, err := ParseDuration(value)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		f.SetInt(int64(d))
	case Int:
		n, err := strconv.ParseInt(strings.ReplaceAll(value, "_", ""), 10, f.Type().Bits())
		if err != nil {
			return fmt.Errorf("%s: %q is not an integer in range for %d bits", key, value, f.Type().Bits())
		}
		f.SetInt(n)
	case Float:
		x, err := strconv.ParseFloat(value, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s: %q is not a finite number", key, value)
		}
		f.SetFloat(x)
	case Bool:
		b, err := strconv.ParseBool(value)
		if err != nil {
			return fmt.Errorf("%s: %q is not a boolean (true or false)", key, value)
		}
		f.SetBool(b)
	case String:
		f.SetString(value)
	}
	return checkOne(f, k)
}

// ParseDuration reads a Go duration ("1ms", "250us", "1.5s"); a bare 0 is
// allowed. It rejects values that do not fit in int64 nanoseconds.
func ParseDuration(s string) (sim.Time, error) {
	if s == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		if DurationOverflows(s) {
			return 0, fmt.Errorf("%q is beyond the model's maximum time (10¹⁸ns, %s)", s, FormatDuration(sim.MaxTime))
		}
		return 0, fmt.Errorf("%q is not a duration (Go syntax: 10ms, 250us, 1.5s)", s)
	}
	return sim.Time(d), nil
}

// durationSyntax is Go's duration syntax (time.ParseDuration).
var durationSyntax = regexp.MustCompile(`^[-+]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`)

// DurationOverflows reports whether s, which time.ParseDuration refused,
// is written as a duration and refused for its size: beyond 2⁶³ ns.
func DurationOverflows(s string) bool {
	return durationSyntax.MatchString(s)
}

// Get formats the field named key.
func Get(ptr any, key string) (string, error) {
	f, k, err := lookup(ptr, key)
	if err != nil {
		return "", err
	}
	return format(f, k.Kind), nil
}

// KV is one key and its formatted value.
type KV struct {
	Key, Value string
}

// Values lists every key of the struct ptr points to with its value, in
// field order. Setting each Value with Set reproduces the struct.
func Values(ptr any) []KV {
	v := structValue(ptr)
	var out []KV
	for _, k := range keysOf(v.Type()) {
		out = append(out, KV{k.Name, format(v.FieldByIndex(k.index), k.Kind)})
	}
	return out
}

// Numbers lists every key with its value as a float64 (durations in ns,
// booleans 0/1), for tidy tables; string keys are left out.
func Numbers(ptr any) []NumKV {
	v := structValue(ptr)
	var out []NumKV
	for _, k := range keysOf(v.Type()) {
		if x, ok := number(v.FieldByIndex(k.index), k.Kind); ok {
			out = append(out, NumKV{k, x})
		}
	}
	return out
}

// number is a field's value as a float64: durations in ns, booleans 0/1;
// false for strings.
func number(f reflect.Value, k Kind) (float64, bool) {
	switch k {
	case Duration, Int:
		return float64(f.Int()), true
	case Float:
		return f.Float(), true
	case Bool:
		if f.Bool() {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// NumKV is a key and its value as a number.
type NumKV struct {
	Key   Key
	Value float64
}

func format(f reflect.Value, k Kind) string {
	switch k {
	case Duration:
		return FormatDuration(sim.Time(f.Int()))
	case Int:
		return strconv.FormatInt(f.Int(), 10)
	case Float:
		return strconv.FormatFloat(f.Float(), 'g', -1, 64)
	case Bool:
		return strconv.FormatBool(f.Bool())
	default:
		return f.String()
	}
}

// FormatDuration writes d in Go syntax with "us" for microseconds, so that
// the value is ASCII and ParseDuration reads it back exactly.
func FormatDuration(d sim.Time) string {
	if d == 0 {
		return "0s"
	}
	return strings.ReplaceAll(time.Duration(d).String(), "µ", "u")
}

// Check verifies every key's range.
func Check(ptr any) error {
	v := structValue(ptr)
	for _, k := range keysOf(v.Type()) {
		if err := checkOne(v.FieldByIndex(k.index), k); err != nil {
			return err
		}
	}
	return nil
}

func checkOne(f reflect.Value, k Key) error {
	if k.Check == "" || k.rng.contains(f, k.Kind) {
		return nil
	}
	return &RangeError{Key: k.Name, Value: format(f, k.Kind), Range: RangeText(k.Check)}
}

// RangeError is a value outside its key's range.
type RangeError struct {
	Key, Value string
	// Range is the key's range in words (RangeText).
	Range string
}

func (e *RangeError) Error() string {
	return fmt.Sprintf("%s: %s must be %s", e.Key, e.Value, e.Range)
}

// valueRange is a parsed check.
type valueRange struct {
	lo, hi  bound
	zero    bool  // 0 is valid too
	divides int64 // > 0: the value must be a positive divisor of it
}

// bound is one end of an interval; an unset end is unbounded.
type bound struct {
	set, open bool
	i         int64   // Int, Duration
	x         float64 // Float
}

// maxTimeBound names sim.MaxTime as a check's upper bound: "0..max".
const maxTimeBound = "max"

// parseRange reads a check (see the package comment) for a key of kind k.
func parseRange(check string, k Kind) (valueRange, error) {
	var r valueRange
	switch check {
	case ">0":
		check = "(0.."
	case ">=0":
		check = "0.."
	case ">=1":
		check = "1.."
	}
	if n, ok := strings.CutPrefix(check, "divides:"); ok {
		d, err := strconv.ParseInt(strings.ReplaceAll(n, "_", ""), 10, 64)
		if err != nil || d <= 0 || k != Int {
			return r, fmt.Errorf("check %q: want divides:N with N > 0 on an integer key", check)
		}
		r.divides = d
		return r, nil
	}
	if rest, ok := strings.CutPrefix(check, "0|"); ok {
		r.zero, check = true, rest
	}
	lo, hi, ok := strings.Cut(check, "..")
	if !ok {
		return r, fmt.Errorf("check %q: want LO..HI, divides:N, >0, >=0 or >=1", check)
	}
	var err error
	lo, r.lo.open = strings.CutPrefix(lo, "(")
	hi, r.hi.open = strings.CutSuffix(hi, ")")
	if r.lo, err = parseBound(lo, r.lo.open, k); err != nil {
		return r, fmt.Errorf("check %q: %w", check, err)
	}
	if r.hi, err = parseBound(hi, r.hi.open, k); err != nil {
		return r, fmt.Errorf("check %q: %w", check, err)
	}
	return r, nil
}

func parseBound(s string, open bool, k Kind) (bound, error) {
	b := bound{open: open}
	if s == "" {
		return b, nil
	}
	b.set = true
	switch k {
	case Duration:
		if s == maxTimeBound {
			b.i = int64(sim.MaxTime)
			return b, nil
		}
		d, err := ParseDuration(s)
		if err != nil {
			return b, err
		}
		b.i = int64(d)
	case Int:
		n, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
		if err != nil {
			return b, fmt.Errorf("bound %q is not an integer", s)
		}
		b.i = n
	case Float:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return b, fmt.Errorf("bound %q is not a number", s)
		}
		b.x = x
	}
	return b, nil
}

// contains reports whether field f of kind k is in the range.
func (r valueRange) contains(f reflect.Value, k Kind) bool {
	if k == Float {
		x := f.Float()
		if math.IsNaN(x) {
			return false
		}
		return r.lo.belowOrAt(x, 0, k) && r.hi.aboveOrAt(x, 0, k)
	}
	n := f.Int()
	if r.divides > 0 {
		return n > 0 && r.divides%n == 0
	}
	if r.zero && n == 0 {
		return true
	}
	return r.lo.belowOrAt(0, n, k) && r.hi.aboveOrAt(0, n, k)
}

// belowOrAt reports whether the lower bound b admits x (Float) or n.
func (b bound) belowOrAt(x float64, n int64, k Kind) bool {
	switch {
	case !b.set:
		return true
	case k == Float && b.open:
		return x > b.x
	case k == Float:
		return x >= b.x
	case b.open:
		return n > b.i
	}
	return n >= b.i
}

// aboveOrAt reports whether the upper bound b admits x (Float) or n.
func (b bound) aboveOrAt(x float64, n int64, k Kind) bool {
	switch {
	case !b.set:
		return true
	case k == Float && b.open:
		return x < b.x
	case k == Float:
		return x <= b.x
	case b.open:
		return n < b.i
	}
	return n <= b.i
}

// RangeText is a check in words ("—" for none): "> 0", "in [1, 100]",
// "0 or in [1us, 1h]", "≥ 1us", "a divisor of 100".
func RangeText(check string) string {
	switch check {
	case "":
		return "—"
	case ">0":
		return "> 0"
	case ">=0":
		return "≥ 0"
	case ">=1":
		return "≥ 1"
	}
	if n, ok := strings.CutPrefix(check, "divides:"); ok {
		return "a divisor of " + n
	}
	zero := ""
	if rest, ok := strings.CutPrefix(check, "0|"); ok {
		zero, check = "0 or ", rest
	}
	lo, hi, ok := strings.Cut(check, "..")
	if !ok {
		return check
	}
	lo, loOpen := strings.CutPrefix(lo, "(")
	hi, hiOpen := strings.CutSuffix(hi, ")")
	if hi == maxTimeBound {
		hi = "10¹⁸ns"
	}
	switch {
	case hi == "" && loOpen:
		return zero + "> " + lo
	case hi == "":
		return zero + "≥ " + lo
	case lo == "" && hiOpen:
		return zero + "< " + hi
	case lo == "":
		return zero + "≤ " + hi
	}
	l, r := "[", "]"
	if loOpen {
		l = "("
	}
	if hiOpen {
		r = ")"
	}
	return zero + "in " + l + lo + ", " + hi + r
}
