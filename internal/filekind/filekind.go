// Package filekind names what a file that is not a regular file is, for
// messages that refuse to read it.
package filekind

import "io/fs"

// Of names the kind of a non-regular file: "a directory", "a named
// pipe", ...; any other mode by its string.
func Of(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}
