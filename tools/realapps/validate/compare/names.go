package main

import (
	"regexp"
	"strings"
)

// hiddenSuffix is a hidden class's generated suffix as HotSpot names it:
// `/0x0000…` in JVMTI's and async-profiler's class names, `+0x…` followed
// by JFR's `.<hash>` in a JFR recording's (and so in the imported
// models': `LambdaForm$MH+0x00007f182c11e000.1696263571`).
var hiddenSuffix = regexp.MustCompile(`[/+]0x[0-9a-fA-F]+(\.[0-9]+)?$`)

// lambdaSuffix is the number of a lambda's class:
// `Outer$$Lambda$184` (JDK 17) becomes `Outer$$Lambda`.
var lambdaSuffix = regexp.MustCompile(`\$\$Lambda\$[0-9]+$`)

// normalizeMethod turns a method's name, as the real side's self.tsv or a
// model's profile writes it, into the one form both are compared in
// (tools/realapps/validate's contract, spec/VALIDATE-FORMAT.md):
// `pkg.Class$Inner.method`, dots between packages, no descriptor, and
// hidden/lambda class suffixes dropped (`$$Lambda$123/0x0000…` and
// `$$Lambda$184+0x….1636050357` both become `$$Lambda`; other hidden
// classes such as `LambdaForm$MH/0x…` lose their `/0x…` or `+0x…`).
//
// The class is everything before the last `.` of the name without its
// descriptor; JVM internal form (`java/lang/String`) is turned into
// dots after the hidden suffix, whose `/` is not a package separator,
// is dropped.
func normalizeMethod(name string) string {
	name = strings.TrimSpace(name)
	if i := strings.IndexByte(name, '('); i >= 0 {
		name = name[:i]
	}
	// The method's name follows the class's last dot, which a hidden
	// class's `.<hash>` suffix makes ambiguous: take the method off the
	// end first, then the class's suffix.
	dot := strings.LastIndexByte(name, '.')
	if dot < 0 {
		return name
	}
	class, method := name[:dot], name[dot+1:]
	return normalizeClass(class) + "." + method
}

// normalizeClass is normalizeMethod's rule for a class name alone.
func normalizeClass(class string) string {
	class = hiddenSuffix.ReplaceAllString(class, "")
	class = lambdaSuffix.ReplaceAllString(class, "$$$$Lambda")
	return strings.ReplaceAll(class, "/", ".")
}

// modelMethodName is a model profile function's name in normalizeMethod's
// form, from its class and method (profile.Function.Name adds a
// descriptor for overloads, which the comparison drops).
func modelMethodName(class, method, name string) string {
	if class == "" || method == "" {
		return normalizeMethod(name)
	}
	return normalizeClass(class) + "." + method
}
