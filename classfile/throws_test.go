package classfile

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// SharedThrow finds the methods whose every call throws an object made
// before the call, and no other.
func TestSharedThrow(t *testing.T) {
	c := parse(t, "Throws.class")
	for _, tc := range []struct {
		name, desc string
		class      string // "": not a shared throw
	}{
		{"report", "(ZLjava/lang/String;)V", "Throws$Failure"}, // the shared path; the other makes a new one
		{"cached", "()V", "Throws$Failure"},
		{"fresh", "()V", ""},                               // a new object: the recording sees it made
		{"sometimes", "(Z)V", ""},                          // returns on one path
		{"rethrow", "(Ljava/lang/RuntimeException;)V", ""}, // a local: not traced
	} {
		b := analyze(t, c, tc.name, tc.desc)
		class, ok := b.SharedThrow(c.Pool, c.Method(tc.name, tc.desc).Code.Bytecode)
		assert.Equal(t, tc.class != "", ok, tc.name)
		assert.Equal(t, tc.class, class, tc.name)
	}
}

// A fluent setter called on an object its block made is not a shared
// throw: Throws.report's other path, alone.
func TestSharedThrowNewReceiver(t *testing.T) {
	c := parse(t, "Throws.class")
	m := c.Method("report", "(ZLjava/lang/String;)V")
	b := analyze(t, c, "report", "(ZLjava/lang/String;)V")
	var goto15, call23 int
	for i, in := range b.Instrs {
		switch in.BCI {
		case 12:
			goto15 = i
		case 23:
			call23 = i
		}
	}
	require.NotZero(t, goto15)
	_, ok := b.sharedValue(c.Pool, m.Code.Bytecode, goto15)
	assert.False(t, ok, "new Failure().setMessage(m)")
	class, ok := b.sharedValue(c.Pool, m.Code.Bytecode, call23)
	assert.True(t, ok, "shared.setMessage(m)")
	assert.Equal(t, "Throws$Failure", class)
}

// javac's failed applicability checks throw one shared exception
// (OpenJDK 17's jdk.compiler; skipped without it).
func TestSharedThrowOfJavac(t *testing.T) {
	jmods, _ := filepath.Glob("/usr/lib/jvm/*17*/jmods/jdk.compiler.jmod")
	if len(jmods) == 0 {
		t.Skip("no OpenJDK 17 jmods under /usr/lib/jvm")
	}
	cp, err := OpenClasspath(jmods[0])
	require.NoError(t, err)
	defer cp.Close()
	cl, err := cp.Class("com/sun/tools/javac/comp/Resolve$AbstractMethodCheck")
	require.NoError(t, err)
	var found bool
	for _, m := range cl.Methods {
		if m.Name != "reportMC" || m.Code == nil {
			continue
		}
		b, err := Analyze(cl.Pool, m.Code)
		require.NoError(t, err)
		class, ok := b.SharedThrow(cl.Pool, m.Code.Bytecode)
		assert.True(t, ok)
		assert.Equal(t, "com/sun/tools/javac/comp/Resolve$AbstractMethodCheck$SharedInapplicableMethodException", class)
		found = true
	}
	assert.True(t, found, "reportMC in %s", jmods[0])
}
