// Package json is the "json" subject: encoding/json.
package json

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
)

// Run decodes the input into generic values and with numbers kept as
// text, re-encodes it, and checks that compact and indented forms agree.
func Run(data []byte) error {
	if !stdjson.Valid(data) {
		return errors.New("invalid JSON")
	}
	var v any
	if err := stdjson.Unmarshal(data, &v); err != nil {
		return err
	}
	dec := stdjson.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var n any
	if err := dec.Decode(&n); err != nil {
		return err
	}
	if _, err := stdjson.Marshal(v); err != nil {
		return err
	}
	if _, err := stdjson.MarshalIndent(n, "", "  "); err != nil {
		return err
	}
	var compact, indented bytes.Buffer
	if err := stdjson.Compact(&compact, data); err != nil {
		return err
	}
	return stdjson.Indent(&indented, data, "", "\t")
}
