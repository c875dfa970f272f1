package javaname

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOf(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a/B$$Lambda$123/0x0000000800c0b000.run", "a.B$$Lambda.run"},
		{"a.B$$Lambda$123.0x0000000800c0b000.run", "a.B$$Lambda.run"},
		{"a/B$$Lambda$123+0x0000000800C0B000.run", "a.B$$Lambda.run"},
		{"java/lang/invoke/LambdaForm$MH/0x0000000800c0c400.invoke", "java.lang.invoke.LambdaForm$MH.invoke"},
		{"a/B$Inner.<init>", "a.B$Inner.<init>"},
		{"a.B$$Lambda.run", "a.B$$Lambda.run"},
	} {
		assert.Equal(t, tc.want, Of(tc.in), tc.in)
	}
}
