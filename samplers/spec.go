package samplers

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/profsim/profsim/internal/nearest"
	"github.com/profsim/profsim/param"
)

// Spec names a sampler instance and its settings, as written on the
// command line: NAME[:LABEL][,KEY=VALUE...], e.g. "async:fast,interval=1ms".
type Spec struct {
	Name string
	// Label tells several instances of one sampler apart; "" for none.
	Label string
	// Set are the keys given, in order; every other key keeps its default.
	Set []param.KV
}

// ID is the instance's key in profiles, tables and results: the name, or
// NAME:LABEL when labelled.
func (s Spec) ID() string {
	if s.Label == "" {
		return s.Name
	}
	return s.Name + ":" + s.Label
}

// ParseSpec reads NAME[:LABEL][,KEY=VALUE...]. It checks the syntax only;
// Resolve checks the name, keys and values.
func ParseSpec(text string) (Spec, error) {
	parts := strings.Split(text, ",")
	head := strings.TrimSpace(parts[0])
	var s Spec
	s.Name, s.Label, _ = strings.Cut(head, ":")
	if s.Name == "" {
		return Spec{}, fmt.Errorf("sampler spec %q: empty sampler name (want NAME[:LABEL][,KEY=VALUE...])", text)
	}
	if strings.Contains(head, ":") {
		if s.Label == "" {
			return Spec{}, fmt.Errorf("sampler spec %q: empty label after ':'", text)
		}
		for _, r := range s.Label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
				return Spec{}, fmt.Errorf("sampler spec %q: label %q: use letters, digits, '-', '_' and '.' only", text, s.Label)
			}
		}
	}
	seen := map[string]bool{}
	for _, kv := range parts[1:] {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case !ok || k == "":
			return Spec{}, fmt.Errorf("sampler %s: %q is not KEY=VALUE", s.ID(), kv)
		case seen[k]:
			return Spec{}, fmt.Errorf("sampler %s: key %q given twice", s.ID(), k)
		}
		seen[k] = true
		s.Set = append(s.Set, param.KV{Key: k, Value: v})
	}
	return s, nil
}

// String writes the spec back in the syntax ParseSpec reads.
func (s Spec) String() string {
	var b strings.Builder
	b.WriteString(s.ID())
	for _, kv := range s.Set {
		fmt.Fprintf(&b, ",%s=%s", kv.Key, kv.Value)
	}
	return b.String()
}

// Resolved is a spec applied to its sampler's defaults and validated.
type Resolved struct {
	Name string
	// ID is the profile key (Spec.ID).
	ID string
	// Params is every key of the sampler with its value, defaults
	// included, in the config's field order.
	Params []param.KV
	info   Info
	cfg    any
}

// Resolve applies the spec's keys to the sampler's defaults and checks
// each value and the whole configuration. Errors name the sampler
// instance and the key.
func (s Spec) Resolve() (*Resolved, error) {
	info, err := Lookup(s.Name)
	if err != nil {
		return nil, err
	}
	cfg := info.Config()
	seen := map[string]string{}
	for _, kv := range s.Set {
		given := kv.Key
		if k, ok := keyAliases[s.Name][kv.Key]; ok {
			kv.Key = k
		}
		if first, ok := seen[kv.Key]; ok {
			return nil, fmt.Errorf("sampler %s: key %q given twice (as %s and %s)", s.ID(), kv.Key, first, given)
		}
		seen[kv.Key] = given
		if err := param.Set(cfg, kv.Key, kv.Value); err != nil {
			var uk *param.UnknownKeyError
			if errors.As(err, &uk) {
				if hint := keyHint(s.Name, uk); hint != "" {
					return nil, fmt.Errorf("sampler %s: %w; did you mean %s?", s.ID(), err, hint)
				}
			}
			return nil, fmt.Errorf("sampler %s: %w", s.ID(), err)
		}
	}
	if err := param.Check(cfg); err != nil {
		return nil, fmt.Errorf("sampler %s: %w", s.ID(), err)
	}
	if v, ok := cfg.(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return nil, fmt.Errorf("sampler %s: %w", s.ID(), err)
		}
	}
	return &Resolved{Name: s.Name, ID: s.ID(), Params: param.Values(cfg), info: info, cfg: cfg}, nil
}

// New builds the sampler (a fresh one each call).
func (r *Resolved) New() Sampler {
	cfg := r.info.Config()
	for _, kv := range r.Params {
		if err := param.Set(cfg, kv.Key, kv.Value); err != nil {
			panic("samplers: resolved value does not set: " + err.Error())
		}
	}
	return r.info.Build(r.ID, cfg)
}

// Spec is the full spec: every key, defaults included. Parsing and
// resolving it gives the same Resolved.
func (r *Resolved) Spec() Spec {
	name, label, _ := strings.Cut(r.ID, ":")
	return Spec{Name: name, Label: label, Set: append([]param.KV{}, r.Params...)}
}

// Period is the sampler's sampling period: its interval key (its period
// for JFR's samplers), 0 for a sampler with neither (komorium, the
// truth's counters).
func (r *Resolved) Period() time.Duration {
	var longest time.Duration
	for _, kv := range r.Params {
		if kv.Key != "interval" && kv.Key != "period" {
			continue
		}
		if d, err := param.ParseDuration(kv.Value); err == nil {
			longest = max(longest, time.Duration(d))
		}
	}
	return longest
}

// Numbers lists the sampler's numeric settings as floats (durations in
// ns, booleans 0/1), for tidy tables.
func (r *Resolved) Numbers() []param.NumKV { return param.Numbers(r.cfg) }

// Keys describes the sampler's keys with their defaults and the sources
// of those defaults.
func (i Info) Keys() []param.Key {
	keys := param.Keys(i.Config())
	for n := range keys {
		if src, ok := i.Sources[keys[n].Name]; ok {
			keys[n].Source = src
		}
	}
	return keys
}

// keyAliases are other names a sampler's keys answer to: every timer
// sampler but JFR's calls its period interval, so jfr and jfr-coop take
// interval for period (JFR's own word, which they keep).
var keyAliases = map[string]map[string]string{
	"jfr":      {"interval": "period"},
	"jfr-coop": {"interval": "period"},
}

// keyHabits are the names the profilers' own users give a sampler's keys:
// async-profiler's event (-e) and interval (-i) and JFR's settings, which
// name a key differently here.
var keyHabits = map[string]map[string]string{
	"async":       {"event": "engine", "e": "engine", "i": "interval", "depth": "jstackdepth", "cstack": "jstackdepth"},
	"jfr":         {"stackdepth": "depth", "throttle": "period"},
	"jfr-coop":    {"stackdepth": "depth", "throttle": "period"},
	"jfr-cputime": {"rate": "throttle", "period": "throttle", "cpu_period": "throttle", "interval": "throttle", "stackdepth": "depth"},
}

// keyHint is the key the user of sampler probably meant by uk.Key: the
// one their profiler's habit names, else the nearest valid key; "" when
// none is near.
func keyHint(sampler string, uk *param.UnknownKeyError) string {
	if k, ok := keyHabits[sampler][strings.ToLower(uk.Key)]; ok && slices.Contains(uk.Valid, k) {
		return fmt.Sprintf("%q", k)
	}
	// JFR's habit on any timer sampler: period for the interval.
	if strings.EqualFold(uk.Key, "period") && slices.Contains(uk.Valid, "interval") {
		return `"interval"`
	}
	if k := nearest.Name(uk.Key, uk.Valid); k != "" {
		return fmt.Sprintf("%q", k)
	}
	return ""
}
