package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/grammar"
)

// constraintsFlag is --constraints, one meaning in every command:
// whether the grammar's where clauses apply. Generators then make
// inputs that satisfy them, and checking commands report the ones an
// input breaks.
type constraintsFlag struct{ mode string }

const constraintsUsage = "`on` or off: whether the grammar's constraints (where clauses, docs/notation.md) apply"

func (c *constraintsFlag) register(fl *pflag.FlagSet, what string) {
	fl.StringVar(&c.mode, "constraints", "on", constraintsUsage+": "+what)
}

func (c constraintsFlag) check() error {
	if c.mode != "on" && c.mode != "off" {
		return usageError{fmt.Errorf("--constraints must be on or off, not %q", c.mode)}
	}
	return nil
}

// off reports whether --constraints off was given: what the eval
// configurations' NoConstraints say.
func (c constraintsFlag) off() bool { return c.mode == "off" }

// set returns g's constraints, or nil with --constraints off or for a
// grammar without any.
func (c constraintsFlag) set(g *grammar.Graph) (*constraint.Set, error) {
	if c.off() {
		return nil, nil
	}
	s, err := constraint.Compile(g)
	if err != nil || s.Len() == 0 {
		return nil, err
	}
	return s, nil
}
