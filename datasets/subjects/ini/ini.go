// Package ini is the "ini" subject: gopkg.in/ini.v1.
package ini

import (
	"bytes"

	"gopkg.in/ini.v1"
)

// Run loads the file, reads every key of every section through the typed
// accessors, and writes it back.
func Run(data []byte) error {
	f, err := ini.Load(data)
	if err != nil {
		return err
	}
	for _, s := range f.Sections() {
		_ = s.Name()
		for _, k := range s.Keys() {
			_ = k.String()
			_, _ = k.Int()
			_, _ = k.Bool()
			_, _ = k.Float64()
			_ = k.Strings(",")
			_ = k.Comment
		}
		_ = s.KeysHash()
	}
	var out bytes.Buffer
	_, err = f.WriteTo(&out)
	return err
}
