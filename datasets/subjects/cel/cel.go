// Package cel is the "cel" subject: github.com/google/cel-go.
package cel

import (
	"github.com/google/cel-go/cel"
)

// Run parses, type-checks and evaluates the expression. (A first cut,
// to be completed with the grammar.)
func Run(data []byte) error {
	env, err := cel.NewEnv()
	if err != nil {
		return err
	}
	ast, iss := env.Compile(string(data))
	if iss.Err() != nil {
		return iss.Err()
	}
	prg, err := env.Program(ast)
	if err != nil {
		return err
	}
	_, _, err = prg.Eval(map[string]any{})
	return err
}
