package study

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"unicode"
)

// Tidy is an experiment's observations in long format: one observation
// per row, a column per variable, numbers unrounded (strconv's shortest
// representation that reads back exactly), so pandas or R load it
// without cleaning. Numeric says which columns hold numbers.
type Tidy struct {
	Columns []string
	Numeric []bool
	Rows    [][]string
}

// tidyOf builds the Tidy of obs, a slice of structs: one column per
// exported field, named by its `tidy` tag or its name in snake_case;
// numeric columns are the fields of integer, float or sim.Time kinds.
func tidyOf[T any](obs []T) *Tidy {
	typ := reflect.TypeFor[T]()
	if typ.Kind() != reflect.Struct {
		panic("study: tidyOf needs a struct type, got " + typ.String())
	}
	d := &Tidy{}
	var fields []int
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		name := f.Tag.Get("tidy")
		if name == "-" {
			continue
		}
		if name == "" {
			name = snake(f.Name)
		}
		fields = append(fields, i)
		d.Columns = append(d.Columns, name)
		switch f.Type.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Float32, reflect.Float64:
			d.Numeric = append(d.Numeric, true)
		case reflect.String, reflect.Bool:
			d.Numeric = append(d.Numeric, false)
		default:
			panic(fmt.Sprintf("study: tidy column %s has type %s", f.Name, f.Type))
		}
	}
	for _, o := range obs {
		v := reflect.ValueOf(o)
		row := make([]string, len(fields))
		for j, i := range fields {
			f := v.Field(i)
			switch f.Kind() {
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				row[j] = strconv.FormatInt(f.Int(), 10)
			case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
				row[j] = strconv.FormatUint(f.Uint(), 10)
			case reflect.Float32, reflect.Float64:
				row[j] = strconv.FormatFloat(f.Float(), 'g', -1, 64)
			case reflect.Bool:
				row[j] = strconv.FormatBool(f.Bool())
			default:
				row[j] = f.String()
			}
		}
		d.Rows = append(d.Rows, row)
	}
	return d
}

// snake turns a Go field name into a snake_case column name.
func snake(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 && (unicode.IsLower(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]))) {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// CSV renders the data with a header row.
func (d *Tidy) CSV() ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(d.Columns); err != nil {
		return nil, err
	}
	if err := w.WriteAll(d.Rows); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteFile writes the data as CSV to path.
func (d *Tidy) WriteFile(path string) error {
	b, err := d.CSV()
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// keyed maps an experiment's typed keys (profiler, stand-in, …) to
// values; At fails loudly on a key it does not hold, so a claim test
// never reads a silent zero.
type keyed[K comparable, V any] map[K]V

// At is the value for k; it panics if there is none.
func (m keyed[K, V]) At(k K) V {
	v, ok := m[k]
	if !ok {
		panic(fmt.Sprintf("study: no value for %v", k))
	}
	return v
}
