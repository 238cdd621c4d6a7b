// Package goja is the "goja" subject: github.com/dop251/goja.
package goja

import (
	"github.com/dop251/goja"
)

// Run compiles and runs the script. (A first cut, to be completed with
// the grammar.)
func Run(data []byte) error {
	prg, err := goja.Compile("input.js", string(data), true)
	if err != nil {
		return err
	}
	_, err = goja.New().RunProgram(prg)
	return err
}
