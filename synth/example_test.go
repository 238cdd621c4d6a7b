package synth_test

import (
	"context"
	"fmt"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/synth"
)

func ExampleGenerator_Generate() {
	g, _ := datasets.Grammar("expr")
	rec := &synth.Recorder{C: synth.NewRandom(42)}
	gen := synth.NewGenerator(g, rec, synth.RandomPolicy)
	gen.MaxDepth = 8
	input := gen.Generate().String()

	// The recorded choices replay the same input.
	replay := synth.NewGenerator(g, &synth.Replay{Choices: rec.Choices}, synth.RandomPolicy)
	fmt.Println(replay.Generate().String() == input)
	// Output: true
}

func ExampleCover() {
	g, _ := datasets.Grammar("csv")
	res, err := synth.Cover(context.Background(), g, synth.CoverOptions{K: 2, Seed: 1, CloseOff: synth.ShortestPolicy})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d inputs cover all %d 2-paths: coverage %.1f\n", len(res.Inputs), res.Targets, res.Coverage)
	// Output: 8 inputs cover all 21 2-paths: coverage 1.0
}

func ExampleMutator() {
	g, _ := datasets.Grammar("expr")
	m := synth.NewMutator(g, 1)
	m.MaxDepth = 6
	parent := m.Realize(nil) // a random input, with its choices
	child := m.Realize(m.Mutate(parent.Choices))
	// Whatever the mutation did, the child is a derivation of the
	// grammar, and its recorded choices replay it.
	_, err := g.Parse([]byte(child.Text))
	fmt.Println(err == nil, m.Realize(child.Choices).Text == child.Text)
	// Output: true true
}
