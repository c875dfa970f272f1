// Package javaname normalises the Java method names real profilers print
// (JVMTI, JFR's JSON, async-profiler's collapsed stacks) to one form, so
// the tools that compare them with profsim read them alike.
package javaname

import (
	"regexp"
	"strings"
)

var (
	// hiddenSuffix is a hidden class's address suffix as JVMTI, JFR and
	// async-profiler print it ("Foo$$Lambda$14/0x0000000800c0b000",
	// "+0x…", ".0x…"), before the method's dot.
	hiddenSuffix = regexp.MustCompile(`[./+]0x[0-9a-fA-F]+\.`)
	// lambdaNumber is a lambda class's sequence number ("$$Lambda$14").
	lambdaNumber = regexp.MustCompile(`\$\$Lambda\$[0-9]+`)
)

// Of normalises a Java frame "pkg/Class$Inner.method" or
// "pkg.Class$Inner.method": dots, hidden-class address suffixes dropped,
// lambda numbers dropped ("a/B$$Lambda$123/0x0000000800c0b000.run" ->
// "a.B$$Lambda.run").
func Of(frame string) string {
	frame = hiddenSuffix.ReplaceAllString(frame, ".")
	frame = lambdaNumber.ReplaceAllString(frame, "$$$$Lambda")
	return strings.ReplaceAll(frame, "/", ".")
}
