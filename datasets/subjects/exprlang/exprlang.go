// Package exprlang is the "exprlang" subject: github.com/expr-lang/expr.
package exprlang

import (
	"strings"

	"github.com/expr-lang/expr"
)

type user struct {
	Name  string
	Age   int
	Tags  []string
	Admin bool
}

func (u user) Greet(s string) string { return "hi " + s + " " + u.Name }

func env() map[string]any {
	return map[string]any{
		"x": 3, "y": 4.5, "s": "arbor", "ok": true,
		"nums":  []int{3, 1, 4, 1, 5},
		"words": []string{"go", "ml", "fuzz"},
		"m":     map[string]any{"a": 1, "b": "two"},
		"user":  user{Name: "ada", Age: 36, Tags: []string{"x"}, Admin: true},
		"upper": strings.ToUpper,
	}
}

// Run compiles the expression against an environment, runs the program,
// and also evaluates it without the environment's types.
func Run(data []byte) error {
	e := env()
	program, err := expr.Compile(string(data), expr.Env(e))
	if err != nil {
		return err
	}
	_ = program.Source()
	_ = program.Disassemble()
	if _, err := expr.Run(program, e); err != nil {
		return err
	}
	_, _ = expr.Eval(string(data), e)
	return nil
}
