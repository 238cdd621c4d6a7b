package mine_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/mine"
	"github.com/arbor-fuzz/arbor/synth"
)

// progGrammar declares and uses names, and has ranges; the "program"
// below rejects a use of an undeclared name and a range that runs
// backwards, which the grammar cannot say.
const progGrammar = `
Doc     := Item (";" Item){,5} ;
Item    := Decl | Use | Range ;
Decl    := "let " VarDecl ;
Use     := "print " VarUse ;
VarDecl := Name ;
VarUse  := Name ;
Range   := Start "-" End ;
Start   := Num ;
End     := Num ;
Num     := /[0-9]/ ;
Name    := /[a-c]/ ;
`

func build(t testing.TB, src string) *grammar.Graph {
	t.Helper()
	return fixture.Build(t, "prog.grammar", src)
}

// accepts is the program: every used name is declared before its use,
// and every range's start is at most its end.
func accepts(in string) bool {
	declared := map[string]bool{}
	for _, item := range strings.Split(in, ";") {
		switch {
		case strings.HasPrefix(item, "let "):
			declared[item[4:]] = true
		case strings.HasPrefix(item, "print "):
			if !declared[item[6:]] {
				return false
			}
		default:
			a, b, _ := strings.Cut(item, "-")
			x, _ := strconv.Atoi(a)
			y, _ := strconv.Atoi(b)
			if x > y {
				return false
			}
		}
	}
	return true
}

func randomInputs(g *grammar.Graph, n int) []mine.Input {
	var out []mine.Input
	for seed := range uint64(n) {
		s := synth.NewGenerator(g, synth.NewRandom(seed), synth.RandomPolicy).Generate().String()
		out = append(out, mine.Input{Data: []byte(s), Accepted: accepts(s)})
	}
	return out
}

// TestClauses mines the program's two checks from random inputs and
// verifies each proposed clause against what it reports: checked again
// on every input, it breaks the inputs and explains the rejections it
// says it does.
func TestClauses(t *testing.T) {
	g := build(t, progGrammar)
	inputs := randomInputs(g, 600)
	rep, err := mine.Clauses(context.Background(), g, inputs, mine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Accepted == 0 || rep.Rejected == 0 || rep.NotParsed != 0 {
		t.Fatalf("report %+v: want both verdicts, every input parsed", rep)
	}
	var text []string
	for _, c := range rep.Candidates {
		text = append(text, c.Clause)
	}
	all := strings.Join(text, "\n")
	// A use must follow a declaration; on these inputs, following any
	// earlier occurrence of the name is the same (an earlier use was
	// rejected unless declared), so either clause says it.
	for _, want := range []string{
		"where Range: !(Start != nil && End != nil && Start.num > End.num) ;",
		`where all(VarUse, {let x = #; any(`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the candidates lack %s; they are:\n%s", want, all)
		}
	}
	if len(rep.Candidates) > 0 && rep.Candidates[0].Precision != 1 {
		t.Errorf("the first candidate has precision %v; the program's checks are exact", rep.Candidates[0].Precision)
	}
	p := g.NewParser()
	explained := make([]bool, len(inputs))
	for _, c := range rep.Candidates {
		ast, err := grammar.Parse("prog.grammar", []byte(progGrammar+c.Clause))
		if err != nil {
			t.Fatalf("%s: %v", c.Clause, err)
		}
		g2, err := grammar.Build(ast)
		if err != nil {
			t.Fatal(err)
		}
		set, err := constraint.Compile(g2)
		if err != nil {
			t.Fatalf("%s does not compile: %v", c.Clause, err)
		}
		check := constraint.NewChecker(set)
		breaks, support := 0, 0
		for i, in := range inputs {
			tree, err := p.ParseContext(context.Background(), in.Data, grammar.ParseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			tree2, err := g2.NewParser().ParseContext(context.Background(), []byte(tree.String()), grammar.ParseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(check.Check(tree2)) > 0 {
				explained[i] = explained[i] || c.Precision == 1
				breaks++
				if !in.Accepted {
					support++
				}
			}
		}
		if breaks != c.Breaks || support != c.Support {
			t.Errorf("%s: reported breaks %d, support %d; checked again: %d, %d", c.Clause, c.Breaks, c.Support, breaks, support)
		}
	}
	for i, in := range inputs {
		if !in.Accepted && !explained[i] {
			t.Errorf("rejected input %q breaks no candidate of precision 1", in.Data)
		}
	}
}

func TestClausesNothingToSeparate(t *testing.T) {
	g := build(t, progGrammar)
	tests := []struct {
		name   string
		inputs []mine.Input
		want   string
	}{
		{"all accepted", []mine.Input{{Data: []byte("let a"), Accepted: true}, {Data: []byte("1-2"), Accepted: true}}, "accepted all 2"},
		{"all rejected", []mine.Input{{Data: []byte("print a")}, {Data: []byte("2-1")}}, "rejected all 2"},
		{"one input", []mine.Input{{Data: []byte("print a")}}, "rejected all 1"},
		{"none parses", []mine.Input{{Data: []byte("x")}, {Data: []byte("let"), Accepted: true}}, "none of the 2 inputs parses"},
		{"no inputs", nil, "accepted all 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := mine.Clauses(context.Background(), g, tt.inputs, mine.Options{})
			if !errors.Is(err, mine.ErrNothingToSeparate) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want ErrNothingToSeparate saying %q", err, tt.want)
			}
		})
	}
}

func TestClausesCancel(t *testing.T) {
	g := build(t, progGrammar)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := mine.Clauses(ctx, g, randomInputs(g, 50), mine.Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}
