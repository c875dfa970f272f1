package program

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

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

// Sample draws one value from r, in [0, MaxNanos] for the unbounded
// kinds (a longer time means nothing to a run, which is shorter).
func (d *Dist) Sample(r *rand.Rand) int64 {
	switch d.Kind {
	case Constant:
		return d.A
	case Uniform:
		return d.A + r.Int64N(d.B-d.A+1)
	case Exponential:
		v := r.ExpFloat64() * float64(d.A)
		if v >= MaxNanos {
			return MaxNanos
		}
		return int64(v)
	case Normal:
		v := math.Round(float64(d.A) + float64(d.B)*r.NormFloat64())
		if v < 0 {
			return 0
		}
		if v >= MaxNanos {
			return MaxNanos
		}
		return int64(v)
	}
	panic(fmt.Sprintf("program: Sample on invalid distribution kind %d", d.Kind))
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

// UnmarshalJSON reads a constant or a one-key distribution map, with
// values in nanoseconds or Go duration strings.
func (d *Dist) UnmarshalJSON(b []byte) error {
	n, err := parseJSON(b)
	if err != nil {
		return err
	}
	return d.fromNode(n)
}

// UnmarshalYAML reads what UnmarshalJSON reads.
func (d *Dist) UnmarshalYAML(y *yaml.Node) error {
	n, err := fromYAMLNode(y)
	if err != nil {
		return err
	}
	return d.fromNode(n)
}

func (d *Dist) fromNode(n *node) error {
	dec := &decoder{}
	x := dec.dist(n, true)
	if len(dec.errs) > 0 {
		return &ValidationError{Errors: dec.errs}
	}
	if x == nil {
		return fmt.Errorf("line %d: missing distribution", n.line)
	}
	*d = *x
	return nil
}

// fromYAMLNode converts one yaml.v3 node (from a custom unmarshaler).
func fromYAMLNode(y *yaml.Node) (*node, error) {
	c := &yamlConverter{budget: 100_000}
	n := &node{}
	if err := c.convert(y, n, 0); err != nil {
		return nil, err
	}
	return n, nil
}

// Duration is a time in nanoseconds written as an integer or a Go duration
// string ("5ms").
type Duration int64

// MarshalJSON writes nanoseconds.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(int64(d)) }

// UnmarshalJSON reads nanoseconds or a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	n, err := parseJSON(b)
	if err != nil {
		return err
	}
	return d.fromNode(n)
}

// UnmarshalYAML reads nanoseconds or a duration string.
func (d *Duration) UnmarshalYAML(y *yaml.Node) error {
	n, err := fromYAMLNode(y)
	if err != nil {
		return err
	}
	return d.fromNode(n)
}

func (d *Duration) fromNode(n *node) error {
	dec := &decoder{}
	x := dec.nanos(n, rangeNanos)
	if len(dec.errs) > 0 {
		return &ValidationError{Errors: dec.errs}
	}
	*d = Duration(x)
	return nil
}
