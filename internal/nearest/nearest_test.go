package nearest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestName(t *testing.T) {
	keys := []string{"cycles", "bytecodes", "trips", "body", "interval", "duration", "grid"}
	assert.Equal(t, "bytecodes", Name("bytecode", keys))
	assert.Equal(t, "cycles", Name("cycels", keys), "a transposition is one edit")
	assert.Equal(t, "cycles", Name("Cycles", keys), "case does not count")
	assert.Equal(t, "interval", Name("intervl", keys))
	assert.Equal(t, "grid", Name("gird", keys))
	assert.Equal(t, "", Name("colour", keys), "nothing near")
	assert.Equal(t, "", Name("x", keys))
	assert.Equal(t, "", Name(strings.Repeat("a", 100), keys), "long input is not compared")
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"ab", "ba", 1}, {"ca", "abc", 3}, {"µs", "us", 1}} {
		assert.Equal(t, c.d, distance(c.a, c.b), "%q %q", c.a, c.b)
		assert.Equal(t, c.d, distance(c.b, c.a), "symmetric: %q %q", c.b, c.a)
	}
}
