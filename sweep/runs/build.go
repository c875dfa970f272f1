package runs

import (
	"errors"
	"fmt"
	"github.com/profsim/profsim/harness"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/profsim/profsim/sweep"
)

// A sweep's results are the work of one build of profsim: its keys hold
// the build identity (profsim version), so results of other code are
// never taken for this code's. A directory another build wrote is
// refused rather than silently run again beside, unless the user asks.

// describeBuild names a manifest's build for a message.
func describeBuild(b string) string {
	switch {
	case b == "":
		return "an unknown build (a profsim that did not record its build)"
	case strings.Contains(b, sweep.MixedBuildSep):
		return "builds " + strings.ReplaceAll(b, sweep.MixedBuildSep, ", ") + " (merged with --allow-mixed-builds)"
	}
	return "build " + b
}

// checkBuild refuses to resume dir when its results are another build's:
// its manifest names another build, or, without a manifest, a record's
// config does.
func checkBuild(dir string, ix *sweep.Index, build string, allowMixed bool) error {
	theirs, found, err := dirBuild(dir, ix, build)
	if err != nil || !found || theirs == build || allowMixed {
		return err
	}
	return inputf("sweep: %s holds results of %s; this profsim is build %s ('profsim version'): "+
		"results of different code must not mix. Use a new --out, or add --allow-mixed-builds to run every point again "+
		"with this build beside them (its tables then hold this build's results only)", dir, describeBuild(theirs), build)
}

// dirBuild is the build whose results dir holds: its manifest's, or,
// with no manifest, the first record's of a build other than build.
// found is false for a directory with neither.
func dirBuild(dir string, ix *sweep.Index, build string) (theirs string, found bool, err error) {
	m, err := sweep.ReadManifest(dir)
	if err == nil {
		return m.Build, true, nil
	}
	if _, serr := os.Stat(filepath.Join(dir, sweep.ManifestFile)); !errors.Is(serr, fs.ErrNotExist) {
		return "", false, inputf("sweep: %v", err)
	}
	for _, k := range ix.Keys() {
		var head struct {
			Config struct {
				Profsim struct {
					Build string `json:"build"`
				} `json:"profsim"`
			} `json:"config"`
		}
		if err := ix.Decode(k, &head); err != nil {
			return "", false, inputf("sweep: %v", err)
		}
		if b := head.Config.Profsim.Build; b != build {
			return b, true, nil
		}
	}
	return "", false, nil
}

// mergedBuild is the build of merged manifests: theirs if they agree,
// else every build, sorted and joined.
func mergedBuild(ms []*sweep.Manifest) string {
	var bs []string
	for _, m := range ms {
		for _, b := range strings.Split(m.Build, sweep.MixedBuildSep) {
			if !slices.Contains(bs, b) {
				bs = append(bs, b)
			}
		}
	}
	slices.Sort(bs)
	return strings.Join(bs, sweep.MixedBuildSep)
}

// buildNote is a line for sweep status: the directory's build against
// this profsim's.
func buildNote(m *sweep.Manifest) string {
	mine := harness.CurrentVersion().Build
	if m.Build == mine {
		return fmt.Sprintf("build %s (this profsim's)", mine)
	}
	return fmt.Sprintf("%s; this profsim is build %s: a sweep into this directory refuses to resume without --allow-mixed-builds", describeBuild(m.Build), mine)
}
