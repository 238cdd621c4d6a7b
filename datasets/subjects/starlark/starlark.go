// Package starlark is the "starlark" subject: go.starlark.net, the Go
// implementation of the Starlark language.
//
// Run treats its input as a Starlark module and does what an embedding
// program does with one: it parses it, resolves and compiles it (the
// static checks of the specification's "Name binding and variables"),
// executes its top-level statements, and reads back the globals it bound.
//
// The dialect is the one the bundled starlark grammar is written for: the
// specification's, plus the Go implementation's Set and While options
// (the set built-in and while loops). If, for and while stay out of the
// top level, a global is bound once, and a function may not call itself
// (TopLevelControl, GlobalReassign and Recursion are off), which keeps
// the resolver's checks in play.
//
// Nothing reaches the host: print writes nowhere, load fails (the
// subject has no modules), and the program has no other built-ins than
// the universal ones, none of which reads a file, the environment, the
// network or the clock. Results are deterministic: Starlark's dicts and
// sets iterate in insertion order and hash() is specified.
//
// Bounds: execution stops with an error after a fixed number of steps
// (maxSteps), so loops end and the time an input takes is bounded. The
// memory a program's values take is bounded by the grammar the inputs
// come from: its strings and lists are concatenated only with literals
// and repeated only as literals, by counts below 10, and no string is
// escaped into another (repr or %r of a string), its ints are scaled
// only by literals below 100 and shifted by digits, and its lists and
// dicts hold ints and short string keys, so values grow at most linearly
// with the steps run (no doubling per step, no range(10**9) list: a range
// over a computed bound is only iterated, step by step). Inputs longer
// than maxInput are refused before parsing.
package starlark

import (
	"errors"
	"fmt"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

const (
	// maxSteps is the execution budget, in the interpreter's steps.
	maxSteps = 20000
	// maxInput is the largest module Run accepts, in bytes.
	maxInput = 1 << 16
)

// options are the dialect's optional features (see the package comment).
func options() *syntax.FileOptions {
	return &syntax.FileOptions{Set: true, While: true}
}

// errNoLoad is what a load statement gets.
var errNoLoad = errors.New("load: no modules")

// Run parses, resolves and executes the module with a step budget, and
// formats its globals. It returns the first error: syntax, resolution,
// a dynamic error, or the budget running out.
func Run(data []byte) error {
	if len(data) > maxInput {
		return fmt.Errorf("input of %d bytes exceeds %d", len(data), maxInput)
	}
	f, err := options().Parse("input.star", string(data), 0)
	if err != nil {
		return err
	}
	// The program has no predeclared names of its own: those it may use
	// without binding them are the universal built-ins.
	prog, err := starlark.FileProgram(f, func(string) bool { return false })
	if err != nil {
		return err
	}
	thread := &starlark.Thread{
		Name:  "arbor",
		Print: func(*starlark.Thread, string) {},
		Load: func(*starlark.Thread, string) (starlark.StringDict, error) {
			return nil, errNoLoad
		},
	}
	thread.SetMaxExecutionSteps(maxSteps)
	globals, err := prog.Init(thread, nil)
	if err != nil {
		return err
	}
	globals.Freeze()
	_ = format(globals)
	return nil
}

// format writes the globals in name order, each with its type and truth
// value, as an embedding program reporting a module's results would.
func format(globals starlark.StringDict) string {
	var b strings.Builder
	for _, name := range globals.Keys() {
		v := globals[name]
		fmt.Fprintf(&b, "%s %s %t = %s\n", name, v.Type(), v.Truth(), v.String())
	}
	return b.String()
}
