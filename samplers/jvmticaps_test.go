package samplers

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJVMTIPresetsAreCapsCs: the capability presets are those
// tools/agents/caps.c requests on the real JVM, where their costs were
// measured, and every capability caps.c knows is a name here.
func TestJVMTIPresetsAreCapsCs(t *testing.T) {
	src, err := os.ReadFile("../tools/agents/caps.c")
	require.NoError(t, err)
	c := string(src)
	preset := regexp.MustCompile(`(?s)strcmp\(name, "([a-z-]+)"\) == 0\)\s*return ((?:"[^"]*"\s*)+);`)
	found := map[string][]string{}
	for _, m := range preset.FindAllStringSubmatch(c, -1) {
		var list string
		for _, lit := range regexp.MustCompile(`"([^"]*)"`).FindAllStringSubmatch(m[2], -1) {
			list += lit[1]
		}
		var caps []string
		if list != "" {
			caps = strings.Split(list, "+")
		}
		found[m[1]] = caps
	}
	require.Len(t, found, len(jvmtiPresets), "caps.c's presets")
	for name, want := range jvmtiPresets {
		got, ok := found[name]
		require.True(t, ok, "caps.c has no preset %s", name)
		assert.ElementsMatch(t, want, got, name)
	}
	x := regexp.MustCompile(`\tX\((can_[a-z_]+)\)`)
	for _, m := range x.FindAllStringSubmatch(c, -1) {
		assert.True(t, slices.Contains(jvmtiCapabilities, m[1]), m[1])
	}
}

func TestJVMTICapabilitySet(t *testing.T) {
	set, err := jvmtiCapabilitySet("hprof-cpu-samples")
	require.NoError(t, err)
	assert.True(t, postsOnExceptions(set))
	for spec, want := range map[string]bool{
		"":                                false,
		"none":                            false,
		"async-profiler":                  false,
		"jdwp":                            true,
		"can_generate_method_exit_events": true,
		"can_tag_objects+can_generate_frame_pop_events":       true,
		"can_access_local_variables+can_get_source_file_name": false,
	} {
		set, err := jvmtiCapabilitySet(spec)
		require.NoError(t, err, spec)
		assert.Equal(t, want, postsOnExceptions(set), spec)
	}
	_, err = jvmtiCapabilitySet("jdwp+can_tag_objects")
	assert.ErrorContains(t, err, `"jdwp" is neither a JVMTI capability`, "a preset is a whole set, not a name to join")
}
