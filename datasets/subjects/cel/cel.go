// Package cel is the "cel" subject: github.com/google/cel-go, used the way
// a policy engine embeds it. One environment is declared once: the
// variables the cel grammar uses (i, j int; u uint; d double; s string;
// b bytes; ok bool; xs list(int); names list(string); m map(string, int);
// t timestamp; dur duration) and the extension libraries an embedding
// that takes expressions from its users would plausibly enable: strings,
// math, lists, sets and encoders (base64), which are pure functions of
// their arguments, and bindings (cel.bind), which names a value once.
// Left out are the libraries that the grammar does not write or that an
// embedding of plain values has no use for: protos (the environment
// declares no messages), two-variable comprehensions, regex, network,
// and optional types.
//
// Run compiles each input (parse, macro expansion, type check), plans a
// program and evaluates it against one fixed activation, then
// stringifies the result as an embedding would report it.
//
// Budget and guards, all deterministic: the program's runtime cost is
// limited (costLimit, cel.CostLimit: evaluation stops with an error once
// the tracked cost exceeds it, which bounds time and the size of the
// strings and lists a program can build), lists.range allocates at most
// maxRangeSize elements, the parser's recursion depth and the
// expression's size are limited, and comprehensions check for
// interruption; the context that can interrupt them has a deadline far
// past what the cost limit allows, a guard against a cost model that
// misses work, not a budget. The activation holds no clock: the
// timestamp is a fixed instant. Time zones by name are read from the
// host's zone database by cel-go; the cel grammar writes only UTC and
// fixed offsets. One variation is cel-go's own: a macro over a map visits
// its keys in Go's map order, so a result that depends on that order
// (m.map(k, k)[0]) can differ between runs.
package cel

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"
)

const (
	// costLimit bounds the runtime cost of one evaluation, in cel-go's
	// cost units (about one per operation, plus the sizes of strings and
	// lists that operations walk or build).
	costLimit = 100_000
	// maxRangeSize bounds the lists that lists.range builds.
	maxRangeSize = 1_000
	// interruptEvery is how many comprehension iterations pass between
	// checks of the context.
	interruptEvery = 100
	// deadline is the guard on one evaluation's wall time.
	deadline = 5 * time.Second
	// maxOutput bounds the stringified result.
	maxOutput = 1 << 16
)

// environment is declared once: a cel.Env is safe for concurrent use, and
// declaring it is most of the cost of a small input.
var environment = sync.OnceValues(newEnvironment)

func newEnvironment() (*cel.Env, error) {
	return cel.NewEnv(
		cel.Variable("i", cel.IntType),
		cel.Variable("j", cel.IntType),
		cel.Variable("u", cel.UintType),
		cel.Variable("d", cel.DoubleType),
		cel.Variable("s", cel.StringType),
		cel.Variable("b", cel.BytesType),
		cel.Variable("ok", cel.BoolType),
		cel.Variable("xs", cel.ListType(cel.IntType)),
		cel.Variable("names", cel.ListType(cel.StringType)),
		cel.Variable("m", cel.MapType(cel.StringType, cel.IntType)),
		cel.Variable("t", cel.TimestampType),
		cel.Variable("dur", cel.DurationType),
		ext.Strings(),
		ext.Math(),
		ext.Lists(ext.ListsMaxRangeSize(maxRangeSize)),
		ext.Sets(),
		ext.Encoders(),
		ext.Bindings(),
		cel.ParserRecursionLimit(200),
		cel.ParserExpressionSizeLimit(1<<16),
	)
}

// activation returns the variables' values. It is built per input so
// that no evaluation can see another's values.
func activation() map[string]any {
	return map[string]any{
		"i":     int64(7),
		"j":     int64(-3),
		"u":     uint64(42),
		"d":     2.5,
		"s":     "hello",
		"b":     []byte("abc"),
		"ok":    true,
		"xs":    []int64{3, 1, 2},
		"names": []string{"ab", "cd", "ab"},
		"m":     map[string]int64{"a": 1, "b": 2, "c": 3, "id": 4, "key": 5},
		"t":     time.Date(2024, time.February, 29, 12, 30, 45, 0, time.UTC),
		"dur":   90 * time.Minute,
	}
}

// Run compiles the expression, evaluates it, and stringifies the result.
// It returns the first error: a syntax or type error, a planning error
// (such as an invalid constant regular expression), a runtime error
// (division by zero, overflow, a missing key, a failed conversion), or
// the cost limit exceeded.
func Run(data []byte) error {
	env, err := environment()
	if err != nil {
		return fmt.Errorf("declaring the environment: %w", err)
	}
	ast, iss := env.Compile(string(data))
	if iss.Err() != nil {
		return fmt.Errorf("compile: %w", iss.Err())
	}
	prg, err := env.Program(ast,
		cel.CostLimit(costLimit),
		cel.InterruptCheckFrequency(interruptEvery),
	)
	if err != nil {
		return fmt.Errorf("program: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	out, _, err := prg.ContextEval(ctx, activation())
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	_ = describe(out)
	return nil
}

// describe renders a result as an embedding would report it: its CEL
// type and its value converted to a native Go value where one exists.
func describe(v ref.Val) string {
	s := fmt.Sprintf("%s: %v", v.Type().TypeName(), v.Value())
	if len(s) > maxOutput {
		s = s[:maxOutput]
	}
	return s
}
