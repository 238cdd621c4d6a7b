// Package gotoml is the "gotoml" subject: github.com/pelletier/go-toml/v2,
// the second TOML library of the suite, run on the same toml grammar as
// BurntSushi/toml (a grammar never looked at with this library's results).
package gotoml

import (
	"bytes"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// config is a typed view a program might decode a document into; strict
// decoding reports the keys it does not know.
type config struct {
	Title  string         `toml:"title"`
	Name   string         `toml:"name"`
	Port   int64          `toml:"port"`
	Debug  bool           `toml:"debug"`
	Ratio  float64        `toml:"ratio"`
	Tags   []string       `toml:"tags"`
	Owner  map[string]any `toml:"owner"`
	Server map[string]any `toml:"server"`
}

// Run decodes the document into generic values, walks them, decodes it
// again strictly into a typed struct, and encodes the values back.
func Run(data []byte) error {
	var v map[string]any
	if err := toml.Unmarshal(data, &v); err != nil {
		return err
	}
	walk(v)
	var c config
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	_ = dec.Decode(&c) // unknown keys and type mismatches are expected here
	_, err := toml.Marshal(v)
	return err
}

// walk visits every value, by its decoded type.
func walk(v any) int {
	n := 1
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			n += walk(e)
		}
	case []any:
		for _, e := range x {
			n += walk(e)
		}
	case toml.LocalDate:
		_ = x.String()
	case toml.LocalTime:
		_ = x.String()
	case toml.LocalDateTime:
		_ = x.String()
	case time.Time:
		_ = x.UTC()
	}
	return n
}
