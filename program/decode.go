package program

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Format is a workload file's encoding.
type Format string

// Supported formats.
const (
	YAML Format = "yaml"
	JSON Format = "json"
)

// FormatOf guesses a file's format from its extension.
func FormatOf(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		return YAML, nil
	case ".json":
		return JSON, nil
	}
	return "", fmt.Errorf("%s: unknown workload file extension %q (want .yaml, .yml or .json)", path, filepath.Ext(path))
}

// Decode parses data without validating it. Unknown fields are errors, so a
// misspelt key never silently falls back to a default.
func Decode(data []byte, f Format) (*Program, error) {
	var p Program
	switch f {
	case YAML:
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&p); err != nil {
			if errors.Is(err, io.EOF) {
				return nil, errors.New("empty workload document")
			}
			return nil, fmt.Errorf("yaml: %w", err)
		}
		var extra any
		if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
			return nil, errors.New("yaml: more than one document; a workload file holds exactly one program")
		}
	case JSON:
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("json: %w", err)
		}
		if dec.More() {
			return nil, errors.New("json: trailing data after the program object")
		}
	default:
		return nil, fmt.Errorf("unknown format %q", f)
	}
	return &p, nil
}

// Parse decodes and validates a program.
func Parse(data []byte, f Format) (*Program, error) {
	p, err := Decode(data, f)
	if err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// Load reads, decodes and validates a workload file. A program without a
// name is named after the file.
func Load(path string) (*Program, error) {
	f, err := FormatOf(path)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := Decode(data, f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if p.Name == "" {
		p.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// EncodeYAML writes p in the format Decode reads.
func EncodeYAML(w io.Writer, p *Program) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(p); err != nil {
		return err
	}
	return enc.Close()
}
