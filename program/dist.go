package program

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"
)

// DistKind names a distribution family.
type DistKind uint8

// Distribution families. Loop trips accept only the bounded ones.
const (
	Constant    DistKind = iota // A
	Uniform                     // integers in [A, B]
	Exponential                 // mean A
	Normal                      // mean A, standard deviation B, clamped at 0
)

var distKindNames = [...]string{"constant", "uniform", "exponential", "normal"}

func (k DistKind) String() string {
	if int(k) < len(distKindNames) {
		return distKindNames[k]
	}
	return fmt.Sprintf("DistKind(%d)", k)
}

// Dist is an integer-valued distribution: a count (loop trips) or a time in
// nanoseconds (block durations).
//
// In YAML and JSON it is written as a plain value (a constant), or as a map
// with exactly one key: {constant: v}, {uniform: [min, max]},
// {exponential: mean}, {normal: [mean, stddev]}. Values are integers or Go
// duration strings ("2ms"), which are converted to nanoseconds.
type Dist struct {
	Kind DistKind
	A, B int64
}

// Const returns the constant distribution v.
func Const(v int64) *Dist { return &Dist{Kind: Constant, A: v} }

// Bounded reports whether every value the distribution can take is known
// in advance (constant and uniform).
func (d *Dist) Bounded() bool { return d.Kind == Constant || d.Kind == Uniform }

// Mean is the distribution's expected value.
func (d *Dist) Mean() float64 {
	switch d.Kind {
	case Uniform:
		return (float64(d.A) + float64(d.B)) / 2
	default:
		return float64(d.A)
	}
}

// Sample draws one value from r. It never returns a negative number.
func (d *Dist) Sample(r *rand.Rand) int64 {
	switch d.Kind {
	case Constant:
		return d.A
	case Uniform:
		return d.A + r.Int64N(d.B-d.A+1)
	case Exponential:
		v := r.ExpFloat64() * float64(d.A)
		if v >= math.MaxInt64/2 {
			return math.MaxInt64 / 2
		}
		return int64(v)
	case Normal:
		v := math.Round(float64(d.A) + float64(d.B)*r.NormFloat64())
		if v < 0 {
			return 0
		}
		if v >= math.MaxInt64/2 {
			return math.MaxInt64 / 2
		}
		return int64(v)
	}
	panic(fmt.Sprintf("program: Sample on invalid distribution kind %d", d.Kind))
}

// validate checks the parameters; nonNegative is always required.
func (d *Dist) validate() error {
	switch d.Kind {
	case Constant:
		if d.A < 0 {
			return fmt.Errorf("constant %d is negative", d.A)
		}
	case Uniform:
		if d.A < 0 || d.B < d.A {
			return fmt.Errorf("uniform [%d, %d] needs 0 ≤ min ≤ max", d.A, d.B)
		}
		if d.B-d.A >= math.MaxInt64-1 {
			return fmt.Errorf("uniform [%d, %d] is too wide", d.A, d.B)
		}
	case Exponential:
		if d.A <= 0 {
			return fmt.Errorf("exponential mean %d must be > 0", d.A)
		}
	case Normal:
		if d.A < 0 || d.B < 0 {
			return fmt.Errorf("normal [%d, %d] needs mean ≥ 0 and stddev ≥ 0", d.A, d.B)
		}
	default:
		return fmt.Errorf("unknown distribution kind %d", d.Kind)
	}
	return nil
}

func (d Dist) String() string {
	switch d.Kind {
	case Constant:
		return strconv.FormatInt(d.A, 10)
	case Uniform:
		return fmt.Sprintf("uniform[%d, %d]", d.A, d.B)
	case Exponential:
		return fmt.Sprintf("exponential(mean %d)", d.A)
	case Normal:
		return fmt.Sprintf("normal(%d, %d)", d.A, d.B)
	}
	return fmt.Sprintf("Dist(%d)", d.Kind)
}

// generic is the decoded-but-untyped form shared by the YAML and JSON paths.
func (d Dist) generic() any {
	switch d.Kind {
	case Constant:
		return d.A
	case Uniform:
		return map[string]any{"uniform": []int64{d.A, d.B}}
	case Exponential:
		return map[string]any{"exponential": d.A}
	default:
		return map[string]any{"normal": []int64{d.A, d.B}}
	}
}

// MarshalJSON writes the form UnmarshalJSON reads.
func (d Dist) MarshalJSON() ([]byte, error) { return json.Marshal(d.generic()) }

// MarshalYAML writes the form UnmarshalYAML reads.
func (d Dist) MarshalYAML() (any, error) { return d.generic(), nil }

// UnmarshalJSON reads a constant or a one-key distribution map.
func (d *Dist) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	return d.fromGeneric(v)
}

// UnmarshalYAML reads a constant or a one-key distribution map.
func (d *Dist) UnmarshalYAML(n *yaml.Node) error {
	var v any
	if err := n.Decode(&v); err != nil {
		return err
	}
	return d.fromGeneric(v)
}

func (d *Dist) fromGeneric(v any) error {
	m, isMap := v.(map[string]any)
	if !isMap {
		x, err := toInt(v)
		if err != nil {
			return err
		}
		*d = Dist{Kind: Constant, A: x}
		return nil
	}
	if len(m) != 1 {
		return fmt.Errorf("distribution map needs exactly one of constant, uniform, exponential, normal (got %d keys)", len(m))
	}
	for k, val := range m { // exactly one entry
		switch k {
		case "constant", "exponential":
			x, err := toInt(val)
			if err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
			kind := Constant
			if k == "exponential" {
				kind = Exponential
			}
			*d = Dist{Kind: kind, A: x}
		case "uniform", "normal":
			pair, ok := val.([]any)
			if !ok || len(pair) != 2 {
				return fmt.Errorf("%s: want a list of two values", k)
			}
			a, err := toInt(pair[0])
			if err != nil {
				return fmt.Errorf("%s[0]: %w", k, err)
			}
			b, err := toInt(pair[1])
			if err != nil {
				return fmt.Errorf("%s[1]: %w", k, err)
			}
			kind := Uniform
			if k == "normal" {
				kind = Normal
			}
			*d = Dist{Kind: kind, A: a, B: b}
		default:
			return fmt.Errorf("unknown distribution %q (want constant, uniform, exponential or normal)", k)
		}
	}
	return nil
}

// toInt accepts integers, integral floats, numeric strings and Go duration
// strings (converted to nanoseconds).
func toInt(v any) (int64, error) {
	switch x := v.(type) {
	case int:
		return int64(x), nil
	case int64:
		return x, nil
	case uint64:
		if x > math.MaxInt64 {
			return 0, fmt.Errorf("value %d overflows int64", x)
		}
		return int64(x), nil
	case float64:
		return floatToInt(x)
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i, nil
		}
		f, err := x.Float64()
		if err != nil {
			return 0, fmt.Errorf("bad number %q", x.String())
		}
		return floatToInt(f)
	case string:
		if i, err := strconv.ParseInt(x, 10, 64); err == nil {
			return i, nil
		}
		dur, err := time.ParseDuration(x)
		if err != nil {
			return 0, fmt.Errorf("%q is neither an integer nor a duration like \"5ms\"", x)
		}
		return int64(dur), nil
	case nil:
		return 0, fmt.Errorf("missing value")
	}
	return 0, fmt.Errorf("want a number or a duration, got %T", v)
}

func floatToInt(f float64) (int64, error) {
	if f != math.Trunc(f) || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%v is not an integer", f)
	}
	if f >= math.MaxInt64 || f < math.MinInt64 {
		return 0, fmt.Errorf("%v overflows int64", f)
	}
	return int64(f), nil
}

// Duration is a time in nanoseconds written as an integer or a Go duration
// string ("5ms").
type Duration int64

// MarshalJSON writes nanoseconds.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(int64(d)) }

// UnmarshalJSON reads nanoseconds or a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	x, err := toInt(v)
	*d = Duration(x)
	return err
}

// UnmarshalYAML reads nanoseconds or a duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var v any
	if err := n.Decode(&v); err != nil {
		return err
	}
	x, err := toInt(v)
	*d = Duration(x)
	return err
}
