// Package toml is the "toml" subject: github.com/BurntSushi/toml.
package toml

import (
	"bytes"

	"github.com/BurntSushi/toml"
)

// Run decodes the document into generic values, inspects the keys it
// defined, and encodes it again.
func Run(data []byte) error {
	var v map[string]any
	md, err := toml.Decode(string(data), &v)
	if err != nil {
		return err
	}
	for _, k := range md.Keys() {
		_ = md.Type(k...)
		_ = k.String()
	}
	_ = md.Undecoded()
	var out bytes.Buffer
	return toml.NewEncoder(&out).Encode(v)
}
