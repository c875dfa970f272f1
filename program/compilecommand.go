package program

// Compile commands: HotSpot's -XX:CompileCommand, as a program's
// compile_commands key and the jit package's configuration give them. The
// pattern matches methods of a program; the jit package decides what the
// commands do.

import (
	"fmt"
	"strings"
)

// CommandKind is what a compile command does to the methods it matches.
type CommandKind uint8

// The compile commands profsim models (HotSpot 17's CompileCommand enum
// in compiler/compilerOracle.hpp has many more; they are rejected).
const (
	// DontInline: C2 never inlines a matching method ("disallowed by
	// CompileCommand"); it is still compiled on its own.
	DontInline CommandKind = iota
	// Inline: C2 inlines a matching method wherever it is a candidate,
	// whatever its size ("force inline by CompileCommand"); MaxInlineLevel,
	// recursion, -XX:-Inline and a virtual site's receiver profile still
	// apply, and it wins over dontinline and exclude.
	Inline
	// Exclude: a matching method is never compiled (it stays interpreted:
	// "### Excluding compile") and never inlined.
	Exclude
)

var commandNames = [...]string{"dontinline", "inline", "exclude"}

func (k CommandKind) String() string { return commandNames[k] }

// MatchMode is how a pattern's class or method part matches a name
// (MethodMatcher::Mode in HotSpot's compiler/methodMatcher.hpp).
type MatchMode uint8

// Match modes: a leading '*' matches any prefix (Suffix), a trailing one
// any suffix (Prefix), both any substring; "*" alone matches everything.
const (
	Exact MatchMode = iota
	Prefix
	Suffix
	Substring
	Any
)

// CompileCommand is one parsed command.
type CompileCommand struct {
	Kind CommandKind
	// Class is the class part in HotSpot's internal form ("java/util/Map"),
	// Method the method name, both without their '*'s.
	Class, Method         string
	ClassMode, MethodMode MatchMode
	// Signature, when not empty, must be a prefix of the method's.
	Signature string
	// Value is the command's boolean: false undoes an earlier command of
	// the same kind for the methods it matches.
	Value bool
}

// ParseCompileCommand parses one command the way HotSpot 17's
// CompilerOracle::parse_from_line (compiler/compilerOracle.cpp) and
// MethodMatcher::parse_method_pattern (compiler/methodMatcher.cpp) read
// -XX:CompileCommand=TEXT (or a line of a -XX:CompileCommandFile): the
// command name (any case), a comma or spaces, a method pattern and an
// optional boolean. The pattern is package/Class.method or
// package.Class::method; commas may stand for the separators
// ("Class,method"); an optional signature follows the method name
// ("Class.method(I)V"); class and method names take a leading and/or
// trailing '*'. Every error HotSpot reports is an error here, and so are
// the commands profsim does not model and trailing text HotSpot would
// ignore.
func ParseCompileCommand(text string) (CompileCommand, error) {
	fail := func(format string, a ...any) (CompileCommand, error) {
		return CompileCommand{}, fmt.Errorf("compile command %q: %s", text, fmt.Sprintf(format, a...))
	}
	n := 0
	for n < len(text) && isAlnum(text[n]) {
		n++
	}
	name := text[:n]
	var c CompileCommand
	found := false
	for k, kn := range commandNames {
		if strings.EqualFold(name, kn) {
			c.Kind, found = CommandKind(k), true
		}
	}
	if !found {
		return fail("%q is not a command profsim models (supported: dontinline, inline, exclude)", name)
	}
	rest := text[n:]
	if rest == "" || !strings.ContainsRune(", \t", rune(rest[0])) {
		return fail("want %s,PATTERN (Class::method or package/Class.method)", name)
	}
	line, err := canonicalize(strings.ReplaceAll(rest[1:], "\t", " "))
	if err != nil {
		return fail("%v", err)
	}
	line = strings.TrimLeft(line, " ")
	if line == "" {
		return fail("method pattern missing")
	}
	// Class: up to the first space; then spaces; then the method name, up
	// to a space or the signature's '('.
	class, after, ok := strings.Cut(line, " ")
	after = strings.TrimLeft(after, " ")
	end := strings.IndexAny(after, " (")
	if end < 0 {
		end = len(after)
	}
	method := after[:end]
	if !ok || class == "" || method == "" || strings.ContainsAny(class, "([])") || strings.ContainsAny(method, "/)[]") {
		return fail("could not parse the method pattern (want Class::method or package/Class.method)")
	}
	if c.ClassMode, err = matchMode(&class); err != nil {
		return fail("class %v", err)
	}
	if c.MethodMode, err = matchMode(&method); err != nil {
		return fail("method %v", err)
	}
	if strings.ContainsAny(class, "<>") {
		return fail("chars '<' and '>' not allowed in class name")
	}
	if strings.ContainsAny(method, "<>") && method != "<init>" && method != "<clinit>" {
		return fail("chars '<' and '>' only allowed in <init>, <clinit>")
	}
	c.Class, c.Method = class, method
	line = strings.TrimLeft(after[end:], " ")
	if strings.HasPrefix(line, "(") {
		end := strings.IndexByte(line, ' ')
		if end < 0 {
			end = len(line)
		}
		c.Signature, line = line[:end], strings.TrimLeft(line[end:], " ")
		if strings.Contains(c.Signature, "*") {
			return fail("wildcard * not allowed in signature")
		}
	}
	c.Value = true
	if line != "" {
		v, tail, _ := strings.Cut(line, " ")
		switch {
		case strings.EqualFold(v, "true"):
		case strings.EqualFold(v, "false"):
			c.Value = false
		default:
			return fail("%q after the pattern is not a boolean (true or false)", v)
		}
		if strings.TrimSpace(tail) != "" {
			return fail("unrecognized text %q after the value", strings.TrimSpace(tail))
		}
	}
	return c, nil
}

// canonicalize turns a pattern's separators into spaces as
// MethodMatcher::canonicalize does: with "::", dots are package separators
// (made '/') and "::" separates the method; without it, the one '.'
// separates class and method and packages use '/'. Commas are spaces.
func canonicalize(s string) (string, error) {
	b := []byte(s)
	if i := strings.Index(s, "::"); i >= 0 {
		if strings.Contains(s[i+2:], "::") {
			return "", fmt.Errorf("method pattern only allows one '::'")
		}
		for j := 1; j < len(b) && b[j] != '('; j++ {
			if b[j] == '/' {
				return "", fmt.Errorf("method pattern uses '/' together with '::'")
			}
		}
		for j := range b {
			switch b[j] {
			case '.':
				b[j] = '/'
			case ':':
				b[j] = ' '
			}
		}
	} else if i := strings.IndexByte(s, '.'); i >= 0 {
		inSig := false
		for j := i + 1; j < len(b) && b[j] != ','; j++ {
			switch b[j] {
			case '(':
				inSig = true
			case '/':
				if !inSig {
					return "", fmt.Errorf("method pattern uses mixed '/' and '.' package separators")
				}
			case '.':
				return "", fmt.Errorf("method pattern uses multiple '.' in pattern")
			}
		}
	}
	for j := range b {
		if b[j] == ',' || b[j] == '.' {
			b[j] = ' '
		}
	}
	return string(b), nil
}

// matchMode strips a name's '*'s and returns how it matches
// (check_mode in compiler/methodMatcher.cpp).
func matchMode(name *string) (MatchMode, error) {
	s := *name
	if s == "*" {
		*name = ""
		return Any, nil
	}
	m := Exact
	if strings.HasPrefix(s, "*") {
		m, s = Suffix, s[1:]
	}
	if strings.HasSuffix(s, "*") {
		if m == Suffix {
			m = Substring
		} else {
			m = Prefix
		}
		s = s[:len(s)-1]
	}
	switch {
	case s == "":
		return 0, fmt.Errorf("%q is not a valid pattern", *name)
	case strings.Contains(s, "*"):
		return 0, fmt.Errorf("%q: embedded * not allowed", *name)
	}
	*name = s
	return m, nil
}

func isAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

func matchName(name, pat string, m MatchMode) bool {
	switch m {
	case Any:
		return true
	case Prefix:
		return strings.HasPrefix(name, pat)
	case Suffix:
		return strings.HasSuffix(name, pat)
	case Substring:
		return strings.Contains(name, pat)
	}
	return name == pat
}

// Matches reports whether the command's pattern matches m, whose class is
// compared in HotSpot's internal form (dots as '/'), as
// MethodMatcher::matches does. A pattern with a signature matches only
// methods whose signature starts with it (a method without one matches
// none). The class, whose internal form costs a copy, is compared last.
func (c CompileCommand) Matches(m *Method) bool {
	if !matchName(m.Name, c.Method, c.MethodMode) || c.Signature != "" && (m.Signature == "" || !strings.HasPrefix(m.Signature, c.Signature)) {
		return false
	}
	return c.ClassMode == Any || matchName(strings.ReplaceAll(m.Class, ".", "/"), c.Class, c.ClassMode)
}

// String writes the command as -XX:CompileCommand= takes it, in the form
// HotSpot prints a pattern (MethodMatcher::print_base): Class.method.
func (c CompileCommand) String() string {
	s := c.Kind.String() + "," + patternText(c.Class, c.ClassMode) + "." + patternText(c.Method, c.MethodMode) + c.Signature
	if !c.Value {
		s += ",false"
	}
	return s
}

func patternText(s string, m MatchMode) string {
	switch m {
	case Any:
		return "*"
	case Prefix:
		return s + "*"
	case Suffix:
		return "*" + s
	case Substring:
		return "*" + s + "*"
	}
	return s
}
