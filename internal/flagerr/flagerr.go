// Package flagerr explains the flag package's parse errors in a
// user's terms: a duration given a bare number needs a unit, one beyond
// the model's time is too long, and an integer flag says which integers
// it takes.
package flagerr

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/sim"
)

// Explain rewrites err, an "invalid value" error of fs's flag package,
// as the flag's kind of value asks; any other error is returned as is.
func Explain(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	rest, ok := strings.CutPrefix(msg, "invalid value ")
	if !ok {
		return err
	}
	quoted, flagPart, ok := strings.Cut(rest, " for flag -")
	if !ok {
		return err
	}
	value, uerr := strconv.Unquote(quoted)
	name, _, _ := strings.Cut(flagPart, ":")
	f := fs.Lookup(name)
	if uerr != nil || f == nil {
		return err
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return err
	}
	switch g.Get().(type) {
	case uint64:
		return fmt.Errorf("--%s %q: want a whole number in [0, %d]", name, value, uint64(math.MaxUint64))
	case int:
		return fmt.Errorf("--%s %q: want a whole number", name, value)
	case time.Duration:
	default:
		return err
	}
	if _, numErr := strconv.ParseFloat(value, 64); numErr == nil {
		return fmt.Errorf("--%s %s: a duration needs a unit: %ss (or %sms, %sus, %sns)", name, value, value, value, value, value)
	}
	if param.DurationOverflows(value) {
		return fmt.Errorf("--%s %s: beyond the model's maximum time (10¹⁸ns, %s)", name, value, param.FormatDuration(sim.MaxTime))
	}
	return fmt.Errorf("--%s %q: not a duration; write a number and a unit: 500ms, 2s, 1m30s", name, value)
}
