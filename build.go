// Package profsim names the code a profsim binary was built from: its
// build identity, which every run key holds so that results of different
// code never share a key, and a version a release build sets at link
// time. The packages of the simulator are its subdirectories.
package profsim

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"hash"
	"io/fs"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
)

// Version is the release a build is of, set at link time:
//
//	go build -ldflags "-X github.com/profsim/profsim.Version=v1.2.0" ./cmd/profsim
//
// Empty in a development build. It is said, never trusted: two builds
// with equal versions and different code have different identities.
var Version string

// sources are the Go files of every package a profsim binary can hold
// (tools/ builds programs of its own and is left out), with the module's
// requirements. Tests read none of them at run time, so test files are
// left out of the identity (they are embedded because a pattern cannot
// exclude them). Workload files are not here: a run's key holds its
// workload's content hash.
//
//go:embed go.mod go.sum *.go */*.go cmd/*/*.go internal/*/*.go sweep/*/*.go
var sources embed.FS

// targetSettings are the build settings that can change what the
// compiled code computes: build tags select files, the architecture
// levels select instructions (fused multiply-adds round differently).
var targetSettings = []string{"-compiler", "-tags", "GOARCH", "GOOS", "GOAMD64", "GOARM", "GOARM64", "GO386", "GOMIPS", "GOMIPS64", "GOPPC64", "GORISCV64", "GOWASM"}

// BuildID is the build's identity: the first 16 hex digits of a SHA-256
// over the sources (each file's name, length and bytes, in name order),
// the Go toolchain's version, the target, the settings above and every
// dependency's version and checksum. It exists in every build — `go
// run`, `go build -buildvcs=false`, a build outside a git checkout, a
// container image — and is equal for equal code built by one toolchain
// for one target, wherever the checkout lies.
func BuildID() string { return buildID() }

var buildID = sync.OnceValue(func() string {
	h := sha256.New()
	if err := hashSources(h, sources); err != nil {
		panic("profsim: the embedded sources do not read: " + err.Error())
	}
	fmt.Fprintf(h, "go %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if slices.Contains(targetSettings, s.Key) {
				fmt.Fprintf(h, "setting %s=%s\n", s.Key, s.Value)
			}
		}
		for _, d := range bi.Deps {
			if d.Replace != nil {
				d = d.Replace
			}
			fmt.Fprintf(h, "dep %s %s %s\n", d.Path, d.Version, d.Sum)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
})

// hashSources writes every non-test file of fsys into h, in name order.
func hashSources(h hash.Hash, fsys fs.FS) error {
	return fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "file %s %d\n", path, len(b))
		h.Write(b)
		return nil
	})
}

// SourceFiles lists the files the identity is made of, in name order.
func SourceFiles() []string {
	var names []string
	fs.WalkDir(sources, ".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(path, "_test.go") {
			names = append(names, path)
		}
		return err
	})
	return names
}
