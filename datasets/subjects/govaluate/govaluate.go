// Package govaluate is the "govaluate" subject: github.com/Knetic/govaluate.
package govaluate

import (
	"errors"
	"strings"

	"github.com/Knetic/govaluate"
)

var functions = map[string]govaluate.ExpressionFunction{
	"len": func(args ...any) (any, error) {
		s, err := oneString("len", args)
		return float64(len(s)), err
	},
	"upper": func(args ...any) (any, error) {
		s, err := oneString("upper", args)
		return strings.ToUpper(s), err
	},
}

// oneString checks that a function was given a single string.
func oneString(name string, args []any) (string, error) {
	if len(args) != 1 {
		return "", errors.New(name + " takes one argument")
	}
	s, ok := args[0].(string)
	if !ok {
		return "", errors.New(name + " takes a string")
	}
	return s, nil
}

// Run parses the expression, lists its variables and tokens, evaluates it
// with a set of parameters, and prints it back.
func Run(data []byte) error {
	expr, err := govaluate.NewEvaluableExpressionWithFunctions(string(data), functions)
	if err != nil {
		return err
	}
	_ = expr.Vars()
	_ = expr.Tokens()
	_ = expr.String()
	params := map[string]any{
		"x": 3.0, "y": 4.5, "z": -2.0, "n": 0.0, "name": "arbor", "flag": true,
		"list": []any{1.0, 2.0, 3.0}, "date": "2024-01-02",
	}
	_, err = expr.Evaluate(params)
	return err
}
