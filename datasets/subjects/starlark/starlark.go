// Package starlark is the "starlark" subject: go.starlark.net.
package starlark

import (
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Run parses, resolves and executes the program. (A first cut, to be
// completed with the grammar.)
func Run(data []byte) error {
	thread := &starlark.Thread{Name: "arbor"}
	_, err := starlark.ExecFileOptions(&syntax.FileOptions{}, thread, "input.star", data, nil)
	return err
}
