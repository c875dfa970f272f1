package profile

import "strings"

// FrameSep separates the frames of a calling context's key: the keys of
// ContextWeights and CCT.Path, made by JoinFrames. It is U+001F, the ASCII
// unit separator. Function names are shown as Java shows them, with JVM
// descriptors that hold ';', '/', '[', '(' and ')' — ';' is also folded
// output's frame separator — so no printable byte is safe; no Java
// identifier holds U+001F (JLS §3.8: Character.isJavaIdentifierPart is
// false for it), and Validate rejects a function name that holds it, so a
// key names exactly one context.
const FrameSep = "\x1f"

// JoinFrames is the key of the calling context whose frames are named
// names, root first.
func JoinFrames(names []string) string { return strings.Join(names, FrameSep) }

// SplitFrames is the frame names of a context key, root first: the
// inverse of JoinFrames (nil for the root's key, "").
func SplitFrames(key string) []string {
	if key == "" {
		return nil
	}
	return strings.Split(key, FrameSep)
}

// FoldedName is f's frame in folded output: its Name without the
// descriptor (Signature) an overload's name ends with — "pkg.Class.method",
// as async-profiler's collapsed output prints a Java frame with its "dot"
// option and without "sig" — so overloads share a frame there.
func (f *Function) FoldedName() string { return strings.TrimSuffix(f.Name, f.Signature) }
