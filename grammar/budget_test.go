package grammar

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ambiguous is the textbook ambiguous grammar: n operators give a
// Catalan number of trees, and Earley's parser cubic time.
const ambiguous = `E := E "+" E | "1" ;`

func sums(n int) []byte {
	return []byte("1" + strings.Repeat("+1", n))
}

// TestBudgetNamesAmbiguousRule: a parse of an ambiguous grammar that
// needs more than its budget fails with a *BudgetError that names the
// ambiguous rule and shows a part of the input with several trees, by
// every entry point, and whatever the tree limit.
func TestBudgetNamesAmbiguousRule(t *testing.T) {
	g := mustBuild(t, "amb.grammar", ambiguous)
	// A grammar whose ambiguity is one rule down, beside an unambiguous one.
	nested := mustBuild(t, "nested.grammar", `S := "(" L ")" ; L := X+ ; X := "a" | "a" "a" | "b" ;`)
	// A regex that matches at every length from every position: each
	// position adds a match for each later one.
	runs := mustBuild(t, "runs.grammar", `S := X* ; X := /a+/ ;`)
	long := sums(3000)
	tests := []struct {
		name    string
		g       *Graph
		in      []byte
		opts    ParseOptions
		rule    string
		example string
	}{
		{"3000 operators, default budget", g, long, ParseOptions{}, "E", "1+1+1"},
		{"3000 operators, 16 trees", g, long, ParseOptions{Trees: 16}, "E", "1+1+1"},
		{"small budget", g, sums(40), ParseOptions{Budget: 2000}, "E", "1+1+1"},
		{"ambiguity inside a repetition", nested, []byte("(" + strings.Repeat("a", 4000) + ")"), ParseOptions{Budget: 20000}, "L", "aa"},
		{"a regex matching at every length", runs, bytes.Repeat([]byte("a"), 2000), ParseOptions{Budget: 200000}, "S", "aa"},
		// The budget is spent on the matches from the first position.
		{"a regex matching at every length, long", runs, bytes.Repeat([]byte("a"), 300000), ParseOptions{Budget: 200000}, "X", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries := map[string]func() error{
				"Graph.ParseContext": func() error {
					_, err := tt.g.ParseContext(context.Background(), tt.in, tt.opts)
					return err
				},
				"Graph.ParseAllContext": func() error {
					_, err := tt.g.ParseAllContext(context.Background(), tt.in, tt.opts)
					return err
				},
				"Graph.ParseLazyContext": func() error {
					_, err := tt.g.ParseLazyContext(context.Background(), tt.in, tt.opts)
					return err
				},
				"Parser.ParseContext": func() error {
					_, err := tt.g.NewParser().ParseContext(context.Background(), tt.in, tt.opts)
					return err
				},
				"Parser.ParseLazyContext": func() error {
					_, err := tt.g.NewParser().ParseLazyContext(context.Background(), tt.in, tt.opts)
					return err
				},
			}
			for _, name := range slices.Sorted(mapKeys(entries)) {
				err := entries[name]()
				var be *BudgetError
				if !errors.As(err, &be) {
					t.Fatalf("%s: error %v, want a *BudgetError", name, err)
				}
				if len(be.Rules) == 0 || be.Rules[0] != tt.rule || be.Example != tt.example {
					t.Errorf("%s: rules %q, example %q; want rule %s first and example %q", name, be.Rules, be.Example, tt.rule, tt.example)
				}
				msg := err.Error()
				wants := []string{"parse budget of", "rule " + tt.rule + " is ambiguous", fmt.Sprintf("%q", tt.example), "arbor grammar check --conflicts"}
				if tt.example == "" {
					wants = []string{"parse budget of", "derived the most parts of the input", "arbor grammar check --conflicts"}
				}
				for _, want := range wants {
					if !strings.Contains(msg, want) {
						t.Errorf("%s: %q does not say %q", name, msg, want)
					}
				}
			}
		})
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestBudgetOptions: what the budget lets through. The old entry points
// have the default budget; a negative budget is none; a budget large
// enough gives the trees; a budget that runs out while more trees are
// read gives the trees found.
func TestBudgetOptions(t *testing.T) {
	g := mustBuild(t, "amb.grammar", ambiguous)
	tests := []struct {
		name  string
		parse func() ([]*Tree, error)
		trees int // 0: a *BudgetError
	}{
		{"Parse, short input", func() ([]*Tree, error) { t, err := g.Parse(sums(30)); return []*Tree{t}, err }, 1},
		{"ParseAll, short input", func() ([]*Tree, error) { return g.ParseAll(sums(30), 16) }, 16},
		{"Parse, long input", func() ([]*Tree, error) { t, err := g.Parse(sums(3000)); return []*Tree{t}, err }, 0},
		{"ParseAll, long input", func() ([]*Tree, error) { return g.ParseAll(sums(3000), 16) }, 0},
		{"no budget", func() ([]*Tree, error) {
			return g.ParseAllContext(context.Background(), sums(200), ParseOptions{Trees: 3, Budget: -1})
		}, 3},
		{"budget enough for the chart, not for every tree", func() ([]*Tree, error) {
			var w work
			if _, err := g.earleyWork(context.Background(), sums(60), ParseOptions{Budget: -1}, false, &w); err != nil {
				return nil, err
			}
			// The chart's items, and too few steps for 1,000 trees.
			return g.ParseAllContext(context.Background(), sums(60), ParseOptions{Trees: 1000, Budget: w.items + 10})
		}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			trees, err := tt.parse()
			var be *BudgetError
			switch {
			case tt.trees == 0:
				if !errors.As(err, &be) {
					t.Fatalf("error %v, want a *BudgetError", err)
				}
			case err != nil:
				t.Fatal(err)
			case tt.trees > 0 && len(trees) != tt.trees:
				t.Fatalf("%d trees, want %d", len(trees), tt.trees)
			case tt.trees < 0 && (len(trees) < 1 || len(trees) >= 1000):
				t.Fatalf("%d trees, want some and fewer than the limit", len(trees))
			}
		})
	}
}

// TestParseCancelled: a cancelled context stops a parse, by every entry
// point, with an error that wraps the context's; one cancelled while the
// chart is being built stops it there.
func TestParseCancelled(t *testing.T) {
	g := mustBuild(t, "amb.grammar", ambiguous)
	long := sums(3000)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	entries := []struct {
		name  string
		parse func(ctx context.Context) error
	}{
		{"Graph.ParseContext", func(ctx context.Context) error {
			_, err := g.ParseContext(ctx, long, ParseOptions{Budget: -1})
			return err
		}},
		{"Graph.ParseAllContext", func(ctx context.Context) error {
			_, err := g.ParseAllContext(ctx, long, ParseOptions{Budget: -1})
			return err
		}},
		{"Graph.ParseLazyContext", func(ctx context.Context) error {
			_, err := g.ParseLazyContext(ctx, long, ParseOptions{Budget: -1})
			return err
		}},
		{"Parser.ParseContext", func(ctx context.Context) error {
			_, err := g.NewParser().ParseContext(ctx, long, ParseOptions{Budget: -1})
			return err
		}},
		{"Parser.ParseLazyContext", func(ctx context.Context) error {
			_, err := g.NewParser().ParseLazyContext(ctx, long, ParseOptions{Budget: -1})
			return err
		}},
	}
	for _, tt := range entries {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.parse(done); !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want one wrapping context.Canceled", err)
			}
		})
	}
	t.Run("while building the chart", func(t *testing.T) {
		// The context is cancelled from inside the parse, by its own
		// look at it: the Earley loop must then stop.
		ctx := &cancelAfter{Context: context.Background(), looks: 3}
		_, err := g.ParseContext(ctx, long, ParseOptions{Budget: -1})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want one wrapping context.Canceled", err)
		}
		if !strings.Contains(err.Error(), "parse stopped at byte") {
			t.Errorf("error %q does not say where the parse stopped", err)
		}
	})
	t.Run("while reading trees", func(t *testing.T) {
		// Enough looks for the chart of 60 operators, then cancelled
		// while a million trees are read.
		var w work
		if _, err := g.earleyWork(context.Background(), sums(60), ParseOptions{Budget: -1}, false, &w); err != nil {
			t.Fatal(err)
		}
		ctx := &cancelAfter{Context: context.Background(), looks: w.items/checkEvery + 3}
		_, err := g.ParseAllContext(ctx, sums(60), ParseOptions{Trees: 1 << 20, Budget: -1})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want one wrapping context.Canceled", err)
		}
	})
}

// cancelAfter is a context that is cancelled from its looks+1st look at
// its error on.
type cancelAfter struct {
	context.Context
	looks int
}

func (c *cancelAfter) Err() error {
	if c.looks--; c.looks < 0 {
		return context.Canceled
	}
	return nil
}

// TestDefaultBudgetMargin holds the default budget a margin above what
// the bundled grammars' inputs need: generated inputs of each, and
// mutations of them, parsed by the general parser with 16 trees, take at
// most a tenth of the default budget.
func TestDefaultBudgetMargin(t *testing.T) {
	inputs := 200
	if testing.Short() {
		inputs = 40
	}
	for _, name := range bundledNames(t) {
		g := bundled(t, name)
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(31, uint64(len(name))))
			most, at := 0.0, ""
			for i := range inputs {
				in := []byte(randomTree(g, r, 4+i%8).String())
				if i%2 == 1 && len(in) > 0 {
					k := r.IntN(len(in))
					in = append(in[:k:k], append([]byte{in[r.IntN(len(in))]}, in[k:]...)...)
				}
				if len(in) > 50000 {
					continue
				}
				var w work
				_, err := g.earleyWork(context.Background(), in, ParseOptions{Trees: DefaultTreeLimit, Budget: -1}, false, &w)
				var pe *ParseError
				if err != nil && !errors.As(err, &pe) {
					t.Fatalf("input %q: %v", in, err)
				}
				if f := float64(max(w.items, w.steps)) / float64(DefaultBudget(len(in))); f > most {
					most, at = f, string(in)
				}
			}
			if most > 0.1 {
				t.Errorf("an input takes %.0f%% of the default budget: %q", 100*most, at)
			}
		})
	}
}

// TestMeasureBudget measures the work of the general parser over folders
// of generated inputs, for the choice of the default budget: set
// ARBOR_BUDGET_CORPUS to a folder of GRAMMAR.*.jsonl files, as 'arbor
// generate GRAMMAR --out -' writes them.
func TestMeasureBudget(t *testing.T) {
	dir := os.Getenv("ARBOR_BUDGET_CORPUS")
	if dir == "" {
		t.Skip("set ARBOR_BUDGET_CORPUS to a folder of generated inputs")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no .jsonl files in %s: %v", dir, err)
	}
	graphs := map[string]*Graph{}
	t.Logf("%-24s %6s %9s %12s %12s %10s %12s %11s %11s", "file", "inputs", "max bytes", "max items", "max steps", "items/B", "small inputs", "spec/B det", "spec/B bail")
	for _, file := range files {
		name, _, _ := strings.Cut(filepath.Base(file), ".")
		g := graphs[name]
		if g == nil {
			g = bundled(t, name)
			graphs[name] = g
		}
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<26)
		n, longest, items, steps, small := 0, 0, 0, 0, 0
		perByte, specDet, specBail := 0.0, 0.0, 0.0
		for sc.Scan() {
			var line struct{ Input string }
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				t.Fatal(err)
			}
			in := []byte(line.Input)
			var w work
			if _, err := g.earleyWork(context.Background(), in, ParseOptions{Trees: DefaultTreeLimit, Budget: -1}, false, &w); err != nil {
				t.Errorf("%s: %v", file, err)
			}
			// The speculation of the deterministic parser, unbounded.
			p := g.getDet(detCheck, in)
			out := p.run(g.Root)
			switch {
			case len(in) < 100:
			case out == detOK:
				specDet = max(specDet, float64(p.work)/float64(len(in)))
			default:
				specBail = max(specBail, float64(p.work)/float64(len(in)))
			}
			g.putDet(p)
			n++
			longest = max(longest, len(in))
			items, steps = max(items, w.items), max(steps, w.steps)
			if len(in) >= 100 {
				perByte = max(perByte, float64(max(w.items, w.steps))/float64(len(in)))
			} else {
				small = max(small, w.items, w.steps)
			}
		}
		f.Close()
		t.Logf("%-24s %6d %9d %12d %12d %10.1f %12d %11.1f %11.1f", filepath.Base(file), n, longest, items, steps, perByte, small, specDet, specBail)
	}
}

// arithmetic is the expression grammar of ANTLR's grammars-v4
// arithmetic.g4 as a first version of arbor's left-recursion conversion
// wrote it (each level rule listing every tighter alternative; the
// converter now writes a chain of levels), with whitespace between
// tokens: a fair stress test of speculation still. Deciding its conflicts by speculation
// took time exponential in the nesting of parentheses.
const arithmetic = `file_ := _ equation* ;
equation := expression relop expression ;
expression := expression_2 POW _ expression_3 | expression_1 (TIMES _ | DIV _) expression_2 | expression (PLUS _ | MINUS _) expression_1 | LPAREN _ expression RPAREN _ | (PLUS _ | MINUS _)* atom ;
expression_1 := expression_2 POW _ expression_3 | expression_1 (TIMES _ | DIV _) expression_2 | LPAREN _ expression RPAREN _ | (PLUS _ | MINUS _)* atom ;
expression_2 := expression_2 POW _ expression_3 | LPAREN _ expression RPAREN _ | (PLUS _ | MINUS _)* atom ;
expression_3 := LPAREN _ expression RPAREN _ | (PLUS _ | MINUS _)* atom ;
atom := scientific | variable ;
scientific := SCIENTIFIC_NUMBER _ ;
variable := VARIABLE _w ;
relop := EQ _ | GT _ | LT _ ;
VARIABLE := VALID_ID_START VALID_ID_CHAR* ;
VALID_ID_START := /[a-z]|[A-Z]|_/ ;
VALID_ID_CHAR := VALID_ID_START | /[0-9]/ ;
SCIENTIFIC_NUMBER := NUMBER (E SIGN? UNSIGNED_INTEGER)? ;
NUMBER := /[0-9]+(?:\.[0-9]+)?/ ;
UNSIGNED_INTEGER := /[0-9]+/ ;
E := "E" | "e" ;
SIGN := "+" | "-" ;
LPAREN := "(" ;
RPAREN := ")" ;
PLUS := "+" ;
MINUS := "-" ;
TIMES := "*" ;
DIV := "/" ;
GT := ">" ;
LT := "<" ;
EQ := "=" ;
POW := "^" ;
_ := /(?:[\t\n\r ]+)*/ ;
_w := /(?:[\t\n\r ]+)*(?:[\t\n\r ]+|\B)/ ;
`

// nestedArithmetic is an equation whose left side nests k parentheses.
func nestedArithmetic(k int) []byte {
	return []byte("-+K766K ^" + strings.Repeat(" ( ", k) + "- - x" + strings.Repeat(" )", k) + " = y")
}

// TestSpeculationBounded: the deterministic parser's speculation, which
// took two minutes for 48 bytes of the arithmetic grammar (nesting six
// deep), gives up within its bound and leaves the input to the general
// parser, which gives the tree the deterministic parser would have (the
// tree is the same either way: speculation only decides where one tree
// is possible). A context done while it speculates stops the parse.
func TestSpeculationBounded(t *testing.T) {
	g := mustBuild(t, "arithmetic.grammar", arithmetic)
	tests := []struct {
		name string
		in   []byte
		quit bool // the bound is reached
	}{
		{"shallow", nestedArithmetic(1), false},
		{"six deep", nestedArithmetic(6), true},
		{"forty deep", nestedArithmetic(40), true},
		{"six deep, then long", append(nestedArithmetic(6), bytes.Repeat([]byte(" a = b"), 500)...), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := g.getDet(detCheck, tt.in)
			p.bound(context.Background())
			p.run(g.Root)
			quit, work := p.quit, p.work
			g.putDet(p)
			if quit != tt.quit {
				t.Errorf("gave up %v, want %v (work %d)", quit, tt.quit, work)
			}
			if most := specBudget(len(tt.in)) + specCheckEvery + len(tt.in) + 1; work > most {
				t.Errorf("speculation did %d, more than its bound of %d", work, most)
			}
			want, err := g.parseGeneral(tt.in, 1)
			if err != nil {
				t.Fatal(err)
			}
			for name, parse := range map[string]func() (*Tree, error){
				"Graph.Parse":  func() (*Tree, error) { return g.Parse(tt.in) },
				"Parser.Parse": func() (*Tree, error) { return g.NewParser().Parse(tt.in) },
				"Graph.ParseLazy": func() (*Tree, error) {
					p, err := g.ParseLazy(tt.in, 1)
					if err != nil {
						return nil, err
					}
					trees, err := p.Trees()
					if err != nil {
						return nil, err
					}
					return trees[0], nil
				},
			} {
				got, err := parse()
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if dump(got) != dump(want[0]) {
					t.Errorf("%s: the tree differs from the general parser's", name)
				}
			}
		})
	}
	t.Run("cancelled while speculating", func(t *testing.T) {
		done, cancel := context.WithCancel(context.Background())
		cancel()
		p := g.getDet(detCheck, nestedArithmetic(40))
		p.bound(done)
		p.run(g.Root)
		if !p.quit || p.work > specCheckEvery {
			t.Errorf("a cancelled speculation went on: gave up %v after %d", p.quit, p.work)
		}
		g.putDet(p)
		// One look passes (the parse's start); the speculation's is
		// the second, and the general parser's the third.
		for name, parse := range map[string]func(ctx context.Context) error{
			"Graph.ParseContext": func(ctx context.Context) error {
				_, err := g.ParseContext(ctx, nestedArithmetic(40), ParseOptions{Budget: -1})
				return err
			},
			"Parser.ParseLazyContext": func(ctx context.Context) error {
				_, err := g.NewParser().ParseLazyContext(ctx, nestedArithmetic(40), ParseOptions{Budget: -1})
				return err
			},
		} {
			ctx := &cancelAfter{Context: context.Background(), looks: 1}
			if err := parse(ctx); !errors.Is(err, context.Canceled) {
				t.Errorf("%s: error %v, want one wrapping context.Canceled", name, err)
			}
		}
	})
}
