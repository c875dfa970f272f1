package main

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/profsim/profsim/profile"
	"github.com/profsim/profsim/workloads"
)

// Calling contexts: a sample's stack of Java methods on thread main, root
// first, each named as the flat profiles name it (normalizeMethod). A
// context's key in a dist is the 64-bit FNV-1a hash of ";m1;m2;…;leaf"
// (8 bytes): deep stacks as map keys would hold megabytes per profile,
// and two of the few thousand contexts of a run share a hash with
// probability about 10⁻¹².

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// ctxHash continues h, the hash of a context, with its callee m.
func ctxHash(h uint64, m string) uint64 {
	h = (h ^ ';') * fnvPrime
	for i := 0; i < len(m); i++ {
		h = (h ^ uint64(m[i])) * fnvPrime
	}
	return h
}

// ctxKey is a dist key of the context whose hash is h.
func ctxKey(h uint64) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], h)
	return string(b[:])
}

// isJavaFrame reports whether a frame of a real run's stacks.folded is a
// Java method (`pkg.Class.method`, as collect names them) rather than one
// of async-profiler's C, C++, kernel or library frames: a dot, then a
// method name, and nothing a C frame has (`::`, `/`, a space, the kernel's
// `_[k]`).
func isJavaFrame(f string) bool {
	dot := strings.LastIndexByte(f, '.')
	if dot <= 0 || dot == len(f)-1 || strings.ContainsAny(f, "/ ") || strings.Contains(f, "::") || strings.HasSuffix(f, "_[k]") {
		return false
	}
	c := f[dot+1]
	return c == '_' || c == '$' || c == '<' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// readStacks reads a real run's stacks.folded.gz (`THREAD;root;…;leaf
// COUNT` lines) and returns thread main's samples by context, the Java
// frames kept. A run without the file (made before run.sh kept stacks)
// gives nil and no error. Errors name the file and line.
func readStacks(path string) (dist, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	d := dist{}
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if text == "" {
			continue
		}
		sp := strings.LastIndexByte(text, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("%s:%d: no sample count after the stack", path, line)
		}
		n, err := strconv.ParseInt(text[sp+1:], 10, 64)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%s:%d: sample count %q is not a positive integer", path, line, text[sp+1:])
		}
		thread, frames, _ := strings.Cut(text[:sp], ";")
		if thread != mainThread {
			continue
		}
		h, java := uint64(fnvOffset), 0
		for _, fr := range strings.Split(frames, ";") {
			if isJavaFrame(fr) {
				h, java = ctxHash(h, normalizeMethod(fr)), java+1
			}
		}
		if java > 0 {
			d[ctxKey(h)] += float64(n)
		}
	}
	if err := zr.Close(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// contextsOf is a sampler's profile p by context on thread main: samples
// (Count) by the hash of its stack's method names, root first, named as
// selfByMethod names them. A model's synthetic thread entry
// (workloads.SyntheticEntryClass: an import's thread whose samples had
// several roots), which the real program does not run, is left out. Each
// context's hash is computed once, from its parent's.
func contextsOf(p *profile.Profile) dist {
	hash := make([]uint64, len(p.Contexts))
	known := make([]bool, len(p.Contexts))
	var of func(c int32) uint64
	of = func(c int32) uint64 {
		ctx := &p.Contexts[c]
		if ctx.Depth == 0 {
			return fnvOffset
		}
		if !known[c] {
			f := p.Functions[ctx.Frame.Func]
			if f.Class == workloads.SyntheticEntryClass {
				hash[c] = of(ctx.Parent)
			} else {
				hash[c] = ctxHash(of(ctx.Parent), modelMethodName(f.Class, f.Method, f.Name))
			}
			known[c] = true
		}
		return hash[c]
	}
	d := dist{}
	for i, s := range p.Samples {
		if p.ThreadName(i) != mainThread || s.Count <= 0 || p.Depth(i) == 0 {
			continue
		}
		d[ctxKey(of(s.Context))] += float64(s.Count)
	}
	return d
}

// contextCell compares one application's profiler by calling context:
// the real runs' noise floor, real vs profsim (every real run against
// every seed), and the "profilers agree" null of the real jfr-dns runs
// (NaN for jfr-dns itself, or where those runs kept no stacks).
type contextCell struct {
	App, Profiler string
	Reps, Seeds   int
	Floor, Sim    float64
	NullJFRDNS    float64
}

// compareContexts is (app, prof)'s contextCell; false when a real run
// kept no stacks or the models gave no contexts.
func compareContexts(app, prof string, real []realRun, realDNS []dist, sim []dist) (contextCell, bool) {
	var rs []dist
	for _, r := range real {
		if r.Contexts == nil {
			return contextCell{}, false
		}
		rs = append(rs, r.Contexts)
	}
	if len(rs) == 0 || len(sim) == 0 || slices.ContainsFunc(sim, isNil) {
		return contextCell{}, false
	}
	c := contextCell{App: app, Profiler: prof, Reps: len(rs), Seeds: len(sim),
		Floor: noiseFloor(rs), Sim: crossOverlap(rs, sim), NullJFRDNS: math.NaN()}
	if prof != profJFRDNS && len(realDNS) > 0 && !slices.ContainsFunc(realDNS, isNil) {
		c.NullJFRDNS = crossOverlap(rs, realDNS)
	}
	return c, true
}

// writeContexts writes the calling-context tables, when the real runs
// kept their stacks.
func writeContexts(w io.Writer, r *results) {
	if len(r.Contexts) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Calling contexts (thread main, Java frames root to leaf)\n\n")
	fmt.Fprintf(w, "Each sample's whole stack of methods, compared as the flat profiles are (overlap = Σ min(share) over stacks); the real runs' from their `stacks.folded.gz`.\n\n")
	fmt.Fprintf(w, "| app | profiler | reps | seeds | noise floor | real vs profsim | null: real jfr-dns |\n|---|---|---|---|---|---|---|\n")
	for _, c := range r.Contexts {
		fmt.Fprintf(w, "| %s | %s | %d | %d | %s | %s | %s |\n", c.App, c.Profiler, c.Reps, c.Seeds, pct(c.Floor), pct(c.Sim), pct(c.NullJFRDNS))
	}
	fmt.Fprintf(w, "\n| profiler | apps | noise floor | real vs profsim | null: real jfr-dns |\n|---|---|---|---|---|\n")
	for _, prof := range r.Profilers {
		var fl, si, nu []float64
		for _, c := range r.Contexts {
			if c.Profiler == prof {
				fl, si, nu = append(fl, c.Floor), append(si, c.Sim), append(nu, c.NullJFRDNS)
			}
		}
		if len(fl) > 0 {
			fmt.Fprintf(w, "| %s | %d | %s | %s | %s |\n", prof, len(fl), pct(meanOf(fl)), pct(meanOf(si)), pct(meanOf(nu)))
		}
	}
}

func isNil(d dist) bool { return d == nil }
