package classfile

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// MaxClassFileSize bounds one class file read from a jar or directory. No
// limit is in the specification; javac's largest outputs are a few
// hundred KiB, so 64 MiB rejects only hostile entries (a zip bomb's
// declared size is never trusted: reads stop at the limit).
const MaxClassFileSize = 64 << 20

// Classpath finds class files by binary name in jars and directories, in
// order, as the JVM's class path does. It reads each class at most once.
type Classpath struct {
	entries []cpEntry
	cache   map[string]*Class
	errs    map[string]error
	closers []io.Closer
}

type cpEntry struct {
	dir string               // a directory, or
	jar map[string]*zip.File // a jar's .class entries by binary name
}

// OpenClasspath opens jars (and other zip files), the JDK's modules
// (.jmod files: their classes/ folder) and directories.
func OpenClasspath(paths ...string) (*Classpath, error) {
	cp := &Classpath{cache: map[string]*Class{}, errs: map[string]error{}}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			cp.Close()
			return nil, fmt.Errorf("classpath: %w", err)
		}
		if st.IsDir() {
			cp.entries = append(cp.entries, cpEntry{dir: p})
			continue
		}
		z, err := zip.OpenReader(p)
		if err != nil {
			cp.Close()
			return nil, fmt.Errorf("classpath: %s: %w", p, err)
		}
		cp.closers = append(cp.closers, z)
		e := cpEntry{jar: map[string]*zip.File{}}
		jmod := strings.HasSuffix(p, ".jmod")
		for _, f := range z.File {
			name, ok := strings.CutSuffix(f.Name, ".class")
			if jmod { // a JDK module: a 4-byte header, then a zip with the classes under classes/
				name, ok = strings.CutPrefix(name, "classes/")
			}
			if ok && !strings.HasPrefix(name, "META-INF/") {
				if _, dup := e.jar[name]; !dup {
					e.jar[name] = f
				}
			}
		}
		cp.entries = append(cp.entries, e)
	}
	return cp, nil
}

// ClasspathOf is a classpath of classes already parsed, held in memory
// (the first of a name wins, as on a class path).
func ClasspathOf(classes ...*Class) *Classpath {
	cp := &Classpath{cache: map[string]*Class{}, errs: map[string]error{}}
	for _, c := range classes {
		if _, dup := cp.cache[c.Name]; !dup {
			cp.cache[c.Name] = c
		}
	}
	return cp
}

// Close closes the jars.
func (cp *Classpath) Close() error {
	var errs []error
	for _, c := range cp.closers {
		errs = append(errs, c.Close())
	}
	cp.closers = nil
	return errors.Join(errs...)
}

// ErrNotFound reports a class that no classpath entry holds.
var ErrNotFound = errors.New("class not found on the classpath")

// Class returns the parsed class with binary name (either '/' or '.'
// separators); ErrNotFound if no entry has it.
func (cp *Classpath) Class(name string) (*Class, error) {
	name = strings.ReplaceAll(name, ".", "/")
	if c, ok := cp.cache[name]; ok {
		return c, nil
	}
	if err, ok := cp.errs[name]; ok {
		return nil, err
	}
	c, err := cp.load(name)
	if err != nil {
		cp.errs[name] = err
		return nil, err
	}
	cp.cache[name] = c
	return c, nil
}

func (cp *Classpath) load(name string) (*Class, error) {
	for _, e := range cp.entries {
		var data []byte
		var err error
		var where string
		if e.dir != "" {
			where = filepath.Join(e.dir, filepath.FromSlash(name)+".class")
			f, oerr := os.Open(where)
			if oerr != nil {
				if errors.Is(oerr, os.ErrNotExist) {
					continue
				}
				return nil, oerr
			}
			data, err = readLimited(f)
			f.Close()
		} else {
			zf, ok := e.jar[name]
			if !ok {
				continue
			}
			where = zf.Name
			rc, oerr := zf.Open()
			if oerr != nil {
				return nil, fmt.Errorf("%s: %w", where, oerr)
			}
			data, err = readLimited(rc)
			rc.Close()
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		c, err := Parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if c.Name != name {
			return nil, fmt.Errorf("%s: holds class %s, not %s", where, c.Name, name)
		}
		return c, nil
	}
	return nil, fmt.Errorf("%s: %w", name, ErrNotFound)
}

// readLimited reads at most MaxClassFileSize bytes and fails beyond.
func readLimited(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxClassFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxClassFileSize {
		return nil, fmt.Errorf("class file larger than %d bytes", MaxClassFileSize)
	}
	return data, nil
}
