// Package gjson is the "gjson" subject: github.com/tidwall/gjson.
package gjson

import (
	"errors"

	"github.com/tidwall/gjson"
)

// Run validates the document, walks every value, and runs path queries
// of the kinds gjson documents (keys, indexes, counts, wildcards,
// queries, modifiers).
func Run(data []byte) error {
	if !gjson.ValidBytes(data) {
		return errors.New("invalid JSON")
	}
	root := gjson.ParseBytes(data)
	walk(root, 0)
	for _, path := range []string{"0", "#", "*", "a.b", "#.name", `#(id>1)`, `..0`, "@reverse", "@pretty", "@this"} {
		r := gjson.GetBytes(data, path)
		_ = r.String()
		_ = r.Raw
	}
	_ = root.Get("@ugly").String()
	return nil
}

func walk(v gjson.Result, depth int) {
	if depth > 100 {
		return
	}
	switch v.Type {
	case gjson.Number:
		_, _ = v.Float(), v.Int()
	case gjson.String:
		_ = v.String()
	case gjson.True, gjson.False:
		_ = v.Bool()
	case gjson.JSON:
		if v.IsArray() {
			for _, e := range v.Array() {
				walk(e, depth+1)
			}
		} else {
			v.ForEach(func(k, e gjson.Result) bool {
				_ = k.String()
				walk(e, depth+1)
				return true
			})
			_ = v.Map()
		}
	}
}
