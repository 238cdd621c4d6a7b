// Package fastjson is the "fastjson" subject: github.com/valyala/fastjson.
package fastjson

import (
	"github.com/valyala/fastjson"
)

// Run parses the document, walks every value with typed getters, and
// marshals it again.
func Run(data []byte) error {
	if err := fastjson.ValidateBytes(data); err != nil {
		return err
	}
	var p fastjson.Parser
	v, err := p.ParseBytes(data)
	if err != nil {
		return err
	}
	walk(v, 0)
	_ = v.MarshalTo(nil)
	_ = v.String()
	return nil
}

func walk(v *fastjson.Value, depth int) {
	if depth > 100 {
		return
	}
	switch v.Type() {
	case fastjson.TypeObject:
		o, _ := v.Object()
		o.Visit(func(k []byte, e *fastjson.Value) { walk(e, depth+1) })
		_ = o.Len()
	case fastjson.TypeArray:
		a, _ := v.Array()
		for _, e := range a {
			walk(e, depth+1)
		}
	case fastjson.TypeString:
		_, _ = v.StringBytes()
	case fastjson.TypeNumber:
		_, _ = v.Float64()
		_, _ = v.Int64()
	case fastjson.TypeTrue, fastjson.TypeFalse:
		_, _ = v.Bool()
	}
}
