package targeting_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/synth"
	"github.com/arbor-fuzz/arbor/targeting"
)

// The declarations up to ExampleLoop_Pursue are those of
// learn/example_library_test.go as well: docs/library.md shows them
// once, and TestLibraryDoc in grammar/load checks that they agree.

// calcGrammar describes the inputs of the program under test.
const calcGrammar = `
Expr   := Term (("+" | "-") Term)* ;
Term   := Factor (("*" | "/") Factor)* ;
Factor := Number | "(" Expr ")" ;
Number := "0" | /[1-9][0-9]?/ ;
`

// calc is the program under test as a coverage.Runner: it tells which of
// its functions an input runs. This stand-in reads the input; a real one
// runs the code and records what ran.
type calc struct{}

func (calc) Functions() []string { return []string{"add", "multiply", "divide", "divideByZero"} }

func (calc) Run(_ context.Context, input []byte) (*coverage.Result, error) {
	var covered []int
	for fn, op := range []string{"+", "*", "/", "/0"} {
		if strings.Contains(string(input), op) {
			covered = append(covered, fn)
		}
	}
	return &coverage.Result{Outcome: coverage.OK, Covered: covered}, nil
}

// train runs n small random inputs of the grammar through the program
// and fits a decision tree per function on what each input ran.
func train(ctx context.Context, program coverage.Runner, n int) (*learn.Predictor, error) {
	ast, err := grammar.Parse("calc.grammar", []byte(calcGrammar))
	if err != nil {
		return nil, err
	}
	g, err := grammar.Build(ast)
	if err != nil {
		return nil, err
	}
	gen := synth.NewGenerator(g, synth.NewRandom(1), synth.RandomPolicy)
	gen.MaxDepth = 5
	examples := &learn.Examples{Functions: program.Functions()}
	for range n {
		input := []byte(gen.Generate().String())
		res, err := program.Run(ctx, input)
		if err != nil {
			return nil, err
		}
		trees, err := g.ParseAll(input, grammar.DefaultTreeLimit)
		if err != nil {
			return nil, err
		}
		examples.Trees = append(examples.Trees, trees)
		examples.Covered = append(examples.Covered, res.Covered)
	}
	d := examples.Dataset(g, features.Options{MaxK: 3}) // k-paths up to 3
	model, err := learn.TrainModel(ctx, g, d, learn.ModelConfig{Subject: "calc", Train: learn.TrainOptions{Seed: 1}})
	if err != nil {
		return nil, err
	}
	return learn.NewPredictor(model, g)
}

func ExampleLoop_Pursue() {
	ctx := context.Background()
	p, err := train(ctx, calc{}, 300)
	if err != nil {
		log.Fatal(err)
	}
	loop, err := targeting.NewLoop(p, calc{})
	if err != nil {
		log.Fatal(err)
	}
	res, err := loop.Pursue(ctx, "divideByZero", targeting.PursueOptions{Want: 3, Budget: 30, Seed: 1,
		Solve: synth.SolveOptions{MaxDepth: 5}})
	if err != nil {
		log.Fatal(err)
	}
	for _, in := range res.Inputs {
		fmt.Printf("%s (execution %d)\n", in.Text, in.Execution)
	}
	fmt.Println(res.Stopped, "after", res.Executions, "executions")
	// Output:
	// 5/0-1/2 (execution 1)
	// 0/0 (execution 3)
	// 0*0+0/0 (execution 4)
	// done after 4 executions
}
